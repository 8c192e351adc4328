// A per-account rate-limit override from the CLI (issue 13; ADR 0084): `lectern accounts rate-limit
// ACCOUNT --scope S --burst N --per-second R` gives one account its own budget for a scope, stored in
// the database and applied by the limiter; `--clear` returns it to the configured rateLimits; bad
// input is refused with a clear message and changes nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OVERRIDE_CACHE_MS } from '../../src/limits/rate-limit-service.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { runCliOn } from '../helpers/cli.js';

describe('accounts rate-limit (per-account override)', () => {
  let app: TestApp;
  before(async () => {
    app = await testApp({ rateLimits: { search: { capacity: 2, refillPerSecond: 0.001 } } as never });
  });
  after(() => app.dispose());

  const searches = async (key: string, n: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) statuses.push((await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: { query: 'x' } })).statusCode);
    return statuses;
  };

  test('an override raises one account budget, is listed, and --clear restores the configured one', async () => {
    const a = await app.account();
    const b = await app.account();
    const set = await runCliOn(app, ['accounts', 'rate-limit', String(a.id), '--scope', 'search', '--burst', '5', '--per-second', '0.001']);
    assert.equal(set.code, 0);
    assert.deepEqual(set.out.rate_limits.search, { burst: 5, per_second: 0.001, overridden: true });
    assert.deepEqual(set.out.rate_limits.documents.overridden, false);
    assert.deepEqual(await searches(a.key, 6), [200, 200, 200, 200, 200, 429]);
    assert.deepEqual(await searches(b.key, 3), [200, 200, 429], 'other accounts keep the configured budget');
    const shown = await runCliOn(app, ['accounts', 'rate-limit', String(a.id)]);
    assert.deepEqual(shown.out.rate_limits.search, { burst: 5, per_second: 0.001, overridden: true });
    const cleared = await runCliOn(app, ['accounts', 'rate-limit', String(a.id), '--clear']);
    assert.equal(cleared.out.cleared, 1);
    assert.deepEqual(cleared.out.rate_limits.search, { burst: 2, per_second: 0.001, overridden: false });
    assert.deepEqual(await app.rateLimits.overridesOf(a.id), []);
  });

  test('an override written by another process (another instance, the CLI) applies within the cache time', async () => {
    const c = await app.account();
    assert.deepEqual(await searches(c.key, 3), [200, 200, 429]);
    await app.storage.accounts.get(c.id); // the store is shared: write as another process would
    const { rateOverrideStoreFor } = await import('../../src/adapters/rate-override-store-factory.js');
    await rateOverrideStoreFor(app.storage).set({ accountId: c.id, scope: 'search', capacity: 100, refillPerSecond: 100, updatedAt: 0 });
    assert.equal((await searches(c.key, 1))[0], 429, 'still the cached rule');
    app.clock.advance(OVERRIDE_CACHE_MS + 1000);
    assert.deepEqual(await searches(c.key, 3), [200, 200, 200]);
  });

  test('bad input: unknown account or scope, an address scope, missing values, out of range: refused, nothing stored', async () => {
    const d = await app.account();
    const run = (...args: string[]) => runCliOn(app, ['accounts', 'rate-limit', ...args]);
    assert.equal((await run('999999', '--scope', 'search', '--burst', '5', '--per-second', '1')).code, 1);
    assert.equal((await run(String(d.id), '--scope', 'bogus', '--burst', '5', '--per-second', '1')).code, 1);
    assert.equal((await run(String(d.id), '--scope', 'oauth', '--burst', '5', '--per-second', '1')).code, 2);
    assert.equal((await run(String(d.id), '--scope', 'search', '--burst', '5')).code, 2);
    assert.equal((await run(String(d.id), '--burst', '5', '--per-second', '1')).code, 2);
    assert.equal((await run(String(d.id), '--scope', 'search', '--burst', '0', '--per-second', '1')).code, 2);
    assert.equal((await run(String(d.id), '--scope', 'search', '--burst', '5', '--per-second=-1')).code, 1);
    assert.equal((await run(String(d.id), '--scope', 'search', '--burst', '5', '--per-second', 'fast')).code, 2);
    assert.equal((await run(String(d.id), '--scope', 'search', '--burst', '5', '--per-second', '1', '--clear')).code, 2);
    assert.deepEqual(await app.rateLimits.overridesOf(d.id), []);
  });
});
