// Inline searches (issue 29, ADR 0326): with search threads, a search cheap by its work estimate runs on
// the calling (main) thread when nothing else is searching, instead of paying the hand-off to a search
// thread and back. Asserted by where each search ran (a stand-in executor counts what it was sent), not
// by timing: a cheap search alone runs inline and its encoded hits are the bytes the threads' encoder
// makes of the same hits; a search over the bound, one while the executor has a search in flight, one
// while another search is in progress anywhere (its credit hold included; the fair turns of ADR
// 0212/0270 then keep ordering them), one while the executor paces (ADR 0244), and every search with the
// bound at 0, go to the executor.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { buildCore, type Core } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { wireHitEncoder } from '../../src/http/presenters/search.js';
import type { IndexSet } from '../../src/search/index-set.js';
import { SearchService } from '../../src/search/search-service.js';
import { defaultSearchRequest, type SearchExecution, type SearchRequest } from '../../src/search/search-types.js';
import { sampleDocument } from '../contract/sample-document.js';
import { tempDir } from '../helpers/storage.js';

const BASE = 'https://lectern.example';
let tmp: ReturnType<typeof tempDir>;
let core: Core;
let indexes: IndexSet;
before(async () => {
  tmp = tempDir();
  core = await buildCore(loadConfig({}, { dataDir: tmp.dir, loadDemoCorpus: false, logLevel: 'silent' }), { logger: pino({ level: 'silent' }) });
  const docs = Array.from({ length: 40 }, (_, i) =>
    sampleDocument(`D${i}`, { title: `groundwater ${i % 2 ? 'aquifer' : 'karst'} study ${i}`, abstract: `We measured groundwater recharge at site ${i}; "quoted" text, Ødegård, μ-CT.` }),
  );
  await core.storage.documents.upsertMany(docs, 1_700_000_000);
  indexes = await core.openIndexes();
});
after(async () => {
  await core.close();
  tmp.remove();
});

const principal = (accountId: number) => ({ accountId, credential: 'api_key', credentialId: `k${accountId}`, scopes: [], clientId: null, audience: null }) as never;

/** A stand-in search thread pool: runs a search with the in-process service (its hits encoded), counting them; `hold` keeps them in flight. */
class CountingExecutor {
  sent = 0;
  inflight = 0;
  pacing = false;
  hold: Promise<void> | null = null;
  constructor(private readonly here: SearchService) {}
  async execute(r: SearchRequest, nowMs: number, encodeHits = false): Promise<SearchExecution> {
    this.sent++;
    this.inflight++;
    try {
      if (this.hold) await this.hold;
      const ex = await this.here.execute(r, nowMs);
      return encodeHits ? { ...ex, hits: [], encodedHits: { bytes: wireHitEncoder(BASE)(ex.hits), ids: ex.hits.map((h) => h.id) } } : ex;
    } finally {
      this.inflight--;
    }
  }
}

function services(maxWork: number, reserve: (p: { accountId: number }) => Promise<void> = async () => undefined) {
  const deps = { indexes, store: core.works, workLinks: core.works, featureStore: core.storage.documents, activity: { record: async () => undefined }, billing: { reserve, charge: async () => undefined } as never, prices: core.config.prices, clock: core.clock, secret: 's', report: () => undefined };
  const here = new SearchService(deps);
  const executor = new CountingExecutor(here);
  const service = new SearchService({ ...deps, executor, budget: { maxTerms: 256, maxPostings: 5_000_000, maxResultTerms: 10_000, concurrency: 4, slots: 2 }, inline: { maxWork, encodeHits: wireHitEncoder(BASE) } });
  return { service, executor };
}

const cheap = defaultSearchRequest({ query: 'groundwater aquifer', mode: 'fulltext', limit: 10 });

test('a cheap search alone runs inline, with the same encoded hits as on a thread', async () => {
  const { service, executor } = services(1_000_000);
  const inline = await service.search(principal(1), cheap, 'r1', { encodeHits: true });
  assert.equal(executor.sent, 0, 'not sent to the executor');
  assert.equal(service.inlineSearches, 1);
  assert.ok(inline.encodedHits && inline.encodedHits.ids.length === 10);
  // the same search on the executor (bound 0): byte for byte the same hits
  const off = services(0);
  const threaded = await off.service.search(principal(1), cheap, 'r2', { encodeHits: true });
  assert.equal(off.executor.sent, 1);
  assert.equal(off.service.inlineSearches, 0);
  assert.deepEqual(inline.encodedHits.ids, threaded.encodedHits!.ids);
  assert.equal(Buffer.from(inline.encodedHits.bytes).toString('utf8'), Buffer.from(threaded.encodedHits!.bytes).toString('utf8'));
  // without encodeHits (MCP, conversations), the hits stay objects
  const objects = await service.search(principal(1), cheap, 'r3');
  assert.equal(objects.encodedHits, null);
  assert.equal(objects.hits.length, 10);
  assert.equal(service.inlineSearches, 2);
});

test('a search over the bound goes to the executor', async () => {
  const { service, executor } = services(1000);
  await service.search(principal(1), cheap, 'r1', { encodeHits: true });
  assert.equal(executor.sent, 1);
  assert.equal(service.inlineSearches, 0);
});

test('while a search is in flight on the executor, a cheap search goes there too; alone again, it runs inline', async () => {
  // the bound lets a page of 10 run inline but not a page of 100 (its per-hit work: results x words)
  const { service, executor } = services(5000);
  let release!: () => void;
  executor.hold = new Promise<void>((ok) => (release = ok));
  const long = service.search(principal(1), defaultSearchRequest({ query: 'groundwater aquifer', mode: 'fulltext', limit: 100 }), 'r1', { encodeHits: true });
  for (let i = 0; i < 1000 && executor.inflight === 0; i++) await new Promise((r) => setImmediate(r));
  assert.equal(executor.inflight, 1, 'the page of 100 is on the executor');
  // another account's cheap search: the executor is busy, so it is sent (and waits there) rather than run here
  const other = service.search(principal(2), cheap, 'r2', { encodeHits: true });
  for (let i = 0; i < 1000 && executor.sent < 2; i++) await new Promise((r) => setImmediate(r));
  assert.equal(executor.sent, 2);
  assert.equal(service.inlineSearches, 0);
  release();
  await Promise.all([long, other]);
  executor.hold = null;
  await service.search(principal(2), cheap, 'r3', { encodeHits: true });
  assert.equal(executor.sent, 2);
  assert.equal(service.inlineSearches, 1);
});

test('while the executor paces its searches (ADR 0244), none runs inline', async () => {
  const { service, executor } = services(1_000_000);
  executor.pacing = true;
  await service.search(principal(1), cheap, 'r1', { encodeHits: true });
  assert.equal(executor.sent, 1);
  executor.pacing = false;
  await service.search(principal(1), cheap, 'r2', { encodeHits: true });
  assert.equal(executor.sent, 1);
  assert.equal(service.inlineSearches, 1);
});

test('while another search is in its credit hold (admitted, before its turn), a cheap search goes to the executor', async () => {
  let release!: () => void;
  const gate = new Promise<void>((ok) => (release = ok));
  let holding = 0;
  // account 9's hold waits for the gate (a group commit in progress)
  const { service, executor } = services(1_000_000, async (p) => {
    if (p.accountId === 9) {
      holding++;
      await gate;
    }
  });
  const waiting = service.search(principal(9), cheap, 'r9', { encodeHits: true });
  for (let i = 0; i < 1000 && holding === 0; i++) await new Promise((r) => setImmediate(r));
  assert.equal(holding, 1);
  await service.search(principal(1), cheap, 'r1', { encodeHits: true });
  assert.equal(executor.sent, 1, 'not alone: sent to the executor');
  assert.equal(service.inlineSearches, 0);
  release();
  await waiting;
  // account 9's search, once its hold was written, was alone: inline
  assert.equal(service.inlineSearches, 1);
  assert.equal(executor.sent, 1);
});
