// CreditLedger.applyBatch (group commit, ADR 0136) and the GroupCommitLedger over each store: a batch
// gives every op the result it would have had alone, in order, and commits once; a failing op rolls
// the whole batch back (nothing written, the error marked `rolledBack`); the spendable balance never
// goes below zero under concurrent batches; the group-commit ledger resolves each call with its own
// result after its batch committed, falls back op by op when a batch rolls back, and flushes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GroupCommitLedger } from '../../src/billing/group-commit-ledger.js';
import { AppError } from '../../src/domain/errors.js';
import type { LedgerOp } from '../../src/ports/credit-ledger.js';
import type { Storage } from '../../src/ports/storage.js';
import type { StorageFactory } from '../helpers/storage.js';

async function account(s: Storage, email: string, credits: number): Promise<number> {
  const a = await s.accounts.create({ email });
  if (credits > 0) await s.ledger.credit(a.id, credits, 'topup', null, 1);
  return a.id;
}

async function assertBalanced(s: Storage, id: number, balance: number, held: number): Promise<void> {
  assert.equal(await s.ledger.held(id), held, 'held');
  assert.equal(await s.ledger.balance(id), balance, 'spendable balance');
  assert.equal(await s.ledger.entrySum(id), balance + held, 'the ledger sums to the posted balance');
}

export function ledgerBatchContract(label: string, open: StorageFactory): void {
  const it = (name: string, fn: (s: Storage) => Promise<void>) =>
    test(name, async () => {
      const fixture = await open();
      try {
        await fn(fixture.storage);
      } finally {
        await fixture.dispose();
      }
    });

  describe(`ledger batch contract: ${label}`, () => {
    it('applyBatch: each op gets its own result, in order, as if run alone', async (s) => {
      const a = await account(s, 'a@example.org', 100);
      const h1 = await s.ledger.hold(a, 30, 'search', 'r1', 'me', 10);
      const h2 = await s.ledger.hold(a, 50, 'search', 'r2', 'me', 10);
      assert.ok(h1.ok && h2.ok);
      const ops: LedgerOp[] = [
        { kind: 'hold', accountId: a, amount: 30, operation: 'search', reference: 'r3', owner: 'me', at: 11 }, // 20 left: refused
        { kind: 'extend', holdId: h1.holdId, extra: 10 }, // 10 left
        { kind: 'capture', holdId: h2.holdId, amount: 40, at: 12 }, // charges 40, frees 10: 20 left
        { kind: 'hold', accountId: a, amount: 15, operation: 'search', reference: 'r4', owner: 'me', at: 12 }, // 5 left
        { kind: 'release', holdId: h1.holdId }, // 45 left
        { kind: 'capture', holdId: h2.holdId, amount: 40, at: 13 }, // already captured: null
        { kind: 'extend', holdId: 987_654, extra: 1 }, // no such hold: null
        { kind: 'release', holdId: 987_654 }, // false
        { kind: 'capture', holdId: h1.holdId, amount: 0, at: 13 }, // released: null
      ];
      const r = await s.ledger.applyBatch(ops);
      assert.equal(r.length, ops.length);
      assert.deepEqual(r[0], { ok: false, balance: 20 });
      assert.deepEqual(r[1], { ok: true, holdId: h1.holdId, balance: 10 });
      assert.equal((r[2] as { balance: number }).balance, 20);
      assert.ok(Number.isSafeInteger((r[2] as { entryId: number }).entryId));
      const h4 = r[3] as { ok: true; holdId: number; balance: number };
      assert.equal(h4.ok, true);
      assert.equal(h4.balance, 5);
      assert.equal(r[4], true);
      assert.equal(r[5], null);
      assert.equal(r[6], null);
      assert.equal(r[7], false);
      assert.equal(r[8], null);
      await assertBalanced(s, a, 45, 15);
      const entries = await s.ledger.entries(a, 10);
      assert.deepEqual(entries.map((e) => [e.amount, e.operation, e.reference]), [[-40, 'search', 'r2'], [100, 'topup', null]]);
      assert.deepEqual(await s.ledger.applyBatch([]), []);
    });

    it('applyBatch: an op that throws rolls the whole batch back, marked rolledBack', async (s) => {
      const a = await account(s, 'a@example.org', 100);
      const h = await s.ledger.hold(a, 30, 'search', 'r1', 'me', 10);
      assert.ok(h.ok);
      const unknownAccount: LedgerOp[] = [
        { kind: 'capture', holdId: h.holdId, amount: 30, at: 11 },
        { kind: 'hold', accountId: a + 1000, amount: 5, operation: 'search', reference: 'x', owner: 'me', at: 11 },
      ];
      await assert.rejects(s.ledger.applyBatch(unknownAccount), (e: unknown) => e instanceof AppError && e.code === 'not_found' && (e as { rolledBack?: boolean }).rolledBack === true);
      await assertBalanced(s, a, 70, 30);
      const badAmount: LedgerOp[] = [
        { kind: 'capture', holdId: h.holdId, amount: 30, at: 11 },
        { kind: 'extend', holdId: h.holdId, extra: -1 },
      ];
      await assert.rejects(s.ledger.applyBatch(badAmount), (e: unknown) => e instanceof RangeError && (e as { rolledBack?: boolean }).rolledBack === true);
      await assertBalanced(s, a, 70, 30);
      // the hold is intact: it can still be captured once
      assert.equal((await s.ledger.capture(h.holdId, 30, 12))!.balance, 70);
      await assertBalanced(s, a, 70, 0);
    });

    it('applyBatch: concurrent batches of holds never overdraw; exactly the affordable ones are granted', async (s) => {
      const a = await account(s, 'a@example.org', 1000);
      const batches = Array.from({ length: 20 }, (_, b) =>
        s.ledger.applyBatch(Array.from({ length: 10 }, (_, i): LedgerOp => ({ kind: 'hold', accountId: a, amount: 7, operation: 'search', reference: `r${b}.${i}`, owner: 'me', at: 1 }))),
      );
      const results = (await Promise.all(batches)).flat() as { ok: boolean }[];
      assert.equal(results.filter((r) => r.ok).length, Math.floor(1000 / 7));
      await assertBalanced(s, a, 1000 % 7, 1000 - (1000 % 7));
    });

    it('group-commit ledger: concurrent holds, extensions and captures commit in batches with their own results', async (s) => {
      const ledger = new GroupCommitLedger(s.ledger, { maxBatch: 64, windowMs: 0 });
      const a = await account(s, 'a@example.org', 1500);
      // 120 requests: hold 10 (1,200: all granted), extend to 13 (300 left: 100 of them), capture 13
      const requests = Array.from({ length: 120 }, async (_, i) => {
        const h = await ledger.hold(a, 10, 'search', `r${i}`, 'me', 1);
        if (!h.ok) return 'refused';
        const x = await ledger.extendHold(h.holdId, 3);
        if (!x || !x.ok) {
          assert.equal(await ledger.release(h.holdId), true);
          return 'short';
        }
        const c = await ledger.capture(h.holdId, 13, 2);
        assert.ok(c && c.entryId !== null && c.balance >= 0);
        return 'charged';
      });
      const outcome = await Promise.all(requests);
      const charged = outcome.filter((o) => o === 'charged').length;
      assert.equal(charged, 100);
      assert.equal(outcome.filter((o) => o === 'short').length, 20);
      await ledger.flush();
      await assertBalanced(s, a, 1500 - 13 * charged, 0);
      assert.equal((await s.ledger.entries(a, 1000)).filter((e) => e.operation === 'search').length, charged, 'one entry per charged request');
      assert.ok(ledger.stats.batches < ledger.stats.ops, `batched: ${ledger.stats.batches} commits for ${ledger.stats.ops} ops`);
    });

    it('group-commit ledger: a batch that rolls back is run op by op: each call gets its own result or error', async (s) => {
      const ledger = new GroupCommitLedger(s.ledger, { maxBatch: 64, windowMs: 0 });
      const a = await account(s, 'a@example.org', 100);
      const [good, bad, bad2, good2] = await Promise.allSettled([
        ledger.hold(a, 10, 'search', 'r1', 'me', 1),
        ledger.hold(a + 1000, 10, 'search', 'r2', 'me', 1),
        ledger.extendHold(1, -5),
        ledger.hold(a, 20, 'search', 'r3', 'me', 1),
      ]);
      assert.equal(good.status, 'fulfilled');
      assert.equal(good2.status, 'fulfilled');
      assert.ok(bad.status === 'rejected' && bad.reason instanceof AppError && bad.reason.code === 'not_found');
      assert.ok(bad2.status === 'rejected' && bad2.reason instanceof RangeError);
      assert.equal(ledger.stats.fallbacks, 1);
      await ledger.flush();
      await assertBalanced(s, a, 70, 30);
    });
  });
}
