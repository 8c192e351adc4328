// What search hits show, through the app (ADR 0135): display records (no full text read) that match
// the document endpoint's fields, body snippets still cut from the body, and a display cache that never
// shows a record older than the index: writes by another writer (as the CLI does, straight to the
// store), work merges and deletes show up in hits once the index has applied them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';

describe('search hits: display records and their cache', () => {
  let app: TestApp;
  let acct: { id: number; key: string };
  before(async () => {
    app = await testApp({ displayCacheRecords: 100 });
    acct = await app.account({ credits: 100_000 });
    await seed(app, [
      doc('b1', { title: 'Basalt weathering rates', abstract: 'Weathering of basalt in cold climates.', fullText: 'Intro.\n\nThe olivine dissolution kinetics dominate carbon uptake in basalt fields.', references: ['doi://10.1/a', 'doi://10.1/b'], uris: ['doi://10.7777/basalt.1'] }),
      doc('b2', { title: 'Basalt fibres', abstract: 'Mechanical properties of basalt fibres.', fullText: null, references: [] }),
    ]);
    await app.indexes!.catchUp();
  });
  after(() => app.dispose());

  const search = async (query: string) => {
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': acct.key }, payload: { query, limit: 10 } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { hits: { id: string; document: Record<string, unknown>; snippets: { field: string; text: string }[] }[] };
  };
  const fetchDoc = async (id: string) => (await app.http.inject({ method: 'GET', url: `/v2/documents/${id}`, headers: { 'x-api-key': acct.key } })).json() as { document: Record<string, unknown> };

  test('a hit shows the same document fields as the document endpoint, without reading the text', async () => {
    const r = await search('basalt');
    const b1 = r.hits.find((h) => h.id === 'b1')!;
    assert.equal(b1.document.has_full_text, true);
    assert.equal(b1.document.references_count, 2);
    assert.equal(r.hits.find((h) => h.id === 'b2')!.document.has_full_text, false);
    const full = (await fetchDoc('b1')).document;
    for (const [k, v] of Object.entries(b1.document)) assert.deepEqual(v, full[k], `document.${k}`);
  });

  test('snippets whose passages are in the body are cut from the body text', async () => {
    const r = await search('olivine dissolution kinetics');
    const b1 = r.hits.find((h) => h.id === 'b1')!;
    assert.ok(b1.snippets.some((s) => s.field === 'body' && s.text.includes('olivine')), JSON.stringify(b1.snippets));
  });

  test('a record rewritten by another writer, a new version of its work and a deletion show up once indexed', async () => {
    await search('basalt'); // warm the cache
    // written straight to the store (as `lectern ingest` in another process would), then indexed
    await app.storage.documents.upsertMany([doc('b2', { title: 'Basalt fibres, revised', abstract: 'Mechanical properties of basalt fibres.' })], 2_000);
    await app.indexes!.catchUp();
    assert.equal((await search('basalt')).hits.find((h) => h.id === 'b2')!.document.title, 'Basalt fibres, revised');
    // a preprint of b1's work arrives: b1's versions list it
    await app.storage.documents.upsertMany([doc('a0', { title: 'Basalt weathering (preprint)', abstract: 'Preprint.', uris: ['doi://10.7777/basalt.1', 'arxiv://2301.00001'], type: 'preprint' })], 3_000);
    await app.indexes!.catchUp();
    const hit = (await search('weathering')).hits.find((h) => h.id === 'b1' || h.id === 'a0')!;
    const versions = hit.document.versions as { id: string }[];
    assert.equal(versions.length, 1, 'the work now has two records');
    await app.storage.documents.delete('b2', 4_000);
    await app.indexes!.catchUp();
    assert.equal((await search('fibres')).hits.find((h) => h.id === 'b2'), undefined);
  });
});
