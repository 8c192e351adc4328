// The auth capability's store in the embedded SQLite database (ports/auth-store.ts). Runs the same
// contract suite as the PostgreSQL store (test/auth/auth-store.contract.ts). better-sqlite3 is
// synchronous, so each conditional UPDATE below is atomic within the process and, with BEGIN IMMEDIATE
// transactions, across processes.
import type Database from 'better-sqlite3';
import { statementCache, type Statements } from './sqlite-storage.js';
import type {
  AccessTokenRecord,
  AgentRegistrationRecord,
  AuthStore,
  AuthorizationCodeRecord,
  ClaimAttemptRecord,
  ClaimStatus,
  ClaimStore,
  EmailTokenRecord,
  GrantRecord,
  OAuthClientRecord,
  OAuthStore,
  PasswordRecord,
  PeopleStore,
  RefreshTokenRecord,
  SessionRecord,
  SigningKeyRecord,
  SigningKeyStore,
} from '../../ports/auth-store.js';

import { num, numOrNull, rowToAccess, rowToAttempt, rowToClient, rowToCode, rowToGrant, rowToKey, rowToRefresh, rowToRegistration } from '../sql/auth-rows.js';

type Db = Database.Database;
type Row = Record<string, unknown>;

class SqlitePeopleStore implements PeopleStore {
  readonly #s: Statements;
  constructor(private readonly db: Db) {
    this.#s = statementCache(db);
  }
  async getPassword(accountId: number): Promise<PasswordRecord | null> {
    const r = this.#s.q('SELECT * FROM auth_passwords WHERE account_id = ?').get(accountId) as Row | undefined;
    return r ? { accountId: num(r.account_id), hash: String(r.hash), updatedAt: num(r.updated_at) } : null;
  }
  async setPassword(p: PasswordRecord): Promise<void> {
    this.#s.q('INSERT INTO auth_passwords (account_id, hash, updated_at) VALUES (?, ?, ?) ON CONFLICT (account_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at')
      .run(p.accountId, p.hash, p.updatedAt);
  }
  async createSession(s: SessionRecord): Promise<void> {
    this.#s.q('INSERT INTO auth_sessions (id, hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)').run(s.id, s.hash, s.accountId, s.createdAt, s.expiresAt);
  }
  async getSession(id: string): Promise<SessionRecord | null> {
    const r = this.#s.q('SELECT * FROM auth_sessions WHERE id = ?').get(id) as Row | undefined;
    return r ? { id: String(r.id), hash: String(r.hash), accountId: num(r.account_id), createdAt: num(r.created_at), expiresAt: num(r.expires_at) } : null;
  }
  async deleteSession(id: string): Promise<void> {
    this.#s.q('DELETE FROM auth_sessions WHERE id = ?').run(id);
  }
  async deleteSessionsOf(accountId: number): Promise<void> {
    this.#s.q('DELETE FROM auth_sessions WHERE account_id = ?').run(accountId);
  }
  async createEmailToken(t: EmailTokenRecord): Promise<void> {
    this.#s.q('INSERT INTO auth_email_tokens (id, hash, account_id, purpose, expires_at, used_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(t.id, t.hash, t.accountId, t.purpose, t.expiresAt, t.usedAt);
  }
  async getEmailToken(id: string): Promise<EmailTokenRecord | null> {
    const r = this.#s.q('SELECT * FROM auth_email_tokens WHERE id = ?').get(id) as Row | undefined;
    return r
      ? { id: String(r.id), hash: String(r.hash), accountId: num(r.account_id), purpose: r.purpose as EmailTokenRecord['purpose'], expiresAt: num(r.expires_at), usedAt: numOrNull(r.used_at) }
      : null;
  }
  async useEmailToken(id: string, at: number): Promise<boolean> {
    return this.#s.q('UPDATE auth_email_tokens SET used_at = ? WHERE id = ? AND used_at IS NULL').run(at, id).changes === 1;
  }
}

class SqliteOAuthStore implements OAuthStore {
  readonly #s: Statements;
  readonly #revokeGrant;
  readonly #rotate;
  constructor(private readonly db: Db) {
    this.#s = statementCache(db);
    this.#revokeGrant = db.transaction((id: string, at: number) => {
      db.prepare('UPDATE auth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id);
      db.prepare('UPDATE oauth_access_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL').run(at, id);
      db.prepare('UPDATE oauth_refresh_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL').run(at, id);
    });
    this.#rotate = db.transaction((id: string, at: number, s: RefreshTokenRecord): boolean => {
      const changed = db.prepare('UPDATE oauth_refresh_tokens SET rotated_at = ? WHERE id = ? AND rotated_at IS NULL AND revoked_at IS NULL').run(at, id).changes;
      if (changed !== 1) return false;
      this.insertRefresh(s);
      return true;
    });
  }
  private insertRefresh(t: RefreshTokenRecord): void {
    this.#s.q('INSERT INTO oauth_refresh_tokens (id, hash, grant_id, issued_at, expires_at, rotated_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(t.id, t.hash, t.grantId, t.issuedAt, t.expiresAt, t.rotatedAt, t.revokedAt);
  }
  async createClient(c: OAuthClientRecord): Promise<void> {
    this.#s.q(
        `INSERT INTO oauth_clients (client_id, secret_hash, token_endpoint_auth_method, redirect_uris, grant_types, response_types, scope, client_name, extra, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(c.clientId, c.secretHash, c.tokenEndpointAuthMethod, JSON.stringify(c.redirectUris), JSON.stringify(c.grantTypes), JSON.stringify(c.responseTypes), c.scope, c.clientName, JSON.stringify(c.extra), c.createdAt);
  }
  async getClient(clientId: string): Promise<OAuthClientRecord | null> {
    const r = this.#s.q('SELECT * FROM oauth_clients WHERE client_id = ?').get(clientId) as Row | undefined;
    return r ? rowToClient(r) : null;
  }
  async createCode(c: AuthorizationCodeRecord): Promise<void> {
    this.#s.q(
        `INSERT INTO oauth_codes (id, hash, client_id, account_id, redirect_uri, redirect_uri_given, code_challenge, resource, scope, expires_at, used_at, grant_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(c.id, c.hash, c.clientId, c.accountId, c.redirectUri, c.redirectUriGiven ? 1 : 0, c.codeChallenge, c.resource, c.scope, c.expiresAt, c.usedAt, c.grantId);
  }
  async getCode(id: string): Promise<AuthorizationCodeRecord | null> {
    const r = this.#s.q('SELECT * FROM oauth_codes WHERE id = ?').get(id) as Row | undefined;
    return r ? rowToCode(r) : null;
  }
  async useCode(id: string, at: number, grantId: string | null): Promise<boolean> {
    return this.#s.q('UPDATE oauth_codes SET used_at = ?, grant_id = ? WHERE id = ? AND used_at IS NULL').run(at, grantId, id).changes === 1;
  }
  async createGrant(g: GrantRecord): Promise<void> {
    this.#s.q(
        `INSERT INTO auth_grants (id, kind, account_id, client_id, registration_id, scope, resource, created_at, expires_at, revoked_at, assertion_jti)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(g.id, g.kind, g.accountId, g.clientId, g.registrationId, g.scope, g.resource, g.createdAt, g.expiresAt, g.revokedAt, g.assertionJti);
  }
  async getGrant(id: string): Promise<GrantRecord | null> {
    const r = this.#s.q('SELECT * FROM auth_grants WHERE id = ?').get(id) as Row | undefined;
    return r ? rowToGrant(r) : null;
  }
  async listGrantsOf(accountId: number): Promise<GrantRecord[]> {
    return (this.#s.q('SELECT * FROM auth_grants WHERE account_id = ? ORDER BY created_at DESC, id').all(accountId) as Row[]).map(rowToGrant);
  }
  async revokeGrant(id: string, at: number): Promise<void> {
    this.#revokeGrant.immediate(id, at);
  }
  async createAccessToken(t: AccessTokenRecord): Promise<void> {
    this.#s.q(
        `INSERT INTO oauth_access_tokens (id, hash, grant_id, account_id, client_id, audience, scope, issued_at, expires_at, revoked_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(t.id, t.hash, t.grantId, t.accountId, t.clientId, t.audience, t.scope, t.issuedAt, t.expiresAt, t.revokedAt);
  }
  async getAccessToken(id: string): Promise<AccessTokenRecord | null> {
    const r = this.#s.q('SELECT * FROM oauth_access_tokens WHERE id = ?').get(id) as Row | undefined;
    return r ? rowToAccess(r) : null;
  }
  async revokeAccessToken(id: string, at: number): Promise<void> {
    this.#s.q('UPDATE oauth_access_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id);
  }
  async createRefreshToken(t: RefreshTokenRecord): Promise<void> {
    this.insertRefresh(t);
  }
  async getRefreshToken(id: string): Promise<RefreshTokenRecord | null> {
    const r = this.#s.q('SELECT * FROM oauth_refresh_tokens WHERE id = ?').get(id) as Row | undefined;
    return r ? rowToRefresh(r) : null;
  }
  async rotateRefreshToken(id: string, at: number, successor: RefreshTokenRecord): Promise<boolean> {
    return this.#rotate.immediate(id, at, successor);
  }
  async purgeExpired(now: number): Promise<void> {
    // Records are kept a day past expiry so replays are still recognised (and answered invalid_grant).
    const before = now - 86_400;
    this.#s.q('DELETE FROM oauth_codes WHERE expires_at < ?').run(before);
    this.#s.q('DELETE FROM oauth_access_tokens WHERE expires_at < ?').run(before);
    this.#s.q('DELETE FROM oauth_refresh_tokens WHERE expires_at < ?').run(before);
    this.#s.q('DELETE FROM auth_sessions WHERE expires_at < ?').run(now);
    this.#s.q('DELETE FROM auth_email_tokens WHERE expires_at < ?').run(before);
    // Claims nobody approved: their attempts, then registrations left without any.
    this.#s.q('DELETE FROM agent_claim_attempts WHERE expires_at < ? AND registration_id IN (SELECT id FROM agent_registrations WHERE grant_id IS NULL)').run(before);
    this.#s.q('DELETE FROM agent_registrations WHERE grant_id IS NULL AND NOT EXISTS (SELECT 1 FROM agent_claim_attempts a WHERE a.registration_id = agent_registrations.id)').run();
  }
}

class SqliteClaimStore implements ClaimStore {
  readonly #s: Statements;
  readonly #create;
  readonly #replace;
  constructor(private readonly db: Db) {
    this.#s = statementCache(db);
    this.#create = db.transaction((r: AgentRegistrationRecord, a: ClaimAttemptRecord) => {
      db.prepare('INSERT INTO agent_registrations (id, login_hint, claim_token_id, claim_token_hash, created_at, attempts, grant_id) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
        r.id,
        r.loginHint,
        r.claimTokenId,
        r.claimTokenHash,
        r.createdAt,
        r.attempts,
        r.grantId,
      );
      this.insertAttempt(a);
    });
    this.#replace = db.transaction((registrationId: string, a: ClaimAttemptRecord) => {
      db.prepare('UPDATE agent_claim_attempts SET is_current = 0 WHERE registration_id = ?').run(registrationId);
      db.prepare('UPDATE agent_registrations SET attempts = attempts + 1 WHERE id = ?').run(registrationId);
      this.insertAttempt(a);
    });
  }
  private insertAttempt(a: ClaimAttemptRecord): void {
    this.#s.q(
        `INSERT INTO agent_claim_attempts (id, registration_id, hash, user_code_hash, status, created_at, expires_at, interval_seconds, last_poll_ms, wrong_codes, decided_by, decided_at, is_current)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(a.id, a.registrationId, a.hash, a.userCodeHash, a.status, a.createdAt, a.expiresAt, a.intervalSeconds, a.lastPollMs, a.wrongCodes, a.decidedBy, a.decidedAt, a.current ? 1 : 0);
  }
  async createRegistration(r: AgentRegistrationRecord, a: ClaimAttemptRecord): Promise<void> {
    this.#create.immediate(r, a);
  }
  async getRegistration(id: string): Promise<AgentRegistrationRecord | null> {
    const r = this.#s.q('SELECT * FROM agent_registrations WHERE id = ?').get(id) as Row | undefined;
    return r ? rowToRegistration(r) : null;
  }
  async getRegistrationByClaimToken(claimTokenId: string): Promise<AgentRegistrationRecord | null> {
    const r = this.#s.q('SELECT * FROM agent_registrations WHERE claim_token_id = ?').get(claimTokenId) as Row | undefined;
    return r ? rowToRegistration(r) : null;
  }
  async currentAttempt(registrationId: string): Promise<ClaimAttemptRecord | null> {
    const r = this.#s.q('SELECT * FROM agent_claim_attempts WHERE registration_id = ? AND is_current = 1').get(registrationId) as Row | undefined;
    return r ? rowToAttempt(r) : null;
  }
  async getAttempt(id: string): Promise<ClaimAttemptRecord | null> {
    const r = this.#s.q('SELECT * FROM agent_claim_attempts WHERE id = ?').get(id) as Row | undefined;
    return r ? rowToAttempt(r) : null;
  }
  async replaceAttempt(registrationId: string, a: ClaimAttemptRecord): Promise<void> {
    this.#replace.immediate(registrationId, a);
  }
  async recordPoll(attemptId: string, atMs: number, intervalSeconds: number): Promise<void> {
    this.#s.q('UPDATE agent_claim_attempts SET last_poll_ms = ?, interval_seconds = ? WHERE id = ?').run(atMs, intervalSeconds, attemptId);
  }
  async addWrongCode(attemptId: string): Promise<number> {
    return num(this.#s.p('UPDATE agent_claim_attempts SET wrong_codes = wrong_codes + 1 WHERE id = ? RETURNING wrong_codes').get(attemptId));
  }
  async decide(attemptId: string, status: 'approved' | 'denied', accountId: number | null, at: number): Promise<boolean> {
    return (
      this.#s.q("UPDATE agent_claim_attempts SET status = ?, decided_by = ?, decided_at = ? WHERE id = ? AND status = 'pending'").run(status, accountId, at, attemptId).changes === 1
    );
  }
  async redeem(attemptId: string, grantId: string, at: number): Promise<boolean> {
    return this.db.transaction(() => {
      const changed = this.#s.q("UPDATE agent_claim_attempts SET status = 'redeemed', decided_at = COALESCE(decided_at, ?) WHERE id = ? AND status = 'approved'").run(at, attemptId).changes;
      if (changed !== 1) return false;
      this.#s.q('UPDATE agent_registrations SET grant_id = ? WHERE id = (SELECT registration_id FROM agent_claim_attempts WHERE id = ?)').run(grantId, attemptId);
      return true;
    }).immediate();
  }
}

class SqliteSigningKeyStore implements SigningKeyStore {
  readonly #s: Statements;
  constructor(private readonly db: Db) {
    this.#s = statementCache(db);
  }
  async listKeys(): Promise<SigningKeyRecord[]> {
    return (this.#s.q('SELECT * FROM auth_signing_keys ORDER BY created_at, kid').all() as Row[]).map(rowToKey);
  }
  async addKey(k: SigningKeyRecord): Promise<void> {
    this.#s.q('INSERT INTO auth_signing_keys (kid, alg, public_jwk, private_jwk_sealed, created_at, retired_at, remove_after) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(k.kid, k.alg, k.publicJwk, k.privateJwkSealed, k.createdAt, k.retiredAt, k.removeAfter);
  }
  async retireKey(kid: string, at: number, removeAfter: number): Promise<void> {
    this.#s.q('UPDATE auth_signing_keys SET retired_at = ?, remove_after = ? WHERE kid = ? AND retired_at IS NULL').run(at, removeAfter, kid);
  }
  async deleteKey(kid: string): Promise<void> {
    this.#s.q('DELETE FROM auth_signing_keys WHERE kid = ?').run(kid);
  }
}

/** The auth store over an open Lectern SQLite database (migrations already applied). */
export function sqliteAuthStore(db: Db): AuthStore {
  return { people: new SqlitePeopleStore(db), oauth: new SqliteOAuthStore(db), claims: new SqliteClaimStore(db), keys: new SqliteSigningKeyStore(db) };
}
