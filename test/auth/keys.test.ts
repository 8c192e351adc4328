// Signing keys rotate: a new key signs once the current one is due, older tokens keep verifying while
// they can live, and the JWKS publishes exactly the keys that still verify.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeProtectedHeader } from 'jose';
import { apiStatus, approvedAgent, authApp, codeFlowTokens, JWT_BEARER, token } from './helpers.js';

test('signing keys rotate; tokens signed by the previous key still verify; the JWKS follows', async () => {
  const app = await authApp({ auth: { signingKeyRotationSeconds: 7200, identityAssertionTtlSeconds: 86_400 } as never });
  try {
    const jwks = async () => ((await app.http.inject({ url: '/v2/oauth/jwks' })).json().keys as { kid: string }[]).map((k) => k.kid);
    const first = await approvedAgent(app);
    const kid1 = decodeProtectedHeader(first.tokens.access_token).kid!;
    assert.deepEqual(await jwks(), [kid1]);

    app.clock.advance(7300_000);
    const second = await codeFlowTokens(app);
    const kid2 = decodeProtectedHeader(second.tokens.access_token).kid!;
    assert.notEqual(kid2, kid1, 'a new key signs after the rotation period');
    app.clock.advance(31_000);
    assert.deepEqual((await jwks()).sort(), [kid1, kid2].sort(), 'the retired key is still published');
    const renewed = await token(app, { grant_type: JWT_BEARER, assertion: first.tokens.identity_assertion });
    assert.equal(renewed.statusCode, 200, 'an assertion signed by the retired key still renews');
    assert.equal(decodeProtectedHeader(renewed.json().access_token).kid, kid2);
    assert.equal(await apiStatus(app, renewed.json().access_token), 404);

    // Past the longest lifetime of what the old key signed, it leaves the JWKS at the next rotation.
    app.clock.advance((86_400 + 3600 + 7200) * 1000);
    await app.auth.keys.rotateIfDue();
    app.clock.advance(31_000);
    const kids = await jwks();
    assert.ok(!kids.includes(kid1), 'the old key is gone');
    assert.equal((await token(app, { grant_type: JWT_BEARER, assertion: first.tokens.identity_assertion })).json().error, 'invalid_grant');
  } finally {
    await app.dispose();
  }
});
