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
import { popcount32 } from './bit-packing.js';
import { nearestRow, TITLE_TOKEN_WEIGHT, type CorpusModel } from './corpus-model.js';

/** IVF lists probed per query by default (recall@10 against exact search: bench/results/vectors-100k.json). */
export const DEFAULT_NPROBE = 24;
import { FAST_SCAN_BINS, FastScanCodes, FastScanRescorer, fastScanTables, hammingTables, int8Query, referenceGrade } from './fast-scan.js';
import { compileFilter, type SegmentFilter } from './filters.js';
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

  #fastScan: FastScanCodes | null | undefined;

  /**
   * The codes in fast-scan blocks in this thread's WebAssembly memory (ADR 0140), built on first call
   * (SearchIndex calls it when it publishes a large enough snapshot); null where the kernel cannot run
   * (no WebAssembly SIMD, or more than 2,064 dimensions).
   */
  fastScan(): FastScanCodes | null {
    if (this.#fastScan === undefined) this.#fastScan = FastScanCodes.build(this.codes, this.present, this.docs, this.dims, this.vecs);
    return this.#fastScan;
  }

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

  /**
   * Vectors computed outside the engine (an external encoder): one row per document number of the
   * segment, null for a document without one. Rows are normalized here; dims must be a multiple of 32.
   */
  static fromRows(modelId: string, dims: number, rows: readonly (Float32Array | null)[]): SegmentVectors {
    if (dims <= 0 || dims % 32 !== 0) throw new RangeError(`vector dims must be a positive multiple of 32 (got ${dims})`);
    const n = rows.length;
    const words = dims >>> 5;
    const vecs = new Float32Array(n * dims);
    const codes = new Uint32Array(n * words);
    const present = new Uint8Array(n);
    rows.forEach((r, d) => {
      if (r === null) return;
      if (r.length !== dims) throw new RangeError(`vector of document ${d} has ${r.length} dims, expected ${dims}`);
      let s = 0;
      for (let j = 0; j < dims; j++) s += r[j]! * r[j]!;
      if (!(s > 0) || !Number.isFinite(s)) return;
      const inv = 1 / Math.sqrt(s);
      const base = d * dims;
      for (let j = 0; j < dims; j++) vecs[base + j] = r[j]! * inv;
      present[d] = 1;
      encodeSigns(vecs, base, dims, codes, d * words);
    });
    return new SegmentVectors(modelId, dims, n, vecs, codes, present);
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

// popcount32 lives in bit-packing.ts (the searcher's bitset counts use it too); exported here as before
export { popcount32 };

/** Sign bits of v[off .. off+dims) into codes[at .. at+dims/32). */
export function encodeSigns(v: Float32Array, off: number, dims: number, codes: Uint32Array, at: number): void {
  for (let w = 0; w < dims >>> 5; w++) {
    let bits = 0;
    for (let j = 0; j < 32; j++) if (v[off + w * 32 + j]! > 0) bits |= 1 << j;
    codes[at + w] = bits >>> 0;
  }
}

/** A snapshot segment with its vectors (null when none were computed under the current model). */
export interface VectorSegment extends SnapshotSegment {
  vectors: SegmentVectors | null;
}

/**
 * `auto` (the `short_document` channel) scans exactly while at most this many documents are eligible
 * (live, filtered, in segments with vectors); above it, it takes the `quantized` path with
 * {@link autoRescorePool} candidates (ADR 0103).
 */
export const EXACT_MAX_VECTORS = 20_000;
/** `auto` above {@link EXACT_MAX_VECTORS}: candidates rescored per hit asked for. */
export const AUTO_RESCORE_FACTOR = 100;
/** `auto` above {@link EXACT_MAX_VECTORS}: fewest candidates rescored. */
export const AUTO_RESCORE_MIN = 2_000;
/**
 * `auto`: eligible vectors per multiple of the base pool. Up to this many the pool is
 * max(100 k, 2,000); above it the pool grows in proportion to the eligible vectors (ADR 0160: the
 * prefilter's misranking grows with N, so a fixed pool lost recall@10 from 0.985 at 100k to 0.904 at 1M).
 */
export const AUTO_RESCORE_BASE_VECTORS = 250_000;

/**
 * Candidates `auto` rescores with the float vectors for `k` hits among `eligible` vectors:
 * max(100 k, 2,000) x max(1, eligible / 250,000) (ADR 0160; 2,000 at 100k, 8,000 at 1M for k = 11).
 */
export function autoRescorePool(k: number, eligible = 0): number {
  const base = Math.max(AUTO_RESCORE_FACTOR * k, AUTO_RESCORE_MIN);
  return eligible > AUTO_RESCORE_BASE_VECTORS ? Math.ceil((base * eligible) / AUTO_RESCORE_BASE_VECTORS) : base;
}

export interface VectorSearchOptions {
  /** Hits to keep (ranked). */
  k: number;
  filters?: EngineFilters | undefined;
  /**
   * `exact` float scan, `binary` Hamming ranking with float rescoring, `ivf`: only the documents of
   * the `nprobe` inverted lists whose centroids are nearest the query (segments without lists are
   * scanned whole), or `auto`: `exact` up to {@link EXACT_MAX_VECTORS} eligible documents, else
   * `quantized`: the sign codes scored asymmetrically against the float query, the best
   * {@link autoRescorePool} (growing with the eligible documents) rescored with the floats.
   */
  method: 'exact' | 'binary' | 'ivf' | 'auto';
  /** IVF: lists probed (default {@link DEFAULT_NPROBE}). */
  nprobe?: number;
  /** IVF: the model's centroids (lists x dims). */
  centroids?: Float32Array | null;
  /** Binary: candidates rescored with floats, default max(10 k, 100) (`auto`: {@link autoRescorePool}). */
  rescore?: number;
  /** `auto`: the exact scan's limit (default {@link EXACT_MAX_VECTORS}; tests and benchmarks lower it). */
  exactMaxVectors?: number;
  /**
   * `quantized` and `binary`: the grading kernel: `wasm` (the default where it can run: fast-scan
   * blocks, ADR 0140; `binary` on Hamming tables, ADR 0161) or `js` (ADR 0103's float tables, the
   * popcount Hamming grader; the fallback, and the reference in tests and benchmarks).
   */
  kernel?: 'wasm' | 'js';
}

export interface VectorSearchOutcome {
  hits: RawHit[];
  /** Documents compared (live, filtered, with a vector). */
  scanned: number;
  /** Segments without vectors under the current model (their documents cannot be found). */
  missingSegments: number;
  /** The method that ran (`auto` resolved to `exact` or `quantized`). */
  method: 'exact' | 'binary' | 'ivf' | 'quantized';
  /** Binary: candidates rescored with the float vectors. */
  rescored: number;
  /** `quantized` and `binary`: the grading kernel that ran. */
  kernel?: 'wasm' | 'js';
  /**
   * `quantized` and `binary` on the kernel with 8-bit rows (ADR 0314): of the `rescored` candidates, those
   * whose error bound still reached the k-th best and were scored with the float rows.
   */
  floatRescored?: number;
}

/** Dot product of q and v[base .. base+q.length). */
function dot(q: Float32Array, v: Float32Array, base: number): number {
  const n = q.length;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (; j + 3 < n; j += 4) {
    s0 += q[j]! * v[base + j]!;
    s1 += q[j + 1]! * v[base + j + 1]!;
    s2 += q[j + 2]! * v[base + j + 2]!;
    s3 += q[j + 3]! * v[base + j + 3]!;
  }
  for (; j < n; j++) s0 += q[j]! * v[base + j]!;
  return s0 + s1 + (s2 + s3);
}

/** Per-query scratch of prefilter grades (grown on demand; search is synchronous). */
let gradeScratch = new Uint16Array(0);
/** Per-query scratch of the 8-bit pass (ADR 0314): approximate score, bound, segment (live index), doc. */
let int8Approx = new Float64Array(0);
let int8Bound = new Float64Array(0);
let int8Live = new Uint32Array(0);
let int8Doc = new Uint32Array(0);
let int8Lower = new Float64Array(0);

/**
 * The k-th largest of xs[0 .. n) (-Infinity when n < k), by a min-heap of k entries in `heap`.
 */
function kthLargest(xs: Float64Array, n: number, k: number, heap: Float64Array): number {
  if (k <= 0) return Infinity;
  if (n < k) return -Infinity;
  let size = 0;
  for (let i = 0; i < n; i++) {
    const x = xs[i]!;
    if (size < k) {
      let c = size++;
      while (c > 0) {
        const p = (c - 1) >> 1;
        if (heap[p]! <= x) break;
        heap[c] = heap[p]!;
        c = p;
      }
      heap[c] = x;
    } else if (x > heap[0]!) {
      let c = 0;
      for (;;) {
        const l = 2 * c + 1;
        if (l >= k) break;
        const r = l + 1;
        const m = r < k && heap[r]! < heap[l]! ? r : l;
        if (heap[m]! >= x) break;
        heap[c] = heap[m]!;
        c = m;
      }
      heap[c] = x;
    }
  }
  return heap[0]!;
}
const NOT_ELIGIBLE = 0xffff;
/** Histogram bins of the asymmetric prefilter score (its range [-|q|_1, |q|_1] cut in equal bins). */
const QUANTIZED_BINS = 4096;
/**
 * Fast-scan path: a filter's candidate list shorter than 1/this of its segment is graded candidate by
 * candidate in JavaScript rather than by the kernel over the whole segment.
 */
const FAST_SCAN_SPARSE = 16;

/** A prefilter grade per document of one segment's sign codes: higher is nearer. */
interface Grader {
  rows(codes: Uint32Array): (d: number) => number;
  /**
   * Grades every present document 0..n-1 of one segment (no filter) into grades[at + d] (absent ones
   * NOT_ELIGIBLE), counting grades in hist; returns the documents graded. One tight loop per grader:
   * a per-document call through `rows` would be a polymorphic call site.
   */
  all(codes: Uint32Array, present: Uint8Array, n: number, grades: Uint16Array, at: number, hist: Uint32Array): number;
}

/** Grade = dims - Hamming distance between the sign codes of the query and the document. */
function hammingGrader(q: Float32Array): Grader {
  const dims = q.length;
  const words = dims >>> 5;
  const qc = new Uint32Array(words);
  encodeSigns(q, 0, dims, qc, 0);
  return {
    rows: (codes) => {
      if (words === 4) {
        const [q0, q1, q2, q3] = [qc[0]!, qc[1]!, qc[2]!, qc[3]!];
        return (d) => {
          const o = d << 2;
          return dims - (popcount32(codes[o]! ^ q0) + popcount32(codes[o + 1]! ^ q1) + popcount32(codes[o + 2]! ^ q2) + popcount32(codes[o + 3]! ^ q3));
        };
      }
      return (d) => {
        let h = 0;
        const o = d * words;
        for (let w = 0; w < words; w++) h += popcount32(codes[o + w]! ^ qc[w]!);
        return dims - h;
      };
    },
    all: (codes, present, n, grades, at, hist) => {
      let graded = 0;
      if (words === 4) {
        const [q0, q1, q2, q3] = [qc[0]!, qc[1]!, qc[2]!, qc[3]!];
        for (let d = 0, o = 0; d < n; d++, o += 4) {
          if (present[d] === 0) {
            grades[at + d] = NOT_ELIGIBLE;
            continue;
          }
          const g = dims - (popcount32(codes[o]! ^ q0) + popcount32(codes[o + 1]! ^ q1) + popcount32(codes[o + 2]! ^ q2) + popcount32(codes[o + 3]! ^ q3));
          grades[at + d] = g;
          hist[g]!++;
          graded++;
        }
        return graded;
      }
      for (let d = 0; d < n; d++) {
        if (present[d] === 0) {
          grades[at + d] = NOT_ELIGIBLE;
          continue;
        }
        let h = 0;
        const o = d * words;
        for (let w = 0; w < words; w++) h += popcount32(codes[o + w]! ^ qc[w]!);
        grades[at + d] = dims - h;
        hist[dims - h]!++;
        graded++;
      }
      return graded;
    },
  };
}

/** Little-endian platforms: byte b of a code row holds the signs of dimensions 8b .. 8b+7. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Grade = the bin of q . s(x), s(x) the document's sign code as +-1 per dimension (an asymmetric
 * distance: the query keeps its floats), from one 256-entry table per code byte.
 */
function asymmetricGrader(q: Float32Array): Grader {
  const dims = q.length;
  const bytesPerRow = dims >>> 3;
  const lut = new Float32Array(bytesPerRow * 256);
  let l1 = 0;
  for (let j = 0; j < dims; j++) l1 += Math.abs(q[j]!);
  for (let b = 0; b < bytesPerRow; b++) {
    const t = b * 256;
    const dim = (j: number) => (LITTLE_ENDIAN ? b * 8 + j : (b >>> 2) * 32 + (3 - (b & 3)) * 8 + j);
    for (let v = 0; v < 256; v++) {
      let s = 0;
      for (let j = 0; j < 8; j++) s += (v >>> j) & 1 ? q[dim(j)]! : -q[dim(j)]!;
      lut[t + v] = s;
    }
  }
  // score in [-l1, l1] -> bin in [0, QUANTIZED_BINS - 1]
  const scale = l1 > 0 ? (QUANTIZED_BINS - 1) / (2 * l1) : 0;
  const top = QUANTIZED_BINS - 1;
  return {
    rows: (codes) => {
      const by = new Uint8Array(codes.buffer, codes.byteOffset, codes.byteLength);
      if (bytesPerRow === 16) {
        return (d) => {
          const o = d << 4;
          const s =
            lut[by[o]!]! + lut[256 | by[o + 1]!]! + lut[512 | by[o + 2]!]! + lut[768 | by[o + 3]!]! +
            lut[1024 | by[o + 4]!]! + lut[1280 | by[o + 5]!]! + lut[1536 | by[o + 6]!]! + lut[1792 | by[o + 7]!]! +
            lut[2048 | by[o + 8]!]! + lut[2304 | by[o + 9]!]! + lut[2560 | by[o + 10]!]! + lut[2816 | by[o + 11]!]! +
            lut[3072 | by[o + 12]!]! + lut[3328 | by[o + 13]!]! + lut[3584 | by[o + 14]!]! + lut[3840 | by[o + 15]!]!;
          const g = ((s + l1) * scale) | 0;
          return g < 0 ? 0 : g > top ? top : g;
        };
      }
      return (d) => {
        const o = d * bytesPerRow;
        let s = 0;
        for (let b = 0; b < bytesPerRow; b++) s += lut[(b << 8) | by[o + b]!]!;
        const g = ((s + l1) * scale) | 0;
        return g < 0 ? 0 : g > top ? top : g;
      };
    },
    all: (codes, present, n, grades, at, hist) => {
      const by = new Uint8Array(codes.buffer, codes.byteOffset, codes.byteLength);
      let graded = 0;
      for (let d = 0, o = 0; d < n; d++, o += bytesPerRow) {
        if (present[d] === 0) {
          grades[at + d] = NOT_ELIGIBLE;
          continue;
        }
        let s: number;
        if (bytesPerRow === 16) {
          s =
            lut[by[o]!]! + lut[256 | by[o + 1]!]! + lut[512 | by[o + 2]!]! + lut[768 | by[o + 3]!]! +
            lut[1024 | by[o + 4]!]! + lut[1280 | by[o + 5]!]! + lut[1536 | by[o + 6]!]! + lut[1792 | by[o + 7]!]! +
            lut[2048 | by[o + 8]!]! + lut[2304 | by[o + 9]!]! + lut[2560 | by[o + 10]!]! + lut[2816 | by[o + 11]!]! +
            lut[3072 | by[o + 12]!]! + lut[3328 | by[o + 13]!]! + lut[3584 | by[o + 14]!]! + lut[3840 | by[o + 15]!]!;
        } else {
          s = 0;
          for (let b = 0; b < bytesPerRow; b++) s += lut[(b << 8) | by[o + b]!]!;
        }
        let g = ((s + l1) * scale) | 0;
        g = g < 0 ? 0 : g > top ? top : g;
        grades[at + d] = g;
        hist[g]!++;
        graded++;
      }
      return graded;
    },
  };
}

/** Ranks the documents of `segments` by cosine similarity to the unit vector `q`. */
export function searchVectors(segments: readonly VectorSegment[], q: Float32Array, opts: VectorSearchOptions): VectorSearchOutcome {
  const dims = q.length;
  let missing = 0;
  // the segments that can answer, with their compiled filters
  const live: { si: number; v: SegmentVectors; f: SegmentFilter }[] = [];
  let eligible = 0;
  segments.forEach((ss, si) => {
    const v = ss.vectors;
    if (v === null || v.dims !== dims) {
      missing++;
      return;
    }
    const f = compileFilter(ss.seg, opts.filters, ss.deleted);
    if (f.none) return;
    live.push({ si, v, f });
    eligible += f.candidates !== null ? f.candidates.length : v.docs;
  });
  let method: 'exact' | 'binary' | 'ivf' | 'quantized';
  let pool: number;
  if (opts.method === 'auto') {
    method = eligible <= (opts.exactMaxVectors ?? EXACT_MAX_VECTORS) ? 'exact' : 'quantized';
    pool = Math.max(opts.rescore ?? autoRescorePool(opts.k, eligible), opts.k);
  } else {
    method = opts.method;
    pool = Math.max(opts.rescore ?? Math.max(10 * opts.k, 100), opts.k);
  }
  const heap = new TopK(opts.k, false);
  const offer = (score: number, si: number, d: number) => {
    if (heap.canEnter(score)) heap.offer({ score, si, doc: d, issued: NaN, id: segments[si]!.seg.id(d) });
  };
  if (method === 'exact' || method === 'ivf') {
    // IVF: the probed lists, nearest centroids first
    let probed: number[] | null = null;
    const c = opts.centroids ?? null;
    if (method === 'ivf' && c !== null) {
      const lists = c.length / dims;
      const scores: [number, number][] = [];
      for (let l = 0; l < lists; l++) scores.push([dot(q, c, l * dims), l]);
      scores.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
      probed = scores.slice(0, Math.max(1, opts.nprobe ?? DEFAULT_NPROBE)).map((x) => x[1]);
    }
    let scanned = 0;
    for (const { si, v, f } of live) {
      const present = v.present;
      const vecs = v.vecs;
      if (probed !== null && v.listStart !== null && v.listStart.length - 1 === c!.length / dims) {
        const ls = v.listStart;
        const ld = v.listDocs!;
        for (const l of probed) {
          for (let p = ls[l]!; p < ls[l + 1]!; p++) {
            const d = ld[p]!;
            if (present[d] === 0 || !f.allowed(d)) continue;
            scanned++;
            offer(dot(q, vecs, d * dims), si, d);
          }
        }
      } else if (f.candidates !== null) {
        for (const d of f.candidates) {
          if (present[d] === 0 || !f.allowed(d)) continue;
          scanned++;
          offer(dot(q, vecs, d * dims), si, d);
        }
      } else {
        // the whole segment: no per-document filter call when only presence matters
        const trivial = f.trivial;
        const n = v.docs;
        for (let d = 0; d < n; d++) {
          if (present[d] === 0 || (!trivial && !f.allowed(d))) continue;
          scanned++;
          offer(dot(q, vecs, d * dims), si, d);
        }
      }
    }
    return { hits: heap.sorted(), scanned, missingSegments: missing, method, rescored: 0 };
  }
  // binary: every eligible document gets a prefilter grade (pass 1, with a histogram of grades), then
  // the `pool` best graded (ties at the cut in document order) are rescored with the floats (pass 2).
  // `binary` grades by Hamming distance between sign codes; `quantized` (auto at scale) by the
  // asymmetric score q . sign(x): the float query against the document's +-1 code, summed from one
  // 256-entry table per code byte (ADR 0103)
  let total = 0;
  for (const { v } of live) total += v.docs;
  if (gradeScratch.length < total) gradeScratch = new Uint16Array(Math.max(total, gradeScratch.length * 2));
  const grades = gradeScratch;
  const quantized = method === 'quantized';
  // the WebAssembly fast-scan kernel when every segment can run it (grades of the two kernels are not
  // comparable for `quantized`, so one query uses one kernel throughout); `binary` runs on it too, with
  // tables that count matching sign bits (ADR 0161: the same grades as the JavaScript Hamming grader)
  const fast = opts.kernel !== 'js' ? live.map(({ v }) => v.fastScan()) : null;
  const wasm = fast !== null && fast.every((x) => x !== null);
  let bins = quantized ? QUANTIZED_BINS : dims + 1;
  const hist = new Uint32Array(bins);
  let scanned = 0;
  let at = 0;
  // fast-scan: each segment's grades stay in its kernel memory (or, for a short candidate list, in
  // `grades`), and its selection runs there too; `bySeg[i]` is the segment's grade array
  const bySeg: (Uint16Array | null)[] = [];
  let shift = 0;
  if (wasm) {
    const t = quantized ? fastScanTables(q) : hammingTables(q);
    // grades above FAST_SCAN_BINS - 1 (more than 128 dimensions) are shifted into the histogram's range
    while (t.maxGrade >>> shift >= FAST_SCAN_BINS) shift++;
    bins = (t.maxGrade >>> shift) + 1;
    live.forEach(({ v, f }, i) => {
      const present = v.present;
      const n = v.docs;
      if (f.candidates !== null && f.candidates.length * FAST_SCAN_SPARSE < n) {
        // few candidates: their grades one by one (the kernel's arithmetic in JavaScript)
        const by = new Uint8Array(v.codes.buffer, v.codes.byteOffset, v.codes.byteLength);
        const g16 = grades.subarray(at, at + n);
        g16.fill(NOT_ELIGIBLE);
        for (const d of f.candidates) {
          if (present[d] === 0 || !f.allowed(d)) continue;
          const g = referenceGrade(t, by, d);
          g16[d] = g;
          hist[g >>> shift]!++;
          scanned++;
        }
        bySeg.push(g16);
        at += n;
        return;
      }
      const fs = fast[i]!;
      const g16 = fs.grade(t);
      bySeg.push(null);
      at += n;
      if (f.candidates !== null) {
        // a long candidate list: the kernel graded the whole segment; the others are not eligible
        const keep = new Uint16Array(f.candidates.length);
        f.candidates.forEach((d, j) => (keep[j] = present[d] === 1 && f.allowed(d) ? g16[d]! : NOT_ELIGIBLE));
        g16.fill(NOT_ELIGIBLE);
        f.candidates.forEach((d, j) => {
          const g = keep[j]!;
          if (g === NOT_ELIGIBLE) return;
          g16[d] = g;
          hist[g >>> shift]!++;
          scanned++;
        });
      } else if (f.columns) {
        for (let d = 0; d < n; d++) {
          if (present[d] === 0 || !f.allowed(d)) {
            g16[d] = NOT_ELIGIBLE;
            continue;
          }
          hist[g16[d]! >>> shift]!++;
          scanned++;
        }
      } else {
        // the kernel counts the documents with a vector; deleted ones are taken out here
        const h = fs.histogram(shift, bins);
        for (let b = 0; b < bins; b++) hist[b]! += h.hist[b]!;
        scanned += h.counted;
        const del = f.trivial ? null : segments[live[i]!.si]!.deleted;
        if (del !== null) {
          for (let w = 0; w < del.length; w++) {
            let bits: number = del[w]!;
            while (bits !== 0) {
              const low: number = bits & -bits;
              const d = (w << 5) + (31 - Math.clz32(low));
              bits ^= low;
              if (d >= n || g16[d] === NOT_ELIGIBLE) continue;
              hist[g16[d]! >>> shift]!--;
              g16[d] = NOT_ELIGIBLE;
              scanned--;
            }
          }
        }
      }
    });
  } else {
    const grade = quantized ? asymmetricGrader(q) : hammingGrader(q);
    for (const { v, f } of live) {
      const present = v.present;
      const n = v.docs;
      const rows = grade.rows(v.codes);
      if (f.candidates !== null) {
        grades.fill(NOT_ELIGIBLE, at, at + n);
        for (const d of f.candidates) {
          if (present[d] === 0 || !f.allowed(d)) continue;
          const g = rows(d);
          grades[at + d] = g;
          hist[g]!++;
          scanned++;
        }
      } else if (f.trivial) {
        scanned += grade.all(v.codes, present, n, grades, at, hist);
      } else {
        for (let d = 0; d < n; d++) {
          if (present[d] === 0 || !f.allowed(d)) {
            grades[at + d] = NOT_ELIGIBLE;
            continue;
          }
          const g = rows(d);
          grades[at + d] = g;
          hist[g]!++;
          scanned++;
        }
      }
      at += n;
    }
  }
  // the cut: every grade above `cut`, and the first `room` documents at `cut`
  let cut = bins - 1;
  let above = 0;
  while (cut >= 0 && above + hist[cut]! < pool) above += hist[cut--]!;
  let room = pool - above;
  let rescored = 0;
  at = 0;
  // fast-scan with 8-bit rows (ADR 0314): the pool's dot products on the 8-bit rows, each with an error
  // bound; afterwards only the candidates whose bound reaches the k-th best lower bound are scored with
  // the float rows. A candidate left out is below at least k others, so the hits (scores bit for bit,
  // order, ties on id) are those of scoring the whole pool with the floats.
  const iq = wasm && fast!.every((x) => x!.int8) ? int8Query(q) : null;
  let pooled = 0;
  if (iq !== null && int8Approx.length < pool + SELECT_CAP_ROOM) {
    const cap = pool + SELECT_CAP_ROOM;
    int8Approx = new Float64Array(cap);
    int8Bound = new Float64Array(cap);
    int8Live = new Uint32Array(cap);
    int8Doc = new Uint32Array(cap);
  }
  // fast-scan: the candidates' float dot products by the kernel too (same scores as `dot`)
  const rescorer = wasm && iq === null ? FastScanRescorer.get() : null;
  rescorer?.query(q);
  for (let i = 0; i < live.length; i++) {
    const { si, v } = live[i]!;
    const vecs = v.vecs;
    const n = v.docs;
    if (wasm) {
      const g16 = bySeg[i]!;
      if (g16 === null) {
        const fs = fast![i]!;
        if (iq !== null) fs.loadQuery(iq);
        room = fs.select(shift, cut, room, (docs, m) => {
          rescored += m;
          if (iq !== null) {
            if (pooled + m > int8Approx.length) growInt8(pooled + m);
            fs.approximate(iq, m, int8Approx, int8Bound, pooled);
            int8Live.fill(i, pooled, pooled + m);
            int8Doc.set(docs.subarray(0, m), pooled);
            pooled += m;
          } else if (rescorer !== null) rescorer.rescore(vecs, docs, m, (d, score) => offer(score, si, d));
          else for (let j = 0; j < m; j++) offer(dot(q, vecs, docs[j]! * dims), si, docs[j]!);
        });
      } else {
        // a short candidate list: only its documents can be eligible
        for (const d of live[i]!.f.candidates!) {
          const g = g16[d]!;
          if (g === NOT_ELIGIBLE || g >>> shift < cut) continue;
          if (g >>> shift === cut) {
            if (room === 0) continue;
            room--;
          }
          rescored++;
          offer(dot(q, vecs, d * dims), si, d);
        }
      }
      continue;
    }
    for (let d = 0; d < n; d++) {
      const g = grades[at + d]!;
      if (g === NOT_ELIGIBLE || g < cut) continue;
      if (g === cut) {
        if (room === 0) continue;
        room--;
      }
      rescored++;
      offer(dot(q, vecs, d * dims), si, d);
    }
    at += n;
  }
  let floatRescored: number | undefined;
  if (iq !== null) {
    if (int8Lower.length < pooled) int8Lower = new Float64Array(int8Approx.length);
    for (let j = 0; j < pooled; j++) int8Lower[j] = int8Approx[j]! - int8Bound[j]!;
    const kth = kthLargest(int8Lower, pooled, opts.k, new Float64Array(Math.max(1, opts.k)));
    floatRescored = 0;
    for (let j = 0; j < pooled; j++) {
      if (int8Approx[j]! + int8Bound[j]! < kth) continue;
      const li = int8Live[j]!;
      const d = int8Doc[j]!;
      floatRescored++;
      offer(dot(q, live[li]!.v.vecs, d * dims), live[li]!.si, d);
    }
  }
  return { hits: heap.sorted(), scanned, missingSegments: missing, method, rescored, kernel: wasm ? 'wasm' : 'js', ...(floatRescored !== undefined ? { floatRescored } : {}) };
}

/** Room past the pool in the 8-bit scratch: the cut's last select batch may overshoot by none, but grow anyway. */
const SELECT_CAP_ROOM = 256;

function growInt8(n: number): void {
  const cap = Math.max(n, int8Approx.length * 2);
  const grow = <T extends Float64Array | Uint32Array>(a: T, make: (c: number) => T): T => {
    const b = make(cap);
    b.set(a as never);
    return b;
  };
  int8Approx = grow(int8Approx, (c) => new Float64Array(c));
  int8Bound = grow(int8Bound, (c) => new Float64Array(c));
  int8Live = grow(int8Live, (c) => new Uint32Array(c));
  int8Doc = grow(int8Doc, (c) => new Uint32Array(c));
}
