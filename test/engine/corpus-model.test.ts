// Corpus-trained models (engine/corpus-model.ts, lsa.ts) and document vectors (doc-vectors.ts):
// the linear algebra against exact answers, determinism, the saved state, what the models learn,
// and vectors stored with the segments (flush, reopen, merge, deletes, model change, binary search).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CorpusModel, MemoryIndexDirectory, SearchIndex, TrainingState, documentTerms, fieldTerms, popcount32 } from '../../src/engine/index.js';
import { orthonormalizeColumns, randomizedSvd, SeededRandom, symmetricEigen, type Csr } from '../../src/engine/lsa.js';

/** A small corpus with two vocabularies that co-occur: cardiology and geology. */
function corpus(n = 60): { id: string; title: string; abstract: string }[] {
  const heart = ['heart attack outcomes', 'myocardial infarction in adults', 'cardiac arrest and heart failure', 'coronary artery disease and myocardial damage'];
  const heartAbs = ['Myocardial infarction (heart attack) follows coronary occlusion; cardiac troponin rises.', 'Patients with heart failure after myocardial infarction; coronary reperfusion and cardiac outcomes.'];
  const rock = ['sandstone porosity', 'reservoir rock permeability', 'sediment and sandstone diagenesis', 'porous rock reservoir pressure'];
  const rockAbs = ['Sandstone porosity and permeability of reservoir rock; sediment compaction.', 'Diagenesis of sediment reduces porosity; reservoir rock pressure and permeability.'];
  return Array.from({ length: n }, (_, i) => {
    const h = i % 2 === 0;
    return { id: `d${i}`, title: (h ? heart : rock)[i % 4]!, abstract: `${(h ? heartAbs : rockAbs)[(i >> 1) % 2]} Sample ${i}.` };
  });
}

function trained(dims = 32) {
  const st = new TrainingState();
  for (const d of corpus()) st.set(d.id, fieldTerms(d.title, d.abstract, 'en'));
  return { st, ...st.train({ dims, contrastiveEpochs: 2, contrastiveBatch: 8, expansionMaxDfShare: 0.6 }) };
}

describe('corpus models: linear algebra', () => {
  test('randomized SVD finds the singular values of a sparse matrix (against the exact eigenvalues of A^T A)', () => {
    const rnd = new SeededRandom(7);
    const rows = 40;
    const cols = 12;
    const start = new Uint32Array(rows + 1);
    const col: number[] = [];
    const val: number[] = [];
    const dense = new Float64Array(rows * cols);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        if (rnd.next() < 0.4) {
          const v = rnd.gaussian();
          col.push(c);
          val.push(v);
          dense[r * cols + c] = Math.fround(v);
        }
      }
      start[r + 1] = col.length;
    }
    const a: Csr = { rows, cols, start, col: Uint32Array.from(col), val: Float32Array.from(val) };
    const ata = new Float64Array(cols * cols);
    for (let r = 0; r < rows; r++) for (let i = 0; i < cols; i++) for (let j = 0; j < cols; j++) ata[i * cols + j]! += dense[r * cols + i]! * dense[r * cols + j]!;
    const exact = symmetricEigen(ata, cols).values;
    const svd = randomizedSvd(a, 4, { oversample: 8, powerIterations: 3 });
    for (let i = 0; i < 4; i++) assert.ok(Math.abs(svd.values[i]! - Math.sqrt(exact[i]!)) < 1e-6 * Math.sqrt(exact[0]!), `singular value ${i}`);
  });

  test('CholeskyQR2 leaves orthonormal columns spanning the same space', () => {
    const rnd = new SeededRandom(3);
    const n = 50;
    const k = 6;
    const y = new Float64Array(n * k);
    for (let i = 0; i < y.length; i++) y[i] = rnd.gaussian();
    const before = Float64Array.from(y);
    orthonormalizeColumns(y, n, k);
    for (let i = 0; i < k; i++)
      for (let j = 0; j < k; j++) {
        let d = 0;
        for (let r = 0; r < n; r++) d += y[r * k + i]! * y[r * k + j]!;
        assert.ok(Math.abs(d - (i === j ? 1 : 0)) < 1e-9, `q${i}.q${j} = ${d}`);
      }
    // the first column is the normalized first input column (triangular factor)
    let norm = 0;
    for (let r = 0; r < n; r++) norm += before[r * k]! ** 2;
    for (let r = 0; r < n; r++) assert.ok(Math.abs(y[r * k]! - before[r * k]! / Math.sqrt(norm)) < 1e-9);
  });

  test('popcount32 counts bits', () => {
    const rnd = new SeededRandom(1);
    for (let i = 0; i < 1000; i++) {
      const x = Math.floor(rnd.next() * 2 ** 32) >>> 0;
      let naive = 0;
      for (let b = 0; b < 32; b++) if ((x >>> b) & 1) naive++;
      assert.equal(popcount32(x), naive);
    }
    assert.equal(popcount32(0xffffffff), 32);
  });
});

describe('corpus models: training', () => {
  test('training is deterministic and the state survives serialization (same models byte for byte)', () => {
    const a = trained();
    const again = TrainingState.parse(a.st.serialize());
    assert.equal(again.documents, 60);
    const b = again.train({ dims: 32, contrastiveEpochs: 2, contrastiveBatch: 8, expansionMaxDfShare: 0.6 });
    assert.deepEqual(a.dense.serialize(), b.dense.serialize());
    assert.deepEqual(a.sparse.serialize(), b.sparse.serialize());
    const parsed = CorpusModel.parse(a.dense.serialize());
    assert.equal(parsed.dims, 32);
    assert.deepEqual([...parsed.terms], [...a.dense.terms]);
    assert.throws(() => CorpusModel.parse(a.dense.serialize().subarray(0, 200)), /truncated|corrupt|layout/);
  });

  test('the models relate co-occurring vocabulary: heart attack is near myocardial terms, far from sandstone', () => {
    const { dense, sparse } = trained();
    const q = dense.embed(documentTerms('', 'heart attack', 'en'))!;
    const cardio = dense.embed(documentTerms('', 'myocardial infarction coronary', 'en'))!;
    const rock = dense.embed(documentTerms('', 'sandstone porosity sediment', 'en'))!;
    const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i]!, 0);
    assert.ok(dot(q, cardio) > dot(q, rock) + 0.3, `${dot(q, cardio)} vs ${dot(q, rock)}`);
    const near = sparse.nearestTerms(sparse.embed(documentTerms('', 'heart attack', 'en'))!, 6, 0, new Set(['heart', 'attack']));
    assert.ok(near.some((n) => /myocardi|infarct|coronari|cardiac/.test(n.term)), JSON.stringify(near));
    assert.ok(!near.some((n) => /sandston|poros/.test(n.term)));
    assert.equal(dense.embed(new Map([['zzzunknown', 1]])), null);
  });

  test('incremental: removing and replacing documents changes the state; an empty state trains nothing', () => {
    const st = new TrainingState();
    st.set('a', fieldTerms('x', 'y', 'en'));
    st.set('a', fieldTerms('heart', 'attack', 'en'));
    assert.equal(st.documents, 1);
    st.remove('a');
    assert.equal(st.documents, 0);
  });
});

describe('document vectors in segments', () => {
  const build = (dir = new MemoryIndexDirectory(), flushOccurrences?: number) => {
    const idx = SearchIndex.open(dir, flushOccurrences ? { flushOccurrences } : {});
    return { idx, dir };
  };
  const add = (idx: SearchIndex, docs = corpus()) => {
    for (const d of docs) idx.add({ id: d.id, title: d.title, abstract: d.abstract, language: 'en', type: Number(d.id.slice(1)) % 3 === 0 ? 'review' : 'article' });
  };

  test('vectors from the postings equal the embedding of the same title+abstract terms', () => {
    const { dense } = trained();
    const { idx } = build();
    add(idx);
    idx.commit('1');
    assert.equal(idx.setVectorModel({ id: 'm1', model: dense }), 1);
    for (const d of corpus().slice(0, 10)) {
      const want = dense.embed(documentTerms(d.title, d.abstract, 'en'))!;
      const got = idx.documentVector(d.id)!;
      for (let j = 0; j < want.length; j++) assert.ok(Math.abs(want[j]! - got[j]!) < 1e-5);
    }
    assert.deepEqual(idx.vectorStatus(), { modelId: 'm1', dims: 32, segments: 1, segmentsWithVectors: 1, documents: 60, documentsWithVectors: 60 });
  });

  test('exact search is the brute-force cosine ranking, with filters; binary finds the same neighbours', () => {
    const { dense } = trained();
    const { idx } = build();
    add(idx);
    idx.commit('1');
    idx.setVectorModel({ id: 'm1', model: dense });
    const q = dense.embed(documentTerms('', 'coronary heart', 'en'))!;
    const brute = corpus()
      .map((d) => ({ id: d.id, s: idx.documentVector(d.id)!.reduce((a, v, i) => a + v * q[i]!, 0) }))
      .sort((a, b) => b.s - a.s || (a.id < b.id ? -1 : 1));
    const exact = idx.searchVectors({ vector: q, method: 'exact', limit: 10 });
    assert.deepEqual(exact.hits.map((h) => h.id), brute.slice(0, 10).map((b) => b.id));
    const reviews = idx.searchVectors({ vector: q, method: 'exact', limit: 5, filters: { types: ['review'] } });
    assert.ok(reviews.hits.every((h) => Number(h.id.slice(1)) % 3 === 0));
    const bin = idx.searchVectors({ vector: q, method: 'binary', limit: 10, rescore: 60 });
    assert.deepEqual(bin.hits.map((h) => h.id), exact.hits.map((h) => h.id), 'rescoring the whole pool gives the exact ranking');
    const scores = bin.hits.map((h) => h.score);
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
  });

  test('vectors are written at flush, survive reopening, follow merges and deletes; a new model replaces their files', () => {
    const { dense } = trained();
    const dir = new MemoryIndexDirectory();
    let idx = SearchIndex.open(dir);
    idx.setVectorModel({ id: 'm1', model: dense });
    add(idx, corpus().slice(0, 30));
    idx.commit('1');
    add(idx, corpus().slice(30));
    idx.delete('d0');
    idx.commit('2');
    assert.equal(idx.vectorStatus().segmentsWithVectors, 2, 'flushes wrote vectors');
    const v5 = idx.documentVector('d5')!;
    idx.close();
    idx = SearchIndex.open(dir);
    // reopened without a model: the files are kept (named by the manifest) but not searched
    assert.equal(idx.vectorStatus().segmentsWithVectors, 0);
    assert.equal(idx.setVectorModel({ id: 'm1', model: dense }), 0, 'nothing recomputed: the stored vectors are under this model');
    assert.deepEqual(idx.documentVector('d5'), v5);
    idx.forceMerge(1);
    assert.equal(idx.vectorStatus().segments, 1);
    assert.equal(idx.vectorStatus().documentsWithVectors, 59);
    assert.deepEqual(idx.documentVector('d5'), v5);
    assert.equal(idx.documentVector('d0'), null);
    const q = dense.embed(documentTerms('', 'heart', 'en'))!;
    assert.ok(!idx.searchVectors({ vector: q, method: 'exact', limit: 60 }).hits.some((h) => h.id === 'd0'));
    assert.equal(dir.list().filter((f) => f.includes('.vec-')).length, 1, 'old segments\' vector files were collected');
    const other = TrainingState.parse(trained().st.serialize()).train({ dims: 64, contrastiveEpochs: 0 }).dense;
    assert.equal(idx.setVectorModel({ id: 'm2', model: other }), 1);
    assert.equal(idx.documentVector('d5')!.length, 64);
    const files = dir.list().filter((f) => f.includes('.vec-'));
    assert.equal(files.length, 1);
    assert.match(files[0]!, /\.vec-m2$/);
    idx.close();
  });

  test('sparse expansion: weighted extra clauses find documents without the query words; heap factor 1 is exact', () => {
    const { idx } = build();
    add(idx);
    idx.commit('1');
    const failure = [...documentTerms('', 'failure', 'en').keys()][0]!;
    const plain = idx.search({ text: 'troponin', limit: 60, passagesPerHit: 0 });
    const expanded = idx.search({ text: 'troponin', limit: 60, passagesPerHit: 0, expansion: [{ term: failure, weight: 0.1 }] });
    assert.ok(expanded.totalHits > plain.totalHits);
    // a query word keeps its rank: the expansion adds at most 0.1 of a clause
    assert.equal(expanded.hits[0]!.id, plain.hits[0]!.id);
    const exh = idx.search({ text: 'heart coronary', limit: 5, passagesPerHit: 0, expansion: [{ term: 'myocardi', weight: 0.3 }], exhaustive: true });
    const hf1 = idx.search({ text: 'heart coronary', limit: 5, passagesPerHit: 0, expansion: [{ term: 'myocardi', weight: 0.3 }], heapFactor: 1 });
    assert.deepEqual(hf1.hits.map((h) => [h.id, h.score]), exh.hits.map((h) => [h.id, h.score]));
    const approx = idx.search({ text: 'heart coronary', limit: 5, passagesPerHit: 0, expansion: [{ term: 'myocardi', weight: 0.3 }], heapFactor: 0.5 });
    assert.equal(approx.hits.length, 5);
  });

  test('IVF: a model trained with a coarse quantizer gives segments inverted lists; probing every list is exact, fewer lists scan less; lists survive reopening', () => {
    const st = new TrainingState();
    for (const d of corpus()) st.set(d.id, fieldTerms(d.title, d.abstract, 'en'));
    const { dense } = st.train({ dims: 32, contrastiveEpochs: 1, contrastiveBatch: 8, ivfMinDocs: 10 });
    assert.ok(dense.centroids);
    const lists = dense.centroids.length / 32;
    assert.equal(lists, 16);
    assert.equal(CorpusModel.parse(dense.serialize()).centroids!.length, dense.centroids.length);
    const dir = new MemoryIndexDirectory();
    let idx = SearchIndex.open(dir);
    add(idx);
    idx.commit('1');
    idx.setVectorModel({ id: 'ivf', model: dense });
    const q = dense.embed(documentTerms('', 'coronary heart', 'en'))!;
    const exact = idx.searchVectors({ vector: q, method: 'exact', limit: 10 });
    const all = idx.searchVectors({ vector: q, method: 'ivf', limit: 10, nprobe: lists });
    assert.equal(all.method, 'ivf');
    assert.deepEqual(all.hits.map((h) => [h.id, h.score]), exact.hits.map((h) => [h.id, h.score]));
    const few = idx.searchVectors({ vector: q, method: 'ivf', limit: 10, nprobe: 2 });
    assert.ok(few.scanned < exact.scanned, `${few.scanned} < ${exact.scanned}`);
    idx.close();
    idx = SearchIndex.open(dir);
    idx.setVectorModel({ id: 'ivf', model: dense });
    assert.deepEqual(idx.searchVectors({ vector: q, method: 'ivf', limit: 10, nprobe: 2 }).hits.map((h) => h.id), few.hits.map((h) => h.id));
    // without a quantizer, ivf is the exact scan
    const plain = TrainingState.parse(st.serialize()).train({ dims: 32, contrastiveEpochs: 0 }).dense;
    assert.equal(plain.centroids, null);
    idx.setVectorModel({ id: 'plain', model: plain });
    assert.equal(idx.searchVectors({ vector: plain.embed(documentTerms('', 'heart', 'en'))!, method: 'ivf', limit: 5 }).method, 'exact');
    idx.close();
  });
});

describe('corpus models: training options of issue 27 (off by default)', () => {
  const bag = (c: number[], w: number[]) => ({ c: Int32Array.from(c), w: Float32Array.from(w) });

  test('BM25 hard negatives: each title gets the best-matching abstract that is not its own', async () => {
    const { bm25HardNegatives } = await import('../../src/engine/corpus-model.js');
    const idf = Float32Array.from([1, 1, 1, 1, 1]);
    // counts 1 everywhere: weight (1 + ln 1) x idf = 1
    const abstracts = [bag([0, 1], [1, 1]), bag([0, 2], [1, 1]), bag([3], [1]), bag([4], [1])];
    const pairs = [
      { q: Int32Array.from([0, 1]), qw: Float32Array.from([1, 1]), d: abstracts[0]!.c, dw: abstracts[0]!.w },
      { q: Int32Array.from([2]), qw: Float32Array.from([1]), d: abstracts[1]!.c, dw: abstracts[1]!.w },
      { q: Int32Array.from([3]), qw: Float32Array.from([1]), d: abstracts[2]!.c, dw: abstracts[2]!.w },
      { q: Int32Array.from([4, 0]), qw: Float32Array.from([1, 1]), d: abstracts[3]!.c, dw: abstracts[3]!.w },
    ];
    const hard = bm25HardNegatives(pairs, abstracts, 5, idf);
    // title 0 (terms 0,1): abstract 1 shares term 0; title 1 (term 2): only its own has it; title 2: none
    // but its own; title 3 (terms 4,0): abstracts 0 and 1 share term 0, both length 2: the first wins
    assert.deepEqual([...hard], [1, -1, -1, 0]);
  });

  test('split views: two disjoint halves that together are the bag, the same for the same seed', async () => {
    const { splitView } = await import('../../src/engine/corpus-model.js');
    const a = bag([3, 5, 7, 9, 11], [0.5, 1, 1.5, 2, 2.5]);
    const p = splitView(a, new SeededRandom(3))!;
    const q = splitView(a, new SeededRandom(3))!;
    assert.deepEqual([...p.q], [...q.q]);
    assert.equal(p.q.length, 2);
    assert.equal(p.d.length, 3);
    const all = [...p.q, ...p.d].sort((x, y) => x - y);
    assert.deepEqual(all, [3, 5, 7, 9, 11]);
    // weights travel with their terms
    [...p.q].forEach((t, i) => assert.equal(p.qw[i], a.w[[...a.c].indexOf(t)]));
    assert.equal(splitView(bag([1], [1]), new SeededRandom(1)), null);
  });

  test('defaults (ADR 0317): temperature 0.1 and split pairs of titled documents; each option is deterministic and changes the vectors', () => {
    const st = new TrainingState();
    for (const d of corpus()) st.set(d.id, fieldTerms(d.title, d.abstract, 'en'));
    // a document without a title: `titled` makes no split pair of it, `true` does
    st.set('untitled', fieldTerms('', 'Coronary reperfusion after myocardial infarction; sandstone porosity and reservoir pressure.', 'en'));
    const base = { dims: 32, contrastiveEpochs: 2, contrastiveBatch: 8, expansionMaxDfShare: 0.6 };
    const byDefault = st.train(base).dense.vectors;
    assert.deepEqual(st.train({ ...base, contrastiveTemperature: 0.1, contrastiveSplitPairs: 'titled', contrastiveHardNegatives: false }).dense.vectors, byDefault);
    const variants = [{ contrastiveSplitPairs: false }, { contrastiveSplitPairs: true }, { contrastiveTemperature: 0.05 }, { contrastiveHardNegatives: true }] as const;
    for (const o of variants) {
      const a = st.train({ ...base, ...o }).dense.vectors;
      const b = st.train({ ...base, ...o }).dense.vectors;
      assert.deepEqual(a, b, JSON.stringify(o));
      let diff = 0;
      for (let i = 0; i < a.length; i++) diff += Math.abs(a[i]! - byDefault[i]!);
      assert.ok(diff > 1e-3, `${JSON.stringify(o)} changes the vectors (${diff})`);
    }
  });

  test('hard negatives push a title away from its hardest other abstract more than in-batch training does', () => {
    // 4 topics of 20 documents; a title names its topic and one word shared with its own abstract and
    // with the abstract of a neighbour of the same topic (its BM25 hard negative); the own abstract also
    // carries a second word of the title
    const W = (k: string, i: number) => `${k}${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`;
    const topics = ['alpha', 'beta', 'gamma', 'delta'].map((t) => Array.from({ length: 8 }, (_, j) => W(t, j)));
    const n = 80;
    const docs = Array.from({ length: n }, (_, i) => {
      const tp = topics[i % 4]!;
      const shared = W('share', i);
      const own = W('own', i);
      const prevShared = W('share', (i + n - 4) % n);
      return {
        id: `d${i}`,
        title: `${tp[i % 8]} ${shared} ${own}`,
        abstract: `${tp[(i + 1) % 8]} ${tp[(i + 2) % 8]} ${tp[(i + 3) % 8]} ${shared} ${own} ${prevShared} ${W('filler', i % 13)}`,
      };
    });
    const st = new TrainingState();
    for (const d of docs) st.set(d.id, fieldTerms(d.title, d.abstract, 'en'));
    const base = { dims: 32, contrastiveEpochs: 4, contrastiveBatch: 16, expansionMaxDfShare: 0.6, minDf: 1, contrastiveSplitPairs: false, contrastiveTemperature: 0.05 };
    const margin = (m: CorpusModel) => {
      const cos = (x: Float32Array, y: Float32Array) => x.reduce((acc, v, j) => acc + v * y[j]!, 0);
      const emb = docs.map((d) => ({ t: m.embed(fieldTerms(d.title, '', 'en').title)!, a: m.embed(fieldTerms('', d.abstract, 'en').abstract)! }));
      let s = 0;
      for (let i = 0; i < n; i++) {
        let worst = -Infinity;
        for (let k = 0; k < n; k++) if (k !== i) worst = Math.max(worst, cos(emb[i]!.t, emb[k]!.a));
        s += cos(emb[i]!.t, emb[i]!.a) - worst;
      }
      return s / n;
    };
    const without = margin(st.train(base).dense);
    const withHard = margin(st.train({ ...base, contrastiveHardNegatives: true }).dense);
    assert.ok(withHard > without, `margin with hard negatives ${withHard} > without ${without}`);
  });
});
