// Compiles EngineFilters against one segment: column predicates (type, language, publisher, issued
// time, deletions) checked per candidate, and set filters (ISSNs, URI prefixes, citing, ids) turned
// into a sorted candidate list that drives iteration. `none` means no doc of the segment can match.
import type { Segment } from './segment.js';
import { utf8 } from './segment.js';
import { normalizeLanguage } from './stemmers.js';
import type { EngineFilters } from './types.js';

/** A compiled filter for one segment. */
export interface SegmentFilter {
  /** True when no document of this segment can match. */
  none: boolean;
  /** Sorted unique candidate docs when a set filter is present, else null (all docs). */
  candidates: Uint32Array | null;
  /** Whether doc `d` passes the column filters and is live. */
  allowed: (d: number) => boolean;
  /** True when `allowed` checks nothing: no column filter and no deletion. */
  trivial: boolean;
  /** True when `allowed` checks column filters (types, languages, publisher, issued range). */
  columns: boolean;
  /**
   * `allowed` as a bitset over the segment's docs (bit set = allowed; bits past docCount clear), or null when
   * `trivial`. Composed word by word from the deletion bitmap, the cached column bitset and the issued-range
   * index ({@link issuedRangeBits}) on the first call, then kept by this filter (one query, one segment).
   */
  bits(): Int32Array | null;
}

/** Dated docs per bucket of the issued-range index at least (smaller segments get fewer buckets). */
const ISSUED_MIN_BUCKET = 256;
/** Buckets of the issued-range index at most (its prefix bitsets take BUCKETS / 8 bytes per doc). */
const ISSUED_BUCKETS = 64;
/** Issue times sampled to place the bucket boundaries (near-equal buckets without sorting every doc). */
const ISSUED_SAMPLE = 4096;

/**
 * A segment's dated docs (known issue time) in buckets by time: bucket j holds the docs with
 * bounds[j] <= t < bounds[j + 1] (bounds[0] = -Infinity, bounds[B] = +Infinity; boundaries are quantiles of
 * a sample of the times, so buckets are near-equal unless many docs share a time), in doc order; and the
 * bitsets of the unions of the first buckets.
 */
interface IssuedIndex {
  bounds: Float64Array;
  /** Docs of bucket j: docs[start[j] .. start[j + 1]). */
  docs: Int32Array;
  start: Int32Array;
  /** prefix[j - 1] = bits of the docs of buckets 0 .. j - 1, j = 1 .. B - 1. */
  prefix: Int32Array[];
}

const issuedIndexes = new WeakMap<Segment, IssuedIndex>();

/** The bucket holding time t: the largest j with bounds[j] <= t. */
function bucketOf(bounds: Float64Array, t: number): number {
  let lo = 0;
  let hi = bounds.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (bounds[mid]! <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function issuedIndex(seg: Segment): IssuedIndex {
  let ix = issuedIndexes.get(seg);
  if (ix !== undefined) return ix;
  const n = seg.docCount;
  const issued = seg.issued;
  let m = 0;
  for (let d = 0; d < n; d++) if (!Number.isNaN(issued[d]!)) m++;
  const nb = Math.max(1, Math.min(ISSUED_BUCKETS, Math.floor(m / ISSUED_MIN_BUCKET)));
  // boundaries: quantiles of an evenly strided sample of the dated docs' times
  const sample = new Float64Array(Math.min(m, ISSUED_SAMPLE));
  if (sample.length > 0) {
    const stride = m / sample.length;
    let k = 0;
    let next = 0;
    let seen = 0;
    for (let d = 0; d < n && k < sample.length; d++) {
      const t = issued[d]!;
      if (Number.isNaN(t)) continue;
      if (seen++ >= next) {
        sample[k++] = t;
        next = Math.floor(k * stride);
      }
    }
    sample.sort();
  }
  const bounds = new Float64Array(nb + 1);
  bounds[0] = -Infinity;
  bounds[nb] = Infinity;
  for (let j = 1; j < nb; j++) bounds[j] = sample[Math.floor((j * sample.length) / nb)]!;
  // counting sort of the dated docs into their buckets (doc order kept within a bucket)
  const bucket = new Uint8Array(n);
  const start = new Int32Array(nb + 1);
  for (let d = 0; d < n; d++) {
    const t = issued[d]!;
    if (Number.isNaN(t)) continue;
    const j = bucketOf(bounds, t);
    bucket[d] = j;
    start[j + 1]!++;
  }
  for (let j = 0; j < nb; j++) start[j + 1]! += start[j]!;
  const docs = new Int32Array(m);
  const fill = start.slice(0, nb);
  for (let d = 0; d < n; d++) if (!Number.isNaN(issued[d]!)) docs[fill[bucket[d]!]!++] = d;
  const words = (n + 31) >>> 5;
  const prefix: Int32Array[] = [];
  let acc = new Int32Array(words);
  for (let j = 1; j < nb; j++) {
    acc = acc.slice();
    for (let i = start[j - 1]!; i < start[j]!; i++) {
      const d = docs[i]!;
      acc[d >>> 5]! |= 1 << (d & 31);
    }
    prefix.push(acc);
  }
  ix = { bounds, docs, start, prefix };
  issuedIndexes.set(seg, ix);
  return ix;
}

/**
 * Docs of `seg` whose issue time t satisfies lo <= t <= hi (unknown times never do), as a bitset: the
 * buckets strictly between lo's and hi's lie wholly inside the range and come from two prefix bitsets, one
 * word operation per 32 docs; the docs of lo's and hi's buckets are checked one by one. The index is built
 * on first use per segment (segments are immutable): one pass to bucket the docs, no sort of the docs.
 */
export function issuedRangeBits(seg: Segment, lo: number, hi: number): Int32Array {
  const ix = issuedIndex(seg);
  const words = (seg.docCount + 31) >>> 5;
  const out = new Int32Array(words);
  if (!(lo <= hi) || ix.docs.length === 0) return out;
  const ja = bucketOf(ix.bounds, lo);
  const jb = bucketOf(ix.bounds, hi);
  // buckets ja+1 .. jb-1: every time t there has bounds[ja+1] <= t < bounds[jb], so lo < t <= hi
  if (jb > ja + 1) {
    const pb = ix.prefix[jb - 1]!;
    const pa = ix.prefix[ja]!;
    for (let w = 0; w < words; w++) out[w] = pb[w]! & ~pa[w]!;
  }
  const issued = seg.issued;
  const docs = ix.docs;
  for (const j of ja === jb ? [ja] : [ja, jb]) {
    for (let i = ix.start[j]!; i < ix.start[j + 1]!; i++) {
      const d = docs[i]!;
      const t = issued[d]!;
      if (t >= lo && t <= hi) out[d >>> 5]! |= 1 << (d & 31);
    }
  }
  return out;
}

/** Column bitsets kept per segment (docCount / 8 bytes each: 8 bytes per doc at most). */
const MAX_CACHED_FILTERS = 64;

/**
 * The type / language / publisher predicate as a bitset over the segment's docs, cached on the (immutable)
 * segment by the filter values: hosts repeat the same few values, and one bit test per posting is cheaper
 * than three ordinal lookups. The issued-time range varies per query and is checked per doc.
 */
function columnBitset(seg: Segment, key: string, pass: (d: number) => boolean): Int32Array {
  const cache = seg.filterBits;
  let bits = cache.get(key);
  if (bits !== undefined) {
    // least recently used first out: a hit moves to the end
    cache.delete(key);
    cache.set(key, bits);
    return bits;
  }
  const n = seg.docCount;
  bits = new Int32Array((n + 31) >>> 5);
  for (let d = 0; d < n; d++) if (pass(d)) bits[d >>> 5]! |= 1 << (d & 31);
  if (cache.size >= MAX_CACHED_FILTERS) cache.delete(cache.keys().next().value!);
  cache.set(key, bits);
  return bits;
}

/** True when the filters contain anything at all. */
export function hasFilters(f: EngineFilters | undefined): boolean {
  if (!f) return false;
  return (
    (f.types != null && f.types.length >= 0) ||
    (f.languages != null) ||
    (f.issns != null) ||
    (f.publisher != null) ||
    f.issuedAfter != null ||
    f.issuedBefore != null ||
    f.uriPrefixes != null ||
    f.citing != null ||
    f.ids != null
  );
}

function ordMask(dict: { size: number; get(i: number): string }, wanted: Set<string>, map: (s: string) => string): Uint8Array {
  const mask = new Uint8Array(dict.size + 1);
  for (let i = 0; i < dict.size; i++) if (wanted.has(map(dict.get(i)))) mask[i + 1] = 1;
  return mask;
}

function union(lists: Uint32Array[]): Uint32Array {
  if (lists.length === 1) return lists[0]!;
  let n = 0;
  for (const l of lists) n += l.length;
  const all = new Uint32Array(n);
  let o = 0;
  for (const l of lists) {
    all.set(l, o);
    o += l.length;
  }
  all.sort();
  let w = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[w++] = all[i]!;
  return all.subarray(0, w);
}

function intersect(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(Math.min(a.length, b.length));
  let i = 0;
  let j = 0;
  let w = 0;
  while (i < a.length && j < b.length) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      out[w++] = a[i]!;
      i++;
      j++;
    }
  }
  return out.subarray(0, w);
}

/** Compiles `f` for `seg` with its deletion bitmap (bit set = deleted). */
export function compileFilter(seg: Segment, f: EngineFilters | undefined, deleted: Uint32Array | null): SegmentFilter {
  let none = false;
  let candidates: Uint32Array | null = null;
  const setFilter = (docs: Uint32Array): void => {
    candidates = candidates === null ? docs : intersect(candidates, docs);
  };
  let typeMask: Uint8Array | null = null;
  let langMask: Uint8Array | null = null;
  let pubMask: Uint8Array | null = null;
  let timed = false;
  let lo = -Infinity;
  let hi = Infinity;
  if (f) {
    if (f.types != null) {
      typeMask = ordMask(seg.typeDict, new Set(f.types), (s) => s);
      if (!typeMask.includes(1)) none = true;
    }
    if (f.languages != null) {
      langMask = ordMask(seg.langDict, new Set(f.languages.map(normalizeLanguage)), (s) => s);
      if (!langMask.includes(1)) none = true;
    }
    if (f.publisher != null) {
      pubMask = ordMask(seg.pubDict, new Set([f.publisher.trim().toLowerCase()]), (s) => s);
      if (!pubMask.includes(1)) none = true;
    }
    if (f.issuedAfter != null || f.issuedBefore != null) {
      timed = true;
      lo = f.issuedAfter ?? -Infinity;
      hi = f.issuedBefore ?? Infinity;
      if (lo > hi) none = true;
    }
    if (f.issns != null) {
      const lists: Uint32Array[] = [];
      for (const s of f.issns) {
        const l = seg.keywordDocs(utf8('i\0' + s.trim().toLowerCase()));
        if (l) lists.push(l);
      }
      setFilter(lists.length ? union(lists) : new Uint32Array(0));
    }
    if (f.citing != null) {
      const lists: Uint32Array[] = [];
      for (const s of f.citing) {
        const l = seg.keywordDocs(utf8('r\0' + s));
        if (l) lists.push(l);
      }
      setFilter(lists.length ? union(lists) : new Uint32Array(0));
    }
    if (f.uriPrefixes != null) {
      const lists: Uint32Array[] = [];
      for (const p of f.uriPrefixes) seg.forKeywordPrefix(utf8('u\0' + p), (docs) => lists.push(docs));
      setFilter(lists.length ? union(lists) : new Uint32Array(0));
    }
    if (f.ids != null) {
      const docs = new Set<number>();
      for (const id of f.ids) {
        const d = seg.findId(utf8(id));
        if (d >= 0) docs.add(d);
      }
      setFilter(Uint32Array.from(docs).sort());
    }
  }
  const del = deleted;
  const typeOrd = seg.typeOrd;
  const langOrd = seg.langOrd;
  const pubOrd = seg.pubOrd;
  const issued = seg.issued;
  const columnChecks = typeMask !== null || langMask !== null || pubMask !== null || timed;
  // the ordinal filters as one cached bitset (hosts repeat the same few types / languages / publishers)
  const ordinalChecks = typeMask !== null || langMask !== null || pubMask !== null;
  let columnBits: Int32Array | null = null;
  if (ordinalChecks && !none) {
    // the same set of values in any order or with repeats is one entry
    const set = (v: readonly string[] | null | undefined): string[] | null => (v == null ? null : [...new Set(v)].sort());
    const key = JSON.stringify([set(f?.types), set(f?.languages?.map(normalizeLanguage)), f?.publisher?.trim().toLowerCase() ?? null]);
    columnBits = columnBitset(seg, key, (d) => {
      if (typeMask !== null && typeMask[typeOrd[d]!] !== 1) return false;
      if (langMask !== null && langMask[langOrd[d]!] !== 1) return false;
      return pubMask === null || pubMask[pubOrd[d]!] === 1;
    });
  }
  const cb = columnBits;
  const allowed = (d: number): boolean => {
    if (del !== null && (del[d >>> 5]! & (1 << (d & 31))) !== 0) return false;
    if (cb !== null && (cb[d >>> 5]! & (1 << (d & 31))) === 0) return false;
    if (timed) {
      const t = issued[d]!;
      if (!(t >= lo && t <= hi)) return false;
    }
    return true;
  };
  const trivial = !columnChecks && del === null;
  if (candidates !== null && (candidates as Uint32Array).length === 0) none = true;
  let composed: Int32Array | null = null;
  const bits = (): Int32Array | null => {
    if (trivial) return null;
    if (composed !== null) return composed;
    const n = seg.docCount;
    const words = (n + 31) >>> 5;
    // one pass over the words: the range (or all docs), then the columns and the deletions
    let out: Int32Array;
    if (none) out = new Int32Array(words);
    else if (timed) {
      out = issuedRangeBits(seg, lo, hi);
      if (cb !== null && del !== null) for (let w = 0; w < words; w++) out[w]! &= cb[w]! & ~del[w]!;
      else if (cb !== null) for (let w = 0; w < words; w++) out[w]! &= cb[w]!;
      else if (del !== null) for (let w = 0; w < words; w++) out[w]! &= ~del[w]!;
    } else if (cb !== null) {
      out = cb.slice();
      if (del !== null) for (let w = 0; w < words; w++) out[w]! &= ~del[w]!;
    } else {
      out = new Int32Array(words);
      for (let w = 0; w < words; w++) out[w] = ~del![w]!;
    }
    if ((n & 31) !== 0) out[words - 1]! &= (1 << (n & 31)) - 1;
    return (composed = out);
  };
  return { none, candidates, allowed, trivial, columns: columnChecks, bits };
}
