// A FIFO queue of conversions run by a fixed number of in-process workers (ADR 0035). Work is keyed by
// content (SHA-256): jobs of several accounts for the same bytes join one conversion, and a job that
// arrives while its content is converting joins the running one. The pool knows nothing of jobs' states,
// billing or storage: `run(key, signal)` (given by the service) does the work.

/** What one conversion is told. */
export interface ConversionRun {
  readonly key: string;
  readonly signal: AbortSignal;
  /** Job ids waiting for this conversion right now (jobs may join while it runs). */
  jobs(): readonly string[];
}

export interface PoolStats {
  /** Conversions waiting for a worker. */
  readonly queued: number;
  /** Conversions running. */
  readonly running: number;
  /** Jobs waiting in queued or running conversions. */
  readonly jobs: number;
}

interface Task {
  readonly key: string;
  readonly jobs: Set<string>;
  controller: AbortController | null;
  /** Why the running conversion was aborted: the pool closing, or no job wanting it any more. */
  abortReason: 'shutdown' | 'unwanted' | null;
}

/** Why a conversion was aborted (read by `run` when the converter rejects with `cancelled`). */
export type AbortCause = 'shutdown' | 'unwanted';

export class ConversionPool {
  readonly #workers: number;
  readonly #run: (run: ConversionRun) => Promise<readonly string[]>;
  readonly #onError: (err: unknown, key: string) => void;
  readonly #tasks = new Map<string, Task>();
  readonly #queue: string[] = [];
  readonly #running = new Map<string, Promise<void>>();
  #closed = false;

  /**
   * @param workers conversions at once (>= 1)
   * @param run does one conversion and resolves with the job ids it finished; rejections are reported
   *   through `onError` (the pool keeps going)
   */
  constructor(workers: number, run: (run: ConversionRun) => Promise<readonly string[]>, onError: (err: unknown, key: string) => void) {
    if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`workers must be a positive integer, got ${workers}`);
    this.#workers = workers;
    this.#run = run;
    this.#onError = onError;
  }

  get workers(): number {
    return this.#workers;
  }

  /** Adds a job to the conversion of `key` (queued at the end when there is none). */
  add(key: string, jobId: string): void {
    if (this.#closed) return;
    let task = this.#tasks.get(key);
    if (!task) {
      task = { key, jobs: new Set(), controller: null, abortReason: null };
      this.#tasks.set(key, task);
      this.#queue.push(key);
    }
    task.jobs.add(jobId);
    this.#pump();
  }

  /**
   * Removes a job (cancelled). A queued conversion nobody waits for leaves the queue; a running one is
   * aborted (its checkpoints stay, so a later submission resumes it).
   */
  remove(key: string, jobId: string): void {
    const task = this.#tasks.get(key);
    if (!task || !task.jobs.delete(jobId) || task.jobs.size > 0) return;
    if (task.controller) {
      task.abortReason = 'unwanted';
      task.controller.abort();
    } else {
      this.#tasks.delete(key);
      const i = this.#queue.indexOf(key);
      if (i >= 0) this.#queue.splice(i, 1);
    }
  }

  /** Why the conversion of `key` was aborted, or null. */
  abortCause(key: string): AbortCause | null {
    return this.#tasks.get(key)?.abortReason ?? null;
  }

  /** Every job waiting in a queued or running conversion, with its content key. */
  held(): { key: string; jobId: string }[] {
    return [...this.#tasks.values()].flatMap((t) => [...t.jobs].map((jobId) => ({ key: t.key, jobId })));
  }

  stats(): PoolStats {
    let jobs = 0;
    for (const t of this.#tasks.values()) jobs += t.jobs.size;
    return { queued: this.#queue.length, running: this.#running.size, jobs };
  }

  /** Resolves when nothing is queued or running (tests). */
  async idle(): Promise<void> {
    while (this.#running.size > 0 || (this.#queue.length > 0 && !this.#closed)) {
      await Promise.allSettled([...this.#running.values()]);
      await new Promise((r) => setImmediate(r));
    }
  }

  /** Stops taking work, aborts running conversions (their jobs stay resumable) and waits for them. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#queue.length = 0;
    for (const t of this.#tasks.values()) {
      if (t.controller) {
        t.abortReason = 'shutdown';
        t.controller.abort();
      }
    }
    await Promise.allSettled([...this.#running.values()]);
    this.#tasks.clear();
  }

  #pump(): void {
    while (!this.#closed && this.#running.size < this.#workers && this.#queue.length > 0) {
      const key = this.#queue.shift()!;
      const task = this.#tasks.get(key);
      if (!task) continue;
      task.controller = new AbortController();
      const signal = task.controller.signal;
      const p = (async () => {
        let handled: readonly string[] = [];
        try {
          handled = await this.#run({ key, signal, jobs: () => [...task.jobs] });
        } catch (err) {
          // A conversion that failed outside its own error handling (the store unreachable, a bug): its
          // jobs stay as stored and are picked up again at the next start; retrying now could spin.
          handled = [...task.jobs];
          this.#onError(err, key);
        } finally {
          this.#running.delete(key);
          if (this.#tasks.get(key) === task) this.#tasks.delete(key);
          // Jobs that joined after the conversion had finished reading its job list need another run
          // (it finds the cached result at once).
          const done = new Set(handled);
          const late = [...task.jobs].filter((j) => !done.has(j));
          if (!this.#closed) for (const j of late) this.add(key, j);
          this.#pump();
        }
      })();
      this.#running.set(key, p);
    }
  }
}
