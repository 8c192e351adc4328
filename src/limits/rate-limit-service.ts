// Per-account, per-scope request budgets (token buckets). A refused request gets 429 with
// `Retry-After` and detail `{code: "rate_limited", retry_after_seconds, scope}` (interface, Errors 1).
import { AppError } from '../domain/errors.js';
import type { RateLimiter, RateRule } from '../ports/rate-limiter.js';

export class RateLimitService<Scope extends string> {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly rules: Readonly<Record<Scope, RateRule>>,
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
   * Throws `rate_limited` when `subject`'s bucket for `scope` has no whole token left, without taking
   * one (a bucket spent by failures blocks the subject until it refills).
   */
  async requireToken(scope: Scope, subject: string): Promise<void> {
    const rule = this.rules[scope];
    const d = await this.limiter.take(`${scope}:${subject}`, rule, 0);
    if (d.remaining < 1) throw limited(scope, Math.ceil(1 / rule.refillPerSecond));
  }
}

function limited(scope: string, retryAfterSeconds: number): AppError {
  const retry = Math.max(1, retryAfterSeconds);
  return new AppError('rate_limited', `Too many ${scope} requests; retry after ${retry} s.`, {
    extra: { retry_after_seconds: retry, scope },
    headers: { 'Retry-After': String(retry) },
  });
}
