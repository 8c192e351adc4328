// Pure rules of the authorization server: redirect URI validation and matching (property-tested),
// PKCE, password hashing, secret shapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { allLoopback, redirectUriMatches, redirectUriProblem } from '../../src/auth/redirect-uris.js';
import { s256, verifyPkce } from '../../src/auth/pkce.js';
import { hashPassword, passwordProblem, verifyPassword } from '../../src/auth/passwords.js';
import { deriveSecret, issueSecret, matchesDigest, secretId, subkey } from '../../src/auth/secrets.js';
import { maskEmail } from '../../src/auth/claims.js';

const segment = fc.stringMatching(/^[a-z0-9]{1,8}$/);
const path = fc.array(segment, { minLength: 0, maxLength: 3 }).map((s) => `/${s.join('/')}`);
const port = fc.integer({ min: 1, max: 65535 });
const loopHost = fc.constantFrom('127.0.0.1', '[::1]', 'localhost');

test('[49] property: a loopback registration matches the same host, path and query on any port', () => {
  fc.assert(
    fc.property(loopHost, port, port, path, (host, p1, p2, p) => {
      assert.equal(redirectUriMatches([`http://${host}:${p1}${p}`], `http://${host}:${p2}${p}`), true);
      assert.equal(redirectUriMatches([`http://${host}${p}`], `http://${host}:${p2}${p}`), true);
    }),
  );
});

test('[49] property: loopback relaxation never crosses hosts, paths, schemes or non-loopback registrations', () => {
  fc.assert(
    fc.property(loopHost, loopHost, port, port, path, path, (h1, h2, p1, p2, a, b) => {
      fc.pre(h1 !== h2 || a !== b);
      assert.equal(redirectUriMatches([`http://${h1}:${p1}${a}`], `http://${h2}:${p2}${b}`), false);
    }),
  );
  fc.assert(
    fc.property(port, port, path, (p1, p2, p) => {
      fc.pre(p1 !== p2);
      assert.equal(redirectUriMatches([`https://example.com:${p1}${p}`], `https://example.com:${p2}${p}`), false);
      assert.equal(redirectUriMatches([`https://127.0.0.1:${p1}${p}`], `https://127.0.0.1:${p2}${p}`), false, 'https loopback is compared exactly');
    }),
  );
  assert.equal(redirectUriMatches(['http://127.0.0.1:3000/cb'], 'http://127.0.0.1:3000@evil.example/cb'), false);
  assert.equal(redirectUriMatches(['http://127.0.0.1:3000/cb'], 'http://127.0.0.1.evil.example:3000/cb'), false);
});

test('[42] redirect URI rules: https, or http on loopback; no fragment or user info', () => {
  for (const ok of ['https://a.example/cb', 'http://127.0.0.1/cb', 'http://localhost:1/x?y=z', 'http://[::1]:80/']) assert.equal(redirectUriProblem(ok), null, ok);
  for (const bad of ['http://a.example/cb', 'https://a.example/cb#x', 'https://u:p@a.example/', 'custom-scheme:/cb', '/relative', '']) assert.notEqual(redirectUriProblem(bad), null, bad);
  assert.equal(allLoopback(['http://127.0.0.1:1/a', 'http://localhost/b']), true);
  assert.equal(allLoopback(['http://127.0.0.1:1/a', 'https://x.example/b']), false);
});

test('[48, 59] PKCE S256: the verifier must hash to the challenge', () => {
  // RFC 7636 appendix B.
  assert.equal(s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  assert.equal(verifyPkce('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'), true);
  assert.equal(verifyPkce('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXx', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'), false);
  assert.equal(verifyPkce('short', s256('short')), false, 'verifiers have 43 to 128 characters');
});

test('passwords: scrypt, salted, verified in constant time; rules on length', async () => {
  const h1 = await hashPassword('correct horse battery staple');
  const h2 = await hashPassword('correct horse battery staple');
  assert.notEqual(h1, h2, 'salted');
  assert.match(h1, /^scrypt\$15\$8\$1\$/);
  assert.equal(await verifyPassword('correct horse battery staple', h1), true);
  assert.equal(await verifyPassword('correct horse battery stapler', h1), false);
  assert.equal(await verifyPassword('x', 'garbage'), false);
  assert.notEqual(passwordProblem('short'), null);
  assert.equal(passwordProblem('long enough!'), null);
});

test('[90] secrets: 256 random bits, looked up by id, compared by digest; successors are derivable only with the key', () => {
  const s = issueSecret('lrt');
  assert.match(s.token, /^lrt_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
  assert.equal(secretId('lrt', s.token), s.id);
  assert.equal(secretId('lac', s.token), null);
  assert.equal(matchesDigest(s.token, s.hash), true);
  assert.equal(matchesDigest(`${s.token}x`, s.hash), false);
  const k1 = subkey('a'.repeat(32), 'refresh-successor');
  const k2 = subkey('b'.repeat(32), 'refresh-successor');
  assert.equal(deriveSecret(k1, 'lrt', s.token).token, deriveSecret(k1, 'lrt', s.token).token);
  assert.notEqual(deriveSecret(k1, 'lrt', s.token).token, deriveSecret(k2, 'lrt', s.token).token);
  assert.match(deriveSecret(k1, 'lrt', s.token).token, /^lrt_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
});

test('email masking on the verification page', () => {
  assert.equal(maskEmail('ada@example.org'), 'a**@e******.org');
  assert.equal(maskEmail('a@b.c'), 'a@b.c');
});
