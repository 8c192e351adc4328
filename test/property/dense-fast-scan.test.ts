// Property tests of the dense `quantized` path with the WebAssembly fast-scan kernel (ADR 0140) against
// its JavaScript reference: on random vectors, sizes, widths, deletions and pools, the kernel's grades
// equal referenceGrade, the hits are exactly the exact-scan top-k of the candidates that the reference
// grades select (the same cut, ties at the cut in document order), and a pool covering every document
// gives the exact scan's answer. `binary` on the kernel (ADR 0161): its Hamming tables' grades are dims
// minus the popcount Hamming distance, and its hits, scores and counts are those of the JavaScript path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { encodeSigns, popcount32, searchVectors, SegmentVectors, type VectorSegment } from '../../src/engine/doc-vectors.js';
import { fastScanTables, hammingTables, referenceGrade } from '../../src/engine/fast-scan.js';
import type { Segment } from '../../src/engine/segment.js';
import { mulberry32 } from '../helpers/random.js';

function build(sizes: number[], dims: number, seed: number, deleteEvery: number, nullEvery: number): VectorSegment[] {
  const rnd = mulberry32(seed);
  const centres = Array.from({ length: 4 }, () => Float32Array.from({ length: dims }, () => rnd() * 2 - 1));
  return sizes.map((n, si) => {
    const rows = Array.from({ length: n }, (_, d) => {
      if (nullEvery > 0 && d % nullEvery === 1) return null;
      const c = centres[Math.floor(rnd() * 4)]!;
      // coarse values make equal grades (ties at the cut) common
      return Float32Array.from({ length: dims }, (_, j) => Math.round((c[j]! + rnd() * 2 - 1) * 2));
    });
    const v = SegmentVectors.fromRows('m', dims, rows);
    let deleted: Uint32Array | null = null;
    let deletedCount = 0;
    if (deleteEvery > 0) {
      deleted = new Uint32Array(Math.ceil(n / 32) + 1);
      for (let d = si; d < n; d += deleteEvery) {
        deleted[d >>> 5]! |= 1 << (d & 31);
        deletedCount++;
      }
    }
    const seg = { id: (d: number) => `s${si}d${d}`, docCount: n } as unknown as Segment;
    return { seg, deleted, deletedCount, vectors: v };
  });
}

/** Both properties' inputs: segment sizes, dims, seed, deleteEvery, nullEvery, pool, k. */
const shape = [
  fc.array(fc.integer({ min: 0, max: 90 }), { minLength: 1, maxLength: 4 }),
  fc.constantFrom(32, 64, 128, 96),
  fc.integer({ min: 1, max: 1e9 }),
  fc.constantFrom(0, 3, 7),
  fc.constantFrom(0, 5),
  fc.integer({ min: 1, max: 60 }),
  fc.integer({ min: 1, max: 12 }),
] as const;

const isDeleted = (s: VectorSegment, d: number) => s.deleted !== null && ((s.deleted[d >>> 5]! >>> (d & 31)) & 1) === 1;

test('fast-scan kernel: reference grades, the reference selection, exact with a covering pool', () => {
  fc.assert(
    fc.property(
      ...shape,
      (sizes, dims, seed, deleteEvery, nullEvery, pool, k) => {
        const segs = build(sizes, dims, seed, deleteEvery, nullEvery);
        const rnd = mulberry32(seed ^ 0x5bd1e995);
        const q = Float32Array.from({ length: dims }, () => rnd() * 2 - 1);
        const norm = Math.hypot(...q);
        q.forEach((x, j) => (q[j] = x / norm));
        const t = fastScanTables(q);
        // 1. kernel grades = reference grades
        const graded: { si: number; d: number; g: number }[] = [];
        segs.forEach((s, si) => {
          const v = s.vectors!;
          const by = new Uint8Array(v.codes.buffer, v.codes.byteOffset, v.codes.byteLength);
          const g = v.fastScan()!.grade(t);
          for (let d = 0; d < v.docs; d++) {
            assert.equal(g[d], referenceGrade(t, by, d));
            if (v.present[d] === 1 && !isDeleted(s, d)) graded.push({ si, d, g: g[d]! });
          }
        });
        const got = searchVectors(segs, q, { k, method: 'auto', exactMaxVectors: 0, rescore: pool });
        if (sizes.every((n) => n === 0)) {
          assert.deepEqual(got.hits, []); // nothing eligible: `auto` is the (empty) exact scan
          return;
        }
        assert.equal(got.kernel, 'wasm');
        assert.equal(got.scanned, graded.length);
        // 2. the reference selection: the `pool` best grades, ties at the cut in document order
        const p = Math.max(pool, k);
        const byGrade = [...graded].sort((a, b) => b.g - a.g);
        const cut = byGrade.length > p ? byGrade[p - 1]!.g : -1;
        let room = p - graded.filter((x) => x.g > cut).length;
        const chosen = graded.filter((x) => x.g > cut || (x.g === cut && room-- > 0));
        assert.equal(got.rescored, Math.min(p, graded.length));
        // the exact scan over the chosen documents only
        const only = segs.map((s, si) => {
          const v = s.vectors!;
          const present = new Uint8Array(v.docs);
          for (const x of chosen) if (x.si === si) present[x.d] = 1;
          return { ...s, deleted: null, deletedCount: 0, vectors: new SegmentVectors('m', v.dims, v.docs, v.vecs, v.codes, present) };
        });
        const want = searchVectors(only, q, { k, method: 'exact' });
        assert.deepEqual(got.hits.map((h) => [h.id, h.score]), want.hits.map((h) => [h.id, h.score]));
        // 3. a pool covering every document: the exact scan
        const all = searchVectors(segs, q, { k, method: 'auto', exactMaxVectors: 0, rescore: 1000 });
        assert.deepEqual(all.hits.map((h) => [h.id, h.score]), searchVectors(segs, q, { k, method: 'exact' }).hits.map((h) => [h.id, h.score]));
      },
    ),
    { numRuns: 150 },
  );
});

test('binary on the fast-scan kernel: Hamming grades, and the JavaScript popcount path (the reference) answers the same', () => {
  fc.assert(
    fc.property(
      ...shape,
      (sizes, dims, seed, deleteEvery, nullEvery, pool, k) => {
        const segs = build(sizes, dims, seed, deleteEvery, nullEvery);
        const rnd = mulberry32(seed ^ 0x2545f491);
        // coarse query values: some exactly 0 (sign bit clear, as encodeSigns)
        const q = Float32Array.from({ length: dims }, () => Math.round(rnd() * 4 - 2));
        const t = hammingTables(q);
        assert.equal(t.maxGrade, dims);
        const qc = new Uint32Array(dims >>> 5);
        encodeSigns(q, 0, dims, qc, 0);
        for (const s of segs) {
          const v = s.vectors!;
          const by = new Uint8Array(v.codes.buffer, v.codes.byteOffset, v.codes.byteLength);
          const g = v.fastScan()!.grade(t);
          for (let d = 0; d < v.docs; d++) {
            let h = 0;
            for (let w = 0; w < qc.length; w++) h += popcount32(v.codes[d * qc.length + w]! ^ qc[w]!);
            assert.equal(referenceGrade(t, by, d), dims - h);
            assert.equal(g[d], dims - h);
          }
        }
        const wasm = searchVectors(segs, q, { k, method: 'binary', rescore: pool });
        const js = searchVectors(segs, q, { k, method: 'binary', rescore: pool, kernel: 'js' });
        assert.equal(wasm.kernel, 'wasm');
        assert.equal(js.kernel, 'js');
        assert.equal(wasm.scanned, js.scanned);
        assert.equal(wasm.rescored, js.rescored);
        assert.deepEqual(wasm.hits.map((h) => [h.id, h.score]), js.hits.map((h) => [h.id, h.score]));
      },
    ),
    { numRuns: 150 },
  );
});
