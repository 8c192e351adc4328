// How background jobs reach a worker (issue 24, ADR 0250): the queue carries the work (delivery, attempts,
// retries with backoff, dead letters); the job's own row (RecognitionJobStore) stays the system of record of
// its status and billing, and its lease there (`worker`, `lease_until`, renewed while the job runs) says
// which worker holds it. Two adapters: the store's leases alone (the all-in-one default, ADR 0035: the
// rows are the queue, a failure is final) and pg-boss over PostgreSQL (a cluster's workers).

/** A job as the queue knows it: the row's id and the key its work is grouped by (a recognition: the SHA-256). */
export interface QueuedJob {
  readonly id: string;
  readonly key: string;
}

/** Why a job's attempt failed, or why it was dead-lettered (a lower snake_case code and a message). */
export interface JobFailure {
  readonly code: string;
  readonly message: string;
}

/** A job kept in the dead letters for inspection. */
export interface DeadLetter {
  readonly id: string;
  readonly key: string;
  readonly reason: JobFailure;
  /** Attempts made before it was dead-lettered. */
  readonly attempts: number;
  /** Unix seconds. */
  readonly deadAt: number;
}

/** A job the queue found dead-lettered whose row is still unfinished (the row should be failed with `reason`). */
export interface DeadJob {
  readonly id: string;
  readonly reason: JobFailure;
}

/** What a worker's sweep found: jobs to run here, and jobs that died meanwhile. */
export interface Recovered {
  readonly run: readonly QueuedJob[];
  readonly dead: readonly DeadJob[];
}

/** The subset of a job store the queue reads and claims (RecognitionJobStore has it). */
export interface JobLeases {
  /** Jobs still pending or processing, oldest first, with their lease. */
  unfinished(): Promise<readonly { readonly id: string; readonly sha256: string; readonly worker: string | null; readonly leaseUntil: number | null }[]>;
  /** Claims the jobs (nobody holds them, their lease ended before `now`, or `worker` holds them); returns the ids claimed. */
  claim(ids: readonly string[], worker: string, now: number, until: number): Promise<string[]>;
  /** Gives up every claim of `worker`. */
  release(worker: string): Promise<void>;
}

export interface JobQueue {
  /** `leases` (the store's rows) or `pg-boss`. */
  readonly kind: 'leases' | 'pg-boss';
  /** This worker's name in the jobs' leases (random per process). */
  readonly worker: string;
  /**
   * True: a failed attempt is retried (with backoff) up to a limit, then dead-lettered, and dead letters
   * are kept (`deadLetters`, `retryDead`). False: every failure is final and nothing is kept.
   */
  readonly retries: boolean;
  /**
   * True: a worker takes every job it may (they wait in its own FIFO, leased; ADR 0035). False: a worker
   * takes only what it can start now, the rest waits in the queue for any worker.
   */
  readonly takesAll: boolean;
  /** How often a worker with room asks for work, ms. */
  readonly pollMs: number;
  /** Opens the queue (creates its schema and queues when missing). */
  start(): Promise<void>;
  /** Queues a job whose row was just created (pending). Queuing one twice queues it once. */
  enqueue(job: QueuedJob): Promise<void>;
  /** Jobs for this worker to run, at most `max` (with `takesAll`, every job queued here). The caller claims their rows. */
  take(max: number): Promise<QueuedJob[]>;
  /**
   * A worker's sweep: jobs whose worker stopped renewing their lease (crashed, killed, wedged) are taken
   * over (`leases`: returned to run here; `pg-boss`: their attempt is failed, so they are retried after a
   * backoff by any worker, or dead-lettered after the last); jobs the queue dead-lettered while their row
   * is unfinished are returned in `dead`. `held`: the jobs this worker runs or has queued.
   */
  recover(held: ReadonlySet<string>): Promise<Recovered>;
  /** The job's row reached a final state (completed, failed for a reason of its own, cancelled): it leaves the queue. */
  done(id: string): Promise<void>;
  /**
   * An attempt failed without an answer. `final`: no retry (the failure will not change: a crash loop).
   * Returns `retry` (the job will be delivered again, after a backoff) or `dead` (dead-lettered with
   * `reason`: the caller fails the row).
   */
  fail(id: string, reason: JobFailure, final?: boolean): Promise<'retry' | 'dead'>;
  /** Gives jobs taken here back at once, no attempt counted (graceful shutdown). */
  release(ids: readonly string[]): Promise<void>;
  /** The dead letters, oldest first, at most `limit`. */
  deadLetters(limit: number): Promise<DeadLetter[]>;
  /** Puts the dead letter of job `id` back on the queue (a fresh set of attempts); false when there is none. */
  retryDead(id: string): Promise<boolean>;
  /**
   * Deletes the dead letter of job `id` for good (it can no longer be retried; ADR 0296: an operator's
   * discard, or the upload retention sweep); false when there is none.
   */
  discardDead(id: string): Promise<boolean>;
  close(): Promise<void>;
}
