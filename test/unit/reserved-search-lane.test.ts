// Issue 25, fairness with the default configuration (ADR 0270): with one search thread (the default on
// two cores) another account's cheap search waited behind the flood's long search running on it,
// however fairly the turns were ordered (ADR 0212 gave 19x). The pool's reserved lane runs a light
// search (its account's only one in a turn) while every general thread is busy. Asserted by condition,
// not timing: the flood's searches block their thread until the test releases them, and the other
// account's search must be answered while the flood's search is still running and its queue has not
// drained. Before the reserved lane, that search would have waited for the release (the ceiling fails).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { SearchThreads, type Snapshot } from '../../src/search/search-threads.js';
import { FairScheduler } from '../../src/search/work-budget.js';
import type { SearchExecution, SearchRequest } from '../../src/search/search-types.js';

const dir = mkdtempSync(join(tmpdir(), 'lectern-lane-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const module = new URL('../../src/search/search-threads.js', import.meta.url).href;
// A stand-in search thread: a `flood` search holds its thread (synchronously, as a long evaluation
// does) until the gate opens; any other search answers at once with which thread ran it.
const entry = join(dir, 'gated.mjs');
writeFileSync(
  entry,
  `import { parentPort, workerData, threadId } from 'node:worker_threads';
  import { serveSearches } from ${JSON.stringify(module)};
  const gate = new Int32Array(workerData.gate);
  serveSearches(parentPort, { apply() {} }, async (r) => {
    if (r.query === 'flood') Atomics.wait(gate, 0, 0);
    return { hits: [], totalHits: threadId, queueUs: 0 };
  });`,
);
const empty = () => ({}) as Snapshot;
const req = (query: string) => ({ query }) as unknown as SearchRequest;
/** Waits for a condition with a generous ceiling (machines slow down 10x under load). */
async function until(what: string, cond: () => boolean, ceilingMs = 60_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ceilingMs) throw new Error(`not within ${ceilingMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The promise's value, or a failure after a generous ceiling (the gate is opened by `finally`). */
function within<T>(what: string, p: Promise<T>, ceilingMs = 60_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const ceiling = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`not within ${ceilingMs} ms: ${what}`)), ceilingMs)));
  return Promise.race([p, ceiling]).finally(() => clearTimeout(timer));
}

/** One search as SearchService runs it: the account's place, a fair turn, the executor, the turn given back. */
async function search(turns: FairScheduler, pool: SearchThreads, account: number, cost: number, query: string): Promise<SearchExecution> {
  const ticket = turns.admit(account, cost);
  try {
    await ticket.turn();
    const ex = await pool.execute(req(query), 0, false, ticket.light);
    ticket.endTurn();
    return ex;
  } finally {
    ticket.leave();
  }
}

test("with one search thread, another account's search is served while a flood's long search holds the thread and its queue waits", async () => {
  const gate = new Int32Array(new SharedArrayBuffer(4));
  const pool = new SearchThreads(pathToFileURL(entry), 1, { gate: gate.buffer }, empty, () => undefined);
  // the service's turns for one search thread: slots max(2, 2 x threads), concurrency 4
  const turns = new FairScheduler(2, 4);
  try {
    assert.equal(pool.size, 1);
    assert.equal(pool.reservedLanes, 1);
    // One account alone never takes the lane: its searches are not light while another of its own runs.
    const solo = await Promise.all(Array.from({ length: 4 }, () => search(turns, pool, 9, 10, 'solo')));
    assert.equal(new Set(solo.map((s) => s.totalHits)).size, 1, 'one account alone runs on the general thread only');
    assert.equal(pool.reservedServed, 0);
    // The flood: four expensive searches (its concurrency limit); the first holds the thread.
    let floodDone = 0;
    const flood = Array.from({ length: 4 }, () => search(turns, pool, 1, 1_000_000, 'flood').then((x) => (floodDone++, x)));
    await until('the flood holds the thread', () => pool.inflight === 1 && turns.stats.running >= 1);
    // Another account searches, sequentially, as a reader does.
    const victim: SearchExecution[] = [];
    for (let i = 0; i < 3; i++) victim.push(await within("the other account's search while the flood holds the thread", search(turns, pool, 2, 2_000, 'cheap')));
    assert.equal(floodDone, 0, "the other account's searches were answered before any of the flood's");
    assert.ok(turns.stats.waiting >= 2, `the flood's queue has not drained: ${JSON.stringify(turns.stats)}`);
    assert.equal(pool.reservedServed, 3);
    assert.notEqual(victim[0]!.totalHits, solo[0]!.totalHits, 'served by the reserved lane, not the general thread');
    // Release the flood: all of it is answered, on the general thread.
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
    const answers = await Promise.all(flood);
    assert.equal(floodDone, 4);
    assert.ok(answers.every((a) => a.totalHits === solo[0]!.totalHits), 'the flood never took the reserved lane');
    assert.deepEqual(turns.stats, { running: 0, waiting: 0 });
  } finally {
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
    await pool.close();
  }
});

test('without the reserved lane (reservedLane: false) the same search waits behind the flood: the lane is what serves it', async () => {
  const gate = new Int32Array(new SharedArrayBuffer(4));
  const pool = new SearchThreads(pathToFileURL(entry), 1, { gate: gate.buffer }, empty, () => undefined, { reservedLane: false });
  const turns = new FairScheduler(2, 4);
  try {
    assert.equal(pool.reservedLanes, 0);
    const flood = search(turns, pool, 1, 1_000_000, 'flood');
    await until('the flood holds the thread', () => pool.inflight === 1);
    let answered = false;
    const cheap = search(turns, pool, 2, 2_000, 'cheap').then(() => (answered = true));
    // the cheap search got its turn and was sent to the one thread, behind the flood's search
    await until('the cheap search is sent', () => pool.inflight === 2);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(answered, false, 'queued behind the flood on the one thread');
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
    await Promise.all([flood, cheap]);
    assert.equal(answered, true);
  } finally {
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
    await pool.close();
  }
});
