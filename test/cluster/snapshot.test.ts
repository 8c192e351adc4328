// A new shard replica bootstraps from a peer's snapshot plus the log's tail (issue 24, ADR 0255), on a
// real PostgreSQL and a real NATS JetStream server: the snapshot (segment files of a committed manifest
// and the log sequence they cover) goes into the JetStream object store; a replica with an empty index
// installs it, follows the log from just after it (not from sequence 1, not from the store), and answers
// searches exactly as the replica it came from. A damaged snapshot, or one whose log tail aged out, is
// refused and the replica bootstraps from the store instead.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FsLocalIndexFiles } from '../../src/adapters/fs/index-snapshot-files.js';
import { fsIndexDirectories } from '../../src/adapters/fs/index-directories.js';
import { NatsCluster } from '../../src/adapters/nats/nats-cluster.js';
import { PostgresOutbox } from '../../src/adapters/postgres/postgres-outbox.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { OutboxRelay } from '../../src/cluster/outbox-relay.js';
import { openReplica, ShardFollower, SwitchableSource, type BootstrapInfo } from '../../src/cluster/shard-follower.js';
import { installLatestSnapshot, listSnapshots, publishSnapshot } from '../../src/cluster/shard-snapshots.js';
import { INDEX_NAMES } from '../../src/domain/document.js';
import { liveIdsOfShard } from '../helpers/shards.js';
import type { SnapshotObjects } from '../../src/ports/shard-snapshots.js';
import type { Storage } from '../../src/ports/storage.js';
import type { PostgresHandle } from '../../src/adapters/postgres/postgres-storage.js';
import { IndexSet } from '../../src/search/index-set.js';
import { doc } from '../helpers/documents.js';
import { natsSkip, natsUrl, uniqueClusterName } from '../helpers/nats.js';
import { createTestSchema, databaseUrl, postgresSkip, tempDir } from '../helpers/storage.js';

const SHARDS = 2;
const SHARD = 0;
const clock = { nowMs: () => Date.now() };
const skipNats = await natsSkip();
const skip = !databaseUrl ? postgresSkip('cluster snapshot test') : skipNats;

let schema: Awaited<ReturnType<typeof createTestSchema>>;
let storage: Storage & PostgresHandle;
let nats: NatsCluster;
let objects: SnapshotObjects;
let tmp: ReturnType<typeof tempDir>;
let clusterName: string;

before(async () => {
  if (skip) return;
  schema = await createTestSchema(databaseUrl!);
  storage = await openPostgresStorage(schema.url);
  clusterName = uniqueClusterName();
  nats = await NatsCluster.connect({ servers: [natsUrl], name: clusterName, replicas: 1, logMaxAgeMs: 3_600_000, membershipMaxAgeMs: 30_000 });
  await nats.ensureStream();
  objects = await nats.snapshotObjects();
  tmp = tempDir();
});

after(async () => {
  if (skip) return;
  await nats.jsm.streams.delete(nats.streamName).catch(() => undefined);
  await nats.jsm.streams.delete(`OBJ_${clusterName}-snapshots`).catch(() => undefined);
  await nats.close();
  await storage.close();
  await schema.drop();
  tmp.remove();
});

const WORDS = ['cell', 'protein', 'membrane', 'signal', 'kinase', 'tumour', 'immune', 'receptor', 'neuron', 'cortex', 'enzyme', 'genome', 'plasma', 'viral', 'lipid', 'insulin'];
/** A record with a few words drawn from WORDS (deterministic by `k`), so scores differ between records. */
const paper = (id: string, k: number) =>
  doc(id, {
    title: `${WORDS[k % WORDS.length]} ${WORDS[(k * 7 + 3) % WORDS.length]} study ${k % 5 === 0 ? WORDS[(k * 3) % WORDS.length] : ''}`,
    abstract: Array.from({ length: 5 + (k % 9) }, (_, j) => WORDS[(k * 5 + j * 11) % WORDS.length]).join(' '),
  });

/** One replica of shard 0 in `name` (its directory and durable consumer), snapshots on or off. */
async function openTestReplica(name: string, options: { snapshots: boolean; nats?: NatsCluster; objects?: SnapshotObjects }) {
  const n = options.nats ?? nats;
  const objs = options.objects ?? objects;
  const root = join(tmp.dir, name);
  const source = new SwitchableSource({ maxSeq: async () => 0, changesSince: async () => [] });
  const index = IndexSet.open(fsIndexDirectories(root), source, clock);
  let storeReads = 0;
  const store = {
    maxSeq: () => storage.documents.maxSeq(),
    changesSince: (seq: number, limit: number) => {
      storeReads++;
      return storage.documents.changesSince(seq, limit);
    },
    getMany: (ids: readonly string[]) => storage.documents.getMany(ids),
  };
  const boots: BootstrapInfo[] = [];
  const states: string[] = [];
  const local = new FsLocalIndexFiles(root, INDEX_NAMES);
  const follower = await openReplica({
    index,
    source,
    store,
    shard: SHARD,
    shards: SHARDS,
    subscribed: () => n.consumerExists(name),
    behindRetention: () => n.behindRetention(name),
    subscribe: (start) => n.subscribe(SHARD, name, start),
    unsubscribe: () => n.deleteConsumer(name),
    ...(options.snapshots
      ? {
          installSnapshot: () =>
            installLatestSnapshot({ objects: objs, local, shard: SHARD, shards: SHARDS, logHoldsAfter: (s) => n.logHoldsAfter(s), replace: (install) => index.replace(install), nowMs: clock.nowMs, onState: (s) => states.push(s) }),
        }
      : {}),
    nowMs: clock.nowMs,
    onBootstrap: (b) => boots.push(b),
    onState: (s) => {
      if (s !== null) states.push(s);
    },
  });
  const publish = (keep = 2) => publishSnapshot({ objects: objs, local, shard: SHARD, shards: SHARDS, node: name, logPosition: () => n.logPosition(name), keep, nowMs: clock.nowMs });
  return { index, follower, boots, states, publish, storeReads: () => storeReads, close: async () => {
    index.close();
    await follower.stop();
  } };
}

const liveIdsOf = (shard: number): Promise<string[]> => liveIdsOfShard(storage.documents, shard, SHARDS);

/** Steps the follower until the index holds exactly the shard's live records at the store's sequence (bounded). */
async function catchUp(follower: ShardFollower, index: IndexSet): Promise<void> {
  const want = await liveIdsOf(SHARD);
  const target = await storage.documents.maxSeq();
  const done = () => index.get('documents').stats().docs === want.length && want.every((id) => index.get('documents').has(id));
  for (let i = 0; i < 300 && !done(); i++) await follower.step();
  assert.ok(done(), `the replica holds exactly the ${want.length} live records of shard ${SHARD} (store sequence ${target})`);
}

const QUERIES = ['cell protein', 'membrane signal kinase', 'immune receptor', 'neuron cortex study', 'genome', 'viral lipid insulin', '"protein study"'];

/** The top 20 of every query (ids and scores) and the totals. */
function answers(index: IndexSet) {
  return QUERIES.map((text) => {
    const r = index.get('documents').search({ text, limit: 20 });
    return { text, total: r.totalHits, hits: r.hits.map((h) => [h.id, h.score]) };
  });
}

test('a new replica installs the latest snapshot, applies only the log after it, and answers as its peer', { skip: skip ?? false, timeout: 300_000 }, async () => {
  const outbox = new PostgresOutbox(storage.pool);
  await outbox.enable();
  const relay = new OutboxRelay(outbox, nats.publisher(), { shards: SHARDS });
  // history: several batches (several segments), updates and deletions, all through the log
  for (let b = 0; b < 4; b++) {
    await storage.documents.upsertMany(Array.from({ length: 120 }, (_, i) => paper(`h${b}-${i}`, b * 120 + i)), 1_700_000_000 + b);
    await relay.publishRound();
  }
  const a = await openTestReplica('snap-a', { snapshots: true });
  assert.equal(a.boots[0]?.source, 'store', 'no snapshot yet: the first replica bootstraps from the store');
  assert.match(a.boots[0]?.snapshotRefused ?? '', /no snapshot of shard 0/);
  await catchUp(a.follower, a.index);
  await storage.documents.upsertMany(Array.from({ length: 30 }, (_, i) => paper(`h0-${i}`, 1000 + i)), 1_700_000_010);
  const shard0 = await liveIdsOf(SHARD);
  await storage.documents.delete(shard0[0]!, 1_700_000_011);
  await relay.publishRound();
  await catchUp(a.follower, a.index);

  const published = await a.publish();
  assert.ok(published, 'a snapshot was published');
  const snap = published.snapshot;
  assert.equal(snap.seq, a.index.checkpoint(), 'it covers the replica\'s committed checkpoint');
  assert.equal(snap.logSeq, (await nats.streamState())!.lastSeq, 'an idle replica\'s snapshot covers the whole log so far');
  assert.ok(snap.files.some((f) => f.path === 'documents/manifest.json') && snap.files.some((f) => /^documents\/seg-/.test(f.path)));
  assert.deepEqual((await listSnapshots(objects, SHARD)).map((s) => s.id), [snap.id]);

  // the tail: new records, an update and a deletion after the snapshot
  const tailDocs = Array.from({ length: 50 }, (_, i) => paper(`t-${i}`, 2000 + i));
  await storage.documents.upsertMany(tailDocs, 1_700_000_020);
  const old = (await liveIdsOf(SHARD)).filter((id) => id.startsWith('h'));
  await storage.documents.upsertMany([paper(old[1]!, 3000)], 1_700_000_021);
  await storage.documents.delete(old[2]!, 1_700_000_022);
  await relay.publishRound();
  await catchUp(a.follower, a.index);
  const tailChanges = (await storage.documents.changesSince(snap.seq, 10_000)).length;
  const historyChanges = (await storage.documents.changesSince(0, 10_000)).length - tailChanges;

  const b = await openTestReplica('snap-b', { snapshots: true });
  assert.equal(b.boots[0]?.source, 'snapshot', `installed the snapshot (${JSON.stringify(b.boots[0])})`);
  assert.equal(b.boots[0]?.snapshot?.id, snap.id);
  assert.equal(b.index.checkpoint(), snap.seq, 'the installed index stands at the snapshot\'s store sequence');
  assert.equal(b.storeReads(), 0, 'no bootstrap from the store');
  const consumer = await nats.jsm.consumers.info(nats.streamName, 'snap-b');
  assert.equal(consumer.config.opt_start_seq, snap.logSeq + 1, 'its consumer starts just after the snapshot\'s log sequence');
  assert.ok(b.states.some((s) => /installing snapshot/.test(s)), 'readiness said it was installing');
  await catchUp(b.follower, b.index);
  assert.ok(b.follower.firstLogSeq !== null && b.follower.firstLogSeq > snap.logSeq, `the first message it read (${b.follower.firstLogSeq}) is after the snapshot (${snap.logSeq}), not sequence 1`);
  assert.ok(b.follower.applied > 0 && b.follower.applied <= tailChanges, `it applied ${b.follower.applied} changes: the tail's (${tailChanges}), not the history's (${historyChanges})`);
  assert.equal(b.storeReads(), 0);
  assert.equal(b.index.checkpoint(), a.index.checkpoint());
  assert.deepEqual(answers(b.index), answers(a.index), 'same ids, scores and totals as the replica it came from');
  assert.ok(answers(a.index).every((q) => q.hits.length > 0), 'the queries match something');

  // restarted, it resumes from its own acknowledged position (no new bootstrap)
  await b.close();
  const b2 = await openTestReplica('snap-b', { snapshots: true });
  assert.equal(b2.boots.length, 0);
  assert.equal(await b2.follower.pull(), 0, 'nothing redelivered');
  await b2.close();
  await a.close();
});

test('a damaged snapshot is refused and the replica bootstraps from the store; only the newest snapshots are kept', { skip: skip ?? false, timeout: 300_000 }, async () => {
  const outbox = new PostgresOutbox(storage.pool);
  await outbox.enable();
  const relay = new OutboxRelay(outbox, nats.publisher(), { shards: SHARDS });
  await storage.documents.upsertMany(Array.from({ length: 60 }, (_, i) => paper(`c-${i}`, 4000 + i)), 1_700_001_000);
  await relay.publishRound();
  const a = await openTestReplica('snap-c-src', { snapshots: false });
  await catchUp(a.follower, a.index);
  const first = (await a.publish(2))!;
  await storage.documents.upsertMany([paper('c-extra', 5000)], 1_700_001_001);
  await relay.publishRound();
  await catchUp(a.follower, a.index);
  await new Promise((r) => setTimeout(r, 5)); // ids carry the millisecond
  const second = (await a.publish(2))!;
  await new Promise((r) => setTimeout(r, 5));
  const third = (await a.publish(2))!;
  const kept = (await listSnapshots(objects, SHARD)).map((s) => s.id);
  assert.deepEqual(kept, [third.snapshot.id, second.snapshot.id], 'the two newest are kept');
  assert.ok(third.deleted.includes(first.snapshot.id));
  assert.equal((await objects.list(`shard-0/${first.snapshot.id}/`)).length, 0, 'the oldest one\'s files are gone');

  // damage a segment of the newest snapshot: the object store holds other bytes than its descriptor says
  const seg = third.snapshot.files.find((f) => /^documents\/seg-/.test(f.path))!;
  const bad = new Uint8Array(seg.bytes).fill(42);
  await objects.put(`shard-0/${third.snapshot.id}/${seg.path}`, (async function* () { yield bad; })());
  const c = await openTestReplica('snap-c', { snapshots: true });
  assert.equal(c.boots[0]?.source, 'store', 'refused: bootstrapped from the store');
  assert.match(c.boots[0]?.snapshotRefused ?? '', new RegExp(`snapshot ${third.snapshot.id} is refused: ${seg.path} is damaged`));
  assert.ok(c.states.some((s) => /bootstrapping from the store: .*damaged/.test(s)), 'readiness said why');
  assert.ok(c.storeReads() > 0);
  await catchUp(c.follower, c.index);
  assert.deepEqual(answers(c.index), answers(a.index));
  await c.close();
  await a.close();
});

test('a snapshot whose log tail aged out is refused (the log says so) and the replica bootstraps from the store', { skip: skip ?? false, timeout: 300_000 }, async () => {
  const shortName = uniqueClusterName();
  const short = await NatsCluster.connect({ servers: [natsUrl], name: shortName, replicas: 1, logMaxAgeMs: 1_500, membershipMaxAgeMs: 30_000 });
  const objs = await short.snapshotObjects();
  try {
    await short.ensureStream();
    const outbox = new PostgresOutbox(storage.pool);
    await outbox.enable();
    // the shared outbox may hold rows of the other tests' writes: drain them into this log first
    const relay = new OutboxRelay(outbox, short.publisher(), { shards: SHARDS });
    await relay.publishRound();
    await storage.documents.upsertMany(Array.from({ length: 20 }, (_, i) => paper(`r-${i}`, 6000 + i)), 1_700_002_000);
    await relay.publishRound();
    const a = await openTestReplica('snap-r-src', { snapshots: false, nats: short, objects: objs });
    await catchUp(a.follower, a.index);
    const snap = (await a.publish())!.snapshot;
    await a.close();
    // changes after the snapshot, then the log drops them
    await storage.documents.upsertMany(Array.from({ length: 20 }, (_, i) => paper(`r-late-${i}`, 7000 + i)), 1_700_002_001);
    await relay.publishRound();
    const last = (await short.streamState())!.lastSeq;
    assert.ok(last > snap.logSeq);
    for (let k = 0; k < 100 && ((await short.streamState())?.messages ?? 0) > 0; k++) await new Promise((r) => setTimeout(r, 200));
    assert.equal((await short.logHoldsAfter(snap.logSeq)).holds, false);

    const r = await openTestReplica('snap-r', { snapshots: true, nats: short, objects: objs });
    assert.equal(r.boots[0]?.source, 'store');
    assert.match(r.boots[0]?.snapshotRefused ?? '', /removed by its retention/);
    assert.ok(r.states.some((s) => /bootstrapping from the store: .*retention/.test(s)), 'readiness said why');
    await catchUp(r.follower, r.index);
    await r.close();
  } finally {
    await short.jsm.streams.delete(short.streamName).catch(() => undefined);
    await short.jsm.streams.delete(`OBJ_${shortName}-snapshots`).catch(() => undefined);
    await short.close();
  }
});
