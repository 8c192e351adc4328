// The short_document channel's `auto` method (engine/doc-vectors.ts, ADR 0103): the exact scan up to
// EXACT_MAX_VECTORS eligible documents, above it the `quantized` prefilter (the float query against the
// documents' sign codes) with exact float rescoring of the best candidates. Equivalence to the exact scan
// when the pool covers every document (filters, deletes, several segments), and recall@10 against the
// exact scan on a built corpus.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { autoRescorePool, AUTO_RESCORE_BASE_VECTORS, AUTO_RESCORE_MIN, EXACT_MAX_VECTORS, MemoryIndexDirectory, SearchIndex, TrainingState, documentTerms, fieldTerms } from '../../src/engine/index.js';
import { SeededRandom } from '../../src/engine/lsa.js';

/** A corpus of `n` documents over `topics` topical vocabularies (two topics per document), seeded. */
function topical(n: number, topics: number, seed: number): { id: string; title: string; abstract: string }[] {
  const rnd = new SeededRandom(seed);
  const syll = ['ka', 'lo', 'mi', 'nu', 'pe', 'ra', 'si', 'tu', 'vo', 'ze', 'bi', 'do'];
  const word = (t: number, i: number) => `${syll[t % 12]}${syll[Math.floor(t / 12) % 12]}${syll[i % 12]}${syll[Math.floor(i / 12) % 12]}x`;
  const pick = (k: number) => Math.floor(rnd.next() * k);
  return Array.from({ length: n }, (_, d) => {
    const a = pick(topics);
    const b = pick(topics);
    const words = (k: number) => Array.from({ length: k }, () => (rnd.next() < 0.6 ? word(a, pick(20)) : word(b, pick(20)))).join(' ');
    return { id: `t${d}`, title: words(5), abstract: words(25) };
  });
}

function index(docs: { id: string; title: string; abstract: string }[], dims: number, segments: number) {
  const st = new TrainingState();
  for (const d of docs) st.set(d.id, fieldTerms(d.title, d.abstract, 'en'));
  const { dense } = st.train({ dims, contrastiveEpochs: 0, ivfMinDocs: Infinity });
  const idx = SearchIndex.open(new MemoryIndexDirectory());
  const per = Math.ceil(docs.length / segments);
  for (let s = 0; s < segments; s++) {
    docs.slice(s * per, (s + 1) * per).forEach((d, i) => idx.add({ id: d.id, title: d.title, abstract: d.abstract, language: 'en', type: i % 3 === 0 ? 'review' : 'article' }));
    idx.commit(String(s));
  }
  idx.setVectorModel({ id: 'm', model: dense });
  return { idx, dense };
}

describe('short_document auto: exact scan, quantized prefilter + float rescoring at scale', () => {
  test('auto is the exact scan below EXACT_MAX_VECTORS; the quantized path with a pool covering every document equals it (filters, deletes, segments)', () => {
    assert.equal(EXACT_MAX_VECTORS, 20_000);
    assert.equal(autoRescorePool(11), Math.max(AUTO_RESCORE_MIN, 1_100));
    // ADR 0160: the pool grows in proportion to the eligible vectors above AUTO_RESCORE_BASE_VECTORS
    assert.equal(autoRescorePool(11, 100_000), 2_000);
    assert.equal(autoRescorePool(11, AUTO_RESCORE_BASE_VECTORS), 2_000);
    assert.equal(autoRescorePool(11, 500_000), 4_000);
    assert.equal(autoRescorePool(11, 1_000_000), 8_000);
    assert.equal(autoRescorePool(50, 1_000_000), 20_000);
    for (let n = 0; n < 3_000_000; n += 37_117) assert.ok(autoRescorePool(11, n + 37_117) >= autoRescorePool(11, n), 'never shrinks as N grows');
    const docs = topical(300, 12, 3);
    const { idx, dense } = index(docs, 32, 3);
    idx.delete('t7');
    idx.commit('del');
    for (const probe of docs.slice(0, 12)) {
      const q = dense.embed(documentTerms(probe.title, null, 'en'))!;
      const exact = idx.searchVectors({ vector: q, method: 'exact', limit: 10 });
      const auto = idx.searchVectors({ vector: q, method: 'auto', limit: 10 });
      assert.equal(auto.method, 'exact');
      assert.deepEqual(auto.hits.map((h) => [h.id, h.score]), exact.hits.map((h) => [h.id, h.score]));
      const full = idx.searchVectors({ vector: q, method: 'auto', limit: 10, exactMaxVectors: 0, rescore: 300 });
      assert.equal(full.method, 'quantized');
      assert.equal(full.rescored, 299, 'every live document rescored once');
      assert.deepEqual(full.hits.map((h) => [h.id, h.score]), exact.hits.map((h) => [h.id, h.score]));
      assert.ok(!full.hits.some((h) => h.id === 't7'));
      const f = { types: ['review'] };
      const exactF = idx.searchVectors({ vector: q, method: 'exact', limit: 10, filters: f });
      const fullF = idx.searchVectors({ vector: q, method: 'auto', limit: 10, filters: f, exactMaxVectors: 0, rescore: 300 });
      assert.equal(fullF.method, 'quantized');
      assert.equal(fullF.scanned, exactF.scanned);
      assert.deepEqual(fullF.hits.map((h) => [h.id, h.score]), exactF.hits.map((h) => [h.id, h.score]));
      // a small pool rescores exactly that many, scores are true cosines in order
      const small = idx.searchVectors({ vector: q, method: 'auto', limit: 10, exactMaxVectors: 0, rescore: 40 });
      assert.equal(small.rescored, 40);
      const s = small.hits.map((h) => h.score);
      assert.deepEqual(s, [...s].sort((a, b) => b - a));
      const bin = idx.searchVectors({ vector: q, method: 'binary', limit: 10, rescore: 300 });
      assert.deepEqual(bin.hits.map((h) => h.id), exact.hits.map((h) => h.id));
    }
    idx.close();
  });

  test('quantized prefilter: recall@10 against the exact scan >= 0.95 rescoring 80 of 3,000 documents, above the Hamming prefilter at the same pool', () => {
    const docs = topical(3000, 60, 11);
    const { idx, dense } = index(docs, 64, 2);
    let quantizedHits = 0;
    let hammingHits = 0;
    let total = 0;
    for (const probe of docs.slice(0, 60)) {
      const q = dense.embed(documentTerms(probe.title, null, 'en'))!;
      const truth = new Set(idx.searchVectors({ vector: q, method: 'exact', limit: 10 }).hits.map((h) => h.id));
      const r = idx.searchVectors({ vector: q, method: 'auto', limit: 10, exactMaxVectors: 1000, rescore: 80 });
      assert.equal(r.method, 'quantized');
      assert.equal(r.scanned, 3000);
      quantizedHits += r.hits.filter((h) => truth.has(h.id)).length;
      hammingHits += idx.searchVectors({ vector: q, method: 'binary', limit: 10, rescore: 80 }).hits.filter((h) => truth.has(h.id)).length;
      total += truth.size;
    }
    const recall = quantizedHits / total;
    assert.ok(recall >= 0.95, `quantized recall@10 ${recall}`);
    assert.ok(quantizedHits > hammingHits, `quantized ${quantizedHits} vs Hamming ${hammingHits}`);
    idx.close();
  });
});
