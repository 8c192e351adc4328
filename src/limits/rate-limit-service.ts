// Per-account, per-scope request budgets (token buckets). A refused request gets 429 with
// `Retry-After` and detail `{code: "rate_limited", retry_after_seconds, scope}` (interface, Errors 1).
import { AppError } from '../domain/errors.js';
import type { Clock } from '../ports/clock.js';
import type { RateLimiter, RateRule } from '../ports/rate-limiter.js';

/** Blocked subjects remembered at most (oldest forgotten first); a memory bound under a flood. */
const MAX_BLOCKED = 100_000;

export class RateLimitService<Scope extends string> {
  /** `scope:subject` -> Unix ms until which a spent subject is refused without asking the limiter. */
  readonly #blocked = new Map<string, number>();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly rules: Readonly<Record<Scope, RateRule>>,
    private readonly clock: Clock = { nowMs: () => Date.now() },
  ) {}

  /**
   * Takes one token from `subject`'s bucket for `scope` (subject: `a:<accountId>` or `ip:<address>`).
   * Throws `rate_limited` when the bucket is empty.
   */
  async check(scope: Scope, subject: string): Promise<void> {
    const rule = this.rules[scope];
    const d = await this.limiter.take(`${scope}:${subject}`, rule);
    if (!d.allowed) throw limited(scope, d.retryAfterSeconds);
  }

  /**
   * Takes a token like `check`; when the bucket is spent, the subject is also remembered here as
   * blocked until it refills, so `assertNotBlocked` refuses it without I/O (the failed-credential
   * budget: one limiter call per failure, none per successful request).
   */
  async checkAndBlock(scope: Scope, subject: string): Promise<void> {
    const rule = this.rules[scope];
    const d = await this.limiter.take(`${scope}:${subject}`, rule);
    if (d.allowed) return;
    if (this.#blocked.size >= MAX_BLOCKED) this.#blocked.delete(this.#blocked.keys().next().value!);
    this.#blocked.set(`${scope}:${subject}`, this.clock.nowMs() + Math.max(1, d.retryAfterSeconds) * 1000);
    throw limited(scope, d.retryAfterSeconds);
  }

  /** Throws `rate_limited` while `subject` is blocked for `scope` by an earlier `checkAndBlock` (no I/O). */
  assertNotBlocked(scope: Scope, subject: string): void {
    const key = `${scope}:${subject}`;
    const until = this.#blocked.get(key);
    if (until === undefined) return;
    const left = until - this.clock.nowMs();
    if (left <= 0) {
      this.#blocked.delete(key);
      return;
    }
    throw limited(scope, Math.ceil(left / 1000));
  }
}

function limited(scope: string, retryAfterSeconds: number): AppError {
  const retry = Math.max(1, retryAfterSeconds);
  return new AppError('rate_limited', `Too many ${scope} requests; retry after ${retry} s.`, {
    extra: { retry_after_seconds: retry, scope },
    headers: { 'Retry-After': String(retry) },
  });
}
