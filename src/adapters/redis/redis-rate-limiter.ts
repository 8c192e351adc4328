// Token buckets in Redis, shared by every instance. One Lua script reads, refills and takes atomically
// (EVALSHA via ioredis defineCommand); Redis' own clock (TIME) is used so instances with skewed clocks
// agree. The bucket key expires once it would be full again.
import { Redis } from 'ioredis';
import type { RateDecision, RateLimiter, RateRule } from '../../ports/rate-limiter.js';

const TAKE = `
local key = KEYS[1]
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', key, 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil then tokens = capacity; ts = now end
tokens = math.min(capacity, tokens + (now - ts) / 1000 * rate)
local allowed = 0
local retry = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
else
  retry = math.max(1, math.ceil((cost - tokens) / rate))
end
redis.call('HSET', key, 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', key, math.ceil((capacity - tokens) / rate * 1000) + 1000)
return { allowed, math.floor(tokens), retry }
`;

type WithTake = Redis & { lecternTake(key: string, capacity: number, rate: number, cost: number): Promise<[number, number, number]> };

export class RedisRateLimiter implements RateLimiter {
  readonly #redis: WithTake;
  constructor(url: string, private readonly prefix = 'lectern:rl:') {
    const r = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
    r.defineCommand('lecternTake', { numberOfKeys: 1, lua: TAKE });
    this.#redis = r as WithTake;
  }

  async take(key: string, rule: RateRule, cost = 1): Promise<RateDecision> {
    const [allowed, remaining, retry] = await this.#redis.lecternTake(this.prefix + key, rule.capacity, rule.refillPerSecond, cost);
    return { allowed: allowed === 1, remaining, retryAfterSeconds: allowed === 1 ? 0 : retry };
  }

  async ping(): Promise<void> {
    await this.#redis.ping();
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }
}
