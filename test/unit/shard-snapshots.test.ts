// The snapshot schedule and the descriptor checks of a shard's snapshots (ADR 0255), without NATS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descriptorProblem, Snapshotter, type PublishResult } from '../../src/cluster/shard-snapshots.js';
import { ANALYSIS_VERSION } from '../../src/engine/index.js';
import type { ShardSnapshot } from '../../src/ports/shard-snapshots.js';

const snap = (over: Partial<ShardSnapshot> = {}): ShardSnapshot => ({
  format: 1,
  id: '0001700000000000-search-0-0',
  shard: 0,
  shards: 2,
  analysis: ANALYSIS_VERSION,
  seq: 100,
  logSeq: 7,
  createdAt: new Date(1_700_000_000_000).toISOString(),
  node: 'search-0-0',
  indexes: {},
  files: [{ path: 'documents/manifest.json', bytes: 10, sha256: 'a'.repeat(64) }],
  totalBytes: 10,
  ...over,
});

test('a descriptor of another shard, layout or analysis, or a malformed one, is refused before any download', () => {
  assert.equal(descriptorProblem(snap(), 0, 2), null);
  assert.match(descriptorProblem(snap({ shard: 1 }), 0, 2)!, /of shard 1, not 0/);
  assert.match(descriptorProblem(snap(), 0, 3)!, /taken with 2 shards; the cluster has 3/);
  assert.match(descriptorProblem(snap({ analysis: ANALYSIS_VERSION + 1 }), 0, 2)!, /text analysis/);
  assert.match(descriptorProblem(snap({ files: [] }), 0, 2)!, /lacks/);
  assert.match(descriptorProblem(snap({ files: [{ path: 'documents/x', bytes: 1, sha256: 'zz' }] }), 0, 2)!, /malformed file/);
  assert.match(descriptorProblem({ format: 2 }, 0, 2)!, /not a format 1/);
  assert.match(descriptorProblem(null, 0, 2)!, /not a format 1/);
});

test('the schedule publishes when the replica moved past the newest snapshot and it is older than half an interval', async () => {
  let now = 1_700_000_000_000;
  let checkpoint = 0;
  let latest: ShardSnapshot | null = null;
  let published = 0;
  const s = new Snapshotter({
    publish: async () => {
      published++;
      return { snapshot: snap({ seq: checkpoint }), ms: 1, deleted: [] } satisfies PublishResult;
    },
    latest: async () => latest,
    checkpoint: () => checkpoint,
    intervalMs: 60_000,
    nowMs: () => now,
  });
  assert.equal(await s.tick(), null, 'nothing committed yet');
  checkpoint = 100;
  assert.ok(await s.tick(), 'no snapshot yet: publish');
  latest = snap({ seq: 100, createdAt: new Date(now).toISOString() });
  now += 40_000;
  assert.equal(await s.tick(), null, 'the newest covers the checkpoint');
  checkpoint = 150;
  now = Date.parse(latest.createdAt) + 20_000;
  assert.equal(await s.tick(), null, 'a peer published less than half an interval ago');
  now = Date.parse(latest.createdAt) + 31_000;
  assert.ok(await s.tick());
  assert.equal(published, 2);
  // on request: whatever the interval, one at a time
  const both = await Promise.all([s.snapshotNow(), s.snapshotNow()]);
  assert.equal(both.length, 2);
  assert.equal(published, 4);
  await s.stop();
});
