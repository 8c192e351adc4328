// The rate limiter contract: token buckets (issue 2, section 4) that every RateLimiter must honour:
// a burst up to capacity, continuous refill never above capacity, a refused take costs nothing and
// says when to retry (whole seconds >= 1), and keys are independent. Callers pass a factory whose
// `advance` moves time: a fake clock for the in-process limiter, real sleeping for Redis (which keeps
// time itself), so rates and margins here leave room for a slow machine.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RateLimiter } from '../../src/ports/rate-limiter.js';

/** A fresh limiter with its own key space, and a way to let time pass. */
export interface RateLimiterFixture {
  limiter: RateLimiter;
  advance(ms: number): Promise<void>;
  dispose(): Promise<void>;
}

export type RateLimiterFactory = () => Promise<RateLimiterFixture>;

/** Runs the rate limiter contract against the limiters `open` creates. */
export function rateLimiterContract(label: string, open: RateLimiterFactory): void {
  const it = (name: string, fn: (f: RateLimiterFixture) => Promise<void>) =>
    test(name, async () => {
      const fixture = await open();
      try {
        await fn(fixture);
      } finally {
        await fixture.dispose();
      }
    });

  describe(`rate limiter contract: ${label}`, () => {
    it('a fresh key allows a burst up to capacity, then refuses', async ({ limiter }) => {
      const rule = { capacity: 5, refillPerSecond: 1 };
      const remaining: number[] = [];
      for (let i = 0; i < 5; i++) {
        const d = await limiter.take('acct:1:search', rule);
        assert.equal(d.allowed, true);
        assert.equal(d.retryAfterSeconds, 0);
        remaining.push(d.remaining);
      }
      assert.deepEqual(remaining, [4, 3, 2, 1, 0]);
      assert.deepEqual(await limiter.take('acct:1:search', rule), { allowed: false, remaining: 0, retryAfterSeconds: 1 });
    });

    it('retryAfterSeconds is whole seconds until one token is back, and at least 1', async ({ limiter }) => {
      // 0.25 tokens a second: the next token is 4 seconds away.
      const slow = { capacity: 1, refillPerSecond: 0.25 };
      assert.equal((await limiter.take('slow', slow)).allowed, true);
      const refused = await limiter.take('slow', slow);
      assert.equal(refused.allowed, false);
      assert.equal(refused.retryAfterSeconds, 4);
      // 10 tokens a second: the next token is at most 100 ms away, still reported as 1 second.
      const fast = { capacity: 2, refillPerSecond: 10 };
      await limiter.take('fast', fast);
      await limiter.take('fast', fast);
      assert.deepEqual(await limiter.take('fast', fast), { allowed: false, remaining: 0, retryAfterSeconds: 1 });
    });

    it('tokens refill over time but never above capacity', async ({ limiter, advance }) => {
      const rule = { capacity: 3, refillPerSecond: 2 };
      for (let i = 0; i < 3; i++) assert.equal((await limiter.take('k', rule)).allowed, true);
      assert.equal((await limiter.take('k', rule)).allowed, false);
      await advance(750); // 1.5 tokens back: one take, not two
      assert.deepEqual(await limiter.take('k', rule), { allowed: true, remaining: 0, retryAfterSeconds: 0 });
      assert.equal((await limiter.take('k', rule)).allowed, false);
      await advance(2_000); // refills 4 tokens from the 0.5 left: still only 3
      const burst = [];
      for (let i = 0; i < 4; i++) burst.push((await limiter.take('k', rule)).allowed);
      assert.deepEqual(burst, [true, true, true, false]);
    });

    it('a take may cost several tokens; a refused take costs nothing', async ({ limiter }) => {
      const rule = { capacity: 5, refillPerSecond: 0.01 };
      assert.deepEqual(await limiter.take('c', rule, 3), { allowed: true, remaining: 2, retryAfterSeconds: 0 });
      const refused = await limiter.take('c', rule, 3);
      assert.equal(refused.allowed, false);
      assert.ok(refused.retryAfterSeconds >= 1);
      assert.deepEqual(await limiter.take('c', rule, 2), { allowed: true, remaining: 0, retryAfterSeconds: 0 });
    });

    it('keys are independent', async ({ limiter }) => {
      const rule = { capacity: 2, refillPerSecond: 0.01 };
      await limiter.take('acct:1:search', rule);
      await limiter.take('acct:1:search', rule);
      assert.equal((await limiter.take('acct:1:search', rule)).allowed, false);
      assert.deepEqual(await limiter.take('acct:2:search', rule), { allowed: true, remaining: 1, retryAfterSeconds: 0 });
      assert.deepEqual(await limiter.take('acct:1:documents', rule), { allowed: true, remaining: 1, retryAfterSeconds: 0 });
    });
  });
}
