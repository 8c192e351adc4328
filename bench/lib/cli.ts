// Command-line arguments and percentiles shared by the benchmark scripts.

/** The script's arguments (after `node script.js`). */
export const args = process.argv.slice(2);

/** The value after `--name`, else `d`. */
export const arg = (name: string, d?: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : d;
};

/** The p-th percentile of ascending `sorted` (nearest rank, clamped to the last element). */
export const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
