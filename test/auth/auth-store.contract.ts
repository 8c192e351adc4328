// The auth store contract: one suite every implementation of ports/auth-store.ts passes (SQLite,
// PostgreSQL). The single-use and rotation rules are tested under concurrency, because that is where
// the two databases could differ.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AuthStore, ClaimAttemptRecord, GrantRecord } from '../../src/ports/auth-store.js';
import type { Storage } from '../../src/ports/storage.js';
import type { StorageFixture } from '../helpers/storage.js';

export type AuthStoreFactory = () => Promise<{ fixture: StorageFixture<Storage>; store: AuthStore }>;

const NOW = 1_790_000_000;

async function withStore(factory: AuthStoreFactory, fn: (store: AuthStore, storage: Storage) => Promise<void>): Promise<void> {
  const { fixture, store } = await factory();
  try {
    await fn(store, fixture.storage);
  } finally {
    await fixture.dispose();
  }
}

const grant = (id: string, accountId: number, over: Partial<GrantRecord> = {}): GrantRecord => ({
  id,
  kind: 'authorization_code',
  accountId,
  clientId: 'lc_1',
  registrationId: null,
  scope: 'search',
  resource: 'http://127.0.0.1:8080/mcp',
  createdAt: NOW,
  expiresAt: null,
  revokedAt: null,
  assertionJti: null,
  ...over,
});

const attempt = (id: string, registrationId: string, over: Partial<ClaimAttemptRecord> = {}): ClaimAttemptRecord => ({
  id,
  registrationId,
  hash: 'h'.repeat(64),
  userCodeHash: 'u'.repeat(64),
  status: 'pending',
  createdAt: NOW,
  expiresAt: NOW + 900,
  intervalSeconds: 5,
  lastPollMs: null,
  wrongCodes: 0,
  decidedBy: null,
  decidedAt: null,
  current: true,
  ...over,
});

export function authStoreContract(name: string, factory: AuthStoreFactory): void {
  describe(`auth store contract: ${name}`, () => {
    test('passwords, sessions and email links round-trip; links are single use', () =>
      withStore(factory, async (s, storage) => {
        const a = await storage.accounts.create({ email: 'p@example.org' });
        assert.equal(await s.people.getPassword(a.id), null);
        await s.people.setPassword({ accountId: a.id, hash: 'scrypt$1', updatedAt: NOW });
        await s.people.setPassword({ accountId: a.id, hash: 'scrypt$2', updatedAt: NOW + 1 });
        assert.deepEqual(await s.people.getPassword(a.id), { accountId: a.id, hash: 'scrypt$2', updatedAt: NOW + 1 });
        await s.people.createSession({ id: 's1', hash: 'x', accountId: a.id, createdAt: NOW, expiresAt: NOW + 10 });
        await s.people.createSession({ id: 's2', hash: 'y', accountId: a.id, createdAt: NOW, expiresAt: NOW + 10 });
        assert.equal((await s.people.getSession('s1'))?.accountId, a.id);
        await s.people.deleteSession('s1');
        assert.equal(await s.people.getSession('s1'), null);
        await s.people.deleteSessionsOf(a.id);
        assert.equal(await s.people.getSession('s2'), null);
        await s.people.createEmailToken({ id: 'e1', hash: 'z', accountId: a.id, purpose: 'verify', expiresAt: NOW + 10, usedAt: null });
        const uses = await Promise.all([s.people.useEmailToken('e1', NOW), s.people.useEmailToken('e1', NOW)]);
        assert.deepEqual(uses.sort(), [false, true]);
        assert.equal((await s.people.getEmailToken('e1'))?.usedAt, NOW);
      }));

    test('clients keep their metadata', () =>
      withStore(factory, async (s) => {
        const c = {
          clientId: 'lc_a',
          secretHash: null,
          tokenEndpointAuthMethod: 'none' as const,
          redirectUris: ['http://127.0.0.1:1/cb', 'https://x.example/cb?a=b'],
          grantTypes: ['authorization_code', 'refresh_token'],
          responseTypes: ['code'],
          scope: 'search',
          clientName: 'Ünïcode agent',
          extra: { client_uri: 'https://x.example' },
          createdAt: NOW,
        };
        await s.oauth.createClient(c);
        assert.deepEqual(await s.oauth.getClient('lc_a'), c);
        assert.equal(await s.oauth.getClient('lc_b'), null);
      }));

    test('a code is used once, even by concurrent exchanges', () =>
      withStore(factory, async (s, storage) => {
        const a = await storage.accounts.create({ email: 'c@example.org' });
        const code = { id: 'c1', hash: 'h', clientId: 'lc_1', accountId: a.id, redirectUri: 'http://127.0.0.1/cb', redirectUriGiven: true, codeChallenge: 'x', resource: 'r', scope: 'search', expiresAt: NOW + 60, usedAt: null, grantId: null };
        await s.oauth.createCode(code);
        assert.deepEqual(await s.oauth.getCode('c1'), code);
        const results = await Promise.all(Array.from({ length: 8 }, (_, i) => s.oauth.useCode('c1', NOW, `g${i}`)));
        assert.equal(results.filter(Boolean).length, 1);
        const used = await s.oauth.getCode('c1');
        assert.equal(used?.usedAt, NOW);
        assert.equal(used?.grantId, `g${results.indexOf(true)}`);
      }));

    test('revoking a grant revokes its access and refresh tokens, not others', () =>
      withStore(factory, async (s, storage) => {
        const a = await storage.accounts.create({ email: 'g@example.org' });
        await s.oauth.createGrant(grant('g1', a.id));
        await s.oauth.createGrant(grant('g2', a.id, { kind: 'service_auth', clientId: null, registrationId: 'reg_1', expiresAt: NOW + 100, assertionJti: 'ia_1' }));
        const at = (id: string, g: string) => ({ id, hash: 'h', grantId: g, accountId: a.id, clientId: null, audience: 'r', scope: 'search', issuedAt: NOW, expiresAt: NOW + 3600, revokedAt: null });
        await s.oauth.createAccessToken(at('a1', 'g1'));
        await s.oauth.createAccessToken(at('a2', 'g2'));
        await s.oauth.createRefreshToken({ id: 'r1', hash: 'h', grantId: 'g1', issuedAt: NOW, expiresAt: NOW + 100, rotatedAt: null, revokedAt: null });
        await s.oauth.revokeAccessToken('a2', NOW + 1);
        assert.equal((await s.oauth.getAccessToken('a2'))?.revokedAt, NOW + 1);
        await s.oauth.revokeGrant('g1', NOW + 2);
        assert.equal((await s.oauth.getGrant('g1'))?.revokedAt, NOW + 2);
        assert.equal((await s.oauth.getAccessToken('a1'))?.revokedAt, NOW + 2);
        assert.equal((await s.oauth.getRefreshToken('r1'))?.revokedAt, NOW + 2);
        assert.equal((await s.oauth.getGrant('g2'))?.revokedAt, null);
        assert.deepEqual(await s.oauth.getGrant('g2'), grant('g2', a.id, { kind: 'service_auth', clientId: null, registrationId: 'reg_1', expiresAt: NOW + 100, assertionJti: 'ia_1' }));
        assert.deepEqual((await s.oauth.listGrantsOf(a.id)).map((g) => g.id).sort(), ['g1', 'g2']);
      }));

    test('a refresh token rotates once, even under concurrent refreshes', () =>
      withStore(factory, async (s, storage) => {
        const a = await storage.accounts.create({ email: 'r@example.org' });
        await s.oauth.createGrant(grant('g1', a.id));
        await s.oauth.createRefreshToken({ id: 'r1', hash: 'h', grantId: 'g1', issuedAt: NOW, expiresAt: NOW + 100, rotatedAt: null, revokedAt: null });
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) => s.oauth.rotateRefreshToken('r1', NOW + 1, { id: `r2-${i}`, hash: 'h', grantId: 'g1', issuedAt: NOW + 1, expiresAt: NOW + 101, rotatedAt: null, revokedAt: null })),
        );
        assert.equal(results.filter(Boolean).length, 1);
        assert.equal((await s.oauth.getRefreshToken('r1'))?.rotatedAt, NOW + 1);
        const winners = await Promise.all(Array.from({ length: 8 }, (_, i) => s.oauth.getRefreshToken(`r2-${i}`)));
        assert.equal(winners.filter(Boolean).length, 1, 'only the winner stored a successor');
        await s.oauth.revokeGrant('g1', NOW + 2);
        assert.equal(await s.oauth.rotateRefreshToken(winners.find(Boolean)!.id, NOW + 3, { id: 'r3', hash: 'h', grantId: 'g1', issuedAt: NOW, expiresAt: NOW, rotatedAt: null, revokedAt: null }), false, 'a revoked token does not rotate');
      }));

    test('claims: one current attempt, decisions and redemption happen once', () =>
      withStore(factory, async (s, storage) => {
        const a = await storage.accounts.create({ email: 'cl@example.org' });
        const reg = { id: 'reg_1', loginHint: 'cl@example.org', claimTokenId: 'ct1', claimTokenHash: 'h', createdAt: NOW, attempts: 1, grantId: null };
        await s.claims.createRegistration(reg, attempt('at1', 'reg_1'));
        assert.deepEqual(await s.claims.getRegistration('reg_1'), reg);
        assert.deepEqual(await s.claims.getRegistrationByClaimToken('ct1'), reg);
        assert.equal((await s.claims.currentAttempt('reg_1'))?.id, 'at1');
        await s.claims.recordPoll('at1', NOW * 1000 + 5, 10);
        const polled = await s.claims.getAttempt('at1');
        assert.equal(polled?.lastPollMs, NOW * 1000 + 5);
        assert.equal(polled?.intervalSeconds, 10);
        assert.equal(await s.claims.addWrongCode('at1'), 1);
        assert.equal(await s.claims.addWrongCode('at1'), 2);
        await s.claims.replaceAttempt('reg_1', attempt('at2', 'reg_1'));
        assert.equal((await s.claims.currentAttempt('reg_1'))?.id, 'at2');
        assert.equal((await s.claims.getAttempt('at1'))?.current, false);
        assert.equal((await s.claims.getRegistration('reg_1'))?.attempts, 2);
        const decisions = await Promise.all([s.claims.decide('at2', 'approved', a.id, NOW), s.claims.decide('at2', 'denied', a.id, NOW)]);
        assert.equal(decisions.filter(Boolean).length, 1);
        if ((await s.claims.getAttempt('at2'))?.status === 'approved') {
          const redeemed = await Promise.all([s.claims.redeem('at2', 'gA', NOW), s.claims.redeem('at2', 'gB', NOW)]);
          assert.equal(redeemed.filter(Boolean).length, 1);
          assert.equal((await s.claims.getAttempt('at2'))?.status, 'redeemed');
          assert.ok(['gA', 'gB'].includes((await s.claims.getRegistration('reg_1'))!.grantId!));
        }
      }));

    test('signing keys: add, retire once, delete', () =>
      withStore(factory, async (s) => {
        const k = { kid: 'k1', alg: 'ES256', publicJwk: '{}', privateJwkSealed: 'sealed', createdAt: NOW, retiredAt: null, removeAfter: null };
        await s.keys.addKey(k);
        await s.keys.addKey({ ...k, kid: 'k2', createdAt: NOW + 1 });
        assert.deepEqual((await s.keys.listKeys()).map((x) => x.kid), ['k1', 'k2']);
        await s.keys.retireKey('k1', NOW + 5, NOW + 50);
        await s.keys.retireKey('k1', NOW + 6, NOW + 60);
        assert.deepEqual((await s.keys.listKeys())[0], { ...k, retiredAt: NOW + 5, removeAfter: NOW + 50 });
        await s.keys.deleteKey('k1');
        assert.deepEqual((await s.keys.listKeys()).map((x) => x.kid), ['k2']);
      }));

    test('purging removes what expired more than a day ago', () =>
      withStore(factory, async (s, storage) => {
        const a = await storage.accounts.create({ email: 'pg@example.org' });
        await s.oauth.createGrant(grant('g1', a.id));
        await s.oauth.createAccessToken({ id: 'old', hash: 'h', grantId: 'g1', accountId: a.id, clientId: null, audience: 'r', scope: 'search', issuedAt: NOW, expiresAt: NOW, revokedAt: null });
        await s.oauth.createAccessToken({ id: 'new', hash: 'h', grantId: 'g1', accountId: a.id, clientId: null, audience: 'r', scope: 'search', issuedAt: NOW, expiresAt: NOW + 3600, revokedAt: null });
        await s.people.createSession({ id: 's', hash: 'h', accountId: a.id, createdAt: NOW, expiresAt: NOW + 10 });
        await s.claims.createRegistration({ id: 'reg_old', loginHint: 'x@example.org', claimTokenId: 'ct_old', claimTokenHash: 'h', createdAt: NOW, attempts: 1, grantId: null }, attempt('at_old', 'reg_old', { expiresAt: NOW }));
        await s.claims.createRegistration({ id: 'reg_live', loginHint: 'x@example.org', claimTokenId: 'ct_live', claimTokenHash: 'h', createdAt: NOW, attempts: 1, grantId: null }, attempt('at_live', 'reg_live', { expiresAt: NOW + 86_400 * 3 }));
        await s.oauth.purgeExpired(NOW + 86_401);
        assert.equal(await s.claims.getRegistration('reg_old'), null, 'an unapproved, expired claim is gone');
        assert.equal(await s.claims.getAttempt('at_old'), null);
        assert.notEqual(await s.claims.getRegistration('reg_live'), null);
        assert.equal(await s.oauth.getAccessToken('old'), null);
        assert.notEqual(await s.oauth.getAccessToken('new'), null);
        assert.equal(await s.people.getSession('s'), null);
      }));
  });
}
