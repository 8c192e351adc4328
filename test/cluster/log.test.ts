// The cluster's log end to end on a real PostgreSQL and a real NATS JetStream server (issue 24, ADR
// 0206): outbox rows written in the transaction of each change, relayed to per-shard subjects, applied by
// each shard's follower to its index, acknowledged only once committed; a republish (crash between the
// publish and the outbox delete) or a redelivery after a restart is never applied twice.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fsIndexDirectories } from '../../src/adapters/fs/index-directories.js';
import { NatsCluster } from '../../src/adapters/nats/nats-cluster.js';
import { PostgresOutbox } from '../../src/adapters/postgres/postgres-outbox.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { OutboxRelay } from '../../src/cluster/outbox-relay.js';
import { openReplica, ShardFollower, shardOfStore, SwitchableSource } from '../../src/cluster/shard-follower.js';
import { shardOfWork } from '../../src/domain/shard-routing.js';
import { liveIdsOfShard } from '../helpers/shards.js';
import type { Storage } from '../../src/ports/storage.js';
import type { PostgresHandle } from '../../src/adapters/postgres/postgres-storage.js';
import { IndexSet } from '../../src/search/index-set.js';
import { doc } from '../helpers/documents.js';
import { natsSkip, natsUrl, uniqueClusterName } from '../helpers/nats.js';
import { createTestSchema, databaseUrl, postgresSkip, tempDir } from '../helpers/storage.js';

const SHARDS = 2;
const clock = { nowMs: () => Date.now() };
const skipNats = await natsSkip();
const skip = !databaseUrl ? postgresSkip('cluster log test') : skipNats;

let schema: Awaited<ReturnType<typeof createTestSchema>>;
let storage: Storage & PostgresHandle;
let nats: NatsCluster;
let tmp: ReturnType<typeof tempDir>;

before(async () => {
  if (skip) return;
  schema = await createTestSchema(databaseUrl!);
  storage = await openPostgresStorage(schema.url);
  nats = await NatsCluster.connect({ servers: [natsUrl], name: uniqueClusterName(), replicas: 1, logMaxAgeMs: 3_600_000, membershipMaxAgeMs: 30_000 });
  await nats.ensureStream();
  tmp = tempDir();
});

after(async () => {
  if (skip) return;
  await nats.jsm.streams.delete(nats.streamName).catch(() => undefined);
  await nats.close();
  await storage.close();
  await schema.drop();
  tmp.remove();
});

/** One replica of a shard: its index, fed from the log. */
async function openTestReplica(shard: number, name: string) {
  const dirs = fsIndexDirectories(join(tmp.dir, name));
  const source = new SwitchableSource(shardOfStore(storage.documents, shard, SHARDS));
  const index = IndexSet.open(dirs, source, clock);
  const follower = await openReplica({
    index,
    source,
    store: storage.documents,
    shard,
    shards: SHARDS,
    subscribed: () => nats.consumerExists(name),
    subscribe: (start) => nats.subscribe(shard, name, start),
    unsubscribe: () => nats.deleteConsumer(name),
    nowMs: () => Date.now(),
  });
  return { index, follower };
}

/** Steps the follower until `done` holds (bounded). */
async function until(follower: ShardFollower, done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await follower.step();
  assert.ok(done(), `timed out waiting for ${what}`);
}

const liveIdsOf = (shard: number): Promise<string[]> => liveIdsOfShard(storage.documents, shard, SHARDS);

test('changes reach every shard once, through the outbox and the log, and survive republishes and restarts', { skip: skip ?? false, timeout: 120_000 }, async () => {
  const outbox = new PostgresOutbox(storage.pool);
  // before the outbox is on, nothing is written to it
  await storage.documents.upsertMany([doc('early')], 1_700_000_000);
  assert.equal((await outbox.pending(10)).length, 0);
  await outbox.enable();

  const ids = Array.from({ length: 40 }, (_, i) => `d${i}`);
  await storage.documents.upsertMany(ids.map((id) => doc(id, { title: `cell biology paper ${id}` })), 1_700_000_001);
  await storage.documents.upsertMany([doc('d3', { title: 'rewritten d3' })], 1_700_000_002);
  await storage.documents.delete('d7', 1_700_000_003);
  const pending = await outbox.pending(1000);
  assert.equal(pending.length, 42, 'one outbox row per change');
  assert.equal(pending.find((e) => e.id === 'd3' && e.change === null)?.seq !== undefined, true, "d3's first change is superseded by its rewrite");

  // a relay that publishes, then dies before deleting its rows
  let failMark = true;
  const crashing = new OutboxRelay(
    { ...outbox, enable: () => outbox.enable(), pending: (n) => outbox.pending(n), tryLead: () => outbox.tryLead(), markPublished: async (s) => {
      if (failMark) throw new Error('crash after publish');
      return outbox.markPublished(s);
    } },
    nats.publisher(),
    { shards: SHARDS },
  );
  await assert.rejects(crashing.publishRound(), /crash after publish/);
  assert.equal((await outbox.pending(1000)).length, 42, 'nothing deleted without the acknowledgement');
  failMark = false;
  // the next relay republishes the same batches (same message ids: dropped by the log) and deletes
  const relay = new OutboxRelay(outbox, nats.publisher(), { shards: SHARDS });
  assert.equal(await relay.publishRound(), 42);
  assert.equal((await outbox.pending(1000)).length, 0);
  const state = await nats.streamState();
  const perShardBatches = SHARDS; // one message per shard: the republish was a duplicate
  assert.equal(state?.messages, perShardBatches);

  const replicas = [await openTestReplica(0, 's0r0'), await openTestReplica(1, 's1r0')];
  for (const [shard, r] of replicas.entries()) {
    // a new replica: bootstrapped from the store (its shard only), then the log
    await r.follower.step();
    await assertHoldsExactly(shard, r.index);
    assert.ok(!r.index.get('documents').has('d7'));
  }

  // more changes while replica 0 is down; it resumes after its acknowledged batch
  replicas[0]!.index.close();
  await replicas[0]!.follower.stop();
  const more = Array.from({ length: 20 }, (_, i) => `e${i}`);
  await storage.documents.upsertMany(more.map((id) => doc(id)), 1_700_000_010);
  await storage.documents.delete('d11', 1_700_000_011);
  assert.equal(await relay.publishRound(), 21);
  // a stray republish outside the duplicate window (a new message id) of an old change: skipped by sequence
  const victim = (await liveIdsOf(0))[0]!;
  const old = (await storage.documents.get(victim))!;
  await nats.publisher().publish({ shard: 0, changes: [{ deleted: true, seq: old.seq, id: victim }] }, 'stray-1');

  const again = await openTestReplica(0, 's0r0');
  const want0 = await liveIdsOf(0);
  await until(again.follower, () => want0.every((id) => again.index.get('documents').has(id)), 'replica 0 to catch up');
  await assertHoldsExactly(0, again.index);
  assert.ok(again.index.get('documents').has(victim), 'the stray old deletion was not applied');
  await replicas[1]!.follower.step();
  await replicas[1]!.follower.step();
  await assertHoldsExactly(1, replicas[1]!.index);

  // restarted with nothing new: every batch was acknowledged, nothing is redelivered
  again.index.close();
  await again.follower.stop();
  const third = await openTestReplica(0, 's0r0');
  assert.equal(await third.follower.pull(), 0, 'nothing redelivered after the acknowledgement');
  third.index.close();
  await third.follower.stop();
  replicas[1]!.index.close();
  await replicas[1]!.follower.stop();
});

async function assertHoldsExactly(shard: number, index: IndexSet): Promise<void> {
  const want = await liveIdsOf(shard);
  const idx = index.get('documents');
  for (const id of want) assert.ok(idx.has(id), `${id} on shard ${shard}`);
  assert.equal(idx.stats().docs, want.length, `shard ${shard} holds exactly its live records`);
}

test('a record relabelled into a work of another shard is deleted from the shard it left', { skip: skip ?? false, timeout: 120_000 }, async () => {
  const outbox = new PostgresOutbox(storage.pool);
  await outbox.enable();
  const relay = new OutboxRelay(outbox, nats.publisher(), { shards: SHARDS });
  // a pair whose two works hash to different shards (the merged work takes the lower id's key)
  const i = Array.from({ length: 64 }, (_, k) => k).find((k) => shardOfWork(`zmv${k}`, SHARDS) !== shardOfWork(`amv${k}`, SHARDS))!;
  const doi = `doi://10.5555/mv${i}`;
  await storage.documents.upsertMany([doc(`zmv${i}`, { uris: [doi] })], 1_700_100_000);
  assert.ok((await relay.publishRound()) >= 1);
  const from = shardOfWork(`zmv${i}`, SHARDS);
  const to = shardOfWork(`amv${i}`, SHARDS);
  const replicas = [await openTestReplica(0, 'mv-s0'), await openTestReplica(1, 'mv-s1')];
  for (const r of replicas) await r.follower.step();
  assert.ok(replicas[from]!.index.get('documents').has(`zmv${i}`));

  await storage.documents.upsertMany([doc(`amv${i}`, { uris: [doi] })], 1_700_100_001);
  assert.equal((await storage.documents.get(`zmv${i}`))!.workKey, `amv${i}`, 'the older record joined the new work');
  const moved = (await outbox.pending(100)).find((e) => e.id === `zmv${i}`);
  assert.deepEqual([moved?.oldWorkKey, moved?.workKey], [`zmv${i}`, `amv${i}`], 'the outbox row keeps the work key it left');
  await relay.publishRound();
  for (const r of replicas) for (let k = 0; k < 5; k++) await r.follower.step();
  assert.ok(!replicas[from]!.index.get('documents').has(`zmv${i}`), 'gone from the shard it left');
  assert.ok(replicas[to]!.index.get('documents').has(`zmv${i}`) && replicas[to]!.index.get('documents').has(`amv${i}`), 'both versions on the work\'s shard');
  for (const [shard, r] of replicas.entries()) await assertHoldsExactly(shard, r.index);
  for (const r of replicas) {
    r.index.close();
    await r.follower.stop();
  }
});

test('a replica whose unacknowledged changes aged out of the log rebuilds from the store', { skip: skip ?? false, timeout: 120_000 }, async () => {
  const short = await NatsCluster.connect({ servers: [natsUrl], name: uniqueClusterName(), replicas: 1, logMaxAgeMs: 1_500, membershipMaxAgeMs: 30_000 });
  try {
    await short.ensureStream();
    const outbox = new PostgresOutbox(storage.pool);
    const relay = new OutboxRelay(outbox, short.publisher(), { shards: SHARDS });
    const open = async () => {
      const dirs = fsIndexDirectories(join(tmp.dir, 'aged'));
      const source = new SwitchableSource({ maxSeq: async () => 0, changesSince: async () => [] });
      const index = IndexSet.open(dirs, source, clock);
      let bootstraps = 0;
      const follower = await openReplica({
        index,
        source,
        store: storage.documents,
        shard: 0,
        shards: SHARDS,
        subscribed: () => short.consumerExists('aged'),
        behindRetention: () => short.behindRetention('aged'),
        subscribe: (start) => short.subscribe(0, 'aged', start),
        unsubscribe: () => short.deleteConsumer('aged'),
        nowMs: () => Date.now(),
        onBootstrap: () => bootstraps++,
      });
      return { index, follower, bootstraps: () => bootstraps };
    };
    await storage.documents.upsertMany(Array.from({ length: 10 }, (_, k) => doc(`aged${k}`)), 1_700_200_000);
    await relay.publishRound();
    const first = await open();
    assert.equal(first.bootstraps(), 1);
    await first.follower.step();
    await assertHoldsExactly(0, first.index);
    first.index.close();
    await first.follower.stop();

    // while it is down, changes are published and age out before it comes back
    await storage.documents.upsertMany(Array.from({ length: 10 }, (_, k) => doc(`aged-late${k}`)), 1_700_200_001);
    await relay.publishRound();
    for (let k = 0; k < 100 && ((await short.streamState())?.messages ?? 0) > 0; k++) await new Promise((r) => setTimeout(r, 200));
    assert.equal((await short.streamState())?.messages, 0, 'the log dropped them');
    assert.equal(await short.behindRetention('aged'), true);

    const again = await open();
    assert.equal(again.bootstraps(), 1, 'rebuilt from the store');
    await assertHoldsExactly(0, again.index);
    again.index.close();
    await again.follower.stop();
  } finally {
    await short.jsm.streams.delete(short.streamName).catch(() => undefined);
    await short.close();
  }
});

test('a page the index read but failed to apply is applied on the next step, not lost', { skip: skip ?? false, timeout: 120_000 }, async () => {
  const outbox = new PostgresOutbox(storage.pool);
  const relay = new OutboxRelay(outbox, nats.publisher(), { shards: SHARDS });
  const dirs = fsIndexDirectories(join(tmp.dir, 'flaky'));
  const source = new SwitchableSource(shardOfStore(storage.documents, 1, SHARDS));
  const index = IndexSet.open(dirs, source, clock);
  await index.catchUp({ commit: 'always' });
  let failures = 1;
  // the index reads its changes, then fails once (a segment build that threw), then works again
  const flaky = {
    checkpoint: () => index.checkpoint(),
    catchUp: async (o: { commit: 'always' }) => {
      if (failures-- > 0) {
        // two pages read, as a catch-up reads them, before the failure
        const first = await source.changesSince(index.checkpoint(), 5);
        await source.changesSince(first[first.length - 1]!.seq, 5);
        throw new Error('segment build failed');
      }
      return index.catchUp(o);
    },
  };
  const follower = new ShardFollower(await nats.subscribe(1, 'flaky', Date.now() - 60_000), flaky, { loadDocuments: (ids) => storage.documents.getMany(ids) });
  source.target = follower;
  await storage.documents.upsertMany(Array.from({ length: 12 }, (_, k) => doc(`flaky${k}`)), 1_700_300_000);
  await relay.publishRound();
  await assert.rejects(follower.step(), /segment build failed/);
  for (let k = 0; k < 5; k++) await follower.step();
  await assertHoldsExactly(1, index);
  index.close();
  await follower.stop();
});
