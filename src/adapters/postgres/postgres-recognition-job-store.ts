// Recognition jobs, checkpoints and results in PostgreSQL (recognition/001-jobs). createOrGet relies on
// the partial unique index recognition_jobs_live: of two concurrent identical submissions one inserts,
// the other finds the row.
import type pg from 'pg';
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

export class PostgresRecognitionJobStore implements RecognitionJobStore {
  constructor(private readonly pool: pg.Pool) {}

  async createOrGet(j: NewRecognitionJob): Promise<{ job: RecognitionJob; created: boolean }> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const ins = await this.pool.query<JobRow>(
        `INSERT INTO recognition_jobs (id, account_id, sha256, format, bytes, status, pages_done, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $6)
         ON CONFLICT (account_id, sha256) WHERE status IN ('pending', 'processing') DO NOTHING RETURNING *`,
        [j.id, j.accountId, j.sha256, j.format, j.bytes, j.createdAt],
      );
      if (ins.rows[0]) return { job: rowToJob(ins.rows[0]), created: true };
      const { rows } = await this.pool.query<JobRow>('SELECT * FROM recognition_jobs WHERE account_id = $1 AND sha256 = $2 AND status = ANY($3)', [j.accountId, j.sha256, LIVE_STATUSES]);
      if (rows[0]) return { job: rowToJob(rows[0]), created: false };
      // The conflicting job left the live states between the two statements: try again.
    }
    throw new Error('recognition job insert kept conflicting');
  }

  async get(id: string): Promise<RecognitionJob | null> {
    const { rows } = await this.pool.query<JobRow>('SELECT * FROM recognition_jobs WHERE id = $1', [id]);
    return rows[0] ? rowToJob(rows[0]) : null;
  }

  async latestFor(accountId: number, sha256: string): Promise<RecognitionJob | null> {
    const { rows } = await this.pool.query<JobRow>('SELECT * FROM recognition_jobs WHERE account_id = $1 AND sha256 = $2 ORDER BY seq DESC LIMIT 1', [accountId, sha256]);
    return rows[0] ? rowToJob(rows[0]) : null;
  }

  async latestCompletedFor(accountId: number, sha256: string): Promise<RecognitionJob | null> {
    const { rows } = await this.pool.query<JobRow>("SELECT * FROM recognition_jobs WHERE account_id = $1 AND sha256 = $2 AND status = 'completed' ORDER BY seq DESC LIMIT 1", [accountId, sha256]);
    return rows[0] ? rowToJob(rows[0]) : null;
  }

  async listForAccount(accountId: number, limit: number, beforeId?: string): Promise<RecognitionJob[]> {
    const { rows } =
      beforeId === undefined
        ? await this.pool.query<JobRow>('SELECT * FROM recognition_jobs WHERE account_id = $1 ORDER BY seq DESC LIMIT $2', [accountId, limit])
        : await this.pool.query<JobRow>(
            'SELECT * FROM recognition_jobs WHERE account_id = $1 AND seq < (SELECT seq FROM recognition_jobs WHERE id = $2 AND account_id = $1) ORDER BY seq DESC LIMIT $3',
            [accountId, beforeId, limit],
          );
    return rows.map(rowToJob);
  }

  async unfinished(): Promise<RecognitionJob[]> {
    const { rows } = await this.pool.query<JobRow>("SELECT * FROM recognition_jobs WHERE status IN ('pending', 'processing') ORDER BY seq");
    return rows.map(rowToJob);
  }

  async update(id: string, patch: RecognitionJobPatch, from?: readonly RecognitionJobStatus[]): Promise<RecognitionJob | null> {
    const { sql, values } = patchAssignments(patch, (i) => `$${i}`);
    const params: unknown[] = [...values, id];
    let cond = '';
    if (from) {
      params.push(from);
      cond = ` AND status = ANY($${params.length})`;
    }
    const { rows } = await this.pool.query<JobRow>(`UPDATE recognition_jobs SET ${sql} WHERE id = $${values.length + 1}${cond} RETURNING *`, params);
    return rows[0] ? rowToJob(rows[0]) : null;
  }

  async claim(ids: readonly string[], worker: string, now: number, until: number): Promise<string[]> {
    if (ids.length === 0) return [];
    // One statement: each row is locked while its condition is checked, so of two instances claiming
    // the same job at once one wins.
    const { rows } = await this.pool.query<{ id: string }>(
      `UPDATE recognition_jobs SET worker = $1, lease_until = $2
       WHERE id = ANY($3) AND status IN ('pending', 'processing') AND (worker IS NULL OR worker = $1 OR lease_until IS NULL OR lease_until < $4)
       RETURNING id`,
      [worker, until, ids, now],
    );
    const claimed = new Set(rows.map((r) => r.id));
    return ids.filter((id) => claimed.has(id));
  }

  async release(worker: string): Promise<void> {
    await this.pool.query('UPDATE recognition_jobs SET worker = NULL, lease_until = NULL WHERE worker = $1', [worker]);
  }

  async putCheckpoint(sha256: string, pipeline: string, page: number, data: string): Promise<void> {
    await this.pool.query(
      'INSERT INTO recognition_checkpoints (sha256, pipeline, page, data) VALUES ($1, $2, $3, $4) ON CONFLICT (sha256, pipeline, page) DO UPDATE SET data = EXCLUDED.data',
      [sha256, pipeline, page, data],
    );
  }

  async checkpoints(sha256: string, pipeline: string): Promise<StoredCheckpoint[]> {
    const { rows } = await this.pool.query<StoredCheckpoint>('SELECT page, data FROM recognition_checkpoints WHERE sha256 = $1 AND pipeline = $2 ORDER BY page', [sha256, pipeline]);
    return rows;
  }

  async deleteCheckpoints(sha256: string): Promise<void> {
    await this.pool.query('DELETE FROM recognition_checkpoints WHERE sha256 = $1', [sha256]);
  }

  async putResult(r: RecognitionResultRecord): Promise<void> {
    await this.pool.query(
      'INSERT INTO recognition_results (sha256, pipeline, markdown, report, pages, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (sha256, pipeline) DO NOTHING',
      [r.sha256, r.pipeline, r.markdown, r.report, r.pages, r.createdAt],
    );
  }

  async getResult(sha256: string, pipeline?: string): Promise<RecognitionResultRecord | null> {
    const { rows } =
      pipeline === undefined
        ? await this.pool.query<ResultRow>('SELECT * FROM recognition_results WHERE sha256 = $1 ORDER BY created_at DESC, pipeline DESC LIMIT 1', [sha256])
        : await this.pool.query<ResultRow>('SELECT * FROM recognition_results WHERE sha256 = $1 AND pipeline = $2', [sha256, pipeline]);
    return rows[0] ? rowToResult(rows[0]) : null;
  }
}
