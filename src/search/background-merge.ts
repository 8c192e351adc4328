// Background merging without stalls (ADR 0111): merges run on the writer (the main thread) in short
// slices, each a bounded number of postings (a few milliseconds), with the event loop free between
// slices (and a pause as long as the slice) so requests are answered while a merge is in progress. Idle indexes are checked every
// IDLE_CHECK_MS. Search threads keep serving the last published segments during the merge.
import { performance } from 'node:perf_hooks';
import type { IndexSet } from './index-set.js';

/** Postings merged per slice: about 2-5 ms of CPU on our 2-core machines. */
export const MERGE_SLICE_POSTINGS = 25_000;
/** How often an index without merge work is checked, ms. */
export const IDLE_CHECK_MS = 250;

/** Starts merging `indexes` in slices; returns the function that stops it. */
export function startBackgroundMerges(indexes: Pick<IndexSet, 'mergeStep'>, report: (err: unknown) => void): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let immediate: NodeJS.Immediate | null = null;
  const step = () => {
    timer = null;
    immediate = null;
    if (stopped) return;
    let merging = false;
    const t0 = performance.now();
    try {
      merging = indexes.mergeStep(MERGE_SLICE_POSTINGS) !== 'idle';
    } catch (err) {
      report(err);
    }
    if (stopped) return;
    // more work: the next slice after a pause as long as this one (merging takes at most half of the
    // writer's core, and pending requests have their turn); none: check again later
    const ms = performance.now() - t0;
    if (merging) {
      if (ms < 1) immediate = setImmediate(step);
      else {
        timer = setTimeout(step, ms);
        timer.unref();
      }
    } else {
      timer = setTimeout(step, IDLE_CHECK_MS);
      timer.unref();
    }
  };
  timer = setTimeout(step, IDLE_CHECK_MS);
  timer.unref();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
  };
}
