// Faults on a loopback cluster (issue 24, docs/scale.md "Faults"): `cluster up` with 2 shards x 2
// replicas, an api node and a worker (both can relay the outbox), three NATS servers. Documents are
// written throughout; a search replica is killed with SIGKILL and restarted (it resumes from its
// acknowledged position in the log), a NATS server is killed (the R=3 log goes on with two), the api node
// holding the relay is killed (the worker takes the relay over). At the end every live document is on
// every replica of its shard and on no other shard: nothing lost, nothing doubled.
// Skipped with the reason when DATABASE_URL or nats-server is missing. Waits have generous ceilings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alive, clusterDown, clusterStatus, clusterUp, findNatsServer, restartProcess, type ClusterState } from '../../src/adapters/cluster/local-cluster.js';
import { processEnvironment } from '../../src/config/index.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { shardOfWork } from '../../src/domain/shard-routing.js';
import { doc } from '../helpers/documents.js';
import { createTestSchema, databaseUrl, postgresSkip, tempDir } from '../helpers/storage.js';

const SHARDS = 2;
const REPLICAS = 2;
const natsServer = findNatsServer();
const skip = !databaseUrl ? postgresSkip('cluster fault test') : natsServer === null ? 'nats-server not installed: cluster fault test skipped' : undefined;

test('a loopback cluster loses and doubles nothing through search-node, NATS-node and api-node kills', { skip: skip ?? false, timeout: 900_000 }, async () => {
  const schema = await createTestSchema(databaseUrl!);
  const storage = await openPostgresStorage(schema.url);
  const tmp = tempDir('lectern-cluster-');
  let state: ClusterState | null = null;
  try {
    state = await clusterUp({ dir: tmp.dir, shards: SHARDS, replicas: REPLICAS, api: 1, workers: 1, databaseUrl: schema.url, readyTimeoutMs: 300_000, name: `f${process.pid}`, baseEnv: processEnvironment() });
    assert.equal(state.nats.length, 3);
    assert.equal(state.search.length, SHARDS * REPLICAS);
    assert.deepEqual(state.search.map((s) => [s.shard, s.replica]), [[0, 0], [0, 1], [1, 0], [1, 1]]);

    let n = 0;
    const write = async (count: number) => {
      const batch = Array.from({ length: count }, () => doc(`f${n++}`, { title: `fault tolerant paper ${n}`, abstract: 'replicated log shards' }));
      await storage.documents.upsertMany(batch, 1_700_000_000 + n);
    };
    const expected = async (): Promise<number[]> => {
      const per = new Array<number>(SHARDS).fill(0);
      for (let seq = 0; ; ) {
        const page = await storage.documents.changesSince(seq, 1000);
        if (page.length === 0) break;
        for (const c of page) if (!c.deleted) per[shardOfWork(c.doc.workKey, SHARDS)]!++;
        seq = page[page.length - 1]!.seq;
      }
      return per;
    };
    /** Waits until every replica holds exactly its shard's live documents, up to the store's sequence. */
    const converged = async (what: string) => {
      const want = await expected();
      const maxSeq = await storage.documents.maxSeq();
      let last: unknown = null;
      for (let i = 0; i < 600; i++) {
        const s = await clusterStatus(tmp.dir);
        last = s.search;
        const ok = s.search.every((r) => r.healthy && r.docs === want[r.shard] && (r.seq ?? 0) >= 1) && s.search.some((r) => r.seq === maxSeq);
        if (ok) return;
        await new Promise((r) => setTimeout(r, 500));
      }
      assert.fail(`${what}: replicas did not converge to ${JSON.stringify(want)} (store seq ${maxSeq}): ${JSON.stringify(last)}`);
    };

    await write(300);
    await storage.documents.delete('f5', 1_700_001_000);
    await converged('after the first ingest');

    // kill -9 one search replica while writes go on; restart it: it catches up from the log
    const victim = state.search.find((s) => s.shard === 0 && s.replica === 1)!;
    process.kill(victim.pid, 'SIGKILL');
    await write(200);
    await storage.documents.upsertMany([doc('f7', { title: 'rewritten while a replica was down' })], 1_700_002_000);
    restartProcess(tmp.dir, 'search-0-1', processEnvironment());
    await write(100);
    await converged('after a search replica was killed and restarted');

    // kill -9 one NATS server: the log (R=3) and the membership go on with two
    process.kill(state.nats[2]!.pid, 'SIGKILL');
    await write(200);
    await converged('after a NATS server was killed');

    // kill -9 the api node: the worker takes the relay over (the advisory lock died with its session)
    process.kill(state.api[0]!.pid, 'SIGKILL');
    await write(200);
    await converged('after the api node holding the relay was killed');
    const pending = await storage.pool.query<{ n: number }>('SELECT COUNT(*) AS n FROM document_outbox');
    assert.equal(pending.rows[0]!.n, 0, 'the outbox is drained');
    const total = (await expected()).reduce((a, b) => a + b, 0);
    assert.equal(total, await storage.documents.count());
  } finally {
    if (state) await clusterDown(tmp.dir, 10_000).catch(() => undefined);
    if (state) for (const p of [...state.api, ...state.search, ...state.nats, ...state.workers]) if (alive(p.pid)) process.kill(p.pid, 'SIGKILL');
    await storage.close();
    await schema.drop();
    tmp.remove();
  }
});
