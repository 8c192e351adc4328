// How long a new shard replica takes to be ready (issue 24, ADR 0255, docs/scale.md "Bootstrap of a new
// replica"): from a peer's snapshot plus the log's tail, against a bootstrap from the store (the fallback)
// and a replay of the whole log from its first message. One shard holding `--docs` synthetic records
// (the first N of the 100k synthetic corpus), then `--tail` more written after the snapshot.
// PostgreSQL from DATABASE_URL (a schema of its own, dropped at the end), NATS from NATS_URL (default
// 127.0.0.1:4222, one server, R=1). Every replica is in this process, indexing on its main thread (no
// builder thread), as bench/scale/log.ts. Writes bench/results/cluster-bootstrap-<docs/1000>k.json with
// the machine and the load average before and after (the machine is shared).
//   node dist/bench/scale/bootstrap.js [--docs 20000] [--tail 1000] [--corpus tmp/synth-100k.jsonl] [--skip-replay]
import { createReadStream, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { FsLocalIndexFiles } from '../../src/adapters/fs/index-snapshot-files.js';
import { fsIndexDirectories } from '../../src/adapters/fs/index-directories.js';
import { NatsCluster } from '../../src/adapters/nats/nats-cluster.js';
import { PostgresOutbox } from '../../src/adapters/postgres/postgres-outbox.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { OutboxRelay } from '../../src/cluster/outbox-relay.js';
import { openReplica, ShardFollower, SwitchableSource, type BootstrapInfo } from '../../src/cluster/shard-follower.js';
import { installLatestSnapshot, publishSnapshot } from '../../src/cluster/shard-snapshots.js';
import { INDEX_NAMES, type DocumentRecord } from '../../src/domain/document.js';
import { blankRecord } from '../../src/ingest/formats/common.js';
import { IndexSet } from '../../src/search/index-set.js';
import { createTestSchema, tempDir } from '../../test/helpers/storage.js';
import { uniqueClusterName, natsUrl } from '../../test/helpers/nats.js';
import { arg, args } from '../lib/cli.js';
import { machine } from '../lib/machine.js';

const root = join(import.meta.dirname, '..', '..', '..');
const N = Number(arg('docs', '20000'));
const TAIL = Number(arg('tail', '1000'));
const corpusPath = arg('corpus', join(root, 'tmp', 'synth-100k.jsonl'))!;
const skipReplay = args.includes('--skip-replay');
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();

async function readCorpus(n: number): Promise<DocumentRecord[]> {
  const out: DocumentRecord[] = [];
  const rl = createInterface({ input: createReadStream(corpusPath), crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line) continue;
    const o = JSON.parse(line) as { id: string; title: string; abstract: string; body?: string; type?: string; issued_at?: number; language?: string };
    out.push({ ...blankRecord(o.id, 'documents', 'bench'), title: o.title, abstract: o.abstract, fullText: o.body ?? '', language: o.language ?? 'en', issuedAt: o.issued_at ?? null } as DocumentRecord);
    if (out.length >= n) break;
  }
  rl.close();
  if (out.length < n) throw new Error(`${corpusPath} holds ${out.length} records, fewer than ${n}`);
  return out;
}

const uptimeBefore = uptime();
const machineInfo = machine();
const all = await readCorpus(N + TAIL);
const schema = await createTestSchema(url);
const storage = await openPostgresStorage(schema.url);
const name = uniqueClusterName();
const nats = await NatsCluster.connect({ servers: [natsUrl], name, replicas: 1, logMaxAgeMs: 24 * 3_600_000, membershipMaxAgeMs: 30_000 });
const tmp = tempDir('lectern-bench-bootstrap-');
const clock = { nowMs: () => Date.now() };
const now = () => performance.now();
try {
  await nats.ensureStream();
  const objects = await nats.snapshotObjects();
  const outbox = new PostgresOutbox(storage.pool);
  await outbox.enable();
  const relay = new OutboxRelay(outbox, nats.publisher(), { shards: 1 });
  const writeAndRelay = async (docs: DocumentRecord[]) => {
    const t0 = now();
    for (let i = 0; i < docs.length; i += 500) await storage.documents.upsertMany(docs.slice(i, i + 500), 1_700_000_000);
    const t1 = now();
    while ((await relay.publishRound()) > 0);
    return { writeMs: Math.round(t1 - t0), relayMs: Math.round(now() - t1) };
  };
  const history = await writeAndRelay(all.slice(0, N));
  console.error(`history: ${N} records written (${history.writeMs} ms) and relayed (${history.relayMs} ms)`);

  /** One step of a follower; a failed pull (heartbeats missed on a loaded machine) is retried, as the node's follower loop does. */
  const step = async (follower: ShardFollower) => {
    try {
      await follower.step();
    } catch (e) {
      console.error(`step failed, retrying: ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  /** A replica of the single shard in its own directory and consumer; `snapshots`: bootstraps from the latest snapshot. */
  const replica = async (dirName: string, snapshots: boolean) => {
    const dir = join(tmp.dir, dirName);
    const source = new SwitchableSource({ maxSeq: async () => 0, changesSince: async () => [] });
    const index = IndexSet.open(fsIndexDirectories(dir), source, clock);
    const local = new FsLocalIndexFiles(dir, INDEX_NAMES);
    const boots: BootstrapInfo[] = [];
    const t0 = now();
    const follower = await openReplica({
      index,
      source,
      store: storage.documents,
      shard: 0,
      shards: 1,
      subscribed: () => nats.consumerExists(dirName),
      behindRetention: () => nats.behindRetention(dirName),
      subscribe: (start) => nats.subscribe(0, dirName, start),
      unsubscribe: () => nats.deleteConsumer(dirName),
      ...(snapshots ? { installSnapshot: () => installLatestSnapshot({ objects, local, shard: 0, shards: 1, logHoldsAfter: (s) => nats.logHoldsAfter(s), replace: (f) => index.replace(f), nowMs: clock.nowMs }) } : {}),
      nowMs: clock.nowMs,
      onBootstrap: (b) => boots.push(b),
    });
    const bootstrapMs = now() - t0;
    const tail = await followToEnd(follower, index);
    return { index, follower, local, boots, bootstrapMs: Math.round(bootstrapMs), tailMs: tail.ms, readyMs: Math.round(bootstrapMs + tail.ms), applied: follower.applied, firstLogSeq: follower.firstLogSeq, docs: index.get('documents').stats().docs };
  };

  /** Steps until the index reached the store's sequence; the time it took. */
  const followToEnd = async (follower: ShardFollower, index: IndexSet) => {
    const target = await storage.documents.maxSeq();
    const t0 = now();
    while (index.checkpoint() < target) await step(follower);
    return { ms: Math.round(now() - t0) };
  };

  // the peer: bootstrapped from the store (no snapshot yet), then its snapshot published
  const peer = await replica('peer', false);
  console.error(`peer: store bootstrap of ${peer.docs} documents in ${peer.readyMs} ms`);
  // as a running node's follower loop does: the log's messages the store bootstrap already covered are
  // read, skipped and acknowledged, so the snapshot's log position is the log's end, not 0
  for (let k = 0; k < 1_000; k++) {
    const c = await nats.jsm.consumers.info(nats.streamName, 'peer');
    if (c.num_pending === 0 && c.num_ack_pending === 0) break;
    await step(peer.follower);
  }
  const p0 = now();
  const published = (await publishSnapshot({ objects, local: peer.local, shard: 0, shards: 1, node: 'peer', logPosition: () => nats.logPosition('peer'), keep: 2, nowMs: clock.nowMs }))!;
  const publishMs = Math.round(now() - p0);
  console.error(`snapshot ${published.snapshot.id}: ${published.snapshot.totalBytes} bytes in ${published.snapshot.files.length} files, published in ${publishMs} ms`);

  // the tail, written after the snapshot; the peer follows it
  const tail = await writeAndRelay(all.slice(N));
  await followToEnd(peer.follower, peer.index);
  const target = await storage.documents.maxSeq();

  const fromSnapshot = await replica('from-snapshot', true);
  console.error(`snapshot + tail: ready in ${fromSnapshot.readyMs} ms (install ${fromSnapshot.bootstrapMs} ms, tail ${fromSnapshot.tailMs} ms, ${fromSnapshot.applied} changes)`);
  fromSnapshot.index.close();
  await fromSnapshot.follower.stop();
  const fromStore = await replica('from-store', false);
  console.error(`store bootstrap: ready in ${fromStore.readyMs} ms`);
  fromStore.index.close();
  await fromStore.follower.stop();

  let replay: { readyMs: number; applied: number; firstLogSeq: number | null; docs: number } | null = null;
  if (!skipReplay) {
    // a replica replaying the whole log from its first message (no snapshot, no store bootstrap)
    const source = new SwitchableSource({ maxSeq: async () => 0, changesSince: async () => [] });
    const index = IndexSet.open(fsIndexDirectories(join(tmp.dir, 'replay')), source, clock);
    const follower = new ShardFollower(await nats.subscribe(0, 'replay'), index, { loadDocuments: (ids) => storage.documents.getMany(ids) });
    source.target = follower;
    const r = await followToEnd(follower, index);
    replay = { readyMs: r.ms, applied: follower.applied, firstLogSeq: follower.firstLogSeq, docs: index.get('documents').stats().docs };
    console.error(`full log replay: ready in ${replay.readyMs} ms`);
    index.close();
    await follower.stop();
  }
  peer.index.close();
  await peer.follower.stop();
  const stream = (await nats.streamState())!;

  const result = {
    benchmark: 'new shard replica bootstrap: snapshot + log tail vs store bootstrap vs full log replay (bench/scale/bootstrap.ts)',
    note: 'shared, loaded machine (several helpers on 2 cores): read the load; one NATS server (R=1) and one PostgreSQL on loopback; every replica indexes on its main thread (no builder thread), the same for all three methods',
    machine: machineInfo,
    uptime_before: uptimeBefore,
    uptime_after: uptime(),
    corpus: `${corpusPath.replace(root + '/', '')}: first ${N} records (history) + ${TAIL} written after the snapshot (tail); one shard`,
    store_sequence: target,
    log: { messages: stream.messages, last_seq: stream.lastSeq, history_write_ms: history.writeMs, history_relay_ms: history.relayMs, tail_write_ms: tail.writeMs, tail_relay_ms: tail.relayMs },
    snapshot: { id: published.snapshot.id, store_seq: published.snapshot.seq, log_seq: published.snapshot.logSeq, bytes: published.snapshot.totalBytes, files: published.snapshot.files.length, publish_ms: publishMs },
    ready_ms: {
      snapshot_plus_tail: fromSnapshot.readyMs,
      store_bootstrap: fromStore.readyMs,
      ...(replay ? { full_log_replay: replay.readyMs } : {}),
    },
    snapshot_plus_tail: { install_ms: fromSnapshot.bootstrapMs, tail_ms: fromSnapshot.tailMs, tail_changes_applied: fromSnapshot.applied, first_log_seq_read: fromSnapshot.firstLogSeq, source: fromSnapshot.boots[0]?.source, docs: fromSnapshot.docs },
    store_bootstrap: { bootstrap_ms: fromStore.bootstrapMs, tail_ms: fromStore.tailMs, docs: fromStore.docs },
    ...(replay ? { full_log_replay: { changes_applied: replay.applied, first_log_seq_read: replay.firstLogSeq, docs: replay.docs } } : {}),
    peer_store_bootstrap_ms_at_history: peer.readyMs,
  };
  const out = join(root, 'bench', 'results', `cluster-bootstrap-${Math.round(N / 1000)}k.json`);
  writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  console.log(JSON.stringify(result, null, 2));
} finally {
  await nats.jsm.streams.delete(nats.streamName).catch(() => undefined);
  await nats.jsm.streams.delete(`OBJ_${name}-snapshots`).catch(() => undefined);
  await nats.close();
  await storage.close();
  await schema.drop();
  tmp.remove();
}
