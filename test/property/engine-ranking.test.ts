// Oracles for the ranking: pruned top-k == exhaustive scoring sorted then truncated; engine scores ==
// an independent naive BM25F; pages concatenate to the full ranking; phrase matches == a naive scan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MemoryIndexDirectory, SearchIndex, tokenize, DEFAULT_SCORING, type IndexDocument } from '../../src/engine/index.js';

const VOCAB = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'kappa', 'sigma', 'theta', 'lambda', 'zeta', 'rare', 'cell', 'protein', 'heat'];

const wordsArb = (max: number) => fc.array(fc.integer({ min: 0, max: VOCAB.length - 1 }), { minLength: 0, maxLength: max }).map((a) => a.map((i) => VOCAB[i]).join(' '));
const docArb = fc.record({ title: wordsArb(6), abstract: wordsArb(30), body: wordsArb(60) });
const corpusArb = fc.array(docArb, { minLength: 150, maxLength: 420 });
const queryArb = fc.array(fc.integer({ min: 0, max: VOCAB.length - 1 }), { minLength: 1, maxLength: 4 }).map((a) => a.map((i) => VOCAB[i]).join(' '));

function buildIndex(docs: { title: string; abstract: string; body: string }[], commits: number): { idx: SearchIndex; all: IndexDocument[] } {
  const idx = SearchIndex.open(new MemoryIndexDirectory());
  const all: IndexDocument[] = docs.map((d, i) => ({ id: `d${String(i).padStart(4, '0')}`, ...d }));
  const per = Math.ceil(all.length / commits);
  all.forEach((d, i) => {
    idx.add(d);
    if ((i + 1) % per === 0) idx.commit(String(i));
  });
  idx.commit('end');
  return { idx, all };
}

function naiveScores(all: IndexDocument[], query: string): Map<string, number> {
  const fields = (d: IndexDocument) => [d.title, d.abstract ?? '', d.body ?? ''].map((t) => tokenize(t, 'en').filter((x) => !x.joined && x.term !== null).map((x) => x.term!));
  const toks = all.map(fields);
  const avg = [0, 1, 2].map((f) => toks.reduce((s, t) => s + t[f]!.length, 0) / all.length);
  const qterms = [...new Set(tokenize(query, 'en').filter((t) => t.term !== null).map((t) => t.term!))];
  const { k1, b, weights } = DEFAULT_SCORING;
  const scores = new Map<string, number>();
  all.forEach((d, i) => {
    let s = 0;
    let any = false;
    for (const q of qterms) {
      const df = toks.filter((t) => t.some((f) => f.includes(q))).length;
      if (df === 0) continue;
      const idf = Math.log(1 + (all.length - df + 0.5) / (df + 0.5));
      let tfp = 0;
      for (let f = 0; f < 3; f++) {
        const tf = toks[i]![f]!.filter((x) => x === q).length;
        if (tf > 0) tfp += (weights[f]! * tf) / (1 - b[f]! + (b[f]! * toks[i]![f]!.length) / avg[f]!);
      }
      if (tfp > 0) {
        any = true;
        s += (idf * tfp) / (k1 + tfp);
      }
    }
    if (any) scores.set(d.id, s);
  });
  return scores;
}

test('pruned top-k equals exhaustive sort-then-truncate and the naive BM25F oracle', () => {
  fc.assert(
    fc.property(corpusArb, fc.array(queryArb, { minLength: 3, maxLength: 3 }), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 4 }), (docs, queries, k, commits) => {
      const { idx, all } = buildIndex(docs, commits);
      for (const text of queries) {
        const pruned = idx.search({ text, limit: k, passagesPerHit: 0 });
        const full = idx.search({ text, limit: 500, passagesPerHit: 0, exhaustive: true });
        assert.deepEqual(pruned.hits.map((h) => [h.id, h.score]), full.hits.slice(0, k).map((h) => [h.id, h.score]));
        assert.equal(pruned.hasMore, full.hits.length > k);
        const oracle = naiveScores(all, text);
        assert.equal(full.hits.length, Math.min(500, oracle.size));
        for (const h of full.hits) assert.ok(Math.abs(oracle.get(h.id)! - h.score) <= 1e-9 * Math.max(1, h.score), `${h.id}: ${oracle.get(h.id)} vs ${h.score}`);
        const sorted = [...oracle.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
        for (let i = 0; i < Math.min(k, sorted.length); i++) assert.ok(Math.abs(sorted[i]![1] - pruned.hits[i]!.score) <= 1e-9 * Math.max(1, sorted[i]![1]));
      }
    }),
    { numRuns: 12 },
  );
});

test('pages concatenate to the full ranking', () => {
  fc.assert(
    fc.property(corpusArb, queryArb, fc.integer({ min: 1, max: 17 }), fc.boolean(), (docs, text, size, filtered) => {
      const { idx } = buildIndex(docs, 3);
      const filters = filtered ? { ids: docs.map((_, i) => `d${String(i).padStart(4, '0')}`).filter((_, i) => i % 3 !== 0) } : undefined;
      const full = idx.search({ text, limit: 120, passagesPerHit: 0, filters, rankingMode: 'documents' });
      const pages: string[] = [];
      for (let offset = 0; offset + size <= 120; offset += size) {
        const r = idx.search({ text, limit: size, offset, passagesPerHit: 0, filters, rankingMode: 'documents' });
        pages.push(...r.hits.map((h) => h.id));
        assert.equal(r.hasMore, full.hits.length > offset + size || full.hasMore);
        if (!r.hasMore) break;
      }
      assert.deepEqual(pages, full.hits.slice(0, pages.length).map((h) => h.id));
    }),
    { numRuns: 10 },
  );
});

test('phrase matches equal a naive scan of the token streams', () => {
  fc.assert(
    fc.property(fc.array(docArb, { minLength: 20, maxLength: 200 }), fc.array(fc.integer({ min: 0, max: VOCAB.length - 1 }), { minLength: 2, maxLength: 3 }), (docs, slots) => {
      const { idx, all } = buildIndex(docs, 2);
      const phrase = slots.map((i) => VOCAB[i]).join(' ');
      const want = tokenize(phrase, 'en').map((t) => t.term!);
      const expected = all
        .filter((d) =>
          [d.title, d.abstract ?? '', d.body ?? ''].some((text) => {
            const toks = tokenize(text, 'en').filter((t) => !t.joined);
            const at = new Map(toks.map((t) => [t.position, t.term]));
            return toks.some((t) => want.every((w, j) => at.get(t.position + j) === w));
          }),
        )
        .map((d) => d.id)
        .sort();
      const got = idx.search({ text: `"${phrase}"`, limit: 500, passagesPerHit: 0 });
      assert.deepEqual(got.hits.map((h) => h.id).sort(), expected);
      assert.equal(got.totalHits, expected.length);
    }),
    { numRuns: 15 },
  );
});
