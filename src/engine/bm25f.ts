// BM25F scoring (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009,
// section 3.6, the "simple BM25F" form): per-field term frequencies are length-normalised per field,
// weighted, summed into one pseudo frequency tf', then saturated once:
//   tf'(d)  = sum_f w_f * tf_f(d) / (1 - b_f + b_f * len_f(d) / avglen_f)
//   score   = idf * weight * tf' / (k1 + tf')        idf = ln(1 + (N - df + 0.5) / (df + 0.5))
// A clause with several alternative terms (one word stemmed for several languages) sums their tf' and
// takes the largest df (a synonym clause). Clauses expose score upper bounds per block for pruning.
import { END, PostingCursor, type FieldNorms } from './postings-cursor.js';
import { NF } from './segment-writer.js';
import type { FieldWeights } from './types.js';

/** Scoring parameters of an index (set at open; field weights can be overridden per query). */
export interface ScoringParams {
  /** Term-frequency saturation, > 0, default 1.2. */
  k1: number;
  /** Length normalisation per field (title, abstract, body), 0..1. */
  b: [number, number, number];
  /** Default BM25F field weights (title, abstract, body), >= 0. */
  weights: [number, number, number];
}

/** Defaults chosen on SciFact/Cranfield by principled sweeps (see docs/engine.md, "Quality"). */
export const DEFAULT_SCORING: ScoringParams = { k1: 1.2, b: [0.5, 0.75, 0.75], weights: [2, 1, 1] };

/** Default field weights as a {@link FieldWeights} object. */
export const DEFAULT_FIELD_WEIGHTS: Required<FieldWeights> = { title: 2, abstract: 1, body: 1 };

/** BM25 idf (always > 0). */
export function idf(docCount: number, df: number): number {
  return Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
}

/** Field norms for a query over the given index-wide average lengths. */
export function makeNorms(params: ScoringParams, weights: FieldWeights | undefined, avgLen: readonly number[]): FieldNorms {
  const w = new Float64Array(NF);
  const b = new Float64Array(NF);
  const invAvg = new Float64Array(NF);
  const over = [weights?.title, weights?.abstract, weights?.body];
  for (let f = 0; f < NF; f++) {
    const o = over[f];
    w[f] = typeof o === 'number' && Number.isFinite(o) && o >= 0 ? o : params.weights[f]!;
    b[f] = params.b[f]!;
    invAvg[f] = avgLen[f]! > 0 ? 1 / avgLen[f]! : 0;
  }
  return { w, b, invAvg };
}

/** A scored clause over one segment: one or more alternative term cursors. */
export class Clause {
  readonly cursors: PostingCursor[];
  /** The only cursor when the clause has one alternative (fast path), else null. */
  readonly single: PostingCursor | null;
  /** idf * clause weight * lexical weight. */
  readonly mult: number;
  readonly k1: number;
  readonly norms: FieldNorms;
  readonly docNorm: Float64Array;
  /** Upper bound of this clause's score in this segment. */
  readonly ub: number;
  /** Position of the clause in the query (canonical summation order). */
  readonly index: number;
  doc = -1;

  constructor(index: number, cursors: PostingCursor[], mult: number, k1: number, norms: FieldNorms, docNorm: Float64Array) {
    this.index = index;
    this.cursors = cursors;
    this.single = cursors.length === 1 ? cursors[0]! : null;
    this.mult = mult;
    this.k1 = k1;
    this.norms = norms;
    this.docNorm = docNorm;
    let tfp = 0;
    for (const c of cursors) tfp += c.tfUpperBound(-1, norms);
    this.ub = (mult * tfp) / (k1 + tfp);
  }

  nextDoc(): number {
    const one = this.single;
    if (one !== null) return (this.doc = one.nextDoc());
    const d = this.doc;
    let m = END;
    for (const c of this.cursors) {
      if (c.doc === d || c.doc < 0) c.nextDoc();
      if (c.doc < m) m = c.doc;
    }
    return (this.doc = m);
  }

  advance(target: number): number {
    const one = this.single;
    if (one !== null) return (this.doc = one.advance(target));
    let m = END;
    for (const c of this.cursors) {
      const x = c.advance(target);
      if (x < m) m = x;
    }
    return (this.doc = m);
  }

  /** Pseudo frequency tf' at the current doc. */
  tfPrime(): number {
    const one = this.single;
    if (one !== null) return one.tfPrime(this.docNorm);
    let tfp = 0;
    for (const c of this.cursors) if (c.doc === this.doc) tfp += c.tfPrime(this.docNorm);
    return tfp;
  }

  /** Score at the current doc. */
  score(): number {
    const tfp = this.tfPrime();
    return (this.mult * tfp) / (this.k1 + tfp);
  }

  /** Upper bound of the clause score over docs [start, end) from block maxima (no decoding). */
  windowBound(start: number, end: number): number {
    let tfp = 0;
    for (const c of this.cursors) tfp += c.windowTfpBound(start, end, this.norms);
    return (this.mult * tfp) / (this.k1 + tfp);
  }

  /** Re-reads the clause's current doc from its cursors (after they were moved directly). */
  sync(): number {
    const one = this.single;
    if (one !== null) return (this.doc = one.doc);
    let m = END;
    for (const c of this.cursors) if (c.doc < m) m = c.doc;
    return (this.doc = m);
  }

  /** Per-field tf at the current doc (summed over alternatives at this doc). */
  fieldTf(f: number): number {
    let tf = 0;
    for (const c of this.cursors) if (c.doc === this.doc) tf += c.tf(f);
    return tf;
  }
}
