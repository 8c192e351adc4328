// Issue 25, "Trending can be bought by one account": feedback, comments and votes have rate limits of
// their own (429 `rate_limited` with their scope and Retry-After), and trending counts distinct
// accounts: one account's burst of positive ratings, agent reads or comments moves a work no more than
// one reader does. On SQLite and PostgreSQL.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { loadConfig } from '../../src/config/index.js';
import { createTestSchema, databaseUrl, postgresSkip } from '../helpers/storage.js';

type Open = (config: Record<string, unknown>) => Promise<{ app: TestApp; done(): Promise<void> }>;

test('feedback, comments and votes have budgets of their own by default', () => {
  const c = loadConfig({}, {});
  for (const scope of ['feedback', 'comments', 'votes'] as const) {
    const rule = (c.rateLimits as Record<string, { capacity: number; refillPerSecond: number }>)[scope];
    assert.ok(rule, scope);
    assert.ok(rule.capacity < c.rateLimits.default.capacity && rule.refillPerSecond < c.rateLimits.default.refillPerSecond, `${scope} is tighter than default`);
  }
});

function suite(label: string, open: Open): void {
  describe(`community limits and trending by distinct accounts (${label})`, () => {
    const tight = { capacity: 3, refillPerSecond: 0.01 };
    let app: TestApp;
    let done: () => Promise<void>;
    before(async () => {
      ({ app, done } = await open({ rateLimits: { feedback: tight, comments: tight, votes: tight } }));
      await seed(app, [
        doc('h1', { title: 'Underground hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas.', type: 'journal-article' }),
        doc('h2', { title: 'Hydrogen storage in depleted gas reservoirs', abstract: 'Cushion gas and hydrogen loss in reservoirs.', type: 'journal-article' }),
      ]);
      await app.indexes!.catchUp();
    });
    after(() => done());

    const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, key: string, payload?: unknown) => {
      const res = await app.http.inject({ method, url, headers: { 'x-api-key': key }, ...(payload === undefined ? {} : { payload: payload as object }) });
      return { status: res.statusCode, body: res.json(), headers: res.headers };
    };
    const search = async (key: string) => {
      const r = await call('POST', '/v2/search/', key, { query: 'hydrogen storage', limit: 5 });
      assert.equal(r.status, 200);
      return r.body as { hits: { id: string }[]; trajectory: { id: string; feedback_token: string } };
    };
    const feedback = (s: Awaited<ReturnType<typeof search>>, id: string) => ({ trajectory_id: s.trajectory.id, feedback_token: s.trajectory.feedback_token, feedback_id: randomUUID(), ratings: [{ document_id: id, relevance: 3 }] });
    const comment = (s: Awaited<ReturnType<typeof search>>, id: string) => ({
      trajectory_id: s.trajectory.id,
      feedback_token: s.trajectory.feedback_token,
      comment_id: randomUUID(),
      document_id: id,
      model: 'claude-test-1',
      contribution: 'supports',
      content: `Useful on cavern tightness ${randomUUID()}.`,
      evidence: [{ uri: 'https://doi.org/10.1000/XYZ.123', quote: 'no measurable hydrogen loss over 12 months' }],
    });
    const limited = (r: { status: number; body: any; headers: Record<string, unknown> }, scope: string) => {
      assert.equal(r.status, 429, JSON.stringify(r.body));
      assert.equal(r.body.status, 'error');
      assert.equal(r.body.detail.code, 'rate_limited');
      assert.equal(r.body.detail.scope, scope);
      assert.ok(r.body.detail.retry_after_seconds >= 1);
      assert.ok(Number(r.headers['retry-after']) >= 1);
    };

    test('feedback, comments and votes each spend their own budget (429 with the scope)', async () => {
      const a = await app.account({ credits: 10_000 });
      const b = await app.account({ credits: 10_000 });
      await app.community.approveAuthor(a.id);
      const s = await search(a.key);
      for (let i = 0; i < 3; i++) assert.equal((await call('POST', '/v2/search/feedback', a.key, feedback(s, 'h1'))).status, 200);
      limited(await call('POST', '/v2/search/feedback', a.key, feedback(s, 'h1')), 'feedback');
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await call('POST', '/v2/search/comments', a.key, comment(s, 'h1'));
        assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
        ids.push(r.body.comment_id);
      }
      limited(await call('POST', '/v2/search/comments', a.key, comment(s, 'h1')), 'comments');
      for (const v of [1, -1, 1]) assert.equal((await call('PUT', `/v2/comments/${ids[0]}/vote`, b.key, { vote: v })).status, 200);
      limited(await call('PUT', `/v2/comments/${ids[0]}/vote`, b.key, { vote: -1 }), 'votes');
      limited(await call('DELETE', `/v2/comments/${ids[0]}/vote`, b.key), 'votes');
      // Other work of the same account is not held up.
      assert.equal((await call('GET', '/v2/documents/h1/comments', a.key)).status, 200);
      // MCP tools spend the same budgets.
      const mcp = await app.http.inject({
        method: 'POST',
        url: '/mcp',
        headers: { authorization: `Bearer ${a.key}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'vote_on_comment', arguments: { comment_id: ids[1], vote: 1 } } },
      });
      const votes = await app.http.inject({
        method: 'POST',
        url: '/mcp',
        headers: { authorization: `Bearer ${b.key}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
        payload: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'vote_on_comment', arguments: { comment_id: ids[1], vote: 1 } } },
      });
      assert.ok(mcp.statusCode < 500);
      assert.equal(votes.statusCode, 429, votes.body);
    });

    test('one account\'s burst moves a work no more than one reader does', async () => {
      // Fresh budgets: ten days on: the buckets refill and the first test's events leave the week.
      app.clock.advance(10 * 86_400_000);
      const burst = await app.account({ credits: 10_000 });
      const r1 = await app.account({ credits: 10_000 });
      const r2 = await app.account({ credits: 10_000 });
      for (const x of [burst, r1, r2]) await app.community.approveAuthor(x.id);
      // One account: three positive ratings, three comments and several reads of h1.
      const s = await search(burst.key);
      for (let i = 0; i < 3; i++) assert.equal((await call('POST', '/v2/search/feedback', burst.key, feedback(s, 'h1'))).status, 200);
      for (let i = 0; i < 3; i++) assert.ok((await call('POST', '/v2/search/comments', burst.key, comment(s, 'h1'))).status < 300);
      for (let i = 0; i < 5; i++) assert.equal((await call('GET', '/v2/documents/h1', burst.key)).status, 200);
      // Two readers, one of each on h2.
      for (const x of [r1, r2]) {
        const sx = await search(x.key);
        assert.equal((await call('POST', '/v2/search/feedback', x.key, feedback(sx, 'h2'))).status, 200);
        assert.ok((await call('POST', '/v2/search/comments', x.key, comment(sx, 'h2'))).status < 300);
        assert.equal((await call('GET', '/v2/documents/h2', x.key)).status, 200);
      }
      await app.activity.flush();
      await app.community.refreshTrending();
      const t = (await call('GET', '/v2/documents/trending', burst.key)).body as { documents: { id: string; score: number }[] };
      const score = (id: string) => t.documents.find((d) => d.id === id)?.score ?? 0;
      // Per reader: 2 x read + 3 x rating + 3 x comment = 8. The burst is one reader; h2 has two.
      assert.equal(score('h1'), 8, JSON.stringify(t.documents));
      assert.equal(score('h2'), 16, JSON.stringify(t.documents));
      assert.equal(t.documents[0]!.id, 'h2');
      // The activity counters still count every event (they are not the ranking).
      const act = (await call('GET', '/v2/documents/h1/activity', burst.key)).body;
      assert.equal(act.positive_ratings_7d, 3);
      assert.ok(act.agent_reads_7d >= 5);
    });
  });
}

suite('SQLite', async (config) => {
  const app = await testApp(config as never);
  return { app, done: () => app.dispose() };
});

if (!databaseUrl) {
  test('community limits on PostgreSQL', { skip: postgresSkip('community limits on PostgreSQL') }, () => {});
} else {
  const url = databaseUrl;
  suite('PostgreSQL', async (config) => {
    const schema = await createTestSchema(url);
    const app = await testApp(config as never, { storage: await openPostgresStorage(schema.url, { max: 4 }) });
    return {
      app,
      async done() {
        await app.dispose();
        await schema.drop();
      },
    };
  });
}
