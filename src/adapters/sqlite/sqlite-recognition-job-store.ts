// Recognition jobs, checkpoints and results in the embedded SQLite database (recognition/001-jobs).
import type Database from 'better-sqlite3';
import type {
  NewRecognitionJob,
  RecognitionJob,
  RecognitionJobPatch,
  RecognitionJobStatus,
  RecognitionJobStore,
  RecognitionResultRecord,
  StoredCheckpoint,
} from '../../ports/recognition-job-store.js';
import { LIVE_STATUSES, patchAssignments, rowToJob, rowToResult, type JobRow, type ResultRow } from '../sql/recognition-rows.js';
import { statementCache, type Statements } from './sqlite-storage.js';

const inList = (xs: readonly string[]) => xs.map((x) => `'${x}'`).join(', ');

export class SqliteRecognitionJobStore implements RecognitionJobStore {
  readonly #s: Statements;
  readonly #createOrGet;
  constructor(private readonly db: Database.Database) {
    this.#s = statementCache(db);
    const live = db.prepare(`SELECT * FROM recognition_jobs WHERE account_id = ? AND sha256 = ? AND status IN (${inList(LIVE_STATUSES)})`);
    const insert = db.prepare(
      `INSERT INTO recognition_jobs (id, account_id, sha256, format, bytes, status, pages_done, seq, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', 0, (SELECT COALESCE(MAX(seq), 0) + 1 FROM recognition_jobs), ?, ?) RETURNING *`,
    );
    this.#createOrGet = db.transaction((j: NewRecognitionJob): { job: RecognitionJob; created: boolean } => {
      const existing = live.get(j.accountId, j.sha256) as JobRow | undefined;
      if (existing) return { job: rowToJob(existing), created: false };
      return { job: rowToJob(insert.get(j.id, j.accountId, j.sha256, j.format, j.bytes, j.createdAt, j.createdAt) as JobRow), created: true };
    });
  }

  async createOrGet(job: NewRecognitionJob) {
    return this.#createOrGet.immediate(job);
  }

  async get(id: string): Promise<RecognitionJob | null> {
    const r = this.#s.q('SELECT * FROM recognition_jobs WHERE id = ?').get(id) as JobRow | undefined;
    return r ? rowToJob(r) : null;
  }

  async latestFor(accountId: number, sha256: string): Promise<RecognitionJob | null> {
    const r = this.#s.q('SELECT * FROM recognition_jobs WHERE account_id = ? AND sha256 = ? ORDER BY seq DESC LIMIT 1').get(accountId, sha256) as JobRow | undefined;
    return r ? rowToJob(r) : null;
  }

  async latestCompletedFor(accountId: number, sha256: string): Promise<RecognitionJob | null> {
    const r = this.#s.q("SELECT * FROM recognition_jobs WHERE account_id = ? AND sha256 = ? AND status = 'completed' ORDER BY seq DESC LIMIT 1").get(accountId, sha256) as JobRow | undefined;
    return r ? rowToJob(r) : null;
  }

  async listForAccount(accountId: number, limit: number, beforeId?: string): Promise<RecognitionJob[]> {
    const rows = (
      beforeId === undefined
        ? this.#s.q('SELECT * FROM recognition_jobs WHERE account_id = ? ORDER BY seq DESC LIMIT ?').all(accountId, limit)
        : this.#s
            .q('SELECT * FROM recognition_jobs WHERE account_id = ? AND seq < (SELECT seq FROM recognition_jobs WHERE id = ? AND account_id = ?) ORDER BY seq DESC LIMIT ?')
            .all(accountId, beforeId, accountId, limit)
    ) as JobRow[];
    return rows.map(rowToJob);
  }

  async unfinished(): Promise<RecognitionJob[]> {
    const rows = this.#s.q("SELECT * FROM recognition_jobs WHERE status IN ('pending', 'processing') ORDER BY seq").all() as JobRow[];
    return rows.map(rowToJob);
  }

  async update(id: string, patch: RecognitionJobPatch, from?: readonly RecognitionJobStatus[]): Promise<RecognitionJob | null> {
    const { sql, values } = patchAssignments(patch, () => '?');
    const cond = from ? ` AND status IN (${inList(from)})` : '';
    const r = this.#s.q(`UPDATE recognition_jobs SET ${sql} WHERE id = ?${cond} RETURNING *`).get(...values, id) as JobRow | undefined;
    return r ? rowToJob(r) : null;
  }

  async claim(ids: readonly string[], worker: string, now: number, until: number): Promise<string[]> {
    const st = this.#s.q(
      "UPDATE recognition_jobs SET worker = ?, lease_until = ? WHERE id = ? AND status IN ('pending', 'processing') AND (worker IS NULL OR worker = ? OR lease_until IS NULL OR lease_until < ?)",
    );
    return this.db.transaction(() => ids.filter((id) => st.run(worker, until, id, worker, now).changes > 0)).immediate();
  }

  async release(worker: string): Promise<void> {
    this.#s.q('UPDATE recognition_jobs SET worker = NULL, lease_until = NULL WHERE worker = ?').run(worker);
  }

  async putCheckpoint(sha256: string, pipeline: string, page: number, data: string): Promise<void> {
    this.#s.q('INSERT INTO recognition_checkpoints (sha256, pipeline, page, data) VALUES (?, ?, ?, ?) ON CONFLICT (sha256, pipeline, page) DO UPDATE SET data = excluded.data')
      .run(sha256, pipeline, page, data);
  }

  async checkpoints(sha256: string, pipeline: string): Promise<StoredCheckpoint[]> {
    return this.#s.q('SELECT page, data FROM recognition_checkpoints WHERE sha256 = ? AND pipeline = ? ORDER BY page').all(sha256, pipeline) as StoredCheckpoint[];
  }

  async deleteCheckpoints(sha256: string): Promise<void> {
    this.#s.q('DELETE FROM recognition_checkpoints WHERE sha256 = ?').run(sha256);
  }

  async putResult(r: RecognitionResultRecord): Promise<void> {
    this.#s.q('INSERT INTO recognition_results (sha256, pipeline, markdown, report, pages, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (sha256, pipeline) DO NOTHING')
      .run(r.sha256, r.pipeline, r.markdown, r.report, r.pages, r.createdAt);
  }

  async getResult(sha256: string, pipeline?: string): Promise<RecognitionResultRecord | null> {
    const r = (
      pipeline === undefined
        ? this.#s.q('SELECT * FROM recognition_results WHERE sha256 = ? ORDER BY created_at DESC, pipeline DESC LIMIT 1').get(sha256)
        : this.#s.q('SELECT * FROM recognition_results WHERE sha256 = ? AND pipeline = ?').get(sha256, pipeline)
    ) as ResultRow | undefined;
    return r ? rowToResult(r) : null;
  }
}
