// The check that every API test response matches /openapi.json (test/helpers/response-contract.ts)
// really catches mismatches: a body that breaks its schema, an undocumented status, an undeclared
// media type; and it really runs on the real routes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { testApp, type TestApp } from '../helpers/app.js';

describe('response contract check of the test apps', () => {
  let app: TestApp;
  let key: string;
  before(async () => {
    app = await testApp({}, {
      extraRoutes: [
        (f) => {
          f.get<{ Querystring: { mode?: string } }>(
            '/contract-probe',
            { schema: { querystring: Type.Object({ mode: Type.Optional(Type.String()) }), response: { 200: Type.Object({ n: Type.Integer() }, { additionalProperties: false }) } } },
            async (request, reply) => {
              const mode = request.query.mode;
              if (mode === 'bad-body') return reply.type('application/json').send('{"n":"seven"}');
              if (mode === 'bad-status') return reply.code(418).type('application/json').send('{"n":1}');
              if (mode === 'bad-type') return reply.type('text/plain').send('seven');
              return reply.type('application/json').send('{"n":7}');
            },
          );
        },
      ],
    });
    key = (await app.account()).key;
  });
  after(async () => {
    app.contract.violations.length = 0; // the probes above were meant to violate it
    await app.dispose();
  });

  test('a conforming response passes; a wrong body, an undocumented status and an undeclared media type fail the request', async () => {
    const get = (mode: string) => app.http.inject({ method: 'GET', url: `/contract-probe?mode=${mode}`, headers: { 'x-api-key': key } });
    assert.equal((await get('ok')).statusCode, 200);
    assert.deepEqual(app.contract.violations, []);
    for (const [mode, what] of [
      ['bad-body', /body does not match the schema: data\/n must be integer/],
      ['bad-status', /status 418 is not documented/],
      ['bad-type', /Content-Type text\/plain is not declared/],
    ] as const) {
      const res = await get(mode);
      assert.equal(res.statusCode, 500, mode);
      assert.equal(res.json().detail.code, 'contract_violation');
      assert.match(app.contract.violations.at(-1) ?? '', what);
    }
    assert.equal(app.contract.violations.length, 3);
  });

  test('real routes are checked: search, a document, an error', async () => {
    const before = app.contract.checked.bodies;
    const search = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: { query: 'anything', limit: 3 } });
    assert.equal(search.statusCode, 200);
    const missing = await app.http.inject({ method: 'GET', url: '/v2/documents/nope', headers: { 'x-api-key': key } });
    assert.equal(missing.statusCode, 404);
    const unauthenticated = await app.http.inject({ method: 'POST', url: '/v2/search/', payload: {} });
    assert.equal(unauthenticated.statusCode, 401);
    assert.equal(app.contract.checked.bodies - before, 3);
  });
});
