// Activity events in PostgreSQL. Views count once per visitor and UTC day: the partial unique index
// activity_view_once (core/001-init) rejects the repeat and ON CONFLICT DO NOTHING drops it, as
// SQLite's INSERT OR IGNORE does.
import type pg from 'pg';
import type { ActivityCounts, ActivityEvent, ActivityStore, ActivityTotals } from '../../ports/activity-store.js';
import { countsFromRows, rowToTotals, TOP_SINCE_COLUMNS, TOP_SINCE_ORDER, WINDOW_30D_SECONDS, WINDOW_7D_SECONDS, type KindCountRow, type TotalsRow } from '../sql/activity-counts.js';
import { utcDay } from '../sql/document-row.js';

export class PostgresActivityStore implements ActivityStore {
  constructor(private readonly pool: pg.Pool) {}

  async record(events: readonly ActivityEvent[]): Promise<void> {
    if (events.length === 0) return;
    // One statement for the whole batch (column arrays unnested into rows): atomic and one round trip.
    await this.pool.query(
      `INSERT INTO activity_events (document_id, kind, account_id, visitor, day, at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::int[], $6::bigint[])
       ON CONFLICT DO NOTHING`,
      [
        events.map((e) => e.documentId),
        events.map((e) => e.kind),
        events.map((e) => e.accountId),
        events.map((e) => (e.kind === 'view' ? e.visitor : null)),
        events.map((e) => utcDay(e.at)),
        events.map((e) => e.at),
      ],
    );
  }

  async counts(documentId: string, now: number): Promise<ActivityCounts> {
    const { rows } = await this.pool.query<KindCountRow>(
      `SELECT kind, COUNT(*) FILTER (WHERE at > $3) AS d7, COUNT(*) AS d30
       FROM activity_events WHERE document_id = $1 AND at > $2 GROUP BY kind`,
      [documentId, now - WINDOW_30D_SECONDS, now - WINDOW_7D_SECONDS],
    );
    const newest = await this.pool.query<{ newest: number | null }>('SELECT MAX(at) AS newest FROM activity_events WHERE document_id = $1', [documentId]);
    return countsFromRows(documentId, rows, newest.rows[0]!.newest);
  }

  async topSince(since: number, limit: number): Promise<ActivityTotals[]> {
    const { rows } = await this.pool.query<TotalsRow>(
      `SELECT ${TOP_SINCE_COLUMNS} FROM activity_events WHERE at > $1 GROUP BY document_id ORDER BY ${TOP_SINCE_ORDER} LIMIT $2`,
      [since, limit],
    );
    return rows.map(rowToTotals);
  }
}
