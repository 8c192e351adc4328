// A new search process joins a running shard from a snapshot (issue 24, ADR 0255), on a loopback
// cluster (`cluster up`: three NATS servers, one search replica, a worker relaying the outbox): the
// replica publishes a snapshot on request (POST /internal/v1/shards/0/snapshot), more records are
// written, and a second search process of the same shard started with an empty data directory is not
// ready (/readyz 503 naming its replica's state) until it has installed the snapshot and applied the log
// after it; then both replicas answer the same shard search with the same ids and scores. Skipped with
// the reason when DATABASE_URL or nats-server is missing. Waits have generous ceilings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { alive, clusterDown, clusterEnv, clusterUp, findNatsServer } from '../../src/adapters/cluster/local-cluster.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { processEnvironment } from '../../src/config/index.js';
import { doc } from '../helpers/documents.js';
import { repoRoot } from '../helpers/paths.js';
import { freePort } from '../helpers/server-process.js';
import { createTestSchema, databaseUrl, postgresSkip, tempDir } from '../helpers/storage.js';
import { waitForValue } from '../helpers/wait.js';

const natsServer = findNatsServer();
const skip = !databaseUrl ? postgresSkip('cluster snapshot process test') : natsServer === null ? 'nats-server not installed: cluster snapshot process test skipped' : undefined;
const TOPICS = ['hydrogen storage in salt caverns', 'cushion gas pressure', 'sandstone porosity', 'microbial activity in reservoirs', 'carbon dioxide injection', 'caprock integrity'];
const record = (i: number) => doc(`p${i}`, { title: `${TOPICS[i % 6]} ${i % 4 === 0 ? 'review' : 'study'} ${i}`, abstract: `We examine ${TOPICS[i % 6]} and ${TOPICS[(i * 5 + 1) % 6]}. Sample ${i}.`, language: 'en' });

test('a search process started empty installs the shard\'s snapshot, is ready only after the log\'s tail, and answers as its peer', { skip: skip ?? false, timeout: 900_000 }, async () => {
  const schema = await createTestSchema(databaseUrl!);
  const storage = await openPostgresStorage(schema.url);
  const tmp = tempDir('lectern-snapshot-proc-');
  let second: number | null = null;
  try {
    const state = await clusterUp({ dir: tmp.dir, shards: 1, replicas: 1, api: 0, workers: 1, databaseUrl: schema.url, readyTimeoutMs: 300_000, name: `b${process.pid}`, baseEnv: processEnvironment() });
    const env = clusterEnv(tmp.dir);
    const secret = createHmac('sha256', env.LECTERN_SECRET!).update('lectern cluster shard calls').digest('base64url');
    const call = async (base: string, path: string, body: unknown) => {
      const res = await fetch(new URL(path, base), { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const first = state.search[0]!.url;
    const readyz = async (base: string) => {
      const res = await fetch(new URL('/readyz', base));
      return { status: res.status, body: (await res.json()) as { index_seq?: number } };
    };

    await storage.documents.upsertMany(Array.from({ length: 150 }, (_, i) => record(i)), 1_700_000_000);
    const historySeq = await storage.documents.maxSeq();
    await waitForValue('the first replica to index the history', async () => ((await readyz(first)).body.index_seq! >= historySeq ? true : null));
    // the replica acknowledges a batch just after committing it: until then its position is 0 (a snapshot
    // then is correct, only longer to install), so ask again until it covers the message
    const snapshot = await waitForValue('a snapshot covering the history\'s message', async () => {
      const snap = await call(first, '/internal/v1/shards/0/snapshot', {});
      assert.equal(snap.status, 200, JSON.stringify(snap.body));
      const s = snap.body.snapshot as { id: string; seq: number; log_seq: number; bytes: number };
      return s.log_seq > 0 ? s : null;
    }, { ceilingMs: 60_000 });
    assert.equal(snapshot.seq, historySeq);
    assert.ok(snapshot.log_seq > 0 && snapshot.bytes > 0);
    assert.equal((await call(first, '/internal/v1/shards/1/snapshot', {})).status, 404, 'a shard the node does not hold');

    // the tail: written after the snapshot
    await storage.documents.upsertMany(Array.from({ length: 40 }, (_, i) => record(1000 + i)), 1_700_000_001);
    await storage.documents.delete('p3', 1_700_000_002);
    const target = await storage.documents.maxSeq();

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const log = join(tmp.dir, 'logs', 'search-0-1.log');
    const fd = openSync(log, 'a');
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'lectern.mjs'), 'serve'], {
      env: { ...processEnvironment(), ...env, LECTERN_CLUSTER_ROLE: 'search', LECTERN_CLUSTER_SHARD: '0', LECTERN_CLUSTER_REPLICA: '1', LECTERN_DATA_DIR: join(tmp.dir, 'search-0-1'), PORT: String(port), LECTERN_LOG_LEVEL: 'info' },
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    second = child.pid!;
    // not ready until installed and caught up; every answer before says why
    const notReady: string[] = [];
    const ready = await waitForValue('the new replica to be ready', async () => {
      const r = await readyz(url);
      if (r.status !== 200) {
        notReady.push(JSON.stringify(r.body));
        return null;
      }
      return r.body;
    }, { failIf: () => !alive(second!) && `the new replica exited; see ${log}` });
    assert.ok(ready.index_seq! >= target, `ready at ${ready.index_seq}, the store is at ${target}`);
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => { try { return JSON.parse(l) as { msg?: string; snapshot?: { id: string; logSeq: number } }; } catch { return {}; } });
    const installed = lines.find((l) => l.msg?.startsWith('shard replica installed a snapshot'));
    assert.ok(installed, `the log says the snapshot was installed (${log})`);
    assert.equal(installed.snapshot?.id, snapshot.id);
    assert.ok(!lines.some((l) => l.msg === 'shard replica bootstrapped from the store'), 'no bootstrap from the store');

    // both replicas answer the shard's search alike (the first one's statistics for both)
    for (const text of ['hydrogen storage', 'sandstone porosity review', 'caprock integrity', 'cushion gas study']) {
      const stats = await call(first, '/internal/v1/shards/0/stats', { index: 'documents', query: { text } });
      const globalStats = (stats.body as { stats: unknown }).stats;
      const a = await call(first, '/internal/v1/shards/0/search', { index: 'documents', query: { text, limit: 20 }, globalStats });
      const b = await call(url, '/internal/v1/shards/0/search', { index: 'documents', query: { text, limit: 20 }, globalStats });
      const hits = (x: typeof a) => (x.body as { result: { hits: { id: string; score: number }[]; totalHits: number } }).result;
      assert.ok(hits(a).hits.length > 0, text);
      assert.deepEqual(hits(b).hits.map((h) => [h.id, h.score]), hits(a).hits.map((h) => [h.id, h.score]), text);
      assert.equal(hits(b).totalHits, hits(a).totalHits, text);
    }
    if (notReady.length > 0) assert.ok(notReady.some((c) => /replica|catching up/.test(c)), `while not ready, /readyz said why: ${notReady[0]}`);
  } finally {
    if (second !== null && alive(second)) process.kill(second, 'SIGKILL');
    await clusterDown(tmp.dir).catch(() => undefined);
    await storage.close();
    await schema.drop();
    tmp.remove();
  }
});
