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
  /** True when `allowed` only checks deletions (no column filter). */
  trivial: boolean;
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
  const checks: ((d: number) => boolean)[] = [];
  let none = false;
  let candidates: Uint32Array | null = null;
  const setFilter = (docs: Uint32Array): void => {
    candidates = candidates === null ? docs : intersect(candidates, docs);
  };
  if (f) {
    if (f.types != null) {
      const mask = ordMask(seg.typeDict, new Set(f.types), (s) => s);
      if (!mask.includes(1)) none = true;
      const ord = seg.typeOrd;
      checks.push((d) => mask[ord[d]!] === 1);
    }
    if (f.languages != null) {
      const mask = ordMask(seg.langDict, new Set(f.languages.map(normalizeLanguage)), (s) => s);
      if (!mask.includes(1)) none = true;
      const ord = seg.langOrd;
      checks.push((d) => mask[ord[d]!] === 1);
    }
    if (f.publisher != null) {
      const mask = ordMask(seg.pubDict, new Set([f.publisher.trim().toLowerCase()]), (s) => s);
      if (!mask.includes(1)) none = true;
      const ord = seg.pubOrd;
      checks.push((d) => mask[ord[d]!] === 1);
    }
    const lo = f.issuedAfter ?? -Infinity;
    const hi = f.issuedBefore ?? Infinity;
    if (f.issuedAfter != null || f.issuedBefore != null) {
      if (lo > hi) none = true;
      const issued = seg.issued;
      checks.push((d) => {
        const t = issued[d]!;
        return t >= lo && t <= hi;
      });
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
  if (candidates !== null && (candidates as Uint32Array).length === 0) none = true;
  const del = deleted;
  let allowed: (d: number) => boolean;
  if (checks.length === 0) allowed = del === null ? () => true : (d) => (del[d >>> 5]! & (1 << (d & 31))) === 0;
  else if (checks.length === 1 && del === null) allowed = checks[0]!;
  else {
    allowed = (d) => {
      if (del !== null && (del[d >>> 5]! & (1 << (d & 31))) !== 0) return false;
      for (let i = 0; i < checks.length; i++) if (!checks[i]!(d)) return false;
      return true;
    };
  }
  return { none, candidates, allowed, trivial: checks.length === 0 && del === null };
}
