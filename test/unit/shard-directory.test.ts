// Where the coordinator finds replicas (ADR 0202): `cluster.search_nodes` parsing, and the live
// directory following the membership list (clients kept per replica, dropped ones closed).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LiveShardDirectory, parseSearchNodes, StaticShardDirectory } from '../../src/search/shard-directory.js';
import type { ShardClient } from '../../src/ports/shard-client.js';

test('cluster.search_nodes: <shard>=<url> items; bad items are refused with the reason', () => {
  assert.deepEqual(parseSearchNodes(' 0=http://10.0.0.5:8080/ , 1=https://s1.internal ,0=http://10.0.0.6:8080', 2), [
    { shard: 0, url: 'http://10.0.0.5:8080' },
    { shard: 1, url: 'https://s1.internal' },
    { shard: 0, url: 'http://10.0.0.6:8080' },
  ]);
  assert.deepEqual(parseSearchNodes('', 2), []);
  assert.throws(() => parseSearchNodes('0:http://x', 2), /not <shard>=<url>/);
  assert.throws(() => parseSearchNodes('2=http://x', 2), /not below cluster.shards 2/);
  assert.throws(() => parseSearchNodes('0=ftp://x', 2), /not an http/);
  assert.throws(() => parseSearchNodes('0=not a url', 2));
  const d = new StaticShardDirectory(2, [[], []]);
  assert.equal(d.replicas(5).length, 0);
});

test('the live directory follows the membership list, keeps clients and closes the dropped ones', async () => {
  const made: { shard: number; url: string; closed: boolean }[] = [];
  const make = (shard: number, url: string): ShardClient => {
    const rec = { shard, url, closed: false };
    made.push(rec);
    return { shard, node: url, stats: async () => Promise.reject(new Error('unused')), search: async () => Promise.reject(new Error('unused')), vectors: async () => Promise.reject(new Error('unused')), documentVector: async () => Promise.reject(new Error('unused')), suggest: async () => Promise.reject(new Error('unused')), scoreParts: async () => Promise.reject(new Error('unused')), citedBy: async () => Promise.reject(new Error('unused')), records: async () => Promise.reject(new Error('unused')), close: () => void (rec.closed = true) };
  };
  const dir = new LiveShardDirectory(2, make);
  assert.equal(dir.replicas(0).length, 0, 'no replicas before the membership is attached');
  let live = [
    { shard: 0, url: 'http://a' },
    { shard: 1, url: 'http://b' },
    { shard: 0, url: 'http://c' },
    { shard: 7, url: 'http://out-of-range' },
    { shard: 0, url: 'http://a' },
  ];
  await dir.attach(async () => live);
  assert.deepEqual(dir.replicas(0).map((c) => c.node), ['http://a', 'http://c']);
  assert.deepEqual(dir.replicas(1).map((c) => c.node), ['http://b']);
  const a = dir.replicas(0)[0];
  live = [{ shard: 0, url: 'http://a' }, { shard: 1, url: 'http://d' }];
  await dir.refresh();
  assert.equal(dir.replicas(0)[0], a, 'a replica that stays keeps its client (and its connections)');
  assert.deepEqual(dir.replicas(1).map((c) => c.node), ['http://d']);
  assert.deepEqual(made.filter((m) => m.closed).map((m) => m.url).sort(), ['http://b', 'http://c']);
  dir.stop();
  assert.ok(made.every((m) => m.closed));
  assert.equal(dir.replicas(0).length, 0);
});

test('MCP search output says when results are partial (text and structured)', async () => {
  const { presentSearch } = await import('../../src/mcp/tools/search.js');
  const base = { rankingMode: 'documents' as const, hits: [], totalHits: 3, hasNext: false, correctedQuery: null, embedMs: null, timings: { searchUs: 1, loadUs: 1, totalUs: 2 }, trajectory: null, traces: null, cost: 1 };
  const whole = presentSearch(base, 0, 'Results');
  assert.doesNotMatch(whole.text, /Partial/);
  assert.equal((whole.structured as Record<string, unknown>).partial_results, undefined);
  const part = presentSearch({ ...base, partial: { shards: 2, missing: [{ index: 'documents', shard: 1 }] } }, 0, 'Results');
  assert.match(part.text, /Partial results: shard 1 of documents did not answer \(of 2 shards\)/);
  assert.deepEqual((part.structured as Record<string, unknown>).partial_results, { shards: 2, missing: [{ index: 'documents', shard: 1 }] });
});
