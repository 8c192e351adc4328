// The JobQueue of a cluster's workers over pg-boss 10 (ADR 0250), in its own schema of the cluster's
// PostgreSQL. One pg-boss job per Lectern job (its id derived from the job's id, so queuing twice queues
// once), in the queue `<name>` whose failed jobs are dead-lettered to `<name>_dead`:
// - a worker fetches only what it can start now (SKIP LOCKED), the rest waits for any worker;
// - the pg-boss expiration is the backstop lease (a conversion's time limit and a margin); the short lease
//   is the job row's (renewed by the worker every third of it): a sweep that finds an active pg-boss job
//   whose row nobody holds any more (the worker was killed) fails that attempt, so pg-boss retries it
//   after its backoff on any worker, or dead-letters it after the last attempt;
// - dead letters stay in `<name>_dead` (state created, nobody works that queue) for inspection and retry.
// The dead letters and the states of several jobs are read from pg-boss's tables directly (read-only; its
// API reads one job at a time and does not list a queue); every change goes through its API.
import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import PgBoss from 'pg-boss';
import type { Clock } from '../../ports/clock.js';
import { nowSeconds } from '../../ports/clock.js';
import type { DeadJob, DeadLetter, JobFailure, JobLeases, JobQueue, QueuedJob, Recovered } from '../../ports/job-queue.js';

export interface PgBossJobQueueOptions {
  /** The cluster's PostgreSQL pool (pg-boss runs its statements on it; closing it is the caller's). */
  readonly pool: pg.Pool;
  /**
   * pg-boss's schema (created when missing), e.g. `pgboss`. Empty: beside Lectern's tables, `pgboss` when
   * they are in `public`, else `<their schema>_pgboss` (a database's schemas are separate Lectern
   * installations, e.g. tests and their clusters: each gets its own queue).
   */
  readonly schema: string;
  /** The queue's name (its dead letters: `<queue>_dead`). */
  readonly queue: string;
  /** The job rows' leases (RecognitionJobStore). */
  readonly leases: JobLeases;
  readonly clock: Clock;
  /** The rows' lease, seconds: an active pg-boss job older than this whose row nobody holds is taken over. */
  readonly leaseSeconds: number;
  /** Retries after the first attempt before a job is dead-lettered. */
  readonly retryLimit: number;
  /** Delay before the first retry, seconds; doubled at each retry, with jitter (pg-boss's retryBackoff). */
  readonly retryDelaySeconds: number;
  /** pg-boss's own expiration of an attempt, seconds (the backstop: a worker alive but stuck). */
  readonly expireSeconds: number;
  /** How often pg-boss's maintenance (expiration, archiving) runs, seconds (one process at a time does it). */
  readonly maintenanceSeconds: number;
  /** How often a worker with room fetches, ms. */
  readonly pollMs: number;
  /** Days a dead letter is kept. */
  readonly deadRetentionDays: number;
  readonly report: (err: unknown, context: string) => void;
  readonly worker?: string;
}

interface JobData {
  readonly jobId: string;
  readonly key: string;
  /** Set on the dead letters this adapter writes itself (final failures). */
  readonly reason?: JobFailure;
  readonly attempts?: number;
}

/** The pg-boss id of a job: a UUID-shaped digest of its id (stable, so enqueue and retry address it). */
export function pgBossId(jobId: string): string {
  const h = createHash('sha256').update(jobId).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** A failure as pg-boss stored it in a job's output: ours ({code, message}), or its own ({value: {message}}). */
function reasonOf(output: unknown, fallback: JobFailure): JobFailure {
  const o = output as { code?: unknown; message?: unknown; value?: { message?: unknown } } | null;
  if (o && typeof o.code === 'string' && typeof o.message === 'string') return { code: o.code, message: o.message };
  if (o && typeof o.value?.message === 'string') {
    const m = o.value.message;
    return /timeout/.test(m) ? { code: 'expired', message: `pg-boss: ${m}` } : { code: 'internal', message: `pg-boss: ${m}` };
  }
  return fallback;
}

const SCHEMA_RE = /^[a-z_][a-z0-9_]{0,62}$/;

export class PgBossJobQueue implements JobQueue {
  readonly kind = 'pg-boss' as const;
  readonly retries = true;
  readonly takesAll = false;
  readonly worker: string;
  readonly pollMs: number;
  readonly #o: PgBossJobQueueOptions;
  readonly #dead: string;
  #boss: PgBoss | null = null;
  #schema = '';
  /** This worker's sweep name in row claims (a sweep holds a row only while it acts on its pg-boss job). */
  readonly #sweeper: string;
  /** Attempts fetched here and not settled: the job's attempt number and limit. */
  readonly #active = new Map<string, { retryCount: number; retryLimit: number }>();
  #started: Promise<void> | null = null;

  constructor(options: PgBossJobQueueOptions) {
    if (options.schema !== '' && !SCHEMA_RE.test(options.schema)) throw new Error(`the job queue schema '${options.schema}' must be a lower-case SQL name (letters, digits, _)`);
    this.#o = options;
    this.worker = options.worker ?? `w_${randomBytes(8).toString('hex')}`;
    this.#sweeper = `${this.worker}_sweep`;
    this.pollMs = options.pollMs;
    this.#dead = `${options.queue}_dead`;
  }

  /** pg-boss's schema (known once started). */
  get schema(): string {
    return this.#schema;
  }

  get #b(): PgBoss {
    if (!this.#boss) throw new Error('the job queue is not started');
    return this.#boss;
  }

  start(): Promise<void> {
    this.#started ??= (async () => {
      const pool = this.#o.pool;
      if (this.#o.schema !== '') {
        this.#schema = this.#o.schema;
      } else {
        const { rows } = await pool.query<{ s: string }>('SELECT current_schema() AS s');
        const own = rows[0]?.s ?? 'public';
        this.#schema = own === 'public' ? 'pgboss' : `${own}_pgboss`.slice(0, 63);
        if (!SCHEMA_RE.test(this.#schema)) throw new Error(`cannot derive a pg-boss schema from '${own}': set recognition.queueSchema`);
      }
      const boss = new PgBoss({
        db: { executeSql: async (text: string, values: unknown[]) => pool.query(text, values) },
        schema: this.#schema,
        schedule: false,
        supervise: true,
        maintenanceIntervalSeconds: this.#o.maintenanceSeconds,
      });
      boss.on('error', (err) => this.#o.report(err, 'job queue (pg-boss)'));
      this.#boss = boss;
      // Processes starting at once on a new database raced in pg-boss's own install ("duplicate key
      // value violates unique constraint pg_namespace_nspname_index" from its CREATE SCHEMA IF NOT
      // EXISTS): the installs are serialised here by a session advisory lock held around start().
      const lockHolder = await pool.connect();
      try {
        await lockHolder.query('SELECT pg_advisory_lock(hashtext($1))', [`lectern.pg-boss.start.${this.#schema}`]);
        await boss.start();
      } finally {
        await lockHolder.query('SELECT pg_advisory_unlock(hashtext($1))', [`lectern.pg-boss.start.${this.#schema}`]).catch(() => undefined);
        lockHolder.release();
      }
      // two processes starting at once may race on a new queue's partition: the loser finds it made
      for (let i = 0; ; i++) {
        try {
          await this.#b.createQueue(this.#dead, { name: this.#dead, retentionMinutes: this.#o.deadRetentionDays * 1440 });
          await this.#b.createQueue(this.#o.queue, {
            name: this.#o.queue,
            policy: 'standard',
            retryLimit: this.#o.retryLimit,
            retryDelay: this.#o.retryDelaySeconds,
            retryBackoff: true,
            expireInSeconds: this.#o.expireSeconds,
            deadLetter: this.#dead,
          });
          break;
        } catch (err) {
          if (i >= 3) throw err;
          await new Promise((r) => setTimeout(r, 200 * (i + 1)));
        }
      }
    })();
    return this.#started;
  }

  async enqueue(job: QueuedJob): Promise<void> {
    await this.#b.send(this.#o.queue, { jobId: job.id, key: job.key } satisfies JobData, { id: pgBossId(job.id) });
  }

  async take(max: number): Promise<QueuedJob[]> {
    if (max < 1) return [];
    const jobs = await this.#b.fetch<JobData>(this.#o.queue, { batchSize: max, includeMetadata: true });
    for (const j of jobs) this.#active.set(j.data.jobId, { retryCount: j.retryCount, retryLimit: j.retryLimit });
    return jobs.map((j) => ({ id: j.data.jobId, key: j.data.key }));
  }

  async recover(held: ReadonlySet<string>): Promise<Recovered> {
    const now = nowSeconds(this.#o.clock);
    const rows = (await this.#o.leases.unfinished()).filter((j) => !held.has(j.id) && (j.worker === null || j.leaseUntil === null || j.leaseUntil < now));
    if (rows.length === 0) return { run: [], dead: [] };
    const byBossId = new Map(rows.map((r) => [pgBossId(r.id), r]));
    const { rows: states } = await this.#o.pool.query<{ id: string; state: string; stale: boolean; last: boolean; output: unknown }>(
      `SELECT id::text AS id, state::text AS state, (started_on < now() - make_interval(secs => $3)) AS stale,
              (retry_count >= retry_limit) AS last, output
         FROM ${this.#schema}.job WHERE name = $1 AND id = ANY($2::uuid[])`,
      [this.#o.queue, [...byBossId.keys()], this.#o.leaseSeconds],
    );
    const state = new Map(states.map((s) => [s.id, s]));
    // waiting (created, retry) is fine; an attempt started a lease ago whose row nobody holds, a release cut
    // short, a job never queued (the api node died between the row and the send) or one dead-lettered
    // meanwhile need a hand, given by one sweep: the one that claims the row
    const act = [...byBossId].filter(([bid]) => {
      const s = state.get(bid);
      return !s || (s.state === 'active' && s.stale) || s.state === 'cancelled' || s.state === 'failed' || s.state === 'completed';
    });
    if (act.length === 0) return { run: [], dead: [] };
    const claimed = new Set(await this.#o.leases.claim(act.map(([, r]) => r.id), this.#sweeper, now, now + this.#o.leaseSeconds));
    const dead: DeadJob[] = [];
    try {
      for (const [bid, row] of act) {
        if (!claimed.has(row.id)) continue;
        const s = state.get(bid);
        if (!s) {
          const letter = await this.#deadLetterOf(row.id);
          if (letter) dead.push({ id: row.id, reason: letter.reason });
          else await this.enqueue({ id: row.id, key: row.sha256 });
        } else if (s.state === 'active') {
          await this.#b.fail(this.#o.queue, bid, { code: 'worker_lost', message: 'the worker holding the job stopped renewing its lease (killed or stuck)' });
          if (s.last) dead.push({ id: row.id, reason: { code: 'worker_lost', message: 'every attempt ended with its worker gone (killed or stuck); the job was dead-lettered' } });
        } else if (s.state === 'cancelled') {
          await this.#b.resume(this.#o.queue, bid);
        } else {
          // failed (dead-lettered by pg-boss: the last attempt expired or failed) or completed by a final
          // dead-lettering whose row update did not happen
          const letter = await this.#deadLetterOf(row.id);
          dead.push({ id: row.id, reason: letter?.reason ?? reasonOf(s.output, { code: 'internal', message: 'the job failed in the queue' }) });
        }
      }
    } finally {
      await this.#o.leases.release(this.#sweeper);
    }
    return { run: [], dead };
  }

  async done(id: string): Promise<void> {
    this.#active.delete(id);
    await this.#b.complete(this.#o.queue, pgBossId(id));
  }

  async fail(id: string, reason: JobFailure, final = false): Promise<'retry' | 'dead'> {
    const meta = this.#active.get(id) ?? (await this.#meta(id));
    this.#active.delete(id);
    const bid = pgBossId(id);
    if (final) {
      // pg-boss dead-letters only after the last retry: a failure known to be final goes there at once
      const job = await this.#b.getJobById<JobData>(this.#o.queue, bid);
      const data: JobData = { jobId: id, key: job?.data.key ?? '', reason, attempts: (meta?.retryCount ?? 0) + 1 };
      await this.#b.send(this.#dead, data, { retentionDays: this.#o.deadRetentionDays });
      await this.#b.complete(this.#o.queue, bid, { deadLettered: true, ...reason });
      return 'dead';
    }
    await this.#b.fail(this.#o.queue, bid, { code: reason.code, message: reason.message });
    return meta && meta.retryCount >= meta.retryLimit ? 'dead' : 'retry';
  }

  async release(ids: readonly string[]): Promise<void> {
    // cancel then resume: back to created at once, no failure recorded (a fail would back off and count)
    const bids = ids.map(pgBossId);
    for (const id of ids) this.#active.delete(id);
    if (bids.length === 0) return;
    await this.#b.cancel(this.#o.queue, bids);
    await this.#b.resume(this.#o.queue, bids);
  }

  async deadLetters(limit: number): Promise<DeadLetter[]> {
    const { rows } = await this.#o.pool.query<{ data: JobData; output: unknown; created: number; retry_limit: number }>(
      `SELECT data, output, EXTRACT(epoch FROM created_on)::float8 AS created, retry_limit
         FROM ${this.#schema}.job WHERE name = $1 AND state = 'created' ORDER BY created_on, id LIMIT $2`,
      [this.#dead, limit],
    );
    return rows.map((r) => this.#letter(r));
  }

  async retryDead(id: string): Promise<boolean> {
    const letter = await this.#deadLetterRow(id);
    if (!letter) return false;
    // the dead letter goes, and the job is queued afresh under its own id (the failed attempt's row is
    // deleted first: one pg-boss job per Lectern job)
    await this.#b.deleteJob(this.#dead, letter.bossId);
    await this.#b.deleteJob(this.#o.queue, pgBossId(id));
    await this.enqueue({ id, key: letter.data.key });
    return true;
  }

  async discardDead(id: string): Promise<boolean> {
    const letter = await this.#deadLetterRow(id);
    if (!letter) return false;
    // the dead letter goes; the failed attempt's job in the queue stays for pg-boss's own archiving
    await this.#b.deleteJob(this.#dead, letter.bossId);
    return true;
  }

  async close(): Promise<void> {
    if (!this.#started) return;
    await this.#started.catch(() => {});
    await this.#boss?.stop({ graceful: false, close: false, wait: true });
  }

  async #meta(id: string): Promise<{ retryCount: number; retryLimit: number } | null> {
    const job = await this.#b.getJobById(this.#o.queue, pgBossId(id));
    return job ? { retryCount: job.retryCount, retryLimit: job.retryLimit } : null;
  }

  async #deadLetterRow(id: string): Promise<{ bossId: string; data: JobData; output: unknown; created: number; retry_limit: number } | null> {
    const { rows } = await this.#o.pool.query<{ bossId: string; data: JobData; output: unknown; created: number; retry_limit: number }>(
      `SELECT id::text AS "bossId", data, output, EXTRACT(epoch FROM created_on)::float8 AS created, retry_limit
         FROM ${this.#schema}.job WHERE name = $1 AND state = 'created' AND data->>'jobId' = $2 ORDER BY created_on DESC LIMIT 1`,
      [this.#dead, id],
    );
    return rows[0] ?? null;
  }

  async #deadLetterOf(id: string): Promise<DeadLetter | null> {
    const r = await this.#deadLetterRow(id);
    return r ? this.#letter(r) : null;
  }

  #letter(r: { data: JobData; output: unknown; created: number; retry_limit: number }): DeadLetter {
    return {
      id: r.data.jobId,
      key: r.data.key,
      reason: r.data.reason ?? reasonOf(r.output, { code: 'internal', message: 'failed in the queue' }),
      // pg-boss's own dead letters carry the failed job's retry limit: its attempts were that plus one
      attempts: r.data.attempts ?? r.retry_limit + 1,
      deadAt: Math.floor(r.created),
    };
  }
}
