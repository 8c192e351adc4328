// Recognition jobs on a loopback cluster (issue 24, docs/scale.md "Jobs", ADR 0250): `cluster up` with
// one shard, an api node and a worker. A PDF submitted to the api node is queued on pg-boss (the api node
// converts nothing); the worker converts it; killed with SIGKILL in the middle, the worker is restarted
// and the job taken over (its lease runs out, its pg-boss attempt is failed and retried), completed and
// billed once. Skipped with the reason when DATABASE_URL, nats-server or mutool is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AccountService } from '../../src/accounts/account-service.js';
import { ApiKeyService } from '../../src/accounts/api-keys.js';
import { alive, clusterDown, clusterUp, findNatsServer, restartProcess, type ClusterState } from '../../src/adapters/cluster/local-cluster.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { processEnvironment } from '../../src/config/index.js';
import { createTestSchema, databaseUrl, postgresSkip, tempDir } from '../helpers/storage.js';
import { waitFor } from '../helpers/wait.js';
import { sampleArticle } from '../recognition/helpers/pdf-builder.js';
import { needs } from '../recognition/helpers/tools.js';
import { multipart } from '../recognition-jobs/helpers.js';

const natsServer = findNatsServer();
const mutool = await needs('mutool');
const skip = !databaseUrl ? postgresSkip('cluster recognition jobs') : natsServer === null ? 'nats-server not installed: cluster recognition jobs skipped' : mutool;
const PAGES = 200;

test('a cluster: the api node queues a recognition, the worker converts it; killed mid-job and restarted, the job completes, billed once', { skip: skip || false, timeout: 900_000 }, async () => {
  const schema = await createTestSchema(databaseUrl!);
  const storage = await openPostgresStorage(schema.url, { max: 2 });
  const tmp = tempDir('lectern-cluster-jobs-');
  const env = { ...processEnvironment(), LECTERN_RECOGNITION_LEASE_SECONDS: '6', LECTERN_RECOGNITION_RETRY_DELAY_SECONDS: '1', LECTERN_RECOGNITION_QUEUE_POLL_MS: '500', LECTERN_RECOGNITION_WORKERS: '1' };
  let state: ClusterState | null = null;
  let restarted: number | null = null;
  try {
    state = await clusterUp({ dir: tmp.dir, shards: 1, replicas: 1, api: 1, workers: 1, databaseUrl: schema.url, readyTimeoutMs: 300_000, name: `j${process.pid}`, baseEnv: env });
    const clock = { nowMs: () => Date.now() };
    const accounts = new AccountService(storage.accounts, storage.ledger, new ApiKeyService(storage.apiKeys, storage.accounts, clock), clock);
    const { account, apiKey } = await accounts.create({ email: `jobs-${process.pid}@example.org`, credits: 1000 });
    const api = state.api[0]!.url;
    const { body, contentType } = multipart([{ name: 'file', filename: 'long.pdf', data: sampleArticle(PAGES) }]);
    const res = await fetch(`${api}/v1/recognitions`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': contentType }, body });
    assert.equal(res.status, 202, await res.clone().text());
    const id = ((await res.json()) as { id: string }).id;
    const poll = async () => (await (await fetch(`${api}/v1/recognitions/${id}`, { headers: { 'x-api-key': apiKey } })).json()) as { status: string; pages_done: number; pages_total: number | null; charged_credits: number | null; error: unknown };

    // the worker converts (the api node holds nothing): kill it once it has checkpointed pages
    const worker = state.workers[0]!.pid;
    const seen = (await waitFor('the worker converting the job', async () => {
      const j = await poll();
      if (j.status === 'completed' || j.status === 'failed') throw new Error(`the job ended (${j.status}) before the worker could be killed: make the document longer`);
      return j.status === 'processing' && j.pages_done > 0 ? j : null;
    }, { intervalMs: 50 }))!;
    const holder = await storage.pool.query<{ worker: string | null }>('SELECT worker FROM recognition_jobs WHERE id = $1', [id]);
    assert.ok(holder.rows[0]!.worker, 'a worker holds the job');
    process.kill(worker, 'SIGKILL');
    assert.ok(seen.pages_done < PAGES);
    restarted = restartProcess(tmp.dir, 'worker-0', env);

    const done = (await waitFor('the job completed after the worker was restarted', async () => {
      const j = await poll();
      return j.status === 'completed' || j.status === 'failed' ? j : null;
    }, { intervalMs: 250 }))!;
    assert.equal(done.status, 'completed', JSON.stringify(done.error));
    assert.equal(done.pages_total, PAGES);
    const charges = (await storage.ledger.entries(account.id, 50)).filter((e) => e.operation === 'recognition');
    assert.equal(charges.length, 1, 'billed once');
    assert.equal(done.charged_credits, Math.abs(charges[0]!.amount));
    const holderAfter = await storage.pool.query<{ worker: string | null }>('SELECT worker FROM recognition_jobs WHERE id = $1', [id]);
    assert.notEqual(holderAfter.rows[0]!.worker, holder.rows[0]!.worker, 'another worker instance completed it');
  } finally {
    if (state) await clusterDown(tmp.dir, 10_000).catch(() => undefined);
    if (restarted !== null && alive(restarted)) process.kill(restarted, 'SIGKILL');
    if (state) for (const p of [...state.api, ...state.search, ...state.nats, ...state.workers]) if (alive(p.pid)) process.kill(p.pid, 'SIGKILL');
    await storage.close();
    await schema.drop();
    tmp.remove();
  }
});
