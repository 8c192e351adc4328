// Dense document vectors of a segment (ADR 0101): one unit Float32 vector per document, the embedding
// of its title and abstract terms under a corpus model (corpus-model.ts), plus its sign-quantized binary
// code (one bit per dimension, 32 per Uint32 word). Computed from the segment's own postings (title tf
// x TITLE_TOKEN_WEIGHT + abstract tf per term, the same bag the model was trained on), so a flush, a
// merge or a new model needs no stored text. Stored beside the segment as `seg-N.lsg.vec-<model>` and
// named by the manifest, so it is committed, merged and crash-safe like the segment itself.
//
// Search: `exact` scans every live, filtered document with Float32 dot products; `binary` ranks by
// Hamming distance between sign codes (popcount over Uint32 words) and rescores the best candidates
// with the float vectors.
import { nearestRow, TITLE_TOKEN_WEIGHT, type CorpusModel } from './corpus-model.js';

/** IVF lists probed per query by default (recall@10 against exact search: bench/results/vectors-100k.json). */
export const DEFAULT_NPROBE = 24;
import { compileFilter } from './filters.js';
import { END, PostingCursor } from './postings-cursor.js';
import type { RawHit, SnapshotSegment } from './searcher.js';
import { TopK } from './searcher.js';
import type { Segment } from './segment.js';
import type { EngineFilters } from './types.js';

const MAGIC = 0x4345564c; // 'LVEC'
const HEADER = 96;

/** Vectors of one segment under one model. */
export class SegmentVectors {
  constructor(
    /** Host id of the model (its SHA-256). */
    readonly modelId: string,
    readonly dims: number,
    readonly docs: number,
    /** docs x dims, unit rows (all zero for a document without known terms). */
    readonly vecs: Float32Array,
    /** docs x dims/32 sign bits. */
    readonly codes: Uint32Array,
    /** 1 when the document has a vector. */
    readonly present: Uint8Array,
    /** IVF inverted lists (the model's centroids): list l holds listDocs[listStart[l] .. listStart[l+1]). */
    readonly listStart: Uint32Array | null = null,
    readonly listDocs: Uint32Array | null = null,
  ) {}

  /** Computes the vectors of `seg` from its postings. */
  static compute(seg: Segment, model: CorpusModel, modelId: string): SegmentVectors {
    const dims = model.dims;
    const n = seg.docCount;
    const vecs = new Float32Array(n * dims);
    // term-at-a-time: every posting of a model term adds its weighted vector to the document's sum
    const tfs = new Float32Array(n);
    const touched = new Uint32Array(n);
    for (let t = 0; t < seg.terms.size; t++) {
      const r = model.row(seg.terms.get(t));
      if (r < 0) continue;
      const idf = model.idf[r]!;
      const o = r * dims;
      const cur = new PostingCursor(seg, t);
      let m = 0;
      for (let d = cur.nextDoc(); d !== END; d = cur.nextDoc()) {
        const tf = cur.tf(0) * TITLE_TOKEN_WEIGHT + cur.tf(1);
        if (tf > 0) {
          tfs[m] = (1 + Math.log(tf)) * idf;
          touched[m++] = d;
        }
      }
      for (let i = 0; i < m; i++) {
        const w = tfs[i]!;
        const base = touched[i]! * dims;
        for (let j = 0; j < dims; j++) vecs[base + j]! += w * model.vectors[o + j]!;
      }
    }
    const words = dims >>> 5;
    const codes = new Uint32Array(n * words);
    const present = new Uint8Array(n);
    for (let d = 0; d < n; d++) {
      const base = d * dims;
      let s = 0;
      for (let j = 0; j < dims; j++) s += vecs[base + j]! * vecs[base + j]!;
      if (!(s > 0)) continue;
      present[d] = 1;
      const inv = 1 / Math.sqrt(s);
      for (let j = 0; j < dims; j++) vecs[base + j]! *= inv;
      encodeSigns(vecs, base, dims, codes, d * words);
    }
    let listStart: Uint32Array | null = null;
    let listDocs: Uint32Array | null = null;
    const c = model.centroids;
    if (c !== null) {
      const lists = c.length / dims;
      const of = new Int32Array(n).fill(-1);
      listStart = new Uint32Array(lists + 1);
      for (let d = 0; d < n; d++) {
        if (present[d] === 0) continue;
        of[d] = nearestRow(c, lists, dims, vecs, d * dims);
        listStart[of[d]! + 1]!++;
      }
      for (let l = 0; l < lists; l++) listStart[l + 1]! += listStart[l]!;
      listDocs = new Uint32Array(listStart[lists]!);
      const fill = listStart.slice(0, lists);
      for (let d = 0; d < n; d++) if (of[d]! >= 0) listDocs[fill[of[d]!]!++] = d;
    }
    return new SegmentVectors(modelId, dims, n, vecs, codes, present, listStart, listDocs);
  }

  serialize(): Uint8Array {
    const words = this.dims >>> 5;
    const lists = this.listStart === null ? 0 : this.listStart.length - 1;
    const ivfBytes = this.listStart === null ? 0 : 4 * (lists + 1) + 4 * this.listDocs!.length;
    const size = HEADER + this.vecs.byteLength + this.docs * words * 4 + ((this.docs + 7) & ~7) + ivfBytes;
    const out = new Uint8Array(size);
    const dv = new DataView(out.buffer);
    dv.setUint32(0, MAGIC, true);
    dv.setUint32(4, 2, true);
    dv.setUint32(8, this.dims, true);
    dv.setUint32(12, this.docs, true);
    dv.setUint32(80, lists, true);
    dv.setUint32(84, this.listDocs?.length ?? 0, true);
    out.set(new TextEncoder().encode(this.modelId.slice(0, 64)), 16);
    let o = HEADER;
    out.set(new Uint8Array(this.vecs.buffer, this.vecs.byteOffset, this.vecs.byteLength), o);
    o += this.vecs.byteLength;
    out.set(new Uint8Array(this.codes.buffer, this.codes.byteOffset, this.codes.byteLength), o);
    o += this.codes.byteLength;
    out.set(this.present, o);
    o += (this.docs + 7) & ~7;
    if (this.listStart !== null) {
      out.set(new Uint8Array(this.listStart.buffer, this.listStart.byteOffset, this.listStart.byteLength), o);
      o += this.listStart.byteLength;
      out.set(new Uint8Array(this.listDocs!.buffer, this.listDocs!.byteOffset, this.listDocs!.byteLength), o);
    }
    return out;
  }

  static parse(bytes: Uint8Array): SegmentVectors {
    const b = (bytes.byteOffset & 3) === 0 ? bytes : bytes.slice();
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const version = b.byteLength >= HEADER ? dv.getUint32(4, true) : 0;
    if (b.byteLength < HEADER || dv.getUint32(0, true) !== MAGIC || (version !== 1 && version !== 2)) throw new Error('not a Lectern vector file');
    const dims = dv.getUint32(8, true);
    const docs = dv.getUint32(12, true);
    const modelId = new TextDecoder().decode(b.subarray(16, 80)).replace(/\0+$/, '');
    const words = dims >>> 5;
    let o = b.byteOffset + HEADER;
    if (b.byteLength < HEADER + docs * dims * 4 + docs * words * 4 + docs) throw new Error('vector file is truncated');
    const vecs = new Float32Array(b.buffer, o, docs * dims);
    o += docs * dims * 4;
    const codes = new Uint32Array(b.buffer, o, docs * words);
    o += docs * words * 4;
    const present = new Uint8Array(b.buffer, o, docs);
    o += (docs + 7) & ~7;
    const lists = version === 2 ? dv.getUint32(80, true) : 0;
    if (lists === 0) return new SegmentVectors(modelId, dims, docs, vecs, codes, present);
    const listed = dv.getUint32(84, true);
    if (o - b.byteOffset + 4 * (lists + 1) + 4 * listed > b.byteLength) throw new Error('vector file is truncated');
    const listStart = new Uint32Array(b.buffer, o, lists + 1);
    const listDocs = new Uint32Array(b.buffer, o + 4 * (lists + 1), listed);
    return new SegmentVectors(modelId, dims, docs, vecs, codes, present, listStart, listDocs);
  }
}

/** Sign bits of v[off .. off+dims) into codes[at .. at+dims/32). */
export function encodeSigns(v: Float32Array, off: number, dims: number, codes: Uint32Array, at: number): void {
  for (let w = 0; w < dims >>> 5; w++) {
    let bits = 0;
    for (let j = 0; j < 32; j++) if (v[off + w * 32 + j]! > 0) bits |= 1 << j;
    codes[at + w] = bits >>> 0;
  }
}

/** Number of set bits of a 32-bit word. */
export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** A snapshot segment with its vectors (null when none were computed under the current model). */
export interface VectorSegment extends SnapshotSegment {
  vectors: SegmentVectors | null;
}

export interface VectorSearchOptions {
  /** Hits to keep (ranked). */
  k: number;
  filters?: EngineFilters | undefined;
  /**
   * `exact` float scan, `binary` Hamming ranking with float rescoring, or `ivf`: only the documents of
   * the `nprobe` inverted lists whose centroids are nearest the query (segments without lists are
   * scanned whole).
   */
  method: 'exact' | 'binary' | 'ivf';
  /** IVF: lists probed (default {@link DEFAULT_NPROBE}). */
  nprobe?: number;
  /** IVF: the model's centroids (lists x dims). */
  centroids?: Float32Array | null;
  /** Binary: candidates rescored with floats, default max(10 k, 100). */
  rescore?: number;
}

export interface VectorSearchOutcome {
  hits: RawHit[];
  /** Documents compared (live, filtered, with a vector). */
  scanned: number;
  /** Segments without vectors under the current model (their documents cannot be found). */
  missingSegments: number;
}

/** Ranks the documents of `segments` by cosine similarity to the unit vector `q`. */
export function searchVectors(segments: readonly VectorSegment[], q: Float32Array, opts: VectorSearchOptions): VectorSearchOutcome {
  const dims = q.length;
  let scanned = 0;
  let missing = 0;
  if (opts.method === 'exact' || opts.method === 'ivf') {
    const heap = new TopK(opts.k, false);
    // IVF: the probed lists, nearest centroids first
    let probed: number[] | null = null;
    const c = opts.centroids ?? null;
    if (opts.method === 'ivf' && c !== null) {
      const lists = c.length / dims;
      const scores: [number, number][] = [];
      for (let l = 0; l < lists; l++) {
        let s = 0;
        for (let j = 0; j < dims; j++) s += c[l * dims + j]! * q[j]!;
        scores.push([s, l]);
      }
      scores.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
      probed = scores.slice(0, Math.max(1, opts.nprobe ?? DEFAULT_NPROBE)).map((x) => x[1]);
    }
    segments.forEach((ss, si) => {
      const v = ss.vectors;
      if (v === null || v.dims !== dims) {
        missing++;
        return;
      }
      const f = compileFilter(ss.seg, opts.filters, ss.deleted);
      if (f.none) return;
      const scan = (d: number) => {
        if (v.present[d] === 0 || !f.allowed(d)) return;
        scanned++;
        const base = d * dims;
        let s = 0;
        for (let j = 0; j < dims; j++) s += q[j]! * v.vecs[base + j]!;
        if (heap.canEnter(s)) heap.offer({ score: s, si, doc: d, issued: NaN, id: ss.seg.id(d) });
      };
      if (probed !== null && v.listStart !== null && v.listStart.length - 1 === c!.length / dims) {
        for (const l of probed) for (let p = v.listStart[l]!; p < v.listStart[l + 1]!; p++) scan(v.listDocs![p]!);
      } else if (f.candidates !== null) for (const d of f.candidates) scan(d);
      else for (let d = 0; d < v.docs; d++) scan(d);
    });
    return { hits: heap.sorted(), scanned, missingSegments: missing };
  }
  // binary: Hamming distance over sign codes, then float rescoring of the best `rescore` candidates
  const words = dims >>> 5;
  const qc = new Uint32Array(words);
  encodeSigns(q, 0, dims, qc, 0);
  const pool = Math.max(opts.rescore ?? Math.max(10 * opts.k, 100), opts.k);
  // bucket candidates by distance (0..dims): keeps the `pool` nearest without sorting everything
  const buckets: number[][] = Array.from({ length: dims + 1 }, () => []);
  let kept = 0;
  let worst = dims;
  segments.forEach((ss, si) => {
    const v = ss.vectors;
    if (v === null || v.dims !== dims) {
      missing++;
      return;
    }
    const f = compileFilter(ss.seg, opts.filters, ss.deleted);
    if (f.none) return;
    const codes = v.codes;
    const scan = (d: number) => {
      if (v.present[d] === 0 || !f.allowed(d)) return;
      scanned++;
      const o = d * words;
      let h = 0;
      for (let w = 0; w < words; w++) h += popcount32((codes[o + w]! ^ qc[w]!) >>> 0);
      if (h > worst) return;
      buckets[h]!.push(si, d);
      kept++;
      // shrink: drop the farthest bucket while the rest still holds the pool
      while (kept - buckets[worst]!.length / 2 >= pool && worst > 0) {
        kept -= buckets[worst]!.length / 2;
        buckets[worst] = [];
        worst--;
      }
    };
    if (f.candidates !== null) for (const d of f.candidates) scan(d);
    else for (let d = 0; d < v.docs; d++) scan(d);
  });
  const heap = new TopK(opts.k, false);
  let taken = 0;
  for (let h = 0; h <= worst && taken < pool; h++) {
    const b = buckets[h]!;
    for (let i = 0; i < b.length && taken < pool; i += 2, taken++) {
      const si = b[i]!;
      const d = b[i + 1]!;
      const v = segments[si]!.vectors!;
      const base = d * dims;
      let s = 0;
      for (let j = 0; j < dims; j++) s += q[j]! * v.vecs[base + j]!;
      if (heap.canEnter(s)) heap.offer({ score: s, si, doc: d, issued: NaN, id: segments[si]!.seg.id(d) });
    }
  }
  return { hits: heap.sorted(), scanned, missingSegments: missing };
}
