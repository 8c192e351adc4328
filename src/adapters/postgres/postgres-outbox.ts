// The transactional outbox in PostgreSQL (ports/shard-log.ts Outbox; migration cluster/001, ADR 0206).
// Entries are written by a trigger on `documents` in the transaction of each change; this side turns the
// outbox on, reads pending entries with the record's current state, deletes what the log acknowledged,
// and elects the one relay of the cluster with a session-level advisory lock.
import pg from 'pg';
import type { DocumentChange } from '../../ports/document-store.js';
import type { Outbox, OutboxEntry, RelayLease } from '../../ports/shard-log.js';
import { rowToStored } from '../sql/document-row.js';
import { withTransaction } from './postgres-pool.js';

/** First key of the relay's advisory lock ("Lectern outbox relay"); the second is the schema's hash. */
const RELAY_LOCK_NAMESPACE = 0x1ec7e5;
const LOCK_KEY = "hashtext(COALESCE(current_schema(), ''))";

export class PostgresOutbox implements Outbox {
  constructor(private readonly pool: pg.Pool) {}

  async enable(): Promise<void> {
    await withTransaction(this.pool, async (tx) => {
      // the writers' lock: a writer in flight commits (or aborts) before the flag turns on
      await tx.query("SELECT value FROM counters WHERE name = 'document_seq' FOR UPDATE");
      await tx.query("UPDATE counters SET value = 1 WHERE name = 'outbox_enabled' AND value <> 1");
    });
  }

  async pending(limit: number): Promise<OutboxEntry[]> {
    const { rows } = await this.pool.query<{
      seq: number;
      id: string;
      old_work_key: string | null;
      work_key: string;
      cur_seq: number | null;
      deleted: boolean | null;
      record: unknown;
      created_at: number | null;
      updated_at: number | null;
    }>(
      `SELECT o.seq, o.id, o.old_work_key, o.work_key, d.seq AS cur_seq, d.deleted,
         CASE WHEN d.seq = o.seq THEN d.record END AS record, d.created_at, d.updated_at
       FROM (SELECT * FROM document_outbox ORDER BY seq LIMIT $1) o LEFT JOIN documents d ON d.id = o.id
       ORDER BY o.seq`,
      [limit],
    );
    return rows.map((r) => {
      let change: DocumentChange | null = null;
      if (r.cur_seq === r.seq) {
        change = r.deleted
          ? { deleted: true, seq: r.seq, id: r.id }
          : {
              deleted: false,
              seq: r.seq,
              doc: rowToStored({ record: r.record as string, seq: r.seq, work_key: r.work_key, created_at: r.created_at!, updated_at: r.updated_at! }),
            };
      }
      return { seq: r.seq, id: r.id, oldWorkKey: r.old_work_key, workKey: r.work_key, change };
    });
  }

  async markPublished(seq: number): Promise<void> {
    await this.pool.query('DELETE FROM document_outbox WHERE seq <= $1', [seq]);
  }

  async tryLead(): Promise<RelayLease | null> {
    // a connection of its own: the lock lives as long as this session
    const client = new pg.Client(this.pool.options);
    let alive = true;
    client.on('error', () => {
      alive = false;
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock($1, ${LOCK_KEY}) AS ok`, [RELAY_LOCK_NAMESPACE]);
      if (!rows[0]!.ok) {
        await client.end();
        return null;
      }
    } catch (e) {
      await client.end().catch(() => undefined);
      throw e;
    }
    client.on('end', () => {
      alive = false;
    });
    return {
      alive: () => alive,
      release: async () => {
        if (!alive) return;
        alive = false;
        await client.end().catch(() => undefined);
      },
    };
  }
}
