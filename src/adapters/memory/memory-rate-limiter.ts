// In-process token buckets (the default rate limiter). Buckets refill continuously; idle full buckets
// are dropped so memory follows the number of active keys.
import type { Clock } from '../../ports/clock.js';
import type { RateDecision, RateLimiter, RateRule } from '../../ports/rate-limiter.js';

interface Bucket {
  tokens: number;
  updatedMs: number;
  /** The bucket's own rule, so the sweep judges each bucket by its refill rate. */
  rule: RateRule;
}

export class MemoryRateLimiter implements RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  #takes = 0;
  constructor(private readonly clock: Clock) {}

  async take(key: string, rule: RateRule, cost = 1): Promise<RateDecision> {
    const now = this.clock.nowMs();
    const b = this.#buckets.get(key) ?? { tokens: rule.capacity, updatedMs: now, rule };
    b.rule = rule;
    b.tokens = Math.min(rule.capacity, b.tokens + ((now - b.updatedMs) / 1000) * rule.refillPerSecond);
    b.updatedMs = now;
    this.#buckets.set(key, b);
    if (++this.#takes % 10_000 === 0) this.#sweep(now);
    if (b.tokens >= cost) {
      b.tokens -= cost;
      return { allowed: true, remaining: Math.floor(b.tokens), retryAfterSeconds: 0 };
    }
    const wait = (cost - b.tokens) / rule.refillPerSecond;
    return { allowed: false, remaining: Math.floor(b.tokens), retryAfterSeconds: Math.max(1, Math.ceil(wait)) };
  }

  /** Drops buckets that would be full again: they behave exactly like absent ones. */
  #sweep(now: number): void {
    for (const [k, b] of this.#buckets) {
      if (b.tokens + ((now - b.updatedMs) / 1000) * b.rule.refillPerSecond >= b.rule.capacity) this.#buckets.delete(k);
    }
  }

  async close(): Promise<void> {
    this.#buckets.clear();
  }
}
