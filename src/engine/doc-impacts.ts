// Learned sparse document vectors of a segment (ADR 0109): for an external SPLADE-style model, each
// document's weights over the model's vocabulary (token id -> weight), held as an impact index: per
// token, the documents with a weight for it and those weights (ascending document numbers), plus each
// token's largest weight (for pruning). Stored beside the segment as `seg-N.lsg.imp-<model>`, named by
// the manifest, attached by the host like external dense vectors (doc-vectors.ts), carried by merges.
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

/** A sparse vector over a model's vocabulary: token ids with weights (any order, ids unique). */
export interface SparseRow {
  ids: Uint32Array;
  weights: Float32Array;
}

export class SegmentImpacts {
  constructor(
    readonly modelId: string,
    readonly docs: number,
    /** Token ids with postings, ascending. */
    readonly tokens: Uint32Array,
    /** Postings of tokens[i]: postDocs/postWeights[starts[i] .. starts[i+1]). */
    readonly starts: Uint32Array,
    readonly postDocs: Uint32Array,
    readonly postWeights: Float32Array,
    /** Largest weight of each token. */
    readonly maxWeights: Float32Array,
    /** 1 when the document has a sparse vector. */
    readonly present: Uint8Array,
  ) {}

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
    return new SegmentImpacts(modelId, rows.length, tokens, starts, postDocs, postWeights, maxOf(tokens, starts, postWeights), present);
  }

  /** The impacts of a merged segment: each input's postings through its doc map (-1: dropped). */
  static merged(modelId: string, docs: number, inputs: readonly SegmentImpacts[], docMaps: readonly Int32Array[]): SegmentImpacts {
    const rows: (SparseRow | null)[] = new Array(docs).fill(null);
    const acc: { ids: number[]; w: number[] }[] = [];
    inputs.forEach((imp, s) => {
      const map = docMaps[s]!;
      for (let d = 0; d < map.length; d++) if (map[d]! >= 0 && imp.present[d] === 1) acc[map[d]!] = { ids: [], w: [] };
      for (let i = 0; i < imp.tokens.length; i++) {
        for (let p = imp.starts[i]!; p < imp.starts[i + 1]!; p++) {
          const nd = map[imp.postDocs[p]!]!;
          if (nd < 0) continue;
          acc[nd]!.ids.push(imp.tokens[i]!);
          acc[nd]!.w.push(imp.postWeights[p]!);
        }
      }
    });
    acc.forEach((a, d) => {
      if (a) rows[d] = { ids: Uint32Array.from(a.ids), weights: Float32Array.from(a.w) };
    });
    return SegmentImpacts.fromRows(modelId, rows);
  }

  /** The weight of token `t` in document `d` (0 when none). */
  weight(d: number, t: number): number {
    const i = lowerBound(this.tokens, t);
    if (i >= this.tokens.length || this.tokens[i] !== t) return 0;
    const p = lowerBound(this.postDocs, d, this.starts[i]!, this.starts[i + 1]!);
    return p < this.starts[i + 1]! && this.postDocs[p] === d ? this.postWeights[p]! : 0;
  }

  serialize(): Uint8Array {
    const n = this.tokens.length;
    const total = this.postDocs.length;
    const size = HEADER + 4 * n + 4 * (n + 1) + 4 * total + 4 * total + ((this.docs + 3) & ~3);
    const out = new Uint8Array(size);
    const dv = new DataView(out.buffer);
    dv.setUint32(0, MAGIC, true);
    dv.setUint32(4, 1, true);
    dv.setUint32(8, this.docs, true);
    dv.setUint32(12, n, true);
    dv.setUint32(80, total, true);
    out.set(new TextEncoder().encode(this.modelId.slice(0, 64)), 16);
    let o = HEADER;
    for (const a of [this.tokens, this.starts, this.postDocs, this.postWeights]) {
      out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), o);
      o += a.byteLength;
    }
    out.set(this.present, o);
    return out;
  }

  static parse(bytes: Uint8Array): SegmentImpacts {
    const b = (bytes.byteOffset & 3) === 0 ? bytes : bytes.slice();
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    if (b.byteLength < HEADER || dv.getUint32(0, true) !== MAGIC || dv.getUint32(4, true) !== 1) throw new Error('not a Lectern impact file');
    const docs = dv.getUint32(8, true);
    const n = dv.getUint32(12, true);
    const total = dv.getUint32(80, true);
    const modelId = new TextDecoder().decode(b.subarray(16, 80)).replace(/\0+$/, '');
    if (b.byteLength < HEADER + 4 * n + 4 * (n + 1) + 8 * total + docs) throw new Error('impact file is truncated');
    let o = b.byteOffset + HEADER;
    const tokens = new Uint32Array(b.buffer, o, n);
    o += 4 * n;
    const starts = new Uint32Array(b.buffer, o, n + 1);
    o += 4 * (n + 1);
    const postDocs = new Uint32Array(b.buffer, o, total);
    o += 4 * total;
    const postWeights = new Float32Array(b.buffer, o, total);
    o += 4 * total;
    const present = new Uint8Array(b.buffer, o, docs);
    return new SegmentImpacts(modelId, docs, tokens, starts, postDocs, postWeights, maxOf(tokens, starts, postWeights), present);
  }
}

function maxOf(tokens: Uint32Array, starts: Uint32Array, w: Float32Array): Float32Array {
  const m = new Float32Array(tokens.length);
  for (let i = 0; i < tokens.length; i++) for (let p = starts[i]!; p < starts[i + 1]!; p++) if (w[p]! > m[i]!) m[i] = w[p]!;
  return m;
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
    // query tokens present here, by their largest contribution
    const terms: { i: number; w: number; bound: number }[] = [];
    for (let j = 0; j < query.ids.length; j++) {
      const w = query.weights[j]!;
      if (!(w > 0)) continue;
      const i = lowerBound(imp.tokens, query.ids[j]!);
      if (i < imp.tokens.length && imp.tokens[i] === query.ids[j]) terms.push({ i, w, bound: w * imp.maxWeights[i]! });
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
          if (acc[d]! > 0) acc[d]! += t.w * imp.postWeights[p]!;
        }
        continue;
      }
      read++;
      left -= t.bound;
      for (let p: number = imp.starts[t.i]!; p < imp.starts[t.i + 1]!; p++) {
        const d = imp.postDocs[p]!;
        if (acc[d] === 0) touched[nt++] = d;
        acc[d]! += t.w * imp.postWeights[p]!;
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
