// An operator-supplied SPLADE-style ONNX model as the sparse model (sparse_encoder.dir, ADRs 0106, 0109),
// with a tiny masked-language-model "encoder" the test writes itself (token -> Gather -> logits over the
// vocabulary): the adapter's max-pool of log(1 + relu(logit)) over unmasked tokens, checked by hand; then
// through the app: document vectors encoded by the vectorizer into the index's impact files, `mode:
// sparse` and hybrid scoring documents by the SPLADE dot product (no corpus model needed), and
// max_query_dims, weight_threshold, pruning and heap_factor acting on the query's dimensions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { impactExponent } from '../../src/engine/index.js';
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

describe('sparse_encoder: a SPLADE-style ONNX model scores documents by query . document sparse vectors', () => {
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
  const sparseTrace = (b: { retrieval_traces: { branch: string }[] }) => b.retrieval_traces.find((t) => t.branch === 'sparse') as unknown as { dims: { term: string; weight: number }[]; model: string; model_sha256: string; heap_factor: number; segments_without_impacts: number; combiner: unknown };

  test('before the vectorizer ran: no document has SPLADE vectors yet, the trace says so (no silent fallback)', async () => {
    const s = await search({ query: 'heart attack', mode: 'sparse' });
    assert.equal(s.status, 200);
    assert.equal(s.body.hits.length, 0);
    assert.ok(sparseTrace(s.body).segments_without_impacts >= 1);
    assert.equal(app.encoderVectorizer!.pending().find((p) => p.kind === 'sparse' && p.index === 'documents')!.documents, 5);
  });

  test('mode sparse: the SPLADE dot product of query and document vectors finds documents without the query words; no corpus model needed', async () => {
    const r = await app.encoderVectorizer!.run();
    assert.equal(r.documents, 5);
    assert.equal(app.indexes!.get('documents').impactStatus().documentsWithImpacts, 5);
    const f = await search({ query: 'heart attack', mode: 'fulltext' });
    assert.deepEqual(f.body.hits.map((h: { id: string }) => h.id), ['h1']);
    const s = await search({ query: 'heart attack', mode: 'sparse' });
    assert.equal(s.status, 200);
    const ids = s.body.hits.map((h: { id: string }) => h.id);
    assert.deepEqual(ids.slice(0, 1), ['h1']);
    assert.deepEqual(ids.slice(1).sort(), ['m1', 'm2'], 'myocardial documents by meaning; geology scores 0 and is not returned');
    // scores are SPLADE dot products: m2 ("Myocardial study / Myocardial tissue") = w_q(myocardial) x w_d(myocardial)
    const wq = Math.log1p(1);
    const wd = Math.log1p(2);
    const m2 = s.body.hits.find((h: { id: string }) => h.id === 'm2');
    // within the 8-bit quantization bound (ADR 0145): w_q x the token's step (m2 holds its largest weight)
    assert.ok(Math.abs(m2.score - wq * wd) <= wq * 2 ** impactExponent(wd), `${m2.score} vs ${wq * wd}`);
    const t = sparseTrace(s.body);
    assert.match(t.model, /SPLADE/);
    assert.equal(t.model_sha256, app.sparseEncoder!.info.id);
    assert.deepEqual(t.dims.map((d) => d.term).sort(), ['attack', 'heart', 'infarction', 'myocardial']);
    assert.equal(t.segments_without_impacts, 0);
    assert.equal(typeof s.body.embed_ms, 'number');
    const h = await search({ query: 'heart attack' });
    const fusion = h.body.retrieval_traces.find((x: { branch: string }) => x.branch === 'fusion');
    assert.deepEqual(fusion.channels, ['fulltext', 'sparse']);
  });

  test('max_query_dims, weight_threshold (absolute), pruning (relative) and heap_factor act on the SPLADE query dimensions', async () => {
    const dims = async (extra: Record<string, unknown>) => sparseTrace((await search({ query: 'heart attack', mode: 'sparse', ...extra })).body).dims.map((d) => d.term);
    assert.equal((await dims({ max_query_dims: 3 })).length, 3);
    assert.deepEqual((await dims({ weight_threshold: 0.6 })).sort(), ['attack', 'heart', 'myocardial'], 'infarction (log 1.8 = 0.588) is below 0.6');
    assert.deepEqual((await dims({ weight_threshold: 1 })).sort(), ['attack', 'heart']);
    assert.deepEqual((await dims({ pruning: 0.9 })).sort(), ['attack', 'heart']);
    const t = sparseTrace((await search({ query: 'heart attack', mode: 'sparse', heap_factor: 0.5 })).body);
    assert.equal(t.heap_factor, 0.5);
    assert.match(String(t.combiner), /not used/);
  });

  test('a document ingested later gets its SPLADE vector from the vectorizer; a merge keeps them', async () => {
    await seed(app, [doc('m3', { title: 'Infarction', abstract: 'Infarction.' })]);
    await app.indexes!.catchUp();
    assert.equal((await app.encoderVectorizer!.run()).documents, 1);
    app.indexes!.get('documents').forceMerge(1);
    assert.equal(app.indexes!.get('documents').impactStatus().documentsWithImpacts, 6);
    const s = await search({ query: 'attack', mode: 'sparse' });
    assert.ok(s.body.hits.some((h: { id: string }) => h.id === 'm3'));
  });
});
