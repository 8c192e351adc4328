// Dynamic client registration (RFC 7591): auth requirements 39-44, 58 (registrations survive restarts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { pino } from 'pino';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authApp, registerClient, token, type AuthTestApp } from './helpers.js';

describe('dynamic client registration', () => {
  let app: AuthTestApp;
  before(async () => {
    app = await authApp();
  });
  after(() => app.dispose());

  const register = (payload: unknown) => app.http.inject({ method: 'POST', url: '/v2/oauth/register', payload: payload as object });

  test('[39] a valid registration gets 201 Created with client_id', async () => {
    const res = await register({ redirect_uris: ['http://127.0.0.1:4711/callback'] });
    assert.equal(res.statusCode, 201);
    assert.match(String(res.headers['content-type']), /application\/json/);
    assert.equal(typeof res.json().client_id, 'string');
    assert.equal(res.headers['cache-control'], 'no-store');
  });

  test('[40] the response echoes redirect_uris, none, grant_types, response_types, client_name, scope; issued_at is a number; no secret', async () => {
    const c = await registerClient(app, { client_name: 'Claude Code (literature search)', scope: 'search' });
    assert.deepEqual(c.redirect_uris, ['http://127.0.0.1:4711/callback']);
    assert.equal(c.token_endpoint_auth_method, 'none');
    assert.deepEqual(c.grant_types, ['authorization_code', 'refresh_token']);
    assert.deepEqual(c.response_types, ['code']);
    assert.equal(c.client_name, 'Claude Code (literature search)');
    assert.equal(c.scope, 'search');
    assert.equal(typeof c.client_id_issued_at, 'number');
    assert.equal(c.client_secret, undefined);
    assert.equal(c.client_secret_expires_at, undefined);
  });

  test('[41] URL-valued metadata is echoed only as a valid URL, never ""', async () => {
    const c = await registerClient(app, { logo_uri: '', client_uri: 'https://agent.example.com', tos_uri: null });
    assert.equal(c.logo_uri, undefined);
    assert.equal(c.tos_uri, undefined);
    assert.equal(c.client_uri, 'https://agent.example.com');
    const bad = await register({ redirect_uris: ['http://127.0.0.1:1/cb'], policy_uri: 'not a url' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error, 'invalid_client_metadata');
  });

  test('[42] redirect_uris must be https or loopback http without fragment: 400 invalid_redirect_uri', async () => {
    for (const uri of ['http://example.com/cb', 'https://example.com/cb#frag', 'ftp://127.0.0.1/cb', 'not a url', 'http://user:pw@127.0.0.1/cb', 'javascript:alert(1)']) {
      const res = await register({ redirect_uris: [uri] });
      assert.equal(res.statusCode, 400, uri);
      assert.deepEqual(Object.keys(res.json()).sort(), ['error', 'error_description']);
      assert.equal(res.json().error, 'invalid_redirect_uri', uri);
    }
    for (const uri of ['https://example.com/cb', 'http://127.0.0.1:3000/cb', 'http://[::1]:3000/cb', 'http://localhost:3000/cb']) {
      assert.equal((await register({ redirect_uris: [uri] })).statusCode, 201, uri);
    }
    const missing = await register({ client_name: 'x' });
    assert.equal(missing.json().error, 'invalid_redirect_uri');
  });

  test('[42] other bad metadata gets 400 invalid_client_metadata', async () => {
    for (const extra of [{ token_endpoint_auth_method: 'private_key_jwt' }, { grant_types: ['implicit'] }, { response_types: ['token'] }, { client_name: 42 }, { grant_types: 'authorization_code' }]) {
      const res = await register({ redirect_uris: ['http://127.0.0.1:1/cb'], ...extra });
      assert.equal(res.statusCode, 400, JSON.stringify(extra));
      assert.equal(res.json().error, 'invalid_client_metadata', JSON.stringify(extra));
    }
    const notJson = await app.http.inject({ method: 'POST', url: '/v2/oauth/register', headers: { 'content-type': 'application/json' }, payload: '{oops' });
    assert.equal(notJson.statusCode, 400);
    assert.equal(notJson.json().error, 'invalid_request');
  });

  test('[43] metadata Lectern does not understand (application_type, software_id, contacts) is ignored', async () => {
    const res = await register({ redirect_uris: ['http://127.0.0.1:1/cb'], application_type: 'native', software_statement: 'x.y.z', contacts: ['a@b.c'], jwks_uri: 'https://x/jwks', something_new: { a: 1 } });
    assert.equal(res.statusCode, 201);
    assert.equal(res.json().application_type, undefined);
  });

  test('[44] public clients by default; client_secret_post or client_secret_basic get a secret with client_secret_expires_at (decision 3)', async () => {
    for (const method of ['client_secret_post', 'client_secret_basic']) {
      const c = await registerClient(app, { token_endpoint_auth_method: method });
      assert.equal(c.token_endpoint_auth_method, method);
      assert.equal(typeof c.client_secret, 'string');
      assert.ok(c.client_secret.length >= 43);
      assert.equal(c.client_secret_expires_at, 0);
    }
  });

  test('[44, 58] a confidential client must authenticate: a wrong or missing secret is 401 invalid_client', async () => {
    const c = await registerClient(app, { token_endpoint_auth_method: 'client_secret_basic' });
    const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
    const wrong = await token(app, { grant_type: 'authorization_code', code: 'lac_0000000000000000_' + 'a'.repeat(43), code_verifier: 'v'.repeat(43) }, { authorization: basic(c.client_id, 'nope') });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json().error, 'invalid_client');
    assert.match(String(wrong.headers['www-authenticate']), /^Basic/);
    const none = await token(app, { grant_type: 'authorization_code', client_id: c.client_id, code: 'x', code_verifier: 'v'.repeat(43) });
    assert.equal(none.statusCode, 401);
    const right = await token(app, { grant_type: 'authorization_code', code: 'lac_0000000000000000_' + 'a'.repeat(43), code_verifier: 'v'.repeat(43) }, { authorization: basic(c.client_id, c.client_secret) });
    assert.equal(right.statusCode, 400);
    assert.equal(right.json().error, 'invalid_grant');
  });

  test('[58] an unknown client_id gets 401 invalid_client at the token endpoint', async () => {
    const res = await token(app, { grant_type: 'authorization_code', client_id: 'lc_unknown', code: 'x', code_verifier: 'v'.repeat(43) });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error, 'invalid_client');
    assert.equal(res.headers['cache-control'], 'no-store');
    const r2 = await token(app, { grant_type: 'refresh_token', client_id: 'lc_unknown', refresh_token: 'lrt_x' });
    assert.equal(r2.statusCode, 401);
  });

  test('[58] registrations survive a restart (same data directory)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lectern-restart-'));
    const cfg = loadConfig({}, { dataDir: dir, loadDemoCorpus: false, logLevel: 'silent' });
    try {
      const first = await buildApp(cfg, { logger: pino({ level: 'silent' }) });
      const reg = await first.http.inject({ method: 'POST', url: '/v2/oauth/register', payload: { redirect_uris: ['http://127.0.0.1:1/cb'] } });
      const clientId = reg.json().client_id as string;
      await first.close();
      const restarted = await buildApp(cfg, { logger: pino({ level: 'silent' }) });
      try {
        const res = await restarted.http.inject({
          method: 'POST',
          url: '/v2/oauth/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: `grant_type=authorization_code&client_id=${clientId}&code=lac_0000000000000000_${'a'.repeat(43)}&code_verifier=${'v'.repeat(43)}`,
        });
        assert.equal(res.json().error, 'invalid_grant', 'the client is known after the restart (not invalid_client)');
      } finally {
        await restarted.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('[91] registration is rate limited: 429 with Retry-After and the rate_limited detail (and the RFC error)', async () => {
    const a = await authApp({ rateLimits: { oauth: { capacity: 2, refillPerSecond: 0.01 } } as never });
    try {
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 3; i++) {
        last = await a.http.inject({ method: 'POST', url: '/v2/oauth/register', payload: { redirect_uris: ['http://127.0.0.1:1/cb'] } });
        statuses.push(last.statusCode);
      }
      assert.deepEqual(statuses, [201, 201, 429]);
      const retry = Number(last!.headers['retry-after']);
      assert.ok(Number.isInteger(retry) && retry >= 1);
      const body = last!.json();
      assert.equal(body.error, 'rate_limited');
      assert.equal(body.status, 'error');
      assert.equal(body.detail.code, 'rate_limited');
      assert.equal(body.detail.retry_after_seconds, retry);
      assert.equal(body.detail.scope, 'oauth');
      assert.equal(typeof last!.headers['x-request-id'], 'string');
    } finally {
      await a.dispose();
    }
  });
});
