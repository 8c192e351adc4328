// Background merging without stalls (ADRs 0111, 0180). With a merge thread (`IndexSet.merger`, a server
// with search threads), each merge the policy wants runs whole on that thread: the writer (the main
// thread) only hands out the task and adopts the output, applying the deletions made meanwhile; the
// thread runs at a lower scheduling priority, so on a busy machine searches preempt it. Without one (no
// search threads, tests), merges run on the writer in short slices, each a bounded number of postings
// (a few milliseconds), with the event loop free between slices (and a pause as long as the slice) so
// requests are answered while a merge is in progress. Idle indexes are checked every IDLE_CHECK_MS.
// Search threads keep serving the last published segments during the merge.
import { performance } from 'node:perf_hooks';
import type { IndexSet } from './index-set.js';

/** Postings merged per slice (merges on the writer's thread): about 2-5 ms of CPU on our 2-core machines. */
export const MERGE_SLICE_POSTINGS = 25_000;
/** How often an index without merge work is checked, ms. */
export const IDLE_CHECK_MS = 250;

/** Starts merging `indexes` in the background; returns the function that stops it. */
export function startBackgroundMerges(indexes: Pick<IndexSet, 'mergeStep' | 'mergeOffThread' | 'merger'>, report: (err: unknown) => void): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let immediate: NodeJS.Immediate | null = null;
  const later = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(step, ms);
    timer.unref();
  };
  const step = () => {
    timer = null;
    immediate = null;
    if (stopped) return;
    const merger = indexes.merger;
    if (merger !== null) {
      // off the thread: one merge per index at a time, the next right after a completed one
      indexes.mergeOffThread(merger).then(
        (r) => later(r === 'merged' ? 0 : IDLE_CHECK_MS),
        (err: unknown) => {
          // a merger taken away (shutdown closes it) fails its merge in flight: nothing to report
          if (!stopped && indexes.merger !== null) report(err);
          later(IDLE_CHECK_MS);
        },
      );
      return;
    }
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
      else later(ms);
    } else later(IDLE_CHECK_MS);
  };
  later(IDLE_CHECK_MS);
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
  };
}
