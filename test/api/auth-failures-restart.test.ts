// Issue 25, "key guessing locks out the real key" (ADR 0271, superseding 0210's exemption of keys seen
// working): after 40 wrong keys from an address, a valid key from the same address is accepted even
// when this process never saw it work (created before a restart, or never used), on the API and on MCP,
// while every further wrong key from that address is still refused with 429, Retry-After and the
// interface's rate_limited body until the address's bucket refills.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp } from '../helpers/app.js';

test('a valid key created before a restart, and one never used, work from an address spent by 40 wrong keys; wrong keys stay 429', async () => {
  // The default authFailures budget (burst 30, 0.5/s); the test clock stands still, so nothing refills.
  const first = await testApp();
  const before = await first.account();
  const unused = await first.account();
  const used = await first.http.inject({ method: 'GET', url: '/v2/conversations/', headers: { 'x-api-key': before.key } });
  assert.equal(used.statusCode, 200);
  await first.close();
  // The server restarts over the same data directory: nothing of the first process is remembered.
  const app = await testApp({ dataDir: first.dir });
  try {
    const ip = '198.51.100.7';
    const get = (key: string) => app.http.inject({ method: 'GET', url: '/v2/conversations/', headers: { 'x-api-key': key }, remoteAddress: ip });
    const mcp = (key: string) =>
      app.http.inject({ method: 'POST', url: '/mcp', headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' }, remoteAddress: ip, payload: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    // Well-formed keys with made-up ids and secrets: each costs a lookup, none is found.
    const wrong = (i: number) => `lk_${i.toString(16).padStart(12, '0')}_${'A'.repeat(43)}`;
    const codes: number[] = [];
    for (let i = 0; i < 40; i++) codes.push((await get(wrong(i))).statusCode);
    assert.deepEqual([...new Set(codes.slice(0, 30))], [401], 'the burst of 30 failures answers 401');
    assert.deepEqual([...new Set(codes.slice(30))], [429], 'then the address is spent');
    // The valid keys from the same address: the one used before the restart, the one never used.
    assert.equal((await get(before.key)).statusCode, 200, 'a key created before the restart is not locked out');
    assert.equal((await get(unused.key)).statusCode, 200, 'a key never used is not locked out');
    assert.ok((await mcp(unused.key)).statusCode < 400, 'nor on MCP');
    // A revoked key is a wrong key.
    await app.apiKeys.revoke(unused.key);
    for (const key of [wrong(41), 'lk_short', unused.key]) {
      const res = await get(key);
      assert.equal(res.statusCode, 429, key);
      const retry = Number(res.headers['retry-after']);
      assert.ok(Number.isInteger(retry) && retry >= 1, `Retry-After: ${res.headers['retry-after']}`);
      const body = res.json();
      assert.equal(body.status, 'error');
      assert.equal(body.detail.code, 'rate_limited');
      assert.equal(body.detail.retry_after_seconds, retry);
      assert.equal(body.detail.scope, 'authFailures');
      assert.ok(res.headers['x-request-id']);
    }
    const guessed = await mcp(wrong(42));
    assert.equal(guessed.statusCode, 429);
    assert.equal(guessed.json().detail.scope, 'authFailures');
    // Another address is not affected; after the refill the spent address gets 401 for a wrong key again.
    assert.equal((await app.http.inject({ method: 'GET', url: '/v2/conversations/', headers: { 'x-api-key': wrong(43) }, remoteAddress: '198.51.100.8' })).statusCode, 401);
    app.clock.advance(10 * 60_000);
    assert.equal((await get(wrong(44))).statusCode, 401);
    assert.equal((await get(before.key)).statusCode, 200);
  } finally {
    await app.dispose();
  }
});
