// The JobQueue of the all-in-one service (ADR 0035, kept by ADR 0250): the job rows are the queue. A job
// created here is taken here at once; a worker's sweep takes the unfinished jobs nobody holds (a crashed
// instance's, once their lease ran out). Nothing is retried: a failed attempt fails its job for good, as
// it always has, and no dead letters are kept (the failed row, with its reason, is the record). No I/O of
// its own (it reads and claims through the JobLeases port), so it lives with the service as its default.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';
import type { DeadLetter, JobFailure, JobLeases, JobQueue, QueuedJob, Recovered } from '../ports/job-queue.js';

export class LeaseJobQueue implements JobQueue {
  readonly kind = 'leases' as const;
  readonly retries = false;
  readonly takesAll = true;
  readonly worker: string;
  readonly pollMs: number;
  readonly #leases: JobLeases;
  readonly #clock: Clock;
  /** Jobs created here and not taken yet, in order. */
  #fresh: QueuedJob[] = [];

  /** @param leaseSeconds how long a lease holds; the sweep runs every third of it */
  constructor(leases: JobLeases, clock: Clock, leaseSeconds: number, worker = `w_${randomBytes(8).toString('hex')}`) {
    this.#leases = leases;
    this.#clock = clock;
    this.worker = worker;
    this.pollMs = Math.max(1, Math.floor((leaseSeconds * 1000) / 3));
  }

  async start(): Promise<void> {}

  async enqueue(job: QueuedJob): Promise<void> {
    if (!this.#fresh.some((j) => j.id === job.id)) this.#fresh.push(job);
  }

  async take(_max: number): Promise<QueuedJob[]> {
    const jobs = this.#fresh;
    this.#fresh = [];
    return jobs;
  }

  async recover(held: ReadonlySet<string>): Promise<Recovered> {
    const now = nowSeconds(this.#clock);
    const rows = await this.#leases.unfinished();
    const run = rows
      .filter((j) => !held.has(j.id) && (j.worker === null || j.worker === this.worker || j.leaseUntil === null || j.leaseUntil < now))
      .map((j) => ({ id: j.id, key: j.sha256 }));
    return { run, dead: [] };
  }

  async done(id: string): Promise<void> {
    this.#fresh = this.#fresh.filter((j) => j.id !== id);
  }

  async fail(id: string, _reason: JobFailure, _final?: boolean): Promise<'retry' | 'dead'> {
    this.#fresh = this.#fresh.filter((j) => j.id !== id);
    return 'dead';
  }

  async release(_ids: readonly string[]): Promise<void> {
    this.#fresh = [];
  }

  async deadLetters(_limit: number): Promise<DeadLetter[]> {
    return [];
  }

  async retryDead(_id: string): Promise<boolean> {
    return false;
  }

  async discardDead(_id: string): Promise<boolean> {
    return false;
  }

  async close(): Promise<void> {
    this.#fresh = [];
  }
}
