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

/** Docs per bucket of the issued-range index at least (smaller segments get fewer buckets). */
const ISSUED_MIN_STEP = 256;
/** Buckets of the issued-range index at most (its prefix bitsets take BUCKETS / 8 bytes per doc). */
const ISSUED_BUCKETS = 64;

/** A segment's docs with a known issue time sorted by it, and the bitsets of sorted prefixes every `step` docs. */
interface IssuedIndex {
  /** Docs with a known time, ascending by time (then doc). */
  docs: Int32Array;
  step: number;
  /** prefix[j - 1] = bits of docs[0 .. j * step), j = 1 .. floor(docs.length / step). */
  prefix: Int32Array[];
}

const issuedIndexes = new WeakMap<Segment, IssuedIndex>();

function issuedIndex(seg: Segment): IssuedIndex {
  let ix = issuedIndexes.get(seg);
  if (ix !== undefined) return ix;
  const n = seg.docCount;
  const issued = seg.issued;
  let m = 0;
  for (let d = 0; d < n; d++) if (!Number.isNaN(issued[d]!)) m++;
  const docs = new Int32Array(m);
  m = 0;
  for (let d = 0; d < n; d++) if (!Number.isNaN(issued[d]!)) docs[m++] = d;
  docs.sort((a, b) => issued[a]! - issued[b]! || a - b);
  const step = Math.max(ISSUED_MIN_STEP, Math.ceil(m / ISSUED_BUCKETS));
  const words = (n + 31) >>> 5;
  const prefix: Int32Array[] = [];
  let acc = new Int32Array(words);
  for (let j = 1; j * step <= m; j++) {
    acc = acc.slice();
    for (let i = (j - 1) * step; i < j * step; i++) {
      const d = docs[i]!;
      acc[d >>> 5]! |= 1 << (d & 31);
    }
    prefix.push(acc);
  }
  ix = { docs, step, prefix };
  issuedIndexes.set(seg, ix);
  return ix;
}

/** First index of `docs` (ascending by time) whose time is >= x (strict: > x). */
function lowerBound(docs: Int32Array, issued: Float64Array, x: number, strict: boolean): number {
  let lo = 0;
  let hi = docs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const t = issued[docs[mid]!]!;
    if (strict ? t <= x : t < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Docs of `seg` whose issue time t satisfies lo <= t <= hi (unknown times never do), as a bitset: the
 * docs sorted by time are docs[a .. b); the prefix bitsets give docs[sa .. sb) (sa, sb: a and b rounded down
 * to a bucket boundary) with one word operation per 32 docs, then at most one bucket is added and one taken
 * away doc by doc. The index is built on first use per segment (segments are immutable).
 */
export function issuedRangeBits(seg: Segment, lo: number, hi: number): Int32Array {
  const ix = issuedIndex(seg);
  const words = (seg.docCount + 31) >>> 5;
  const out = new Int32Array(words);
  const a = lowerBound(ix.docs, seg.issued, lo, false);
  const b = lowerBound(ix.docs, seg.issued, hi, true);
  if (a >= b) return out;
  const ja = Math.floor(a / ix.step);
  const jb = Math.floor(b / ix.step);
  if (jb > 0) {
    const pb = ix.prefix[jb - 1]!;
    if (ja > 0) {
      const pa = ix.prefix[ja - 1]!;
      for (let w = 0; w < words; w++) out[w] = pb[w]! & ~pa[w]!;
    } else out.set(pb);
  }
  const docs = ix.docs;
  for (let i = jb * ix.step; i < b; i++) {
    const d = docs[i]!;
    out[d >>> 5]! |= 1 << (d & 31);
  }
  for (let i = ja * ix.step; i < a; i++) {
    const d = docs[i]!;
    out[d >>> 5]! &= ~(1 << (d & 31));
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
    const out = timed ? issuedRangeBits(seg, lo, hi) : new Int32Array(words).fill(-1);
    if (cb !== null) for (let w = 0; w < words; w++) out[w]! &= cb[w]!;
    if (del !== null) for (let w = 0; w < words; w++) out[w]! &= ~del[w]!;
    if ((n & 31) !== 0) out[words - 1]! &= (1 << (n & 31)) - 1;
    return (composed = out);
  };
  return { none, candidates, allowed, trivial, columns: columnChecks, bits };
}
