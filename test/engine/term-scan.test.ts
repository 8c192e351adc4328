// The sparse expansion's term scan (engine/term-scan.ts, engine/wasm/term-scan.wat, ADR 0310): the
// committed bytes are the assembled text; the integer kernel's candidates always hold the exact answer,
// so `nearestTerms` through the kernel equals the floating-point scan over every term (terms,
// similarities bit for bit, order, ties in vocabulary order, exclusions, the minimum similarity), on
// clustered random vocabularies, with duplicated vectors (exact ties) and with a trained model.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CorpusModel, documentTerms, fieldTerms, TrainingState } from '../../src/engine/index.js';
import { TermScan, termScanAvailable } from '../../src/engine/term-scan.js';
import { WASM_BASE64 } from '../../src/engine/wasm/term-scan.wasm.js';
import { mulberry32 } from '../helpers/random.js';
import { repoRoot } from '../helpers/paths.js';

/** A sparse model of `n` unit term vectors around a few shared directions; every `dupEvery`-th row repeats the previous one. */
function model(n: number, dims: number, seed: number, dupEvery = 0): CorpusModel {
  const rnd = mulberry32(seed);
  const centres = Array.from({ length: 12 }, () => Float32Array.from({ length: dims }, () => rnd() * 2 - 1));
  const v = new Float32Array(n * dims);
  for (let r = 0; r < n; r++) {
    if (dupEvery > 0 && r > 0 && r % dupEvery === 0) {
      v.copyWithin(r * dims, (r - 1) * dims, r * dims);
      continue;
    }
    const c = centres[Math.floor(rnd() * centres.length)]!;
    let s = 0;
    for (let j = 0; j < dims; j++) {
      const x = c[j]! * 0.8 + (rnd() * 2 - 1) * 0.6;
      v[r * dims + j] = x;
      s += x * x;
    }
    for (let j = 0; j < dims; j++) v[r * dims + j]! /= Math.sqrt(s);
  }
  const terms = Array.from({ length: n }, (_, r) => `t${r}`);
  return CorpusModel.build('sparse', dims, terms, new Float32Array(n).fill(1), v, n);
}

/** A query: the normalized sum of a few rows (as an embedding is), or a random unit vector. */
function query(m: CorpusModel, rnd: () => number, rows: number): { q: Float32Array; used: string[] } {
  const q = new Float32Array(m.dims);
  const used: string[] = [];
  if (rows === 0) for (let j = 0; j < m.dims; j++) q[j] = rnd() * 2 - 1;
  for (let k = 0; k < rows; k++) {
    const r = Math.floor(rnd() * m.terms.length);
    used.push(m.terms[r]!);
    for (let j = 0; j < m.dims; j++) q[j]! += m.vectors[r * m.dims + j]! * (0.5 + rnd());
  }
  const s = Math.hypot(...q);
  return { q: q.map((x) => x / s), used };
}

describe('term scan kernel (ADR 0310)', () => {
  test('the committed bytes are the assembled term-scan.wat', async () => {
    const { assemble, moduleText } = (await import(join(repoRoot, 'scripts', 'assemble-wasm.mjs'))) as {
      assemble(name: string, text: string): Promise<Uint8Array>;
      moduleText(name: string, bytes: Uint8Array): string;
    };
    const wat = readFileSync(join(repoRoot, 'src', 'engine', 'wasm', 'term-scan.wat'), 'utf8');
    const bytes = await assemble('term-scan.wat', wat);
    assert.equal(Buffer.from(bytes).toString('base64'), WASM_BASE64, 'run node scripts/assemble-wasm.mjs');
    assert.equal(readFileSync(join(repoRoot, 'src', 'engine', 'wasm', 'term-scan.wasm.ts'), 'utf8'), moduleText('term-scan.wat', bytes));
  });

  test('the kernel runs on this machine (Node 20 has WebAssembly SIMD)', () => {
    assert.equal(termScanAvailable(), true);
  });

  test('nearestTerms through the kernel equals the float scan: terms, similarities, order, exclusions', () => {
    let compared = 0;
    let narrowed = 0;
    for (const [n, dims, seed, dup] of [
      [3000, 128, 1, 0],
      [2500, 64, 2, 7],
      [700, 32, 3, 3],
      [4100, 32, 4, 0],
    ] as const) {
      const m = model(n, dims, seed, dup);
      const rnd = mulberry32(seed * 31);
      const scan = TermScan.build(m.vectors, n, dims)!;
      for (let i = 0; i < 60; i++) {
        const { q, used } = query(m, rnd, i % 5);
        const exclude = new Set(i % 2 === 0 ? used : []);
        for (const [max, minSim] of [
          [8, 0.2],
          [1, 0],
          [24, -1],
          [8, 0.95],
        ] as const) {
          const exact = m.nearestTerms(q, max, minSim, exclude, 'exact');
          const viaKernel = m.nearestTerms(q, max, minSim, exclude, 'kernel');
          assert.deepEqual(viaKernel, exact, `n ${n} dims ${dims} query ${i} max ${max} min ${minSim}`);
          const rows = scan.candidates(q, max, minSim, new Set([...exclude].map((t) => m.row(t))))!;
          if (rows.length < n) narrowed++;
          compared++;
        }
      }
    }
    // the candidates are a small part of the vocabulary for most queries (else the kernel buys nothing)
    assert.ok(narrowed > compared * 0.5, `${narrowed} of ${compared} scans narrowed`);
  });

  test('exact ties keep vocabulary order through the kernel', () => {
    const m = model(3000, 64, 9, 2);
    // a query equal to a duplicated row: the row and its copy tie exactly
    const q = Float32Array.from(m.vectors.subarray(4 * 64, 5 * 64));
    const exact = m.nearestTerms(q, 3, 0, new Set(), 'exact');
    assert.equal(exact[0]!.similarity, exact[1]!.similarity);
    assert.deepEqual(m.nearestTerms(q, 3, 0, new Set(), 'kernel'), exact);
    assert.deepEqual(
      m.nearestTerms(q, 3, 0, new Set([exact[0]!.term]), 'kernel'),
      m.nearestTerms(q, 3, 0, new Set([exact[0]!.term]), 'exact'),
    );
  });

  test('a trained expansion model gives the same expansion through the kernel', () => {
    const heart = ['heart attack outcomes', 'myocardial infarction in adults', 'cardiac arrest and heart failure', 'coronary artery disease'];
    const rock = ['sandstone porosity', 'reservoir rock permeability', 'sediment and sandstone diagenesis', 'porous rock reservoir pressure'];
    const st = new TrainingState();
    for (let i = 0; i < 80; i++) st.set(`d${i}`, fieldTerms((i % 2 ? heart : rock)[i % 4]!, `${(i % 2 ? heart : rock)[(i >> 1) % 4]} sample ${i}`, 'en'));
    const { sparse } = st.train({ dims: 32, contrastiveEpochs: 1, contrastiveBatch: 8, expansionMaxDfShare: 0.6, expansionMinDf: 1 });
    for (const text of ['heart attack', 'sandstone reservoir', 'coronary', 'rock heart']) {
      const bag = documentTerms('', text, 'en');
      const e = sparse.embed(bag);
      if (e === null) continue;
      const ex = new Set(bag.keys());
      assert.deepEqual(sparse.nearestTerms(e, 8, 0, ex, 'kernel'), sparse.nearestTerms(e, 8, 0, ex, 'exact'), text);
    }
  });

  test('queries it cannot scale fall back to the float scan (same answer)', () => {
    const m = model(2100, 32, 5);
    const q = new Float32Array(32);
    q[0] = NaN;
    assert.deepEqual(m.nearestTerms(q, 4, -1, new Set(), 'kernel'), m.nearestTerms(q, 4, -1, new Set(), 'exact'));
    const zero = new Float32Array(32);
    assert.deepEqual(m.nearestTerms(zero, 4, -1, new Set(), 'kernel'), m.nearestTerms(zero, 4, -1, new Set(), 'exact'));
  });
});
