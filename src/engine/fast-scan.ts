// Fast-scan grading of sign codes (ADR 0140): the prefilter of the dense `quantized` path run by a
// WebAssembly SIMD kernel (wasm/fast-scan.wat) over codes re-laid out in blocks of 16 documents, with
// 4-bit look-up tables of unsigned 8-bit entries built per query. The grade of a document is
// sum over its code's nibbles of tables[nibble][value], a 16-bit integer that grows with q . sign(x)
// (the asymmetric score of ADR 0103, quantized to 8 bits per 4 dimensions).
//
// Each thread that searches builds its own blocks (the kernel reads only its own WebAssembly memory, and
// a segment's bytes are a SharedArrayBuffer that WebAssembly cannot adopt): dims/8 bytes per document
// (16 for 128 dimensions) plus 2 bytes of grades and 1 of presence, in one WebAssembly.Memory per
// segment (SegmentVectors.fastScan: built when SearchIndex publishes a snapshot of more vectors than the
// exact scan takes, or by the first quantized search), dropped with the segment. `referenceGrade` computes
// the same grade in JavaScript (used for short candidate lists and as the kernel's reference in tests).
import { WASM_BASE64 } from './wasm/fast-scan.wasm.js';
import { compileKernel, WA, type WasmMemory, type WasmModule } from './wasm/runtime.js';


/** Documents per fast-scan block (one 128-bit lane of 8-bit codes). */
export const FAST_SCAN_BLOCK = 16;
/** Largest table entry: two entries of one code byte are added in 8 bits. */
const TABLE_MAX = 127;
/** Most code bytes per document before a 16-bit grade could overflow (2 x 127 per byte). */
export const FAST_SCAN_MAX_BYTES = Math.floor(0xffff / (2 * TABLE_MAX));
const PAGE = 65536;

/** Little-endian platforms: byte b of a code row holds the signs of dimensions 8b .. 8b+7. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

let compiled: WasmModule | null | undefined;
let disabled = false;

/** The compiled kernel, or null where WebAssembly SIMD is not available (the JavaScript path runs). */
function kernelModule(): WasmModule | null {
  if (disabled || WA === undefined) return null;
  if (compiled === undefined) compiled = compileKernel(WASM_BASE64);
  return compiled;
}

/** Whether the WebAssembly kernel can run here (and has not been switched off). */
export function fastScanAvailable(): boolean {
  return kernelModule() !== null;
}

/** Switches the kernel off (true) or back on: tests and benchmarks compare it with the JavaScript path. */
export function disableFastScan(off: boolean): void {
  disabled = off;
}

/** The dimension whose sign is bit `bit` (0..7) of code byte `b` of a row (word byte order). */
function dimOf(b: number, bit: number): number {
  return LITTLE_ENDIAN ? b * 8 + bit : (b >>> 2) * 32 + (3 - (b & 3)) * 8 + bit;
}

/** Per-query tables of the kernel for the unit-or-not query `q` (dims a multiple of 8). */
export interface FastScanTables {
  /** 32 bytes per code byte: the low nibble's 16 entries, then the high nibble's. */
  tables: Uint8Array;
  /** Code bytes per document. */
  bytes: number;
  /** Largest possible grade (every nibble at its table's largest entry). */
  maxGrade: number;
}

/**
 * The look-up tables of `q`: entry v of the table of nibble (b, h) is sum_j (bit j of v ? +q : -q) over
 * the nibble's 4 dimensions, plus the sum of their |q| (so it is >= 0), times one scale for all tables
 * that maps the widest table's range onto 0..127, rounded.
 */
export function fastScanTables(q: Float32Array): FastScanTables {
  const dims = q.length;
  const bytes = dims >>> 3;
  const raw = new Float64Array(bytes * 32);
  let range = 0;
  for (let b = 0; b < bytes; b++) {
    for (let h = 0; h < 2; h++) {
      const w = [0, 1, 2, 3].map((j) => q[dimOf(b, h * 4 + j)]!);
      const abs = Math.abs(w[0]!) + Math.abs(w[1]!) + Math.abs(w[2]!) + Math.abs(w[3]!);
      range = Math.max(range, 2 * abs);
      const t = b * 32 + h * 16;
      for (let v = 0; v < 16; v++) {
        let s = abs;
        for (let j = 0; j < 4; j++) s += (v >>> j) & 1 ? w[j]! : -w[j]!;
        raw[t + v] = s;
      }
    }
  }
  const scale = range > 0 ? TABLE_MAX / range : 0;
  const tables = new Uint8Array(bytes * 32);
  let maxGrade = 0;
  for (let i = 0; i < raw.length; i += 16) {
    let m = 0;
    for (let v = 0; v < 16; v++) {
      const e = Math.min(TABLE_MAX, Math.max(0, Math.round(raw[i + v]! * scale)));
      tables[i + v] = e;
      if (e > m) m = e;
    }
    maxGrade += m;
  }
  return { tables, bytes, maxGrade };
}

/**
 * `binary` on the same kernel (ADR 0161): the tables whose grade is dims minus the Hamming distance
 * between the document's sign code and the query's (`encodeSigns`: bit set where q > 0). Entry v of the
 * table of nibble (b, h) counts the nibble's 4 dimensions where bit j of v equals the query's sign bit,
 * so the sum over a code's nibbles is exactly the JavaScript `hammingGrader`'s grade (integers 0..dims,
 * no scaling: an entry is at most 4).
 */
export function hammingTables(q: Float32Array): FastScanTables {
  const dims = q.length;
  const bytes = dims >>> 3;
  const tables = new Uint8Array(bytes * 32);
  for (let b = 0; b < bytes; b++) {
    for (let h = 0; h < 2; h++) {
      let sign = 0;
      for (let j = 0; j < 4; j++) if (q[dimOf(b, h * 4 + j)]! > 0) sign |= 1 << j;
      const t = b * 32 + h * 16;
      for (let v = 0; v < 16; v++) {
        let x = ~(v ^ sign) & 15;
        let m = 0;
        for (; x !== 0; x &= x - 1) m++;
        tables[t + v] = m;
      }
    }
  }
  return { tables, bytes, maxGrade: dims };
}

/** The kernel's grade of document `d` computed in JavaScript from its code row (the reference). */
export function referenceGrade(t: FastScanTables, codeBytes: Uint8Array, d: number): number {
  const tables = t.tables;
  const o = d * t.bytes;
  let g = 0;
  for (let b = 0; b < t.bytes; b++) {
    const c = codeBytes[o + b]!;
    g += tables[b * 32 + (c & 15)]! + tables[b * 32 + 16 + (c >>> 4)]!;
  }
  return g;
}

/** The kernel's exports (addresses in its memory; wasm/fast-scan.wat says what they do). */
interface Kernel {
  grade(tables: number, codes: number, blocks: number, bytes: number, grades: number): void;
  histogram(grades: number, present: number, n: number, shift: number, hist: number, bins: number): number;
  select(grades: number, from: number, to: number, shift: number, cut: number, room: number, out: number, cap: number): number;
  dots(q: number, rows: number, m: number, dims: number, out: number): void;
  idots(q: number, rows: number, docs: number, m: number, dims: number, out: number): void;
  next: { value: number };
  room: { value: number };
}
/** Histogram bins the kernel's memory holds (the quantized path's, ADR 0103). */
export const FAST_SCAN_BINS = 4096;
/** Selected document numbers handed back per `select` call. */
const SELECT_CAP = 256;
/** Bytes of float rows the rescorer's memory holds at once. */
const RESCORE_ROW_BYTES = 256 * 1024;
/** Largest 8-bit magnitude of a document row and 16-bit magnitude of the query (ADR 0314). */
const I8 = 127;
const I16 = 32767;
/** Added to every error bound: the floating-point error of the scores themselves (far below it). */
const INT8_SLACK = 1e-9;

let int8Off = false;
/** Multiplies every error bound (1; tests set 0 to show the bound is what keeps the hits exact). */
let int8BoundFactor = 1;
/** Tests only: scales the 8-bit pass's error bound (1 restores it). */
export function scaleInt8BoundForTests(f: number): void {
  int8BoundFactor = f;
}
/** Switches the 8-bit rescoring of the dense pool off (true) or back on: benchmarks and tests compare. */
export function disableInt8Rescore(off: boolean): void {
  int8Off = off;
}

/**
 * A query rounded for {@link FastScanCodes.approximate}: q^ = q16 / scale, with |q^| and |q^ - q| for
 * the error bound. Null when it cannot be scaled (non-finite values, dims not a multiple of 16).
 */
export interface Int8Query {
  q16: Int16Array;
  scale: number;
  hatNorm: number;
  errNorm: number;
}

export function int8Query(q: Float32Array): Int8Query | null {
  const dims = q.length;
  if (dims === 0 || dims % 16 !== 0) return null;
  let qMax = 0;
  for (let j = 0; j < dims; j++) {
    const x = q[j]!;
    if (!Number.isFinite(x)) return null;
    if (Math.abs(x) > qMax) qMax = Math.abs(x);
  }
  // every partial sum stays inside 32 bits: dims x top x 127 < 2^31
  const top = Math.min(I16, Math.floor((2 ** 31 - 1) / (dims * I8)));
  const scale = qMax > 0 ? top / qMax : 1;
  const q16 = new Int16Array(dims);
  let hat = 0;
  let err = 0;
  for (let j = 0; j < dims; j++) {
    const v = Math.max(-top, Math.min(top, Math.round(q[j]! * scale)));
    q16[j] = v;
    const h = v / scale;
    hat += h * h;
    err += (h - q[j]!) ** 2;
  }
  return { q16, scale, hatNorm: Math.sqrt(hat), errNorm: Math.sqrt(err) };
}

/** One segment's codes in fast-scan blocks, in this thread's WebAssembly memory, with its kernel. */
export class FastScanCodes {
  readonly blocks: number;
  /** Bytes of this thread's memory for the segment (tables, blocks, grades, page rounding). */
  readonly memoryBytes: number;
  readonly #memory: WasmMemory;
  readonly #kernel: Kernel;
  readonly #codesAt: number;
  readonly #gradesAt: number;
  readonly #presentAt: number;
  readonly #histAt: number;
  readonly #outAt: number;
  readonly #grades: Uint16Array;
  readonly #hist: Uint32Array;
  readonly #out: Uint32Array;
  /** 8-bit rows (ADR 0314): the query's and the scores' places, the rows', per-document 1/scale and error. */
  readonly #qAt: number = 0;
  readonly #idotsAt: number = 0;
  readonly #rowsAt: number = 0;
  readonly #q16: Int16Array | null = null;
  readonly #idots: Int32Array | null = null;
  readonly #inv: Float32Array | null = null;
  readonly #err: Float32Array | null = null;
  #maxNorm = 0;
  readonly dims: number;
  /** Bytes of the 8-bit rows and their per-document scales and bounds (0 without them). */
  readonly int8Bytes: number = 0;

  private constructor(readonly docs: number, readonly bytes: number, mod: WasmModule, codes: Uint32Array, present: Uint8Array, vecs: Float32Array | null) {
    this.blocks = Math.ceil(docs / FAST_SCAN_BLOCK);
    const blockBytes = bytes * FAST_SCAN_BLOCK;
    const padded = this.blocks * FAST_SCAN_BLOCK;
    this.#codesAt = (bytes * 32 + 63) & ~63;
    this.#gradesAt = this.#codesAt + this.blocks * blockBytes;
    this.#presentAt = this.#gradesAt + padded * 2;
    this.#histAt = (this.#presentAt + padded + 63) & ~63;
    this.#outAt = this.#histAt + FAST_SCAN_BINS * 4;
    let size = this.#outAt + SELECT_CAP * 4;
    this.dims = bytes * 8;
    const dims = this.dims;
    const int8 = vecs !== null && dims % 16 === 0 && vecs.length >= docs * dims;
    if (int8) {
      this.#qAt = (size + 63) & ~63;
      this.#idotsAt = (this.#qAt + dims * 2 + 63) & ~63;
      this.#rowsAt = (this.#idotsAt + SELECT_CAP * 4 + 63) & ~63;
      size = this.#rowsAt + docs * dims;
    }
    const pages = Math.max(1, Math.ceil(size / PAGE));
    this.memoryBytes = pages * PAGE;
    this.#memory = new WA!.Memory({ initial: pages, maximum: pages });
    const inst = new WA!.Instance(mod, { env: { memory: this.#memory } });
    this.#kernel = inst.exports as unknown as Kernel;
    // transpose each block of 16 code rows: byte b of documents 16k .. 16k+15 side by side
    const mem = new Uint8Array(this.#memory.buffer);
    const rows = new Uint8Array(codes.buffer, codes.byteOffset, docs * bytes);
    for (let d = 0; d < docs; d++) {
      const base = this.#codesAt + Math.floor(d / FAST_SCAN_BLOCK) * blockBytes + (d % FAST_SCAN_BLOCK);
      const o = d * bytes;
      for (let b = 0; b < bytes; b++) mem[base + b * FAST_SCAN_BLOCK] = rows[o + b]!;
    }
    mem.set(present.subarray(0, docs), this.#presentAt);
    this.#grades = new Uint16Array(this.#memory.buffer, this.#gradesAt, padded);
    this.#hist = new Uint32Array(this.#memory.buffer, this.#histAt, FAST_SCAN_BINS);
    this.#out = new Uint32Array(this.#memory.buffer, this.#outAt, SELECT_CAP);
    if (int8) {
      // each row at its own scale (its largest magnitude to 127); the rounding error |x^ - x| per row,
      // with x^ = x8 x inv as float32 stores inv, rounded up into float32
      this.#q16 = new Int16Array(this.#memory.buffer, this.#qAt, dims);
      this.#idots = new Int32Array(this.#memory.buffer, this.#idotsAt, SELECT_CAP);
      const rows = new Int8Array(this.#memory.buffer, this.#rowsAt, docs * dims);
      const inv = new Float32Array(docs);
      const err = new Float32Array(docs);
      let maxNorm = 0;
      for (let d = 0; d < docs; d++) {
        const o = d * dims;
        let m = 0;
        let n = 0;
        for (let j = 0; j < dims; j++) {
          const x = vecs[o + j]!;
          if (Math.abs(x) > m) m = Math.abs(x);
          n += x * x;
        }
        if (!(m > 0) || !Number.isFinite(n)) continue; // no vector: never selected (present 0)
        if (n > maxNorm) maxNorm = n;
        inv[d] = m / I8;
        const iv = inv[d]!;
        let e = 0;
        for (let j = 0; j < dims; j++) {
          const x = vecs[o + j]!;
          const v = Math.max(-I8, Math.min(I8, Math.round(x / iv)));
          rows[o + j] = v;
          e += (v * iv - x) ** 2;
        }
        e = Math.sqrt(e) * (1 + 1e-6);
        err[d] = e;
        if (err[d]! < e) err[d] = e * (1 + 1e-6);
      }
      this.#inv = inv;
      this.#err = err;
      this.#maxNorm = Math.sqrt(maxNorm) * (1 + 1e-6);
      this.int8Bytes = docs * dims + docs * 8;
    }
  }

  /**
   * The blocks of `docs` code rows of `dims` sign bits (with 8-bit copies of the float rows `vecs` when
   * given: ADR 0314), or null where the kernel cannot run them.
   */
  static build(codes: Uint32Array, present: Uint8Array, docs: number, dims: number, vecs: Float32Array | null = null): FastScanCodes | null {
    const mod = kernelModule();
    const bytes = dims >>> 3;
    if (mod === null || dims % 32 !== 0 || bytes === 0 || bytes > FAST_SCAN_MAX_BYTES) return null;
    return new FastScanCodes(docs, bytes, mod, codes, present, vecs);
  }

  /** Whether the segment has 8-bit rows to {@link approximate} with (and they are not switched off). */
  get int8(): boolean {
    return this.#inv !== null && !int8Off;
  }

  /** Puts a rounded query in this segment's memory for {@link approximate}. */
  loadQuery(iq: Int8Query): void {
    this.#q16!.set(iq.q16);
  }

  /**
   * Inside a {@link select} callback: for the m selected documents (its `docs` view), approx[at + i] =
   * q^ . x^ and bound[at + i] >= |q . x - approx| (Cauchy-Schwarz: |q^| |x^ - x| + |q^ - q| |x|, plus
   * slack for the float arithmetic), the query loaded by {@link loadQuery}.
   */
  approximate(iq: Int8Query, m: number, approx: Float64Array, bound: Float64Array, at: number): void {
    this.#kernel.idots(this.#qAt, this.#rowsAt, this.#outAt, m, this.dims, this.#idotsAt);
    const out = this.#out;
    const idots = this.#idots!;
    const inv = this.#inv!;
    const err = this.#err!;
    const unit = 1 / iq.scale;
    const f = int8BoundFactor;
    const shared = iq.errNorm * this.#maxNorm + INT8_SLACK;
    for (let i = 0; i < m; i++) {
      const d = out[i]!;
      approx[at + i] = idots[i]! * inv[d]! * unit;
      bound[at + i] = (iq.hatNorm * err[d]! + shared) * f;
    }
  }

  /**
   * Grades every document of the segment under `t` (deleted and vectorless ones too: callers skip them);
   * the view is valid until the next call. Grades of the padding past `docs` are meaningless.
   */
  grade(t: FastScanTables): Uint16Array {
    if (t.bytes !== this.bytes) throw new RangeError(`tables for ${t.bytes} code bytes, segment has ${this.bytes}`);
    new Uint8Array(this.#memory.buffer, 0, t.tables.length).set(t.tables);
    if (this.blocks > 0) this.#kernel.grade(0, this.#codesAt, this.blocks, this.bytes, this.#gradesAt);
    return this.#grades;
  }

  /**
   * After {@link grade}: the histogram of the grades >> shift of the documents with a vector (bins
   * counters; the view is valid until the next call), their grades left as they are, the others' set to
   * 0xffff (not eligible). Returns the documents counted.
   */
  histogram(shift: number, bins: number): { counted: number; hist: Uint32Array } {
    if (bins > FAST_SCAN_BINS) throw new RangeError(`at most ${FAST_SCAN_BINS} bins`);
    const counted = this.#kernel.histogram(this.#gradesAt, this.#presentAt, this.docs, shift, this.#histAt, bins);
    return { counted, hist: this.#hist };
  }

  /**
   * Calls `each` with the numbers (in document order, a batch at a time: the view is reused) of every
   * document whose grade >> shift is above `cut` (-1: all eligible) and of the first `room` at `cut`,
   * skipping grades 0xffff; returns the room left.
   */
  select(shift: number, cut: number, room: number, each: (docs: Uint32Array, m: number) => void): number {
    const k = this.#kernel;
    let from = 0;
    while (from < this.docs) {
      const m = k.select(this.#gradesAt, from, this.docs, shift, cut, room, this.#outAt, SELECT_CAP);
      if (m > 0) each(this.#out, m);
      from = k.next.value;
      room = k.room.value;
    }
    return room;
  }
}

/**
 * Float dot products of one query with rows of a segment's vectors by the kernel (`dots`): the rows are
 * copied into this thread's rescoring memory (RESCORE_ROW_BYTES, 256 KiB, plus the query and the
 * scores), since the kernel cannot read the segment's shared bytes. Scores equal doc-vectors.ts `dot`
 * bit for bit. One per thread, made on first use.
 */
export class FastScanRescorer {
  readonly #kernel: Kernel;
  readonly #mem: Float32Array;
  readonly #scores: Float64Array;
  #dims = 0;
  #cap = 0;
  #rowsAt = 0;
  #scoresAt = 0;

  private constructor(mod: WasmModule) {
    const pages = Math.ceil((RESCORE_ROW_BYTES * 2 + PAGE) / PAGE);
    const memory = new WA!.Memory({ initial: pages, maximum: pages });
    this.#kernel = new WA!.Instance(mod, { env: { memory } }).exports as unknown as Kernel;
    this.#mem = new Float32Array(memory.buffer);
    this.#scores = new Float64Array(memory.buffer);
  }

  static #one: FastScanRescorer | null | undefined;

  /** This thread's rescorer, or null where the kernel cannot run. */
  static get(): FastScanRescorer | null {
    if (FastScanRescorer.#one === undefined || (FastScanRescorer.#one === null && kernelModule() !== null)) {
      const mod = kernelModule();
      FastScanRescorer.#one = mod === null ? null : new FastScanRescorer(mod);
    }
    return kernelModule() === null ? null : FastScanRescorer.#one;
  }

  /** Sets the query (dims a multiple of 4, at most RESCORE_ROW_BYTES / 4 / 2 floats). */
  query(q: Float32Array): void {
    const dims = q.length;
    if (dims % 4 !== 0 || dims * 4 * 2 > RESCORE_ROW_BYTES) throw new RangeError(`cannot rescore ${dims} dimensions`);
    this.#dims = dims;
    this.#mem.set(q, 0);
    this.#rowsAt = (dims * 4 + 63) & ~63;
    this.#cap = Math.floor(RESCORE_ROW_BYTES / (dims * 4));
    this.#scoresAt = this.#rowsAt + this.#cap * dims * 4;
  }

  /** Calls `each(d, q . vecs[d])` for docs[0 .. m), in order. */
  rescore(vecs: Float32Array, docs: Uint32Array, m: number, each: (d: number, score: number) => void): void {
    const dims = this.#dims;
    const mem = this.#mem;
    const rows = this.#rowsAt >>> 2;
    const scores = this.#scoresAt >>> 3;
    for (let from = 0; from < m; from += this.#cap) {
      const to = Math.min(m, from + this.#cap);
      for (let i = from; i < to; i++) {
        const o = docs[i]! * dims;
        mem.set(vecs.subarray(o, o + dims), rows + (i - from) * dims);
      }
      this.#kernel.dots(0, this.#rowsAt, to - from, dims, this.#scoresAt);
      const sc = this.#scores;
      for (let i = from; i < to; i++) each(docs[i]!, sc[scores + i - from]!);
    }
  }
}
