// Issue 12, "one account can stall everyone within its rate limit": every query has a work budget
// (distinct terms, postings) refused with 422 before any work or charge, one account has a bounded
// number of searches in flight (429), and a storm of expensive queries from one account leaves
// another account's searches answered within a bounded time.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { ceiling, waitFor } from '../helpers/wait.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { FairScheduler } from '../../src/search/work-budget.js';
import { AppError } from '../../src/domain/errors.js';

/** A deterministic vocabulary of 1,000 made-up words. */
const VOCAB = Array.from({ length: 1000 }, (_, i) => `w${i.toString(36)}x${(i * 7919) % 1000}`);
function words(n: number, seed: number): string {
  let x = seed;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(VOCAB[x % VOCAB.length]!);
  }
  return out.join(' ');
}

describe('search work budget', () => {
  let app: TestApp;
  let acct: { id: number; key: string };
  before(async () => {
    app = await testApp({ limits: { jsonBodyBytes: 1024 * 1024, requestTimeoutMs: 120_000, uploadBytes: 100 * 1024 * 1024, uploadPages: 2000, queryMaxTerms: 64, queryMaxPostings: 1000, queryMaxResultTerms: 1000, searchConcurrency: 2, shutdownGraceMs: 10_000 } });
    acct = await app.account({ credits: 100_000 });
    await seed(app, [
      ...Array.from({ length: 600 }, (_, i) => doc(`a${i}`, { title: `alpha study ${i}`, abstract: 'Alpha and beta.' })),
      doc('rare', { title: 'A gamma ray note', abstract: 'Gamma.' }),
    ]);
    await app.indexes!.catchUp();
  });
  after(() => app.dispose());

  const search = async (body: Record<string, unknown>) => {
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': acct.key }, payload: body });
    return { status: res.statusCode, body: res.json(), headers: res.headers };
  };

  test('a query with more distinct terms than the budget is refused with 422 naming the budget; nothing charged', async () => {
    const before = await app.billing.balance(acct.id);
    const r = await search({ query: words(200, 1), limit: 10 });
    assert.equal(r.status, 422);
    assert.equal(r.body.detail.code, 'validation_failed');
    assert.equal(r.body.detail.budget, 'terms');
    assert.equal(r.body.detail.limit, 64);
    assert.ok(r.body.detail.value > 64);
    assert.match(r.body.detail.message ?? r.body.message ?? JSON.stringify(r.body), /distinct terms/);
    assert.ok(r.headers['x-request-id']);
    assert.equal(await app.billing.balance(acct.id), before, 'a refused query costs nothing');
  });

  test('many results of a long query is refused with 422 (results x terms); fewer results of it pass', async () => {
    const r = await search({ query: 'alpha study note paper', limit: 300 });
    assert.equal(r.status, 422);
    assert.equal(r.body.detail.budget, 'result_terms');
    assert.equal(r.body.detail.limit, 1000);
    assert.match(r.body.detail.message ?? JSON.stringify(r.body), /fewer results/);
    const ok = await search({ query: 'alpha study note paper', limit: 20 });
    assert.equal(ok.status, 422, 'then the postings budget (alpha, study: 1200 postings) applies');
    assert.equal(ok.body.detail.budget, 'postings');
  });

  test('a ranking stage counts its pool (ranking.candidateDepth, 100) as results: refused with the pool named; rrf passes', async () => {
    // 4 terms x 100 pool = 400 <= 1000 passes; a 12-term query x 100 = 1200 is over, though its page is 10
    const long = 'gamma ray note study paper one two three four five six seven';
    const r = await search({ query: long, limit: 10, l1: { formula: 'rrf' } });
    assert.equal(r.status, 422);
    assert.equal(r.body.detail.budget, 'result_terms');
    assert.match(r.body.detail.message, /ranking pool of 100 candidates/);
    const ok = await search({ query: long, limit: 10 });
    assert.notEqual(ok.body.detail?.budget, 'result_terms', 'without a stage the page alone counts');
  });

  test('a query whose terms have more postings than the budget is refused with 422; the same words alone pass', async () => {
    const before = await app.billing.balance(acct.id);
    const r = await search({ query: 'alpha beta', limit: 10 });
    assert.equal(r.status, 422);
    assert.equal(r.body.detail.budget, 'postings');
    assert.equal(r.body.detail.limit, 1000);
    assert.ok(r.body.detail.value > 1000);
    assert.equal(await app.billing.balance(acct.id), before);
    const ok = await search({ query: 'alpha', limit: 10 });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.hits.length, 10);
    const rare = await search({ query: 'gamma', limit: 10 });
    assert.equal(rare.status, 200);
    assert.equal(rare.body.hits[0].id, 'rare');
  });

  test('fair turns: at most `slots` run, waiting searches are served round-robin across accounts, 429 beyond an account\'s limit', async () => {
    const f = new FairScheduler(1, 3);
    const order: string[] = [];
    const first = await f.enter(1); // runs at once
    const waits = [
      f.enter(1).then((r) => (order.push('a2'), r)),
      f.enter(1).then((r) => (order.push('a3'), r)),
      f.enter(2).then((r) => (order.push('b1'), r)),
    ];
    await assert.rejects(f.enter(1), (e: unknown) => e instanceof AppError && e.code === 'rate_limited' && e.headers['Retry-After'] === '1');
    assert.deepEqual(f.stats, { running: 1, waiting: 3 });
    first();
    first(); // releasing twice frees one turn only
    await new Promise((r) => setImmediate(r));
    // Weighted fair queue (ADR 0212): the first search charged account 1's share, so account 2's goes
    // before account 1's next ones, then they alternate (equal costs).
    assert.deepEqual(order, ['b1'], 'the other account goes before the first account\'s next search');
    (await waits[2]!)();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, ['b1', 'a2']);
    (await waits[0]!)();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, ['b1', 'a2', 'a3']);
    (await waits[1]!)();
    assert.deepEqual(f.stats, { running: 0, waiting: 0 });
  });

  test('a ticket holds a slot only for its turn: the account\'s place lasts until it leaves', async () => {
    const f = new FairScheduler(1, 2);
    const a = f.admit(1);
    const b = f.admit(1);
    assert.throws(() => f.admit(1), (e: unknown) => e instanceof AppError && e.code === 'rate_limited', 'two searches in progress (none in a turn yet) fill the account\'s limit');
    await a.turn();
    let bRunning = false;
    const bTurn = b.turn().then(() => (bRunning = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(bRunning, false, 'one slot: b waits while a works');
    a.endTurn(); // a's work is done; it still awaits its charge
    await bTurn;
    assert.equal(bRunning, true, 'b runs while a is still in progress');
    assert.throws(() => f.admit(1), (e: unknown) => e instanceof AppError && e.code === 'rate_limited', 'a still counts against the account until it leaves');
    a.leave();
    a.leave(); // leaving twice frees one place only
    const c = f.admit(1);
    b.leave(); // leaving gives back the slot b held
    await c.turn();
    assert.deepEqual(f.stats, { running: 1, waiting: 0 });
    c.leave();
    assert.deepEqual(f.stats, { running: 0, waiting: 0 });
    await assert.rejects(c.turn(), /one turn/);
  });
});

describe('fairness: an expensive-query storm from one account', () => {
  let app: TestApp;
  let port: number;
  let attacker: { id: number; key: string };
  let victim: { id: number; key: string };
  before(async () => {
    // Default budgets (docs/operations.md); rate limits high enough that only the budgets act.
    app = await testApp({ rateLimits: { search: { capacity: 1_000_000, refillPerSecond: 1_000_000 } } as never });
    attacker = await app.account({ credits: 10_000_000 });
    victim = await app.account({ credits: 10_000_000 });
    await seed(app, Array.from({ length: 2000 }, (_, i) => doc(`d${i}`, { title: words(8, i + 1), abstract: words(40, i + 100_000) })));
    await app.indexes!.catchUp();
    await app.http.listen({ host: '127.0.0.1', port: 0 });
    port = (app.http.server.address() as { port: number }).port;
  });
  after(() => app.dispose());

  const post = (key: string, body: unknown) =>
    new Promise<{ status: number; ms: number }>((resolve, reject) => {
      const t = performance.now();
      const req = request({ port, method: 'POST', path: '/v2/search/', headers: { 'x-api-key': key, 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, ms: performance.now() - t }));
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });

  test("the other account's searches keep being answered, p99 bounded, while the storm is refused or queued", { timeout: ceiling(120_000) }, async (t) => {
    // Costs on this machine now (machines and their load differ): one of the attacker's allowed
    // queries alone, and the victim's search alone.
    let attackerAlone = 0;
    for (let i = 0, ok = 0; ok < 3 && i < 50; i++) {
      const r = await post(attacker.key, { query: words(6, i), limit: 500 });
      if (r.status !== 200) continue; // over the results x terms budget: not an allowed query
      attackerAlone = Math.max(attackerAlone, r.ms);
      ok++;
    }
    assert.ok(attackerAlone > 0, 'some 6-word, 500-result queries are within the budget');
    const alone: number[] = [];
    for (let i = 0; i < 10; i++) alone.push((await post(victim.key, { query: words(3, 800_000 + i), limit: 10 })).ms);
    alone.sort((a, b) => a - b);
    const victimAlone = alone[5]!;
    let stop = false;
    const attackerStatuses = new Map<number, number>();
    // 16 KiB queries of random words with limit 500 (the storm: refused by the term budget),
    // 60-word queries with limit 500 (refused by the results x terms budget) and 6-word queries with
    // limit 500 (within every budget: they run, taking turns), from 12 connections at once.
    const storm = Array.from({ length: 12 }, async (_, k) => {
      let i = 0;
      while (!stop) {
        const big = k % 2 === 0;
        const q = big ? words(2300, k * 1000 + i).slice(0, 16_000) : words(k % 4 === 1 ? 60 : 6, k * 1000 + i);
        const r = await post(attacker.key, { query: q, limit: 500 });
        attackerStatuses.set(r.status, (attackerStatuses.get(r.status) ?? 0) + 1);
        i++;
      }
    });
    // the storm is on: every connection has had an answer
    await waitFor('the storm is answered', () => [...attackerStatuses.values()].reduce((a, b) => a + b, 0) >= 12);
    const times: number[] = [];
    for (let i = 0; i < 60; i++) {
      const r = await post(victim.key, { query: words(3, 500 + i), limit: 10 });
      assert.equal(r.status, 200);
      times.push(r.ms);
    }
    stop = true;
    await Promise.all(storm);
    times.sort((a, b) => a - b);
    const p99 = times[Math.floor(times.length * 0.99)]!;
    // The budget engaged: the 16 KiB queries were refused (422) before any work; the ones within
    // budget ran (200) or, while the account had its limit of searches in flight, got 429.
    t.diagnostic(`attacker statuses ${JSON.stringify([...attackerStatuses])}; victim p50 ${times[30]!.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`);
    assert.ok((attackerStatuses.get(422) ?? 0) > 0, `statuses ${JSON.stringify([...attackerStatuses])}`);
    assert.ok((attackerStatuses.get(200) ?? 0) > 0, `statuses ${JSON.stringify([...attackerStatuses])}`);
    // With fair turns the victim waits for at most the two searches already running (plus the
    // refusals and responses being written around it): a few attacker queries' worth. Without them
    // it waits behind every queued one of the 12 connections (here, before the turns and budgets:
    // a p99 above 5 s). Relative to costs measured in this run, so a loaded machine scales both.
    const bound = 4 * attackerAlone + 10 * victimAlone + 250;
    t.diagnostic(`attacker query alone ${attackerAlone.toFixed(1)} ms, victim alone ${victimAlone.toFixed(1)} ms, bound ${bound.toFixed(0)} ms`);
    assert.ok(p99 < bound, `victim p99 ${p99.toFixed(0)} ms (median ${times[30]!.toFixed(0)} ms) under the storm; bound ${bound.toFixed(0)} ms`);
  });
});
