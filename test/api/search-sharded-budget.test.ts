// The work budget (ADR 0231) on the api role of a cluster (issue 24, ADR 0266): the api node holds no
// postings, so the budget's postings are the corpus's, summed over the shards (the DFS call). A query
// one node refuses (its one word, or its quoted phrases, over queryMaxPostings) is refused the same way,
// with the same detail; a long query is answered pruned with one node's hits and dropped words.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { IndexSet } from '../../src/search/index-set.js';
import { shardOfStore } from '../../src/cluster/shard-follower.js';
import { fsIndexDirectories } from '../../src/adapters/fs/index-directories.js';
import { InProcessShardClient, ShardSearcher } from '../../src/search/shard-searcher.js';
import { StaticShardDirectory } from '../../src/search/shard-directory.js';
import type { ShardClient } from '../../src/ports/shard-client.js';

const LIMITS = { jsonBodyBytes: 1024 * 1024, requestTimeoutMs: 120_000, uploadBytes: 100 * 1024 * 1024, uploadPages: 2000, queryMaxTerms: 64, queryMaxPostings: 1000, queryMaxResultTerms: 1000, searchConcurrency: 2, shutdownGraceMs: 10_000 };

describe('the work budget on an api-only node equals one node\'s (ADR 0266)', () => {
  let one: TestApp;
  let api: TestApp;
  let keyOne: string;
  let keyApi: string;
  const sets: IndexSet[] = [];
  const dirs: string[] = [];
  before(async () => {
    const records = [
      ...Array.from({ length: 1100 }, (_, i) => doc(`a${i}`, { title: `alpha study ${i}`, abstract: i % 2 === 0 ? 'Alpha and beta.' : 'Alpha only.', language: 'en' })),
      doc('rare', { title: 'A gamma ray note on alpha', abstract: 'Gamma.', language: 'en' }),
    ];
    one = await testApp({ limits: LIMITS });
    const byShard: ShardClient[][] = [[], []];
    // role api alone: its indexes are empty, in memory (ADR 0249); the shards hold the documents
    api = await testApp({ limits: LIMITS, cluster: { role: 'api', secret: 'a-cluster-secret-of-some-length', shards: 2 } } as never, { shardDirectory: new StaticShardDirectory(2, byShard) });
    for (const app of [one, api]) await seed(app, records);
    await one.indexes!.catchUp();
    for (let s = 0; s < 2; s++) {
      const dir = mkdtempSync(join(tmpdir(), 'lectern-shard-'));
      dirs.push(dir);
      const set = IndexSet.open(fsIndexDirectories(dir), shardOfStore(api.storage.documents, s, 2), api.clock);
      await set.catchUp();
      sets.push(set);
      byShard[s]!.push(new InProcessShardClient(new ShardSearcher(s, set)));
    }
    keyOne = (await one.account({ credits: 100_000 })).key;
    keyApi = (await api.account({ credits: 100_000 })).key;
  });
  after(async () => {
    for (const s of sets) s.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    await one.dispose();
    await api.dispose();
  });

  const search = async (app: TestApp, key: string, body: Record<string, unknown>) => {
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: body });
    return { status: res.statusCode, body: res.json() };
  };

  test('the api node holds no postings of its own', () => {
    assert.equal(api.indexes!.get('documents').docFreq('alpha'), 0);
    assert.equal(sets[0]!.get('documents').docFreq('alpha') + sets[1]!.get('documents').docFreq('alpha'), 1101);
  });

  test('a word over the postings budget is refused with one node\'s 422 and detail', async () => {
    for (const query of ['alpha', '"alpha study"', '"alpha and beta"']) {
      const a = await search(one, keyOne, { query });
      const b = await search(api, keyApi, { query });
      assert.equal(a.status, 422, `${query}: ${JSON.stringify(a.body)}`);
      assert.equal(b.status, 422, `${query}: ${JSON.stringify(b.body)}`);
      assert.deepEqual(b.body.detail, a.body.detail, query);
    }
  });

  test('a long query is answered pruned as on one node: the same dropped words and hits', async () => {
    for (const query of ['alpha gamma', 'alpha beta gamma ray']) {
      const a = await search(one, keyOne, { query, mode: 'fulltext', tracing: true });
      const b = await search(api, keyApi, { query, mode: 'fulltext', tracing: true });
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.equal(b.status, 200, JSON.stringify(b.body));
      assert.deepEqual(b.body.hits.map((h: { id: string; score: number }) => [h.id, h.score]), a.body.hits.map((h: { id: string; score: number }) => [h.id, h.score]), query);
      assert.equal(b.body.partial_results, undefined);
    }
  });

  test('a conversation turn is refused by the same budget (400 with the budget detail)', async () => {
    const ask = (app: TestApp, key: string) => app.http.inject({ method: 'POST', url: '/v2/conversations/', headers: { 'x-api-key': key }, payload: { query: '"alpha study"', llm_config: { model_name: 'lectern-extractive' } } });
    const a = await ask(one, keyOne);
    const b = await ask(api, keyApi);
    assert.equal(a.statusCode, 400, a.body);
    assert.equal(b.statusCode, 400, b.body);
    assert.deepEqual(b.json().detail, a.json().detail);
  });
});
