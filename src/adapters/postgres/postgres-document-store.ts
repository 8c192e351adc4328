// Documents in PostgreSQL (same semantics as the SQLite store; test/contract/storage.contract.ts).
//
// Change sequence numbers come from the `counters` row 'document_seq', which every writing transaction
// locks first (SELECT ... FOR UPDATE) and holds until it commits. Writers are therefore serialised, and
// sequence order equals commit order: a reader that has seen seq N never later finds a new change
// with seq <= N committed behind its back (docs/adr/0011-work-keys-and-change-sequence.md). Taking the
// lock before reading anything also means each writer sees every earlier writer's committed rows when
// it assigns work keys.
import type pg from 'pg';
import type { DocumentRecord, IndexName, StoredDocument } from '../../domain/document.js';
import { linkTargets, type IncomingRelation, type WorkMember } from '../../domain/work.js';
import type { DocumentChange, DocumentStore, TextWindowRequest, TextWindows, UpsertResult } from '../../ports/document-store.js';
import { groupWorkMembers, rowToDisplay, rowToStored, serializeDisplay, type DisplayRow, type DocumentRow, type WorkMemberRow } from '../sql/document-row.js';
import type { DisplayDocumentWithText } from '../../domain/display-document.js';
import { batchIdentityKeys, batchIds, changedDocs, planUpsert, prepareDocs, workKeysToLoad, type UpsertPlan } from '../sql/upsert-plan.js';
import { withTransaction, type Tx } from './postgres-pool.js';

const READ_COLUMNS = 'id, record, seq, work_key, created_at, updated_at';

/** The sequence counter, locked for the rest of the transaction; seqs are handed out in memory. */
class SeqAllocator {
  #value: number;
  readonly #start: number;
  private constructor(value: number) {
    this.#value = value;
    this.#start = value;
  }
  static async lock(tx: Tx): Promise<SeqAllocator> {
    const { rows } = await tx.query<{ value: number }>("SELECT value FROM counters WHERE name = 'document_seq' FOR UPDATE");
    return new SeqAllocator(rows[0]!.value);
  }
  next(): number {
    return ++this.#value;
  }
  /** Writes the counter back when any number was used (the row lock is released at COMMIT). */
  async save(tx: Tx): Promise<void> {
    if (this.#value !== this.#start) await tx.query("UPDATE counters SET value = $1 WHERE name = 'document_seq'", [this.#value]);
  }
}

export class PostgresDocumentStore implements DocumentStore {
  constructor(private readonly pool: pg.Pool) {}

  async upsertMany(docs: readonly DocumentRecord[], at: number): Promise<UpsertResult> {
    // Serialising and hashing happen before the transaction: no need to hold the counter lock for it.
    const prepared = prepareDocs(docs);
    return withTransaction(this.pool, async (tx) => {
      const seq = await SeqAllocator.lock(tx);
      // Load what the batch can touch, plan it in memory exactly as the SQLite store would write it
      // record by record, then write the plan in a few set-based statements (upsert-plan.ts).
      const existing = await tx.query<{ id: string; hash: string; workKey: string; live: boolean }>(
        'SELECT id, content_hash AS hash, work_key AS "workKey", NOT deleted AS live FROM documents WHERE id = ANY($1::text[])',
        [batchIds(prepared)],
      );
      const changed = changedDocs(prepared, existing.rows);
      let linked: { key: string; id: string; workKey: string }[] = [];
      let workMembers: { id: string; workKey: string }[] = [];
      if (changed.length > 0) {
        linked = (
          await tx.query<{ key: string; id: string; workKey: string }>(
            `SELECT i.key, d.id, d.work_key AS "workKey" FROM document_identity i JOIN documents d ON d.id = i.document_id
             WHERE NOT d.deleted AND i.key = ANY($1::text[])`,
            [batchIdentityKeys(changed)],
          )
        ).rows;
        workMembers = (
          await tx.query<{ id: string; workKey: string }>('SELECT id, work_key AS "workKey" FROM documents WHERE NOT deleted AND work_key = ANY($1::text[])', [
            workKeysToLoad(changed, existing.rows, linked),
          ])
        ).rows;
      }
      const plan = planUpsert(prepared, { existing: existing.rows, linked, workMembers }, () => seq.next());
      await writePlan(tx, plan, existing.rows.filter((r) => r.live).map((r) => r.id), at);
      await seq.save(tx);
      return plan.result;
    });
  }

  async get(id: string): Promise<StoredDocument | null> {
    const { rows } = await this.pool.query<DocumentRow>(`SELECT ${READ_COLUMNS} FROM documents WHERE id = $1 AND NOT deleted`, [id]);
    return rows[0] ? rowToStored(rows[0]) : null;
  }

  async getMany(ids: readonly string[]): Promise<Map<string, StoredDocument>> {
    const out = new Map<string, StoredDocument>();
    if (ids.length === 0) return out;
    const { rows } = await this.pool.query<DocumentRow & { id: string }>(`SELECT ${READ_COLUMNS} FROM documents WHERE id = ANY($1::text[]) AND NOT deleted`, [
      [...new Set(ids)],
    ]);
    for (const r of rows) out.set(r.id, rowToStored(r));
    return out;
  }

  async getDisplayMany(ids: readonly string[], withText: readonly string[] = []): Promise<Map<string, DisplayDocumentWithText>> {
    const out = new Map<string, DisplayDocumentWithText>();
    if (ids.length === 0) return out;
    const wanted = [...new Set(ids)];
    const text = wanted.filter((id) => withText.includes(id));
    const { rows } = await this.pool.query<DisplayRow & { text: string | null }>(
      `SELECT v.id, v.display, v.seq, v.work_key, v.created_at, v.updated_at, d.record->>'fullText' AS text
       FROM document_display v LEFT JOIN documents d ON d.id = v.id AND d.id = ANY($2::text[])
       WHERE v.id = ANY($1::text[])`,
      [wanted, text],
    );
    for (const r of rows) {
      const doc: DisplayDocumentWithText = rowToDisplay(r);
      if (r.text !== null && r.text.length > 0) doc.fullText = r.text;
      out.set(r.id, doc);
    }
    return out;
  }

  async getTextWindows(wants: readonly TextWindowRequest[]): Promise<Map<string, TextWindows>> {
    const out = new Map<string, TextWindows>();
    // one row per (id, range), and one with k = -1 per id for its length alone: one round trip for the
    // page; the server takes the text out of the record and slices it (characters: scalar values)
    const ids: string[] = [];
    const ks: number[] = [];
    const starts: number[] = [];
    const lens: number[] = [];
    const asked = new Map<string, number>();
    for (const { id, ranges } of wants) {
      if (asked.has(id)) continue;
      asked.set(id, ranges.length);
      ids.push(id);
      ks.push(-1);
      starts.push(1);
      lens.push(0);
      ranges.forEach(([s, e], k) => {
        ids.push(id);
        ks.push(k);
        starts.push(s + 1);
        lens.push(Math.max(0, e - s));
      });
    }
    if (ids.length === 0) return out;
    const { rows } = await this.pool.query<{ id: string; k: number; n: number | null; text: string | null }>(
      `SELECT w.id, w.k, CASE WHEN w.k < 0 THEN length(x.t) END AS n, CASE WHEN w.k >= 0 THEN substr(x.t, w.s, w.l) END AS text
       FROM unnest($1::text[], $2::int[], $3::int[], $4::int[]) AS w(id, k, s, l)
       JOIN documents d ON d.id = w.id AND NOT d.deleted CROSS JOIN LATERAL (SELECT d.record->>'fullText' AS t) x`,
      [ids, ks, starts, lens],
    );
    for (const r of rows) {
      let w = out.get(r.id);
      if (!w) out.set(r.id, (w = { length: 0, texts: new Array<string>(asked.get(r.id)!).fill('') }));
      if (r.k < 0) w.length = r.n ?? 0;
      else w.texts[r.k] = r.text ?? '';
    }
    return out;
  }

  async getByUri(uri: string): Promise<StoredDocument | null> {
    const { rows } = await this.pool.query<DocumentRow>(
      `SELECT d.record, d.seq, d.work_key, d.created_at, d.updated_at FROM document_uris u JOIN documents d ON d.id = u.document_id
       WHERE u.uri = $1 AND NOT d.deleted ORDER BY d.id COLLATE "C" LIMIT 1`,
      [uri],
    );
    return rows[0] ? rowToStored(rows[0]) : null;
  }

  async getManyByUri(uris: readonly string[]): Promise<Map<string, StoredDocument>> {
    const out = new Map<string, StoredDocument>();
    if (uris.length === 0) return out;
    const { rows } = await this.pool.query<DocumentRow & { uri: string }>(
      `SELECT DISTINCT ON (u.uri) u.uri, d.record, d.seq, d.work_key, d.created_at, d.updated_at FROM document_uris u JOIN documents d ON d.id = u.document_id
       WHERE u.uri = ANY($1::text[]) AND NOT d.deleted ORDER BY u.uri, d.id COLLATE "C"`,
      [[...new Set(uris)]],
    );
    for (const r of rows) out.set(r.uri, rowToStored(r));
    return out;
  }

  async getByIdentityKeys(keys: readonly string[], limit: number): Promise<StoredDocument[]> {
    const wanted = [...new Set(keys)];
    if (wanted.length === 0 || limit <= 0) return [];
    const { rows } = await this.pool.query<DocumentRow>(
      `SELECT d.record, d.seq, d.work_key, d.created_at, d.updated_at FROM documents d
       WHERE NOT d.deleted AND d.id IN (SELECT document_id FROM document_identity WHERE key = ANY($1::text[]))
       ORDER BY d.id COLLATE "C" LIMIT $2`,
      [wanted, limit],
    );
    return rows.map(rowToStored);
  }

  async workMembers(workKeys: readonly string[], perWork: number): Promise<Map<string, WorkMember[]>> {
    const wanted = [...new Set(workKeys)];
    if (wanted.length === 0 || perWork <= 0) return new Map();
    const { rows } = await this.pool.query<WorkMemberRow>(
      `WITH multi AS (SELECT work_key FROM documents WHERE NOT deleted AND work_key = ANY($1::text[]) GROUP BY work_key HAVING COUNT(*) > 1)
       SELECT id, work_key, uris, type, issued_at, title FROM (
         SELECT id, work_key, record->'uris' AS uris, record->>'type' AS type, (record->>'issuedAt')::bigint AS issued_at, record->>'title' AS title,
           row_number() OVER (PARTITION BY work_key ORDER BY id COLLATE "C") AS n
         FROM documents WHERE NOT deleted AND work_key IN (SELECT work_key FROM multi)
       ) m WHERE n <= $2 ORDER BY work_key COLLATE "C", id COLLATE "C"`,
      [wanted, perWork],
    );
    return groupWorkMembers(rows);
  }

  async relationsTo(uris: readonly string[]): Promise<IncomingRelation[]> {
    const wanted = [...new Set(uris)];
    if (wanted.length === 0) return [];
    const { rows } = await this.pool.query<{ target: string; kind: IncomingRelation['kind']; document_id: string; uris: string[] }>(
      `SELECT l.target, l.kind, l.document_id, d.record->'uris' AS uris FROM document_links l JOIN documents d ON d.id = l.document_id
       WHERE NOT d.deleted AND l.target = ANY($1::text[]) ORDER BY l.target COLLATE "C", l.document_id COLLATE "C", l.kind COLLATE "C"`,
      [wanted],
    );
    return rows.map((r) => ({ target: r.target, kind: r.kind, documentId: r.document_id, documentUris: r.uris }));
  }

  async delete(id: string, at: number): Promise<boolean> {
    return withTransaction(this.pool, async (tx) => {
      const seq = await SeqAllocator.lock(tx);
      const r = await tx.query(
        "UPDATE documents SET deleted = TRUE, record = NULL, content_hash = '', seq = $2, updated_at = $3 WHERE id = $1 AND NOT deleted",
        [id, seq.next(), at],
      );
      if (r.rowCount !== 1) return false; // unknown or already deleted: the counter is left as it was
      await clearLinks(tx, [id]);
      await tx.query('DELETE FROM document_display WHERE id = $1', [id]);
      await seq.save(tx);
      return true;
    });
  }

  async changesSince(afterSeq: number, limit: number): Promise<DocumentChange[]> {
    const { rows } = await this.pool.query<DocumentRow & { id: string; deleted: boolean }>(
      `SELECT ${READ_COLUMNS}, deleted FROM documents WHERE seq > $1 ORDER BY seq LIMIT $2`,
      [afterSeq, limit],
    );
    return rows.map((r) => (r.deleted ? { deleted: true, seq: Number(r.seq), id: r.id } : { deleted: false, seq: Number(r.seq), doc: rowToStored(r) }));
  }

  async maxSeq(): Promise<number> {
    const { rows } = await this.pool.query<{ value: number }>("SELECT value FROM counters WHERE name = 'document_seq'");
    return rows[0]!.value;
  }

  async count(index?: IndexName): Promise<number> {
    const { rows } = index
      ? await this.pool.query<{ n: number }>('SELECT COUNT(*) AS n FROM documents WHERE NOT deleted AND idx = $1', [index])
      : await this.pool.query<{ n: number }>('SELECT COUNT(*) AS n FROM documents WHERE NOT deleted');
    return rows[0]!.n;
  }
}

/**
 * Writes a planned batch: the written records (final versions), the relabelled ones, then the URI and
 * identity rows of the written records (replacing those of records that were live before the batch).
 * Every new seq is above every stored one, so the UNIQUE(seq) index never sees a clash mid-statement.
 */
async function writePlan(tx: Tx, plan: UpsertPlan, previouslyLive: readonly string[], at: number): Promise<void> {
  const { writes, relabels } = plan;
  if (writes.length > 0) {
    // A tombstone brought back is a new document: new createdAt (it counts as inserted in the plan).
    // The display layout (core/003, ADR 0135) is written from the rows the same statement stored.
    await tx.query(
      `WITH d AS (
         INSERT INTO documents (id, idx, seq, work_key, content_hash, record, deleted, created_at, updated_at)
         SELECT u.id, u.idx, u.seq, u.work_key, u.hash, u.record::jsonb, FALSE, $7, $7
         FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[]) AS u(id, idx, seq, work_key, hash, record)
         ON CONFLICT (id) DO UPDATE SET idx = EXCLUDED.idx, seq = EXCLUDED.seq, work_key = EXCLUDED.work_key,
           content_hash = EXCLUDED.content_hash, record = EXCLUDED.record, deleted = FALSE, updated_at = EXCLUDED.updated_at,
           created_at = CASE WHEN documents.deleted THEN EXCLUDED.created_at ELSE documents.created_at END
         RETURNING id, seq, work_key, created_at, updated_at
       )
       INSERT INTO document_display (id, seq, work_key, created_at, updated_at, display)
       SELECT d.id, d.seq, d.work_key, d.created_at, d.updated_at, v.display FROM d JOIN unnest($1::text[], $8::text[]) AS v(id, display) ON v.id = d.id
       ON CONFLICT (id) DO UPDATE SET seq = EXCLUDED.seq, work_key = EXCLUDED.work_key, created_at = EXCLUDED.created_at,
         updated_at = EXCLUDED.updated_at, display = EXCLUDED.display`,
      [
        writes.map((w) => w.doc.id),
        writes.map((w) => w.doc.index),
        writes.map((w) => w.seq),
        writes.map((w) => w.workKey),
        writes.map((w) => w.hash),
        writes.map((w) => w.json),
        at,
        writes.map((w) => serializeDisplay(w.doc)),
      ],
    );
  }
  if (relabels.length > 0) {
    await tx.query(
      `WITH v AS (
         UPDATE document_display v SET work_key = u.work_key, seq = u.seq
         FROM unnest($1::text[], $2::text[], $3::bigint[]) AS u(id, work_key, seq) WHERE v.id = u.id
       )
       UPDATE documents d SET work_key = u.work_key, seq = u.seq
       FROM unnest($1::text[], $2::text[], $3::bigint[]) AS u(id, work_key, seq) WHERE d.id = u.id`,
      [relabels.map((r) => r.id), relabels.map((r) => r.workKey), relabels.map((r) => r.seq)],
    );
  }
  const written = new Set(writes.map((w) => w.doc.id));
  const replaced = previouslyLive.filter((id) => written.has(id));
  if (replaced.length > 0) await clearLinks(tx, replaced);
  const uris = writes.flatMap((w) => w.doc.uris.map((u) => [u, w.doc.id] as const));
  const keys = writes.flatMap((w) => w.keys.map((k) => [k, w.doc.id] as const));
  const links = writes.flatMap((w) => (w.doc.relations ?? []).flatMap((r) => linkTargets(r.uri).map((t) => [t, w.doc.id, r.kind] as const)));
  if (uris.length > 0 || keys.length > 0 || links.length > 0) {
    await tx.query(
      `WITH uris AS (
         INSERT INTO document_uris (uri, document_id) SELECT DISTINCT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING
       ), links AS (
         INSERT INTO document_links (target, document_id, kind) SELECT DISTINCT * FROM unnest($5::text[], $6::text[], $7::text[]) ON CONFLICT DO NOTHING
       )
       INSERT INTO document_identity (key, document_id) SELECT DISTINCT * FROM unnest($3::text[], $4::text[]) ON CONFLICT DO NOTHING`,
      [
        uris.map((x) => x[0]),
        uris.map((x) => x[1]),
        keys.map((x) => x[0]),
        keys.map((x) => x[1]),
        links.map((x) => x[0]),
        links.map((x) => x[1]),
        links.map((x) => x[2]),
      ],
    );
  }
}

/** Removes the URIs, identity keys and work links of records (one statement, three tables). */
async function clearLinks(tx: Tx, ids: readonly string[]): Promise<void> {
  await tx.query(
    `WITH u AS (DELETE FROM document_uris WHERE document_id = ANY($1::text[])), l AS (DELETE FROM document_links WHERE document_id = ANY($1::text[]))
     DELETE FROM document_identity WHERE document_id = ANY($1::text[])`,
    [ids],
  );
}
