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

// ADR 0359: the display cache in front of the hits' records, links and body texts. A page whose hits are
// all cached reads nothing from the store (no row with its text, no work-link query); a hit is kept from
// its second load on; with the cache off every page reads them. Both give the same hits. The reads are counted in process (searchThreads 0: a
// search thread has its own connection and cache); on a search thread the same hits and freshness.
describe('search hits: records, links and body texts from the display cache', () => {
  const reads = (app: TestApp) => {
    const counts = { rows: 0, links: 0 };
    const store = app.storage.documents as unknown as Record<string, (...a: unknown[]) => unknown>;
    for (const [name, key] of [['getDisplayMany', 'rows'], ['workMembers', 'links'], ['relationsTo', 'links']] as const) {
      const original = store[name]!.bind(store);
      store[name] = (...a: unknown[]) => {
        counts[key]++;
        return original(...a);
      };
    }
    return counts;
  };
  const seeded = async (records: number, searchThreads = 0) => {
    const app = await testApp({ displayCacheRecords: records, searchThreads });
    const acct = await app.account({ credits: 100_000 });
    await seed(app, [
      doc('c1', { title: 'Granite', abstract: 'Granite intrusions.', fullText: 'Intro.\n\nThe feldspar crystallization sequence controls granite textures in plutons.' }),
      doc('c2', { title: 'Feldspar', abstract: 'Feldspar in granite.', fullText: null }),
    ]);
    await app.indexes!.catchUp();
    const search = async (query: string) => {
      const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': acct.key }, payload: { query, limit: 10, return_documents: true } });
      assert.equal(res.statusCode, 200, res.body);
      const { hits } = res.json() as { hits: { id: string; snippets: { field: string }[]; document: { title: string } }[] };
      return hits;
    };
    return { app, search, counts: reads(app) };
  };

  test('a page whose hits are cached reads no row, text or link from the store; the same hits', async () => {
    const { app, search, counts } = await seeded(100);
    try {
      const first = await search('feldspar crystallization granite');
      assert.ok(first.some((h) => h.snippets.some((s) => s.field === 'body')), 'a body-snippet hit');
      assert.ok(counts.rows > 0 && counts.links > 0, 'the first page loads its records');
      // kept from their second load on (a hit that never repeats never enters the cache)
      const second = { ...counts };
      assert.deepEqual(await search('feldspar crystallization granite'), first);
      assert.ok(counts.rows > second.rows, 'the second page loads them again');
      const before = { ...counts };
      const again = await search('feldspar crystallization granite');
      assert.deepEqual(counts, before, 'nothing read for the cached page');
      assert.deepEqual(again, first);
      // a change the index applies takes the record out: read again, and shown as written
      await app.storage.documents.upsertMany([doc('c1', { title: 'Granite, revised', abstract: 'Granite intrusions.', fullText: 'Intro.\n\nThe feldspar crystallization sequence controls granite textures in plutons.' })], 2_000);
      await app.indexes!.catchUp();
      assert.equal((await search('feldspar crystallization granite')).find((h) => h.id === 'c1')!.document.title, 'Granite, revised');
      assert.ok(counts.rows > before.rows, 'the changed record read again');
    } finally {
      await app.dispose();
    }
  });

  test('with the cache off every page reads its rows and links', async () => {
    const { app, search, counts } = await seeded(0);
    try {
      const first = await search('feldspar crystallization granite');
      const before = { ...counts };
      assert.deepEqual(await search('feldspar crystallization granite'), first);
      assert.ok(counts.rows > before.rows && counts.links > before.links, JSON.stringify({ before, counts }));
    } finally {
      await app.dispose();
    }
  });

  test('on a search thread: the same hits again from its cache, a changed record shown once indexed', async () => {
    const { app, search } = await seeded(100, 1);
    try {
      const first = await search('feldspar crystallization granite');
      assert.ok(first.some((h) => h.snippets.some((s) => s.field === 'body')), 'a body-snippet hit');
      assert.deepEqual(await search('feldspar crystallization granite'), first);
      await app.storage.documents.upsertMany([doc('c1', { title: 'Granite, revised', abstract: 'Granite intrusions.', fullText: 'Intro.\n\nThe feldspar crystallization sequence controls granite textures in plutons.' })], 2_000);
      await app.indexes!.catchUp();
      assert.equal((await search('feldspar crystallization granite')).find((h) => h.id === 'c1')!.document.title, 'Granite, revised');
    } finally {
      await app.dispose();
    }
  });
});
