// Per-account, per-scope request budgets (token buckets). A refused request gets 429 with
// `Retry-After` and detail `{code: "rate_limited", retry_after_seconds, scope}` (interface, Errors 1).
import { AppError } from '../domain/errors.js';
import type { Clock } from '../ports/clock.js';
import type { RateLimiter, RateRule } from '../ports/rate-limiter.js';
import type { RateOverride, RateOverrideStore } from '../ports/rate-override-store.js';

/** Blocked subjects remembered at most (oldest forgotten first); a memory bound under a flood. */
const MAX_BLOCKED = 100_000;
/** How long an account's overrides are used before they are read again (other instances, the CLI). */
export const OVERRIDE_CACHE_MS = 10_000;
/** Accounts whose overrides are cached at most. */
const MAX_CACHED = 100_000;
/** Bounds of an override (the configuration's bounds of a rule). */
export const OVERRIDE_LIMITS = { capacity: { min: 1, max: 1_000_000 }, refillPerSecond: { min: 0, max: 1_000_000 } } as const;

export class RateLimitService<Scope extends string> {
  /** `scope:subject` -> Unix ms until which a spent subject is refused without asking the limiter. */
  readonly #blocked = new Map<string, number>();

  /** accountId -> its overrides by scope, and when they were read. */
  readonly #overrides = new Map<number, { at: number; rules: Map<string, RateRule> }>();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly rules: Readonly<Record<Scope, RateRule>>,
    private readonly clock: Clock = { nowMs: () => Date.now() },
    /** Per-account overrides set by an operator (ADR 0084); absent: the configured rules only. */
    private readonly overrideStore: RateOverrideStore | null = null,
  ) {}

  /**
   * Takes one token from `subject`'s bucket for `scope` (subject: `a:<accountId>` or `ip:<address>`).
   * An account's override for the scope replaces the configured rule. Throws `rate_limited` when the
   * bucket is empty.
   */
  async check(scope: Scope, subject: string): Promise<void> {
    const rule = (await this.#overrideFor(scope, subject)) ?? this.rules[scope];
    const d = await this.limiter.take(`${scope}:${subject}`, rule);
    if (!d.allowed) throw limited(scope, d.retryAfterSeconds);
  }

  /** The scopes that can be limited (and overridden). */
  get scopes(): Scope[] {
    return Object.keys(this.rules) as Scope[];
  }

  /** The rule an account gets for a scope: its override, else the configured one. */
  async ruleFor(scope: Scope, accountId: number): Promise<RateRule & { overridden: boolean }> {
    const o = await this.#overrideFor(scope, `a:${accountId}`);
    return o ? { ...o, overridden: true } : { ...this.rules[scope], overridden: false };
  }

  /** Sets an account's own rule for a scope (the CLI; other instances apply it within OVERRIDE_CACHE_MS). */
  async setOverride(accountId: number, scope: string, rule: RateRule): Promise<RateOverride> {
    const store = this.#store();
    if (!(scope in this.rules)) throw new AppError('validation_failed', `Unknown scope ${scope}; one of ${this.scopes.join(', ')}.`);
    const { capacity, refillPerSecond } = rule;
    if (!Number.isInteger(capacity) || capacity < OVERRIDE_LIMITS.capacity.min || capacity > OVERRIDE_LIMITS.capacity.max) {
      throw new AppError('validation_failed', `burst must be an integer from ${OVERRIDE_LIMITS.capacity.min} to ${OVERRIDE_LIMITS.capacity.max}.`);
    }
    if (!Number.isFinite(refillPerSecond) || refillPerSecond < OVERRIDE_LIMITS.refillPerSecond.min || refillPerSecond > OVERRIDE_LIMITS.refillPerSecond.max) {
      throw new AppError('validation_failed', `per-second must be a number from ${OVERRIDE_LIMITS.refillPerSecond.min} to ${OVERRIDE_LIMITS.refillPerSecond.max}.`);
    }
    const o: RateOverride = { accountId, scope, capacity, refillPerSecond, updatedAt: Math.floor(this.clock.nowMs() / 1000) };
    await store.set(o);
    this.#overrides.delete(accountId);
    return o;
  }

  /** Removes an account's override for a scope, or all of them; returns how many were removed. */
  async clearOverride(accountId: number, scope?: string): Promise<number> {
    if (scope !== undefined && !(scope in this.rules)) throw new AppError('validation_failed', `Unknown scope ${scope}; one of ${this.scopes.join(', ')}.`);
    const n = await this.#store().clear(accountId, scope);
    this.#overrides.delete(accountId);
    return n;
  }

  /** An account's overrides. */
  async overridesOf(accountId: number): Promise<RateOverride[]> {
    return this.#store().list(accountId);
  }

  #store(): RateOverrideStore {
    if (!this.overrideStore) throw new AppError('service_unavailable', 'Rate-limit overrides need the database storage.');
    return this.overrideStore;
  }

  async #overrideFor(scope: string, subject: string): Promise<RateRule | null> {
    if (!this.overrideStore || !subject.startsWith('a:')) return null;
    const accountId = Number(subject.slice(2));
    if (!Number.isSafeInteger(accountId)) return null;
    const now = this.clock.nowMs();
    let cached = this.#overrides.get(accountId);
    if (!cached || now - cached.at >= OVERRIDE_CACHE_MS) {
      const list = await this.overrideStore.list(accountId);
      cached = { at: now, rules: new Map(list.map((o) => [o.scope, { capacity: o.capacity, refillPerSecond: o.refillPerSecond }])) };
      this.#overrides.delete(accountId);
      if (this.#overrides.size >= MAX_CACHED) this.#overrides.delete(this.#overrides.keys().next().value!);
      this.#overrides.set(accountId, cached);
    }
    return cached.rules.get(scope) ?? null;
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

  /**
   * Throws `rate_limited` while `subject` is blocked for `scope` by an earlier `checkAndBlock` (no I/O).
   */
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

  /**
   * A credential presented from `subject` (an address) failed its check (ADR 0271). While the subject is
   * blocked, throws `rate_limited` at once (no limiter call: a guess from a spent address costs the check
   * only); otherwise spends a token (`checkAndBlock`), which throws `rate_limited` and blocks the subject
   * when the bucket is spent. Returns when the failure is within the budget (the caller answers 401).
   * The credential is checked *before* this, so a valid one is accepted from a blocked address: the
   * failures of others at the address never lock it out.
   */
  async failedCredential(scope: Scope, subject: string): Promise<void> {
    this.assertNotBlocked(scope, subject);
    await this.checkAndBlock(scope, subject);
  }
}

function limited(scope: string, retryAfterSeconds: number): AppError {
  const retry = Math.max(1, retryAfterSeconds);
  return new AppError('rate_limited', `Too many ${scope} requests; retry after ${retry} s.`, {
    extra: { retry_after_seconds: retry, scope },
    headers: { 'Retry-After': String(retry) },
  });
}
