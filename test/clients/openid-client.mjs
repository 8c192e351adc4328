#!/usr/bin/env node
// Strict OAuth against a running Lectern with openid-client (a third-party validator installed from
// the npm registry into test/clients). The browser step is completed by the server's test-only
// automatic consent (LECTERN_AUTO_CONSENT): the authorization URL answers with a redirect at once.
//
// Usage: LECTERN_AUTH_URL=http://127.0.0.1:PORT LECTERN_MCP_URL=http://127.0.0.1:PORT/mcp node openid-client.mjs
// Prints one line per check (`ok - ...` / `not ok - ...: why`) and exits 1 when any check failed.
import * as client from 'openid-client';

const issuer = new URL(process.env.LECTERN_AUTH_URL ?? 'http://127.0.0.1:8080');
const resource = process.env.LECTERN_MCP_URL ?? `${issuer.href.replace(/\/$/, '')}/mcp`;
const apiBase = process.env.LECTERN_BASE_URL ?? issuer.origin;
const redirectUri = 'http://127.0.0.1:53682/callback';
const insecure = issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {};
let failures = 0;

async function check(name, fn) {
  try {
    await fn();
    console.log(`ok - ${name}`);
  } catch (e) {
    failures++;
    console.log(`not ok - ${name}: ${e instanceof Error ? `${e.name}: ${e.message}${e.error ? ` (${e.error})` : ''}` : String(e)}`);
  }
}
const assert = (cond, msg) => {
  if (!cond) throw new Error(msg);
};
/** Expects `fn` to reject with an OAuth error code (AuthorizationResponseError / ResponseBodyError). */
async function rejects(fn, code) {
  try {
    await fn();
  } catch (e) {
    assert(e.error === code, `expected error ${code}, got ${e.error ?? e.message}`);
    return e;
  }
  throw new Error(`expected error ${code}, but it succeeded`);
}

/** Runs the browser step: the authorization URL redirects (automatic consent) to the callback. */
async function authorize(url) {
  const res = await fetch(url, { redirect: 'manual' });
  const location = res.headers.get('location');
  return { status: res.status, location: location ? new URL(location) : null };
}

async function register(metadata = {}, auth = client.None()) {
  return client.dynamicClientRegistration(
    issuer,
    { client_name: 'openid-client conformance run (Lectern CI)', redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none', scope: 'search', ...metadata },
    auth,
    { algorithm: 'oauth2', ...insecure },
  );
}

async function codeRequest(config, extra = {}) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const params = { redirect_uri: redirectUri, scope: 'search', state, code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', resource, ...extra };
  for (const [k, v] of Object.entries(params)) if (v === undefined) delete params[k];
  return { verifier, state, url: client.buildAuthorizationUrl(config, params) };
}

let config;
await check('discovery (RFC 8414, issuer checked) and dynamic registration (RFC 7591, 201)', async () => {
  config = await register();
  const md = config.serverMetadata();
  assert(md.issuer === issuer.href.replace(/\/$/, '') || md.issuer === issuer.href, `issuer ${md.issuer}`);
  assert(md.code_challenge_methods_supported?.includes('S256'), 'S256 advertised');
  assert(config.clientMetadata().client_id, 'client_id');
});

let tokens;
await check('authorization code with PKCE, state and iss validated; token response strict', async () => {
  const { verifier, state, url } = await codeRequest(config);
  const { status, location } = await authorize(url);
  assert(status === 302 && location, `authorize answered ${status}`);
  tokens = await client.authorizationCodeGrant(config, location, { pkceCodeVerifier: verifier, expectedState: state }, { resource });
  assert(tokens.token_type.toLowerCase() === 'bearer', 'Bearer');
  assert(tokens.expires_in === 3600, `expires_in ${tokens.expires_in}`);
  assert(tokens.scope === 'search', `scope ${tokens.scope}`);
  assert(typeof tokens.refresh_token === 'string', 'refresh_token');
  const api = await fetch(new URL('/v2/documents/none', apiBase), { headers: { authorization: `Bearer ${tokens.access_token}` } });
  assert(api.status === 404, `the access token works on the API (got ${api.status})`);
});

await check('refresh token grant rotates the refresh token', async () => {
  const next = await client.refreshTokenGrant(config, tokens.refresh_token, { resource });
  assert(next.refresh_token && next.refresh_token !== tokens.refresh_token, 'rotated');
  assert(next.expires_in === 3600, 'expires_in');
  tokens = next;
});

await check('revocation (RFC 7009) refuses the token at once', async () => {
  await client.tokenRevocation(config, tokens.access_token, { token_type_hint: 'access_token' });
  const api = await fetch(new URL('/v2/documents/none', apiBase), { headers: { authorization: `Bearer ${tokens.access_token}` } });
  assert(api.status === 401, `revoked token answered ${api.status}`);
});

await check('negative: missing PKCE is refused (invalid_request, with iss)', async () => {
  const { state, url } = await codeRequest(config, { code_challenge: undefined, code_challenge_method: undefined });
  const { location } = await authorize(url);
  assert(location, 'redirected back with an error');
  assert(location.searchParams.get('iss') === config.serverMetadata().issuer, 'iss in the error response');
  await rejects(() => client.authorizationCodeGrant(config, location, { pkceCodeVerifier: client.randomPKCECodeVerifier(), expectedState: state }), 'invalid_request');
});

await check('negative: plain PKCE is refused (invalid_request)', async () => {
  const { state, url } = await codeRequest(config, { code_challenge_method: 'plain' });
  const { location } = await authorize(url);
  await rejects(() => client.authorizationCodeGrant(config, location, { pkceCodeVerifier: client.randomPKCECodeVerifier(), expectedState: state }), 'invalid_request');
});

await check('negative: wrong resource at authorization is invalid_target', async () => {
  const { state, url, verifier } = await codeRequest(config, { resource: 'https://elsewhere.example/mcp' });
  const { location } = await authorize(url);
  await rejects(() => client.authorizationCodeGrant(config, location, { pkceCodeVerifier: verifier, expectedState: state }), 'invalid_target');
});

await check('negative: wrong resource at the token endpoint is invalid_target', async () => {
  const { state, url, verifier } = await codeRequest(config);
  const { location } = await authorize(url);
  await rejects(() => client.authorizationCodeGrant(config, location, { pkceCodeVerifier: verifier, expectedState: state }, { resource: 'https://elsewhere.example/mcp' }), 'invalid_target');
});

await check('negative: a reused code is invalid_grant', async () => {
  const { state, url, verifier } = await codeRequest(config);
  const { location } = await authorize(url);
  await client.authorizationCodeGrant(config, location, { pkceCodeVerifier: verifier, expectedState: state }, { resource });
  await rejects(() => client.authorizationCodeGrant(config, location, { pkceCodeVerifier: verifier, expectedState: state }, { resource }), 'invalid_grant');
});

await check('negative: a wrong code_verifier is invalid_grant', async () => {
  const { state, url } = await codeRequest(config);
  const { location } = await authorize(url);
  await rejects(() => client.authorizationCodeGrant(config, location, { pkceCodeVerifier: client.randomPKCECodeVerifier(), expectedState: state }, { resource }), 'invalid_grant');
});

await check('negative: an unregistered redirect_uri is not redirected to (error page)', async () => {
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(config, { redirect_uri: 'https://attacker.example/cb', scope: 'search', state: client.randomState(), code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', resource });
  const { status, location } = await authorize(url);
  assert(status === 400, `status ${status}`);
  assert(location === null, 'no redirect');
});

await check('negative: an unknown client is 401 invalid_client at the token endpoint', async () => {
  const ghost = new client.Configuration(config.serverMetadata(), 'lc_not_registered', undefined, client.None());
  if (insecure.execute) client.allowInsecureRequests(ghost);
  const e = await rejects(() => client.refreshTokenGrant(ghost, 'lrt_0000000000000000_' + 'a'.repeat(43)), 'invalid_client');
  assert(e.status === 401, `status ${e.status}`);
});

await check('confidential client (client_secret_basic, decision 3): code flow', async () => {
  const conf = await register({ token_endpoint_auth_method: 'client_secret_basic' }, undefined);
  const secret = conf.clientMetadata().client_secret;
  assert(typeof secret === 'string', 'a secret was issued');
  const basic = new client.Configuration(conf.serverMetadata(), conf.clientMetadata().client_id, { ...conf.clientMetadata() }, client.ClientSecretBasic(secret));
  if (insecure.execute) client.allowInsecureRequests(basic);
  const { state, url, verifier } = await codeRequest(basic);
  const { location } = await authorize(url);
  const t = await client.authorizationCodeGrant(basic, location, { pkceCodeVerifier: verifier, expectedState: state }, { resource });
  assert(t.access_token, 'access token');
});

console.log(failures === 0 ? '# all openid-client checks passed' : `# ${failures} openid-client check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
