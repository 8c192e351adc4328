// Scatter-gather on a loopback cluster (issue 24, docs/scale.md "Scatter-gather"): `cluster up` with 2
// shards x 2 replicas and an api node; searches through the api node rank exactly as one index over the
// same documents (ids and totals), the trace shows both shards answered by search processes, and a
// search replica killed with SIGKILL under a steady search load fails no search (the hedge goes to the
// other replica) and leaves no result partial. Skipped with the reason when DATABASE_URL or nats-server
// is missing. The api node (role api only) holds no index directory; a hybrid search, an MCP tool call and a
// conversation turn through it answer from the shards. Waits have generous ceilings; latencies are reported, not asserted.
import { test } from 'node:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { alive, clusterDown, clusterStatus, clusterUp, findNatsServer, type ClusterState } from '../../src/adapters/cluster/local-cluster.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import { AccountService } from '../../src/accounts/account-service.js';
import { ApiKeyService } from '../../src/accounts/api-keys.js';
import { shardOfWork } from '../../src/domain/shard-routing.js';
import { MemoryIndexDirectory, SearchIndex } from '../../src/engine/index.js';
import { toIndexDocument } from '../../src/search/index-set.js';
import { processEnvironment } from '../../src/config/index.js';
import { liveWindowMs } from '../../src/cluster/membership.js';
import { doc } from '../helpers/documents.js';
import { waitFor } from '../helpers/wait.js';
import { createTestSchema, databaseUrl, postgresSkip, tempDir } from '../helpers/storage.js';

const natsServer = findNatsServer();
const skip = !databaseUrl ? postgresSkip('cluster scatter-gather test') : natsServer === null ? 'nats-server not installed: cluster scatter-gather test skipped' : undefined;
const TOPICS = ['hydrogen storage in salt caverns', 'cushion gas pressure', 'sandstone porosity', 'microbial activity in reservoirs', 'natural gas economics', 'carbon dioxide injection', 'caprock integrity', 'well cement leakage'];
const QUERIES = ['hydrogen storage caverns', 'sandstone porosity', '"cushion gas"', 'caprock leakage cement', 'carbon dioxide injection reservoirs'];

test('searches through the api node of a 2x2 cluster equal one index; a killed search replica fails no search', { skip: skip ?? false, timeout: 900_000 }, async () => {
  const schema = await createTestSchema(databaseUrl!);
  const storage = await openPostgresStorage(schema.url);
  const tmp = tempDir('lectern-scatter-');
  let state: ClusterState | null = null;
  try {
    state = await clusterUp({ dir: tmp.dir, shards: 2, replicas: 2, api: 1, workers: 0, databaseUrl: schema.url, readyTimeoutMs: 300_000, name: `g${process.pid}`, baseEnv: processEnvironment() });
    const records = Array.from({ length: 300 }, (_, i) =>
      doc(`c${i}`, { title: `${TOPICS[i % 8]} ${i % 5 === 0 ? 'review' : 'study'} ${i}`, abstract: `We examine ${TOPICS[i % 8]} and ${TOPICS[(i * 3 + 1) % 8]}. Sample ${i}.`, language: 'en' }),
    );
    await storage.documents.upsertMany(records, 1_700_000_000);
    const apiKeys = new ApiKeyService(storage.apiKeys, storage.accounts, systemClock);
    const { apiKey } = await new AccountService(storage.accounts, storage.ledger, apiKeys, systemClock).create({ email: `scatter-${process.pid}@example.org`, credits: 10_000_000 });

    // the reference: one index over the store's records
    const one = SearchIndex.open(new MemoryIndexDirectory());
    const want = [0, 0];
    for (const c of await storage.documents.changesSince(0, 10_000)) {
      if (c.deleted) continue;
      one.add(toIndexDocument(c.doc));
      want[shardOfWork(c.doc.workKey, 2)]!++;
    }
    one.commit('1');
    // every replica holds its shard
    const deadline = Date.now() + 300_000;
    for (;;) {
      const s = await clusterStatus(tmp.dir);
      if (s.search.every((r) => r.healthy && r.docs === want[r.shard])) break;
      if (Date.now() > deadline) throw new Error(`replicas did not converge: ${JSON.stringify(s.search)} want ${want}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const api = state.api[0]!.url;
    const search = async (body: Record<string, unknown>) => {
      const res = await fetch(new URL('/v2/search/', api), { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as { hits: { id: string }[]; total_hits: number; partial_results?: unknown; retrieval_traces?: { branch: string; shards?: { node: string | null; search_us: number }[] }[] } };
    };
    // the api node learns the replicas from the membership within a few heartbeats
    const learned = Date.now() + 60_000;
    for (;;) {
      const r = await search({ query: 'sandstone', mode: 'fulltext' });
      if (r.status === 200 && r.body.partial_results === undefined) break;
      if (Date.now() > learned) throw new Error(`the api node found no replicas: ${JSON.stringify(r.body)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const check = async (query: string) => {
      const r = await search({ query, mode: 'fulltext', limit: 10 });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.partial_results, undefined, JSON.stringify(r.body.partial_results));
      const ref = one.search({ text: query, limit: 10, collapseByWorkKey: true, exactTotal: true });
      assert.deepEqual(r.body.hits.map((h) => h.id), ref.hits.map((h) => h.id), query);
      assert.equal(r.body.total_hits, ref.totalHits, query);
    };
    for (const q of QUERIES) await check(q);
    const traced = await search({ query: 'hydrogen storage', mode: 'fulltext', tracing: true });
    const shards = traced.body.retrieval_traces!.find((t) => t.branch === 'fulltext')!.shards!;
    assert.equal(shards.length, 2);
    const urls = new Set(state.search.map((s) => new URL(s.url).origin));
    for (const s of shards) assert.ok(s.node !== null && urls.has(s.node), JSON.stringify(shards));

    // the api node (role api, no search role) holds no index: no index directory in its data directory,
    // while every search replica has one (ADR 0249)
    assert.equal(existsSync(join(tmp.dir, 'api-0', 'index')), false, 'the api node holds no index directory');
    for (const r of state.search) assert.ok(existsSync(join(tmp.dir, `search-${r.shard}-${r.replica}`, 'index')), `search-${r.shard}-${r.replica} has its index`);
    const hybrid = await search({ query: 'hydrogen storage caverns', limit: 10 });
    assert.equal(hybrid.status, 200, JSON.stringify(hybrid.body));
    assert.deepEqual(hybrid.body.hits.map((h) => h.id), one.search({ text: 'hydrogen storage caverns', limit: 10, collapseByWorkKey: true, exactTotal: true }).hits.map((h) => h.id), 'hybrid without models: the lexical channel alone');

    // a conversation turn through the api node: its retrieval is the search service over the shards
    const turn = await fetch(new URL('/v2/conversations/', api), { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify({ query: 'How is hydrogen stored in salt caverns?', llm_config: { model_name: 'lectern-extractive' } }) });
    const answer = (await turn.json()) as { answer?: string; search_documents?: { document: { id: string } }[] };
    assert.equal(turn.status, 200, JSON.stringify(answer));
    assert.ok((answer.search_documents ?? []).length > 0, JSON.stringify(answer));
    const retrieved = new Set(one.search({ text: 'hydrogen stored salt caverns', limit: 300, collapseByWorkKey: true }).hits.map((h) => h.id));
    for (const d of answer.search_documents!) assert.ok(retrieved.has(d.document.id), d.document.id);

    // an MCP tool call through the api node (the search_documents tool runs the same search service)
    const mcp = await fetch(new URL('/mcp', api), {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25', 'x-api-key': apiKey },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search_documents', arguments: { query: 'sandstone porosity', limit: 5 } } }),
    });
    const rpc = (await mcp.json()) as { result?: { isError?: boolean; structuredContent?: { hits: { id: string }[] } }; error?: unknown };
    assert.equal(mcp.status, 200, JSON.stringify(rpc));
    assert.ok(rpc.result && rpc.result.isError !== true, JSON.stringify(rpc));
    assert.deepEqual(rpc.result.structuredContent!.hits.map((h) => h.id), one.search({ text: 'sandstone porosity', limit: 5, collapseByWorkKey: true, exactTotal: true }).hits.map((h) => h.id));

    // steady load from 3 clients; kill -9 one replica of shard 0 in the middle
    const victim = state.search.find((s) => s.shard === 0 && s.replica === 0)!;
    const latencies: number[] = [];
    const failures: string[] = [];
    let stop = false;
    let killedAt = 0;
    const client = async (k: number) => {
      for (let i = 0; !stop; i++) {
        const q = QUERIES[(i + k) % QUERIES.length]!;
        const t = performance.now();
        const r = await search({ query: q, mode: 'fulltext', limit: 10 });
        latencies.push(performance.now() - t);
        if (r.status !== 200) failures.push(`${r.status} ${JSON.stringify(r.body)}`);
        else if (r.body.partial_results !== undefined) failures.push(`partial ${JSON.stringify(r.body.partial_results)}`);
        else if (JSON.stringify(r.body.hits.map((h) => h.id)) !== JSON.stringify(one.search({ text: q, limit: 10, collapseByWorkKey: true, exactTotal: true }).hits.map((h) => h.id))) failures.push(`different hits for ${q}`);
      }
    };
    const load = [0, 1, 2].map(client);
    // the load is going: some searches answered (a count, not a time: the machine's load varies)
    await waitFor('searches before the kill', () => latencies.length >= 15 || failures.length > 0);
    const before = latencies.length;
    process.kill(victim.pid, 'SIGKILL');
    killedAt = latencies.length;
    // past the membership's live window (3 heartbeats of the default 2 s) and the api node's directory
    // refresh (1 s), and then some: searches go on until 20 more were answered after that point
    const gone = Date.now() + liveWindowMs(2_000) + 1_000;
    let pastWindow = -1;
    await waitFor('searches after the dead replica left the membership', () => {
      if (pastWindow < 0 && Date.now() > gone) pastWindow = latencies.length;
      return (pastWindow >= 0 && latencies.length >= pastWindow + 20) || failures.length > 0;
    }, { intervalMs: 50 });
    stop = true;
    await Promise.all(load);
    assert.ok(!alive(victim.pid));
    assert.ok(before > 0 && latencies.length > killedAt, `searches ran: ${before} before, ${latencies.length - killedAt} after the kill`);
    assert.deepEqual(failures, []);
    const sorted = [...latencies].sort((a, b) => a - b);
    console.log(JSON.stringify({ searches: latencies.length, p50_ms: sorted[Math.floor(sorted.length / 2)], p99_ms: sorted[Math.floor(sorted.length * 0.99)] }));
    one.close();
  } finally {
    if (state) await clusterDown(tmp.dir, 10_000).catch(() => undefined);
    if (state) for (const p of [...state.api, ...state.search, ...state.nats, ...state.workers]) if (alive(p.pid)) process.kill(p.pid, 'SIGKILL');
    await storage.close();
    await schema.drop();
    tmp.remove();
  }
});
