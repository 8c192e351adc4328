// The storage contract: one suite that every implementation of the Storage port must pass (SQLite in a
// file and in memory, PostgreSQL). Callers pass a factory that opens a fresh, empty store; each test
// opens its own. The rules here are the port's semantics; when the two stores disagree, this file
// decides (see the docs/adr storage records).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { DocumentRecord, IndexName, StoredDocument } from '../../src/domain/document.js';
import { AppError } from '../../src/domain/errors.js';
import type { ActivityEvent } from '../../src/ports/activity-store.js';
import type { DocumentChange } from '../../src/ports/document-store.js';
import type { Storage } from '../../src/ports/storage.js';
import type { StorageFactory } from '../helpers/storage.js';
import { DocumentModel } from './document-model.js';
import { WorkLinkedDocumentStore } from '../../src/documents/work-links.js';
import { sampleDocument } from './sample-document.js';

const DAY = 86_400;
/** A fixed "now" (2024-03-01T12:00:00Z) so day boundaries are predictable. */
const NOW = 1_709_294_400;

const isCode = (code: string) => (e: unknown) => {
  assert.ok(e instanceof AppError, `expected an AppError, got ${String(e)}`);
  assert.equal(e.code, code);
  return true;
};

/** The record part of a stored document (what was written). */
function recordOf(doc: StoredDocument): DocumentRecord {
  const { seq: _seq, workKey: _workKey, createdAt: _createdAt, updatedAt: _updatedAt, ...record } = doc;
  return record;
}

async function allChanges(storage: Storage, afterSeq = 0): Promise<DocumentChange[]> {
  return storage.documents.changesSince(afterSeq, 1_000_000);
}

/** Runs the storage contract against the stores `open` creates, under the label `label`. */
export function storageContract(label: string, open: StorageFactory): void {
  /** A test on a fresh store, disposed of whatever happens. */
  const it = (name: string, fn: (s: Storage) => Promise<void>) =>
    test(name, async () => {
      const fixture = await open();
      try {
        await fn(fixture.storage);
      } finally {
        await fixture.dispose();
      }
    });

  describe(`storage contract: ${label}`, () => {
    // ---------------------------------------------------------------- lifecycle
    it('ping resolves and close may be called twice', async (s) => {
      assert.ok(s.kind === 'sqlite' || s.kind === 'postgres');
      await s.ping();
      await s.close();
      await s.close();
    });

    // ---------------------------------------------------------------- accounts
    it('accounts: create trims and lower-cases the email; get and getByEmail find it', async (s) => {
      const before = Math.floor(Date.now() / 1000);
      const a = await s.accounts.create({ email: '  Ada@Example.ORG ' });
      assert.ok(Number.isSafeInteger(a.id) && a.id > 0);
      assert.equal(a.email, 'ada@example.org');
      assert.equal(a.emailVerified, false);
      assert.equal(a.eligibleForOriginals, false);
      assert.equal(typeof a.createdAt, 'number');
      assert.ok(a.createdAt >= before - 1 && a.createdAt <= Math.floor(Date.now() / 1000) + 1);
      assert.deepEqual(await s.accounts.get(a.id), a);
      assert.deepEqual(await s.accounts.getByEmail('ADA@example.org'), a);
      assert.equal(await s.accounts.get(a.id + 1000), null);
      assert.equal(await s.accounts.getByEmail('nobody@example.org'), null);

      const b = await s.accounts.create({ email: 'bob@example.org', emailVerified: true, eligibleForOriginals: true });
      assert.notEqual(b.id, a.id);
      assert.equal(b.emailVerified, true);
      assert.equal(b.eligibleForOriginals, true);
    });

    it('accounts: a taken email, in any case, is a conflict and creates nothing', async (s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      await assert.rejects(s.accounts.create({ email: 'ADA@example.org' }), isCode('conflict'));
      assert.deepEqual(await s.accounts.getByEmail('ada@example.org'), a);
      const next = await s.accounts.create({ email: 'other@example.org' });
      assert.ok(next.id > a.id);
    });

    it('accounts: update changes only the given flags; an unknown id gives null', async (s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const verified = await s.accounts.update(a.id, { emailVerified: true });
      assert.deepEqual(verified, { ...a, emailVerified: true });
      const eligible = await s.accounts.update(a.id, { eligibleForOriginals: true });
      assert.deepEqual(eligible, { ...a, emailVerified: true, eligibleForOriginals: true });
      const both = await s.accounts.update(a.id, { emailVerified: false, eligibleForOriginals: false });
      assert.deepEqual(both, a);
      assert.deepEqual(await s.accounts.update(a.id, {}), a);
      assert.deepEqual(await s.accounts.get(a.id), a);
      assert.equal(await s.accounts.update(a.id + 1000, { emailVerified: true }), null);
    });

    // ---------------------------------------------------------------- API keys
    it('api keys: create, get, list by account in creation order, revoke once', async (s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const b = await s.accounts.create({ email: 'bob@example.org' });
      const k2 = await s.apiKeys.create({ id: 'key_b', accountId: a.id, hash: 'h2', label: null, createdAt: 200 });
      const k1 = await s.apiKeys.create({ id: 'key_a', accountId: a.id, hash: 'h1', label: 'laptop', createdAt: 100 });
      const k3 = await s.apiKeys.create({ id: 'key_c', accountId: a.id, hash: 'h3', label: 'same second', createdAt: 200 });
      await s.apiKeys.create({ id: 'key_other', accountId: b.id, hash: 'h4', label: null, createdAt: 50 });
      assert.deepEqual(k1, { id: 'key_a', accountId: a.id, hash: 'h1', label: 'laptop', createdAt: 100, revokedAt: null });
      assert.deepEqual(await s.apiKeys.get('key_a'), k1);
      assert.equal(await s.apiKeys.get('key_missing'), null);
      // Oldest first; keys created in the same second in id order.
      assert.deepEqual(await s.apiKeys.listByAccount(a.id), [k1, k2, k3]);
      assert.deepEqual(await s.apiKeys.listByAccount(a.id + b.id + 1000), []);

      assert.equal(await s.apiKeys.revoke('key_b', 300), true);
      assert.equal(await s.apiKeys.revoke('key_b', 400), false, 'already revoked');
      assert.equal(await s.apiKeys.revoke('key_missing', 300), false);
      assert.deepEqual(await s.apiKeys.get('key_b'), { ...k2, revokedAt: 300 });
      assert.deepEqual((await s.apiKeys.listByAccount(a.id)).map((k) => k.revokedAt), [null, 300, null]);
    });

    it('api keys: a key for an unknown account or with a taken id is refused', async (s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      await assert.rejects(s.apiKeys.create({ id: 'k', accountId: a.id + 1000, hash: 'h', label: null, createdAt: 1 }));
      assert.equal(await s.apiKeys.get('k'), null);
      await s.apiKeys.create({ id: 'k', accountId: a.id, hash: 'h', label: null, createdAt: 1 });
      await assert.rejects(s.apiKeys.create({ id: 'k', accountId: a.id, hash: 'other', label: null, createdAt: 2 }));
      assert.equal((await s.apiKeys.get('k'))?.hash, 'h');
    });

    // ---------------------------------------------------------------- credit ledger
    it('ledger: a new account has balance 0 and no entries', async (s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      assert.equal(await s.ledger.balance(a.id), 0);
      assert.deepEqual(await s.ledger.entries(a.id, 10), []);
      assert.equal(await s.ledger.entrySum(a.id), 0);
    });

    it('ledger: credits and debits move the balance and write one entry each, newest first', async (s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const c = await s.ledger.credit(a.id, 100, 'topup', 'req-1', 1000);
      assert.equal(c.balance, 100);
      const d1 = await s.ledger.debit(a.id, 30, 'search', 'req-2', 1001);
      assert.ok(d1.ok);
      assert.equal(d1.balance, 70);
      const d2 = await s.ledger.debit(a.id, 20, 'document_fetch', null, 1002);
      assert.ok(d2.ok);
      assert.equal(d2.balance, 50);
      assert.equal(await s.ledger.balance(a.id), 50);
      assert.equal(await s.ledger.entrySum(a.id), 50);

      const entries = await s.ledger.entries(a.id, 10);
      assert.deepEqual(entries, [
        { id: d2.entryId, accountId: a.id, amount: -20, balanceAfter: 50, operation: 'document_fetch', reference: null, createdAt: 1002 },
        { id: d1.entryId, accountId: a.id, amount: -30, balanceAfter: 70, operation: 'search', reference: 'req-2', createdAt: 1001 },
        { id: c.entryId, accountId: a.id, amount: 100, balanceAfter: 100, operation: 'topup', reference: 'req-1', createdAt: 1000 },
      ]);
      assert.ok(c.entryId < d1.entryId && d1.entryId < d2.entryId);
      assert.deepEqual(await s.ledger.entries(a.id, 2), entries.slice(0, 2));
      assert.deepEqual(await s.ledger.entries(a.id, 1), entries.slice(0, 1));
    });

    it('ledger: a debit beyond the balance is refused and leaves no entry; one to exactly zero succeeds', async (s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      assert.deepEqual(await s.ledger.debit(a.id, 1, 'search', null, 1), { ok: false, balance: 0 });
      await s.ledger.credit(a.id, 10, 'topup', null, 2);
      assert.deepEqual(await s.ledger.debit(a.id, 11, 'search', null, 3), { ok: false, balance: 10 });
      assert.equal((await s.ledger.entries(a.id, 10)).length, 1);
      assert.equal(await s.ledger.balance(a.id), 10);
      const exact = await s.ledger.debit(a.id, 10, 'search', null, 4);
      assert.ok(exact.ok);
      assert.equal(exact.balance, 0);
      assert.deepEqual(await s.ledger.debit(a.id, 1, 'search', null, 5), { ok: false, balance: 0 });
      assert.equal((await s.ledger.entries(a.id, 10)).length, 2);
      assert.equal(await s.ledger.entrySum(a.id), 0);
    });

    it('ledger: findEntry finds the newest entry of an operation by reference, only for that account', async (s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const b = await s.accounts.create({ email: 'bob@example.org' });
      await s.ledger.credit(a.id, 100, 'topup', 'job-1', 1);
      await s.ledger.credit(b.id, 100, 'topup', null, 1);
      assert.equal(await s.ledger.findEntry(a.id, 'recognition', 'job-1'), null);
      const d = await s.ledger.debit(a.id, 7, 'recognition', 'job-1', 2);
      assert.ok(d.ok);
      const e = await s.ledger.findEntry(a.id, 'recognition', 'job-1');
      assert.deepEqual(e, { id: d.entryId, accountId: a.id, amount: -7, balanceAfter: 93, operation: 'recognition', reference: 'job-1', createdAt: 2 });
      assert.equal(await s.ledger.findEntry(b.id, 'recognition', 'job-1'), null);
      assert.equal(await s.ledger.findEntry(a.id, 'recognition', 'job-2'), null);
    });

    it('ledger holds: a hold reserves spendable credits; capture debits once, release gives back, both exactly once', async (s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      await s.ledger.credit(a.id, 10, 'topup', null, 1);
      const h1 = await s.ledger.hold(a.id, 6, 'search', 'req-1', 'owner-1', 2);
      assert.ok(h1.ok);
      assert.equal(h1.balance, 4, 'spendable after the hold');
      assert.equal(await s.ledger.balance(a.id), 4);
      assert.equal(await s.ledger.held(a.id), 6);
      assert.equal(await s.ledger.entrySum(a.id), 10, 'a hold writes no entry');
      // Spendable, not posted, balance bounds holds and debits.
      assert.deepEqual(await s.ledger.hold(a.id, 5, 'search', 'req-2', 'owner-1', 3), { ok: false, balance: 4 });
      assert.deepEqual(await s.ledger.debit(a.id, 5, 'search', 'req-2', 3), { ok: false, balance: 4 });
      const h2 = await s.ledger.hold(a.id, 4, 'document_fetch', 'req-3', 'owner-1', 3);
      assert.ok(h2.ok);
      assert.equal(h2.balance, 0);
      // Capture less than held: the rest goes back.
      const c1 = await s.ledger.capture(h1.holdId, 5, 4);
      assert.ok(c1 && c1.entryId !== null);
      assert.equal(c1.balance, 1, 'posted 5, held 4');
      assert.equal(await s.ledger.capture(h1.holdId, 5, 5), null, 'a hold is captured once');
      assert.equal(await s.ledger.release(h1.holdId), false, 'a captured hold cannot be released');
      assert.equal(await s.ledger.release(h2.holdId), true);
      assert.equal(await s.ledger.release(h2.holdId), false, 'released once');
      assert.equal(await s.ledger.capture(h2.holdId, 4, 6), null, 'a released hold cannot be captured');
      assert.equal(await s.ledger.balance(a.id), 5);
      assert.equal(await s.ledger.held(a.id), 0);
      assert.equal(await s.ledger.entrySum(a.id), 5);
      const e = await s.ledger.findEntry(a.id, 'search', 'req-1');
      assert.deepEqual(e, { id: c1.entryId, accountId: a.id, amount: -5, balanceAfter: 5, operation: 'search', reference: 'req-1', createdAt: 4 });
      // A capture of 0 releases and writes no entry; capture never takes more than was held.
      const h3 = await s.ledger.hold(a.id, 2, 'search', 'req-4', 'owner-1', 7);
      assert.ok(h3.ok);
      assert.deepEqual(await s.ledger.capture(h3.holdId, 0, 8), { balance: 5, entryId: null });
      const h4 = await s.ledger.hold(a.id, 2, 'search', 'req-5', 'owner-1', 9);
      assert.ok(h4.ok);
      assert.equal((await s.ledger.capture(h4.holdId, 99, 10))?.balance, 3);
      assert.equal(await s.ledger.entrySum(a.id), 3);
      // A hold grows when the spendable balance covers the extra; one entry for the whole.
      const h5 = await s.ledger.hold(a.id, 1, 'search', 'req-6', 'owner-1', 11);
      assert.ok(h5.ok);
      assert.deepEqual(await s.ledger.extendHold(h5.holdId, 3), { ok: false, balance: 2 });
      assert.deepEqual(await s.ledger.extendHold(h5.holdId, 2), { ok: true, holdId: h5.holdId, balance: 0 });
      assert.equal(await s.ledger.held(a.id), 3);
      assert.equal((await s.ledger.capture(h5.holdId, 3, 12))?.balance, 0);
      assert.equal(await s.ledger.extendHold(h5.holdId, 1), null, 'a captured hold cannot grow');
      assert.equal((await s.ledger.findEntry(a.id, 'search', 'req-6'))?.amount, -3);
      await s.ledger.credit(a.id, 3, 'topup', null, 13);
      await assert.rejects(s.ledger.hold(a.id, 0, 'search', null, 'owner-1', 11), RangeError);
      await assert.rejects(s.ledger.capture(h4.holdId, -1, 11), RangeError);
    });

    it('ledger holds with upTo: the most it may cost when the spendable balance covers it, else the amount, else refused', async (s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      await s.ledger.credit(a.id, 50, 'topup', null, 1);
      const full = await s.ledger.hold(a.id, 10, 'search', 'r1', 'o', 2, 20);
      assert.deepEqual(full, { ok: true, holdId: full.ok ? full.holdId : -1, balance: 30, held: 20 });
      const exact = await s.ledger.hold(a.id, 10, 'search', 'r2', 'o', 2, 20);
      assert.ok(exact.ok && exact.held === 20 && exact.balance === 10, 'a balance equal to upTo covers it');
      const base = await s.ledger.hold(a.id, 5, 'search', 'r3', 'o', 2, 20);
      assert.ok(base.ok && base.held === 5 && base.balance === 5, 'short of upTo: the amount');
      assert.deepEqual(await s.ledger.hold(a.id, 6, 'search', 'r4', 'o', 2, 20), { ok: false, balance: 5 }, 'short of the amount: refused');
      assert.equal(await s.ledger.held(a.id), 45);
      // the capture charges the final price and frees the rest of what was held
      assert.equal((await s.ledger.capture(full.ok ? full.holdId : -1, 13, 3))?.balance, 12);
      assert.equal(await s.ledger.held(a.id), 25);
      assert.equal(await s.ledger.entrySum(a.id), 37);
      assert.equal((await s.ledger.findEntry(a.id, 'search', 'r1'))?.amount, -13);
      await assert.rejects(s.ledger.hold(a.id, 10, 'search', null, 'o', 2, 9), RangeError);
      await assert.rejects(s.ledger.hold(a.id, 1, 'search', null, 'o', 2, 1.5), RangeError);
      await assert.rejects(s.ledger.hold(a.id + 1000, 1, 'search', null, 'o', 2, 2), (e: unknown) => e instanceof AppError && e.code === 'not_found');
    });

    it('ledger holds: holds of an owner whose heartbeat is stale (a dead process) are released; live ones and our own are kept', async (s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      await s.ledger.credit(a.id, 100, 'topup', null, 1);
      await s.ledger.heartbeat('dead', 1_000);
      await s.ledger.heartbeat('alive', 5_000);
      await s.ledger.heartbeat('alive', 9_000); // a later beat replaces the earlier one
      const dead = await s.ledger.hold(a.id, 10, 'search', 'r1', 'dead', 1);
      const dead2 = await s.ledger.hold(a.id, 5, 'search', 'r2', 'dead', 1);
      const never = await s.ledger.hold(a.id, 7, 'search', 'r3', 'never-beat', 1);
      const alive = await s.ledger.hold(a.id, 20, 'search', 'r4', 'alive', 1);
      const self = await s.ledger.hold(a.id, 30, 'search', 'r5', 'me', 1);
      assert.ok(dead.ok && dead2.ok && never.ok && alive.ok && self.ok);
      assert.equal(await s.ledger.balance(a.id), 28);
      assert.equal(await s.ledger.releaseOrphanedHolds('me', 8_000), 3);
      assert.equal(await s.ledger.held(a.id), 50);
      assert.equal(await s.ledger.balance(a.id), 50);
      assert.equal(await s.ledger.capture(dead.holdId, 10, 2), null, 'a swept hold is gone');
      assert.equal(await s.ledger.releaseOrphanedHolds('me', 8_000), 0, 'nothing twice');
      assert.ok(await s.ledger.capture(alive.holdId, 20, 3));
      assert.equal(await s.ledger.releaseOrphanedHolds('alive', 10_000), 1, 'our own stale-looking holds are others\' to sweep');
      assert.equal(await s.ledger.held(a.id), 0);
      assert.equal(await s.ledger.entrySum(a.id), 80);
      assert.equal(await s.ledger.balance(a.id), 80);
    });

    it('ledger: amounts must be positive safe integers', async (s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      await s.ledger.credit(a.id, 100, 'topup', null, 1);
      for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
        await assert.rejects(s.ledger.debit(a.id, bad, 'search', null, 2), RangeError, `debit ${bad}`);
        await assert.rejects(s.ledger.credit(a.id, bad, 'topup', null, 2), RangeError, `credit ${bad}`);
      }
      assert.equal(await s.ledger.balance(a.id), 100);
      assert.equal((await s.ledger.entries(a.id, 10)).length, 1);
    });

    it('ledger: an unknown account is not_found for balance, debit and credit', async (s) => {
      await assert.rejects(s.ledger.balance(424242), isCode('not_found'));
      await assert.rejects(s.ledger.debit(424242, 1, 'search', null, 1), isCode('not_found'));
      await assert.rejects(s.ledger.credit(424242, 1, 'topup', null, 1), isCode('not_found'));
      assert.deepEqual(await s.ledger.entries(424242, 10), []);
      assert.equal(await s.ledger.entrySum(424242), 0);
    });

    it('ledger: accounts are independent', async (s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const b = await s.accounts.create({ email: 'bob@example.org' });
      await s.ledger.credit(a.id, 50, 'topup', null, 1);
      await s.ledger.credit(b.id, 7, 'topup', null, 1);
      assert.ok((await s.ledger.debit(a.id, 40, 'search', null, 2)).ok);
      assert.equal((await s.ledger.debit(b.id, 40, 'search', null, 2)).ok, false);
      assert.equal(await s.ledger.balance(a.id), 10);
      assert.equal(await s.ledger.balance(b.id), 7);
      assert.deepEqual((await s.ledger.entries(b.id, 10)).map((e) => e.amount), [7]);
    });

    it('ledger: for any sequence of credits and debits, balance = entry sum = a simple model', async (s) => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 50 })), { maxLength: 30 }), async (ops) => {
          const a = await s.accounts.create({ email: `model-${n++}@example.org` });
          let model = 0;
          let written = 0;
          for (const [isCredit, amount] of ops) {
            if (isCredit) {
              model += amount;
              written++;
              assert.equal((await s.ledger.credit(a.id, amount, 'topup', null, 1)).balance, model);
            } else {
              const r = await s.ledger.debit(a.id, amount, 'search', null, 1);
              assert.equal(r.ok, amount <= model);
              if (r.ok) {
                model -= amount;
                written++;
              }
              assert.equal(r.balance, model);
            }
          }
          assert.equal(await s.ledger.balance(a.id), model);
          assert.equal(await s.ledger.entrySum(a.id), model);
          const entries = await s.ledger.entries(a.id, 1000);
          assert.equal(entries.length, written);
          // Each entry's balanceAfter is the running sum up to it.
          let running = 0;
          for (const e of [...entries].reverse()) {
            running += e.amount;
            assert.equal(e.balanceAfter, running);
            assert.ok(e.balanceAfter >= 0);
          }
        }),
        { numRuns: 20 },
      );
    });

    // ---------------------------------------------------------------- documents: basics
    it('documents: an empty store has nothing', async (s) => {
      assert.equal(await s.documents.count(), 0);
      assert.equal(await s.documents.count('documents'), 0);
      assert.equal(await s.documents.maxSeq(), 0);
      assert.deepEqual(await s.documents.changesSince(0, 10), []);
      assert.equal(await s.documents.get('W1'), null);
      assert.equal(await s.documents.getByUri('doi://10.1234/w1'), null);
      assert.equal((await s.documents.getMany(['W1'])).size, 0);
      assert.equal((await s.documents.getMany([])).size, 0);
      assert.deepEqual(await s.documents.upsertMany([], NOW), { inserted: 0, updated: 0, unchanged: 0 });
      assert.equal(await s.documents.maxSeq(), 0);
    });

    it('documents: an inserted record reads back whole by id, ids and URI', async (s) => {
      const doc = sampleDocument('W1', {
        uris: ['doi://10.1234/w1', 'pubmed://123', 'https://example.org/w1'],
        fullText: '# Body\n\nUnicode: café, 中文, emoji 🧪, "quotes" and \\ backslashes.',
        authors: [{ name: 'Ada', orcid: '0000-0001-2345-6789' }, { name: 'Bob' }],
        attribution: { author: 'u1', authorUrl: 'https://example.org/u/1', url: 'https://example.org/q/1', site: 'example', license: 'CC BY-SA 4.0' },
        originals: [{ format: 'pdf', mediaType: 'application/pdf', blobKey: 'ab/cd', bytes: 1234, sha256: 'f'.repeat(64), license: null, storedAt: 5 }],
        notices: [{ kind: 'erratum', uri: 'doi://10.1234/erratum' }],
        extra: { big: 9_007_199_254_740_991, neg: -1.25e-7, empty: {}, list: [], text: 'x' },
      });
      assert.deepEqual(await s.documents.upsertMany([doc], NOW), { inserted: 1, updated: 0, unchanged: 0 });
      const got = await s.documents.get('W1');
      assert.ok(got);
      assert.deepEqual(recordOf(got), doc);
      assert.equal(got.seq, 1);
      assert.equal(got.workKey, 'W1');
      assert.equal(got.createdAt, NOW);
      assert.equal(got.updatedAt, NOW);
      assert.deepEqual(await s.documents.getByUri('pubmed://123'), got);
      assert.deepEqual(await s.documents.getByUri('https://example.org/w1'), got);
      assert.equal(await s.documents.getByUri('doi://10.1234/other'), null);
      assert.deepEqual([...(await s.documents.getMany(['W1', 'W1', 'missing'])).entries()], [['W1', got]]);
      assert.deepEqual([...(await s.documents.getManyByUri(['pubmed://123', 'doi://10.1234/other', 'pubmed://123'])).entries()], [['pubmed://123', got]]);
      assert.equal((await s.documents.getManyByUri([])).size, 0);
      assert.equal(await s.documents.maxSeq(), 1);
      assert.equal(await s.documents.count(), 1);
    });

    it('documents: U+0000 and unpaired surrogates in text read back as U+FFFD', async (s) => {
      const doc = sampleDocument('W1', { title: 'nul\u0000here', abstract: 'lone \ud800 high and \udc00 low', extra: { k: 'a\u0000b' } });
      await s.documents.upsertMany([doc], NOW);
      const got = await s.documents.get('W1');
      assert.equal(got?.title, 'nul\ufffdhere');
      assert.equal(got?.abstract, 'lone \ufffd high and \ufffd low');
      assert.deepEqual(got?.extra, { k: 'a\ufffdb' });
      // Writing it again is recognised as unchanged.
      assert.deepEqual(await s.documents.upsertMany([doc], NOW + 1), { inserted: 0, updated: 0, unchanged: 1 });
    });

    it('documents: re-upserting an identical record writes nothing', async (s) => {
      await s.documents.upsertMany([sampleDocument('W1'), sampleDocument('W2')], NOW);
      const before = await s.documents.get('W1');
      assert.deepEqual(await s.documents.upsertMany([sampleDocument('W1')], NOW + 60), { inserted: 0, updated: 0, unchanged: 1 });
      assert.deepEqual(await s.documents.get('W1'), before);
      assert.equal(await s.documents.maxSeq(), 2);
    });

    it('documents: an update replaces the record, keeps createdAt and takes a new seq', async (s) => {
      await s.documents.upsertMany([sampleDocument('W1'), sampleDocument('W2')], NOW);
      const changed = sampleDocument('W1', { title: 'New title', abstract: null, extra: {} });
      assert.deepEqual(await s.documents.upsertMany([changed], NOW + 60), { inserted: 0, updated: 1, unchanged: 0 });
      const got = await s.documents.get('W1');
      assert.ok(got);
      assert.deepEqual(recordOf(got), changed);
      assert.equal(got.createdAt, NOW);
      assert.equal(got.updatedAt, NOW + 60);
      assert.equal(got.seq, 3);
      assert.equal(await s.documents.count(), 2);
    });

    it('documents: URIs are replaced on update', async (s) => {
      await s.documents.upsertMany([sampleDocument('W1', { uris: ['doi://10.1234/old', 'pubmed://1'] })], NOW);
      await s.documents.upsertMany([sampleDocument('W1', { uris: ['doi://10.1234/new', 'pubmed://1'] })], NOW + 1);
      assert.equal(await s.documents.getByUri('doi://10.1234/old'), null);
      assert.equal((await s.documents.getByUri('doi://10.1234/new'))?.id, 'W1');
      assert.equal((await s.documents.getByUri('pubmed://1'))?.id, 'W1');
    });

    it('documents: getByUri picks the lowest id when several records carry the URI', async (s) => {
      const shared = 'https://example.org/landing';
      await s.documents.upsertMany([sampleDocument('b2', { uris: [shared] }), sampleDocument('B1', { uris: [shared] }), sampleDocument('c3', { uris: [shared] })], NOW);
      // Byte order: upper case sorts before lower case.
      assert.equal((await s.documents.getByUri(shared))?.id, 'B1');
      assert.equal((await s.documents.getManyByUri([shared])).get(shared)?.id, 'B1');
      await s.documents.delete('B1', NOW + 1);
      assert.equal((await s.documents.getByUri(shared))?.id, 'b2');
      assert.equal((await s.documents.getManyByUri([shared])).get(shared)?.id, 'b2');
    });

    it('documents: one batch counts inserted, updated and unchanged; a repeated id keeps its last version', async (s) => {
      await s.documents.upsertMany([sampleDocument('W1'), sampleDocument('W2')], NOW);
      const r = await s.documents.upsertMany(
        [sampleDocument('W1'), sampleDocument('W2', { title: 'v2' }), sampleDocument('W3'), sampleDocument('W3', { title: 'W3 again' })],
        NOW + 1,
      );
      assert.deepEqual(r, { inserted: 1, updated: 2, unchanged: 1 });
      assert.equal((await s.documents.get('W3'))?.title, 'W3 again');
      assert.equal(await s.documents.count(), 3);
      const changes = await allChanges(s);
      assert.deepEqual(
        changes.map((c) => (c.deleted ? c.id : c.doc.id)),
        ['W1', 'W2', 'W3'],
        'each document appears once, at its latest seq',
      );
    });

    it('documents: count by index', async (s) => {
      await s.documents.upsertMany(
        [sampleDocument('W1'), sampleDocument('W2'), sampleDocument('S1', { index: 'social', type: 'question', uris: [] })],
        NOW,
      );
      assert.equal(await s.documents.count(), 3);
      assert.equal(await s.documents.count('documents'), 2);
      assert.equal(await s.documents.count('social'), 1);
      // Moving a record between indexes moves its count.
      await s.documents.upsertMany([sampleDocument('W2', { index: 'social' })], NOW + 1);
      assert.equal(await s.documents.count('documents'), 1);
      assert.equal(await s.documents.count('social'), 2);
      await s.documents.delete('S1', NOW + 2);
      assert.equal(await s.documents.count('social'), 1);
      assert.equal(await s.documents.count(), 2);
    });

    // ---------------------------------------------------------------- documents: deletes
    it('documents: delete leaves a tombstone in changesSince; a second delete or an unknown id is false', async (s) => {
      await s.documents.upsertMany([sampleDocument('W1'), sampleDocument('W2')], NOW);
      assert.equal(await s.documents.delete('W1', NOW + 5), true);
      assert.equal(await s.documents.get('W1'), null);
      assert.equal(await s.documents.getByUri('doi://10.1234/w1'), null);
      assert.equal((await s.documents.getMany(['W1', 'W2'])).size, 1);
      assert.equal(await s.documents.count(), 1);
      assert.equal(await s.documents.maxSeq(), 3);
      assert.deepEqual(await s.documents.changesSince(2, 10), [{ deleted: true, seq: 3, id: 'W1' }]);
      assert.equal(await s.documents.delete('W1', NOW + 6), false);
      assert.equal(await s.documents.delete('nope', NOW + 6), false);
      assert.equal(await s.documents.maxSeq(), 3, 'a refused delete takes no seq');
    });

    it('documents: a deleted document can come back, as a new insert', async (s) => {
      await s.documents.upsertMany([sampleDocument('W1')], NOW);
      await s.documents.delete('W1', NOW + 1);
      assert.deepEqual(await s.documents.upsertMany([sampleDocument('W1')], NOW + 2), { inserted: 1, updated: 0, unchanged: 0 });
      const got = await s.documents.get('W1');
      assert.equal(got?.seq, 3);
      assert.equal(got?.createdAt, NOW + 2);
      assert.equal(got?.updatedAt, NOW + 2);
      assert.equal((await s.documents.getByUri('doi://10.1234/w1'))?.id, 'W1');
      assert.deepEqual((await allChanges(s)).map((c) => c.deleted), [false]);
    });

    // ---------------------------------------------------------------- documents: sequence
    it('documents: sequence numbers strictly increase and changesSince pages through every change once', async (s) => {
      const seen: number[] = [];
      for (let i = 0; i < 10; i++) {
        await s.documents.upsertMany([sampleDocument(`W${i}`)], NOW + i);
        seen.push(await s.documents.maxSeq());
      }
      await s.documents.upsertMany([sampleDocument('W3', { title: 'again' })], NOW + 20);
      seen.push(await s.documents.maxSeq());
      await s.documents.delete('W5', NOW + 21);
      seen.push(await s.documents.maxSeq());
      for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! > seen[i - 1]!, `maxSeq ${seen.join(',')}`);

      const full = await allChanges(s);
      assert.equal(full.length, 10);
      const seqs = full.map((c) => c.seq);
      assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
      assert.equal(new Set(seqs).size, seqs.length);
      assert.equal(seqs.at(-1), await s.documents.maxSeq());
      // W3 was updated and W5 deleted last, so they come last.
      assert.deepEqual(full.slice(-2).map((c) => (c.deleted ? `-${c.id}` : c.doc.id)), ['W3', '-W5']);

      for (const limit of [1, 3, 4, 10, 11]) {
        const pages: DocumentChange[] = [];
        let after = 0;
        for (;;) {
          const page = await s.documents.changesSince(after, limit);
          assert.ok(page.length <= limit);
          if (page.length === 0) break;
          pages.push(...page);
          after = page.at(-1)!.seq;
        }
        assert.deepEqual(pages, full, `pages of ${limit}`);
      }
      assert.deepEqual(await s.documents.changesSince(await s.documents.maxSeq(), 10), []);
      for (const c of full) if (!c.deleted) assert.deepEqual(c.doc, await s.documents.get(c.doc.id));
    });

    // ---------------------------------------------------------------- documents: works (identity keys)
    it('documents: a preprint and its published version share one work key, in either order', async (s) => {
      const preprint = (id: string, arxiv: string) => sampleDocument(id, { uris: [`arxiv://${arxiv}v2`], type: 'preprint' });
      const published = (id: string, arxiv: string) => sampleDocument(id, { uris: [`doi://10.1000/${id}`, `arxiv://${arxiv}`] });
      // Preprint first.
      await s.documents.upsertMany([preprint('pre-a', '2101.00001')], NOW);
      await s.documents.upsertMany([published('pub-a', '2101.00001')], NOW);
      // Published first.
      await s.documents.upsertMany([published('pub-b', '2101.00002')], NOW);
      await s.documents.upsertMany([preprint('pre-b', '2101.00002')], NOW);
      // Both in one batch.
      await s.documents.upsertMany([published('pub-c', '2101.00003'), preprint('pre-c', '2101.00003')], NOW);
      const docs = await s.documents.getMany(['pre-a', 'pub-a', 'pre-b', 'pub-b', 'pre-c', 'pub-c']);
      const key = (id: string) => docs.get(id)!.workKey;
      for (const x of ['a', 'b', 'c']) assert.equal(key(`pre-${x}`), key(`pub-${x}`), `pair ${x}`);
      assert.equal(new Set([key('pre-a'), key('pre-b'), key('pre-c')]).size, 3, 'different works stay apart');
    });

    it('documents: the smallest id of a work is its key, whichever record arrives first', async (s) => {
      await s.documents.upsertMany([sampleDocument('q', { uris: ['doi://10.1000/xyz', 'arxiv://2101.00001'] })], NOW);
      const q0 = await s.documents.get('q');
      assert.equal(q0?.workKey, 'q');
      await s.documents.upsertMany([sampleDocument('p', { uris: ['arxiv://2101.00001v1'] })], NOW + 1);
      const q1 = await s.documents.get('q');
      const p = await s.documents.get('p');
      assert.equal(p?.workKey, 'p');
      assert.equal(q1?.workKey, 'p');
      assert.ok(q1!.seq > q0!.seq, 'a relabelled record is re-sequenced');
      assert.equal(q1?.updatedAt, NOW, 'relabelling does not change the record');
      assert.deepEqual(recordOf(q1!), recordOf(q0!));
      const changes = await s.documents.changesSince(q0!.seq, 10);
      assert.deepEqual(changes.map((c) => (c.deleted ? c.id : `${c.doc.id}:${c.doc.workKey}`)).sort(), ['p:p', 'q:p']);
    });

    it('documents: an arXiv DOI links to the arXiv id', async (s) => {
      await s.documents.upsertMany(
        [sampleDocument('a1', { uris: ['arxiv://2101.00001v3'] }), sampleDocument('a2', { uris: ['doi://10.48550/arxiv.2101.00001'] })],
        NOW,
      );
      assert.equal((await s.documents.get('a2'))?.workKey, 'a1');
      await s.documents.upsertMany([sampleDocument('a0', { uris: ['doi://10.48550/arxiv.2101.00001'] })], NOW + 1);
      assert.deepEqual(
        [...(await s.documents.getMany(['a0', 'a1', 'a2'])).values()].map((d) => d.workKey),
        ['a0', 'a0', 'a0'],
      );
    });

    it('documents: a record linking two works merges them into one', async (s) => {
      await s.documents.upsertMany(
        [sampleDocument('m2', { uris: ['doi://10.1/x'] }), sampleDocument('m3', { uris: ['doi://10.1/x'] }), sampleDocument('m1', { uris: ['pubmed://7'] })],
        NOW,
      );
      assert.equal((await s.documents.get('m3'))?.workKey, 'm2');
      assert.equal((await s.documents.get('m1'))?.workKey, 'm1');
      await s.documents.upsertMany([sampleDocument('m9', { uris: ['doi://10.1/x', 'pubmed://7'] })], NOW + 1);
      const docs = await s.documents.getMany(['m1', 'm2', 'm3', 'm9']);
      assert.deepEqual([...docs.values()].map((d) => d.workKey), ['m1', 'm1', 'm1', 'm1']);
    });

    it('documents: landing pages are not identities; unrelated records keep their own id as key', async (s) => {
      await s.documents.upsertMany(
        [sampleDocument('L1', { uris: ['https://example.org/same'] }), sampleDocument('L2', { uris: ['https://example.org/same'] }), sampleDocument('L3', { uris: [] })],
        NOW,
      );
      assert.deepEqual([...(await s.documents.getMany(['L1', 'L2', 'L3'])).values()].map((d) => d.workKey).sort(), ['L1', 'L2', 'L3']);
    });

    it('documents: a merge is not undone when a record later drops the shared URI', async (s) => {
      await s.documents.upsertMany([sampleDocument('k1', { uris: ['doi://10.1/k'] }), sampleDocument('k2', { uris: ['doi://10.1/k'] })], NOW);
      await s.documents.upsertMany([sampleDocument('k1', { uris: ['doi://10.1/other'] })], NOW + 1);
      assert.equal((await s.documents.get('k1'))?.workKey, 'k1');
      assert.equal((await s.documents.get('k2'))?.workKey, 'k1');
      // A deleted record no longer links anything: a new record with the old URI joins k2's work.
      await s.documents.delete('k2', NOW + 2);
      await s.documents.upsertMany([sampleDocument('k0', { uris: ['doi://10.1/k'] })], NOW + 3);
      assert.equal((await s.documents.get('k0'))?.workKey, 'k0');
    });

    it('documents: any sequence of batches and deletes matches the reference model', async (s) => {
      // One store for all runs: each run has its own ids and identifiers, so runs cannot link to each
      // other, and the model starts from the store's current sequence number.
      let run = 0;
      const suffixes = ['a', 'b', 'c', 'B', 'd'];
      const identifiers = ['doi://10.{r}/x', 'doi://10.{r}/y', 'arxiv://2101.{r}v2', 'arxiv://2101.{r}', 'doi://10.48550/arxiv.2101.{r}', 'pubmed://{r}', 'https://example.org/{r}'];
      const record = fc.record({
        id: fc.constantFrom(...suffixes),
        uris: fc.subarray(identifiers, { maxLength: 3 }),
        version: fc.integer({ min: 0, max: 2 }),
        social: fc.boolean(),
      });
      const op = fc.oneof(
        { weight: 4, arbitrary: fc.array(record, { minLength: 1, maxLength: 4 }).map((docs) => ({ kind: 'upsert' as const, docs })) },
        { weight: 1, arbitrary: fc.constantFrom(...suffixes).map((id) => ({ kind: 'delete' as const, id })) },
      );
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async (ops) => {
          const r = ++run;
          const n = String(10_000 + r).slice(1); // 4 digits: valid in DOIs and arXiv ids alike
          const id = (suffix: string) => `run${n}-${suffix}`;
          const start = await s.documents.maxSeq();
          const model = new DocumentModel(start);
          for (const o of ops) {
            if (o.kind === 'delete') {
              assert.equal(await s.documents.delete(id(o.id), NOW), model.delete(id(o.id)));
              continue;
            }
            const docs = o.docs.map((d) =>
              sampleDocument(id(d.id), {
                uris: d.uris.map((u) => u.replace('{r}', n).replace('2101.' + n, `2101.${n}0`)),
                title: `version ${d.version}`,
                index: d.social ? 'social' : 'documents',
              }),
            );
            assert.deepEqual(await s.documents.upsertMany(docs, NOW), model.upsertMany(docs));
          }
          const changes = (await s.documents.changesSince(start, 1000)).map((c) =>
            c.deleted ? { id: c.id, seq: c.seq, deleted: true, workKey: null } : { id: c.doc.id, seq: c.seq, deleted: false, workKey: c.doc.workKey },
          );
          assert.deepEqual(changes, model.changesSince(start));
          assert.equal(await s.documents.maxSeq(), model.seq);
          const uris = identifiers.map((u) => u.replace('{r}', n).replace('2101.' + n, `2101.${n}0`));
          const byUri = await s.documents.getManyByUri(uris);
          for (const uri of uris) {
            assert.equal((await s.documents.getByUri(uri))?.id ?? null, model.idByUri(uri), uri);
            assert.equal(byUri.get(uri)?.id ?? null, model.idByUri(uri), uri);
          }
        }),
        { numRuns: 40 },
      );
    });

    // ---------------------------------------------------------------- documents: works as researchers think of them
    it('works: arXiv versions and the arXiv DOI find the record stored as arxiv://<id> (identity keys)', async (s) => {
      await s.documents.upsertMany([sampleDocument('AX', { uris: ['arxiv://1911.02782'] }), sampleDocument('OTHER', { uris: ['arxiv://1911.02783'] })], 10);
      const works = new WorkLinkedDocumentStore(s.documents);
      for (const asked of ['arxiv://1911.02782v1', 'arxiv://1911.02782v2', 'doi://10.48550/arxiv.1911.02782']) {
        const found = await works.resolveVersion(asked);
        assert.equal(found?.doc.id, 'AX', asked);
        assert.deepEqual(found?.match, { requested: asked, held: 'arxiv://1911.02782', exact: false });
      }
      assert.deepEqual((await works.resolveVersion('arxiv://1911.02782'))?.match, { requested: 'arxiv://1911.02782', held: 'arxiv://1911.02782', exact: true });
      assert.equal(await works.resolveVersion('arxiv://1911.09999v1'), null);
      assert.deepEqual((await s.documents.getByIdentityKeys(['arxiv://1911.02782', 'arxiv://1911.02783'], 10)).map((d) => d.id), ['AX', 'OTHER']);
      assert.deepEqual((await s.documents.getByIdentityKeys(['arxiv://1911.02782', 'arxiv://1911.02783'], 1)).map((d) => d.id), ['AX']);
    });

    it('works: a preprint and its published version linked by a source relation are one work, each listing the other', async (s) => {
      // The published record names its preprint (Crossref has-preprint); neither carries the other's URI.
      const preprint = sampleDocument('PRE', { uris: ['doi://10.1101/2020.01.01.000001'], type: 'preprint' });
      const published = sampleDocument('PUB', { uris: ['doi://10.1234/pub'], relations: [{ kind: 'version', uri: 'doi://10.1101/2020.01.01.000001' }] });
      await s.documents.upsertMany([published], 10);
      await s.documents.upsertMany([preprint], 11);
      const works = new WorkLinkedDocumentStore(s.documents);
      const got = await works.getMany(['PRE', 'PUB']);
      assert.equal(got.get('PRE')!.workKey, got.get('PUB')!.workKey);
      assert.deepEqual(got.get('PUB')!.versions!.map((v) => [v.id, v.type, v.uris]), [['PRE', 'preprint', ['doi://10.1101/2020.01.01.000001']]]);
      assert.deepEqual(got.get('PRE')!.versions!.map((v) => v.id), ['PUB']);
      await s.documents.upsertMany([sampleDocument('ALONE', { uris: ['doi://10.1234/alone'] })], 12);
      const members = await s.documents.workMembers([got.get('PRE')!.workKey, 'no-such-work', 'ALONE'], 10);
      assert.deepEqual([...members.keys()], [got.get('PRE')!.workKey], 'a work of one record has no other versions: absent');
      assert.deepEqual(members.get(got.get('PRE')!.workKey)!.map((m) => [m.id, m.title, m.issuedAt]), [['PRE', 'Title of PRE', 1_600_000_000], ['PUB', 'Title of PUB', 1_600_000_000]]);
      assert.deepEqual((await s.documents.workMembers([got.get('PRE')!.workKey], 1)).get(got.get('PRE')!.workKey)!.map((m) => m.id), ['PRE']);
      // by-uri of the preprint's DOI answers with the preprint itself, exactly.
      assert.equal((await works.resolveVersion('doi://10.1101/2020.01.01.000001'))?.match.exact, true);
    });

    it('works: notices link both ways; the notice is not retracted, the work is; deletes and rewrites drop links', async (s) => {
      const work = sampleDocument('WORK', { uris: ['doi://10.1234/work'] });
      const notice = sampleDocument('RN', {
        uris: ['doi://10.1234/retraction'],
        title: 'Retraction Note: Title of WORK',
        noticeKind: 'retraction',
        relations: [{ kind: 'retraction', uri: 'doi://10.1234/work' }, { kind: 'erratum', uri: 'doi://10.1234/not-held' }],
      });
      await s.documents.upsertMany([work, notice], 10);
      assert.deepEqual(await s.documents.relationsTo(['doi://10.1234/work', 'doi://10.1234/not-held', 'doi://10.1234/nothing']), [
        { target: 'doi://10.1234/not-held', kind: 'erratum', documentId: 'RN', documentUris: ['doi://10.1234/retraction'] },
        { target: 'doi://10.1234/work', kind: 'retraction', documentId: 'RN', documentUris: ['doi://10.1234/retraction'] },
      ]);
      const works = new WorkLinkedDocumentStore(s.documents);
      const w = (await works.get('WORK'))!;
      assert.equal(w.isRetracted, true);
      assert.deepEqual(w.notices, [{ kind: 'retraction', uri: 'doi://10.1234/retraction', documentId: 'RN' }]);
      const n = (await works.get('RN'))!;
      assert.equal(n.isRetracted, false);
      assert.deepEqual(n.notices, []);
      assert.deepEqual(n.noticeOf, [
        { kind: 'retraction', uri: 'doi://10.1234/work', documentId: 'WORK' },
        { kind: 'erratum', uri: 'doi://10.1234/not-held', documentId: null },
      ]);
      // The notice rewritten without its relations, then deleted: the work no longer lists it.
      await s.documents.upsertMany([{ ...notice, relations: [{ kind: 'retraction', uri: 'doi://10.1234/elsewhere' }] }], 11);
      assert.deepEqual((await works.get('WORK'))!.notices, []);
      assert.equal((await works.get('WORK'))!.isRetracted, false);
      await s.documents.upsertMany([{ ...notice }], 12);
      assert.equal((await works.getByUri('doi://10.1234/work'))!.isRetracted, true);
      await s.documents.delete('RN', 13);
      assert.deepEqual(await s.documents.relationsTo(['doi://10.1234/work']), []);
      assert.equal((await works.get('WORK'))!.isRetracted, false);
    });

    it('works: a notice naming another arXiv version of a work finds it, both ways', async (s) => {
      await s.documents.upsertMany(
        [
          sampleDocument('AXW', { uris: ['arxiv://1911.02782'] }),
          sampleDocument('AXV', { uris: ['arxiv://2001.00001v2'] }),
          sampleDocument('E1', { uris: ['doi://10.1234/e1'], noticeKind: 'erratum', relations: [{ kind: 'erratum', uri: 'arxiv://1911.02782v1' }] }),
          sampleDocument('E2', { uris: ['doi://10.1234/e2'], noticeKind: 'expression_of_concern', relations: [{ kind: 'expression_of_concern', uri: 'arxiv://2001.00001' }] }),
        ],
        10,
      );
      const works = new WorkLinkedDocumentStore(s.documents);
      const got = await works.getMany(['AXW', 'AXV', 'E1', 'E2']);
      assert.deepEqual(got.get('AXW')!.notices, [{ kind: 'erratum', uri: 'doi://10.1234/e1', documentId: 'E1' }]);
      assert.deepEqual(got.get('AXV')!.notices, [{ kind: 'expression_of_concern', uri: 'doi://10.1234/e2', documentId: 'E2' }]);
      assert.deepEqual(got.get('E1')!.noticeOf, [{ kind: 'erratum', uri: 'arxiv://1911.02782v1', documentId: 'AXW' }]);
      assert.deepEqual(got.get('E2')!.noticeOf, [{ kind: 'expression_of_concern', uri: 'arxiv://2001.00001', documentId: 'AXV' }]);
    });

    // ---------------------------------------------------------------- documents: atomic batches
    it('documents: a batch that fails part-way leaves none of its documents', async (s) => {
      await s.documents.upsertMany([sampleDocument('keep', { uris: ['doi://10.1/keep'] })], NOW);
      const maxSeq = await s.documents.maxSeq();
      const kept = await s.documents.get('keep');
      // A record the store refuses (no index: NOT NULL) after good ones, one of which would merge works.
      const badIndex = sampleDocument('bad', { index: undefined as unknown as IndexName });
      // A record that cannot be serialised at all.
      const badJson = sampleDocument('bad2', { extra: { n: 1n } as Record<string, unknown> });
      for (const bad of [badIndex, badJson]) {
        await assert.rejects(
          s.documents.upsertMany(
            [sampleDocument('new1'), sampleDocument('keep', { title: 'changed', uris: ['doi://10.1/keep', 'doi://10.1/z'] }), sampleDocument('new0', { uris: ['doi://10.1/keep'] }), bad],
            NOW + 1,
          ),
        );
        assert.equal(await s.documents.get('new1'), null);
        assert.equal(await s.documents.get('new0'), null);
        assert.equal(await s.documents.get(bad.id), null);
        assert.deepEqual(await s.documents.get('keep'), kept);
        assert.equal(await s.documents.getByUri('doi://10.1/z'), null);
        assert.equal(await s.documents.count(), 1);
        assert.equal(await s.documents.maxSeq(), maxSeq);
        assert.deepEqual((await allChanges(s)).length, 1);
      }
      // The store is still usable afterwards.
      assert.deepEqual(await s.documents.upsertMany([sampleDocument('new1')], NOW + 2), { inserted: 1, updated: 0, unchanged: 0 });
    });

    // ---------------------------------------------------------------- activity
    it('activity: no events gives zero counts and asOfAt null', async (s) => {
      const c = await s.activity.counts('W1', NOW);
      assert.deepEqual(c, {
        documentId: 'W1',
        views7d: 0,
        views30d: 0,
        shown7d: 0,
        shown30d: 0,
        agentReads7d: 0,
        agentReads30d: 0,
        aiCitations7d: 0,
        aiCitations30d: 0,
        positiveRatings7d: 0,
        positiveRatings30d: 0,
        asOfAt: null,
      });
      await s.activity.record([]);
    });

    it('activity: counts per kind over the last 7 and 30 UTC days; asOfAt is the newest event', async (s) => {
      const ev = (kind: ActivityEvent['kind'], at: number, documentId = 'W1'): ActivityEvent => ({ documentId, kind, accountId: null, visitor: null, at });
      await s.activity.record([
        ev('shown', NOW - 60),
        ev('shown', NOW - 2 * DAY),
        ev('shown', NOW - 7 * DAY), // 7 UTC days ago: outside the 7-day window (today and the 6 before), inside 30
        ev('shown', NOW - 7 * DAY + 1), // the same UTC day (NOW is noon): outside too
        ev('shown', Math.floor(NOW / DAY) * DAY - 6 * DAY), // midnight starting the 7-day window: inside
        ev('shown', NOW - 20 * DAY),
        ev('shown', NOW - 30 * DAY), // exactly 30 days old: outside both
        ev('shown', NOW - 40 * DAY),
        ev('agent_read', NOW - 1),
        ev('agent_read', NOW - 10 * DAY),
        ev('ai_citation', NOW - 3 * DAY),
        ev('positive_rating', NOW - 29 * DAY),
        ev('shown', NOW - 1, 'W2'),
      ]);
      await s.activity.record([{ documentId: 'W1', kind: 'agent_read', accountId: 7, visitor: 'v', at: NOW - 5 }]);
      assert.deepEqual(await s.activity.counts('W1', NOW), {
        documentId: 'W1',
        views7d: 0,
        views30d: 0,
        shown7d: 3,
        shown30d: 6,
        agentReads7d: 2,
        agentReads30d: 3,
        aiCitations7d: 1,
        aiCitations30d: 1,
        positiveRatings7d: 0,
        positiveRatings30d: 1,
        asOfAt: NOW - 1,
      });
      // asOfAt is the newest event even when it is older than the windows.
      const later = await s.activity.counts('W1', NOW + 100 * DAY);
      assert.equal(later.shown30d, 0);
      assert.equal(later.asOfAt, NOW - 1);
      assert.equal((await s.activity.counts('W2', NOW)).shown7d, 1);
    });

    it('activity: a view counts once per visitor and UTC day', async (s) => {
      const midnight = Math.floor(NOW / DAY) * DAY;
      const view = (visitor: string | null, at: number, documentId = 'W1'): ActivityEvent => ({ documentId, kind: 'view', accountId: null, visitor, at });
      // Twice in one call, and again in a later call, the same UTC day: one view.
      await s.activity.record([view('v1', midnight + 10), view('v1', midnight + 20)]);
      await s.activity.record([view('v1', midnight + DAY - 1)]);
      assert.equal((await s.activity.counts('W1', NOW)).views7d, 1);
      // The previous UTC day (one second before midnight) is another day: a second view.
      await s.activity.record([view('v1', midnight - 1)]);
      // Another visitor, and the same visitor on another document.
      await s.activity.record([view('v2', midnight + 30), view('v1', midnight + 30, 'W2')]);
      // Anonymous views (no visitor) are not de-duplicated.
      await s.activity.record([view(null, midnight + 40), view(null, midnight + 41)]);
      const c = await s.activity.counts('W1', NOW);
      assert.equal(c.views7d, 5);
      assert.equal(c.views30d, 5);
      assert.equal((await s.activity.counts('W2', NOW)).views7d, 1);
      // Other kinds ignore the visitor: every event counts.
      await s.activity.record([
        { documentId: 'W1', kind: 'agent_read', accountId: 1, visitor: 'v1', at: midnight + 50 },
        { documentId: 'W1', kind: 'agent_read', accountId: 1, visitor: 'v1', at: midnight + 50 },
      ]);
      assert.equal((await s.activity.counts('W1', NOW)).agentReads7d, 2);
    });

    it('activity retention: counters and trending totals survive pruning of raw events; views still count once a day', async (s) => {
      const ev = (kind: ActivityEvent['kind'], at: number, documentId = 'W1', visitor: string | null = null): ActivityEvent => ({ documentId, kind, accountId: null, visitor, at });
      await s.activity.record([ev('shown', NOW - 10 * DAY), ev('agent_read', NOW - 3 * DAY), ev('view', NOW - 60, 'W1', 'v1'), ev('positive_rating', NOW - 40 * DAY), ev('view', NOW - 60, 'W2', 'v1'), ev('view', NOW - 10 * DAY, 'W3', 'v9')]);
      const before = await s.activity.counts('W1', NOW);
      const topBefore = await s.activity.topOver(NOW, 7, 10);
      assert.deepEqual(topBefore, [
        { documentId: 'W1', views: 1, shown: 0, agentReads: 1, aiCitations: 0, positiveRatings: 0 },
        { documentId: 'W2', views: 1, shown: 0, agentReads: 0, aiCitations: 0, positiveRatings: 0 },
      ]);
      // Raw events older than 2 days and counters of days before 31 days ago go. Only views have raw
      // events (they de-duplicate views; the other kinds go straight to the counters, ADR 0137).
      // The 40-day-old rating has two counter rows: the event count and trending's reader count (ADR 0211).
      const pruned = await s.activity.prune(NOW - 2 * DAY, Math.floor(NOW / DAY) - 30);
      assert.deepEqual(pruned, { raw: 1, daily: 2 });
      assert.deepEqual(await s.activity.counts('W1', NOW), before);
      assert.deepEqual(await s.activity.topOver(NOW, 7, 10), topBefore);
      assert.equal((await s.activity.topOver(NOW, 30, 1))[0]!.documentId, 'W1');
      // The view of today is still de-duplicated after pruning.
      await s.activity.record([ev('view', NOW, 'W1', 'v1')]);
      assert.equal((await s.activity.counts('W1', NOW)).views7d, 1);
    });

    it('trending totals count agent reads, AI citations and positive ratings once per account, document and day (ADR 0211)', async (s) => {
      const ev = (kind: ActivityEvent['kind'], accountId: number | null, at = NOW - 60, documentId = 'W1'): ActivityEvent => ({ documentId, kind, accountId, visitor: null, at });
      // One account's burst, in one batch and across batches.
      await s.activity.record([ev('positive_rating', 7), ev('positive_rating', 7), ev('agent_read', 7), ev('agent_read', 7), ev('ai_citation', 7)]);
      await s.activity.record([ev('positive_rating', 7), ev('agent_read', 7), ev('positive_rating', 7, NOW - DAY - 60)]);
      // Two readers of W2, and one event without an account (counts as its own reader).
      await s.activity.record([ev('positive_rating', 8, NOW - 60, 'W2'), ev('positive_rating', 9, NOW - 60, 'W2'), ev('agent_read', null, NOW - 60, 'W2'), ev('agent_read', null, NOW - 60, 'W2')]);
      const top = await s.activity.topOver(NOW, 7, 10);
      assert.deepEqual(top, [
        { documentId: 'W1', views: 0, shown: 0, agentReads: 1, aiCitations: 1, positiveRatings: 2 },
        { documentId: 'W2', views: 0, shown: 0, agentReads: 2, aiCitations: 0, positiveRatings: 2 },
      ]);
      // The activity counters still count every event.
      const c = await s.activity.counts('W1', NOW);
      assert.equal(c.positiveRatings7d, 4);
      assert.equal(c.agentReads7d, 3);
    });
  });
}
