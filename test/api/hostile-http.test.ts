// The error contract before routing and floods (issue 12): malformed paths and overlong parameters are
// ApiErrors with X-Request-Id; malformed UTF-8 in a JSON body is refused; guessing API keys is bounded
// per address; a slow body is cut off with 408.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { testApp, type TestApp } from '../helpers/app.js';

describe('hostile HTTP input', () => {
  let app: TestApp;
  let acct: { id: number; key: string };
  before(async () => {
    app = await testApp({ rateLimits: { authFailures: { capacity: 5, refillPerSecond: 0.5 } }, limits: { requestTimeoutMs: 1000 } } as never);
    acct = await app.account({ credits: 100 });
  });
  after(() => app.dispose());

  test('bad percent-escapes, overlong UTF-8 and overlong parameters answer with an ApiError and X-Request-Id', async () => {
    for (const [url, status] of [['/v2/documents/%zz', 400], ['/v2/documents/%', 400], ['/v2/documents/%C0%AF', 400], ['/v2/conversations/%E0%A4%A', 400], [`/v2/documents/${'x'.repeat(5000)}`, 414]] as const) {
      const res = await app.http.inject({ method: 'GET', url, headers: { 'x-api-key': acct.key } });
      assert.equal(res.statusCode, status, url);
      assert.ok(res.headers['x-request-id'], url);
      assert.equal(res.json().status, 'error');
      assert.equal(typeof res.json().detail.code, 'string');
    }
  });

  test('malformed UTF-8 in a JSON body is refused with 400, not replaced', async () => {
    const body = Buffer.concat([Buffer.from('{"query": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': acct.key, 'content-type': 'application/json' }, payload: body });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().detail.code, 'malformed_json');
    assert.equal(await app.billing.balance(acct.id), 100);
  });

  test('failed API-key checks are bounded per address; a spent address is refused until it refills', async () => {
    const ip = '203.0.113.9';
    const get = (key: string) => app.http.inject({ method: 'GET', url: '/v2/conversations/', headers: { 'x-api-key': key }, remoteAddress: ip });
    for (let i = 0; i < 5; i++) assert.equal((await get(`lk_wrong${i}`)).statusCode, 401);
    const limited = await get('lk_wrong_again');
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().detail.code, 'rate_limited');
    assert.equal(limited.json().detail.scope, 'authFailures');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    // A valid key is checked first and accepted from the spent address, also one never used before (ADR 0271)...
    const fresh = await app.account();
    assert.equal((await get(fresh.key)).statusCode, 200, 'a valid credential is not locked out by the failures of others at its address');
    assert.equal((await get('lk_wrong_after')).statusCode, 429, 'a wrong one still is');
    assert.equal((await app.http.inject({ method: 'GET', url: '/v2/conversations/', headers: { 'x-api-key': acct.key }, remoteAddress: '203.0.113.10' })).statusCode, 200);
    app.clock.advance(4000);
    assert.equal((await get(acct.key)).statusCode, 200);
  });

  test('key guessing from an address does not lock out a working key from the same address (issue 25), and stays bounded', async () => {
    const ip = '203.0.113.20';
    const mine = await app.account();
    const get = (key: string) => app.http.inject({ method: 'GET', url: '/v2/conversations/', headers: { 'x-api-key': key }, remoteAddress: ip });
    const mcp = (key: string) =>
      app.http.inject({ method: 'POST', url: '/mcp', headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' }, remoteAddress: ip, payload: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    assert.equal((await get(mine.key)).statusCode, 200);
    // Someone else behind the same address (a NAT) guesses keys until the address is spent.
    let refused = 0;
    for (let i = 0; i < 40; i++) if ((await get(`lk_guess${i}_${'x'.repeat(20)}`)).statusCode === 429) refused++;
    assert.ok(refused >= 30, `guessing is bounded: ${refused} of 40 refused with 429`);
    assert.equal((await get('lk_guess_again')).statusCode, 429);
    // The working key from the same address still works, on the API and on MCP.
    assert.equal((await get(mine.key)).statusCode, 200, 'the valid key is not locked out by others\' guesses');
    assert.ok((await mcp(mine.key)).statusCode < 400);
    // Guessing on MCP spends the same budget: refused before the check.
    const guessed = await mcp('lk_guess_mcp');
    assert.equal(guessed.statusCode, 429);
    assert.equal(guessed.json().detail.scope, 'authFailures');
  });

  test('a body that never finishes arriving is cut off with 408', async () => {
    await app.http.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.http.server.address() as { port: number };
    const answer = await new Promise<string>((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => {
        s.write(`POST /v2/search/ HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${acct.key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":`);
      });
      let data = '';
      s.on('data', (d) => (data += d.toString()));
      s.on('close', () => resolve(data));
      s.on('error', reject);
      setTimeout(() => reject(new Error('no answer within 10 s')), 10_000).unref();
    });
    assert.match(answer, /^HTTP\/1\.1 408/);
    assert.match(answer, /X-Request-Id: /i);
  });

  test('every route cuts a slow body, also when it answered before reading it (anonymous /mcp, /v2/mcp; issue 25)', async () => {
    if (!app.http.server.listening) await app.http.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.http.server.address() as { port: number };
    /** A client that keeps trickling a body that never completes; resolves with what it got when the server closed. */
    const slow = (path: string, headers: string) =>
      new Promise<{ answer: string; closed: boolean }>((resolve) => {
        let data = '';
        const s = connect(port, '127.0.0.1', () => {
          s.write(`POST ${path} HTTP/1.1\r\nHost: x\r\n${headers}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{"jsonrpc":`);
        });
        const drip = setInterval(() => s.writable && s.write(' '), 200);
        const give = setTimeout(() => finish(false), 60_000); // a generous ceiling, not a budget: the server closes within ~1 s
        const finish = (closed: boolean) => {
          clearInterval(drip);
          clearTimeout(give);
          s.destroy();
          resolve({ answer: data, closed });
        };
        s.on('data', (d) => (data += d.toString()));
        s.on('error', () => finish(true));
        s.on('close', () => finish(true));
      });
    for (const [path, headers] of [
      ['/mcp', ''],
      ['/v2/mcp', ''],
      ['/mcp', 'Authorization: Bearer lk_wrong_key\r\n'],
      ['/v2/search/', ''],
      ['/v2/mcp', `Authorization: Bearer ${acct.key}\r\n`],
    ] as const) {
      const r = await slow(path, headers);
      assert.ok(r.closed, `${path} ${headers.split(':')[0]}: the socket was still held`);
      assert.match(r.answer, /^HTTP\/1\.1 (401|408|429)/, `${path}: ${r.answer.slice(0, 80)}`);
    }
  });
});
