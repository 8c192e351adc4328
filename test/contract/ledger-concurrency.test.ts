// Issue 2, section 4: 1,000 concurrent debits against one account never overdraw it, and the ledger
// always sums to the balance, on SQLite and on PostgreSQL.
//   SQLite: eight worker threads, each with its own connection to one database file (the locking
//   that matters is SQLite's file locking between connections, not the event loop of one thread).
//   PostgreSQL: two pools (two "service instances") with ten connections each, 1,000 debits in flight.
// Every debit costs 7 and the account starts with 7 * 600 + 3 credits, so exactly 600 debits can
// succeed whatever the interleaving, 400 must be refused, and 3 credits remain.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import type { Storage } from '../../src/ports/storage.js';
import { databaseUrl, openTempPostgres, openTempSqlite, postgresSkip } from '../helpers/storage.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import type { DebitOutcome, DebitWorkerInput } from './ledger-debit-worker.js';

const DEBITS = 1_000;
const AMOUNT = 7;
const EXPECTED_OK = 600;
const LEFT_OVER = 3;
const START = AMOUNT * EXPECTED_OK + LEFT_OVER;

/** Checks the account after the run: exact counts, no overdraft, no lost update, entries = balance. */
async function assertLedger(storage: Storage, accountId: number, outcomes: readonly DebitOutcome[], start: number): Promise<void> {
  const ok = outcomes.filter((o) => o.ok);
  const balance = await storage.ledger.balance(accountId);
  assert.equal(balance, start - ok.reduce((sum, o) => sum + o.amount, 0), 'balance = start - successful debits');
  assert.ok(balance >= 0);
  assert.equal(await storage.ledger.entrySum(accountId), balance, 'the ledger sums to the balance');
  const entries = await storage.ledger.entries(accountId, 10 * DEBITS);
  const debits = entries.filter((e) => e.amount < 0);
  assert.equal(debits.length, ok.length, 'one entry per successful debit, none for refused ones');
  assert.ok(entries.every((e) => e.balanceAfter >= 0), 'no entry shows an overdraft');
  // Each debit saw the balance the previous one left: the balances after are all distinct.
  assert.equal(new Set(debits.map((e) => e.balanceAfter)).size, debits.length, 'no two debits read the same balance');
  // The balance only goes down during the run, so every refused debit asked for more than what is left.
  for (const o of outcomes) if (!o.ok) assert.ok(o.amount > balance, `a debit of ${o.amount} was refused with ${balance} left`);
}

function runWorker(input: DebitWorkerInput): Promise<DebitOutcome[]> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./ledger-debit-worker.js', import.meta.url), { workerData: input });
    let result: DebitOutcome[] | undefined;
    w.once('message', (m: DebitOutcome[]) => (result = m));
    w.once('error', reject);
    w.once('exit', (code) => (code === 0 && result ? resolve(result) : reject(new Error(`debit worker exited with ${code}`))));
  });
}

/** Runs `amounts` split over `threads` worker threads, all released at once. */
async function debitFromThreads(path: string, accountId: number, amounts: readonly number[], threads: number): Promise<DebitOutcome[]> {
  const gate = new SharedArrayBuffer(8);
  const flags = new Int32Array(gate);
  const per = Math.ceil(amounts.length / threads);
  const runs = Array.from({ length: threads }, (_, worker) =>
    runWorker({ path, accountId, amounts: amounts.slice(worker * per, (worker + 1) * per), gate, worker }),
  );
  // Release the workers together once all have opened the database.
  while (Atomics.load(flags, 1) < threads) await new Promise((r) => setTimeout(r, 5));
  Atomics.store(flags, 0, 1);
  Atomics.notify(flags, 0);
  return (await Promise.all(runs)).flat();
}

/** Amounts 1..9 from a fixed linear congruential sequence (reproducible, no Math.random). */
function mixedAmounts(n: number): number[] {
  let x = 12345;
  return Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return 1 + (x % 9);
  });
}

describe('concurrent debits: SQLite, eight threads on one database file', () => {
  test(`${DEBITS} debits of ${AMOUNT} against ${START} credits: exactly ${EXPECTED_OK} succeed`, async () => {
    const f = await openTempSqlite();
    try {
      const a = await f.storage.accounts.create({ email: 'busy@example.org' });
      await f.storage.ledger.credit(a.id, START, 'topup', null, 1);
      const outcomes = await debitFromThreads(f.path, a.id, Array(DEBITS).fill(AMOUNT), 8);
      assert.equal(outcomes.length, DEBITS);
      assert.equal(outcomes.filter((o) => o.ok).length, EXPECTED_OK);
      assert.equal(await f.storage.ledger.balance(a.id), LEFT_OVER);
      await assertLedger(f.storage, a.id, outcomes, START);
    } finally {
      await f.dispose();
    }
  });

  test(`${DEBITS} debits of mixed amounts never overdraw`, async () => {
    const f = await openTempSqlite();
    try {
      const a = await f.storage.accounts.create({ email: 'mixed@example.org' });
      await f.storage.ledger.credit(a.id, 2_500, 'topup', null, 1);
      const outcomes = await debitFromThreads(f.path, a.id, mixedAmounts(DEBITS), 8);
      assert.ok(outcomes.some((o) => !o.ok), 'the budget runs out');
      await assertLedger(f.storage, a.id, outcomes, 2_500);
    } finally {
      await f.dispose();
    }
  });
});

if (!databaseUrl) {
  test('concurrent debits: PostgreSQL', { skip: postgresSkip('PostgreSQL concurrent-debit test') }, () => {});
} else {
  const url = databaseUrl;
  describe('concurrent debits: PostgreSQL, two pools of ten connections', () => {
    /** Fires every debit at once, alternating between two storages on one schema. */
    async function debitFromPools(amounts: readonly number[], start: number) {
      const f = await openTempPostgres(url, { max: 10 });
      const second = await openPostgresStorage(f.url, { max: 10 });
      try {
        const a = await f.storage.accounts.create({ email: 'busy@example.org' });
        await f.storage.ledger.credit(a.id, start, 'topup', null, 1);
        const stores = [f.storage, second];
        const outcomes = await Promise.all(
          amounts.map(async (amount, i) => ({ amount, ok: (await stores[i % 2]!.ledger.debit(a.id, amount, 'search', `req-${i}`, 1_700_000_000)).ok })),
        );
        await assertLedger(f.storage, a.id, outcomes, start);
        return { outcomes, balance: await f.storage.ledger.balance(a.id) };
      } finally {
        await second.close();
        await f.dispose();
      }
    }

    test(`${DEBITS} debits of ${AMOUNT} against ${START} credits: exactly ${EXPECTED_OK} succeed`, async () => {
      const { outcomes, balance } = await debitFromPools(Array(DEBITS).fill(AMOUNT), START);
      assert.equal(outcomes.filter((o) => o.ok).length, EXPECTED_OK);
      assert.equal(balance, LEFT_OVER);
    });

    test(`${DEBITS} debits of mixed amounts never overdraw`, async () => {
      const { outcomes } = await debitFromPools(mixedAmounts(DEBITS), 2_500);
      assert.ok(outcomes.some((o) => !o.ok), 'the budget runs out');
    });
  });
}
