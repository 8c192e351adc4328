// Every error is an ApiError with X-Request-Id: unknown routes, malformed JSON (located), oversize
// bodies, wrong content types, schema violations, unknown properties, unbounded numbers, 401, 429,
// 500 without internals, and errors raised before routing (431).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { Type } from 'typebox';
import { testApp, type TestApp } from '../helpers/app.js';

function assertApiError(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  const body = JSON.parse(res.body) as { status: string; detail: unknown };
  assert.equal(body.status, 'error');
  assert.ok(typeof body.detail === 'string' || (typeof body.detail === 'object' && body.detail !== null && typeof (body.detail as { code?: unknown }).code === 'string'));
  return body.detail as { code: string; message: string; [k: string]: unknown };
}

describe('error responses', () => {
  let app: TestApp;
  let key: string;
  before(async () => {
    app = await testApp({ limits: { jsonBodyBytes: 4096 } } as never, {
      extraRoutes: [
        (f) => {
          f.post('/test/echo', {
            schema: {
              body: Type.Object(
                { n: Type.Integer({ minimum: 0, maximum: 100, default: 1 }), s: Type.Optional(Type.String({ maxLength: 5 })) },
                { additionalProperties: false },
              ),
            },
          }, async (req) => req.body);
          f.get('/test/boom', async () => {
            throw new Error('database password is hunter2');
          });
        },
      ],
    });
    key = (await app.account()).key;
  });
  after(() => app.dispose());

  test('unknown route: 404 ApiError', async () => {
    const d = assertApiError(await app.http.inject({ method: 'GET', url: '/nope' }), 404);
    assert.equal(d.code, 'route_not_found');
  });

  test('successes carry X-Request-Id too', async () => {
    const res = await app.http.inject({ method: 'GET', url: '/healthz' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });

  test('missing or invalid credential: 401 with detail Unauthorized', async () => {
    for (const headers of [{}, { 'x-api-key': 'lk_000000000000_' + 'a'.repeat(43) }, { authorization: 'Bearer nope' }, { authorization: 'Basic abc' }]) {
      const res = await app.http.inject({ method: 'POST', url: '/test/echo', headers, payload: {} });
      assert.equal(assertApiError(res, 401) as unknown, 'Unauthorized');
    }
  });

  test('X-Api-Key and Authorization: Bearer both authenticate', async () => {
    for (const headers of [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }]) {
      const res = await app.http.inject({ method: 'POST', url: '/test/echo', headers, payload: { n: 3 } });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { n: 3 });
    }
  });

  test('defaults are applied', async () => {
    const res = await app.http.inject({ method: 'POST', url: '/test/echo', headers: { 'x-api-key': key }, payload: {} });
    assert.deepEqual(res.json(), { n: 1 });
  });

  test('malformed JSON: 400 that says where', async () => {
    const res = await app.http.inject({ method: 'POST', url: '/test/echo', headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: '{\n  "n": 1,\n  oops\n}' });
    const d = assertApiError(res, 400);
    assert.equal(d.code, 'malformed_json');
    assert.match(d.message, /line 3, column 3/);
  });

  test('empty JSON body: 400', async () => {
    const res = await app.http.inject({ method: 'POST', url: '/test/echo', headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: '' });
    assert.equal(assertApiError(res, 400).code, 'malformed_json');
  });

  test('oversize body: 413', async () => {
    const res = await app.http.inject({ method: 'POST', url: '/test/echo', headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: JSON.stringify({ s: 'x'.repeat(10_000) }) });
    assert.equal(assertApiError(res, 413).code, 'payload_too_large');
  });

  test('wrong content type: 415', async () => {
    const res = await app.http.inject({ method: 'POST', url: '/test/echo', headers: { 'x-api-key': key, 'content-type': 'text/plain' }, payload: 'n=1' });
    const d = assertApiError(res, 415);
    assert.equal(d.code, 'unsupported_media_type');
    assert.match(d.message, /application\/json/);
  });

  test('schema violations: 422 naming each problem', async () => {
    const res = await app.http.inject({ method: 'POST', url: '/test/echo', headers: { 'x-api-key': key }, payload: { n: 101, s: 'toolong', extra: true } });
    const d = assertApiError(res, 422);
    assert.equal(d.code, 'validation_failed');
    assert.match(d.message, /body\/n must be <= 100/);
    assert.match(d.message, /unknown property "extra"/);
    assert.match(d.message, /body\/s must NOT have more than 5 characters/);
  });

  test('wrong types are refused, not coerced', async () => {
    const res = await app.http.inject({ method: 'POST', url: '/test/echo', headers: { 'x-api-key': key }, payload: { n: '5' } });
    assert.match(assertApiError(res, 422).message, /body\/n must be integer/);
  });

  test('1e999 is not an integer that passes', async () => {
    const res = await app.http.inject({ method: 'POST', url: '/test/echo', headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: '{"n": 1e999}' });
    assertApiError(res, 422);
  });

  test('500 never leaks internals', async () => {
    const res = await app.http.inject({ method: 'GET', url: '/test/boom', headers: { 'x-api-key': key } });
    const d = assertApiError(res, 500);
    assert.equal(d.code, 'internal');
    assert.doesNotMatch(res.body, /hunter2/);
    assert.match(d.message, /X-Request-Id/);
  });

  test('errors before routing (oversize headers) are ApiErrors with X-Request-Id', async () => {
    await app.http.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.http.server.address() as { port: number }).port;
    const raw = await new Promise<string>((resolve, reject) => {
      const sock = connect(port, '127.0.0.1');
      let data = '';
      sock.on('data', (c) => (data += c.toString()));
      sock.on('end', () => resolve(data));
      sock.on('error', reject);
      sock.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    });
    assert.match(raw, /^HTTP\/1\.1 431 /);
    assert.match(raw, /X-Request-Id: [0-9a-f-]{36}/i);
    assert.match(raw, /"status":"error"/);
  });
});

describe('rate limits', () => {
  test('429 with Retry-After and the rate_limited detail; buckets refill', async () => {
    const app = await testApp({ rateLimits: { documents: { capacity: 2, refillPerSecond: 0.5 } } } as never);
    try {
      const { key } = await app.account();
      const get = () => app.http.inject({ method: 'GET', url: '/v2/documents/none', headers: { 'x-api-key': key } });
      assert.equal((await get()).statusCode, 404);
      assert.equal((await get()).statusCode, 404);
      const res = await get();
      const d = assertApiError(res, 429);
      assert.equal(d.code, 'rate_limited');
      assert.equal(d.scope, 'documents');
      assert.ok(Number.isInteger(d.retry_after_seconds) && (d.retry_after_seconds as number) >= 1);
      assert.equal(res.headers['retry-after'], String(d.retry_after_seconds));
      app.clock.advance(2_000);
      assert.equal((await get()).statusCode, 404);
    } finally {
      await app.dispose();
    }
  });
});
