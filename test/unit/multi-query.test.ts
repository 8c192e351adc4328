// The multi-query combiner (search/multi-query.ts, ADR 0107): combineScores by hand for each combiner,
// decay, temperature and top_k; multiQuerySearch over a small index: one sub-query per generated
// dimension, scaled scores, and a query without generated dimensions ranked exactly as its engine search;
// deferred passages (ADR 0311): the same ranking, and the passages given later are the ones given at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryIndexDirectory, SearchIndex } from '../../src/engine/index.js';
import { combineScores, multiQuerySearch, passagesFor, type CombinerParams } from '../../src/search/multi-query.js';

const near = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-12, `${what}: ${a} vs ${b}`);

test('combineScores: sum, max and log_sum_exp with rank decay, top_k and zero padding', () => {
  const p = (combiner: CombinerParams['combiner'], decay: number, temperature: number, topK: number): CombinerParams => ({ combiner, decay, temperature, topK });
  const xs = [0.2, 1, 0.5];
  near(combineScores(xs, 3, p('sum', 1, 1, 0)), 1.7, 'sum, no decay');
  near(combineScores(xs, 3, p('sum', 0.5, 1, 0)), 1 + 0.25 + 0.05, 'sum with decay (sorted descending first)');
  near(combineScores(xs, 3, p('sum', 0.5, 1, 2)), 1 + 0.25, 'top_k 2');
  near(combineScores(xs, 3, p('max', 0.5, 1, 3)), 1, 'max');
  near(combineScores(xs, 3, p('log_sum_exp', 1, 2, 0)), 2 * Math.log(Math.exp(0.5) + Math.exp(0.25) + Math.exp(0.1)), 'log_sum_exp');
  // a document matching one of three sub-queries is padded with zeros: exp(0) terms, no bonus for more matches
  near(combineScores([0.8], 3, p('log_sum_exp', 0.7, 1.5, 3)), 1.5 * Math.log(Math.exp(0.8 / 1.5) + 2), 'padding');
  near(combineScores([0.8], 3, p('log_sum_exp', 0.7, 0, 3)), 0.8, 'temperature 0 is max');
  // monotone in a single score: the order of single-query results is kept by every combiner
  for (const c of ['sum', 'max', 'log_sum_exp'] as const) assert.ok(combineScores([0.9], 1, p(c, 0.7, 1.5, 3)) > combineScores([0.3], 1, p(c, 0.7, 1.5, 3)), c);
});

test('multiQuerySearch: the query plus one sub-query per generated dimension; without any, exactly the engine ranking', () => {
  const idx = SearchIndex.open(new MemoryIndexDirectory());
  idx.add({ id: 'a', title: 'heart attack', abstract: 'heart attack outcomes', language: 'en' });
  idx.add({ id: 'b', title: 'heart failure', abstract: 'cardiac output', language: 'en' });
  idx.add({ id: 'c', title: 'myocardial infarction', abstract: 'infarction size', language: 'en' });
  idx.add({ id: 'd', title: 'sandstone', abstract: 'rock', language: 'en' });
  idx.commit('1');
  const base = { text: 'heart attack', limit: 10, passagesPerHit: 0 };
  const own = [...new Set(idx.parse('heart attack', null).words.flatMap((w) => w.terms))].map((term) => ({ term, weight: 1, own: true }));
  const single = multiQuerySearch(idx, base, own, 1, { combiner: 'log_sum_exp', decay: 0.7, temperature: 1.5, topK: 3 });
  assert.deepEqual(single.result.hits.map((h) => [h.id, h.score]), idx.search(base).hits.map((h) => [h.id, h.score]));
  assert.equal(single.subQueries.length, 1);
  const infarct = idx.parse('infarction', null).words[0]!.terms[0]!;
  const dims = [...own, { term: infarct, weight: 0.5, own: false }];
  const sum = multiQuerySearch(idx, base, dims, 1, { combiner: 'sum', decay: 1, temperature: 1, topK: 0 });
  assert.deepEqual(sum.subQueries.map((s) => s.sub_query), ['query', infarct]);
  const ids = sum.result.hits.map((h) => h.id);
  assert.deepEqual(ids.slice(0, 1), ['a']);
  assert.ok(ids.includes('c'), 'the sub-query nominates a document without the query words');
  const c = sum.result.hits.find((h) => h.id === 'c')!;
  near(c.score, 0.5, 'c matches only the sub-query: its weight x its scaled score (the best of that sub-query: 1)');
  const a = sum.result.hits.find((h) => h.id === 'a')!;
  near(a.score, 1, 'a is the best of the query and does not match the sub-query');
  const max = multiQuerySearch(idx, base, dims, 1, { combiner: 'max', decay: 0.7, temperature: 1.5, topK: 3 });
  near(max.result.hits.find((h) => h.id === 'c')!.score, 0.5, 'max');
});

test('multiQuerySearch with deferred passages: the same hits; passagesFor gives the wanted ones the passages given at once', async () => {
  const idx = SearchIndex.open(new MemoryIndexDirectory());
  idx.add({ id: 'a', title: 'heart attack', abstract: 'heart attack outcomes after a heart attack', language: 'en' });
  idx.add({ id: 'b', title: 'heart attack risk', abstract: 'attack of the heart', language: 'en' });
  idx.add({ id: 'c', title: 'myocardial infarction', abstract: 'infarction size', language: 'en' });
  idx.add({ id: 'e', title: 'infarction infarction', abstract: 'infarction scars in the tissue studied over years, with a note on the heart', language: 'en' });
  idx.commit('1');
  const base = { text: 'heart attack', limit: 2, passagesPerHit: 3 };
  const own = [...new Set(idx.parse('heart attack', null).words.flatMap((w) => w.terms))].map((term) => ({ term, weight: 1, own: true }));
  const infarct = idx.parse('infarction', null).words[0]!.terms[0]!;
  const dims = [...own, { term: infarct, weight: 5, own: false }];
  const p: CombinerParams = { combiner: 'sum', decay: 1, temperature: 1, topK: 0 };
  const now = multiQuerySearch(idx, base, dims, 1, p);
  const later = multiQuerySearch(idx, base, dims, 1, p, null, true);
  assert.equal(now.deferred, null);
  assert.deepEqual(later.result.hits.map((h) => [h.id, h.score]), now.result.hits.map((h) => [h.id, h.score]));
  const e = now.result.hits.find((h) => h.id === 'e');
  assert.ok(e && e.passages.length > 0, 'e, found only by the sub-query, matches a query word: it has passages');
  const eLater = later.result.hits.find((h) => h.id === 'e')!;
  assert.deepEqual(eLater.passages, []);
  assert.ok(later.deferred!.bare.some((h) => h.id === 'e'));
  const others = later.deferred!.bare.filter((h) => h.id !== 'e');
  assert.equal(await passagesFor(later.deferred!, base, new Set(['e']), (q) => idx.search(q)), 1);
  assert.deepEqual(eLater.passages, e.passages);
  for (const h of others) assert.deepEqual(h.passages, [], `${h.id} was not wanted`);
});
