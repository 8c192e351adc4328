// The rate-limit override store contract (ports/rate-override-store.ts; ADR 0084): one suite run
// against the SQLite and PostgreSQL stores. Callers pass a factory that opens fresh, empty storage.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RateOverrideStore } from '../../src/ports/rate-override-store.js';
import type { StorageFixture } from '../helpers/storage.js';

export type RateOverrideStoreFactory = () => Promise<{ fixture: StorageFixture; overrides: RateOverrideStore }>;

export function rateOverrideStoreContract(label: string, open: RateOverrideStoreFactory): void {
  describe(`rate-limit override store contract: ${label}`, () => {
    test('set, replace, list by scope, clear one or all; accounts are separate; fractional rates kept', async () => {
      const { fixture, overrides } = await open();
      try {
        const a = (await fixture.storage.accounts.create({ email: 'a@example.org' })).id;
        const b = (await fixture.storage.accounts.create({ email: 'b@example.org' })).id;
        assert.deepEqual(await overrides.list(a), []);
        await overrides.set({ accountId: a, scope: 'search', capacity: 5000, refillPerSecond: 250.5, updatedAt: 100 });
        await overrides.set({ accountId: a, scope: 'documents', capacity: 10, refillPerSecond: 0.25, updatedAt: 100 });
        await overrides.set({ accountId: b, scope: 'search', capacity: 1, refillPerSecond: 0, updatedAt: 100 });
        await overrides.set({ accountId: a, scope: 'search', capacity: 6000, refillPerSecond: 300, updatedAt: 200 });
        assert.deepEqual(await overrides.list(a), [
          { accountId: a, scope: 'documents', capacity: 10, refillPerSecond: 0.25, updatedAt: 100 },
          { accountId: a, scope: 'search', capacity: 6000, refillPerSecond: 300, updatedAt: 200 },
        ]);
        assert.equal(await overrides.clear(a, 'search'), 1);
        assert.equal(await overrides.clear(a, 'search'), 0);
        assert.deepEqual((await overrides.list(a)).map((o) => o.scope), ['documents']);
        assert.equal(await overrides.clear(a), 1);
        assert.deepEqual(await overrides.list(a), []);
        assert.deepEqual(await overrides.list(b), [{ accountId: b, scope: 'search', capacity: 1, refillPerSecond: 0, updatedAt: 100 }]);
      } finally {
        await fixture.dispose();
      }
    });

    test('an override needs an existing account; 20 concurrent sets of one scope leave one row', async () => {
      const { fixture, overrides } = await open();
      try {
        await assert.rejects(overrides.set({ accountId: 987654, scope: 'search', capacity: 1, refillPerSecond: 1, updatedAt: 1 }));
        const a = (await fixture.storage.accounts.create({ email: 'c@example.org' })).id;
        await Promise.all(Array.from({ length: 20 }, (_, i) => overrides.set({ accountId: a, scope: 'search', capacity: i + 1, refillPerSecond: i, updatedAt: i })));
        const rows = await overrides.list(a);
        assert.equal(rows.length, 1);
        assert.equal(rows[0]!.capacity, rows[0]!.refillPerSecond + 1, 'one whole write won');
      } finally {
        await fixture.dispose();
      }
    });
  });
}
