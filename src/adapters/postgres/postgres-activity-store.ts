// Activity events in PostgreSQL. Views count once per visitor and UTC day: the partial unique index
// activity_view_once (core/001-init) rejects the repeat and ON CONFLICT DO NOTHING drops it, as
// SQLite's INSERT OR IGNORE does. The rows actually inserted are added to the daily counters
// (activity/001-daily-counters) in the same statement; reads use only the counters.
import type pg from 'pg';
import type { ActivityCounts, ActivityEvent, ActivityStore, ActivityTotals } from '../../ports/activity-store.js';
import { accountsKind, countsFromRows, dailyGroups, PER_ACCOUNT_KINDS, firstDay, rowToTotals, TOP_COLUMNS, TOP_ORDER, type KindCountRow, type TotalsRow } from '../sql/activity-counts.js';
import { utcDay } from '../sql/document-row.js';

export class PostgresActivityStore implements ActivityStore {
  constructor(private readonly pool: pg.Pool) {}

  async record(events: readonly ActivityEvent[]): Promise<void> {
    if (events.length === 0) return;
    // One statement for the whole batch (column arrays unnested into rows): atomic and one round trip.
    // Raw rows exist only to de-duplicate views (ADR 0137): views are inserted (a repeat is dropped)
    // and those inserted are counted; the other kinds go straight to the counters, grouped per
    // (document, day, kind) first.
    // Raw rows: views (once per visitor and day) and, for trending's per-account counters (ADR 0211),
    // the per-account kinds (once per account, document, day and kind); a new raw row counts as a
    // view, or as a reader (`<kind>_accounts`). Per-account kinds without an account count directly.
    const views = events.filter((e) => e.kind === 'view' || (PER_ACCOUNT_KINDS.has(e.kind) && e.accountId !== null));
    const others = dailyGroups(
      [...events.filter((e) => e.kind !== 'view'), ...events.filter((e) => PER_ACCOUNT_KINDS.has(e.kind) && e.accountId === null).map((e) => ({ ...e, kind: accountsKind(e.kind) }))],
      () => true,
    );
    await this.pool.query(
      `WITH ins AS (
         INSERT INTO activity_events (document_id, kind, account_id, visitor, day, at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::int[], $6::bigint[])
         ON CONFLICT DO NOTHING
         RETURNING document_id, kind, day, at),
       counted AS (
         SELECT document_id, day, CASE WHEN kind = 'view' THEN kind ELSE kind || '_accounts' END AS kind, COUNT(*)::bigint AS n, MAX(at) AS last_at FROM ins GROUP BY document_id, day, kind
         UNION ALL
         SELECT * FROM unnest($7::text[], $8::int[], $9::text[], $10::bigint[], $11::bigint[])
       )
       INSERT INTO activity_daily (document_id, day, kind, n, last_at)
       SELECT document_id, day, kind, SUM(n), MAX(last_at) FROM counted GROUP BY document_id, day, kind
       ON CONFLICT (document_id, day, kind) DO UPDATE SET n = activity_daily.n + EXCLUDED.n, last_at = GREATEST(activity_daily.last_at, EXCLUDED.last_at)`,
      [
        views.map((e) => e.documentId),
        views.map((e) => e.kind),
        views.map((e) => e.accountId),
        views.map((e) => (e.kind === 'view' ? e.visitor : null)),
        views.map((e) => utcDay(e.at)),
        views.map((e) => e.at),
        others.map((g) => g.documentId),
        others.map((g) => g.day),
        others.map((g) => g.kind),
        others.map((g) => g.n),
        others.map((g) => g.lastAt),
      ],
    );
  }

  async counts(documentId: string, now: number): Promise<ActivityCounts> {
    const { rows } = await this.pool.query<KindCountRow>(
      `SELECT kind, SUM(n) FILTER (WHERE day >= $3) AS d7, SUM(n) AS d30
       FROM activity_daily WHERE document_id = $1 AND day >= $2 AND day <= $4 GROUP BY kind`,
      [documentId, firstDay(now, 30), firstDay(now, 7), utcDay(now)],
    );
    const newest = await this.pool.query<{ newest: number | null }>('SELECT MAX(last_at) AS newest FROM activity_daily WHERE document_id = $1', [documentId]);
    return countsFromRows(documentId, rows.map((r) => ({ ...r, d7: r.d7 ?? 0 })), newest.rows[0]!.newest);
  }

  async topOver(now: number, days: number, limit: number): Promise<ActivityTotals[]> {
    const { rows } = await this.pool.query<TotalsRow>(
      `SELECT ${TOP_COLUMNS} FROM activity_daily WHERE day >= $1 AND day <= $2 GROUP BY document_id ORDER BY ${TOP_ORDER} LIMIT $3`,
      [firstDay(now, days), utcDay(now), limit],
    );
    return rows.map(rowToTotals);
  }

  async prune(rawBefore: number, dayBefore: number): Promise<{ raw: number; daily: number }> {
    const raw = await this.pool.query('DELETE FROM activity_events WHERE at < $1', [rawBefore]);
    const daily = await this.pool.query('DELETE FROM activity_daily WHERE day < $1', [dayBefore]);
    return { raw: raw.rowCount ?? 0, daily: daily.rowCount ?? 0 };
  }
}
