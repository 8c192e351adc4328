// Search threads (ADR 0110) through the API: a server with searches on the main thread (search_threads
// 0) and one with two search threads answer the same requests with the same bodies (ranking, scores,
// documents, snippets, totals, refusals); the threaded one sees documents committed after it started;
// timings account for the whole request (ADR 0112) and /metrics shows the stage histograms. A third
// server has search threads and inline searches (ADR 0326: a cheap search runs on the main thread when
// nothing else searches): the same bodies again, byte for byte.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { createTestSchema, databaseUrl, postgresSkip } from '../helpers/storage.js';

const Y = (y: number) => Date.UTC(y, 0, 1) / 1000;
const docs = () => [
  doc('t1', { title: 'Underground hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas; cushion gas keeps pressure. The caverns are leached from salt domes.', type: 'journal-article', issuedAt: Y(2022), uris: ['doi://10.1016/thr.1'] }),
  doc('t2', { title: 'Hydrogen storage in depleted gas reservoirs', abstract: 'A review of cushion gas, hydrogen loss and microbial activity in reservoirs.', type: 'review', issuedAt: Y(2023), references: ['doi://10.1016/thr.1'] }),
  doc('t3', { title: 'Gas storage economics', abstract: 'Storage of natural gas and the economics of hydrogen blending.', type: 'journal-article', issuedAt: Y(2015), fullText: 'Long body text about storage tariffs, hydrogen blending limits and pipeline economics. '.repeat(20) }),
  ...Array.from({ length: 40 }, (_, i) => doc(`s${i}`, { title: `Sandstone porosity note ${i}`, abstract: `Sandstone porosity and permeability of sample ${i} from the basin; hydrogen ${i % 3 === 0 ? 'storage' : 'flow'}.`, type: i % 2 ? 'journal-article' : 'preprint', issuedAt: Y(2000 + (i % 20)) })),
];

describe('search threads', () => {
  let inProcess: TestApp;
  let threaded: TestApp;
  let inline: TestApp;
  let keys: { a: string; b: string; c: string };
  before(async () => {
    inProcess = await testApp({ searchThreads: 0 });
    threaded = await testApp({ searchThreads: 2 });
    inline = await testApp({ searchThreads: 1, limits: { inlineSearchMaxWork: 1_000_000_000 } as never });
    for (const app of [inProcess, threaded, inline]) {
      await seed(app, docs());
      await app.indexes!.catchUp();
    }
    keys = { a: (await inProcess.account({ credits: 100_000 })).key, b: (await threaded.account({ credits: 100_000 })).key, c: (await inline.account({ credits: 100_000 })).key };
  });
  after(async () => {
    await inProcess.dispose();
    await threaded.dispose();
    await inline.dispose();
  });

  const search = async (app: TestApp, key: string, body: Record<string, unknown>) => {
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: body });
    return { status: res.statusCode, body: res.json() as Record<string, unknown>, raw: res.body, type: res.headers['content-type'], length: res.headers['content-length'] };
  };
  const inlineSearches = (metrics: string) => Number(/^lectern_search_inline_searches (\d+)$/m.exec(metrics)?.[1] ?? NaN);
  /** The raw body without what differs by nature (the timings' numbers, the trajectory's id and token). */
  const comparableBytes = (raw: string) => raw.replace(/"timings":\{[^}]*\}/, '"timings":{}').replace(/"trajectory":\{[^}]*\}/, '"trajectory":{}');
  /** The body without what differs by nature between two servers (timings, the trajectory's id and token). */
  const comparable = (b: Record<string, unknown>) => {
    const { timings: _t, trajectory: _j, ...rest } = b;
    return rest;
  };

  test('the threaded server reports its threads; the in-process one none', async () => {
    assert.match((await threaded.http.inject({ url: '/metrics' })).body, /^lectern_search_threads 2$/m);
    assert.match((await inProcess.http.inject({ url: '/metrics' })).body, /^lectern_search_threads 0$/m);
  });

  test('same requests, same answers (hits, scores, documents, snippets, totals, refusals)', async () => {
    const bodies: Record<string, unknown>[] = [
      { query: 'hydrogen storage' },
      { query: '"salt caverns"' },
      { query: 'sandstone porosity', limit: 5, offset: 3 },
      { query: 'hydrogen', filter_types: ['review', 'journal-article'], filter_issued_after: Y(2010) },
      { query: 'pipeline tariffs', ranking_mode: 'passages' },
      { query: 'sandstone', return_documents: false, include_rrf_scores: true },
      { query: 'hydrogn storag' },
      { query: '', filter_types: ['preprint'], limit: 7 },
      { query: 'hydrogen', tracing: true, limit: 3 },
      { query: 'hydrogen', mode: 'sparse' },
      { query: 'hydrogen', mode: 'short_document' },
    ];
    const inlineBefore = inlineSearches((await inline.http.inject({ url: '/metrics' })).body);
    for (const body of bodies) for (const [other, key] of [[threaded, keys.b], [inline, keys.c]] as const) {
      const a = await search(inProcess, keys.a, body);
      const b = await search(other, key, body);
      assert.equal(b.status, a.status, JSON.stringify(body));
      if (a.status === 200) {
        assert.ok((a.body.hits as unknown[]).length > 0 || body.query === 'hydrogn storag', `${JSON.stringify(body)} finds something`);
        if (body.tracing) {
          // traces carry per-run microseconds: compare the hits and the branch names
          assert.deepEqual((b.body.hits as unknown[]).length, (a.body.hits as unknown[]).length);
          const branches = (x: Record<string, unknown>) => (x.traces as { branch: string }[] | undefined)?.map((t) => t.branch);
          assert.deepEqual(branches(b.body), branches(a.body));
          continue;
        }
      }
      assert.deepEqual(comparable(b.body), comparable(a.body), JSON.stringify(body));
      // byte for byte: the threaded server's hits are serialized on its search thread (ADR 0150)
      assert.equal(comparableBytes(b.raw), comparableBytes(a.raw), JSON.stringify(body));
      assert.equal(b.type, a.type);
      assert.equal(Number(b.length), Buffer.byteLength(b.raw), 'content-length is the byte length');
    }
    // the inline server ran its searches on its main thread (every one alone and within the bound)
    assert.ok(inlineSearches((await inline.http.inject({ url: '/metrics' })).body) - inlineBefore >= bodies.length - 2, 'searches ran inline');
    assert.equal(inlineSearches((await threaded.http.inject({ url: '/metrics' })).body), 0, 'none inline by default');
    // the refusals are the thread's (checked there) and keep their code and detail
    const refused = await search(threaded, keys.b, { query: 'hydrogen', mode: 'sparse' });
    assert.equal(refused.status, 422);
    assert.equal((refused.body.detail as { code: string }).code, 'feature_unavailable');
  });

  test('documents committed after the threads started are found by the next search', async () => {
    for (const app of [inProcess, threaded]) {
      await seed(app, [doc('late1', { title: 'Zirconium cladding corrosion', abstract: 'Zirconium alloys corrode in hot water.' })]);
      await app.indexes!.catchUp();
    }
    const a = await search(inProcess, keys.a, { query: 'zirconium' });
    const b = await search(threaded, keys.b, { query: 'zirconium' });
    assert.deepEqual((b.body.hits as { id: string }[]).map((h) => h.id), ['late1']);
    assert.deepEqual(comparable(b.body), comparable(a.body));
  });

  test('a merge on the writer is published to the threads and changes nothing in the answers', async () => {
    for (const app of [inProcess, threaded]) {
      for (let i = 0; i < 4; i++) {
        await seed(app, [doc(`m${i}`, { title: `Merge note ${i} on hydrogen`, abstract: 'Segments to merge.' })]);
        await app.indexes!.catchUp();
      }
      for (const name of ['documents', 'social'] as const) app.indexes!.get(name).forceMerge(1);
      app.indexes!.mergeStep();
      // forceMerge commits through the engine directly: publish as the background merges do
      app.indexes!.onChange?.();
    }
    const a = await search(inProcess, keys.a, { query: 'hydrogen merge', limit: 20 });
    const b = await search(threaded, keys.b, { query: 'hydrogen merge', limit: 20 });
    assert.equal(b.status, 200);
    assert.deepEqual(comparable(b.body), comparable(a.body));
    assert.equal(threaded.indexes!.stats().documents.segments, 1);
  });

  for (const which of ['in-process', 'threaded'] as const) {
    test(`${which}: timings.total_us covers the whole request and the stage times; /metrics has the stage histograms`, async () => {
      const app = which === 'threaded' ? threaded : inProcess;
      const key = which === 'threaded' ? keys.b : keys.a;
      const t0 = performance.now();
      const r = await search(app, key, { query: 'hydrogen storage', limit: 10 });
      const wallUs = (performance.now() - t0) * 1000;
      assert.equal(r.status, 200);
      const t = r.body.timings as { search_us: number; load_us: number; total_us: number };
      assert.ok(t.search_us > 0 && t.load_us > 0, JSON.stringify(t));
      assert.ok(t.search_us + t.load_us <= t.total_us, `engine + records/snippets (${t.search_us} + ${t.load_us}) fit in the total ${t.total_us}`);
      assert.ok(t.total_us <= wallUs, `the total (${t.total_us} us) is within the request's wall time (${Math.round(wallUs)} us)`);
      const text = (await app.http.inject({ url: '/metrics' })).body;
      for (const stage of ['engine', 'records', 'snippets', 'billing', 'queue', 'serialization', 'total']) {
        const m = new RegExp(`^lectern_search_stage_seconds_count\\{route="/v2/search/",stage="${stage}"\\} (\\d+)$`, 'm').exec(text);
        assert.ok(m && Number(m[1]) >= 1, `stage ${stage} observed`);
      }
      assert.match(text, /^lectern_search_stage_seconds_bucket\{le="0.001",route="\/v2\/search\/",stage="engine"\} \d+$/m);
    });
  }
});

// On PostgreSQL each search thread opens its own pool of the same schema.
describe('search threads on PostgreSQL', { skip: databaseUrl ? false : postgresSkip('search threads on PostgreSQL') }, () => {
  let schema: Awaited<ReturnType<typeof createTestSchema>>;
  let inProcess: TestApp;
  let threaded: TestApp;
  before(async () => {
    schema = await createTestSchema(databaseUrl!);
    inProcess = await testApp({ searchThreads: 0, databaseUrl: schema.url });
    threaded = await testApp({ searchThreads: 2, databaseUrl: schema.url });
    await seed(inProcess, docs());
    // one store, two servers: each indexes it in its own data directory
    await inProcess.indexes!.catchUp();
    await threaded.indexes!.catchUp();
  });
  after(async () => {
    await threaded?.dispose();
    await inProcess?.dispose();
    await schema?.drop();
  });

  test('same answers as in-process', async () => {
    const a = await inProcess.account({ credits: 10_000 });
    for (const body of [{ query: 'hydrogen storage' }, { query: '"salt caverns"', filter_types: ['journal-article'] }, { query: 'sandstone', limit: 5, offset: 2 }]) {
      const x = await inProcess.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': a.key }, payload: body });
      const y = await threaded.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': a.key }, payload: body });
      assert.equal(y.statusCode, 200, y.body);
      const strip = (b: Record<string, unknown>) => ({ ...b, timings: null, trajectory: null });
      assert.deepEqual(strip(y.json()), strip(x.json()), JSON.stringify(body));
      assert.ok((y.json().hits as unknown[]).length > 0);
    }
  });
});
