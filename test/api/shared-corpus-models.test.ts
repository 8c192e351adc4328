// A cluster's corpus models (issue 24, ADR 0267): trained once on one process, published to the BlobStore
// every node reaches, pulled by every other node into its model directory and installed by its model
// refresh; a node whose models differ from the published ones is brought to them. Two processes (test
// apps) share one BlobStore here; test/cluster/models.test.ts runs the same over a loopback cluster.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { FsBlobStore } from '../../src/adapters/fs/fs-blob-store.js';
import { modelsPrefix } from '../../src/search/shared-corpus-models.js';

const heart = ['Heart attack outcomes in adults', 'Myocardial infarction after surgery', 'Cardiac arrest and heart failure', 'Coronary artery disease'];
const rock = ['Sandstone porosity', 'Reservoir rock permeability', 'Sediment and sandstone diagenesis', 'Porous rock reservoir pressure'];
const docs = (n: number, from = 0) =>
  Array.from({ length: n }, (_, k) => {
    const i = k + from;
    const h = i % 2 === 0;
    return doc(`m${i}`, { title: `${(h ? heart : rock)[(i >> 1) % 4]} ${i}`, abstract: h ? 'Myocardial infarction follows coronary occlusion; cardiac troponin rises.' : 'Sandstone porosity and permeability of reservoir rock.', language: 'en' });
  });

describe('corpus models shared through the BlobStore (ADR 0267)', () => {
  let trainer: TestApp;
  let other: TestApp;
  let keyT: string;
  let keyO: string;
  const blobDir = mkdtempSync(join(tmpdir(), 'lectern-shared-models-'));
  const blobs = new FsBlobStore(blobDir);
  before(async () => {
    trainer = await testApp({}, { sharedModelBlobs: blobs });
    other = await testApp({}, { sharedModelBlobs: blobs });
    for (const app of [trainer, other]) {
      await seed(app, docs(60));
      await app.indexes!.catchUp();
    }
    keyT = (await trainer.account({ credits: 100_000 })).key;
    keyO = (await other.account({ credits: 100_000 })).key;
  });
  after(async () => {
    await trainer.dispose();
    await other.dispose();
    rmSync(blobDir, { recursive: true, force: true });
  });

  const search = async (app: TestApp, key: string, body: Record<string, unknown>) => {
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: body });
    return { status: res.statusCode, body: res.json() };
  };

  test('nothing published: a pull installs nothing and the model modes say models are missing', async () => {
    assert.deepEqual((await other.sharedModels!.pullAll()).map((r) => r.installed), [false, false]);
    assert.equal((await search(other, keyO, { query: 'heart attack', mode: 'sparse' })).status, 422);
  });

  test('trained and published on one process, pulled and installed by the other: the same models and results', async () => {
    await trainer.corpusModels.train('documents');
    trainer.refreshModels();
    const published = await trainer.sharedModels!.publish('documents');
    assert.ok(published);
    assert.equal((await blobs.list(modelsPrefix('documents'))).length, 3, 'two model files and the manifest');
    // the other process has not trained anything: it pulls the published models and installs them
    const pulled = await other.sharedModels!.pull('documents');
    assert.equal(pulled.installed, true);
    assert.deepEqual(other.refreshModels(), ['documents']);
    assert.equal(other.corpusModels.manifest('documents')!.dense.sha256, published.dense.sha256);
    assert.equal(other.corpusModels.manifest('documents')!.sparse.sha256, published.sparse.sha256);
    for (const mode of ['sparse', 'short_document', 'hybrid']) {
      const a = await search(trainer, keyT, { query: 'heart attack myocardial', mode, limit: 10 });
      const b = await search(other, keyO, { query: 'heart attack myocardial', mode, limit: 10 });
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.equal(b.status, 200, JSON.stringify(b.body));
      assert.deepEqual(b.body.hits.map((h: { id: string; score: number }) => [h.id, h.score]), a.body.hits.map((h: { id: string; score: number }) => [h.id, h.score]), mode);
    }
    // pulling again changes nothing
    assert.equal((await other.sharedModels!.pull('documents')).installed, false);
  });

  test('a new version published replaces the other process\'s models; the old files are removed from the store', async () => {
    const before = trainer.corpusModels.manifest('documents')!;
    for (const app of [trainer, other]) {
      await seed(app, docs(30, 60));
      await app.indexes!.catchUp();
    }
    await trainer.corpusModels.train('documents');
    const next = (await trainer.sharedModels!.publish('documents'))!;
    assert.notEqual(next.dense.sha256, before.dense.sha256);
    const keys = (await blobs.list(modelsPrefix('documents'))).map((b) => b.key).sort();
    assert.deepEqual(keys, [next.dense.file, next.sparse.file, 'manifest.json'].map((f) => modelsPrefix('documents') + f).sort());
    // the other process's periodic refresh: pull, then install
    await other.pullModels();
    assert.deepEqual(other.refreshModels(), ['documents']);
    assert.equal(other.corpusModels.manifest('documents')!.dense.sha256, next.dense.sha256);
  });

  test('a published file that does not match its manifest\'s SHA-256 is refused; the node keeps its models', async () => {
    const m = trainer.corpusModels.manifest('documents')!;
    const held = other.corpusModels.manifest('documents')!;
    // a manifest naming other models whose file is corrupt
    const bad = { ...m, dense: { ...m.dense, sha256: 'f'.repeat(64) } };
    await blobs.put(modelsPrefix('documents') + 'manifest.json', new TextEncoder().encode(JSON.stringify(bad)));
    await assert.rejects(other.sharedModels!.pull('documents'), /does not match its SHA-256/);
    assert.equal(other.corpusModels.manifest('documents')!.dense.sha256, held.dense.sha256);
    await trainer.sharedModels!.publish('documents');
  });
});
