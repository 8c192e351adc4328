// Query execution over a snapshot of segments. Three strategies, chosen per query:
// - words only, no set filter: windowed block-max MaxScore (maxscore.ts; Turtle & Flood 1995, Ding & Suel
//   2011, Lucene's MaxScoreBulkScorer): per window of doc ids, clauses whose summed block-max bounds cannot
//   reach the current k-th score are non-essential and only probed; essential clauses are scored
//   term-at-a-time into the window; windows and blocks that cannot reach it are skipped undecoded.
// - required phrases and/or a set filter (ids, citing, ISSNs, URI prefixes): a conjunctive driver
//   (leapfrog over the phrase slots, or the candidate list) verifies positions and scores every match
//   (matches are few, so counting is exact).
// - no query terms: filter-only listing, newest first (issuedAt descending, unknown last, then id).
// Scores are summed in clause order whatever the path, so pruned and exhaustive runs agree bit for bit;
// ties are broken by external id (ascending), so rankings and pages are deterministic.
import { popcount32 } from './bit-packing.js';
import { Clause, idf, type ScoringParams } from './bm25f.js';
import { compileFilter, type SegmentFilter } from './filters.js';
import { runWindowedMaxScore } from './maxscore.js';
import { END, PostingCursor, searchArena, type FieldNorms } from './postings-cursor.js';
import type { ParsedQuery } from './query-parser.js';
import { utf8, type Segment } from './segment.js';
import { NF } from './segment-writer.js';
import { denseBitset } from './term-bitsets.js';
import type { EngineFilters } from './types.js';

/** One segment as seen by a search: the segment and its deletions at snapshot time. */
export interface SnapshotSegment {
  seg: Segment;
  /** Deletion bitmap (bit set = deleted), or null when nothing is deleted. */
  deleted: Uint32Array | null;
  deletedCount: number;
}

/** Index-wide statistics used for scoring (identical for every segment of one search). */
export interface GlobalStats {
  /** Live documents. */
  docCount: number;
  /** Average indexed length per field. */
  avgLen: number[];
}

/** A candidate hit inside the engine. */
export interface RawHit {
  score: number;
  si: number;
  doc: number;
  /** Issue time for filter-only ordering (NaN unknown). */
  issued: number;
  id: string;
}

/** Query terms resolved to index statistics. */
export interface PlanClause {
  terms: string[];
  bytes: Uint8Array[];
  df: number;
  idf: number;
  /** idf * clause weight * lexical weight. */
  mult: number;
  weight: number;
}

export interface PlanPhrase {
  slots: { bytes: Uint8Array[]; offset: number }[];
  /** Sum of the slots' idf: the phrase bonus scale. */
  idfSum: number;
}

/** Everything a search needs, resolved once per query. */
export interface SearchPlan {
  clauses: PlanClause[];
  phrases: PlanPhrase[];
  /** A raw query that analysed to nothing (only stopwords): matches nothing. */
  emptyAfterAnalysis: boolean;
  norms: FieldNorms;
  k1: number;
  phraseBoost: number;
  lexicalWeight: number;
  filters: EngineFilters | undefined;
  /** Term ordinal per segment (-1 absent) of every term's UTF-8 bytes, looked up once while planning. */
  termOrdinals: Map<Uint8Array, Int32Array>;
  /** 1 / heapFactor (>= 1): MaxScore prunes against theta x this (1 = exact). */
  thetaScale?: number;
  /**
   * The filter compiled per snapshot segment, kept for the plan's later passes (the ranking pass and the
   * counting pass of exact totals compile it once, and its bitset is composed once: ADR 0190).
   */
  segmentFilters?: ({ ss: SnapshotSegment; filter: SegmentFilter } | undefined)[];
  /** Drive phrases of common words by the segments' pair postings (ADR 0175); false: words only (A/B, tests). */
  pairs: boolean;
  /** Seed word queries' pruning threshold from the segments' champion lists (ADR 0329); false: A/B, tests. */
  champions: boolean;
}

/** Ordinal of term `bytes` in segment `si` of the plan's snapshot (binary search when not planned). */
export function termOrdinal(plan: SearchPlan, bytes: Uint8Array, si: number, seg: Segment): number {
  const a = plan.termOrdinals.get(bytes);
  return a !== undefined && si < a.length ? a[si]! : seg.findTerm(bytes);
}

/** Builds the plan: global dfs and idfs of every clause and phrase slot. */
export function buildPlan(
  segments: readonly SnapshotSegment[],
  stats: GlobalStats,
  parsed: ParsedQuery,
  params: ScoringParams,
  norms: FieldNorms,
  opts: { phraseBoost: number; lexicalWeight: number; filters: EngineFilters | undefined; pairs?: boolean; champions?: boolean; df?: Readonly<Record<string, number>> },
): SearchPlan {
  // global document frequencies (a shard scoring with the corpus's statistics: ADR 0201) or these segments'
  const globalDf = opts.df;
  const dfCache = new Map<string, { df: number; ords: Int32Array }>();
  const termOrdinals = new Map<Uint8Array, Int32Array>();
  const dfOf = (t: string, b: Uint8Array): number => {
    let e = dfCache.get(t);
    if (e === undefined) {
      let df = 0;
      const ords = new Int32Array(segments.length);
      for (let si = 0; si < segments.length; si++) {
        const seg = segments[si]!.seg;
        const o = seg.findTerm(b);
        ords[si] = o;
        if (o >= 0) df += seg.df(o);
      }
      if (globalDf !== undefined) df = Object.hasOwn(globalDf, t) ? globalDf[t]! : 0;
      dfCache.set(t, (e = { df, ords }));
    }
    termOrdinals.set(b, e.ords);
    return e.df;
  };
  const n = Math.max(stats.docCount, 1);
  const clauses: PlanClause[] = [];
  for (const w of parsed.words) {
    const bytes = w.terms.map(utf8);
    let df = 0;
    for (let i = 0; i < bytes.length; i++) df = Math.max(df, dfOf(w.terms[i]!, bytes[i]!));
    const i = idf(n, Math.min(df, n));
    clauses.push({ terms: w.terms, bytes, df, idf: i, weight: w.weight, mult: i * w.weight * opts.lexicalWeight });
  }
  const phrases: PlanPhrase[] = [];
  for (const p of parsed.phrases) {
    let idfSum = 0;
    const slots = p.slots.map((s) => {
      const bytes = s.terms.map(utf8);
      let df = 0;
      for (let i = 0; i < bytes.length; i++) df = Math.max(df, dfOf(s.terms[i]!, bytes[i]!));
      idfSum += idf(n, Math.min(df, n));
      return { bytes, offset: s.offset };
    });
    phrases.push({ slots, idfSum });
  }
  const emptyAfterAnalysis = parsed.words.length === 0 && parsed.phrases.length === 0 && parsed.raw.trim().length > 0;
  return { clauses, phrases, emptyAfterAnalysis, norms, k1: params.k1, phraseBoost: opts.phraseBoost, lexicalWeight: opts.lexicalWeight, filters: opts.filters, termOrdinals, pairs: opts.pairs !== false, champions: opts.champions !== false };
}

/** Bounded top-k keeper; the root is the worst kept hit. */
export class TopK {
  readonly k: number;
  readonly heap: RawHit[] = [];
  readonly #byDate: boolean;
  constructor(k: number, byDate: boolean) {
    this.k = k;
    this.#byDate = byDate;
  }
  /** True if a is ranked below b. */
  worse(a: RawHit, b: RawHit): boolean {
    if (this.#byDate) {
      const x = Number.isNaN(a.issued) ? -Infinity : a.issued;
      const y = Number.isNaN(b.issued) ? -Infinity : b.issued;
      if (x !== y) return x < y;
    } else if (a.score !== b.score) return a.score < b.score;
    return a.id > b.id;
  }
  get full(): boolean {
    return this.heap.length >= this.k;
  }
  /** Score of the worst kept hit when full, else -Infinity. */
  get threshold(): number {
    return this.heap.length >= this.k ? this.heap[0]!.score : -Infinity;
  }
  /** Whether a hit with score up to `bound` could still enter (ties may win on id). */
  canEnter(bound: number): boolean {
    if (this.heap.length < this.k) return true;
    if (this.k === 0) return false;
    const t = this.heap[0]!.score;
    return bound + Math.abs(bound) * 1e-9 + 1e-12 >= t;
  }
  offer(h: RawHit): void {
    const heap = this.heap;
    if (heap.length < this.k) {
      heap.push(h);
      let i = heap.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!this.worse(heap[i]!, heap[p]!)) break;
        [heap[i], heap[p]] = [heap[p]!, heap[i]!];
        i = p;
      }
      return;
    }
    if (this.k === 0 || !this.worse(heap[0]!, h)) return;
    heap[0] = h;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && this.worse(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && this.worse(heap[r]!, heap[m]!)) m = r;
      if (m === i) break;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  }
  /** Kept hits, best first. */
  sorted(): RawHit[] {
    return this.heap.slice().sort((a, b) => (this.worse(a, b) ? 1 : this.worse(b, a) ? -1 : 0));
  }
}

/** Per-segment counters for traces. */
export interface SegmentCounters {
  docs: number;
  scored: number;
  candidates: number;
  /** Blocks (MaxScore) or conjunctive windows (phrases) passed over undecoded. */
  skippedBlocks: number;
  exact: boolean;
  matches: number;
  /** Called with each matching doc of the segment (counting passes that need the docs, e.g. works). */
  visit?: (doc: number) => void;
}

/** Positions of one phrase slot (all alternatives merged) at a doc, per field. */
class SlotGroup {
  readonly cursors: PostingCursor[];
  readonly offset: number;
  doc = -1;
  buf = new Int32Array(64);
  readonly fieldStart = new Int32Array(NF + 1);
  constructor(cursors: PostingCursor[], offset: number) {
    this.cursors = cursors;
    this.offset = offset;
  }
  get df(): number {
    let s = 0;
    for (const c of this.cursors) s += c.df;
    return s;
  }
  advance(target: number): number {
    if (this.cursors.length === 1) return (this.doc = this.cursors[0]!.advance(target));
    let m = END;
    for (const c of this.cursors) {
      const d = c.advance(target);
      if (d < m) m = d;
    }
    return (this.doc = m);
  }
  /** Term frequency of the slot in field f at the current doc (summed over alternatives). */
  fieldTf(f: number): number {
    if (this.cursors.length === 1) return this.cursors[0]!.tf(f);
    let tf = 0;
    for (const c of this.cursors) if (c.doc === this.doc) tf += c.tf(f);
    return tf;
  }
  /** Loads positions of the current doc into buf/fieldStart. */
  load(): void {
    const d = this.doc;
    let total = 0;
    for (const c of this.cursors) if (c.doc === d) total += c.tf(0) + c.tf(1) + c.tf(2);
    if (this.buf.length < total) this.buf = new Int32Array(total * 2);
    if (this.cursors.length === 1) {
      const c = this.cursors[0]!;
      c.positions(this.buf);
      this.fieldStart[0] = 0;
      this.fieldStart[1] = c.tf(0);
      this.fieldStart[2] = c.tf(0) + c.tf(1);
      this.fieldStart[3] = total;
      return;
    }
    // several alternatives: each one's positions go into its fields' ranges of buf, then each range is
    // sorted in place (no per-doc allocation: the scratch arrays are the group's own and grow only)
    const fs = this.fieldStart;
    fs[0] = 0;
    for (let f = 0; f < NF; f++) {
      let n = 0;
      for (const c of this.cursors) if (c.doc === d) n += c.tf(f);
      fs[f + 1] = fs[f]! + n;
    }
    const wr = this.#wr;
    for (let f = 0; f < NF; f++) wr[f] = fs[f]!;
    if (this.#tmp.length < total) this.#tmp = new Int32Array(total * 2);
    const tmp = this.#tmp;
    const buf = this.buf;
    for (const c of this.cursors) {
      if (c.doc !== d) continue;
      c.positions(tmp);
      let k = 0;
      for (let f = 0; f < NF; f++) {
        const n = c.tf(f);
        let w = wr[f]!;
        for (let j = 0; j < n; j++) buf[w++] = tmp[k++]!;
        wr[f] = w;
      }
    }
    for (let f = 0; f < NF; f++) sortRange(buf, fs[f]!, fs[f + 1]!);
  }
  readonly #wr = new Int32Array(NF);
  #tmp = new Int32Array(64);
}

/** Sorts buf[from, to) ascending in place (insertion sort: a slot's positions in one field are few). */
function sortRange(buf: Int32Array, from: number, to: number): void {
  if (to - from > 64) {
    buf.subarray(from, to).sort();
    return;
  }
  for (let i = from + 1; i < to; i++) {
    const x = buf[i]!;
    let j = i - 1;
    while (j >= from && buf[j]! > x) {
      buf[j + 1] = buf[j]!;
      j--;
    }
    buf[j + 1] = x;
  }
}

/** Per-segment phrase matcher: slot groups and scratch space. */
class PhraseMatcher {
  readonly slots: SlotGroup[];
  /**
   * Pair postings of adjacent slots (ADR 0175): extra groups of the conjunctive join that hold exactly the
   * docs where the two slots' words are adjacent, so only those reach verification (which still reads the
   * slots' positions, so counts and scores are the words' own).
   */
  readonly pairs: SlotGroup[];
  readonly idfSum: number;
  readonly offsets: Int32Array;
  readonly tf = new Float64Array(NF);
  constructor(slots: SlotGroup[], pairs: SlotGroup[], idfSum: number) {
    this.slots = slots;
    this.pairs = pairs;
    this.idfSum = idfSum;
    this.offsets = Int32Array.from(slots.map((s) => s.offset));
  }
  readonly #ptr = new Int32Array(16);

  /** Per field, the smallest slot tf at {@link #minDoc} (read once per doc: the bound, the pre-check and the count share it). */
  readonly minTf = new Int32Array(NF);
  #minDoc = -1;
  #possible = 0;

  /** Fields (bit f) where every slot occurs at the slots' current (common) doc: only they can hold the phrase. */
  possibleFields(): number {
    const slots = this.slots;
    const d = slots[0]!.doc;
    if (d === this.#minDoc) return this.#possible;
    const k = slots.length;
    let possible = 0;
    for (let f = 0; f < NF; f++) {
      let min = slots[0]!.fieldTf(f);
      for (let i = 1; i < k && min > 0; i++) {
        const tf = slots[i]!.fieldTf(f);
        if (tf < min) min = tf;
      }
      this.minTf[f] = min;
      if (min > 0) possible |= 1 << f;
    }
    this.#minDoc = d;
    this.#possible = possible;
    return possible;
  }

  /** Counts occurrences per field at the slots' current (common) doc; returns the total. */
  count(onMatch?: (field: number, p: number) => void): number {
    const slots = this.slots;
    // cheap pre-check from term frequencies: a field can hold the phrase only if every slot occurs in it
    const possible = this.possibleFields();
    for (let f = 0; f < NF; f++) this.tf[f] = 0;
    if (possible === 0) return 0;
    for (const s of slots) s.load();
    let total = 0;
    const first = slots[0]!;
    for (let f = 0; f < NF; f++) {
      if ((possible & (1 << f)) === 0) continue;
      let c = 0;
      const e0 = first.fieldStart[f + 1]!;
      for (let a = this.#first(f); a < e0; a = this.#next(f, a + 1)) {
        c++;
        if (onMatch) onMatch(f, first.buf[a]!);
      }
      this.tf[f] = c;
      total += c;
    }
    return total;
  }

  /**
   * Whether the phrase occurs at the slots' current (common) doc: {@link count} for counting passes, which
   * need existence, not frequency. Fields are tried in order (title, abstract, body: shortest first) and
   * the merge stops at the first occurrence.
   */
  exists(): boolean {
    const possible = this.possibleFields();
    if (possible === 0) return false;
    const slots = this.slots;
    for (const s of slots) s.load();
    const first = slots[0]!;
    for (let f = 0; f < NF; f++) {
      if ((possible & (1 << f)) === 0) continue;
      if (this.#first(f) < first.fieldStart[f + 1]!) return true;
    }
    return false;
  }

  /** Starts the merge of field `f` (loaded slots): the first occurrence, as {@link #next} from the field's start. */
  #first(f: number): number {
    const slots = this.slots;
    const ptr = this.#ptr;
    for (let i = 1; i < slots.length; i++) ptr[i] = slots[i]!.fieldStart[f]!;
    return this.#next(f, slots[0]!.fieldStart[f]!);
  }

  /**
   * The merge of field `f` (shared by {@link count} and {@link exists}): the first index `a' >= a` into
   * slots[0].buf where every other slot holds the position plus its offset, or the field's end when there
   * is none. The slots' read pointers only move forward.
   */
  #next(f: number, a: number): number {
    const slots = this.slots;
    const k = slots.length;
    const ptr = this.#ptr;
    const offsets = this.offsets;
    const first = slots[0]!;
    const b0 = first.buf;
    const e0 = first.fieldStart[f + 1]!;
    outer: for (; a < e0; a++) {
      const p = b0[a]!;
      for (let i = 1; i < k; i++) {
        const g = slots[i]!;
        const want = p + offsets[i]!;
        let j = ptr[i]!;
        const e = g.fieldStart[f + 1]!;
        const buf = g.buf;
        while (j < e && buf[j]! < want) j++;
        ptr[i] = j;
        if (j >= e) return e0;
        if (buf[j] !== want) continue outer;
      }
      return a;
    }
    return e0;
  }
}

/** Per-segment execution state shared by the strategies. */
interface SegRun {
  si: number;
  seg: Segment;
  clauses: (Clause | null)[];
  phrases: PhraseMatcher[] | null;
  filter: SegmentFilter;
  contrib: Float64Array;
  /** Per-doc BM25F field factors for the plan's norms (Segment.docNorms). */
  docNorm: Float64Array;
}

function phraseBonus(plan: SearchPlan, seg: Segment, doc: number, pm: PhraseMatcher): number {
  if (plan.phraseBoost === 0) return 0;
  const base = doc * NF;
  const { w, b, invAvg } = plan.norms;
  let tfp = 0;
  for (let f = 0; f < NF; f++) {
    const tf = pm.tf[f]!;
    if (tf > 0) tfp += (w[f]! * tf) / (1 - b[f]! + b[f]! * seg.fieldLen[base + f]! * invAvg[f]!);
  }
  return (plan.phraseBoost * plan.lexicalWeight * pm.idfSum * tfp) / (plan.k1 + tfp);
}

/** Upper bound of a phrase's bonus at doc d from slot term frequencies: a phrase occurs in a field at most as often as its rarest slot. */
function phraseBonusBound(plan: SearchPlan, docNorm: Float64Array, d: number, pm: PhraseMatcher): number {
  if (plan.phraseBoost === 0) return 0;
  pm.possibleFields();
  let tfp = 0;
  for (let f = 0; f < NF; f++) {
    const min = pm.minTf[f]!;
    if (min > 0) tfp += min * docNorm[d * NF + f]!;
  }
  return (plan.phraseBoost * plan.lexicalWeight * pm.idfSum * tfp) / (plan.k1 + tfp);
}

function prepareSegment(plan: SearchPlan, ss: SnapshotSegment, si: number): SegRun | null {
  const seg = ss.seg;
  const filters = (plan.segmentFilters ??= []);
  let kept = filters[si];
  if (kept === undefined || kept.ss !== ss) filters[si] = kept = { ss, filter: compileFilter(seg, plan.filters, ss.deleted) };
  const filter = kept.filter;
  if (filter.none) return null;
  const scale = seg.boundScale(plan.norms);
  const docNorm = seg.docNorms(plan.norms);
  // one cursor per term, shared by the clause that scores it and the phrase slots that verify it: both
  // only move forward to the same docs, so the blocks (and term frequencies) are decoded once
  const byTerm = new Map<number, PostingCursor>();
  const cursorOf = (t: number): PostingCursor => {
    let cur = byTerm.get(t);
    if (cur === undefined) {
      cur = new PostingCursor(seg, t, searchArena);
      cur.boundScale = scale;
      byTerm.set(t, cur);
    }
    return cur;
  };
  const clauses: (Clause | null)[] = plan.clauses.map((c, i) => {
    const cursors: PostingCursor[] = [];
    for (const b of c.bytes) {
      const t = termOrdinal(plan, b, si, seg);
      if (t >= 0) cursors.push(plan.phrases.length > 0 ? cursorOf(t) : new PostingCursor(seg, t, searchArena));
    }
    if (plan.phrases.length === 0) for (const cur of cursors) cur.boundScale = scale;
    return cursors.length ? new Clause(i, cursors, c.mult, plan.k1, plan.norms, docNorm) : null;
  });
  let phrases: PhraseMatcher[] | null = null;
  if (plan.phrases.length > 0) {
    phrases = [];
    for (const p of plan.phrases) {
      const slots: SlotGroup[] = [];
      for (const s of p.slots) {
        const cursors: PostingCursor[] = [];
        for (const b of s.bytes) {
          const t = termOrdinal(plan, b, si, seg);
          if (t >= 0) cursors.push(cursorOf(t));
        }
        if (cursors.length === 0) return null; // a required phrase cannot match here
        slots.push(new SlotGroup(cursors, s.offset));
      }
      const pairs: SlotGroup[] = [];
      const pp = plan.pairs ? seg.pairs : null;
      if (pp !== null) {
        // adjacent slots with one term each in this segment (alternatives absent here cannot match here),
        // both in the segment's common set: the pair's docs are the only ones that can hold the phrase
        for (let i = 0; i + 1 < slots.length; i++) {
          const a = slots[i]!;
          const b = slots[i + 1]!;
          if (b.offset - a.offset !== 1 || a.cursors.length !== 1 || b.cursors.length !== 1) continue;
          const ia = pp.setIndex(a.cursors[0]!.term);
          const ib = ia < 0 ? -1 : pp.setIndex(b.cursors[0]!.term);
          if (ib < 0) continue;
          const pair = pp.find(ia, ib);
          if (pair < 0) return null; // no doc of this segment holds the two words adjacent
          pairs.push(new SlotGroup([new PostingCursor(pp, pair, searchArena)], 0));
        }
      }
      phrases.push(new PhraseMatcher(slots, pairs, p.idfSum));
    }
  }
  return { si, seg, clauses, phrases, filter, contrib: new Float64Array(plan.clauses.length), docNorm };
}

function canonicalSum(contrib: Float64Array): number {
  let s = 0;
  for (let i = 0; i < contrib.length; i++) s += contrib[i]!;
  return s;
}

function runConjunctive(plan: SearchPlan, run: SegRun, heap: TopK, ctr: SegmentCounters, prune: boolean): void {
  const seg = run.seg;
  const { allowed, candidates } = run.filter;
  const phrases = run.phrases ?? [];
  const groups: SlotGroup[] = [];
  for (const p of phrases) groups.push(...p.slots, ...p.pairs);
  groups.sort((a, b) => a.df - b.df);
  const clauses = run.clauses;
  const contrib = run.contrib;
  const docNorm = run.docNorm;
  // how often the score bound rejected a doc lately (halved every 256 tries)
  let tries = 0;
  let rejected = 0;
  const evaluate = (d: number): void => {
    if (!allowed(d)) return;
    ctr.candidates++;
    // Until the top k is full, positions first: most docs holding every slot term do not hold the phrase,
    // and verifying reads the term frequencies the scores need anyway (the cursors are shared). Once it is
    // full, a score bound from term frequencies can come first and skip verifying docs that cannot enter
    // (the count of matches is then a lower bound): it does while it rejects at least half of the docs
    // it is tried on (at 1M the top k fills early with high scores), and is tried on every 16th doc
    // otherwise (where the phrase is the selective part, the bound rejects almost nothing and computing it
    // for every doc holding the words cost more than the verification it saved).
    const boundFirst = prune && phrases.length > 0 && heap.full && (tries < 16 || rejected * 2 >= tries || (ctr.candidates & 15) === 0);
    if (boundFirst && tries >= 256) {
      tries >>= 1;
      rejected >>= 1;
    }
    if (!boundFirst) for (const p of phrases) if (p.count() === 0) return;
    // a phrase whose words share no field cannot match: rejected before any score is computed
    if (boundFirst) for (const p of phrases) if (p.possibleFields() === 0) return;
    for (let i = 0; i < contrib.length; i++) contrib[i] = 0;
    let any = phrases.length > 0;
    for (const c of clauses) {
      if (c === null) continue;
      if (c.advance(d) === d) {
        contrib[c.index] = c.score();
        any = true;
      }
    }
    if (!any) return;
    let total = canonicalSum(contrib);
    if (boundFirst) {
      let bound = total;
      for (const p of phrases) bound += phraseBonusBound(plan, docNorm, d, p);
      tries++;
      if (!heap.canEnter(bound)) {
        rejected++;
        ctr.exact = false;
        return;
      }
      for (const p of phrases) if (p.count() === 0) return;
    }
    for (const p of phrases) total += phraseBonus(plan, seg, d, p);
    ctr.scored++;
    ctr.matches++;
    ctr.visit?.(d);
    if (heap.canEnter(total)) heap.offer({ score: total, si: run.si, doc: d, issued: NaN, id: seg.id(d) });
  };
  if (candidates !== null) {
    for (let i = 0; i < candidates.length; i++) {
      const d = candidates[i]!;
      let ok = true;
      for (const g of groups) if (g.advance(d) !== d) { ok = false; break; }
      if (ok) evaluate(d);
    }
  } else {
    // leapfrog join over the phrase slots, rarest first; once the top k is full, block-max skipping: the
    // window up to the nearest block end of any slot is passed over undecoded when the clauses' and
    // phrases' block bounds over it cannot reach the k-th score
    const skip = prune && phrases.length > 0;
    let windowEnd = -1;
    let d = groups[0]!.advance(0);
    while (d !== END) {
      if (skip && d > windowEnd && heap.full) {
        const end = windowEndAt(groups, d);
        if (end === END) break;
        if (!heap.canEnter(windowBound(plan, clauses, phrases, d, end + 1))) {
          ctr.exact = false;
          ctr.skippedBlocks++;
          d = groups[0]!.advance(end + 1);
          continue;
        }
        windowEnd = end;
      }
      let agreed = true;
      for (let i = 1; i < groups.length; i++) {
        const x = groups[i]!.advance(d);
        if (x !== d) {
          d = groups[0]!.advance(x);
          agreed = false;
          break;
        }
      }
      if (!agreed) continue;
      evaluate(d);
      d = groups[0]!.advance(d + 1);
    }
  }
}

/**
 * Exact count of a query with required phrases (the counting pass of exact totals): the docs holding every
 * slot (leapfrog over the slots, rarest first, or the filter's candidate list) that the filter allows and that
 * hold every phrase. Unlike {@link runConjunctive} with an empty heap it computes no score (with a phrase the
 * words are optional: they cannot add or remove a match) and stops verifying a doc at its first occurrence
 * of each phrase (ADR 0170).
 */
function countPhraseMatches(run: SegRun, ctr: SegmentCounters): void {
  const { allowed, candidates } = run.filter;
  const phrases = run.phrases!;
  const groups: SlotGroup[] = [];
  for (const p of phrases) for (const g of [...p.slots, ...p.pairs]) if (!groups.includes(g)) groups.push(g);
  groups.sort((a, b) => a.df - b.df);
  const visit = ctr.visit;
  let matches = 0;
  const accept = (d: number): void => {
    if (!allowed(d)) return;
    for (const p of phrases) if (!p.exists()) return;
    matches++;
    visit?.(d);
  };
  if (candidates !== null) {
    outer: for (let i = 0; i < candidates.length; i++) {
      const d = candidates[i]!;
      for (const g of groups) if (g.advance(d) !== d) continue outer;
      accept(d);
    }
  } else {
    const lead = groups[0]!;
    let d = lead.advance(0);
    while (d !== END) {
      let agreed = true;
      for (let i = 1; i < groups.length; i++) {
        const x = groups[i]!.advance(d);
        if (x !== d) {
          d = lead.advance(x);
          agreed = false;
          break;
        }
      }
      if (!agreed) continue;
      accept(d);
      d = lead.advance(d + 1);
    }
  }
  ctr.candidates += matches;
  ctr.matches += matches;
}

/** The last doc of the nearest block end at or after `d` over every slot's cursors (END: a slot has no doc >= d). */
function windowEndAt(groups: readonly SlotGroup[], d: number): number {
  let end = END;
  for (const g of groups) {
    let gEnd = -1;
    for (const c of g.cursors) {
      const b = c.shallowBlock(d);
      if (b < 0) continue;
      const last = c.blockLast(b);
      if (gEnd < 0 || last < gEnd) gEnd = last;
    }
    if (gEnd < 0) return END;
    if (gEnd < end) end = gEnd;
  }
  return end;
}

/**
 * Upper bound of any doc's score in [start, end) from block maxima: every clause's window bound plus every
 * phrase's bonus bound (a phrase occurs in a field at most as often as each of its slots, so its pseudo
 * frequency is at most the smallest slot bound).
 */
function windowBound(plan: SearchPlan, clauses: readonly (Clause | null)[], phrases: readonly PhraseMatcher[], start: number, end: number): number {
  let bound = 0;
  for (const c of clauses) if (c !== null) bound += c.windowBound(start, end);
  if (plan.phraseBoost === 0) return bound;
  for (const p of phrases) {
    let min = Infinity;
    for (const g of p.slots) {
      let x = 0;
      for (const c of g.cursors) x += c.windowTfpBound(start, end, plan.norms);
      if (x < min) min = x;
    }
    if (min > 0 && min !== Infinity) bound += (plan.phraseBoost * plan.lexicalWeight * p.idfSum * min) / (plan.k1 + min);
  }
  return bound;
}

function runFilterOnly(run: SegRun, heap: TopK, ctr: SegmentCounters): void {
  const seg = run.seg;
  const { allowed, candidates } = run.filter;
  const issued = seg.issued;
  const visit = (d: number): void => {
    if (!allowed(d)) return;
    ctr.matches++;
    ctr.visit?.(d);
    ctr.candidates++;
    if (heap.k === 0) return; // counting only
    const t = issued[d]!;
    if (heap.full) {
      const root = heap.heap[0]!;
      const rt = Number.isNaN(root.issued) ? -Infinity : root.issued;
      const x = Number.isNaN(t) ? -Infinity : t;
      if (x < rt) return;
    }
    heap.offer({ score: 0, si: run.si, doc: d, issued: t, id: seg.id(d) });
  };
  if (candidates !== null) for (let i = 0; i < candidates.length; i++) visit(candidates[i]!);
  else for (let d = 0; d < seg.docCount; d++) visit(d);
  ctr.exact = true;
}

/** Result of the ranking stage. */
export interface RankOutcome {
  /** Best first, at most k. */
  hits: RawHit[];
  /** Matches counted (exact when `exact`). */
  matches: number;
  exact: boolean;
  /** Lower bound on matches from document frequencies (unfiltered word queries). */
  dfLowerBound: number;
  counters: SegmentCounters[];
  /** The threshold seed from the champion lists (ADR 0329; -Infinity: none). */
  floor: number;
}

/** Ranks the top `k` documents of the snapshot for the plan. */
export function rankDocuments(
  segments: readonly SnapshotSegment[],
  plan: SearchPlan,
  k: number,
  opts: { exhaustive: boolean; now?: () => number; segmentUs?: number[]; visit?: (si: number, doc: number) => void },
): RankOutcome {
  const filterOnly = plan.clauses.length === 0 && plan.phrases.length === 0;
  const heap = new TopK(k, filterOnly);
  const counters: SegmentCounters[] = [];
  let matches = 0;
  let exact = true;
  let dfLowerBound = 0;
  if (plan.emptyAfterAnalysis) return { hits: [], matches: 0, exact: true, dfLowerBound: 0, counters, floor: -Infinity };
  const filtered = plan.filters !== undefined && Object.values(plan.filters).some((v) => v != null);
  // word queries: the segments are prepared first, so the champion lists of every segment seed the
  // threshold before the first window is scored (ADR 0329)
  let runs: (SegRun | null)[] | null = null;
  let floor = -Infinity;
  if (!opts.exhaustive && plan.champions && !filterOnly && plan.phrases.length === 0 && k > 0) {
    runs = segments.map((ss, si) => prepareSegment(plan, ss, si));
    floor = championFloor(runs, plan.clauses.length, k);
  }
  for (let si = 0; si < segments.length; si++) {
    const ss = segments[si]!;
    const t0 = opts.now?.();
    const ctr: SegmentCounters = { docs: ss.seg.docCount, scored: 0, candidates: 0, skippedBlocks: 0, exact: true, matches: 0 };
    // every matching doc the pass scores (all of them when it is exact); phrase queries only: the
    // conjunctive driver calls it per match, the MaxScore path does not
    const visit = opts.visit;
    if (visit !== undefined) ctr.visit = (d) => visit(si, d);
    counters.push(ctr);
    const run = runs !== null ? runs[si]! : prepareSegment(plan, ss, si);
    if (run !== null) {
      if (filterOnly) runFilterOnly(run, heap, ctr);
      else if (run.phrases !== null || run.filter.candidates !== null) runConjunctive(plan, run, heap, ctr, !opts.exhaustive);
      else {
        runWindowedMaxScore(run.si, run.seg, run.clauses, run.contrib, run.filter, run.docNorm, heap, !opts.exhaustive, ctr, plan.thetaScale ?? 1, floor);
        if (!filtered) {
          let maxDf = 0;
          for (const c of run.clauses) if (c) for (const cur of c.cursors) maxDf = Math.max(maxDf, cur.df);
          dfLowerBound += Math.max(0, maxDf - ss.deletedCount);
        }
      }
      for (const c of run.clauses) if (c) for (const cur of c.cursors) ctr.skippedBlocks += cur.skipped;
    }
    matches += ctr.matches;
    if (!ctr.exact) exact = false;
    if (t0 !== undefined && opts.segmentUs) opts.segmentUs.push(opts.now!() - t0);
  }
  return { hits: heap.sorted(), matches, exact, dfLowerBound, counters, floor };
}

// Scratch of championFloor: per segment, doc -> slot in `champVals` (-1: none; reset after each use).
const champSlots = new WeakMap<Segment, Int32Array>();
let champVals = new Float64Array(1024);
let champDocs = new Int32Array(1024);
let champHeap = new Float64Array(16);

/**
 * A lower bound of the k-th best score of a word query (ADR 0329), or -Infinity: every single-term clause's
 * champion list in every segment that MaxScore will run on is scored under the query's own parameters
 * (weights, k1, b, averages, idf: the plan's docNorm and mult, the very expression MaxScore scores with)
 * for the docs the filter and the deletions allow; a doc's sum over the clauses whose lists hold it, taken
 * in clause order, never exceeds its full score (the other clauses add >= 0 and rounding is monotone). So
 * the k-th largest such sum over k distinct docs is <= the k-th best score of the query, and MaxScore may
 * prune against it from the first window on without changing the top k. The lists' selection (the build
 * parameters' best postings) only decides how close the bound is.
 */
export function championFloor(runs: readonly (SegRun | null)[], clauseCount: number, k: number): number {
  let n = 0;
  for (const run of runs) {
    if (run === null || run.phrases !== null || run.filter.candidates !== null) continue;
    const seg = run.seg;
    if (seg.impTerm.length === 0) continue;
    let slots = champSlots.get(seg);
    if (slots === undefined) champSlots.set(seg, (slots = new Int32Array(seg.docCount).fill(-1)));
    const first = n;
    const allowed = run.filter.bits();
    const docNorm = run.docNorm;
    const docs = seg.impDoc;
    const tfs = seg.impTf;
    // clauses in query order, so each doc's sum is taken in the canonical order
    for (let i = 0; i < clauseCount; i++) {
      const c = run.clauses[i];
      if (c === undefined || c === null || c.single === null) continue;
      const li = seg.champions(c.single.term);
      if (li < 0) continue;
      const e = seg.impStart[li + 1]!;
      if (champVals.length < n + (e - seg.impStart[li]!)) {
        const grow = 2 * (n + e - seg.impStart[li]!);
        const v = new Float64Array(grow);
        v.set(champVals.subarray(0, n));
        champVals = v;
        const d = new Int32Array(grow);
        d.set(champDocs.subarray(0, n));
        champDocs = d;
      }
      for (let j = seg.impStart[li]!; j < e; j++) {
        const d = docs[j]!;
        if (allowed !== null && (allowed[d >>> 5]! & (1 << (d & 31))) === 0) continue;
        const b3 = d * NF;
        // PostingCursor.accumulate / tfPrime's expression, then Clause.score()'s
        const x = tfs[3 * j]! * docNorm[b3]! + tfs[3 * j + 1]! * docNorm[b3 + 1]! + tfs[3 * j + 2]! * docNorm[b3 + 2]!;
        const v = (c.mult * x) / (c.k1 + x);
        const s = slots[d]!;
        if (s < 0) {
          slots[d] = n;
          champDocs[n] = d;
          champVals[n++] = v;
        } else champVals[s] = champVals[s]! + v;
      }
    }
    for (let j = first; j < n; j++) slots[champDocs[j]!] = -1;
  }
  if (n < k) return -Infinity;
  // the k-th largest: a min-heap of the k largest (k is small: offset + limit + 1)
  if (champHeap.length < k) champHeap = new Float64Array(k);
  const h = champHeap;
  for (let j = 0; j < k; j++) {
    let i = j;
    const v = champVals[j]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p]! <= v) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = v;
  }
  for (let j = k; j < n; j++) {
    const v = champVals[j]!;
    if (v <= h[0]!) continue;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= k) break;
      const c = l + 1 < k && h[l + 1]! < h[l]! ? l + 1 : l;
      if (h[c]! >= v) break;
      h[i] = h[c]!;
      i = c;
    }
    h[i] = v;
  }
  return h[0]!;
}

/** Counts every match exactly (a full pass over the clauses' postings; used on request). */
export function countMatches(segments: readonly SnapshotSegment[], plan: SearchPlan, visit?: (si: number, doc: number) => void): number {
  let total = 0;
  for (let si = 0; si < segments.length; si++) {
    const run = prepareSegment(plan, segments[si]!, si);
    if (run === null) continue;
    const ctr: SegmentCounters = { docs: 0, scored: 0, candidates: 0, skippedBlocks: 0, exact: true, matches: 0 };
    if (visit) ctr.visit = (d) => visit(si, d);
    if (plan.clauses.length === 0 && plan.phrases.length === 0) runFilterOnly(run, new TopK(0, true), ctr);
    else if (run.phrases !== null) countPhraseMatches(run, ctr);
    else if (run.filter.candidates !== null) runConjunctive(plan, run, new TopK(0, false), ctr, false);
    else ctr.matches = countUnion(run, ctr.visit);
    total += ctr.matches;
  }
  return total;
}

/**
 * Matching works: matching docs that share a work key count once (the total of a collapsed search,
 * ADR 0082). Docs without a key are works of their own.
 */
export function countWorks(segments: readonly SnapshotSegment[], plan: SearchPlan): number {
  const works = workCounter(segments);
  const visit = works.visit;
  // Docs that are works of their own (no key, or a key no other doc of the snapshot has) count one each
  // straight from the union's bitset; only the others go through the work bitset (ADR 0151).
  const solo = soloDocs(segments);
  let alone = 0;
  let visited = 0;
  for (let si = 0; si < segments.length; si++) {
    const run = prepareSegment(plan, segments[si]!, si);
    if (run === null) continue;
    const ctr: SegmentCounters = {
      docs: 0,
      scored: 0,
      candidates: 0,
      skippedBlocks: 0,
      exact: true,
      matches: 0,
      visit: (d) => {
        visited++;
        visit(si, d);
      },
    };
    if (plan.clauses.length === 0 && plan.phrases.length === 0) runFilterOnly(run, new TopK(0, true), ctr);
    else if (run.phrases !== null) countPhraseMatches(run, ctr);
    else if (run.filter.candidates !== null) runConjunctive(plan, run, new TopK(0, false), ctr, false);
    else {
      // every match is either solo (counted here) or visited
      const before = visited;
      alone += countUnion(run, ctr.visit, solo[si]!) - (visited - before);
    }
  }
  return works.total() + alone;
}

/**
 * Counts distinct works over visited matching docs (ADR 0082): docs that share a work key count once, docs
 * without one count one each. Every doc must be visited at most once. {@link countWorks} feeds it from a
 * counting pass; an exhaustive ranking pass can feed it the docs it matches (ADR 0170).
 */
export function workCounter(segments: readonly SnapshotSegment[]): { visit: (si: number, doc: number) => void; total: () => number } {
  // Work keys are compared as process-wide ordinals (interned once per segment and key), so counting
  // distinct works is a bitset over ordinals, not a set of strings (that was 15x the cost of the search).
  const ords = segments.map((ss) => globalWorkOrdinals(ss.seg));
  const words = (workInterner.size + 31) >>> 5;
  if (workBits.length < words) workBits = new Int32Array(Math.max(words, workBits.length * 2));
  const bits = workBits;
  bits.fill(0, 0, words);
  let unkeyed = 0;
  let works = 0;
  const visit = (si: number, d: number) => {
    const local = segments[si]!.seg.workOrdinal(d);
    if (local === 0) {
      unkeyed++;
      return;
    }
    const g = ords[si]![local - 1]!;
    const w = g >>> 5;
    const m = 1 << (g & 31);
    if ((bits[w]! & m) === 0) {
      bits[w] = bits[w]! | m;
      works++;
    }
  };
  return { visit, total: () => unkeyed + works };
}

/**
 * Per segment, the docs that are a work of their own in this snapshot: no work key, or a key that no
 * other doc of any segment has (deleted docs count as holders, so the set is never too large). Segments
 * are immutable, so it is computed once per set of segments (after a commit or a merge) and kept.
 */
let soloCache: { segs: readonly object[]; bits: Int32Array[] } | null = null;
function soloDocs(segments: readonly SnapshotSegment[]): Int32Array[] {
  const c = soloCache;
  if (c !== null && c.segs.length === segments.length && segments.every((ss, i) => ss.seg === c.segs[i])) return c.bits;
  const ords = segments.map((ss) => globalWorkOrdinals(ss.seg));
  const holders = new Int32Array(workInterner.size);
  for (let si = 0; si < segments.length; si++) {
    const { seg } = segments[si]!;
    const o = ords[si]!;
    for (let d = 0; d < seg.docCount; d++) {
      const local = seg.workOrdinal(d);
      if (local !== 0) holders[o[local - 1]!]!++;
    }
  }
  const bits = segments.map(({ seg }, si) => {
    const o = ords[si]!;
    const b = new Int32Array((seg.docCount + 31) >>> 5);
    for (let d = 0; d < seg.docCount; d++) {
      const local = seg.workOrdinal(d);
      if (local === 0 || holders[o[local - 1]!] === 1) b[d >>> 5]! |= 1 << (d & 31);
    }
    return b;
  });
  soloCache = { segs: segments.map((ss) => ss.seg), bits };
  return bits;
}

/** Work key -> process-wide ordinal (grows with the distinct works seen; a few MB per 100k works). */
const workInterner = new Map<string, number>();
/** Per segment: its work dictionary's entries as process-wide ordinals (segments are immutable). */
const segmentWorkOrdinals = new WeakMap<object, Int32Array>();
let workBits = new Int32Array(1024);

function globalWorkOrdinals(seg: SnapshotSegment['seg']): Int32Array {
  let ords = segmentWorkOrdinals.get(seg);
  if (ords === undefined) {
    const n = seg.workDictSize;
    ords = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const key = seg.workDictEntry(i);
      let g = workInterner.get(key);
      if (g === undefined) {
        g = workInterner.size;
        workInterner.set(key, g);
      }
      ords[i] = g;
    }
    segmentWorkOrdinals.set(seg, ords);
  }
  return ords;
}

let unionBits = new Int32Array(1024);

/**
 * Docs of the segment matching any clause and passing the filter: a bitset union of doc ids, ANDed word by
 * word with the filter's bitset (deletions, columns, issued range: ADR 0190), then a popcount.
 * `solo`: the docs counted by popcount alone (works of their own); `visit` sees the others.
 */
function countUnion(run: SegRun, visit?: (doc: number) => void, solo?: Int32Array): number {
  const words = (run.seg.docCount + 31) >>> 5;
  if (unionBits.length < words) unionBits = new Int32Array(words);
  const bits = unionBits;
  // dense terms OR their kept doc-id bitsets (the first one is copied, sparing the clear); the others
  // decode their postings into the union (ADR 0165)
  let filled = false;
  let sparse: PostingCursor[] | null = null;
  for (const c of run.clauses) {
    if (c === null) continue;
    for (const cur of c.cursors) {
      const tb = denseBitset(cur);
      if (tb === null) (sparse ??= []).push(cur);
      else if (!filled) {
        bits.set(tb);
        filled = true;
      } else for (let w = 0; w < words; w++) bits[w]! |= tb[w]!;
    }
  }
  if (!filled) bits.fill(0, 0, words);
  if (sparse !== null) for (const cur of sparse) cur.markAll(bits);
  const allowed = run.filter.bits();
  let n = 0;
  for (let w = 0; w < words; w++) {
    let x = bits[w]!;
    if (allowed !== null) x &= allowed[w]!;
    if (x === 0) continue;
    if (solo !== undefined) {
      const s = x & solo[w]!;
      n += popcount32(s);
      x &= ~s;
    }
    if (!visit) n += popcount32(x);
    else {
      while (x !== 0) {
        const t = 31 - Math.clz32(x & -x);
        x &= x - 1;
        n++;
        visit((w << 5) | t);
      }
    }
  }
  return n;
}

/** Helper for callers: the per-segment index of a raw hit's segment. */
export function segmentOf(segments: readonly SnapshotSegment[], h: RawHit): Segment {
  return segments[h.si]!.seg;
}
