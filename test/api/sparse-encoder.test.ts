// An operator-supplied SPLADE-style ONNX model as the sparse model (sparse_encoder.dir, ADR 0106), with
// a tiny masked-language-model "encoder" the test writes itself (token -> Gather -> logits over the
// vocabulary): the adapter's max-pool of log(1 + relu(logit)) over unmasked tokens, checked by hand; then
// through the app: `mode: sparse` and hybrid expand queries with it (no corpus model needed), and
// max_query_dims, weight_threshold, pruning and heap_factor act on its dimensions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOnnxSparseEncoder } from '../../src/adapters/onnx/onnx-text-encoder.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { writeTinyEncoder } from '../helpers/tiny-onnx.js';

const WORDS = ['heart', 'attack', 'myocardial', 'infarction', 'sandstone', 'porosity', 'rock', 'study', '##s'];
const V = 4 + WORDS.length;
const id = (w: string) => 4 + WORDS.indexOf(w);
/** logits[token][v]: every word predicts itself (2); heart -> myocardial (1), attack -> infarction (0.8); sandstone -> rock (1); specials predict nothing; [PAD] predicts rock strongly (masking must hide it). */
function table(): number[][] {
  const rows = Array.from({ length: V }, () => new Array<number>(V).fill(-1));
  rows[0]![id('rock')] = 50;
  for (const w of WORDS) rows[id(w)]![id(w)] = 2;
  rows[id('heart')]![id('myocardial')] = 1;
  rows[id('attack')]![id('infarction')] = 0.8;
  rows[id('sandstone')]![id('rock')] = 1;
  return rows;
}

describe('sparse_encoder: a SPLADE-style ONNX model expands sparse queries', () => {
  let dir: string;
  let app: TestApp;
  let acct: { id: number; key: string };
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lectern-splade-'));
    writeTinyEncoder(dir, table(), WORDS, {}, { output: 'logits' });
    app = await testApp({ sparseEncoder: { dir } } as never);
    acct = await app.account({ credits: 100_000 });
    await seed(app, [
      doc('h1', { title: 'Heart attack study', abstract: 'Outcomes after a heart attack.' }),
      doc('m1', { title: 'Myocardial infarction', abstract: 'Infarction of the myocardial wall.' }),
      doc('m2', { title: 'Myocardial study', abstract: 'Myocardial tissue.' }),
      doc('r1', { title: 'Sandstone porosity', abstract: 'Rock porosity study.' }),
      doc('r2', { title: 'Rock mechanics', abstract: 'Rock.' }),
    ]);
    await app.indexes!.catchUp();
  });
  after(async () => {
    await app.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  test('adapter: max over unmasked tokens of log(1 + relu(logit)), strongest first; padding does not leak', async () => {
    const enc = await loadOnnxSparseEncoder({ dir });
    try {
      assert.equal(enc.info.vocabulary, V);
      assert.match(enc.info.id, /^[0-9a-f]{64}$/);
      // batched with a longer text, so "heart attack" is padded
      const [v, long] = await enc.encodeSparse(['heart attack', 'sandstone porosity rock study rock study'], 'query');
      const got = Object.fromEntries([...v!.ids].map((t, i) => [enc.token(t), v!.weights[i]]));
      const want = { heart: Math.log1p(2), attack: Math.log1p(2), myocardial: Math.log1p(1), infarction: Math.log1p(0.8) };
      assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort());
      for (const [k, w] of Object.entries(want)) assert.ok(Math.abs(got[k]! - w) < 1e-6, k);
      assert.ok(v!.weights[0]! >= v!.weights[v!.weights.length - 1]!);
      assert.ok(long!.ids.length > 0);
      assert.equal(enc.token(0), null, 'special tokens have no term');
    } finally {
      await enc.close();
    }
  });

  const search = async (body: Record<string, unknown>) => {
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': acct.key }, payload: { tracing: true, ...body } });
    return { status: res.statusCode, body: res.json() };
  };
  const sparseTrace = (b: { retrieval_traces: { branch: string }[] }) => b.retrieval_traces.find((t) => t.branch === 'sparse') as unknown as { dims: { term: string; weight: number; generated: boolean }[]; model: string; model_sha256: string; heap_factor: number };

  test('mode sparse: the SPLADE expansion finds documents without the query words; no corpus model is needed', async () => {
    const f = await search({ query: 'heart attack', mode: 'fulltext' });
    assert.deepEqual(f.body.hits.map((h: { id: string }) => h.id), ['h1']);
    const s = await search({ query: 'heart attack', mode: 'sparse' });
    assert.equal(s.status, 200);
    const ids = s.body.hits.map((h: { id: string }) => h.id);
    assert.equal(ids[0], 'h1');
    assert.ok(ids.includes('m1') && ids.includes('m2'), JSON.stringify(ids));
    assert.ok(!ids.some((x: string) => x.startsWith('r')));
    const t = sparseTrace(s.body);
    assert.match(t.model, /SPLADE/);
    assert.equal(t.model_sha256, app.sparseEncoder!.info.id);
    const gen = t.dims.filter((d) => d.generated);
    assert.equal(gen.length, 2);
    assert.ok(Math.abs(gen[0]!.weight - Number((Math.log1p(1) / Math.log1p(2)).toFixed(4))) < 1e-4);
    assert.equal(typeof s.body.embed_ms, 'number');
    const h = await search({ query: 'heart attack' });
    const fusion = h.body.retrieval_traces.find((x: { branch: string }) => x.branch === 'fusion');
    assert.deepEqual(fusion.channels, ['fulltext', 'sparse']);
  });

  test('max_query_dims, weight_threshold, pruning and heap_factor act on the SPLADE dimensions', async () => {
    const gen = async (extra: Record<string, unknown>) => sparseTrace((await search({ query: 'heart attack', mode: 'sparse', ...extra })).body).dims.filter((d) => d.generated).map((d) => d.term);
    assert.equal((await gen({ max_query_dims: 3 })).length, 1);
    assert.equal((await gen({ max_query_dims: 2 })).length, 0);
    assert.equal((await gen({ weight_threshold: 0.6 })).length, 1, 'infarction (0.535) is below 0.6, myocardial (0.631) is not');
    assert.equal((await gen({ weight_threshold: 0.9 })).length, 0);
    assert.equal((await gen({ pruning: 0.9 })).length, 1);
    const t = sparseTrace((await search({ query: 'heart attack', mode: 'sparse', heap_factor: 0.5 })).body);
    assert.equal(t.heap_factor, 0.5);
  });

  test('multi-query: each generated dimension is a weighted sub-query; combiner, decay, temperature and top_k change the scores', async () => {
    const run = async (extra: Record<string, unknown>) => {
      const r = await search({ query: 'heart attack', mode: 'sparse', ...extra });
      assert.equal(r.status, 200);
      const t = r.body.retrieval_traces.find((x: { branch: string }) => x.branch === 'sparse');
      return { score: (id: string) => r.body.hits.find((h: { id: string }) => h.id === id).score as number, t };
    };
    const dflt = await run({});
    assert.deepEqual(dflt.t.sub_queries.map((q: { sub_query: string }) => q.sub_query).slice(0, 1), ['query']);
    assert.equal(dflt.t.sub_queries.length, 3);
    assert.deepEqual(dflt.t.combiner, { name: 'log_sum_exp', decay: 0.7, temperature: 1.5, top_k: 3 });
    const max = await run({ combiner: 'max', combiner_top_k: 1 });
    const sum = await run({ combiner: 'sum', combiner_decay: 1, combiner_top_k: 0 });
    const decayed = await run({ combiner: 'sum', combiner_decay: 0.5, combiner_top_k: 0 });
    // m1 matches both generated sub-queries and not the query: max keeps one, sum adds both, decay shrinks the second
    assert.ok(sum.score('m1') > decayed.score('m1') && decayed.score('m1') > max.score('m1'), `${sum.score('m1')} ${decayed.score('m1')} ${max.score('m1')}`);
    const hot = await run({ combiner_temperature: 10 });
    const cold = await run({ combiner_temperature: 0.01 });
    assert.notEqual(hot.score('m1'), cold.score('m1'));
  });
});
