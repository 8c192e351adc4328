// Token-bucket rate limiting per key (account + scope). In-process by default; Redis shares one
// budget across instances.

export interface RateRule {
  /** Bucket size (burst). */
  capacity: number;
  /** Tokens added per second. */
  refillPerSecond: number;
}

export interface RateDecision {
  allowed: boolean;
  /** Tokens left after this request (floor). */
  remaining: number;
  /** Whole seconds until one token is available (>= 1 when refused, 0 when allowed). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  take(key: string, rule: RateRule, cost?: number): Promise<RateDecision>;
  close(): Promise<void>;
}
