// The dense pool's 8-bit rescoring (ADR 0314, engine/fast-scan.ts `approximate`, wasm/fast-scan.wat
// `idots`): the candidates of the prefilter are scored on 8-bit copies of the rows, each with an error
// bound, and only those whose bound reaches the k-th best lower bound get their float dot product. The
// hits must be those of the float rescoring of the whole pool, scores bit for bit, ties included; with the
// bound removed they are not (so the bound is what keeps them exact).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { disableInt8Rescore, fastScanAvailable, scaleInt8BoundForTests } from '../../src/engine/fast-scan.js';
import { searchVectors, SegmentVectors, type VectorSearchOptions, type VectorSegment } from '../../src/engine/doc-vectors.js';
import type { Segment } from '../../src/engine/segment.js';
import { mulberry32 } from '../helpers/random.js';

/** `n` random vectors around a few shared directions; every `dupEvery`-th row repeats an earlier one (ties). */
function rows(n: number, dims: number, seed: number, dupEvery = 0): (Float32Array | null)[] {
  const rnd = mulberry32(seed);
  const centres = Array.from({ length: 6 }, () => Float32Array.from({ length: dims }, () => rnd() * 2 - 1));
  const out: (Float32Array | null)[] = [];
  for (let d = 0; d < n; d++) {
    if (dupEvery > 0 && d > 0 && d % dupEvery === 0) {
      out.push(out[Math.floor(rnd() * d)] ?? null);
      continue;
    }
    const c = centres[Math.floor(rnd() * centres.length)]!;
    out.push(Float32Array.from({ length: dims }, (_, j) => c[j]! * 0.7 + (rnd() * 2 - 1)));
  }
  return out;
}

function segment(name: string, v: SegmentVectors): VectorSegment {
  const seg = { id: (d: number) => `${name}${String(d).padStart(5, '0')}`, docCount: v.docs } as unknown as Segment;
  return { seg, deleted: null, deletedCount: 0, vectors: v };
}

function query(dims: number, seed: number, near: Float32Array | null): Float32Array {
  const rnd = mulberry32(seed);
  const q = Float32Array.from({ length: dims }, (_, j) => (near ? near[j]! : 0) + (rnd() * 2 - 1) * 0.5);
  const s = Math.hypot(...q);
  return q.map((x) => x / s);
}

/** Both paths on the same query: [8-bit pass, float pool]. */
function both(segs: VectorSegment[], q: Float32Array, opts: VectorSearchOptions) {
  disableInt8Rescore(false);
  const int8 = searchVectors(segs, q, opts);
  disableInt8Rescore(true);
  try {
    return [int8, searchVectors(segs, q, opts)] as const;
  } finally {
    disableInt8Rescore(false);
  }
}

const hitsOf = (r: { hits: { id: string; score: number }[] }) => r.hits.map((h) => [h.id, h.score]);

describe('8-bit rescoring of the dense pool (ADR 0314)', { skip: !fastScanAvailable() && 'no WebAssembly SIMD' }, () => {
  const dims = 128;
  const segs = [
    segment('a', SegmentVectors.fromRows('m', dims, rows(3001, dims, 31))),
    segment('b', SegmentVectors.fromRows('m', dims, rows(1777, dims, 32, 3))), // a third repeats: ties
    segment('c', SegmentVectors.fromRows('m', dims, rows(250, dims, 33))),
  ];
  const docRow = (si: number, d: number) => segs[si]!.vectors!.vecs.subarray(d * dims, (d + 1) * dims);

  test('the hits equal the float rescoring of the whole pool, bit for bit, for random queries and k', () => {
    let checked = 0;
    let floats = 0;
    let pooled = 0;
    for (let qi = 0; qi < 60; qi++) {
      // half the queries near a document (close neighbours, tight gaps), half anywhere
      const q = query(dims, 500 + qi, qi % 2 === 0 ? docRow(qi % 3, (qi * 37) % 250) : null);
      for (const k of [1, 10, 50]) {
        for (const method of ['auto', 'binary'] as const) {
          const opts: VectorSearchOptions = { k, method, exactMaxVectors: 0, rescore: method === 'auto' ? 2000 : 500 };
          const [a, b] = both(segs, q, opts);
          assert.equal(a.kernel, 'wasm');
          assert.equal(b.floatRescored, undefined);
          assert.ok(a.floatRescored !== undefined, 'the 8-bit pass ran');
          assert.equal(a.rescored, b.rescored);
          assert.deepEqual(hitsOf(a), hitsOf(b), `query ${qi} k ${k} ${method}`);
          floats += a.floatRescored!;
          pooled += a.rescored;
          checked++;
        }
      }
    }
    assert.equal(checked, 360);
    // the point of it: most of the pool needs no float dot product
    assert.ok(floats < pooled / 4, `${floats} float dot products of ${pooled} candidates`);
  });

  test('ties: identical rows tie on score and are broken by id as in the float path', () => {
    // a query equal to a repeated row: its copies tie at the top
    const b = segs[1]!.vectors!;
    let tiedQueries = 0;
    for (let d = 3; d < 400; d += 3) {
      const q = Float32Array.from(b.vecs.subarray(d * dims, (d + 1) * dims));
      const [x, y] = both(segs, q, { k: 3, method: 'auto', exactMaxVectors: 0, rescore: 2000 });
      assert.deepEqual(hitsOf(x), hitsOf(y));
      if (x.hits.length > 1 && x.hits[0]!.score === x.hits[1]!.score) tiedQueries++;
    }
    assert.ok(tiedQueries > 0, 'some queries have tied hits');
  });

  test('without the error bound the hits differ from the float path (the bound is what keeps them exact)', () => {
    let differ = 0;
    scaleInt8BoundForTests(0);
    try {
      for (let qi = 0; qi < 60 && differ === 0; qi++) {
        const q = query(dims, 900 + qi, qi % 2 === 0 ? docRow(0, (qi * 53) % 3001) : null);
        const [a, b] = both(segs, q, { k: 10, method: 'auto', exactMaxVectors: 0, rescore: 2000 });
        if (JSON.stringify(hitsOf(a)) !== JSON.stringify(hitsOf(b))) differ++;
      }
    } finally {
      scaleInt8BoundForTests(1);
    }
    assert.ok(differ > 0, 'removing the bound changes some query\'s hits');
  });

  test('a non-finite query falls back to the float pool', () => {
    const q = query(dims, 7, null);
    q[5] = Number.NaN;
    const r = searchVectors(segs, q, { k: 5, method: 'auto', exactMaxVectors: 0, rescore: 100 });
    assert.equal(r.floatRescored, undefined);
  });
});
