// The cluster log's throughput (issue 24, docs/scale.md "The log"): what the outbox trigger adds to a
// bulk write, how fast the relay moves outbox rows to JetStream, and how fast a new replica's index
// catches up from the log alone (no store bootstrap). SciFact's corpus (5,183 abstracts) written
// `--rounds` times under fresh ids; PostgreSQL from DATABASE_URL, NATS from NATS_URL (default
// 127.0.0.1:4222, one server: R=1). Writes bench/results/cluster-log.json; the numbers are from a
// shared, loaded machine (the load average is recorded).
//   node dist/bench/scale/log.js [--rounds 2] [--shards 2] [--corpus PATH/scifact/corpus.jsonl]
//        [--synth tmp/synth-1m.jsonl --limit 5000] [--out bench/results/cluster-log-synth.json]
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { fsIndexDirectories } from '../../src/adapters/fs/index-directories.js';
import { NatsCluster } from '../../src/adapters/nats/nats-cluster.js';
import { PostgresOutbox } from '../../src/adapters/postgres/postgres-outbox.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { OutboxRelay } from '../../src/cluster/outbox-relay.js';
import { ShardFollower, SwitchableSource } from '../../src/cluster/shard-follower.js';
import type { DocumentRecord } from '../../src/domain/document.js';
import { blankRecord } from '../../src/ingest/formats/common.js';
import { IndexSet } from '../../src/search/index-set.js';
import { createTestSchema, tempDir } from '../../test/helpers/storage.js';
import { uniqueClusterName, natsUrl } from '../../test/helpers/nats.js';
import { arg } from '../lib/cli.js';
import { machine } from '../lib/machine.js';

const root = join(import.meta.dirname, '..', '..', '..');
const rounds = Number(arg('rounds', '2'));
const shards = Number(arg('shards', '2'));
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');

// --synth FILE --limit N: the first N documents of a synthetic corpus (shared/tools/synth-corpus: title,
// abstract and, for 80%, a body; about 633 tokens a document) instead of SciFact's abstracts
const synth = arg('synth');
const limit = Number(arg('limit', '5000'));
const corpus: { _id: string; title: string; text: string; body?: string; type?: string; issued_at?: number }[] = synth
  ? readFileSync(synth, 'utf8')
      .split('\n', limit)
      .filter(Boolean)
      .map((l) => {
        const d = JSON.parse(l) as { id: string; title: string; abstract: string; body: string; type: string; issued_at: number };
        return { _id: d.id, title: d.title, text: d.abstract, body: d.body, type: d.type, issued_at: d.issued_at };
      })
  : readFileSync(arg('corpus', join(root, '..', 'shared', 'data', 'ir', 'scifact', 'corpus.jsonl'))!, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { _id: string; title: string; text: string });
const docs = (round: number): DocumentRecord[] =>
  corpus.map((c) => ({ ...blankRecord(`r${round}-${c._id}`, 'documents', 'bench'), title: c.title, abstract: c.text, ...(c.body ? { fullText: c.body } : {}) }));

async function write(storage: Awaited<ReturnType<typeof openPostgresStorage>>, round: number): Promise<number> {
  const all = docs(round);
  const t0 = performance.now();
  for (let i = 0; i < all.length; i += 500) await storage.documents.upsertMany(all.slice(i, i + 500), 1_700_000_000);
  return performance.now() - t0;
}

const machineInfo = machine();
const uptimeBefore = execFileSync('uptime', { encoding: 'utf8' }).trim();
const schema = await createTestSchema(url);
const storage = await openPostgresStorage(schema.url);
const nats = await NatsCluster.connect({ servers: [natsUrl], name: uniqueClusterName(), replicas: 1, logMaxAgeMs: 3_600_000, membershipMaxAgeMs: 30_000 });
const tmp = tempDir('lectern-bench-log-');
try {
  await nats.ensureStream();
  const outbox = new PostgresOutbox(storage.pool);
  // 1. bulk writes without and with the outbox trigger writing
  const without: number[] = [];
  const withOutbox: number[] = [];
  let round = 0;
  for (let r = 0; r < rounds; r++) without.push(await write(storage, round++));
  await outbox.enable();
  for (let r = 0; r < rounds; r++) withOutbox.push(await write(storage, round++));
  const perRound = corpus.length;
  // 2. the relay: every outbox row to the log
  const relay = new OutboxRelay(outbox, nats.publisher(), { shards });
  const rows = (await storage.pool.query<{ n: number }>('SELECT COUNT(*) AS n FROM document_outbox')).rows[0]!.n;
  const r0 = performance.now();
  let published = 0;
  for (let n = await relay.publishRound(); n > 0; n = await relay.publishRound()) published += n;
  const relayMs = performance.now() - r0;
  const messages = (await nats.streamState())?.messages ?? 0;
  // 3. a new replica of shard 0 catching up from the log alone
  const source = new SwitchableSource({ maxSeq: async () => 0, changesSince: async () => [] });
  const index = IndexSet.open(fsIndexDirectories(join(tmp.dir, 'replica')), source, { nowMs: () => Date.now() });
  const follower = new ShardFollower(await nats.subscribe(0, 'bench'), index, { loadDocuments: (ids) => storage.documents.getMany(ids), batchesPerPull: 64, waitMs: 1_000 });
  source.target = follower;
  const c0 = performance.now();
  const cpu0 = process.cpuUsage();
  let applied = 0;
  for (let idle = 0; idle < 2; ) {
    const n = await follower.step();
    applied += n;
    idle = n === 0 ? idle + 1 : 0;
  }
  const catchUpMs = performance.now() - c0 - 2_000; // less the two empty waits that end it
  // CPU time of this process over the catch-up (the follower: fetch, decode, analyse, build, commit): what a
  // dedicated core would take, robust to the other processes on the shared cores
  const cpu = process.cpuUsage(cpu0);
  const catchUpCpuMs = (cpu.user + cpu.system) / 1000;
  const docsOnShard = index.get('documents').stats().docs;
  index.close();
  await follower.stop();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const result = {
    benchmark: 'cluster log: outbox trigger, relay, replica catch-up from the log (bench/scale/log.ts)',
    note: 'shared, loaded machine (up to 8 helpers on 2 cores); one NATS server (R=1) and one PostgreSQL on loopback',
    machine: machineInfo,
    load_average_1m_at_end: Math.round(loadavg()[0]! * 100) / 100,
    corpus: `${synth ? `the first ${perRound} documents of ${synth} (synthetic: title, abstract, 80% with a body)` : 'SciFact corpus'} x ${rounds * 2} rounds under fresh ids (${perRound} records a round), batches of 500`,
    uptime_before: uptimeBefore,
    uptime_after: execFileSync('uptime', { encoding: 'utf8' }).trim(),
    shards,
    write_ms_per_1k_records: { outbox_off: Math.round((median(without) / perRound) * 1000), outbox_on: Math.round((median(withOutbox) / perRound) * 1000) },
    relay: { outbox_rows: rows, published, messages, ms: Math.round(relayMs), rows_per_s: Math.round((published / relayMs) * 1000) },
    replica_catch_up: { shard: 0, changes_applied: applied, docs: docsOnShard, ms: Math.round(catchUpMs), changes_per_s: Math.round((applied / catchUpMs) * 1000), cpu_ms: Math.round(catchUpCpuMs), changes_per_cpu_s: Math.round((applied / catchUpCpuMs) * 1000) },
  };
  writeFileSync(arg('out', join(root, 'bench', 'results', 'cluster-log.json'))!, JSON.stringify(result, null, 2) + '\n');
  console.log(JSON.stringify(result, null, 2));
} finally {
  await nats.jsm.streams.delete(nats.streamName).catch(() => undefined);
  await nats.close();
  await storage.close();
  await schema.drop();
  tmp.remove();
}
