// POST /v2/search/ through the app: ranking, phrases, filters, citations, dedup, paging, validation,
// refusals of unconfigured components, billing, activity, snippets, traces.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';

const Y = (y: number) => Date.UTC(y, 0, 1) / 1000;

describe('POST /v2/search/', () => {
  let app: TestApp;
  let acct: { id: number; key: string };
  before(async () => {
    app = await testApp();
    acct = await app.account({ credits: 100_000 });
    await seed(app, [
      doc('h1', { title: 'Underground hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas; cushion gas keeps pressure.', type: 'journal-article', language: 'en', issuedAt: Y(2022), publisher: 'Elsevier BV', issns: ['0016-2361'], uris: ['doi://10.1016/j.fuel.2022.1', 'https://openalex.org/W1'] }),
      doc('h2', { title: 'Hydrogen storage in depleted gas reservoirs', abstract: 'A review of cushion gas, hydrogen loss and microbial activity in reservoirs.', type: 'review', language: 'en', issuedAt: Y(2023), publisher: 'MDPI', uris: ['doi://10.3390/en2023.2'], references: ['https://openalex.org/W1'] }),
      doc('h3', { title: 'Gas storage economics', abstract: 'Storage of natural gas and the economics of hydrogen blending.', type: 'journal-article', language: 'en', issuedAt: Y(2015), uris: ['doi://10.1234/econ.3'], references: ['doi://10.1016/j.fuel.2022.1'], isRetracted: true, notices: [{ kind: 'retraction', uri: null }] }),
      doc('h4', { title: 'Wasserstoffspeicherung in Salzkavernen', abstract: 'Speicherung von Wasserstoff in Kavernen.', type: 'journal-article', language: 'de', issuedAt: Y(2021) }),
      doc('p1', { title: 'Hydrogen storage in salt caverns (preprint)', abstract: 'Salt caverns offer tight storage for hydrogen gas.', type: 'preprint', uris: ['arxiv://2201.00001'] }),
      doc('p1pub', { title: 'Hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas, published version.', type: 'journal-article', uris: ['doi://10.5555/pub.1', 'arxiv://2201.00001'] }),
      ...Array.from({ length: 30 }, (_, i) => doc(`g${i}`, { title: `Geology note ${i} on sandstone`, abstract: `Sandstone porosity sample ${i}.`, type: 'journal-article', issuedAt: Y(2000 + (i % 20)) })),
      { ...doc('s1', { title: 'Is hydrogen storage in caverns safe?', abstract: 'Discussion of cavern safety.', type: 'question' }), index: 'social' },
    ]);
    await app.indexes!.catchUp();
  });
  after(() => app.dispose());

  const search = async (body: Record<string, unknown>, key = acct.key) => {
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: body });
    return { status: res.statusCode, body: res.json() };
  };
  const ids = (b: { hits: { id: string }[] }) => b.hits.map((h) => h.id);

  test('total_hits is the exact number of results (works when deduplicating); has_next agrees; offsets past the end', async () => {
    const all = async (body: Record<string, unknown>) => {
      const r = await search({ limit: 500, ...body });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.total_hits, r.body.hits.length, 'one page of 500 holds every result: the total is its length');
      assert.equal(r.body.has_next, false);
      return r.body.total_hits as number;
    };
    for (const query of ['salt caverns hydrogen', 'storage', '"hydrogen storage"', 'sandstone']) {
      const works = await all({ query });
      const records = await all({ query, deduplicate: false });
      if (query !== 'sandstone') assert.equal(records, works + 1, `${query}: p1 and p1pub are one work`);
      else assert.equal(records, works);
      // every page reports the same total; has_next says whether results are left after this page
      for (const [offset, limit] of [[0, 1], [1, 2], [works - 1, 1], [works, 5], [works + 10, 10], [400, 100]] as const) {
        const r = await search({ query, offset, limit });
        assert.equal(r.status, 200);
        assert.equal(r.body.total_hits, works, `${query} offset ${offset}`);
        assert.equal(r.body.hits.length, Math.max(0, Math.min(limit, works - offset)));
        assert.equal(r.body.has_next, offset + limit < works, `${query} offset ${offset} limit ${limit}`);
      }
    }
    // filter-only listings count exactly too
    const filtered = await search({ query: '', filter_types: ['journal-article'], limit: 5 });
    assert.equal(filtered.body.total_hits, await all({ query: '', filter_types: ['journal-article'] }));
    assert.equal(filtered.body.has_next, true);
  });

  test('words rank by relevance; the response has every required field', async () => {
    const { status, body } = await search({ query: 'hydrogen salt caverns', limit: 3 });
    assert.equal(status, 200);
    assert.equal(body.ranking_mode, 'documents');
    assert.ok(['h1', 'p1pub', 'p1'].includes(body.hits[0].id));
    assert.equal(typeof body.total_hits, 'number');
    assert.equal(typeof body.has_next, 'boolean');
    for (const k of ['search_us', 'load_us', 'total_us']) assert.ok(Number.isInteger(body.timings[k]) && body.timings[k] >= 0);
    assert.match(body.trajectory.id, /^[0-9a-f-]{36}$/);
    assert.ok(body.trajectory.feedback_token.length > 20);
  });

  test('a quoted phrase is required (straight, curly, guillemets); boost 0 keeps the constraint', async () => {
    for (const q of ['"cushion gas"', '\u201ccushion gas\u201d', '\u00abcushion gas\u00bb']) {
      const { body } = await search({ query: q, limit: 10 });
      assert.deepEqual(ids(body).sort(), ['h1', 'h2'], q);
    }
    const noBonus = await search({ query: '"cushion gas" hydrogen', fulltext_phrase_boost: 0 });
    assert.deepEqual(ids(noBonus.body).sort(), ['h1', 'h2']);
    const withBonus = await search({ query: '"cushion gas" hydrogen' });
    assert.ok(withBonus.body.hits[0].score > noBonus.body.hits[0].score);
    assert.equal((await search({ query: '"pressure cushion"' })).body.hits.length, 0);
  });

  test('filters: types, languages, ISSNs, publisher, issued range, URI prefixes', async () => {
    assert.deepEqual(ids((await search({ query: 'hydrogen', filter_types: ['review'] })).body), ['h2']);
    assert.deepEqual(ids((await search({ query: 'wasserstoff', filter_languages: ['de'] })).body), ['h4']);
    assert.deepEqual(ids((await search({ query: 'hydrogen', filter_issns: ['0016-2361'] })).body), ['h1']);
    assert.deepEqual(ids((await search({ query: 'hydrogen', filter_publisher: 'mdpi' })).body), ['h2']);
    const ranged = ids((await search({ query: 'hydrogen', filter_issued_after: Y(2022), filter_issued_before: Y(2022) + 86_400 })).body);
    assert.deepEqual(ranged, ['h1']);
    assert.deepEqual(ids((await search({ query: 'hydrogen', filter_uri_prefixes: ['DOI://10.3390/'] })).body), ['h2']);
  });

  test('an empty query with filters lists matching documents', async () => {
    const { body } = await search({ query: '', filter_types: ['review'] });
    assert.deepEqual(ids(body), ['h2']);
  });

  test('referenced_by_uri: documents citing a work, through any of its identifiers', async () => {
    const byDoi = ids((await search({ query: '', referenced_by_uri: 'doi://10.1016/j.fuel.2022.1' })).body).sort();
    assert.deepEqual(byDoi, ['h2', 'h3']);
    const byList = ids((await search({ query: '', referenced_by_uri: ['https://openalex.org/W1'] })).body).sort();
    assert.deepEqual(byList, ['h2', 'h3']);
    const bad = await search({ query: '', referenced_by_uri: 'pubmed://1' });
    assert.equal(bad.status, 422);
    assert.equal((await search({ query: '', referenced_by_uri: Array.from({ length: 17 }, (_, i) => `doi://10.1234/${i}`) })).status, 422);
  });

  test('deduplicate collapses a preprint and its published version', async () => {
    const dedup = ids((await search({ query: 'salt caverns tight storage', limit: 10 })).body);
    assert.equal(dedup.filter((id) => id === 'p1' || id === 'p1pub').length, 1);
    const all = ids((await search({ query: 'salt caverns tight storage', limit: 10, deduplicate: false })).body);
    assert.ok(all.includes('p1') && all.includes('p1pub'));
  });

  test('paging: pages concatenate to the full ranking; has_next; offset + limit <= 500', async () => {
    const full = ids((await search({ query: 'sandstone', limit: 30 })).body);
    assert.equal(full.length, 30);
    const pages: string[] = [];
    for (let off = 0; off < 30; off += 7) {
      const { body } = await search({ query: 'sandstone', limit: 7, offset: off });
      pages.push(...ids(body));
      assert.equal(body.has_next, off + 7 < 30);
    }
    assert.deepEqual(pages, full);
    assert.equal((await search({ query: 'x', offset: 450, limit: 51 })).status, 422);
  });

  test('validation: limits, unknown properties, query size, index names', async () => {
    for (const bad of [{ limit: 0 }, { limit: 501 }, { offset: 500 }, { index_names: [] }, { index_names: Array(9).fill('documents') }, { index_names: ['books'] }, { bogus: 1 }, { query: 'x'.repeat(16_385) }, { fulltext_weight: 11 }, { fulltext_phrase_boost: 10.5 }, { cross_rerank_candidates: 257 }, { rrf_k: -1 }, { mode: 'magic' }, { query: 'é'.repeat(8_193) }, { query: '🔬'.repeat(4_097) }, { filter_types: [] }, { filter_languages: [] }, { filter_languages: ['english'] }, { possible_languages: ['e n'] }, { combiner: 'magic' }, { possible_languages: ['zz'] }, { possible_languages: ['en', 'qqq-BR'] }, { filter_languages: ['xx'] }]) {
      const r = await search(bad);
      assert.equal(r.status, 422, JSON.stringify(bad).slice(0, 80));
      assert.equal(r.body.status, 'error');
    }
  });

  test('the query limit is 16 KiB of UTF-8: 16384 bytes pass; language codes with subtags pass', async () => {
    assert.equal((await search({ query: 'é'.repeat(8_192) })).status, 200);
    assert.equal((await search({ query: 'hydrogen', filter_languages: ['en', 'pt-BR'], possible_languages: ['de'], combiner: 'max' })).status, 200);
    // languages without a stemmer are still languages (analysed without stemming), unknown codes are not (issue 25)
    assert.equal((await search({ query: 'hydrogen', possible_languages: ['ja', 'zh-Hant', 'kln'] })).status, 200);
    const unknown = await search({ query: 'hydrogen', possible_languages: ['de', 'zz'] });
    assert.equal(unknown.status, 422);
    assert.deepEqual(unknown.body.detail.errors.map((e: { path: string }) => e.path), ['body/possible_languages/1']);
    assert.match(unknown.body.detail.message, /"zz" is not an ISO 639 language code/);
  });

  test('components that are not configured: 422 naming what is missing, never a silent fallback', async () => {
    for (const [body, missing] of [
      [{ mode: 'sparse' }, 'sparse'],
      [{ mode: 'binary' }, 'binary'],
      [{ mode: 'short_document' }, 'short_document'],
      [{ candidate_ranking: 'formula' }, 'formula'],
      [{ l2_rerank: 'catboost' }, 'catboost'],
      [{ cross_rerank_candidates: 10 }, 'reranker'],
      [{ fulltext_weight: 0 }, 'channels'],
    ] as const) {
      const r = await search({ query: 'hydrogen', ...body });
      assert.equal(r.status, 422);
      assert.equal(r.body.detail.code, 'feature_unavailable');
      assert.equal(r.body.detail.missing, missing);
    }
    // The defaults that need absent components simply have no effect.
    assert.equal((await search({ query: 'hydrogen', cross_rerank: true, l2_rerank: 'auto', candidate_ranking: 'rrf' })).status, 200);
  });

  test('hybrid with only the lexical channel equals fulltext, and the trace says so', async () => {
    const h = await search({ query: 'hydrogen storage', mode: 'hybrid', tracing: true, limit: 5 });
    const f = await search({ query: 'hydrogen storage', mode: 'fulltext', limit: 5 });
    assert.deepEqual(h.body.hits.map((x: { id: string; score: number }) => [x.id, x.score]), f.body.hits.map((x: { id: string; score: number }) => [x.id, x.score]));
    const fusion = h.body.retrieval_traces.find((t: { branch: string }) => t.branch === 'fusion');
    assert.equal(fusion.resolved, 'fulltext');
    assert.match(fusion.note, /only the lexical/);
  });

  test('include_rrf_scores gives exact votes; several indexes are fused by RRF', async () => {
    const r = await search({ query: 'hydrogen caverns', index_names: ['documents', 'social'], include_rrf_scores: true, rrf_k: 10, limit: 20 });
    assert.ok(ids(r.body).includes('s1'));
    for (const h of r.body.hits) {
      const sum = h.rrf.contributions.reduce((n: number, c: { contribution: number }) => n + c.contribution, 0);
      assert.ok(Math.abs(sum - h.rrf.score) < 1e-12);
      for (const c of h.rrf.contributions) assert.equal(c.contribution, 1 / (10 + c.rank));
    }
  });

  test('return_documents false: ids and scores only', async () => {
    const { body } = await search({ query: 'hydrogen', return_documents: false });
    assert.ok(body.hits.length > 0);
    for (const h of body.hits) {
      assert.equal(h.document, null);
      assert.deepEqual(h.snippets, []);
    }
  });

  test('snippets point at the field text by code points and highlight matches', async () => {
    const { body } = await search({ query: 'microbial activity', limit: 1 });
    const h = body.hits[0];
    assert.equal(h.id, 'h2');
    const s = h.snippets.find((x: { field: string }) => x.field === 'abstract');
    const field = [...h.document.abstract];
    assert.equal(s.source.field_length, field.length);
    assert.equal(field.slice(s.source.start_char, s.source.end_char).join(''), s.text);
    const marked = s.highlights.map(([a, b]: [number, number]) => [...s.text].slice(a, b).join('').toLowerCase());
    assert.ok(marked.includes('microbial'));
  });

  test('retracted works carry a visible flag in hits', async () => {
    const { body } = await search({ query: 'economics blending', limit: 1 });
    assert.equal(body.hits[0].id, 'h3');
    assert.equal(body.hits[0].document.is_retracted, true);
    assert.deepEqual(body.hits[0].document.notices, [{ kind: 'retraction', uri: null, document_id: null }]);
  });

  test('corrected_query from the index vocabulary when the query looks misspelled', async () => {
    const { body } = await search({ query: 'hydrogn storgae' });
    assert.equal(body.corrected_query, 'hydrogen storage');
    assert.equal((await search({ query: 'hydrogen storage' })).body.corrected_query, null);
  });

  test('billed 10 + 1 per returned hit; shown activity recorded; 402 leaves no entry', async () => {
    const before = await app.storage.ledger.balance(acct.id);
    const { body } = await search({ query: 'sandstone', limit: 4 });
    assert.equal(before - (await app.storage.ledger.balance(acct.id)), 10 + body.hits.length);
    await app.activity.flush();
    const counts = await app.storage.activity.counts(body.hits[0].id, Math.floor(app.clock.nowMs() / 1000));
    assert.ok(counts.shown7d >= 1);
    const poor = await app.account({ credits: 12 });
    const r = await search({ query: 'sandstone', limit: 10 }, poor.key);
    assert.equal(r.status, 402);
    assert.equal(await app.storage.ledger.balance(poor.id), 12);
    assert.equal((await app.storage.ledger.entries(poor.id, 10)).length, 1);
    const failed = await search({ query: 'x', mode: 'sparse' });
    const bal = await app.storage.ledger.balance(acct.id);
    await search({ query: 'x', mode: 'sparse' });
    assert.equal(failed.status, 422);
    assert.equal(await app.storage.ledger.balance(acct.id), bal);
  });
});

describe('text_filter: passages inside one document', () => {
  let app: TestApp;
  let acct: { id: number; key: string };
  const body = Array.from({ length: 40 }, (_, i) =>
    i === 7 ? 'Cushion gas injection keeps the cavern pressure above the minimum.' : i === 23 ? 'Microbial methanation consumes stored hydrogen in porous rock.' : `Paragraph ${i} discusses unrelated geology of basins and faults.`,
  ).join('\n\n');
  before(async () => {
    app = await testApp();
    acct = await app.account({ credits: 1000 });
    await seed(app, [doc('big', { uris: ['doi://10.5555/big'], abstract: 'Hydrogen storage overview.', fullText: body })]);
    await app.indexes!.catchUp();
  });
  after(() => app.dispose());
  const get = (q: string) => app.http.inject({ method: 'GET', url: `/v2/documents/by-uri/${encodeURIComponent('doi://10.5555/big')}?text_filter=${encodeURIComponent(q)}`, headers: { 'x-api-key': acct.key } });

  test('returns up to five matching passages of that document as a V2SearchResponse; billed 15', async () => {
    const before = await app.storage.ledger.balance(acct.id);
    const res = await get('microbial hydrogen');
    assert.equal(res.statusCode, 200, res.body);
    const r = res.json();
    assert.equal(r.ranking_mode, 'passages');
    assert.ok(r.hits.length >= 1 && r.hits.length <= 5);
    assert.ok(r.hits.every((h: { id: string }) => h.id === 'big'));
    assert.match(r.hits[0].snippets[0].text, /Microbial methanation/);
    assert.equal(typeof r.hits[0].snippets[0].chunk_id, 'number');
    assert.equal(before - (await app.storage.ledger.balance(acct.id)), 15);
  });

  test('double-quoted spans must occur verbatim', async () => {
    const r = (await get('"cushion gas injection"')).json();
    assert.equal(r.hits.length, 1);
    assert.match(r.hits[0].snippets[0].text, /Cushion gas injection/);
    assert.equal((await get('"injection gas cushion"')).json().hits.length, 0);
  });

  test('400 for an invalid text filter or URI; nothing charged', async () => {
    const before = await app.storage.ledger.balance(acct.id);
    const r = await get('"unbalanced');
    assert.equal(r.statusCode, 400);
    assert.equal(r.json().detail.code, 'invalid_text_filter');
    const badUri = await app.http.inject({ method: 'GET', url: '/v2/documents/by-uri/nonsense?text_filter=x', headers: { 'x-api-key': acct.key } });
    assert.equal(badUri.statusCode, 400);
    assert.equal(await app.storage.ledger.balance(acct.id), before);
  });
});

describe('search billing writes (ADRs 0185, 0332)', () => {
  // the ledger calls the billing service makes, counted under the group-commit ledger
  const calls: string[] = [];
  let app: TestApp;
  before(async () => {
    const { openSqliteStorage } = await import('../../src/adapters/sqlite/sqlite-storage.js');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const storage = openSqliteStorage(join(mkdtempSync(join(tmpdir(), 'lectern-ledger-')), 'lectern.db'));
    const wrapped = { ...storage, ledger: new Proxy(storage.ledger, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          if (prop === 'applyBatch') for (const op of args[0] as { kind: string }[]) calls.push(op.kind);
          else calls.push(String(prop));
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) };
    app = await testApp({}, { storage: wrapped });
    await seed(app, Array.from({ length: 8 }, (_, i) => doc(`g${i}`, { title: `Geology note ${i} on sandstone`, abstract: `Sandstone porosity sample ${i}.` })));
    await app.indexes!.catchUp();
  });
  after(() => app.dispose());
  const search = async (key: string, body: Record<string, unknown>) => {
    calls.length = 0;
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: body });
    return { status: res.statusCode, hits: (res.json().hits ?? []).length as number, writes: calls.filter((c) => ['hold', 'extendHold', 'extend', 'capture', 'release', 'drawFromHold', 'draw'].includes(c)) };
  };

  test('a balance that covers the largest price of the page: the standing hold opened for it, the final price drawn from it; one draw per search', async () => {
    const rich = await app.account({ credits: 1000 });
    const r = await search(rich.key, { query: 'sandstone', limit: 20 });
    assert.equal(r.status, 200);
    assert.equal(r.hits, 8);
    // (the harness waits for billing.idle() after each request, which gives the unused standing hold back)
    assert.deepEqual(r.writes, ['hold', 'drawFromHold', 'release'], 'the standing hold opened with the largest price (no extension), the final price drawn from it');
    assert.equal(await app.storage.ledger.balance(rich.id), 1000 - 18, 'charged the final price: the rest of the hold is free again');
    assert.equal(await app.storage.ledger.held(rich.id), 0);
    // concurrent searches of the account: one standing hold, grown for each extra one in flight, one draw each, no capture
    calls.length = 0;
    const many = await Promise.all(Array.from({ length: 4 }, () => app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': rich.key }, payload: { query: 'sandstone', limit: 20 } })));
    assert.ok(many.every((m) => m.statusCode === 200));
    const count = (k: string) => calls.filter((c) => c === k).length;
    assert.equal(count('draw') + count('drawFromHold'), 4, 'one draw per search');
    assert.equal(count('capture'), 0);
    assert.ok(count('hold') + count('extend') + count('extendHold') <= 4, 'the standing hold opened once and grown at most for each one in flight');
    assert.equal(await app.storage.ledger.balance(rich.id), 1000 - 5 * 18);
    assert.equal(await app.storage.ledger.held(rich.id), 0);
  });

  test('a balance short of the largest price: the base price is held and grown to the final one', async () => {
    const poor = await app.account({ credits: 25 });
    const r = await search(poor.key, { query: 'sandstone', limit: 20 });
    assert.equal(r.status, 200);
    assert.deepEqual(r.writes, ['hold', 'extendHold', 'drawFromHold'], 'the standing hold was drawn whole: nothing left to release');
    assert.equal(await app.storage.ledger.balance(poor.id), 25 - 18);
    const short = await search(poor.key, { query: 'sandstone', limit: 20 });
    assert.equal(short.status, 402, 'the base price is more than is left: refused before the work, nothing charged');
    await app.billing.idle();
    assert.equal(await app.storage.ledger.balance(poor.id), 7);
    assert.equal(await app.storage.ledger.held(poor.id), 0);
  });
});
