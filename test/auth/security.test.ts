// Cross-cutting security of the authorization server: https outside loopback, secrets hashed at rest
// and never logged, secret entropy, rate limits, CORS: auth requirements 88-92.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/app.js';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { OutboxMailer } from '../../src/adapters/mail/outbox-mailer.js';
import {
  approvedAgent,
  authApp,
  Browser,
  CLAIM_GRANT,
  codeFlowTokens,
  JWT_BEARER,
  registerAgent,
  revoke,
  token,
  type AuthTestApp,
} from './helpers.js';

describe('security of the authorization server', () => {
  test('[88] a plain-http auth_url outside loopback is refused at start (unless explicitly allowed)', () => {
    assert.throws(() => loadConfig({}, { baseUrl: 'http://lectern.example.org' }), (e: unknown) => e instanceof ConfigError && /https/.test(e.message));
    assert.throws(() => loadConfig({ LECTERN_HOST: '10.1.2.3', HOST: '10.1.2.3' }), ConfigError);
    assert.doesNotThrow(() => loadConfig({}, { baseUrl: 'https://lectern.example.org' }));
    assert.doesNotThrow(() => loadConfig({}, { baseUrl: 'http://127.0.0.1:9000' }));
    assert.doesNotThrow(() => loadConfig({}, { baseUrl: 'http://localhost:9000' }));
    assert.doesNotThrow(() => loadConfig({ LECTERN_AUTH_ALLOW_INSECURE_HTTP: 'true' }, { baseUrl: 'http://lectern.internal' }));
  });

  test('[89] codes, tokens, claim tokens, assertions, sessions and secrets are never logged', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const app = await authApp({}, { logger: createLogger({ logLevel: 'trace' }, sink) });
    try {
      const secrets: string[] = [];
      const flow = await codeFlowTokens(app);
      secrets.push(flow.tokens.access_token, flow.tokens.refresh_token, ...flow.browser.cookies.values());
      const refreshed = (await token(app, { grant_type: 'refresh_token', refresh_token: flow.tokens.refresh_token, client_id: flow.client.client_id })).json();
      secrets.push(refreshed.access_token, refreshed.refresh_token);
      const agent = await approvedAgent(app);
      secrets.push(agent.reg.claim_token, new URL(agent.reg.claim.verification_uri).searchParams.get('attempt')!, agent.tokens.access_token, agent.tokens.identity_assertion);
      const renewed = (await token(app, { grant_type: JWT_BEARER, assertion: agent.tokens.identity_assertion })).json();
      secrets.push(renewed.access_token);
      await revoke(app, { token: renewed.access_token });
      await app.http.inject({ url: '/v2/documents/x', headers: { authorization: `Bearer ${renewed.access_token}` } });
      const confidential = await app.http.inject({ method: 'POST', url: '/v2/oauth/register', payload: { redirect_uris: ['http://127.0.0.1:1/cb'], token_endpoint_auth_method: 'client_secret_post' } });
      secrets.push(confidential.json().client_secret);
      await token(app, { grant_type: 'authorization_code', client_id: confidential.json().client_id, client_secret: confidential.json().client_secret, code: 'x' });
      await token(app, { grant_type: CLAIM_GRANT, claim_token: agent.reg.claim_token });
      const log = lines.join('');
      // one line per request (request-log.ts): the token requests above among them
      assert.ok(lines.filter((l) => l.includes('"path":"/v2/oauth/token"')).length >= 4, 'requests were logged');
      for (const s of secrets) {
        assert.equal(typeof s, 'string');
        assert.ok(!log.includes(s), `a secret reached the log: ${s.slice(0, 12)}…`);
        const tail = s.slice(-20);
        assert.ok(!log.includes(tail), 'no part of a secret reached the log');
      }
    } finally {
      await app.dispose();
    }
  });

  test('[89] secrets are stored as digests only', async () => {
    const app = await authApp();
    try {
      const flow = await codeFlowTokens(app);
      const agent = await approvedAgent(app);
      const confidential = (await app.http.inject({ method: 'POST', url: '/v2/oauth/register', payload: { redirect_uris: ['http://127.0.0.1:1/cb'], token_endpoint_auth_method: 'client_secret_basic' } })).json();
      const db = (app.storage as unknown as { db: { prepare(sql: string): { all(): unknown[] } } }).db;
      const tables = ['auth_passwords', 'auth_sessions', 'auth_email_tokens', 'oauth_clients', 'oauth_codes', 'auth_grants', 'oauth_access_tokens', 'oauth_refresh_tokens', 'agent_registrations', 'agent_claim_attempts', 'auth_signing_keys'];
      const dump = tables.map((t) => JSON.stringify(db.prepare(`SELECT * FROM ${t}`).all())).join('\n');
      const secrets = [
        flow.tokens.access_token,
        flow.tokens.refresh_token,
        ...flow.browser.cookies.values(),
        agent.reg.claim_token,
        new URL(agent.reg.claim.verification_uri).searchParams.get('attempt')!,
        agent.reg.claim.user_code,
        agent.tokens.identity_assertion,
        confidential.client_secret,
        flow.who.password,
      ];
      for (const s of secrets) assert.ok(!dump.includes(s.slice(-24)), `stored in the clear: ${s.slice(0, 8)}…`);
      assert.match(dump, /scrypt\$15\$8\$1\$/, 'passwords use scrypt');
      assert.doesNotMatch(dump, /"d":/, 'private keys are sealed, not stored as JWK');
    } finally {
      await app.dispose();
    }
  });

  test('[89] the development outbox logs where a message is, never its body (links are secrets)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lectern-outbox-'));
    try {
      const logged: unknown[] = [];
      const m = new OutboxMailer(dir, 'Lectern <l@localhost>', { info: (obj) => void logged.push(obj) });
      await m.send({ to: 'a@example.org', subject: 'Confirm', text: 'https://x/verify?token=lev_secret' });
      const files = readdirSync(dir);
      assert.equal(files.length, 1);
      assert.match(readFileSync(join(dir, files[0]!), 'utf8'), /token=lev_secret/);
      assert.doesNotMatch(JSON.stringify(logged), /lev_secret/);
      assert.match(JSON.stringify(logged), new RegExp(files[0]!));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('[90] generated secrets carry 256 random bits and never repeat', async () => {
    const app = await authApp();
    try {
      const seen = new Set<string>();
      for (let i = 0; i < 50; i++) {
        const r = (await registerAgent(app, { type: 'service_auth', login_hint: `e${i}@example.org` })).json();
        const secret = (r.claim_token as string).slice(-43);
        assert.equal(Buffer.from(secret, 'base64url').length, 32);
        const attempt = new URL(r.claim.verification_uri).searchParams.get('attempt')!;
        assert.equal(Buffer.from(attempt.slice(-43), 'base64url').length, 32);
        assert.ok(!seen.has(secret) && !seen.has(attempt));
        seen.add(secret).add(attempt);
      }
      const flow = await codeFlowTokens(app);
      assert.equal(Buffer.from((flow.tokens.refresh_token as string).slice(-43), 'base64url').length, 32);
    } finally {
      await app.dispose();
    }
  });

  test('[91] identity, token and revoke endpoints are rate limited (429, Retry-After >= 1, rate_limited detail)', async () => {
    for (const hit of [
      (a: AuthTestApp) => registerAgent(a, { type: 'service_auth', login_hint: 'a@example.org' }),
      (a: AuthTestApp) => token(a, { grant_type: 'refresh_token', client_id: 'x', refresh_token: 'y' }),
      (a: AuthTestApp) => revoke(a, { token: 'x' }),
      (a: AuthTestApp) => a.http.inject({ method: 'POST', url: '/v2/agent/identity/claim', payload: { claim_token: 'x' } }),
    ]) {
      const a = await authApp({ rateLimits: { oauth: { capacity: 2, refillPerSecond: 0.01 } } as never });
      try {
        await hit(a);
        await hit(a);
        const res = await hit(a);
        assert.equal(res.statusCode, 429);
        const retry = Number(res.headers['retry-after']);
        assert.ok(Number.isInteger(retry) && retry >= 1);
        const body = res.json();
        assert.equal(body.detail.code, 'rate_limited');
        assert.equal(body.detail.retry_after_seconds, retry);
        assert.equal(typeof res.headers['x-request-id'], 'string');
      } finally {
        await a.dispose();
      }
    }
  });

  test('[92] the OAuth and identity endpoints answer CORS preflight; never * with credentials', async () => {
    const app = await authApp();
    try {
      for (const url of ['/v2/oauth/token', '/v2/oauth/register', '/v2/oauth/revoke', '/v2/agent/identity', '/v2/oauth/jwks']) {
        const res = await app.http.inject({ method: 'OPTIONS', url, headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, mcp-protocol-version' } });
        assert.equal(res.statusCode, 204, url);
        assert.equal(res.headers['access-control-allow-origin'], '*');
        assert.equal(res.headers['access-control-allow-credentials'], undefined);
      }
      const t = await token(app, {}, { origin: 'http://localhost:6274' });
      assert.equal(t.headers['access-control-allow-origin'], '*');
      const page = await new Browser(app).get('/v2/auth/sign-in');
      assert.equal(page.headers['access-control-allow-origin'], undefined, 'pages are not shared cross-origin');
    } finally {
      await app.dispose();
    }
  });
});
