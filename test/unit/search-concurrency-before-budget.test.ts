// ADR 0305 (issue 25, fairness at 16 connections): a flooder past its concurrency limit sends searches
// that are refused 429 and retried after Retry-After. The refusal used to come after the work budget's
// check (parsing the query, its terms' document frequencies; on a cluster a call to the shards), work
// the main thread did for every refused search. Now an account at its limit is refused before it.
// Asserted by which refusal comes, not timing: with the account's searches all in flight, a query the
// budget refuses (422) gets the concurrency refusal (429) instead, and the budget's parsing does not run.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { buildCore, type Core } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import type { IndexSet } from '../../src/search/index-set.js';
import { SearchService } from '../../src/search/search-service.js';
import { defaultSearchRequest, type SearchExecution } from '../../src/search/search-types.js';
import { AppError } from '../../src/domain/errors.js';
import { tempDir } from '../helpers/storage.js';

let tmp: ReturnType<typeof tempDir>;
let core: Core;
let indexes: IndexSet;
before(async () => {
  tmp = tempDir();
  core = await buildCore(loadConfig({}, { dataDir: tmp.dir, loadDemoCorpus: false, logLevel: 'silent' }), { logger: pino({ level: 'silent' }) });
  indexes = await core.openIndexes();
});
after(async () => {
  await core.close();
  tmp.remove();
});

const principal = (accountId: number) => ({ accountId, credential: 'api_key', credentialId: `k${accountId}`, scopes: [], clientId: null, audience: null }) as never;
const done = { rankingMode: 'documents', hits: [], totalHits: 0, hasNext: false, correctedQuery: null, embedMs: null, engineUs: 0, recordsUs: 0, snippetsUs: 0, queueUs: 0, traces: null, candidateRanking: null } as unknown as SearchExecution;

test('an account at its concurrency limit is refused (429) before the work budget is checked', async () => {
  let release!: () => void;
  const gate = new Promise<void>((ok) => (release = ok));
  let started = 0;
  // the searches in flight hold the executor until the gate opens
  const executor = { execute: async () => (started++, await gate, done) };
  let parses = 0;
  const counted = new Proxy(indexes, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (prop !== 'get') return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      return (name: never) => {
        const index = target.get(name);
        return new Proxy(index, {
          get(t, p, r) {
            const f = Reflect.get(t, p, r) as unknown;
            if (p === 'parse') return (...a: unknown[]) => (parses++, (f as (...x: unknown[]) => unknown).apply(t, a));
            return typeof f === 'function' ? (f as (...x: unknown[]) => unknown).bind(t) : f;
          },
        });
      };
    },
  });
  const service = new SearchService({
    indexes: counted,
    store: core.works,
    activity: { record: async () => undefined },
    billing: { reserve: async () => undefined, charge: async () => undefined } as never,
    prices: core.config.prices,
    clock: core.clock,
    secret: 's',
    report: () => undefined,
    executor: executor as never,
    budget: { maxTerms: 3, maxPostings: 5_000_000, maxResultTerms: 10_000, concurrency: 2, slots: 2 },
  });
  const overBudget = defaultSearchRequest({ query: '"alpha beta gamma delta epsilon"', mode: 'fulltext', limit: 10 });
  const refusal = async (accountId: number) => {
    try {
      await service.search(principal(accountId), overBudget, `r${accountId}`);
      return 'answered';
    } catch (e) {
      return e instanceof AppError ? `${e.code}${e.extra?.scope ? `:${String(e.extra.scope)}` : ''}` : String(e);
    }
  };
  // an account with room: the budget refuses the query (422)
  assert.equal(await refusal(1), 'validation_failed');
  // account 1 fills its two places with searches the executor holds
  const inFlight = [0, 1].map((i) => service.search(principal(1), defaultSearchRequest({ query: `word${i}`, mode: 'fulltext', limit: 10 }), `f${i}`));
  for (let i = 0; i < 1000 && started < 2; i++) await new Promise((r) => setImmediate(r));
  assert.equal(started, 2);
  const parsesBefore = parses;
  // at its limit: 429 for the concurrency, and the budget's parsing never ran for it
  assert.equal(await refusal(1), 'rate_limited:search_concurrency');
  assert.equal(parses, parsesBefore, 'the refused search was not parsed for the budget');
  // another account is unaffected: its over-budget query is still refused by the budget
  assert.equal(await refusal(2), 'validation_failed');
  release();
  await Promise.all(inFlight);
});
