// Per-query paired significance for bench/quality (issue 27).

/** Two-sided paired randomization test (sign flips) of mean(a - b) = 0. */
export function pairedP(a: readonly number[], b: readonly number[], rounds = 10_000, seed = 27): number {
  const diffs = a.map((x, i) => x - b[i]!);
  const n = diffs.length;
  if (n === 0) return 1;
  const obs = Math.abs(diffs.reduce((s, x) => s + x, 0));
  if (obs < 1e-12) return 1;
  let s = seed >>> 0 || 1;
  const rnd = (): number => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  let hits = 0;
  for (let r = 0; r < rounds; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += rnd() & 1 ? diffs[i]! : -diffs[i]!;
    if (Math.abs(sum) >= obs - 1e-12) hits++;
  }
  return (hits + 1) / (rounds + 1);
}
