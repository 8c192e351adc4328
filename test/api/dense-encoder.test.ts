// An operator-supplied ONNX encoder as the dense model (dense_encoder.dir, ADR 0105), through the app,
// with a tiny encoder and tokenizer the test writes itself (test/helpers/tiny-onnx.ts): document vectors
// computed by the vectorizer after ingest and recorded under the model's SHA-256, short_document, binary,
// hybrid and similar documents through the encoder, vectors kept across a restart, rebuilt for another
// model, `lectern models encode|status`, and a start refused for an unusable model directory.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { runCli } from '../../src/cli/main.js';
import { loadOnnxTextEncoder } from '../../src/adapters/onnx/onnx-text-encoder.js';
import { pino } from 'pino';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { writeTinyEncoder } from '../helpers/tiny-onnx.js';

const DIMS = 32;
const CARDIO = ['heart', 'attack', 'myocardial', 'infarction', 'cardiac', 'coronary', 'troponin'];
const GEO = ['sandstone', 'porosity', 'rock', 'reservoir', 'sediment', 'permeability'];
const WORDS = [...CARDIO, ...GEO, 'study', 'of', 'and'];

/** One row per token id: [PAD] far away, specials small, cardiology words along axis 0, geology along axis 1, each with its own small axis. */
function table(flip = false): number[][] {
  const row = (f: (j: number) => number) => Array.from({ length: DIMS }, (_, j) => f(j));
  const rows = [row((j) => (j === 31 ? 100 : 0)), row((j) => (j === 30 ? 0.2 : 0)), row((j) => (j === 29 ? 0.2 : 0)), row((j) => (j === 29 ? 0.2 : 0))];
  WORDS.forEach((w, i) => {
    const topic = CARDIO.includes(w) ? 0 : GEO.includes(w) ? 1 : -1;
    const axis = flip && topic >= 0 ? 1 - topic : topic;
    rows.push(row((j) => (j === axis ? 3 : 0) + (j === 4 + i ? 1 : 0)));
  });
  return rows;
}

const docs = Array.from({ length: 40 }, (_, i) => {
  const h = i % 2 === 0;
  return doc(`e${i}`, {
    title: h ? (i % 4 === 0 ? `Heart attack study ${i}` : `Myocardial infarction study ${i}`) : `Sandstone porosity study ${i}`,
    abstract: h ? 'Cardiac troponin and coronary outcomes.' : 'Reservoir rock permeability and sediment.',
    type: i % 3 === 0 ? 'review' : 'journal-article',
  });
});

describe('dense_encoder: an ONNX encoder as the dense model of search', () => {
  let app: TestApp;
  let acct: { id: number; key: string };
  let modelDir: string;
  let encoderId: string;
  before(async () => {
    modelDir = mkdtempSync(join(tmpdir(), 'lectern-enc-'));
    writeTinyEncoder(modelDir, table(), WORDS);
    const probe = await loadOnnxTextEncoder({ dir: modelDir });
    encoderId = probe.info.id;
    await probe.close();
    app = await testApp({ denseEncoder: { dir: modelDir } } as never);
    acct = await app.account({ credits: 100_000 });
    await seed(app, docs);
    await app.indexes!.catchUp();
  });
  after(async () => {
    await app.dispose();
    rmSync(modelDir, { recursive: true, force: true });
  });

  const post = async (url: string, body: Record<string, unknown>) => {
    const res = await app.http.inject({ method: 'POST', url, headers: { 'x-api-key': acct.key }, payload: body });
    return { status: res.statusCode, body: res.json() };
  };
  const search = (body: Record<string, unknown>) => post('/v2/search/', body);
  const trace = (body: { retrieval_traces: { branch: string }[] }, branch: string) => body.retrieval_traces.find((t) => t.branch === branch) as Record<string, unknown>;

  test('before the vectorizer ran: the encoder is the dense model, its missing vectors are shown in the trace (no silent fallback)', async () => {
    assert.equal(app.encoder!.info.id, encoderId);
    const r = await search({ query: 'heart attack', mode: 'short_document', tracing: true });
    assert.equal(r.status, 200);
    assert.equal(r.body.hits.length, 0);
    const t = trace(r.body, 'short_document');
    assert.equal(t['model_sha256'], encoderId);
    assert.ok((t['segments_without_vectors'] as number) > 0);
    const pending = app.encoderVectorizer!.pending().find((p) => p.index === 'documents')!;
    assert.equal(pending.documents, 40);
  });

  test('vectorizer: every document gets its encoder vector under the model id; short_document, binary, hybrid and similar use them', async () => {
    const r = await app.encoderVectorizer!.run();
    assert.equal(r.documents, 40);
    const st = app.indexes!.get('documents').vectorStatus();
    assert.equal(st.modelId, encoderId);
    assert.equal(st.dims, DIMS);
    assert.equal(st.documentsWithVectors, 40);
    // the stored vector is the encoder's vector of title + abstract
    const [want] = await app.encoder!.encode([`${docs[2]!.title}\n${docs[2]!.abstract}`], 'document');
    const got = app.indexes!.get('documents').documentVector('e2')!;
    for (let j = 0; j < DIMS; j++) assert.ok(Math.abs(got[j]! - want![j]!) < 1e-6);
    for (const mode of ['short_document', 'binary']) {
      // "myocardial infarction" finds the heart-attack documents too (no shared word), never geology
      const s = await search({ query: 'myocardial infarction', mode, limit: 20, tracing: true });
      assert.equal(s.status, 200, mode);
      assert.equal(s.body.hits.length, 20, mode);
      assert.ok(s.body.hits.every((h: { id: string }) => Number(h.id.slice(1)) % 2 === 0), mode);
      assert.ok(s.body.hits.some((h: { id: string }) => Number(h.id.slice(1)) % 4 === 0), `${mode}: heart attack documents found by meaning`);
      assert.equal(typeof s.body.embed_ms, 'number');
      const t = trace(s.body, mode);
      assert.equal(t['model_sha256'], encoderId);
      assert.match(String(t['model']), /onnx encoder/);
      assert.equal(t['segments_without_vectors'], 0);
    }
    const h = await search({ query: 'heart attack', limit: 10, tracing: true, include_rrf_scores: true });
    const fusion = trace(h.body, 'fusion');
    assert.deepEqual(fusion['channels'], ['fulltext', 'short_document']);
    assert.equal(trace(h.body, 'short_document')['rrf_weight'], 1, 'a bi-encoder votes like the lexical channel (the corpus model: 0.2)');
    assert.match(String((fusion['unconfigured'] as string[]).join(' ')), /sparse:documents/);
    assert.ok(h.body.hits.every((x: { id: string }) => Number(x.id.slice(1)) % 2 === 0));
    const sim = await post('/v2/search/similar', { document_id: 'e1', limit: 5 });
    assert.equal(sim.status, 200);
    assert.equal(sim.body.hits.length, 5);
    assert.ok(sim.body.hits.every((x: { id: string }) => Number(x.id.slice(1)) % 2 === 1 && x.id !== 'e1'), 'geology is similar to geology');
  });

  test('ingest after encoding: the new segment waits for the vectorizer, then is found', async () => {
    await seed(app, [doc('late', { title: 'Coronary troponin', abstract: 'Cardiac attack.' })]);
    await app.indexes!.catchUp();
    assert.equal(app.indexes!.get('documents').documentVector('late'), null);
    assert.equal((await app.encoderVectorizer!.run()).documents, 1);
    assert.ok(app.indexes!.get('documents').documentVector('late'));
    const s = await search({ query: 'coronary troponin', mode: 'short_document', limit: 1 });
    assert.equal(s.body.hits[0].id, 'late');
  });

  test('lectern models status and models encode report the encoder and what is left', async () => {
    const out: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((s: string) => (out.push(String(s)), true)) as typeof process.stdout.write;
    let code: number;
    try {
      const ctx = { loadConfig: () => app.config, openApp: async () => Object.assign(Object.create(app), { close: async () => undefined }), serve: async () => undefined };
      code = await runCli(['models', 'status'], ctx as never);
      assert.equal(code, 0);
      code = await runCli(['models', 'encode'], ctx as never);
    } finally {
      process.stdout.write = write;
    }
    assert.equal(code, 0);
    const text = out.join('');
    assert.match(text, new RegExp(encoderId));
    assert.match(text, /"pending"/);
    assert.match(text, /"documentsWithVectors": 41/);
  });

  test('restart: vectors are read back (nothing re-encoded); another model rebuilds them', async () => {
    const cfgOf = (dir: string) => loadConfig({}, { dataDir: app.dir, loadDemoCorpus: false, logLevel: 'silent', denseEncoder: { dir } } as never);
    const snapshot = app.dir;
    await app.close();
    // same model: every vector is there
    let again = await buildApp(cfgOf(modelDir), { logger: pino({ level: 'silent' }) });
    assert.equal(again.encoderVectorizer!.pending().reduce((n, p) => n + p.documents, 0), 0);
    assert.equal(again.indexes!.get('documents').vectorStatus().documentsWithVectors, 41);
    await again.close();
    // another model (different weights, so another SHA-256): rebuilt
    const other = mkdtempSync(join(tmpdir(), 'lectern-enc2-'));
    writeTinyEncoder(other, table(true), WORDS);
    again = await buildApp(cfgOf(other), { logger: pino({ level: 'silent' }) });
    try {
      assert.notEqual(again.encoder!.info.id, encoderId);
      assert.equal(again.indexes!.get('documents').vectorStatus().documentsWithVectors, 0);
      assert.equal((await again.encoderVectorizer!.run()).documents, 41);
      assert.equal(again.indexes!.get('documents').vectorStatus().modelId, again.encoder!.info.id);
    } finally {
      await again.close();
      rmSync(other, { recursive: true, force: true });
    }
    // the test app's dispose closes again and removes the directory
    app = Object.assign(app, { close: async () => undefined, dir: snapshot });
  });

  test('an unusable dense_encoder.dir stops the start, naming the missing file', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'lectern-enc3-'));
    try {
      await assert.rejects(buildApp(loadConfig({}, { dataDir: empty, loadDemoCorpus: false, logLevel: 'silent', denseEncoder: { dir: empty } } as never), { logger: pino({ level: 'silent' }) }), /dense_encoder\.dir: .*model\.onnx/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

test('lectern models encode without an encoder configured exits 1 saying which option to set', async () => {
  const app = await testApp();
  const err: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((s: string) => (err.push(String(s)), true)) as typeof process.stderr.write;
  try {
    const ctx = { loadConfig: () => app.config, openApp: async () => Object.assign(Object.create(app), { close: async () => undefined }), serve: async () => undefined };
    assert.equal(await runCli(['models', 'encode'], ctx as never), 1);
  } finally {
    process.stderr.write = write;
    await app.dispose();
  }
  assert.match(err.join(''), /dense_encoder\.dir.*sparse_encoder\.dir/);
  assert.equal(app.encoderVectorizer, null);
});
