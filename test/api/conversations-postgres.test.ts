// The conversation flow through the app on PostgreSQL storage (DATABASE_URL): turn, follow-up, edit,
// share and read with another account, list, delete. The full behaviour is tested on SQLite in
// conversations.test.ts; the store contract covers both.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { createTestSchema, databaseUrl, postgresSkip } from '../helpers/storage.js';

if (!databaseUrl) {
  test('conversations on PostgreSQL', { skip: postgresSkip('conversations on PostgreSQL') }, () => {});
} else {
  const url = databaseUrl;
  describe('conversations on PostgreSQL', () => {
    let app: TestApp;
    let schema: Awaited<ReturnType<typeof createTestSchema>>;
    before(async () => {
      schema = await createTestSchema(url);
      app = await testApp({}, { storage: await openPostgresStorage(schema.url, { max: 4 }) });
      await seed(app, [
        doc('h1', { title: 'Hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas.', language: 'en' }),
        doc('m1', { title: 'Hydrogen effects in mice', abstract: 'Mice breathing hydrogen showed reduced oxidative stress.', language: 'en' }),
      ]);
      await app.indexes!.catchUp();
    });
    after(async () => {
      await app.dispose(); // closes the storage
      await schema.drop();
    });

    test('turn, follow-up, edit, share, read by another account, list, delete', async () => {
      const a = await app.account({ credits: 1000 });
      const b = await app.account({ credits: 1000 });
      const call = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', u: string, payload?: object, key = a.key) => {
        const r = await app.http.inject({ method, url: u, headers: { 'x-api-key': key }, ...(payload ? { payload } : {}) });
        return { status: r.statusCode, body: r.body ? r.json() : null };
      };
      const t = await call('POST', '/v2/conversations/', { query: 'hydrogen salt caverns', llm_config: { model_name: 'lectern-extractive' } });
      assert.equal(t.status, 200);
      assert.ok(t.body.citations.length > 0);
      const id = t.body.conversation_id;
      const f = await call('POST', '/v2/conversations/', { query: 'what about in mice?', conversation_id: id, llm_config: { model_name: 'lectern-extractive' } });
      assert.equal(f.body.search_documents[0].document.id, 'm1');
      const e = await call('PUT', `/v2/conversations/${id}/edit-step/0`, { new_query: 'oxidative stress in mice' });
      assert.equal(e.status, 200);
      assert.equal(e.body.conversation_steps.length, 4);
      assert.equal(await app.billing.balance(a.id), 1000 - 300);
      assert.equal((await call('GET', `/v2/conversations/${id}`, undefined, b.key)).status, 404);
      assert.equal((await call('PATCH', `/v2/conversations/${id}`, { is_shared: true })).status, 200);
      assert.equal((await call('GET', `/v2/conversations/${e.body.conversation_metadata.slug}`, undefined, b.key)).status, 200);
      assert.deepEqual((await call('GET', '/v2/conversations/')).body.conversations.map((c: { id: string }) => c.id), [id]);
      assert.equal((await call('DELETE', `/v2/conversations/${id}`)).status, 200);
      assert.equal((await call('GET', `/v2/conversations/${id}`)).status, 404);
    });
  });
}
