/** Time source, injected so tests control it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  nowMs(): number;
}

/** Whole seconds since the Unix epoch. */
export const nowSeconds = (clock: Clock): number => Math.floor(clock.nowMs() / 1000);
