// The rate limiter contract against Redis (REDIS_URL), each test under its own key prefix; plus
// what Redis is there for: several service instances share one budget.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { RedisRateLimiter } from '../../src/adapters/redis/redis-rate-limiter.js';
import { redisSkip, redisUrl } from '../helpers/storage.js';
import { rateLimiterContract } from './rate-limiter.contract.js';

/** A key prefix no other test uses, and a function deleting every key under it. */
function testPrefix(url: string): { prefix: string; cleanup(): Promise<void> } {
  const prefix = `lectern:test:${process.pid}:${randomBytes(6).toString('hex')}:`;
  return {
    prefix,
    async cleanup() {
      const r = new Redis(url);
      try {
        const keys: string[] = [];
        for await (const batch of r.scanStream({ match: `${prefix}*`, count: 100 })) keys.push(...(batch as string[]));
        if (keys.length > 0) await r.del(...keys);
      } finally {
        r.disconnect();
      }
    },
  };
}

if (!redisUrl) {
  test('Redis rate limiter', { skip: redisSkip() }, () => {});
} else {
  const url = redisUrl;
  rateLimiterContract('Redis', async () => {
    const { prefix, cleanup } = testPrefix(url);
    const limiter = new RedisRateLimiter(url, prefix);
    return {
      limiter,
      advance: async (ms) => {
        await sleep(ms);
      },
      async dispose() {
        await limiter.close();
        await cleanup();
      },
    };
  });

  describe('Redis rate limiter: two service instances', () => {
    const instances = async (fn: (a: RedisRateLimiter, b: RedisRateLimiter) => Promise<void>) => {
      const { prefix, cleanup } = testPrefix(url);
      const a = new RedisRateLimiter(url, prefix);
      const b = new RedisRateLimiter(url, prefix);
      try {
        await fn(a, b);
      } finally {
        await a.close();
        await b.close();
        await cleanup();
      }
    };

    test('share one budget', async () => {
      await instances(async (a, b) => {
        const rule = { capacity: 5, refillPerSecond: 0.01 };
        for (let i = 0; i < 3; i++) assert.equal((await a.take('acct:1:search', rule)).allowed, true);
        assert.deepEqual(await b.take('acct:1:search', rule), { allowed: true, remaining: 1, retryAfterSeconds: 0 });
        assert.equal((await b.take('acct:1:search', rule)).allowed, true);
        const refusedB = await b.take('acct:1:search', rule);
        const refusedA = await a.take('acct:1:search', rule);
        assert.equal(refusedB.allowed, false);
        assert.equal(refusedA.allowed, false);
        assert.ok(refusedA.retryAfterSeconds >= 1);
        // Another account's budget is untouched.
        assert.equal((await b.take('acct:2:search', rule)).allowed, true);
      });
    });

    test('concurrent takes from both instances never exceed the budget', async () => {
      await instances(async (a, b) => {
        const rule = { capacity: 30, refillPerSecond: 0.001 };
        const decisions = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).take('acct:9:search', rule)));
        assert.equal(decisions.filter((d) => d.allowed).length, 30);
        assert.ok(decisions.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds >= 1));
      });
    });
  });
}
