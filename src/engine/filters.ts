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
}

const MAX_CACHED_FILTERS = 16;

/**
 * The type / language / publisher predicate as a bitset over the segment's docs, cached on the (immutable)
 * segment by the filter values: hosts repeat the same few values, and one bit test per posting is cheaper
 * than three ordinal lookups. The issued-time range varies per query and is checked per doc.
 */
function columnBitset(seg: Segment, key: string, pass: (d: number) => boolean): Int32Array {
  const cache = seg.filterBits;
  let bits = cache.get(key);
  if (bits !== undefined) return bits;
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
    const key = JSON.stringify([f?.types ?? null, f?.languages ?? null, f?.publisher ?? null]);
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
  return { none, candidates, allowed, trivial, columns: columnChecks };
}
