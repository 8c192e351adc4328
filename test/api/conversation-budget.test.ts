// Issue 25: conversation questions are under the same work budget as searches. A 1,500-term question
// was answered (2.7 s) where the same search was refused. Since issue 27 (ADR 0231) a long search is
// evaluated pruned, never refused, and so is a long question; what a search still refuses (quoted
// phrases over the budget) a turn refuses too, before any hold, any stored step or any work, with the
// search's budget detail (400: the interface's status for a bad turn), on SQLite and PostgreSQL.
// Retrieval inside a turn also takes the account's fair turns.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { onBothStores, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';

const words = (n: number) => Array.from({ length: n }, (_, i) => `term${i.toString(36)}x`).join(' ');

function suite(label: string, open: () => Promise<{ app: TestApp; done(): Promise<void> }>) {
  describe(`conversation questions under the search work budget (${label})`, () => {
    let app: TestApp;
    let done: () => Promise<void>;
    before(async () => {
      ({ app, done } = await open());
      await seed(app, [doc('h1', { title: 'Underground hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas.' })]);
      await app.indexes!.catchUp();
    });
    after(() => done());

    test('a 1,500-term question is answered pruned, as the same search is', async () => {
      const a = await app.account({ credits: 1000 });
      const q = `hydrogen ${words(1500)}`;
      const s = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': a.key }, payload: { query: q } });
      assert.equal(s.statusCode, 200, s.body.slice(0, 300));
      const c = await app.http.inject({ method: 'POST', url: '/v2/conversations/', headers: { 'x-api-key': a.key }, payload: { query: q, llm_config: { model_name: 'lectern-extractive' } } });
      assert.equal(c.statusCode, 200, c.body.slice(0, 300));
    });

    test('quoted phrases over the budget are refused as the same search is, before anything is held or stored', async () => {
      const a = await app.account({ credits: 1000 });
      const q = `"${words(1500)}"`;
      const s = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': a.key }, payload: { query: q } });
      assert.equal(s.statusCode, 422, s.body);
      assert.equal(s.json().detail.budget, 'terms');
      for (const url of ['/v2/conversations/', '/v2/conversations/stream']) {
        const c = await app.http.inject({ method: 'POST', url, headers: { 'x-api-key': a.key }, payload: { query: q, llm_config: { model_name: 'lectern-extractive' } } });
        assert.equal(c.statusCode, 400, `${url}: ${c.body.slice(0, 300)}`);
        const detail = c.json().detail;
        assert.equal(detail.code, 'bad_request');
        assert.equal(detail.budget, 'terms');
        assert.equal(detail.limit, s.json().detail.limit);
      }
      assert.equal(await app.billing.balance(a.id), 1000);
      const list = await app.http.inject({ method: 'GET', url: '/v2/conversations/', headers: { 'x-api-key': a.key } });
      assert.equal(list.json().conversations.length, 0, 'nothing stored');
      // A question within the budget is answered.
      const ok = await app.http.inject({ method: 'POST', url: '/v2/conversations/', headers: { 'x-api-key': a.key }, payload: { query: 'hydrogen storage in salt caverns', llm_config: { model_name: 'lectern-extractive' } } });
      assert.equal(ok.statusCode, 200, ok.body);
    });

    test('an edit to a question of quoted phrases over the budget is refused the same way', async () => {
      const a = await app.account({ credits: 1000 });
      const ok = await app.http.inject({ method: 'POST', url: '/v2/conversations/', headers: { 'x-api-key': a.key }, payload: { query: 'hydrogen storage in salt caverns', llm_config: { model_name: 'lectern-extractive' } } });
      assert.equal(ok.statusCode, 200, ok.body);
      const body = ok.json();
      const id = body.conversation_id ?? body.id ?? body.conversation?.id;
      const before = await app.billing.balance(a.id);
      const e = await app.http.inject({ method: 'PUT', url: `/v2/conversations/${id}/edit-step/0`, headers: { 'x-api-key': a.key }, payload: { new_query: `"${words(1500)}"` } });
      assert.equal(e.statusCode, 400, e.body.slice(0, 300));
      assert.equal(e.json().detail.budget, 'terms', e.body.slice(0, 300));
      assert.equal(await app.billing.balance(a.id), before);
    });
  });
}

onBothStores('conversation budget', suite);
