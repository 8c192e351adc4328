// Corpus models on a loopback cluster (issue 24, ADR 0267): `lectern models train --cluster DIR` trains
// once from the cluster's store and publishes the models to PostgreSQL; the api node and every search node
// pull and install them within seconds, so the model modes (sparse, short_document, hybrid) through the
// api node give one node's top 10, ids and scores, with the same models. Skipped with the reason when
// DATABASE_URL or nats-server is missing. Waits have generous ceilings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { alive, clusterDown, clusterStatus, clusterUp, findNatsServer, type ClusterState } from '../../src/adapters/cluster/local-cluster.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import { AccountService } from '../../src/accounts/account-service.js';
import { ApiKeyService } from '../../src/accounts/api-keys.js';
import { shardOfWork } from '../../src/domain/shard-routing.js';
import { processEnvironment } from '../../src/config/index.js';
import { doc, seed } from '../helpers/documents.js';
import { testApp } from '../helpers/app.js';
import { createTestSchema, databaseUrl, postgresSkip, tempDir } from '../helpers/storage.js';

const natsServer = findNatsServer();
const skip = !databaseUrl ? postgresSkip('cluster models test') : natsServer === null ? 'nats-server not installed: cluster models test skipped' : undefined;
const BIN = fileURLToPath(new URL('../../../bin/lectern.mjs', import.meta.url));

const heart = ['Heart attack outcomes in adults', 'Myocardial infarction after surgery', 'Cardiac arrest and heart failure', 'Coronary artery disease and myocardial damage'];
const heartAbs = ['Myocardial infarction (heart attack) follows coronary occlusion; cardiac troponin rises.', 'Patients with heart failure after myocardial infarction; coronary reperfusion and cardiac outcomes.'];
const rock = ['Sandstone porosity', 'Reservoir rock permeability', 'Sediment and sandstone diagenesis', 'Porous rock reservoir pressure'];
const rockAbs = ['Sandstone porosity and permeability of reservoir rock; sediment compaction.', 'Diagenesis of sediment reduces porosity; reservoir rock pressure and permeability.'];
const records = Array.from({ length: 90 }, (_, i) => {
  const h = i % 2 === 0;
  return doc(`c${i}`, { title: `${(h ? heart : rock)[(i >> 1) % 4]} ${i}`, abstract: `${(h ? heartAbs : rockAbs)[(i >> 3) % 2]} Study ${i} of ${(h ? rock : heart)[i % 4]!.toLowerCase()}.`, type: i % 4 === 0 ? 'review' : 'journal-article', language: 'en' });
});

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.on('close', (code) => resolve({ code, out }));
  });
}

test('models trained once on a loopback cluster reach the api and search nodes: the model modes equal one node', { skip: skip ?? false, timeout: 900_000 }, async () => {
  const schema = await createTestSchema(databaseUrl!);
  const storage = await openPostgresStorage(schema.url);
  const tmp = tempDir('lectern-cluster-models-');
  const one = await testApp();
  let state: ClusterState | null = null;
  try {
    state = await clusterUp({ dir: join(tmp.dir, 'cluster'), shards: 2, replicas: 1, api: 1, workers: 0, databaseUrl: schema.url, readyTimeoutMs: 300_000, name: `m${process.pid}`, baseEnv: processEnvironment() });
    await storage.documents.upsertMany(records, 1_700_000_000);
    const apiKeys = new ApiKeyService(storage.apiKeys, storage.accounts, systemClock);
    const { apiKey } = await new AccountService(storage.accounts, storage.ledger, apiKeys, systemClock).create({ email: `models-${process.pid}@example.org`, credits: 10_000_000 });
    // the reference: one node over the same records, with models trained from its store
    await seed(one, records);
    await one.indexes!.catchUp();
    const trained = await one.corpusModels.train('documents');
    one.refreshModels();
    const keyOne = (await one.account({ credits: 100_000 })).key;
    const want = [0, 0];
    for (const c of await storage.documents.changesSince(0, 10_000)) if (!c.deleted) want[shardOfWork(c.doc.workKey, 2)]!++;
    const deadline = Date.now() + 300_000;
    for (;;) {
      const s = await clusterStatus(join(tmp.dir, 'cluster'));
      if (s.search.every((r) => r.healthy && r.docs === want[r.shard])) break;
      if (Date.now() > deadline) throw new Error(`replicas did not converge: ${JSON.stringify(s.search)} want ${want}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const api = state.api[0]!.url;
    const search = async (url: string, key: string, body: Record<string, unknown>) => {
      const res = await fetch(new URL('/v2/search/', url), { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as { hits: { id: string; score: number }[]; partial_results?: unknown } };
    };
    // before training, the model modes answer 422 on the cluster (no models anywhere)
    assert.equal((await search(api, apiKey, { query: 'heart attack', mode: 'sparse' })).status, 422);

    // train once, from the cluster's store, on a process of its own (role api: no index), and publish
    const env = { ...processEnvironment(), LECTERN_DATA_DIR: join(tmp.dir, 'trainer') };
    const r = await run(['models', 'train', '--index', 'documents', '--cluster', join(tmp.dir, 'cluster')], env);
    assert.equal(r.code, 0, r.out);
    const printed = JSON.parse(r.out.slice(r.out.indexOf('{'))) as { published: { index: string; dense: string; sparse: string }[] };
    assert.deepEqual(printed.published, [{ index: 'documents', dense: trained.manifest!.dense.sha256, sparse: trained.manifest!.sparse.sha256 }], 'the cluster trained the models one node trains');

    // every node installs them within seconds: the model modes through the api node equal one node
    const cases = ['sparse', 'short_document', 'hybrid'].flatMap((mode) => ['heart attack', 'sandstone porosity reservoir', 'myocardial damage after surgery'].map((query) => ({ query, mode, limit: 10, heap_factor: 1 })));
    const view = (b: { hits: { id: string; score: number }[] }) => b.hits.map((h) => [h.id, h.score]);
    const equalNow = async (): Promise<string[]> => {
      const diffs: string[] = [];
      for (const body of cases) {
        const ref = await one.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': keyOne }, payload: body });
        const b = await search(api, apiKey, body);
        if (b.status !== 200 || b.body.partial_results !== undefined || JSON.stringify(view(b.body)) !== JSON.stringify(view(ref.json()))) diffs.push(`${body.mode} ${body.query}: ${b.status}`);
      }
      return diffs;
    };
    const until = Date.now() + 120_000;
    let diffs = await equalNow();
    while (diffs.length > 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 1000));
      diffs = await equalNow();
    }
    assert.deepEqual(diffs, []);
  } finally {
    if (state) await clusterDown(join(tmp.dir, 'cluster'), 10_000).catch(() => undefined);
    if (state) for (const p of [...state.api, ...state.search, ...state.nats, ...state.workers]) if (alive(p.pid)) process.kill(p.pid, 'SIGKILL');
    await one.dispose();
    await storage.close();
    await schema.drop();
    tmp.remove();
  }
});
