// Issue 25, "fairness by cost, not count": an account flooding expensive searches within its own
// concurrency limit raised another account's p50 20x. Waiting searches are ordered as a weighted fair
// queue (start-time fair queuing over each search's work estimate): an expensive search charges its
// account's virtual time by its cost, so a cheap search of another account goes before the flooder's
// next expensive one, and several cheap ones go before it while the costs say so. While several accounts
// have searches in progress, none starts more than its share of the slots. Asserted by condition
// (dispatch order, shares), not timing; bench/search/fairness-cost.bench.ts measures the p50.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ACTIVE_WINDOW_MS, FairScheduler, responseWork, workEstimate } from '../../src/search/work-budget.js';

const tick = () => new Promise((r) => setImmediate(r));

test('a cheap search of another account goes before every queued expensive one (WFQ by cost, not round-robin)', async () => {
  const f = new FairScheduler(1, 4);
  const order: string[] = [];
  const running = f.admit(1, 1000);
  await running.turn();
  const tickets: Record<string, ReturnType<FairScheduler['admit']>> = {};
  const wait = (name: string, account: number, cost: number) => {
    const t = (tickets[name] = f.admit(account, cost));
    return t.turn().then(() => order.push(name));
  };
  // The flooder queues three expensive searches, then another account three cheap ones.
  void wait('A2', 1, 1000);
  void wait('A3', 1, 1000);
  void wait('A4', 1, 1000);
  await tick();
  void wait('B1', 2, 10);
  void wait('B2', 2, 10);
  void wait('B3', 2, 10);
  await tick();
  const step = async () => {
    const name = order.at(-1);
    (name ? tickets[name]! : running).leave();
    await tick();
  };
  for (let i = 0; i < 6; i++) await step();
  // Round-robin by count would give A2, B1, A3, B2, A4, B3: B would wait for expensive searches. The
  // flooder's running search already charged its virtual time by 1000; B's cheap ones start at 0.
  assert.ok(order.indexOf('B3') < order.indexOf('A2'), `every cheap search before the flooder's next expensive one: ${order.join(' ')}`);
  assert.deepEqual(order, ['B1', 'B2', 'B3', 'A2', 'A3', 'A4']);
  tickets.A4!.leave();
  assert.deepEqual(f.stats, { running: 0, waiting: 0 });
});

test('equal costs still alternate (the weighted queue is round-robin when costs are equal)', async () => {
  const f = new FairScheduler(1, 3);
  const order: string[] = [];
  const first = f.admit(1, 5);
  await first.turn();
  const t: ReturnType<FairScheduler['admit']>[] = [];
  for (const [name, acct] of [['a2', 1], ['a3', 1], ['b1', 2], ['b2', 2]] as const) {
    const x = f.admit(acct, 5);
    t.push(x);
    void x.turn().then(() => order.push(name));
  }
  await tick();
  first.leave();
  for (let i = 0; i < 4; i++) {
    await tick();
    t[['a2', 'a3', 'b1', 'b2'].indexOf(order.at(-1)!)]!.leave();
  }
  await tick();
  // a's first search charged a's share: b1 starts at a's virtual time 0, then the two alternate.
  assert.deepEqual(order, ['b1', 'a2', 'b2', 'a3']);
});

test('while another account searches, one account starts no more than its share of the slots (room on every thread)', async () => {
  let now = 0;
  const f = new FairScheduler(4, 4, () => now);
  // Alone, the flooder may use every slot (work-conserving).
  const a = [f.admit(1, 1000), f.admit(1, 1000), f.admit(1, 1000), f.admit(1, 1000)];
  await Promise.all(a.map((x) => x.turn()));
  assert.deepEqual(f.stats, { running: 4, waiting: 0 });
  // Another account arrives: its search waits for a slot, and then takes it.
  const b1 = f.admit(2, 10);
  let b1Running = false;
  const b1Turn = b1.turn().then(() => (b1Running = true));
  a[0]!.leave();
  await b1Turn;
  assert.equal(b1Running, true);
  // Two accounts: each may start floor(4 / (2 x 2)) = 1 at once; the flooder's next waits while it holds more.
  const a5 = f.admit(1, 1000);
  let a5Running = false;
  void a5.turn().then(() => (a5Running = true));
  a[1]!.leave();
  a[2]!.leave();
  await tick();
  assert.equal(a5Running, false, 'A still holds one running search, its share while B searches');
  assert.equal(f.stats.running, 2);
  // B's search ends; B is still counted for ACTIVE_WINDOW_MS (its next search is on its way).
  b1.leave();
  await tick();
  assert.equal(a5Running, false);
  const b2 = f.admit(2, 10);
  await b2.turn(); // B's next search finds a slot at once
  b2.leave();
  // B stays away: after the window the flooder has the slots back.
  now += ACTIVE_WINDOW_MS + 1;
  a[3]!.leave();
  await tick();
  assert.equal(a5Running, true, 'with B gone, A gets the slots back');
  a5.leave();
  assert.deepEqual(f.stats, { running: 0, waiting: 0 });
});

test('the work estimate grows with postings and with results x terms', () => {
  assert.ok(workEstimate({ postings: 1_000_000, resultTerms: 10 }) > workEstimate({ postings: 1000, resultTerms: 10 }));
  assert.ok(workEstimate({ postings: 1000, resultTerms: 9000 }) > workEstimate({ postings: 1000, resultTerms: 10 }));
  assert.ok(workEstimate({ postings: 0, resultTerms: 0 }) >= 1);
});

test('a search\'s response work charges its account\'s share (ADR 0305): another account goes first next time', async () => {
  // B has some debt (an earlier search of cost 500); A's searches are cheap (10) but answer large pages.
  const run = async (responseWork: number, when: 'before leaving' | 'after leaving' = 'before leaving') => {
    const f = new FairScheduler(1, 4);
    const b0 = f.admit(2, 500);
    await b0.turn();
    b0.leave();
    const a1 = f.admit(1, 10);
    await a1.turn();
    if (when === 'before leaving') a1.charge(responseWork);
    const order: string[] = [];
    // while A's search still holds the only slot, A and then B queue one more each
    const a2 = f.admit(1, 10);
    const b1 = f.admit(2, 10);
    const done = [a2.turn().then(() => order.push('a2')), b1.turn().then(() => order.push('b1'))];
    await tick();
    a1.leave();
    if (when === 'after leaving') a1.charge(responseWork);
    await tick();
    (order[0] === 'a2' ? a2 : b1).leave();
    await Promise.all(done);
    a2.leave();
    b1.leave();
    assert.deepEqual(f.stats, { running: 0, waiting: 0 });
    return order;
  };
  // without the response's work A is still ahead of B's debt
  assert.deepEqual(await run(0), ['a2', 'b1']);
  // A's response (1,000 units of main-thread work) moves A behind B
  assert.deepEqual(await run(1000), ['b1', 'a2']);
  // a charge that is not a positive number, or comes after the ticket left, changes nothing
  assert.deepEqual(await run(Number.NaN), ['a2', 'b1']);
  assert.deepEqual(await run(-1000), ['a2', 'b1']);
  assert.deepEqual(await run(1e9, 'after leaving'), ['a2', 'b1']);
});

test('response work is in proportion to the bytes (a 600 KiB page costs more than a search\'s fixed overhead)', () => {
  assert.equal(responseWork(0), 0);
  assert.equal(responseWork(4_000), 1_000);
  assert.equal(responseWork(8_000), 2 * responseWork(4_000));
  assert.ok(responseWork(600 * 1024) > workEstimate({ postings: 0, resultTerms: 0 }));
});
