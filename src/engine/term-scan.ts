// The term scan of the sparse channel's expansion (ADR 0310): which terms of the expansion vocabulary
// are nearest to a query's embedding. The floating-point scan over every term (20,000 x 128 dimensions
// at most) was most of the sparse channel's cost (issue 27). Here a WebAssembly SIMD kernel
// (wasm/term-scan.wat) computes every term's dot product on 16-bit integer copies of the vectors, and
// the rounding error is bounded: |q . u - a(u)| <= eps for every term u, with
//   eps = |q^| x max_u |u^ - u| + |q^ - q| x max_u |u|    (q^, u^: the rounded vectors, rescaled)
// (Cauchy-Schwarz on q^ . u^ - q . u = q^ . (u^ - u) + (q^ - q) . u). Every term whose approximate
// similarity plus eps reaches the max-th best lower bound (and the minimum similarity) is a candidate;
// the caller scores the candidates again in floating point, in vocabulary order, with the arithmetic of
// the full scan. A term left out has q . u < the similarity of at least `max` terms, so the result (terms,
// similarities, order, ties) is exactly the full scan's. Memory: 2 bytes per term and dimension, one
// WebAssembly memory per model and thread (about 5 MiB for 20,000 x 128), built on first use.
import { WASM_BASE64 } from './wasm/term-scan.wasm.js';
import { compileKernel, WA, type WasmMemory, type WasmModule } from './wasm/runtime.js';


let compiled: WasmModule | null | undefined;

function kernelModule(): WasmModule | null {
  if (WA === undefined) return null;
  if (compiled === undefined) compiled = compileKernel(WASM_BASE64);
  return compiled;
}

/** Whether the kernel can run here (WebAssembly SIMD). */
export function termScanAvailable(): boolean {
  return kernelModule() !== null;
}

/** Largest 16-bit magnitude. */
const I16 = 32767;
/** Scale x norm bound of each side: the product of both sides' bounds is 2^29, so integer sums stay < 2^31. */
const SIDE = Math.sqrt(2 ** 29);
/** Widest vectors the scales are safe for (the rounding terms of the integer sum stay far below 2^30). */
export const TERM_SCAN_MAX_DIMS = 4096;
/** Added to eps: floating-point error of the float scores themselves (far below it for unit vectors). */
const SLACK = 1e-9;
const PAGE = 65536;
/** The score given to excluded rows in the kernel's output. */
const EXCLUDED = -0x80000000;

interface Kernel {
  dots(q: number, rows: number, m: number, dims: number, out: number): void;
}

/** One model's term vectors as 16-bit integers in this thread's WebAssembly memory, with the kernel. */
export class TermScan {
  readonly #kernel: Kernel;
  readonly #q: Int16Array;
  readonly #rowsAt: number;
  readonly #out: Int32Array;
  readonly #outAt: number;
  /** Scale of the term vectors (u^ = round(u x scale) / scale). */
  readonly #scale: number;
  /** max_u |u^ - u| and max_u |u| over the vocabulary. */
  readonly #err: number;
  readonly #norm: number;
  /** Bytes of the kernel's memory. */
  readonly memoryBytes: number;

  private constructor(mod: WasmModule, vectors: Float32Array, readonly terms: number, readonly dims: number) {
    let maxAbs = 0;
    let norm = 0;
    for (let r = 0; r < terms; r++) {
      let n = 0;
      for (let j = r * dims; j < (r + 1) * dims; j++) {
        const x = vectors[j]!;
        n += x * x;
        if (Math.abs(x) > maxAbs) maxAbs = Math.abs(x);
      }
      if (n > norm) norm = n;
    }
    this.#norm = Math.sqrt(norm);
    this.#scale = maxAbs > 0 ? Math.min(I16 / maxAbs, SIDE / this.#norm) : 1;
    const qBytes = (dims * 2 + 63) & ~63;
    this.#rowsAt = qBytes;
    this.#outAt = (qBytes + terms * dims * 2 + 63) & ~63;
    const pages = Math.max(1, Math.ceil((this.#outAt + terms * 4) / PAGE));
    this.memoryBytes = pages * PAGE;
    const memory = new WA!.Memory({ initial: pages, maximum: pages });
    this.#kernel = new WA!.Instance(mod, { env: { memory } }).exports as unknown as Kernel;
    this.#q = new Int16Array(memory.buffer, 0, dims);
    this.#out = new Int32Array(memory.buffer, this.#outAt, terms);
    const rows = new Int16Array(memory.buffer, this.#rowsAt, terms * dims);
    let err = 0;
    for (let r = 0; r < terms; r++) {
      let e = 0;
      for (let j = r * dims; j < (r + 1) * dims; j++) {
        const v = Math.round(vectors[j]! * this.#scale);
        rows[j] = v;
        const d = v / this.#scale - vectors[j]!;
        e += d * d;
      }
      if (e > err) err = e;
    }
    this.#err = Math.sqrt(err);
  }

  /**
   * The kernel's copy of `terms` rows of `dims` floats, or null where it cannot run (no WebAssembly SIMD,
   * dims not a multiple of 16 or above {@link TERM_SCAN_MAX_DIMS}, non-finite values).
   */
  static build(vectors: Float32Array, terms: number, dims: number): TermScan | null {
    const mod = kernelModule();
    if (mod === null || dims <= 0 || dims % 16 !== 0 || dims > TERM_SCAN_MAX_DIMS || terms <= 0) return null;
    for (let i = 0; i < terms * dims; i++) if (!Number.isFinite(vectors[i]!)) return null;
    return new TermScan(mod, vectors, terms, dims);
  }

  /**
   * The rows (ascending) that may be among the `max` most similar to `query` with similarity >=
   * `minSimilarity`, leaving out `excluded` rows: a superset of the exact answer (see the header), for the
   * caller to score in floating point. Null when the query cannot be scaled (non-finite values).
   */
  candidates(query: Float32Array, max: number, minSimilarity: number, excluded: ReadonlySet<number>): Uint32Array | null {
    const dims = this.dims;
    if (query.length !== dims || max <= 0) return null;
    let qMax = 0;
    let qn = 0;
    for (let j = 0; j < dims; j++) {
      const x = query[j]!;
      if (!Number.isFinite(x)) return null;
      qn += x * x;
      if (Math.abs(x) > qMax) qMax = Math.abs(x);
    }
    qn = Math.sqrt(qn);
    const sq = qMax > 0 ? Math.min(I16 / qMax, SIDE / qn) : 1;
    let hatN = 0;
    let qErr = 0;
    for (let j = 0; j < dims; j++) {
      const v = Math.round(query[j]! * sq);
      this.#q[j] = v;
      const h = v / sq;
      hatN += h * h;
      qErr += (h - query[j]!) ** 2;
    }
    const eps = Math.sqrt(hatN) * this.#err + Math.sqrt(qErr) * this.#norm + SLACK;
    this.#kernel.dots(0, this.#rowsAt, this.terms, dims, this.#outAt);
    const out = this.#out;
    const unit = sq * this.#scale;
    // excluded rows get a score no term can have (|integer sums| < 2^30)
    for (const r of excluded) if (r >= 0 && r < this.terms) out[r] = EXCLUDED;
    // the max-th best approximate score: less eps, a lower bound of the max-th best similarity
    const top = new Int32Array(max).fill(EXCLUDED);
    let count = 0;
    for (let r = 0; r < this.terms; r++) {
      const a = out[r]!;
      if (a === EXCLUDED || (count === max && a <= top[max - 1]!)) continue;
      let i = count === max ? max - 1 : count++;
      while (i > 0 && top[i - 1]! < a) {
        top[i] = top[i - 1]!;
        i--;
      }
      top[i] = a;
    }
    const lower = count === max ? top[max - 1]! / unit - eps : -Infinity;
    // a term can reach the answer only if its similarity, at most a / unit + eps, reaches both bounds
    const cut = Math.floor((Math.max(lower, minSimilarity) - eps) * unit) - 1;
    const rows: number[] = [];
    for (let r = 0; r < this.terms; r++) {
      const a = out[r]!;
      if (a >= cut && a !== EXCLUDED) rows.push(r);
    }
    return Uint32Array.from(rows);
  }
}
