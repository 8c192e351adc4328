// The rate limiter contract against the in-process limiter, on a fake clock.
import { MemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.js';
import { rateLimiterContract } from './rate-limiter.contract.js';

rateLimiterContract('in-process (fake clock)', async () => {
  let now = 1_700_000_000_000;
  const limiter = new MemoryRateLimiter({ nowMs: () => now });
  return {
    limiter,
    advance: async (ms) => {
      now += ms;
    },
    dispose: () => limiter.close(),
  };
});
