// Activity events (shown, agent reads, views, ...) are counters, not requests' results: they are
// buffered and written in one transaction per flush instead of one write per request. The composition
// root flushes every second and at shutdown; a full buffer flushes at once. A failed flush is reported
// and its events kept for the next one (up to the cap), so a passing database hiccup loses nothing.
import type { ActivityEvent, ActivityStore } from '../ports/activity-store.js';
import type { ErrorReporter } from '../ports/error-reporter.js';

/** Where services send activity events. */
export interface ActivityRecorder {
  record(events: readonly ActivityEvent[]): Promise<void>;
}

/** Events held before a flush is forced. */
const FLUSH_AT = 5_000;
/** Most events written in one transaction of a flush. */
const FLUSH_CHUNK = 1_000;
/** Events kept across failed flushes at most (older ones are dropped and reported). */
const MAX_PENDING = 200_000;

export class ActivityBuffer implements ActivityRecorder {
  #pending: ActivityEvent[] = [];
  #flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: ActivityStore,
    private readonly report: ErrorReporter,
  ) {}

  async record(events: readonly ActivityEvent[]): Promise<void> {
    for (const e of events) this.#pending.push(e);
    if (this.#pending.length >= FLUSH_AT) void this.flush();
  }

  /**
   * Writes everything buffered so far (flushes run one at a time), in transactions of at most
   * FLUSH_CHUNK events with a turn of the event loop between them: an embedded store writes
   * synchronously, and one transaction of tens of thousands of events would hold up every request
   * for tens of milliseconds (ADR 0137).
   */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      if (this.#pending.length === 0) return;
      let batch = this.#pending;
      this.#pending = [];
      try {
        while (batch.length > 0) {
          await this.store.record(batch.slice(0, FLUSH_CHUNK));
          batch = batch.slice(FLUSH_CHUNK);
          if (batch.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
        }
      } catch (e) {
        this.report(e, `writing ${batch.length} activity events (kept for the next flush)`);
        this.#pending = batch.concat(this.#pending);
        if (this.#pending.length > MAX_PENDING) {
          const dropped = this.#pending.length - MAX_PENDING;
          this.#pending = this.#pending.slice(dropped);
          this.report(new Error(`${dropped} activity events dropped`), 'activity buffer full');
        }
      }
    });
    return this.#flushing;
  }

  get pending(): number {
    return this.#pending.length;
  }
}
