// Per-account rate-limit overrides (issue 13, "a per-account override from the CLI"; ADR 0084): an
// operator gives one account its own burst and sustained rate for one scope (e.g. an evaluation
// script that needs more search throughput), in the database so every instance applies it.

export interface RateOverride {
  accountId: number;
  /** A rate-limit scope of configuration `rateLimits` (search, documents, ..., default). */
  scope: string;
  /** Bucket size (burst). */
  capacity: number;
  /** Tokens added per second. */
  refillPerSecond: number;
  /** Unix seconds of the last change. */
  updatedAt: number;
}

export interface RateOverrideStore {
  /** Sets (or replaces) the override of `accountId` for `scope`. */
  set(override: RateOverride): Promise<void>;
  /** Removes one override (`scope`) or all of the account's; returns how many were removed. */
  clear(accountId: number, scope?: string): Promise<number>;
  /** The account's overrides, by scope. */
  list(accountId: number): Promise<RateOverride[]>;
}
