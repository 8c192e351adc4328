// `lectern cluster snapshot create|list|prune` (ADR 0295) on a loopback cluster (`cluster up`: three NATS
// servers, two shards of one replica, a worker relaying the outbox), through the real binary: create
// asks one replica of every shard to publish now and prints what each published; list shows them
// (shard, replica, log sequence, size, age) as the object store holds them (checked against the store
// read directly); create for one shard's replica publishes only there; prune keeps the newest N; the
// command's usage errors exit 2 and a replica that is not live is reported (exit 1). Skipped with the
// reason when DATABASE_URL or nats-server is missing. Waits have generous ceilings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { alive, clusterDown, clusterEnv, clusterStatus, clusterUp, findNatsServer, type ClusterState } from '../../src/adapters/cluster/local-cluster.js';
import { NatsCluster } from '../../src/adapters/nats/nats-cluster.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { listSnapshots } from '../../src/cluster/shard-snapshots.js';
import { processEnvironment } from '../../src/config/index.js';
import { doc } from '../helpers/documents.js';
import { createTestSchema, databaseUrl, postgresSkip, tempDir } from '../helpers/storage.js';
import { waitForValue } from '../helpers/wait.js';

const natsServer = findNatsServer();
const skip = !databaseUrl ? postgresSkip('cluster snapshot command test') : natsServer === null ? 'nats-server not installed: cluster snapshot command test skipped' : undefined;
const BIN = fileURLToPath(new URL('../../../bin/lectern.mjs', import.meta.url));
const TOPICS = ['hydrogen storage in salt caverns', 'cushion gas pressure', 'sandstone porosity', 'microbial activity in reservoirs'];
const record = (i: number) => doc(`s${i}`, { title: `${TOPICS[i % 4]} study ${i}`, abstract: `We examine ${TOPICS[i % 4]} and ${TOPICS[(i * 3 + 1) % 4]}. Sample ${i}.`, language: 'en' });

function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  // the operator's shell: no cluster variables of its own, the cluster comes from --dir
  const env = Object.fromEntries(Object.entries(processEnvironment()).filter(([k]) => !k.startsWith('LECTERN_CLUSTER_')));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...env, LECTERN_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}
const json = <T>(r: { out: string; err: string }): T => {
  try {
    return JSON.parse(r.out) as T;
  } catch {
    throw new Error(`not JSON: ${r.out}\n${r.err}`);
  }
};

interface Published { shard: number; replica: number; node: string; id: string; seq: number; log_seq: number; bytes: number; files: number }
interface Listed { shard: number; replica: number | null; node: string | null; id: string; seq: number; log_seq: number; bytes: number; files: number; created_at: string; age_s: number; valid: boolean }

test('cluster snapshot create publishes one replica per shard now, list shows the store, prune keeps the newest N', { skip: skip ?? false, timeout: 900_000 }, async () => {
  const schema = await createTestSchema(databaseUrl!);
  const storage = await openPostgresStorage(schema.url);
  const tmp = tempDir('lectern-snapshot-cli-');
  const dir = join(tmp.dir, 'cluster');
  let state: ClusterState | null = null;
  let nats: NatsCluster | null = null;
  try {
    state = await clusterUp({ dir, shards: 2, replicas: 1, api: 0, workers: 1, databaseUrl: schema.url, readyTimeoutMs: 300_000, name: `sc${process.pid}`, baseEnv: processEnvironment() });
    await storage.documents.upsertMany(Array.from({ length: 120 }, (_, i) => record(i)), 1_700_000_000);
    const target = await storage.documents.maxSeq();
    // each shard indexes its own records (routed by work): together, all 120, announced by each replica
    await waitForValue('the search replicas to index the records', async () => {
      const st = await clusterStatus(dir);
      const docs = st.search.map((p) => (p as { docs?: number }).docs ?? 0);
      return docs.every((n) => n > 0) && docs.reduce((a, n) => a + n, 0) >= 120 ? true : null;
    });
    const env = clusterEnv(dir);
    nats = await NatsCluster.connect({ servers: env.LECTERN_CLUSTER_NATS_URL!.split(','), name: env.LECTERN_CLUSTER_NAME!, replicas: 3, logMaxAgeMs: 0, membershipMaxAgeMs: 0, connectionName: 'snapshot cli test' });
    const objects = await nats.snapshotObjects();

    // nothing published yet (the periodic snapshot is hourly by default)
    const empty = await run(['cluster', 'snapshot', 'list', '--dir', dir]);
    assert.equal(empty.code, 0, empty.err);
    assert.deepEqual(json<{ snapshots: Listed[] }>(empty).snapshots, []);

    // create: one replica of each shard publishes now
    const created = await run(['cluster', 'snapshot', 'create', '--dir', dir]);
    assert.equal(created.code, 0, created.out + created.err);
    const c = json<{ published: Published[]; failed: unknown[]; missing: unknown[] }>(created);
    assert.deepEqual(c.failed, []);
    assert.deepEqual(c.missing, []);
    assert.deepEqual(c.published.map((p) => [p.shard, p.replica, p.node]), [[0, 0, 'search-0-0'], [1, 0, 'search-1-0']]);
    for (const p of c.published) {
      assert.ok(p.bytes > 0 && p.files > 0, JSON.stringify(p));
      assert.ok(p.seq > 0 && p.seq <= target, JSON.stringify(p));
      const stored = await listSnapshots(objects, p.shard);
      assert.deepEqual(stored.map((s) => s.id), [p.id], `the object store holds shard ${p.shard}'s snapshot`);
      assert.equal(stored[0]!.totalBytes, p.bytes);
    }

    // list: what the store holds, with replica, log sequence, size and age
    const listed = json<{ snapshots: Listed[] }>(await run(['cluster', 'snapshot', 'list', '--dir', dir])).snapshots;
    assert.deepEqual(listed.map((s) => [s.shard, s.replica, s.id, s.seq, s.log_seq, s.bytes, s.files, s.valid]), c.published.map((p) => [p.shard, p.replica, p.id, p.seq, p.log_seq, p.bytes, p.files, true]));
    for (const s of listed) assert.ok(s.age_s >= 0 && s.age_s < 3_600 && Date.parse(s.created_at) > 0, JSON.stringify(s));

    // one shard's replica, three times: the publish itself keeps cluster.snapshot_keep (2) of the shard
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await run(['cluster', 'snapshot', 'create', '--dir', dir, '--shard', '1', '--replica', '0']);
      assert.equal(r.code, 0, r.out + r.err);
      const p = json<{ published: Published[] }>(r).published;
      assert.deepEqual(p.map((x) => x.shard), [1]);
      ids.push(p[0]!.id);
      await new Promise((res) => setTimeout(res, 5)); // ids are ms-stamped
    }
    const shard1 = json<{ snapshots: Listed[] }>(await run(['cluster', 'snapshot', 'list', '--dir', dir, '--shard', '1'])).snapshots;
    assert.deepEqual(shard1.map((s) => s.id), [ids[2], ids[1]], 'newest first, the publish kept two');
    assert.deepEqual((await listSnapshots(objects, 0)).map((s) => s.id), [c.published[0]!.id], 'shard 0 untouched');

    // prune --keep 1: each shard keeps its newest
    const pruned = await run(['cluster', 'snapshot', 'prune', '--dir', dir, '--keep', '1']);
    assert.equal(pruned.code, 0, pruned.out + pruned.err);
    const pr = json<{ keep: number; shards: { shard: number; deleted: string[]; kept: string[] }[] }>(pruned);
    assert.deepEqual(pr.shards, [
      { shard: 0, deleted: [], kept: [c.published[0]!.id] },
      { shard: 1, deleted: [ids[1]], kept: [ids[2]] },
    ]);
    assert.deepEqual((await listSnapshots(objects, 1)).map((s) => s.id), [ids[2]]);

    // a replica that is not live is reported, not asked (exit 1); usage errors exit 2
    const missing = await run(['cluster', 'snapshot', 'create', '--dir', dir, '--shard', '0', '--replica', '3']);
    assert.equal(missing.code, 1, missing.out + missing.err);
    assert.deepEqual(json<{ published: unknown[]; missing: { shard: number; replica: number }[] }>(missing).missing.map((m) => [m.shard, m.replica]), [[0, 3]]);
    for (const bad of [['create', '--replica', '0'], ['create', '--shard', '2'], ['prune'], ['prune', '--keep', '0'], ['list', '--every'], ['publish']]) {
      const r = await run(['cluster', 'snapshot', ...bad, '--dir', dir]);
      assert.equal(r.code, 2, `${bad.join(' ')}: ${r.out}${r.err}`);
      assert.match(r.err, /lectern: /);
    }
    assert.deepEqual((await listSnapshots(objects, 0)).map((s) => s.id), [c.published[0]!.id], 'nothing published by a refused command');
  } finally {
    await nats?.close();
    if (state) await clusterDown(dir, 10_000).catch(() => undefined);
    if (state) for (const p of [...state.api, ...state.search, ...state.nats, ...state.workers]) if (alive(p.pid)) process.kill(p.pid, 'SIGKILL');
    await storage.close();
    await schema.drop();
    tmp.remove();
  }
});
