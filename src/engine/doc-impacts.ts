// Learned sparse document vectors of a segment (ADR 0109): for an external SPLADE-style model, each
// document's weights over the model's vocabulary (token id -> weight), held as an impact index: per
// token, the documents with a weight for it and those weights (ascending document numbers), plus each
// token's largest weight (for pruning). Stored beside the segment as `seg-N.lsg.imp-<model>`, named by
// the manifest, attached by the host like external dense vectors (doc-vectors.ts), carried by merges.
//
// Quantized impacts (ADR 0145, format version 2): a weight is held as an 8-bit integer q in 1..255 times
// its token's step, a power of two: step(t) = 2^e(t), the smallest with max w(t) / step(t) <= 255.
// q = round(w / step), at least 1 (a stored posting never scores 0). Error per posting <= step(t) <
// 2 max w(t) / 255, so a document's score is off the float dot product by at most sum_t w_q(t) step(t).
// Steps being powers of two, a merge (whose token maxima can only grow) re-quantizes onto a coarser grid
// that contains the finer one: the bound above holds after any number of merges, errors do not add up.
// 5 bytes per posting (document number + impact) instead of 8. Version 1 files (float weights) still
// open: they are quantized as they are read, so they score exactly as version 2; a merge rewrites them.
//
// Search is term-at-a-time: score(d) = sum over query tokens t of w_q(t) x w_d(t) (the SPLADE dot
// product), accumulated per segment; query tokens in descending order of their largest possible
// contribution. `heapFactor` < 1 stops admitting new documents once the contributions left cannot lift a
// document from 0 to theta / heapFactor (theta: the k-th best accumulated score); 1 is exact.
import { compileFilter, type SegmentFilter } from './filters.js';
import type { RawHit, SnapshotSegment } from './searcher.js';
import { TopK } from './searcher.js';
import type { EngineFilters } from './types.js';

const MAGIC = 0x504d494c; // 'LIMP'
const HEADER = 96;
/** Format version written; version 1 (float32 weights) is still read. */
export const IMPACT_FORMAT_VERSION = 2;
/** Largest quantized impact. */
export const IMPACT_LEVELS = 255;
const MIN_EXP = -126;
const MAX_EXP = 127;

/** A sparse vector over a model's vocabulary: token ids with weights (any order, ids unique). */
export interface SparseRow {
  ids: Uint32Array;
  weights: Float32Array;
}

/** The exponent of the step for a token whose largest weight is `max` (> 0): smallest e with max / 2^e <= 255. */
export function impactExponent(max: number): number {
  let e = Math.ceil(Math.log2(max / IMPACT_LEVELS));
  while (e < MAX_EXP && max / 2 ** e > IMPACT_LEVELS) e++;
  while (e > MIN_EXP && max / 2 ** (e - 1) <= IMPACT_LEVELS) e--;
  return Math.max(MIN_EXP, Math.min(MAX_EXP, e));
}

export class SegmentImpacts {
  /** Step of each token's impacts (2^exps[i]). */
  readonly steps: Float64Array;
  /** Largest (dequantized) weight of each token. */
  readonly maxWeights: Float32Array;

  constructor(
    readonly modelId: string,
    readonly docs: number,
    /** Token ids with postings, ascending. */
    readonly tokens: Uint32Array,
    /** Postings of tokens[i]: postDocs/postImpacts[starts[i] .. starts[i+1]). */
    readonly starts: Uint32Array,
    readonly postDocs: Uint32Array,
    /** Quantized weights, 1..255: weight = postImpacts[p] x 2^exps[token]. */
    readonly postImpacts: Uint8Array,
    /** Step exponent of each token. */
    readonly exps: Int8Array,
    /** 1 when the document has a sparse vector. */
    readonly present: Uint8Array,
  ) {
    this.steps = new Float64Array(tokens.length);
    this.maxWeights = new Float32Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) {
      const step = 2 ** exps[i]!;
      this.steps[i] = step;
      let m = 0;
      for (let p = starts[i]!; p < starts[i + 1]!; p++) if (postImpacts[p]! > m) m = postImpacts[p]!;
      this.maxWeights[i] = m * step;
    }
  }

  /** The impact index of one vector per document number (null: none). Weights <= 0 are dropped. */
  static fromRows(modelId: string, rows: readonly (SparseRow | null)[]): SegmentImpacts {
    const present = new Uint8Array(rows.length);
    const count = new Map<number, number>();
    rows.forEach((r, d) => {
      if (r === null) return;
      present[d] = 1;
      for (let i = 0; i < r.ids.length; i++) if (r.weights[i]! > 0) count.set(r.ids[i]!, (count.get(r.ids[i]!) ?? 0) + 1);
    });
    const tokens = Uint32Array.from([...count.keys()].sort((a, b) => a - b));
    const starts = new Uint32Array(tokens.length + 1);
    const slot = new Map<number, number>();
    tokens.forEach((t, i) => {
      starts[i + 1] = starts[i]! + count.get(t)!;
      slot.set(t, starts[i]!);
    });
    const total = starts[tokens.length]!;
    const postDocs = new Uint32Array(total);
    const postWeights = new Float32Array(total);
    rows.forEach((r, d) => {
      if (r === null) return;
      for (let i = 0; i < r.ids.length; i++) {
        const w = r.weights[i]!;
        if (!(w > 0)) continue;
        const at = slot.get(r.ids[i]!)!;
        postDocs[at] = d;
        postWeights[at] = w;
        slot.set(r.ids[i]!, at + 1);
      }
    });
    return quantized(modelId, rows.length, tokens, starts, postDocs, postWeights, present);
  }

  /** The impacts of a merged segment: each input's postings through its doc map (-1: dropped). */
  static merged(modelId: string, docs: number, inputs: readonly SegmentImpacts[], docMaps: readonly Int32Array[]): SegmentImpacts {
    const rows: (SparseRow | null)[] = new Array(docs).fill(null);
    const acc: { ids: number[]; w: number[] }[] = [];
    inputs.forEach((imp, s) => {
      const map = docMaps[s]!;
      for (let d = 0; d < map.length; d++) if (map[d]! >= 0 && imp.present[d] === 1) acc[map[d]!] = { ids: [], w: [] };
      for (let i = 0; i < imp.tokens.length; i++) {
        const step = imp.steps[i]!;
        for (let p = imp.starts[i]!; p < imp.starts[i + 1]!; p++) {
          const nd = map[imp.postDocs[p]!]!;
          if (nd < 0) continue;
          acc[nd]!.ids.push(imp.tokens[i]!);
          acc[nd]!.w.push(imp.postImpacts[p]! * step);
        }
      }
    });
    acc.forEach((a, d) => {
      if (a) rows[d] = { ids: Uint32Array.from(a.ids), weights: Float32Array.from(a.w) };
    });
    return SegmentImpacts.fromRows(modelId, rows);
  }

  /** The (dequantized) weight of token `t` in document `d` (0 when none). */
  weight(d: number, t: number): number {
    const i = lowerBound(this.tokens, t);
    if (i >= this.tokens.length || this.tokens[i] !== t) return 0;
    const p = lowerBound(this.postDocs, d, this.starts[i]!, this.starts[i + 1]!);
    return p < this.starts[i + 1]! && this.postDocs[p] === d ? this.postImpacts[p]! * this.steps[i]! : 0;
  }

  /** Largest difference from the float dot product that quantization allows for `query`: sum_t w_q(t) step(t). */
  errorBound(query: SparseRow): number {
    let b = 0;
    for (let j = 0; j < query.ids.length; j++) {
      const w = query.weights[j]!;
      if (!(w > 0)) continue;
      const i = lowerBound(this.tokens, query.ids[j]!);
      if (i < this.tokens.length && this.tokens[i] === query.ids[j]) b += w * this.steps[i]!;
    }
    return b;
  }

  // Version 2: header (magic, version, docs, tokens, model id at 16..80, postings at 80), then tokens
  // u32[n], starts u32[n+1], postDocs u32[total], exps i8[n] (padded to 4), impacts u8[total] (padded
  // to 4), present u8[docs].
  serialize(): Uint8Array {
    const n = this.tokens.length;
    const total = this.postDocs.length;
    const size = HEADER + 4 * n + 4 * (n + 1) + 4 * total + pad4(n) + pad4(total) + pad4(this.docs);
    const out = new Uint8Array(size);
    const dv = new DataView(out.buffer);
    dv.setUint32(0, MAGIC, true);
    dv.setUint32(4, IMPACT_FORMAT_VERSION, true);
    dv.setUint32(8, this.docs, true);
    dv.setUint32(12, n, true);
    dv.setUint32(80, total, true);
    out.set(new TextEncoder().encode(this.modelId.slice(0, 64)), 16);
    let o = HEADER;
    for (const a of [this.tokens, this.starts, this.postDocs, this.exps, this.postImpacts]) {
      out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), o);
      o += pad4(a.byteLength);
    }
    out.set(this.present, o);
    return out;
  }

  /** Reads version 2, and version 1 (float weights, quantized here as they are read). */
  static parse(bytes: Uint8Array): SegmentImpacts {
    const b = (bytes.byteOffset & 3) === 0 ? bytes : bytes.slice();
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const version = b.byteLength >= HEADER ? dv.getUint32(4, true) : 0;
    if (b.byteLength < HEADER || dv.getUint32(0, true) !== MAGIC || (version !== 1 && version !== 2)) throw new Error('not a Lectern impact file');
    const docs = dv.getUint32(8, true);
    const n = dv.getUint32(12, true);
    const total = dv.getUint32(80, true);
    const modelId = new TextDecoder().decode(b.subarray(16, 80)).replace(/\0+$/, '');
    const need = version === 1 ? HEADER + 4 * n + 4 * (n + 1) + 8 * total + docs : HEADER + 4 * n + 4 * (n + 1) + 4 * total + pad4(n) + pad4(total) + docs;
    if (b.byteLength < need) throw new Error('impact file is truncated');
    let o = b.byteOffset + HEADER;
    const tokens = new Uint32Array(b.buffer, o, n);
    o += 4 * n;
    const starts = new Uint32Array(b.buffer, o, n + 1);
    o += 4 * (n + 1);
    const postDocs = new Uint32Array(b.buffer, o, total);
    o += 4 * total;
    if (version === 1) {
      const postWeights = new Float32Array(b.buffer, o, total);
      o += 4 * total;
      const present = new Uint8Array(b.buffer, o, docs);
      return quantized(modelId, docs, tokens, starts, postDocs, postWeights, present);
    }
    const exps = new Int8Array(b.buffer, o, n);
    o += pad4(n);
    const postImpacts = new Uint8Array(b.buffer, o, total);
    o += pad4(total);
    const present = new Uint8Array(b.buffer, o, docs);
    return new SegmentImpacts(modelId, docs, tokens, starts, postDocs, postImpacts, exps, present);
  }
}

const pad4 = (n: number) => (n + 3) & ~3;

/** Quantizes float postings per token (see the top of this file). */
function quantized(modelId: string, docs: number, tokens: Uint32Array, starts: Uint32Array, postDocs: Uint32Array, w: Float32Array, present: Uint8Array): SegmentImpacts {
  const exps = new Int8Array(tokens.length);
  const q = new Uint8Array(w.length);
  for (let i = 0; i < tokens.length; i++) {
    let max = 0;
    for (let p = starts[i]!; p < starts[i + 1]!; p++) if (w[p]! > max) max = w[p]!;
    const e = max > 0 ? impactExponent(max) : 0;
    exps[i] = e;
    const inv = 2 ** -e;
    for (let p = starts[i]!; p < starts[i + 1]!; p++) q[p] = Math.max(1, Math.min(IMPACT_LEVELS, Math.round(w[p]! * inv)));
  }
  return new SegmentImpacts(modelId, docs, tokens, starts, postDocs, q, exps, present);
}

function lowerBound(a: Uint32Array, x: number, lo = 0, hi = a.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A snapshot segment with its impacts (null: none under the current sparse model). */
export interface ImpactSegment extends SnapshotSegment {
  impacts: SegmentImpacts | null;
}

export interface ImpactSearchOutcome {
  hits: RawHit[];
  /** Documents that received a score. */
  scored: number;
  /** Segments without impacts under the current model. */
  missingSegments: number;
  /** Query tokens whose postings were read / left out by heap_factor pruning. */
  tokensRead: number;
  tokensPruned: number;
}

let accScratch = new Float32Array(0);
let touchScratch = new Uint32Array(0);

/** The top `k` documents by SPLADE dot product with the query's sparse vector. */
export function searchImpacts(segments: readonly ImpactSegment[], query: SparseRow, opts: { k: number; filters?: EngineFilters | undefined; heapFactor?: number }): ImpactSearchOutcome {
  const heap = new TopK(opts.k, false);
  const hf = opts.heapFactor !== undefined && opts.heapFactor > 0 && opts.heapFactor < 1 ? opts.heapFactor : 1;
  let missing = 0;
  let scored = 0;
  let read = 0;
  let pruned = 0;
  segments.forEach((ss, si) => {
    const imp = ss.impacts;
    if (imp === null) {
      missing++;
      return;
    }
    const f: SegmentFilter = compileFilter(ss.seg, opts.filters, ss.deleted);
    if (f.none) return;
    // query tokens present here, by their largest contribution; w: the query weight times the token's step
    const terms: { i: number; w: number; bound: number }[] = [];
    for (let j = 0; j < query.ids.length; j++) {
      const w = query.weights[j]!;
      if (!(w > 0)) continue;
      const i = lowerBound(imp.tokens, query.ids[j]!);
      if (i < imp.tokens.length && imp.tokens[i] === query.ids[j]) terms.push({ i, w: w * imp.steps[i]!, bound: w * imp.maxWeights[i]! });
    }
    terms.sort((a, b) => b.bound - a.bound || a.i - b.i);
    let left = terms.reduce((s, t) => s + t.bound, 0);
    if (accScratch.length < imp.docs) {
      accScratch = new Float32Array(Math.max(imp.docs, accScratch.length * 2));
      touchScratch = new Uint32Array(accScratch.length);
    }
    const acc = accScratch;
    const touched = touchScratch;
    let nt = 0;
    const local = new TopK(opts.k, false);
    for (const t of terms) {
      // theta over the documents scored so far (their partial scores are lower bounds)
      const admit = !(hf < 1 && local.full && left < local.threshold / hf);
      if (!admit) {
        pruned++;
        left -= t.bound;
        // continue mode: existing candidates still gain from this token
        for (let p: number = imp.starts[t.i]!; p < imp.starts[t.i + 1]!; p++) {
          const d = imp.postDocs[p]!;
          if (acc[d]! > 0) acc[d]! += t.w * imp.postImpacts[p]!;
        }
        continue;
      }
      read++;
      left -= t.bound;
      for (let p: number = imp.starts[t.i]!; p < imp.starts[t.i + 1]!; p++) {
        const d = imp.postDocs[p]!;
        if (acc[d] === 0) touched[nt++] = d;
        acc[d]! += t.w * imp.postImpacts[p]!;
      }
      if (hf < 1) {
        // refresh theta cheaply from the touched documents (bounded: only when pruning is on)
        local.heap.length = 0;
        for (let x = 0; x < nt; x++) {
          const d = touched[x]!;
          if (local.canEnter(acc[d]!)) local.offer({ score: acc[d]!, si, doc: d, issued: NaN, id: '' });
        }
      }
    }
    // a set filter (ids, citing, ...) lists its documents: only those may be returned
    let inSet: Uint8Array | null = null;
    if (f.candidates !== null) {
      inSet = new Uint8Array(imp.docs);
      for (const d of f.candidates) if (d < imp.docs) inSet[d] = 1;
    }
    for (let x = 0; x < nt; x++) {
      const d = touched[x]!;
      const s = acc[d]!;
      acc[d] = 0;
      if (!(s > 0) || (inSet !== null && inSet[d] === 0) || !f.allowed(d)) continue;
      scored++;
      if (heap.canEnter(s)) heap.offer({ score: s, si, doc: d, issued: NaN, id: ss.seg.id(d) });
    }
  });
  return { hits: heap.sorted(), scored, missingSegments: missing, tokensRead: read, tokensPruned: pruned };
}
