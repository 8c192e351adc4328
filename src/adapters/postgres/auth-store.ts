// The auth capability's store in PostgreSQL (ports/auth-store.ts); same semantics as the SQLite store,
// proved by the shared contract suite (test/auth/auth-store.contract.ts). Single-use and rotation
// rules are one conditional UPDATE each (the condition in the WHERE), so concurrent requests on any
// number of instances cannot both win.
import type pg from 'pg';
import type {
  AccessTokenRecord,
  AgentRegistrationRecord,
  AuthStore,
  AuthorizationCodeRecord,
  ClaimAttemptRecord,
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
import { rowToAccess, rowToAttempt, rowToClient, rowToCode, rowToGrant, rowToKey, rowToRefresh, rowToRegistration } from '../sql/auth-rows.js';
import { withTransaction, type Tx } from './postgres-pool.js';

type Row = Record<string, unknown>;
type Q = Pick<pg.Pool, 'query'> | Tx;

async function one(q: Q, sql: string, params: unknown[]): Promise<Row | undefined> {
  return (await q.query(sql, params)).rows[0] as Row | undefined;
}

class PostgresPeopleStore implements PeopleStore {
  constructor(private readonly pool: pg.Pool) {}
  async getPassword(accountId: number): Promise<PasswordRecord | null> {
    const r = await one(this.pool, 'SELECT * FROM auth_passwords WHERE account_id = $1', [accountId]);
    return r ? { accountId: Number(r.account_id), hash: String(r.hash), updatedAt: Number(r.updated_at) } : null;
  }
  async setPassword(p: PasswordRecord): Promise<void> {
    await this.pool.query(
      'INSERT INTO auth_passwords (account_id, hash, updated_at) VALUES ($1, $2, $3) ON CONFLICT (account_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at',
      [p.accountId, p.hash, p.updatedAt],
    );
  }
  async createSession(s: SessionRecord): Promise<void> {
    await this.pool.query('INSERT INTO auth_sessions (id, hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [s.id, s.hash, s.accountId, s.createdAt, s.expiresAt]);
  }
  async getSession(id: string): Promise<SessionRecord | null> {
    const r = await one(this.pool, 'SELECT * FROM auth_sessions WHERE id = $1', [id]);
    return r ? { id: String(r.id), hash: String(r.hash), accountId: Number(r.account_id), createdAt: Number(r.created_at), expiresAt: Number(r.expires_at) } : null;
  }
  async deleteSession(id: string): Promise<void> {
    await this.pool.query('DELETE FROM auth_sessions WHERE id = $1', [id]);
  }
  async deleteSessionsOf(accountId: number): Promise<void> {
    await this.pool.query('DELETE FROM auth_sessions WHERE account_id = $1', [accountId]);
  }
  async createEmailToken(t: EmailTokenRecord): Promise<void> {
    await this.pool.query('INSERT INTO auth_email_tokens (id, hash, account_id, purpose, expires_at, used_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      t.id,
      t.hash,
      t.accountId,
      t.purpose,
      t.expiresAt,
      t.usedAt,
    ]);
  }
  async getEmailToken(id: string): Promise<EmailTokenRecord | null> {
    const r = await one(this.pool, 'SELECT * FROM auth_email_tokens WHERE id = $1', [id]);
    return r
      ? { id: String(r.id), hash: String(r.hash), accountId: Number(r.account_id), purpose: r.purpose as EmailTokenRecord['purpose'], expiresAt: Number(r.expires_at), usedAt: r.used_at === null ? null : Number(r.used_at) }
      : null;
  }
  async useEmailToken(id: string, at: number): Promise<boolean> {
    return (await this.pool.query('UPDATE auth_email_tokens SET used_at = $1 WHERE id = $2 AND used_at IS NULL', [at, id])).rowCount === 1;
  }
}

const insertRefresh = (q: Q, t: RefreshTokenRecord) =>
  q.query('INSERT INTO oauth_refresh_tokens (id, hash, grant_id, issued_at, expires_at, rotated_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    t.id,
    t.hash,
    t.grantId,
    t.issuedAt,
    t.expiresAt,
    t.rotatedAt,
    t.revokedAt,
  ]);

class PostgresOAuthStore implements OAuthStore {
  constructor(private readonly pool: pg.Pool) {}
  async createClient(c: OAuthClientRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO oauth_clients (client_id, secret_hash, token_endpoint_auth_method, redirect_uris, grant_types, response_types, scope, client_name, extra, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [c.clientId, c.secretHash, c.tokenEndpointAuthMethod, JSON.stringify(c.redirectUris), JSON.stringify(c.grantTypes), JSON.stringify(c.responseTypes), c.scope, c.clientName, JSON.stringify(c.extra), c.createdAt],
    );
  }
  async getClient(clientId: string): Promise<OAuthClientRecord | null> {
    const r = await one(this.pool, 'SELECT * FROM oauth_clients WHERE client_id = $1', [clientId]);
    return r ? rowToClient(r) : null;
  }
  async createCode(c: AuthorizationCodeRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO oauth_codes (id, hash, client_id, account_id, redirect_uri, redirect_uri_given, code_challenge, resource, scope, expires_at, used_at, grant_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [c.id, c.hash, c.clientId, c.accountId, c.redirectUri, c.redirectUriGiven, c.codeChallenge, c.resource, c.scope, c.expiresAt, c.usedAt, c.grantId],
    );
  }
  async getCode(id: string): Promise<AuthorizationCodeRecord | null> {
    const r = await one(this.pool, 'SELECT * FROM oauth_codes WHERE id = $1', [id]);
    return r ? rowToCode(r) : null;
  }
  async useCode(id: string, at: number, grantId: string | null): Promise<boolean> {
    return (await this.pool.query('UPDATE oauth_codes SET used_at = $1, grant_id = $2 WHERE id = $3 AND used_at IS NULL', [at, grantId, id])).rowCount === 1;
  }
  async createGrant(g: GrantRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO auth_grants (id, kind, account_id, client_id, registration_id, scope, resource, created_at, expires_at, revoked_at, assertion_jti)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [g.id, g.kind, g.accountId, g.clientId, g.registrationId, g.scope, g.resource, g.createdAt, g.expiresAt, g.revokedAt, g.assertionJti],
    );
  }
  async getGrant(id: string): Promise<GrantRecord | null> {
    const r = await one(this.pool, 'SELECT * FROM auth_grants WHERE id = $1', [id]);
    return r ? rowToGrant(r) : null;
  }
  async listGrantsOf(accountId: number): Promise<GrantRecord[]> {
    return (await this.pool.query('SELECT * FROM auth_grants WHERE account_id = $1 ORDER BY created_at DESC, id COLLATE "C"', [accountId])).rows.map((r) => rowToGrant(r as Row));
  }
  async revokeGrant(id: string, at: number): Promise<void> {
    await withTransaction(this.pool, async (tx) => {
      await tx.query('UPDATE auth_grants SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id]);
      await tx.query('UPDATE oauth_access_tokens SET revoked_at = $1 WHERE grant_id = $2 AND revoked_at IS NULL', [at, id]);
      await tx.query('UPDATE oauth_refresh_tokens SET revoked_at = $1 WHERE grant_id = $2 AND revoked_at IS NULL', [at, id]);
    });
  }
  async createAccessToken(t: AccessTokenRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO oauth_access_tokens (id, hash, grant_id, account_id, client_id, audience, scope, issued_at, expires_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [t.id, t.hash, t.grantId, t.accountId, t.clientId, t.audience, t.scope, t.issuedAt, t.expiresAt, t.revokedAt],
    );
  }
  async getAccessToken(id: string): Promise<AccessTokenRecord | null> {
    const r = await one(this.pool, 'SELECT * FROM oauth_access_tokens WHERE id = $1', [id]);
    return r ? rowToAccess(r) : null;
  }
  async revokeAccessToken(id: string, at: number): Promise<void> {
    await this.pool.query('UPDATE oauth_access_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id]);
  }
  async createRefreshToken(t: RefreshTokenRecord): Promise<void> {
    await insertRefresh(this.pool, t);
  }
  async getRefreshToken(id: string): Promise<RefreshTokenRecord | null> {
    const r = await one(this.pool, 'SELECT * FROM oauth_refresh_tokens WHERE id = $1', [id]);
    return r ? rowToRefresh(r) : null;
  }
  async rotateRefreshToken(id: string, at: number, successor: RefreshTokenRecord): Promise<boolean> {
    return withTransaction(this.pool, async (tx) => {
      const r = await tx.query('UPDATE oauth_refresh_tokens SET rotated_at = $1 WHERE id = $2 AND rotated_at IS NULL AND revoked_at IS NULL', [at, id]);
      if (r.rowCount !== 1) return false;
      await insertRefresh(tx, successor);
      return true;
    });
  }
  async purgeExpired(now: number): Promise<void> {
    const before = now - 86_400;
    await this.pool.query('DELETE FROM oauth_codes WHERE expires_at < $1', [before]);
    await this.pool.query('DELETE FROM oauth_access_tokens WHERE expires_at < $1', [before]);
    await this.pool.query('DELETE FROM oauth_refresh_tokens WHERE expires_at < $1', [before]);
    await this.pool.query('DELETE FROM auth_sessions WHERE expires_at < $1', [now]);
    await this.pool.query('DELETE FROM auth_email_tokens WHERE expires_at < $1', [before]);
    // Claims nobody approved: their attempts, then registrations left without any.
    await this.pool.query('DELETE FROM agent_claim_attempts WHERE expires_at < $1 AND registration_id IN (SELECT id FROM agent_registrations WHERE grant_id IS NULL)', [before]);
    await this.pool.query('DELETE FROM agent_registrations WHERE grant_id IS NULL AND NOT EXISTS (SELECT 1 FROM agent_claim_attempts a WHERE a.registration_id = agent_registrations.id)');
  }
}

const insertAttempt = (q: Q, a: ClaimAttemptRecord) =>
  q.query(
    `INSERT INTO agent_claim_attempts (id, registration_id, hash, user_code_hash, status, created_at, expires_at, interval_seconds, last_poll_ms, wrong_codes, decided_by, decided_at, is_current)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [a.id, a.registrationId, a.hash, a.userCodeHash, a.status, a.createdAt, a.expiresAt, a.intervalSeconds, a.lastPollMs, a.wrongCodes, a.decidedBy, a.decidedAt, a.current],
  );

class PostgresClaimStore implements ClaimStore {
  constructor(private readonly pool: pg.Pool) {}
  async createRegistration(r: AgentRegistrationRecord, a: ClaimAttemptRecord): Promise<void> {
    await withTransaction(this.pool, async (tx) => {
      await tx.query('INSERT INTO agent_registrations (id, login_hint, claim_token_id, claim_token_hash, created_at, attempts, grant_id) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        r.id,
        r.loginHint,
        r.claimTokenId,
        r.claimTokenHash,
        r.createdAt,
        r.attempts,
        r.grantId,
      ]);
      await insertAttempt(tx, a);
    });
  }
  async getRegistration(id: string): Promise<AgentRegistrationRecord | null> {
    const r = await one(this.pool, 'SELECT * FROM agent_registrations WHERE id = $1', [id]);
    return r ? rowToRegistration(r) : null;
  }
  async getRegistrationByClaimToken(claimTokenId: string): Promise<AgentRegistrationRecord | null> {
    const r = await one(this.pool, 'SELECT * FROM agent_registrations WHERE claim_token_id = $1', [claimTokenId]);
    return r ? rowToRegistration(r) : null;
  }
  async currentAttempt(registrationId: string): Promise<ClaimAttemptRecord | null> {
    const r = await one(this.pool, 'SELECT * FROM agent_claim_attempts WHERE registration_id = $1 AND is_current', [registrationId]);
    return r ? rowToAttempt(r) : null;
  }
  async getAttempt(id: string): Promise<ClaimAttemptRecord | null> {
    const r = await one(this.pool, 'SELECT * FROM agent_claim_attempts WHERE id = $1', [id]);
    return r ? rowToAttempt(r) : null;
  }
  async replaceAttempt(registrationId: string, a: ClaimAttemptRecord): Promise<void> {
    await withTransaction(this.pool, async (tx) => {
      await tx.query('UPDATE agent_claim_attempts SET is_current = FALSE WHERE registration_id = $1', [registrationId]);
      await tx.query('UPDATE agent_registrations SET attempts = attempts + 1 WHERE id = $1', [registrationId]);
      await insertAttempt(tx, a);
    });
  }
  async recordPoll(attemptId: string, atMs: number, intervalSeconds: number): Promise<void> {
    await this.pool.query('UPDATE agent_claim_attempts SET last_poll_ms = $1, interval_seconds = $2 WHERE id = $3', [atMs, intervalSeconds, attemptId]);
  }
  async addWrongCode(attemptId: string): Promise<number> {
    const r = await one(this.pool, 'UPDATE agent_claim_attempts SET wrong_codes = wrong_codes + 1 WHERE id = $1 RETURNING wrong_codes', [attemptId]);
    return Number(r?.wrong_codes ?? 0);
  }
  async decide(attemptId: string, status: 'approved' | 'denied', accountId: number | null, at: number): Promise<boolean> {
    const r = await this.pool.query("UPDATE agent_claim_attempts SET status = $1, decided_by = $2, decided_at = $3 WHERE id = $4 AND status = 'pending'", [status, accountId, at, attemptId]);
    return r.rowCount === 1;
  }
  async redeem(attemptId: string, grantId: string, at: number): Promise<boolean> {
    return withTransaction(this.pool, async (tx) => {
      const r = await tx.query("UPDATE agent_claim_attempts SET status = 'redeemed', decided_at = COALESCE(decided_at, $1) WHERE id = $2 AND status = 'approved' RETURNING registration_id", [at, attemptId]);
      if (r.rowCount !== 1) return false;
      await tx.query('UPDATE agent_registrations SET grant_id = $1 WHERE id = $2', [grantId, (r.rows[0] as Row).registration_id]);
      return true;
    });
  }
}

class PostgresSigningKeyStore implements SigningKeyStore {
  constructor(private readonly pool: pg.Pool) {}
  async listKeys(): Promise<SigningKeyRecord[]> {
    return (await this.pool.query('SELECT * FROM auth_signing_keys ORDER BY created_at, kid COLLATE "C"')).rows.map((r) => rowToKey(r as Row));
  }
  async addKey(k: SigningKeyRecord): Promise<void> {
    await this.pool.query('INSERT INTO auth_signing_keys (kid, alg, public_jwk, private_jwk_sealed, created_at, retired_at, remove_after) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
      k.kid,
      k.alg,
      k.publicJwk,
      k.privateJwkSealed,
      k.createdAt,
      k.retiredAt,
      k.removeAfter,
    ]);
  }
  async retireKey(kid: string, at: number, removeAfter: number): Promise<void> {
    await this.pool.query('UPDATE auth_signing_keys SET retired_at = $1, remove_after = $2 WHERE kid = $3 AND retired_at IS NULL', [at, removeAfter, kid]);
  }
  async deleteKey(kid: string): Promise<void> {
    await this.pool.query('DELETE FROM auth_signing_keys WHERE kid = $1', [kid]);
  }
}

/** The auth store over a Lectern PostgreSQL pool (migrations already applied). */
export function postgresAuthStore(pool: pg.Pool): AuthStore {
  return { people: new PostgresPeopleStore(pool), oauth: new PostgresOAuthStore(pool), claims: new PostgresClaimStore(pool), keys: new PostgresSigningKeyStore(pool) };
}
