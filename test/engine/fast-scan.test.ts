// The WebAssembly fast-scan grading kernel of the dense `quantized` path (engine/fast-scan.ts,
// engine/wasm/fast-scan.wat, ADR 0140): the committed bytes are the assembled text; the kernel's grades
// equal the JavaScript reference grade bit for bit (random codes, odd sizes, segments not a multiple of
// the block); searchVectors with the kernel rescores exactly the candidates a JavaScript run of the same
// grades selects, keeps deleted, vectorless and filtered-out documents out, equals the exact scan when
// the pool covers every document, and keeps the JavaScript path's recall.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { disableFastScan, FAST_SCAN_BLOCK, fastScanAvailable, FastScanCodes, fastScanTables, referenceGrade } from '../../src/engine/fast-scan.js';
import { searchVectors, SegmentVectors, type VectorSegment } from '../../src/engine/doc-vectors.js';
import { WASM_BASE64 } from '../../src/engine/wasm/fast-scan.wasm.js';
import type { Segment } from '../../src/engine/segment.js';
import { documentTerms, fieldTerms, MemoryIndexDirectory, SearchIndex, TrainingState } from '../../src/engine/index.js';
import { mulberry32 } from '../helpers/random.js';
import { repoRoot } from '../helpers/paths.js';

/** `n` random unit vectors of `dims` dimensions (some rows null: documents without a vector). */
function rows(n: number, dims: number, seed: number, nullEvery = 0): (Float32Array | null)[] {
  const rnd = mulberry32(seed);
  // a few shared directions so that neighbours exist (pure noise has no meaningful nearest ones)
  const centres = Array.from({ length: 8 }, () => Float32Array.from({ length: dims }, () => rnd() * 2 - 1));
  return Array.from({ length: n }, (_, d) => {
    if (nullEvery > 0 && d % nullEvery === nullEvery - 1) return null;
    const c = centres[Math.floor(rnd() * centres.length)]!;
    return Float32Array.from({ length: dims }, (_, j) => c[j]! * 0.6 + (rnd() * 2 - 1));
  });
}

/** A stand-in segment: the vector kernel needs only ids and the document count. */
function segment(name: string, v: SegmentVectors): VectorSegment {
  const seg = { id: (d: number) => `${name}${d}`, docCount: v.docs } as unknown as Segment;
  return { seg, deleted: null, deletedCount: 0, vectors: v };
}

function unit(dims: number, seed: number): Float32Array {
  const rnd = mulberry32(seed);
  const q = Float32Array.from({ length: dims }, () => rnd() * 2 - 1);
  const s = Math.hypot(...q);
  return q.map((x) => x / s);
}

describe('fast-scan kernel (ADR 0140)', () => {
  test('the committed bytes are the assembled fast-scan.wat', async () => {
    // scripts/assemble-wasm.mjs assembles with wabt; this re-assembles and compares
    const { assemble, moduleText } = (await import(join(repoRoot, 'scripts', 'assemble-wasm.mjs'))) as {
      assemble(name: string, text: string): Promise<Uint8Array>;
      moduleText(name: string, bytes: Uint8Array): string;
    };
    const wat = readFileSync(join(repoRoot, 'src', 'engine', 'wasm', 'fast-scan.wat'), 'utf8');
    const bytes = await assemble('fast-scan.wat', wat);
    assert.equal(Buffer.from(bytes).toString('base64'), WASM_BASE64, 'run node scripts/assemble-wasm.mjs');
    assert.equal(readFileSync(join(repoRoot, 'src', 'engine', 'wasm', 'fast-scan.wasm.ts'), 'utf8'), moduleText('fast-scan.wat', bytes));
  });

  test('Node runs the kernel (WebAssembly SIMD)', () => {
    assert.ok(fastScanAvailable());
  });

  test('kernel grades equal the JavaScript reference for random codes, odd sizes and widths', () => {
    for (const [n, dims, seed] of [[1, 32, 1], [15, 128, 2], [16, 128, 3], [17, 64, 4], [1000, 128, 5], [333, 256, 6], [50, 2048, 7]] as const) {
      const v = SegmentVectors.fromRows('m', dims, rows(n, dims, seed, 7));
      const fs = FastScanCodes.build(v.codes, v.present, v.docs, dims)!;
      assert.ok(fs !== null);
      assert.equal(fs.blocks, Math.ceil(n / FAST_SCAN_BLOCK));
      const by = new Uint8Array(v.codes.buffer, v.codes.byteOffset, v.codes.byteLength);
      for (let qi = 0; qi < 5; qi++) {
        const t = fastScanTables(unit(dims, seed * 100 + qi));
        assert.ok(t.tables.every((e) => e <= 127));
        const g = fs.grade(t);
        for (let d = 0; d < n; d++) {
          const r = referenceGrade(t, by, d);
          assert.equal(g[d], r, `n ${n} dims ${dims} doc ${d}`);
          assert.ok(r <= t.maxGrade);
        }
      }
    }
  });

  test('grades order documents like the float asymmetric score q . sign(x), up to the 8-bit tables', () => {
    const dims = 128;
    const v = SegmentVectors.fromRows('m', dims, rows(500, dims, 11));
    const q = unit(dims, 12);
    const t = fastScanTables(q);
    const g = FastScanCodes.build(v.codes, v.present, v.docs, dims)!.grade(t);
    const by = new Uint8Array(v.codes.buffer);
    // the float score from the sign bits
    const exact = Array.from({ length: 500 }, (_, d) => {
      let s = 0;
      for (let j = 0; j < dims; j++) s += (by[d * 16 + (j >>> 3)]! >>> (j & 7)) & 1 ? q[j]! : -q[j]!;
      return s;
    });
    // grade = (score + |q|_1) x scale, each of 32 tables rounded: |error| <= 16 units of the scale
    let l1 = 0;
    for (const x of q) l1 += Math.abs(x);
    const fit = exact.map((s, d) => [s, g[d]!] as const);
    const scale = (fit.reduce((a, [s, gg]) => a + gg * (s + l1), 0)) / fit.reduce((a, [s]) => a + (s + l1) ** 2, 0);
    for (const [s, gg] of fit) assert.ok(Math.abs(gg - (s + l1) * scale) <= 16.5, `grade ${gg} vs ${(s + l1) * scale}`);
  });

  test('searchVectors with the kernel: same candidates as the reference grades, deleted / vectorless / filtered documents excluded, exact when the pool covers all', () => {
    const dims = 128;
    // three segments, none a multiple of the block, one with documents without vectors
    const segs = [
      segment('a', SegmentVectors.fromRows('m', dims, rows(1001, dims, 21))),
      segment('b', SegmentVectors.fromRows('m', dims, rows(77, dims, 22, 5))),
      segment('c', SegmentVectors.fromRows('m', dims, rows(530, dims, 23))),
    ];
    // deletions through the snapshot's deleted bitset
    const deleted = new Uint32Array(Math.ceil(1001 / 32));
    for (const d of [0, 3, 500, 1000]) deleted[d >>> 5]! |= 1 << (d & 31);
    segs[0] = { ...segs[0]!, deleted, deletedCount: 4 };
    const total = 1001 - 4 + 77 - 15 + 530;
    for (let qi = 0; qi < 8; qi++) {
      const q = unit(dims, 300 + qi);
      const exact = searchVectors(segs, q, { k: 11, method: 'exact' });
      const wasm = searchVectors(segs, q, { k: 11, method: 'auto', exactMaxVectors: 0, rescore: 200 });
      assert.equal(wasm.method, 'quantized');
      assert.equal(wasm.kernel, 'wasm');
      assert.equal(wasm.scanned, total);
      assert.equal(wasm.rescored, 200);
      for (const h of wasm.hits) assert.ok(!['a0', 'a3', 'a500', 'a1000'].includes(h.id) && !/^b\d*4$|^b\d*9$/.test(h.id), h.id);
      // the same selection from grades computed in JavaScript: every hit is among the best 200 reference grades
      const t = fastScanTables(q);
      const graded: [number, string][] = [];
      for (const s of segs) {
        const v = s.vectors!;
        const by = new Uint8Array(v.codes.buffer, v.codes.byteOffset, v.codes.byteLength);
        for (let d = 0; d < v.docs; d++) {
          if (v.present[d] === 0 || (s.deleted !== null && (s.deleted[d >>> 5]! >>> (d & 31)) & 1)) continue;
          graded.push([referenceGrade(t, by, d), s.seg.id(d)]);
        }
      }
      graded.sort((x, y) => y[0] - x[0]);
      const cut = graded[199]![0];
      const sure = new Set(graded.filter(([g]) => g > cut).map(([, id]) => id));
      const possible = new Set(graded.filter(([g]) => g >= cut).map(([, id]) => id));
      // hits are the exact top-11 of the rescored candidates: each exact hit that is surely a candidate is found
      const got = new Set(wasm.hits.map((h) => h.id));
      for (const h of wasm.hits) assert.ok(possible.has(h.id));
      for (const h of exact.hits) if (sure.has(h.id)) assert.ok(got.has(h.id), `${h.id} was a candidate`);
      // a pool covering every document: the exact scan's hits and scores
      const all = searchVectors(segs, q, { k: 11, method: 'auto', exactMaxVectors: 0, rescore: 5000 });
      assert.deepEqual(all.hits.map((h) => [h.id, h.score]), exact.hits.map((h) => [h.id, h.score]));
    }
  });

  test('filters through the index: a short id list (graded in JavaScript), a type filter (the kernel), deletions', () => {
    const st = new TrainingState();
    const rnd = mulberry32(61);
    const vocab = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}x`);
    const docs = Array.from({ length: 1200 }, (_, d) => {
      const topic = Math.floor(rnd() * 20) * 20;
      const words = (k: number) => Array.from({ length: k }, () => vocab[(topic + Math.floor(rnd() * 40)) % 400]).join(' ');
      return { id: `t${d}`, title: words(5), abstract: words(25) };
    });
    for (const d of docs) st.set(d.id, fieldTerms(d.title, d.abstract, 'en'));
    const { dense } = st.train({ dims: 32, contrastiveEpochs: 0, ivfMinDocs: Infinity });
    const idx = SearchIndex.open(new MemoryIndexDirectory());
    docs.forEach((d, i) => {
      idx.add({ id: d.id, title: d.title, abstract: d.abstract, language: 'en', type: i % 3 === 0 ? 'review' : 'article' });
      if (i === 700) idx.commit('a');
    });
    idx.commit('b');
    idx.setVectorModel({ id: 'm', model: dense });
    idx.delete('t5');
    idx.commit('del');
    const ids = docs.filter((_, i) => i % 97 === 5).map((d) => d.id); // 13 ids: a short candidate list
    for (const probe of docs.slice(0, 10)) {
      const q = dense.embed(documentTerms(probe.title, null, 'en'))!;
      for (const filters of [{ ids }, { types: ['review'] }, undefined]) {
        const exact = idx.searchVectors({ vector: q, method: 'exact', limit: 10, ...(filters ? { filters } : {}) });
        const all = idx.searchVectors({ vector: q, method: 'auto', limit: 10, exactMaxVectors: 0, rescore: 2000, ...(filters ? { filters } : {}) });
        assert.equal(all.kernel, 'wasm');
        assert.deepEqual(all.hits.map((h) => [h.id, h.score]), exact.hits.map((h) => [h.id, h.score]));
        const few = idx.searchVectors({ vector: q, method: 'auto', limit: 10, exactMaxVectors: 0, rescore: 40, ...(filters ? { filters } : {}) });
        assert.equal(few.rescored, Math.min(40, few.scanned));
        for (const h of few.hits) {
          assert.notEqual(h.id, 't5');
          if (filters?.ids) assert.ok(ids.includes(h.id));
          if (filters?.types) assert.equal(Number(h.id.slice(1)) % 3, 0);
        }
      }
    }
  });

  test('recall@10 against the exact scan matches the JavaScript kernel (pool 200 of 4,000)', () => {
    const dims = 128;
    const segs = [segment('a', SegmentVectors.fromRows('m', dims, rows(3000, dims, 41))), segment('b', SegmentVectors.fromRows('m', dims, rows(1000, dims, 42)))];
    let hitW = 0;
    let hitJ = 0;
    let total = 0;
    for (let qi = 0; qi < 40; qi++) {
      // queries near documents, as real queries are
      const base = segs[0]!.vectors!.vecs.subarray(qi * 50 * dims, (qi * 50 + 1) * dims);
      const noise = unit(dims, 500 + qi);
      const q = base.map((x, j) => x + 0.5 * noise[j]!);
      const s = Math.hypot(...q);
      q.forEach((x, j) => (q[j] = x / s));
      const truth = new Set(searchVectors(segs, q, { k: 10, method: 'exact' }).hits.map((h) => h.id));
      const w = searchVectors(segs, q, { k: 10, method: 'auto', exactMaxVectors: 0, rescore: 200 });
      const j = searchVectors(segs, q, { k: 10, method: 'auto', exactMaxVectors: 0, rescore: 200, kernel: 'js' });
      assert.equal(j.kernel, 'js');
      hitW += w.hits.filter((h) => truth.has(h.id)).length;
      hitJ += j.hits.filter((h) => truth.has(h.id)).length;
      total += truth.size;
    }
    const rw = hitW / total;
    const rj = hitJ / total;
    assert.ok(rw >= rj - 0.02, `wasm recall ${rw} vs js ${rj}`);
    assert.ok(rw >= 0.8, `wasm recall ${rw}`);
  });

  test('switched off, the JavaScript kernel runs', () => {
    const dims = 64;
    const segs = [segment('a', SegmentVectors.fromRows('m', dims, rows(300, dims, 51)))];
    disableFastScan(true);
    try {
      const fresh = [segment('b', SegmentVectors.fromRows('m', dims, rows(300, dims, 52)))];
      assert.equal(searchVectors(fresh, unit(dims, 1), { k: 5, method: 'auto', exactMaxVectors: 0 }).kernel, 'js');
    } finally {
      disableFastScan(false);
    }
    assert.equal(searchVectors(segs, unit(dims, 1), { k: 5, method: 'auto', exactMaxVectors: 0 }).kernel, 'wasm');
  });
});
