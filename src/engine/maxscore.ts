// Windowed block-max MaxScore for word queries (the disjunctive path of searcher.ts), after Lucene's
// MaxScoreBulkScorer: the doc-id space is walked in windows of WINDOW docs. Per window:
//  1. each clause's upper bound inside the window comes from the block-max table (no decoding);
//  2. clauses sorted by that bound are split MaxScore-style (Turtle & Flood 1995): the longest prefix
//     whose summed bounds cannot reach the k-th score theta is non-essential in this window, so dense
//     clauses whose blocks here hold only low-tf postings drop out locally (block-max MaxScore);
//     a window where even the sum of all bounds cannot reach theta is skipped outright;
//  3. the essential clauses are scattered term-at-a-time into per-clause pseudo-frequency arrays and a
//     bitset of touched docs, in tight loops over decoded blocks (blocks whose bound cannot reach theta
//     together with every other clause's window bound are skipped undecoded);
//  4. touched docs are visited in doc order: essential scores, a quick reject against the non-essential
//     bounds, then the non-essential clauses are probed (highest bound first, stopping as soon as the
//     remaining bounds cannot lift the doc in).
// Scores are summed in clause order (`contrib`) so pruned and exhaustive runs agree bit for bit; the per
// posting pseudo frequency is the same expression as Clause.score(), see PostingCursor.accumulate.
import type { Clause } from './bm25f.js';
import { END } from './postings-cursor.js';
import type { Segment } from './segment.js';
import type { SegmentFilter } from './filters.js';

/** Docs per window: large enough to amortise the per-window bounds, small enough for the L1/L2 cache. */
export const WINDOW = 2048;

/** What the caller keeps of one ranked doc. */
export interface MaxScoreHeap {
  readonly full: boolean;
  /** Score of the worst kept hit (valid when full). */
  readonly threshold: number;
  offer(h: { score: number; si: number; doc: number; issued: number; id: string }): void;
}

export interface MaxScoreCounters {
  scored: number;
  candidates: number;
  skippedBlocks: number;
  exact: boolean;
  matches: number;
}

// Scratch space reused across searches (searches are synchronous and never nested).
let tfpPool: Float64Array[] = [];
const seen = new Int32Array(WINDOW >>> 5);
let f64 = new Float64Array(64);
let i32 = new Int32Array(64);

const essArrays: Float64Array[] = [];

function scratch(n: number): void {
  while (tfpPool.length < n) tfpPool.push(new Float64Array(WINDOW));
  if (f64.length < 5 * n) f64 = new Float64Array(5 * n);
  if (i32.length < 2 * n) i32 = new Int32Array(2 * n);
}

/**
 * Ranks the docs of one segment matching any clause into `heap`. `clauses` are the segment's clauses
 * (null = term absent here), `contrib` one slot per query clause. With `prune` false every match is
 * scored (the exhaustive oracle).
 */
export function runWindowedMaxScore(
  si: number,
  seg: Segment,
  clauses: readonly (Clause | null)[],
  contrib: Float64Array,
  filter: SegmentFilter,
  docNorm: Float64Array,
  heap: MaxScoreHeap,
  prune: boolean,
  ctr: MaxScoreCounters,
  /** Approximate pruning: bounds are compared with theta x this (>= 1; 1 = exact). See EngineQuery.heapFactor. */
  thetaScale = 1,
  /**
   * A lower bound of the k-th best score of the whole query (championFloor in searcher.ts, ADR 0329), or
   * -Infinity: pruning starts against it before the heap is full, and never goes below it.
   */
  floor = -Infinity,
): void {
  const cs: Clause[] = [];
  for (const c of clauses) if (c !== null) cs.push(c);
  const n = cs.length;
  if (n === 0) return;
  scratch(n);
  const tfps = tfpPool;
  const ub = f64.subarray(0, n);
  const prefix = f64.subarray(n, 2 * n);
  const essVal = f64.subarray(2 * n, 3 * n);
  const essMult = f64.subarray(3 * n, 4 * n);
  const essK1 = f64.subarray(4 * n, 5 * n);
  const essIdx = i32.subarray(n, 2 * n);
  const essArr = essArrays;
  const order = i32;
  const nContrib = contrib.length;
  // filters and deletions are applied while scattering, so the candidate loop only sees allowed docs
  const allowed = filter.bits();
  const scaled = (t: number): number => (t > 0 ? t * thetaScale : t);
  const scaledFloor = floor === -Infinity ? -Infinity : scaled(floor);
  let theta = heap.full ? Math.max(scaled(heap.threshold), scaledFloor) : scaledFloor;
  let exact = true;
  let candidates = 0;
  let scored = 0;
  let skippedWindows = 0;
  let skippedBefore = 0;
  for (const c of cs) {
    c.nextDoc();
    for (const cur of c.cursors) skippedBefore += cur.skipped;
  }
  let wStart = END;
  for (const c of cs) if (c.doc < wStart) wStart = c.doc;
  while (wStart < END) {
    const wEnd = wStart + WINDOW;
    // 1-2. window bounds and the essential / non-essential split
    for (let j = 0; j < n; j++) order[j] = j;
    let firstEss = 0;
    let totalUb = Infinity;
    const pruning = prune && theta !== -Infinity;
    if (pruning) {
      for (let j = 0; j < n; j++) ub[j] = cs[j]!.windowBound(wStart, wEnd);
      // insertion sort by bound (ties by query order, for determinism)
      for (let a = 1; a < n; a++) {
        const x = order[a]!;
        let b = a - 1;
        while (b >= 0 && (ub[order[b]!]! > ub[x]! || (ub[order[b]!]! === ub[x]! && cs[order[b]!]!.index > cs[x]!.index))) {
          order[b + 1] = order[b]!;
          b--;
        }
        order[b + 1] = x;
      }
      let acc = 0;
      for (let k = 0; k < n; k++) prefix[k] = acc += ub[order[k]!]!;
      totalUb = acc;
      while (firstEss < n && prefix[firstEss]! + Math.abs(prefix[firstEss]!) * 1e-9 + 1e-12 < theta) firstEss++;
      if (firstEss >= n) {
        // nothing in this window can enter the top k
        skippedWindows++;
        exact = false;
        wStart = nextWindowStart(cs, wEnd);
        continue;
      }
      if (firstEss > 0) exact = false;
    }
    // 3. scatter the essential clauses into the window
    for (let k = firstEss; k < n; k++) {
      const j = order[k]!;
      const c = cs[j]!;
      const tfp = tfps[j]!;
      const rest = pruning ? totalUb - ub[j]! : 0;
      const blockTheta = pruning && c.single !== null ? theta : -Infinity;
      // a lone essential single-term clause: postings whose own score plus every non-essential bound
      // cannot reach theta are not even marked (the threshold is loosened; candidates are checked exactly)
      let minTfp = 0;
      if (pruning && firstEss > 0 && firstEss === n - 1 && c.single !== null) {
        const need = theta - prefix[n - 2]! - Math.abs(theta) * 1e-6 - 1e-9;
        if (need > 0) minTfp = need < c.mult ? (need * c.k1) / (c.mult - need) : Infinity;
      }
      for (const cur of c.cursors) {
        if (cur.doc < wStart) cur.advance(wStart);
        cur.accumulate(wEnd, wStart, docNorm, tfp, seen, c.mult, c.k1, rest, blockTheta, c.norms, minTfp, allowed);
      }
      c.sync();
    }
    // 4. touched docs in doc order (the essential clauses' arrays and constants gathered per window)
    const nEss = n - firstEss;
    for (let k = 0; k < nEss; k++) {
      const c = cs[order[firstEss + k]!]!;
      essArr[k] = tfps[order[firstEss + k]!]!;
      essMult[k] = c.mult;
      essK1[k] = c.k1;
      essIdx[k] = c.index;
    }
    const words = WINDOW >>> 5;
    for (let w = 0; w < words; w++) {
      let bits = seen[w]!;
      if (bits === 0) continue;
      seen[w] = 0;
      while (bits !== 0) {
        const t = 31 - Math.clz32(bits & -bits);
        bits &= bits - 1;
        const off = (w << 5) | t;
        const d = wStart + off;
        // read and clear the essential pseudo frequencies of this doc
        let s = 0;
        for (let k = 0; k < nEss; k++) {
          const a = essArr[k]!;
          const x = a[off]!;
          let v = 0;
          if (x !== 0) {
            a[off] = 0;
            v = (essMult[k]! * x) / (essK1[k]! + x);
          }
          essVal[k] = v;
          s += v;
        }
        candidates++;
        // quick reject: essential scores plus every non-essential bound cannot reach theta
        if (prune && firstEss > 0) {
          const b = s + prefix[firstEss - 1]!;
          if (b + Math.abs(b) * 1e-9 + 1e-12 < theta) continue;
        }
        for (let i = 0; i < nContrib; i++) contrib[i] = 0;
        for (let k = 0; k < nEss; k++) contrib[essIdx[k]!] = essVal[k]!;
        let pruned = false;
        for (let k = firstEss - 1; k >= 0; k--) {
          if (prune) {
            const b = s + prefix[k]!;
            if (b + Math.abs(b) * 1e-9 + 1e-12 < theta) {
              pruned = true;
              break;
            }
          }
          const c = cs[order[k]!]!;
          if (c.advance(d) === d) {
            const v = c.score();
            contrib[c.index] = v;
            s += v;
          }
        }
        if (pruned) continue;
        scored++;
        let total = 0;
        for (let i = 0; i < nContrib; i++) total += contrib[i]!;
        if (prune && total + Math.abs(total) * 1e-9 + 1e-12 < theta) continue;
        heap.offer({ score: total, si, doc: d, issued: NaN, id: seg.id(d) });
        if (heap.full) theta = Math.max(scaled(heap.threshold), scaledFloor);
      }
    }
    wStart = nextWindowStart(cs, wEnd);
  }
  let skippedAfter = 0;
  for (const c of cs) for (const cur of c.cursors) skippedAfter += cur.skipped;
  if (skippedAfter !== skippedBefore) exact = false;
  ctr.candidates += candidates;
  ctr.scored += scored;
  ctr.skippedBlocks += skippedWindows;
  ctr.exact = exact;
  ctr.matches = ctr.candidates;
}

/** Start of the next window: the smallest doc >= end any clause may still hold (END when none). */
function nextWindowStart(cs: readonly Clause[], end: number): number {
  let m = END;
  for (const c of cs) {
    for (const cur of c.cursors) {
      // cursors behind `end` (non-essential ones, only probed) may hold docs from `end` on
      const x = cur.doc >= end ? cur.doc : cur.hasDocAtLeast(end) ? end : END;
      if (x < m) m = x;
    }
  }
  return m;
}
