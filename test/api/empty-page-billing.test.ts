// "Nothing delivered is not charged" (issue 25): a search page with no hits (no match, or a page past
// the last result) costs nothing and leaves no ledger entry; a page with hits costs base + per hit.
// On SQLite and PostgreSQL.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { onBothStores, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';

function suite(label: string, open: () => Promise<{ app: TestApp; done(): Promise<void> }>) {
  describe(`empty pages are not charged (${label})`, () => {
    let app: TestApp;
    let done: () => Promise<void>;
    before(async () => {
      ({ app, done } = await open());
      await seed(app, [
        doc('h1', { title: 'Underground hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas.' }),
        doc('h2', { title: 'Hydrogen storage in depleted gas reservoirs', abstract: 'Cushion gas and hydrogen loss in reservoirs.' }),
      ]);
      await app.indexes!.catchUp();
    });
    after(() => done());

    test('no hits: 200, nothing charged, no ledger entry; hits: base + per hit', async () => {
      const a = await app.account({ credits: 1000 });
      const search = async (body: object) => {
        const r = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': a.key }, payload: body });
        assert.equal(r.statusCode, 200, r.body);
        return r.json() as { hits: unknown[] };
      };
      assert.equal((await search({ query: 'zeolite membranes quasicrystal' })).hits.length, 0);
      assert.equal((await search({ query: 'hydrogen storage', offset: 100, limit: 10 })).hits.length, 0);
      assert.equal(await app.billing.balance(a.id), 1000);
      assert.deepEqual(await app.storage.ledger.entries(a.id, 10).then((e) => e.filter((x) => x.amount < 0)), []);
      const two = await search({ query: 'hydrogen storage', limit: 10 });
      assert.equal(two.hits.length, 2);
      assert.equal(await app.billing.balance(a.id), 1000 - (10 + 2));
    });
  });
}

onBothStores('empty pages', suite);
