// Oracle for the champion lists (ADR 0329): a word query whose pruning threshold is seeded from the
// segments' champion lists returns exactly the exhaustive ranking's top k (ids and scores, in order) and
// the same page, hasMore and totals as a search without the seed, under query-time field weights that
// differ from the build's, filters, deletions, updates, several segments, merges and older segments.
// A seed above the true k-th score would drop a hit the exhaustive pass keeps, so these fail if the bound
// is ever wrong (checked by hand: a seed scaled by 1.02 fails the first property).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MemoryIndexDirectory, SearchIndex, type EngineQuery, type IndexDocument } from '../../src/engine/index.js';

// a skewed vocabulary: the first words are in most documents (long lists with champions), the last are rare
const VOCAB = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'kappa', 'sigma', 'theta', 'lambda', 'zeta', 'rare', 'cell', 'protein', 'heat'];
const wordArb = fc.integer({ min: 0, max: 99 }).map((x) => VOCAB[Math.floor((x / 100) ** 2 * VOCAB.length)]!);
const wordsArb = (max: number) => fc.array(wordArb, { minLength: 0, maxLength: max }).map((a) => a.join(' '));
const docArb = fc.record({ title: wordsArb(6), abstract: wordsArb(30), body: wordsArb(80), type: fc.constantFrom('journal-article', 'preprint') });
const queryArb = fc.array(fc.integer({ min: 0, max: VOCAB.length - 1 }), { minLength: 1, maxLength: 4 }).map((a) => a.map((i) => VOCAB[i]).join(' '));
const weightsArb = fc.option(fc.record({ title: fc.double({ min: 0, max: 6, noNaN: true }), abstract: fc.double({ min: 0, max: 3, noNaN: true }), body: fc.double({ min: 0, max: 3, noNaN: true }) }), { nil: undefined });

interface Setup {
  docs: { title: string; abstract: string; body: string; type: string }[];
  commits: number;
  minDf: number;
  perTerm: number;
  deletions: number[];
  merge: boolean;
}

function buildIndex(s: Setup): SearchIndex {
  const idx = SearchIndex.open(new MemoryIndexDirectory(), { championRule: { minDf: s.minDf, perTerm: s.perTerm }, flushOccurrences: 1 << 30 });
  const all: IndexDocument[] = s.docs.map((d, i) => ({ id: `d${String(i).padStart(4, '0')}`, ...d }));
  const per = Math.ceil(all.length / s.commits);
  all.forEach((d, i) => {
    idx.add(d);
    if ((i + 1) % per === 0) idx.commit(String(i));
  });
  idx.commit('end');
  // deletions and updates after the segments were written: their docs stay in the champion lists
  for (const x of s.deletions) {
    const i = x % all.length;
    if (x % 2 === 0) idx.delete(all[i]!.id);
    else idx.add({ ...all[i]!, body: `${all[i]!.body} alpha alpha beta` });
  }
  idx.commit('edits');
  if (s.merge) idx.forceMerge(1);
  return idx;
}

const setupArb = fc.record({
  docs: fc.array(docArb, { minLength: 120, maxLength: 400 }),
  commits: fc.integer({ min: 1, max: 4 }),
  minDf: fc.integer({ min: 1, max: 60 }),
  perTerm: fc.integer({ min: 1, max: 40 }),
  deletions: fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 40 }),
  merge: fc.boolean(),
});

const key = (r: { hits: { id: string; score: number }[] }): string => JSON.stringify(r.hits.map((h) => [h.id, h.score]));

test('a seeded search equals the exhaustive top k and the unseeded search', () => {
  let seeded = 0;
  fc.assert(
    fc.property(setupArb, fc.array(fc.tuple(queryArb, weightsArb, fc.boolean()), { minLength: 3, maxLength: 3 }), fc.integer({ min: 1, max: 25 }), fc.integer({ min: 0, max: 10 }), (setup, queries, limit, offset) => {
      const idx = buildIndex(setup);
      for (const [text, fieldWeights, filtered] of queries) {
        const q: EngineQuery = { text, limit, offset, passagesPerHit: 0, rankingMode: 'documents', trace: true };
        if (fieldWeights !== undefined) q.fieldWeights = fieldWeights;
        if (filtered) q.filters = { types: ['journal-article'] };
        const got = idx.search(q);
        const plain = idx.search({ ...q, champions: false });
        const full = idx.search({ ...q, offset: 0, limit: 500, exhaustive: true });
        if (got.trace?.championFloor !== undefined) seeded++;
        assert.equal(plain.trace?.championFloor, undefined);
        assert.equal(key(got), JSON.stringify(full.hits.slice(offset, offset + limit).map((h) => [h.id, h.score])));
        assert.equal(key(got), key(plain));
        assert.equal(got.hasMore, plain.hasMore);
        // totals: exact ones agree; an estimate stays a lower bound of the exact count
        if (got.totalHitsExact) assert.equal(got.totalHits, full.totalHits);
        else assert.ok(got.totalHits <= full.totalHits && got.totalHits >= offset + got.hits.length);
        const exact = idx.search({ ...q, exactTotal: true });
        assert.equal(exact.totalHits, idx.search({ ...q, exactTotal: true, champions: false }).totalHits);
        assert.equal(key(exact), key(got));
      }
    }),
    { numRuns: 25, endOnFailure: true },
  );
  // the property is about seeded searches: most of them must have had a seed
  assert.ok(seeded >= 25, `only ${seeded} seeded searches`);
});

test('collapsed and passage-ranked searches keep their results with the seed', () => {
  fc.assert(
    fc.property(setupArb, queryArb, fc.integer({ min: 1, max: 30 }), (setup, text, limit) => {
      const docs = setup.docs.map((d, i) => ({ ...d, workKey: `w${i % 7 === 0 ? 'shared' : i}` }));
      const idx = SearchIndex.open(new MemoryIndexDirectory(), { championRule: { minDf: setup.minDf, perTerm: setup.perTerm } });
      docs.forEach((d, i) => idx.add({ id: `d${String(i).padStart(4, '0')}`, ...d }));
      idx.commit('end');
      for (const extra of [{ collapseByWorkKey: true }, { rankingMode: 'passages' as const }]) {
        const q: EngineQuery = { text, limit, passagesPerHit: 0, ...extra };
        assert.equal(key(idx.search(q)), key(idx.search({ ...q, champions: false })));
        assert.equal(key(idx.search(q)), key(idx.search({ ...q, exhaustive: true })));
      }
    }),
    { numRuns: 10, endOnFailure: true },
  );
});
