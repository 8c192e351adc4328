// CreditLedger.applyBatch (group commit, ADR 0136) and the GroupCommitLedger over each store: a batch
// gives every op the result it would have had alone, in order, and commits once; a failing op rolls
// the whole batch back (nothing written, the error marked `rolledBack`); the spendable balance never
// goes below zero under concurrent batches; the group-commit ledger resolves each call with its own
// result after its batch committed, falls back op by op when a batch rolls back, and flushes.
// drawFromHold and the standing holds of BillingService (ADR 0332) are checked over each store too.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BillingService, STANDING_HOLD_OPERATION } from '../../src/billing/billing-service.js';
import { GroupCommitLedger } from '../../src/billing/group-commit-ledger.js';
import type { Principal } from '../../src/domain/principal.js';
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
    it('applyBatch: a hold with upTo takes it when covered, else its amount, else is refused, as alone', async (s) => {
      const a = await account(s, 'a@example.org', 50);
      const hold = (amount: number, upTo: number, reference: string): LedgerOp => ({ kind: 'hold', accountId: a, amount, operation: 'search', reference, owner: 'me', at: 1, upTo });
      const outcomes = await s.ledger.applyBatch([hold(10, 20, 'r1'), hold(10, 20, 'r2'), hold(5, 20, 'r3'), hold(6, 20, 'r4'), hold(1, 0, 'bad'), { kind: 'hold', accountId: a + 1000, amount: 1, operation: 'search', reference: 'x', owner: 'me', at: 1, upTo: 2 }]);
      const r = outcomes.slice(0, 4).map((o) => (o.ok ? o.value : o.error)) as { ok: boolean; balance: number; held?: number }[];
      assert.deepEqual(r.map((x) => [x.ok, x.balance, x.held]), [[true, 30, 20], [true, 10, 20], [true, 5, 5], [false, 5, undefined]]);
      assert.ok(!outcomes[4]!.ok && outcomes[4]!.error instanceof RangeError);
      assert.ok(!outcomes[5]!.ok);
      await assertBalanced(s, a, 5, 45);
    });

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
      const outcomes = await s.ledger.applyBatch(ops);
      assert.ok(outcomes.every((o) => o.ok));
      const r = outcomes.map((o) => ('error' in o ? o.error : o.value));
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

    it('applyBatch: an op that fails (unknown account, bad amount) fails alone and writes nothing; the others commit', async (s) => {
      const a = await account(s, 'a@example.org', 100);
      const h = await s.ledger.hold(a, 30, 'search', 'r1', 'me', 10);
      assert.ok(h.ok);
      const out = await s.ledger.applyBatch([
        { kind: 'hold', accountId: a + 1000, amount: 5, operation: 'search', reference: "it's", owner: 'me', at: 11 },
        { kind: 'extend', holdId: h.holdId, extra: -1 },
        { kind: 'capture', holdId: h.holdId, amount: 1.5, at: 11 },
        { kind: 'capture', holdId: h.holdId, amount: 30, at: 11 },
        { kind: 'hold', accountId: a, amount: 0, operation: 'search', reference: null, owner: 'me', at: 11 },
      ]);
      assert.ok(!out[0]!.ok && out[0]!.error instanceof AppError && out[0]!.error.code === 'not_found');
      assert.ok(!out[1]!.ok && out[1]!.error instanceof RangeError);
      assert.ok(!out[2]!.ok && out[2]!.error instanceof RangeError);
      assert.ok(out[3]!.ok && (out[3]!.value as { entryId: number }).entryId > 0);
      assert.ok(!out[4]!.ok && out[4]!.error instanceof RangeError);
      await assertBalanced(s, a, 70, 0);
      assert.equal((await s.ledger.entries(a, 10)).length, 2, 'the top-up and the one capture');
    });

    it('applyBatch: strings are data, never SQL', async (s) => {
      const a = await account(s, 'a@example.org', 100);
      const ref = "x'); DELETE FROM ledger_entries; --";
      const [o] = await s.ledger.applyBatch([{ kind: 'hold', accountId: a, amount: 5, operation: "se'arch", reference: ref, owner: "o'wner", at: 1 }]);
      assert.ok(o!.ok);
      const hold = o!.value as { ok: true; holdId: number };
      const [c] = await s.ledger.applyBatch([{ kind: 'capture', holdId: hold.holdId, amount: 5, at: 2 }]);
      assert.ok(c!.ok);
      const [e] = await s.ledger.entries(a, 1);
      assert.equal(e!.reference, ref);
      assert.equal(e!.operation, "se'arch");
      await assertBalanced(s, a, 95, 0);
    });

    it('applyBatch: concurrent batches of holds never overdraw; exactly the affordable ones are granted', async (s) => {
      const a = await account(s, 'a@example.org', 1000);
      const batches = Array.from({ length: 20 }, (_, b) =>
        s.ledger.applyBatch(Array.from({ length: 10 }, (_, i): LedgerOp => ({ kind: 'hold', accountId: a, amount: 7, operation: 'search', reference: `r${b}.${i}`, owner: 'me', at: 1 }))),
      );
      const results = (await Promise.all(batches)).flat().map((o) => (o.ok ? (o.value as { ok: boolean }) : { ok: false }));
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

    it('group-commit ledger with 4 lanes: many accounts, concurrent batches, every request settled exactly, no deadlock', async (s) => {
      const ledger = new GroupCommitLedger(s.ledger, { maxBatch: 16, windowMs: 0, lanes: 4 });
      const accounts = await Promise.all([1, 2, 3, 4, 5].map((i) => account(s, `a${i}@example.org`, 10_000)));
      const requests = Array.from({ length: 300 }, async (_, i) => {
        const a = accounts[(i * 7) % accounts.length]!;
        const h = await ledger.hold(a, 10, 'search', `r${i}`, 'me', 1);
        assert.ok(h.ok);
        const x = await ledger.extendHold(h.holdId, 1 + (i % 5));
        assert.ok(x && x.ok);
        if (i % 4 === 0) assert.equal(await ledger.release(h.holdId), true);
        else assert.ok((await ledger.capture(h.holdId, 11 + (i % 5), 2))!.entryId !== null);
        return i % 4 === 0 ? 0 : 11 + (i % 5);
      });
      const charged = await Promise.all(requests);
      await ledger.flush();
      for (const [k, a] of accounts.entries()) {
        const mine = charged.filter((_, i) => (i * 7) % accounts.length === k).reduce((x, y) => x + y, 0);
        await assertBalanced(s, a, 10_000 - mine, 0);
      }
      assert.equal(ledger.stats.fallbacks, 0, 'no batch was refused (no deadlock between lanes)');
    });

    it('group-commit ledger: with no other request in progress an op is written at once, not queued', async (s) => {
      let others = false;
      const ledger = new GroupCommitLedger(s.ledger, { maxBatch: 64, windowMs: 0, othersActive: () => others });
      const a = await account(s, 'a@example.org', 100);
      const pending = ledger.hold(a, 10, 'search', 'r1', 'me', 1);
      // SQLite writes synchronously: written before the caller even awaits, the store already shows the
      // hold. (PostgreSQL's write is asynchronous: a read at this point may or may not see it, so only the
      // unqueued batch count below is asserted there.)
      if (s.kind === 'sqlite') assert.equal(await s.ledger.held(a), 10);
      const h = await pending;
      assert.ok(h.ok);
      assert.equal(await s.ledger.held(a), 10);
      assert.deepEqual(ledger.stats, { batches: 1, ops: 1, fallbacks: 0 }, 'a lone op is written alone, at once');
      others = true;
      const both = await Promise.all([ledger.extendHold(h.holdId, 2), ledger.hold(a, 5, 'search', 'r2', 'me', 1)]);
      assert.ok(both.every((x) => x?.ok));
      assert.deepEqual(ledger.stats, { batches: 2, ops: 3, fallbacks: 0 });
      await assertBalanced(s, a, 83, 17);
    });

    it('group-commit ledger: an op that fails in a batch rejects alone; the others resolve', async (s) => {
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
      assert.equal(ledger.stats.fallbacks, 0);
      await ledger.flush();
      await assertBalanced(s, a, 70, 30);
    });

    it('group-commit ledger: a batch rolled back as a whole is run op by op; one of unknown outcome fails every call', async (s) => {
      const a = await account(s, 'a@example.org', 100);
      let failWith: Error | null = Object.assign(new Error('deadlock detected'), { rolledBack: true });
      const applyBatch = async (ops: readonly LedgerOp[]) => {
        if (failWith) throw failWith;
        return s.ledger.applyBatch(ops);
      };
      const flaky = new Proxy(s.ledger, {
        get(target, prop) {
          if (prop === 'applyBatch') return applyBatch;
          const v = Reflect.get(target, prop) as unknown;
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
      const ledger = new GroupCommitLedger(flaky, { maxBatch: 64, windowMs: 0 });
      const first = await Promise.all([ledger.hold(a, 10, 'search', 'r1', 'me', 1), ledger.hold(a, 20, 'search', 'r2', 'me', 1)]);
      assert.ok(first.every((h) => h.ok), 'run again one by one');
      assert.equal(ledger.stats.fallbacks, 1);
      await assertBalanced(s, a, 70, 30);
      failWith = new Error('connection terminated unexpectedly');
      const second = await Promise.allSettled([ledger.hold(a, 1, 'search', 'r3', 'me', 1), ledger.hold(a, 2, 'search', 'r4', 'me', 1)]);
      assert.ok(second.every((r) => r.status === 'rejected' && r.reason === failWith), 'not retried: the outcome is unknown');
      await assertBalanced(s, a, 70, 30);
    });

    it('drawFromHold: a debit paid from a standing hold, held again when covered, else out of the hold; alone and in a batch', async (s) => {
      const a = await account(s, 'a@example.org', 100);
      const h = await s.ledger.hold(a, 40, 'requests', null, 'me', 1);
      assert.ok(h.ok);
      // covered: the hold keeps its 40, the posted balance drops by 15
      const r1 = await s.ledger.drawFromHold(h.holdId, 15, 'search', 'req-1', 2);
      assert.deepEqual(r1 && { balance: r1.balance, kept: r1.kept, held: r1.held }, { balance: 45, kept: true, held: 40 });
      await assertBalanced(s, a, 45, 40);
      const [e] = await s.ledger.entries(a, 1);
      assert.deepEqual([e!.amount, e!.balanceAfter, e!.operation, e!.reference, e!.id], [-15, 85, 'search', 'req-1', r1!.entryId]);
      // more than the hold has, or a hold that is gone: nothing written
      assert.equal(await s.ledger.drawFromHold(h.holdId, 41, 'search', 'req-x', 3), null);
      assert.equal(await s.ledger.drawFromHold(h.holdId + 999, 1, 'search', 'req-y', 3), null);
      await assert.rejects(s.ledger.drawFromHold(h.holdId, 0, 'search', 'req-z', 3), RangeError);
      await assertBalanced(s, a, 45, 40);
      // in a batch: the spendable 45 covers 30 (kept), then 20 more is not covered (15 left): the hold shrinks
      const out = await s.ledger.applyBatch([
        { kind: 'draw', holdId: h.holdId, amount: 30, operation: 'search', reference: 'req-2', at: 4 },
        { kind: 'draw', holdId: h.holdId, amount: 20, operation: 'search', reference: 'req-3', at: 4 },
        { kind: 'draw', holdId: h.holdId, amount: 21, operation: 'search', reference: 'req-4', at: 4 }, // the hold has 20 left: null
        { kind: 'draw', holdId: h.holdId, amount: -1, operation: 'search', reference: 'bad', at: 4 },
      ]);
      const v = out.slice(0, 3).map((o) => (o.ok ? o.value : o.error)) as ({ balance: number; kept: boolean; held: number } | null)[];
      assert.deepEqual(v.map((x) => x && [x.balance, x.kept, x.held]), [[15, true, 40], [15, false, 20], null]);
      assert.ok(!out[3]!.ok && out[3]!.error instanceof RangeError);
      // posted 100 - 15 - 30 - 20 = 35, held 20, never below zero
      await assertBalanced(s, a, 15, 20);
      // drawn whole while the spendable 15 does not cover it: the hold is gone (never an empty hold)
      const r2 = await s.ledger.drawFromHold(h.holdId, 20, 'search', 'req-5', 5);
      assert.deepEqual(r2 && { balance: r2.balance, kept: r2.kept, held: r2.held }, { balance: 15, kept: false, held: 0 });
      await assertBalanced(s, a, 15, 0);
      assert.equal(await s.ledger.release(h.holdId), false, 'no hold left');
      assert.equal(await s.ledger.drawFromHold(h.holdId, 1, 'search', 'req-6', 5), null);
      await assertBalanced(s, a, 15, 0);
    });

    it('drawFromHold with a settlement key is idempotent: applied again (alone, in a batch, after the hold is gone, as a debit) it charges once', async (s) => {
      const a = await account(s, 'a@example.org', 100);
      const h = await s.ledger.hold(a, 40, 'requests', null, 'me', 1);
      assert.ok(h.ok);
      const r1 = await s.ledger.drawFromHold(h.holdId, 15, 'search', 'req-1', 2, 'key-1');
      assert.deepEqual(r1 && [r1.balance, r1.kept, r1.held, r1.replayed], [45, true, 40, undefined]);
      // the same key again: the earlier outcome, nothing written
      const again = await s.ledger.drawFromHold(h.holdId, 15, 'search', 'req-1', 3, 'key-1');
      assert.deepEqual(again && [again.balance, again.entryId, again.kept, again.held, again.replayed], [45, r1!.entryId, true, 40, true]);
      await assertBalanced(s, a, 45, 40);
      // in a batch, next to a new draw: the new one charges, the repeated one does not
      const out = await s.ledger.applyBatch([
        { kind: 'draw', holdId: h.holdId, amount: 15, operation: 'search', reference: 'req-1', at: 4, settlement: 'key-1' },
        { kind: 'draw', holdId: h.holdId, amount: 35, operation: 'search', reference: 'req-2', at: 4, settlement: 'key-2' }, // 45 covers 35: kept
        { kind: 'draw', holdId: h.holdId, amount: 35, operation: 'search', reference: 'req-2', at: 4, settlement: 'key-2' },
      ]);
      const v = out.map((o) => (o.ok ? o.value : o.error)) as ({ balance: number; entryId: number; kept: boolean; held: number; replayed?: boolean } | null)[];
      assert.deepEqual(v.map((x) => x && [x.balance, x.entryId === r1!.entryId, x.kept, x.held, x.replayed ?? false]), [[45, true, true, 40, true], [10, false, true, 40, false], [10, false, true, 40, true]]);
      assert.equal(v[1]!.entryId, v[2]!.entryId);
      await assertBalanced(s, a, 10, 40);
      // drawn whole when not covered (the hold is gone), then repeated: the earlier outcome (not kept, nothing held), not null
      const whole = await s.ledger.drawFromHold(h.holdId, 40, 'search', 'req-3', 5, 'key-3');
      assert.deepEqual(whole && [whole.balance, whole.kept, whole.held], [10, false, 0]);
      const wholeAgain = await s.ledger.drawFromHold(h.holdId, 40, 'search', 'req-3', 6, 'key-3');
      assert.deepEqual(wholeAgain && [wholeAgain.balance, wholeAgain.entryId, wholeAgain.kept, wholeAgain.held, wholeAgain.replayed], [10, whole!.entryId, false, 0, true]);
      await assertBalanced(s, a, 10, 0);
      // the swept fallback: a debit with the key of a draw that committed finds it, writes nothing
      assert.deepEqual(await s.ledger.debit(a, 40, 'search', 'req-3', 7, 'key-3'), { ok: true, balance: 10, entryId: whole!.entryId });
      // a keyed debit is idempotent too
      const d = await s.ledger.debit(a, 4, 'search', 'req-4', 8, 'key-4');
      assert.deepEqual(await s.ledger.debit(a, 4, 'search', 'req-4', 9, 'key-4'), d);
      await assertBalanced(s, a, 6, 0);
      assert.deepEqual((await s.ledger.entries(a, 10)).filter((e) => e.operation === 'search').map((e) => [e.amount, e.reference]), [[-4, 'req-4'], [-40, 'req-3'], [-35, 'req-2'], [-15, 'req-1']]);
    });

    for (const when of ['after it committed', 'before it reached the store'] as const)
      it(`standing holds: a draw whose outcome is unknown (the connection lost ${when}) is retried and charged exactly once`, async (s) => {
        const a = await account(s, 'a@example.org', 30);
        const who: Principal = { accountId: a, credential: 'api_key', credentialId: 'k', scopes: ['search'], clientId: null, isAgent: false, audience: null };
        // the first attempt of every draw fails the way a lost connection does: no SQLSTATE, outcome unknown
        const failed = new Set<number>();
        const lost = () => Object.assign(new Error('Connection terminated unexpectedly'), { code: undefined });
        const flaky = new Proxy(s.ledger, {
          get(target, prop) {
            if (prop === 'drawFromHold')
              return async (...args: Parameters<typeof target.drawFromHold>) => {
                const n = args[1];
                if (failed.has(n)) return target.drawFromHold(...args);
                failed.add(n);
                if (when === 'after it committed') await target.drawFromHold(...args);
                throw lost();
              };
            const v = Reflect.get(target, prop) as unknown;
            return typeof v === 'function' ? v.bind(target) : v;
          },
        });
        const reported: unknown[] = [];
        const billing = new BillingService(flaky, { nowMs: () => 1_000_000 }, { standingHolds: true, standingHoldIdleMs: 60_000, report: (e) => reported.push(e) });
        const request = async (price: number) => {
          const scope = billing.openScope();
          await billing.runInScope(scope, async () => {
            await billing.reserve(who, price, 'search', `r${price}`);
            await billing.charge(who, price, 'search', `r${price}`);
          });
          await billing.settle(scope, true);
        };
        await request(7); // covered: held again (kept)
        await request(9); // covered: held again
        await billing.idle();
        assert.deepEqual(reported, []);
        assert.deepEqual((await s.ledger.entries(a, 10)).filter((e) => e.operation === 'search').map((e) => -e.amount), [9, 7], 'each delivered request charged once');
        await assertBalanced(s, a, 14, 0);
        // the whole balance in one request: drawn whole, not covered again, the row gone; its repeat says so
        await request(14);
        await billing.idle();
        assert.deepEqual(reported, []);
        assert.deepEqual((await s.ledger.entries(a, 10)).filter((e) => e.operation === 'search').map((e) => -e.amount), [14, 9, 7]);
        await assertBalanced(s, a, 0, 0);
      });

    it('holds of their own (ADR 0078): a capture whose outcome is unknown (lost after it committed) is retried and charged exactly once', async (s) => {
      const a = await account(s, 'a@example.org', 30);
      const who: Principal = { accountId: a, credential: 'api_key', credentialId: 'k', scopes: ['search'], clientId: null, isAgent: false, audience: null };
      let failNext = true;
      const flaky = new Proxy(s.ledger, {
        get(target, prop) {
          if (prop === 'capture')
            return async (...args: Parameters<typeof target.capture>) => {
              const r = await target.capture(...args);
              if (failNext) {
                failNext = false;
                throw Object.assign(new Error('Connection terminated unexpectedly'), { code: undefined });
              }
              return r;
            };
          const v = Reflect.get(target, prop) as unknown;
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
      const billing = new BillingService(flaky, { nowMs: () => 1_000_000 }, { standingHolds: false });
      for (const price of [7, 9]) {
        const scope = billing.openScope();
        await billing.runInScope(scope, async () => {
          await billing.reserve(who, price, 'search', `r${price}`);
          await billing.charge(who, price, 'search', `r${price}`);
        });
        await billing.settle(scope, true);
      }
      await billing.idle();
      assert.equal(failNext, false, 'the first capture failed');
      // the retry found the hold gone and debited with the capture's key: the capture's entry, no second charge
      assert.deepEqual((await s.ledger.entries(a, 10)).filter((e) => e.operation === 'search').map((e) => -e.amount), [9, 7]);
      await assertBalanced(s, a, 14, 0);
    });

    it('standing holds (ADR 0332): one ledger op per delivered request, each charged once, never overdrawn, nothing held after', async (s) => {
      const a = await account(s, 'a@example.org', 1_000);
      const who: Principal = { accountId: a, credential: 'api_key', credentialId: 'k', scopes: ['search'], clientId: null, isAgent: false, audience: null };
      const inFlight = { n: 0 };
      const ledger = new GroupCommitLedger(s.ledger, { maxBatch: 64, windowMs: 0, othersActive: () => inFlight.n > 1 });
      const billing = new BillingService(ledger, { nowMs: () => 1_000_000 }, { standingHolds: true, standingHoldIdleMs: 60_000 });
      // a request: holds 10 up to 20, costs 10 + hits, delivered or not
      const request = async (i: number, hits: number, delivered: boolean) => {
        const scope = billing.openScope();
        inFlight.n++;
        try {
          await billing.runInScope(scope, async () => {
            await billing.reserve(who, 10, 'search', `r${i}`, 20);
            await new Promise((r) => setImmediate(r));
            await billing.charge(who, 10 + hits, 'search', `r${i}`);
          });
        } finally {
          inFlight.n--;
        }
        await billing.settle(scope, delivered);
      };
      // warm: the standing hold opened (one op) and the first charge drawn (one op)
      await request(0, 5, true);
      const before = { ...ledger.stats };
      await Promise.all(Array.from({ length: 16 }, (_, i) => request(i + 1, i % 11, i % 4 !== 3)));
      for (let i = 17; i < 33; i++) await request(i, 10, true);
      await billing.idle();
      const charged = [15, ...Array.from({ length: 16 }, (_, i) => (i % 4 !== 3 ? 10 + (i % 11) : 0)), ...Array.from({ length: 16 }, () => 20)];
      const total = charged.reduce((x, y) => x + y, 0);
      await assertBalanced(s, a, 1_000 - total, 0);
      const entries = (await s.ledger.entries(a, 100)).filter((e) => e.operation === 'search');
      assert.equal(entries.length, charged.filter((c) => c > 0).length, 'one entry per delivered request');
      assert.equal(new Set(entries.map((e) => e.reference)).size, entries.length, 'never twice');
      for (const e of entries) assert.equal(-e.amount, charged[Number(e.reference!.slice(1))]);
      // 28 delivered requests after the warm-up: one draw each, plus at most a growth of the hold for the
      // concurrent ones and the release by idle(); two ops each (hold + capture) without standing holds
      const ops = ledger.stats.ops - before.ops;
      assert.ok(ops <= 28 + 16 + 1 && ops < 2 * 32, `ledger ops after warm-up: ${ops}`);
      assert.ok(!(await s.ledger.entries(a, 100)).some((e) => e.operation === STANDING_HOLD_OPERATION));
    });

    it('standing holds: a short balance is refused with 402 before the work and never overdrawn', async (s) => {
      const a = await account(s, 'a@example.org', 50);
      const who: Principal = { accountId: a, credential: 'api_key', credentialId: 'k', scopes: ['search'], clientId: null, isAgent: false, audience: null };
      const billing = new BillingService(s.ledger, { nowMs: () => 1_000_000 }, { standingHolds: true, standingHoldIdleMs: 60_000 });
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, async (_, i) => {
          const scope = billing.openScope();
          try {
            await billing.runInScope(scope, async () => {
              await billing.reserve(who, 10, 'search', `r${i}`, 20);
              await new Promise((r) => setTimeout(r, 5));
              await billing.charge(who, 20, 'search', `r${i}`);
            });
          } catch (e) {
            await billing.settle(scope, false);
            throw e;
          }
          await billing.settle(scope, true);
        }),
      );
      const refused = results.filter((r) => r.status === 'rejected');
      assert.ok(refused.every((r) => r.status === 'rejected' && r.reason instanceof AppError && r.reason.code === 'insufficient_credits'));
      const ok = results.length - refused.length;
      assert.ok(ok >= 2 && ok <= 5, `granted ${ok}`);
      await billing.idle();
      const charged = (await s.ledger.entries(a, 100)).filter((e) => e.operation === 'search').reduce((x, e) => x - e.amount, 0);
      assert.ok(charged <= 50, `charged ${charged} of 50`);
      assert.equal(charged, ok * 20, 'each granted request charged its price, at most once');
      await assertBalanced(s, a, 50 - charged, 0);
    });

    it('standing holds: a growth committed before draws that empty this process\'s count is kept (the store says when the row is gone)', async (s) => {
      const a = await account(s, 'a@example.org', 50);
      const who: Principal = { accountId: a, credential: 'api_key', credentialId: 'k', scopes: ['search'], clientId: null, isAgent: false, audience: null };
      // the growth by 10 commits at once, but its result reaches the billing service only when `open` is called
      let committed!: () => void;
      const growthCommitted = new Promise<void>((r) => (committed = r));
      let open!: () => void;
      const gate = new Promise<void>((r) => (open = r));
      const slow = new Proxy(s.ledger, {
        get(target, prop) {
          if (prop === 'extendHold')
            return async (holdId: number, extra: number) => {
              const r = await target.extendHold(holdId, extra);
              if (extra === 10) {
                committed();
                await gate;
              }
              return r;
            };
          const v = Reflect.get(target, prop) as unknown;
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
      const billing = new BillingService(slow, { nowMs: () => 1_000_000 }, { standingHolds: true, standingHoldIdleMs: 60_000 });
      const scopes = [billing.openScope(), billing.openScope(), billing.openScope()];
      const reserve = (i: number) => billing.runInScope(scopes[i]!, () => billing.reserve(who, 10, 'search', `r${i}`, 20));
      const charge = (i: number, price: number) => billing.runInScope(scopes[i]!, () => billing.charge(who, price, 'search', `r${i}`));
      await reserve(0); // the standing hold opened with 20
      await reserve(1); // grown to 40
      const third = reserve(2); // 10 left: grown by 10 (committed, its result held back)
      await growthCommitted;
      await charge(0, 20);
      await charge(1, 20);
      // both drawn while the balance no longer covers holding them again: the row shrinks to the 10 of the growth
      await billing.settle(scopes[0]!, true);
      await billing.settle(scopes[1]!, true);
      open();
      await third; // the growth's 10, not a 402
      await charge(2, 10);
      await billing.settle(scopes[2]!, true);
      await billing.idle();
      assert.deepEqual((await s.ledger.entries(a, 10)).filter((e) => e.operation === 'search').map((e) => -e.amount).sort(), [10, 20, 20]);
      await assertBalanced(s, a, 0, 0);
    });
  });
}
