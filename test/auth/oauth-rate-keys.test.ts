// OAuth rate limits keyed by client and grant as well as address (issue 13; ADR 0083): agents behind
// one address do not share a budget, a refresh is never refused because of other traffic, and the
// address-wide budget still bounds a flood.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config/index.js';
import { authApp, Browser, codeFlowTokens, obtainCode, person, registerClient, token } from './helpers.js';

const DEFAULTS = loadConfig({}, {}).rateLimits;

describe('OAuth rate limits per address, client and grant', () => {
  test('defaults: a long refresh chain and many sessions of one client from one address are never refused', async () => {
    assert.deepEqual(DEFAULTS.oauth, { capacity: 30, refillPerSecond: 1 });
    assert.deepEqual(DEFAULTS.oauthAddress, { capacity: 3000, refillPerSecond: 50 });
    const app = await authApp({ rateLimits: { oauth: DEFAULTS.oauth, oauthAddress: DEFAULTS.oauthAddress } as never });
    try {
      const { client, tokens } = await codeFlowTokens(app);
      let refresh = tokens.refresh_token as string;
      for (let i = 0; i < 120; i++) {
        const res = await token(app, { grant_type: 'refresh_token', refresh_token: refresh, client_id: client.client_id });
        assert.equal(res.statusCode, 200, `refresh ${i}: ${res.body}`);
        refresh = res.json().refresh_token;
      }
      // 40 more people signing in through the same hosted client (one address), each refreshing twice at once
      for (let s = 0; s < 40; s++) {
        const who = await person(app);
        const browser = new Browser(app);
        await browser.signIn(who.email, who.password);
        const { code, verifier, redirectUri } = await obtainCode(app, browser, client);
        const issued = await token(app, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: client.client_id, code_verifier: verifier, resource: app.mcp });
        assert.equal(issued.statusCode, 200, issued.body);
        const first = await token(app, { grant_type: 'refresh_token', refresh_token: issued.json().refresh_token, client_id: client.client_id });
        assert.equal(first.statusCode, 200, first.body);
        const again = await token(app, { grant_type: 'refresh_token', refresh_token: first.json().refresh_token, client_id: client.client_id });
        assert.equal(again.statusCode, 200, again.body);
      }
    } finally {
      await app.dispose();
    }
  });

  test('one client spending its budget for a grant does not limit another client, nor its own other grant', async () => {
    const app = await authApp({ rateLimits: { oauth: { capacity: 2, refillPerSecond: 0.001 } } as never });
    try {
      const a = await registerClient(app, { client_name: 'Agent A (citations)' });
      const b = await registerClient(app, { client_name: 'Agent B (reviews)' });
      const code = (client: Record<string, any>) => token(app, { grant_type: 'authorization_code', client_id: client.client_id, code: 'nope', redirect_uri: client.redirect_uris[0], code_verifier: 'v'.repeat(43) });
      assert.equal((await code(a)).statusCode, 400);
      assert.equal((await code(a)).statusCode, 400);
      const limited = await code(a);
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json().detail.scope, 'oauth');
      assert.equal((await code(b)).statusCode, 400, 'another client behind the same address has its own budget');
      const refresh = await token(app, { grant_type: 'refresh_token', client_id: a.client_id, refresh_token: 'unknown' });
      assert.equal(refresh.statusCode, 400, 'the same client refreshing has its own budget');
      // registrations: per client name
      const reg = (name: string) => app.http.inject({ method: 'POST', url: '/v2/oauth/register', payload: { client_name: name, redirect_uris: ['http://127.0.0.1:1/cb'] } });
      assert.equal((await reg('Agent C (search)')).statusCode, 201);
      assert.equal((await reg('Agent C (search)')).statusCode, 201);
      assert.equal((await reg('Agent C (search)')).statusCode, 429);
      assert.equal((await reg('Agent D (search)')).statusCode, 201);
    } finally {
      await app.dispose();
    }
  });

  test('the address-wide budget bounds a flood across clients (scope oauthAddress)', async () => {
    const app = await authApp({ rateLimits: { oauthAddress: { capacity: 4, refillPerSecond: 0.001 } } as never });
    try {
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 5; i++) {
        last = await app.http.inject({ method: 'POST', url: '/v2/oauth/register', payload: { client_name: `Flood ${i} (x)`, redirect_uris: ['http://127.0.0.1:1/cb'] } });
        statuses.push(last.statusCode);
      }
      assert.deepEqual(statuses, [201, 201, 201, 201, 429]);
      assert.equal(last!.json().detail.scope, 'oauthAddress');
      const t = await token(app, { grant_type: 'refresh_token', client_id: 'x', refresh_token: 'y' });
      assert.equal(t.statusCode, 429);
    } finally {
      await app.dispose();
    }
  });
});
