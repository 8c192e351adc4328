// The scheduling decisions of scripts/run-tests.mjs, as plain functions (test/unit/test-scheduling.test.ts;
// ADR 0300, docs/operations.md "Tests").

/** Wall time assumed for a file the schedule does not list (a new file). */
export const UNKNOWN_MS = 20_000;

/**
 * The files in the order they start: the longest last measured first (`measured[name].ms`, name as
 * `name(file)` gives it); ties and unlisted files of equal assumed time in path order.
 */
export function startOrder(files, measured, name) {
  const expected = (f) => measured[name(f)]?.ms ?? UNKNOWN_MS;
  return [...files].sort((a, b) => expected(b) - expected(a) || (a < b ? -1 : a > b ? 1 : 0));
}

/** The idle share of all CPUs between two `/proc/stat` "cpu" lines (null when no time passed). */
export function idleShare(first, last) {
  const parse = (line) => {
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    return { idle: v[3] ?? 0, total: v.reduce((a, b) => a + b, 0) };
  };
  const a = parse(first);
  const b = parse(last);
  return b.total > a.total ? (b.idle - a.idle) / (b.total - a.total) : null;
}

/** Idle share at or above which one more file may start beyond the base concurrency. */
export const IDLE_TO_ADD = 0.5;
/** Least time between two starts beyond the base concurrency, ms (a file's start-up is its busiest moment). */
export const ADD_EVERY_MS = 2_000;

/**
 * Whether another file may start now: always below `base` running files; beyond it, up to `most`, only
 * while the CPUs were at least half idle over the last samples and the last start was a while ago.
 */
export function mayStart({ running, base, most, idle, sinceLastStartMs }) {
  if (running < base) return true;
  if (running >= most) return false;
  return idle !== null && idle >= IDLE_TO_ADD && sinceLastStartMs >= ADD_EVERY_MS;
}
