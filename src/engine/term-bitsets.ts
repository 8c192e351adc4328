// Doc-id bitsets of a segment's dense terms, for exact totals (ADR 0165). Counting a word query's matches
// exactly needs the union of its terms' postings; decoding every block of a term held by a large share of
// the segment costs a gap decode per posting, while ORing its bitset costs one word per 32 docs. A term's
// bitset is built (by decoding its postings once) the first time a count meets it and kept while the segment
// lives: segments are immutable, so the bitset never goes stale. The cache is per thread (module state; each
// search thread has its own) and bounded in bytes: past the bound a term stays on the decode path.
import type { PostingCursor, PostingStore } from './postings-cursor.js';

/** A term is dense in a segment when df * DENSE_DIVISOR >= docCount (its bitset then takes <= 4 bytes per posting). */
export const DENSE_DIVISOR = 32;

/** Default bound of the bitsets kept by one thread: 64 MiB (512 dense terms at 1M docs, 5,000 at 100k). */
export const DEFAULT_BITSET_BUDGET = 64 * 1024 * 1024;

let budget = DEFAULT_BITSET_BUDGET;
/** Bytes of bitsets held for live segments (a collected segment's bytes are given back by the registry). */
let held = 0;

interface SegmentBitsets {
  terms: Map<number, Int32Array>;
  /** Shared with the finalization registry (must not reference the segment). */
  acct: { bytes: number };
}

const bySegment = new WeakMap<PostingStore, SegmentBitsets>();
const registry = new FinalizationRegistry<{ bytes: number }>((acct) => {
  held -= acct.bytes;
});

/** Counters for tests and traces: bitsets built, and unions served from a kept bitset. */
export const termBitsetStats = { built: 0, used: 0 };

/** Sets the byte bound of this thread's bitsets (0 turns them off); drops nothing already kept. */
export function setTermBitsetBudget(bytes: number): void {
  budget = Math.max(0, bytes);
}

/** Bytes of bitsets this thread holds now. */
export function termBitsetBytes(): number {
  return held;
}

/** Whether a term of this df is dense in a segment of `docCount` docs. */
export function isDense(df: number, docCount: number): boolean {
  return df * DENSE_DIVISOR >= docCount && docCount > 0;
}

/**
 * The doc-id bitset of the cursor's term (one bit per doc of the segment, deleted docs included: deletions
 * are applied by the caller's filter like on the decode path), or null when the term is not dense, the cursor
 * has moved (a bitset holds all postings, the union wants the remaining ones) or the budget is spent. On a
 * miss within budget it consumes the cursor to build the bitset.
 */
export function denseBitset(cur: PostingCursor): Int32Array | null {
  const seg = cur.seg;
  if (cur.doc !== -1 || !isDense(cur.df, seg.docCount)) return null;
  let entry = bySegment.get(seg);
  const kept = entry?.terms.get(cur.term);
  if (kept !== undefined) {
    termBitsetStats.used++;
    return kept;
  }
  const words = (seg.docCount + 31) >>> 5;
  if (held + words * 4 > budget) return null;
  if (entry === undefined) {
    entry = { terms: new Map(), acct: { bytes: 0 } };
    bySegment.set(seg, entry);
    registry.register(seg, entry.acct);
  }
  const bits = new Int32Array(words);
  cur.markAll(bits);
  entry.terms.set(cur.term, bits);
  entry.acct.bytes += words * 4;
  held += words * 4;
  termBitsetStats.built++;
  return bits;
}
