// `lectern cluster` argument handling (the launcher itself runs for real in test/cluster/faults.test.ts):
// options reach the launcher as numbers with DATABASE_URL and REDIS_URL from the configuration; bad
// counts, a missing --dir or a missing PostgreSQL are refused with exit 2 and a line naming the fix;
// status exits 1 when a process is unhealthy; a failure of the launcher is one line and exit 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, type CliContext } from '../../src/cli/main.js';
import type { ClusterCommands, ClusterStateView } from '../../src/cli/cluster.js';
import { loadConfig } from '../../src/config/index.js';

const state: ClusterStateView = { api: [{ url: 'http://127.0.0.1:1', pid: 1 }], search: [{ shard: 0, replica: 0, pid: 2, url: 'http://127.0.0.1:2' }], nats: [{ url: 'nats://127.0.0.1:3', pid: 3 }], workers: [] };

async function run(args: string[], commands: ClusterCommands, env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const ctx: CliContext = { loadConfig: () => loadConfig({ LECTERN_DATA_DIR: '/tmp/unused', ...env }), openApp: async () => assert.fail('no app'), serve: async () => undefined, cluster: commands };
  const w = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  let out = '';
  let err = '';
  process.stdout.write = ((c: string | Uint8Array, ...rest: unknown[]) => (typeof c === 'string' ? ((out += c), true) : (w as (...a: unknown[]) => boolean)(c, ...rest))) as typeof process.stdout.write;
  process.stderr.write = ((c: string | Uint8Array) => ((err += String(c)), true)) as typeof process.stderr.write;
  try {
    return { code: await runCli(args, ctx), out, err };
  } finally {
    process.stdout.write = w;
    process.stderr.write = e;
  }
}

test('cluster up passes the counts and the store URLs; refuses what it cannot start', async () => {
  const calls: unknown[] = [];
  const commands: ClusterCommands = {
    up: async (o) => (calls.push(o), state),
    status: async () => ({ ...state, api: [{ ...state.api[0]!, healthy: false }], search: [{ ...state.search[0]!, healthy: true }], nats: [{ ...state.nats[0]!, healthy: true }] }),
    down: async () => state,
    env: () => ({}),
  };
  const db = { DATABASE_URL: 'postgres://u@127.0.0.1/db', REDIS_URL: 'redis://127.0.0.1:6379' };
  const up = await run(['cluster', 'up', '--dir', '/tmp/c', '--shards', '2', '--replicas', '2', '--api', '2'], commands, db);
  assert.equal(up.code, 0);
  assert.deepEqual(JSON.parse(up.out), state);
  assert.deepEqual(calls, [{ dir: '/tmp/c', shards: 2, replicas: 2, api: 2, workers: 0, databaseUrl: db.DATABASE_URL, redisUrl: db.REDIS_URL }]);

  const noDb = await run(['cluster', 'up', '--dir', '/tmp/c', '--shards', '2', '--replicas', '2', '--api', '1'], commands);
  assert.equal(noDb.code, 2);
  assert.match(noDb.err, /DATABASE_URL/);
  assert.equal((await run(['cluster', 'up', '--dir', '/tmp/c', '--shards', 'x', '--replicas', '1', '--api', '1'], commands, db)).code, 2);
  assert.match((await run(['cluster', 'up', '--shards', '1'], commands, db)).err, /--dir is required/);
  assert.equal(calls.length, 1, 'nothing started for refused commands');

  const status = await run(['cluster', 'status', '--dir', '/tmp/c'], commands);
  assert.equal(status.code, 1, 'an unhealthy process makes status exit 1');
  assert.equal(JSON.parse(status.out).api[0].healthy, false);
  assert.equal((await run(['cluster', 'down', '--dir', '/tmp/c'], commands)).code, 0);

  const broken = await run(['cluster', 'status', '--dir', '/tmp/none'], { ...commands, status: async () => { throw new Error('/tmp/none holds no cluster'); } });
  assert.equal(broken.code, 1);
  assert.match(broken.err, /^lectern: \/tmp\/none holds no cluster/);
});
