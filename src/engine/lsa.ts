// Dense linear algebra for the corpus-trained models (corpus-model.ts): a seeded random generator, a
// sparse row matrix (CSR), modified Gram-Schmidt, the Jacobi eigenvalue method for small symmetric
// matrices, and the randomized truncated SVD of Halko, Martinsson & Tropp (2011, Algorithm 4.4 with
// power iterations). Pure: no I/O, randomness only from an explicit seed.

/** Deterministic PRNG (xorshift128+ style on 32-bit halves) with Gaussian draws (Box-Muller). */
export class SeededRandom {
  #a: number;
  #b: number;
  #spare: number | null = null;
  constructor(seed: number) {
    this.#a = (seed ^ 0x9e3779b9) >>> 0 || 1;
    this.#b = (Math.imul(seed, 0x85ebca6b) ^ 0xc2b2ae35) >>> 0 || 2;
  }
  /** Uniform in [0, 1). */
  next(): number {
    let s1 = this.#a;
    const s0 = this.#b;
    this.#a = s0;
    s1 ^= s1 << 23;
    s1 ^= s1 >>> 17;
    s1 ^= s0;
    s1 ^= s0 >>> 26;
    this.#b = s1 >>> 0;
    return ((this.#a + this.#b) >>> 0) / 4294967296;
  }
  gaussian(): number {
    if (this.#spare !== null) {
      const s = this.#spare;
      this.#spare = null;
      return s;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.#spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }
}

/** A sparse matrix in compressed sparse row form: row r holds cols/vals[start[r] .. start[r+1]). */
export interface Csr {
  rows: number;
  cols: number;
  start: Uint32Array;
  col: Uint32Array;
  val: Float32Array;
}

/** out (rows x k) = A (rows x cols) * M (cols x k); row-major dense matrices. */
export function csrTimesDense(a: Csr, m: Float32Array | Float64Array, k: number): Float64Array {
  const out = new Float64Array(a.rows * k);
  for (let r = 0; r < a.rows; r++) {
    const o = r * k;
    for (let p = a.start[r]!; p < a.start[r + 1]!; p++) {
      const v = a.val[p]!;
      const mo = a.col[p]! * k;
      for (let j = 0; j < k; j++) out[o + j]! += v * m[mo + j]!;
    }
  }
  return out;
}

/** out (cols x k) = A^T (cols x rows) * M (rows x k). */
export function csrTransposeTimesDense(a: Csr, m: Float64Array, k: number): Float64Array {
  const out = new Float64Array(a.cols * k);
  for (let r = 0; r < a.rows; r++) {
    const mo = r * k;
    for (let p = a.start[r]!; p < a.start[r + 1]!; p++) {
      const v = a.val[p]!;
      const o = a.col[p]! * k;
      for (let j = 0; j < k; j++) out[o + j]! += v * m[mo + j]!;
    }
  }
  return out;
}

/**
 * Orthonormalizes the k columns of the row-major n x k matrix `y` in place: Cholesky QR applied twice
 * (CholeskyQR2: G = Y^T Y = R^T R, Y <- Y R^-1), a diagonal jitter keeping a rank-deficient G positive.
 */
export function orthonormalizeColumns(y: Float64Array, n: number, k: number): void {
  for (let pass = 0; pass < 2; pass++) {
    const g = new Float64Array(k * k);
    for (let r = 0; r < n; r++) {
      const o = r * k;
      for (let i = 0; i < k; i++) {
        const yi = y[o + i]!;
        if (yi === 0) continue;
        const gi = i * k;
        for (let j = i; j < k; j++) g[gi + j]! += yi * y[o + j]!;
      }
    }
    let trace = 0;
    for (let i = 0; i < k; i++) trace += g[i * k + i]!;
    const jitter = (trace / Math.max(1, k)) * 1e-10 + 1e-300;
    // upper Cholesky factor R (row-major, R[i][j] for j >= i)
    const rr = new Float64Array(k * k);
    for (let i = 0; i < k; i++) {
      let d = g[i * k + i]! + jitter;
      for (let p = 0; p < i; p++) d -= rr[p * k + i]! ** 2;
      const rii = Math.sqrt(Math.max(d, jitter));
      rr[i * k + i] = rii;
      for (let j = i + 1; j < k; j++) {
        let v = g[i * k + j]!;
        for (let p = 0; p < i; p++) v -= rr[p * k + i]! * rr[p * k + j]!;
        rr[i * k + j] = v / rii;
      }
    }
    // each row: solve q R = y (forward substitution over columns)
    for (let r = 0; r < n; r++) {
      const o = r * k;
      for (let j = 0; j < k; j++) {
        let v = y[o + j]!;
        for (let p = 0; p < j; p++) v -= y[o + p]! * rr[p * k + j]!;
        y[o + j] = v / rr[j * k + j]!;
      }
    }
  }
}

/**
 * Eigen-decomposition of a symmetric k x k matrix (row-major) by cyclic Jacobi rotations. Returns the
 * eigenvalues in descending order and the eigenvectors as the columns of a row-major k x k matrix.
 */
export function symmetricEigen(m: Float64Array, k: number): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(m);
  const v = new Float64Array(k * k);
  for (let i = 0; i < k; i++) v[i * k + i] = 1;
  for (let sweep = 0; sweep < 60; sweep++) {
    let off = 0;
    for (let p = 0; p < k; p++) for (let q = p + 1; q < k; q++) off += a[p * k + q]! ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < k; p++) {
      for (let q = p + 1; q < k; q++) {
        const apq = a[p * k + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * k + q]! - a[p * k + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let r = 0; r < k; r++) {
          const arp = a[r * k + p]!;
          const arq = a[r * k + q]!;
          a[r * k + p] = c * arp - s * arq;
          a[r * k + q] = s * arp + c * arq;
        }
        for (let r = 0; r < k; r++) {
          const apr = a[p * k + r]!;
          const aqr = a[q * k + r]!;
          a[p * k + r] = c * apr - s * aqr;
          a[q * k + r] = s * apr + c * aqr;
        }
        for (let r = 0; r < k; r++) {
          const vrp = v[r * k + p]!;
          const vrq = v[r * k + q]!;
          v[r * k + p] = c * vrp - s * vrq;
          v[r * k + q] = s * vrp + c * vrq;
        }
      }
    }
  }
  const order = [...Array(k).keys()].sort((x, y) => a[y * k + y]! - a[x * k + x]!);
  const values = new Float64Array(k);
  const vectors = new Float64Array(k * k);
  order.forEach((src, dst) => {
    values[dst] = a[src * k + src]!;
    for (let r = 0; r < k; r++) vectors[r * k + dst] = v[r * k + src]!;
  });
  return { values, vectors };
}

/**
 * Randomized truncated SVD of a sparse matrix A (n x m): the top `rank` right singular vectors (as the
 * rows of an m x rank matrix) and singular values. `oversample` extra directions and `powerIterations`
 * passes of A^T A sharpen the estimate. `progress(done, total)` is called after each pass over A.
 */
export function randomizedSvd(
  a: Csr,
  rank: number,
  opts: { oversample?: number; powerIterations?: number; seed?: number; progress?: (done: number, total: number) => void } = {},
): { right: Float64Array; values: Float64Array; rank: number } {
  const k = Math.min(rank + (opts.oversample ?? 16), a.cols, Math.max(1, a.rows));
  const iters = opts.powerIterations ?? 2;
  const total = 2 + 2 * iters + 1;
  let done = 0;
  const tick = () => opts.progress?.(++done, total);
  const rnd = new SeededRandom(opts.seed ?? 42);
  const omega = new Float64Array(a.cols * k);
  for (let i = 0; i < omega.length; i++) omega[i] = rnd.gaussian();
  // Q spans the range of A^T A Omega (right singular space), refined by power iterations.
  let z = csrTimesDense(a, omega, k);
  tick();
  let q = csrTransposeTimesDense(a, z, k);
  tick();
  orthonormalizeColumns(q, a.cols, k);
  for (let it = 0; it < iters; it++) {
    z = csrTimesDense(a, q, k);
    tick();
    q = csrTransposeTimesDense(a, z, k);
    tick();
    orthonormalizeColumns(q, a.cols, k);
  }
  // B = A Q (n x k); B^T B = W S^2 W^T; right singular vectors of A ~ Q W.
  const b = csrTimesDense(a, q, k);
  tick();
  const btb = new Float64Array(k * k);
  for (let r = 0; r < a.rows; r++) {
    const o = r * k;
    for (let i = 0; i < k; i++) {
      const bi = b[o + i]!;
      if (bi === 0) continue;
      for (let j = i; j < k; j++) btb[i * k + j]! += bi * b[o + j]!;
    }
  }
  for (let i = 0; i < k; i++) for (let j = 0; j < i; j++) btb[i * k + j] = btb[j * k + i]!;
  const { values, vectors } = symmetricEigen(btb, k);
  const r = Math.min(rank, k);
  const right = new Float64Array(a.cols * r);
  for (let row = 0; row < a.cols; row++) {
    for (let c = 0; c < r; c++) {
      let s = 0;
      for (let i = 0; i < k; i++) s += q[row * k + i]! * vectors[i * k + c]!;
      right[row * r + c] = s;
    }
  }
  const sv = new Float64Array(r);
  for (let c = 0; c < r; c++) sv[c] = Math.sqrt(Math.max(0, values[c]!));
  return { right, values: sv, rank: r };
}
