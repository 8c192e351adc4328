// Row <-> record mapping of the auth tables, shared by the SQLite and PostgreSQL auth stores
// (SQLite booleans are 0/1, PostgreSQL's are booleans; BIGINTs arrive as numbers from both).
import type {
  AccessTokenRecord,
  AgentRegistrationRecord,
  AuthorizationCodeRecord,
  ClaimAttemptRecord,
  ClaimStatus,
  GrantRecord,
  OAuthClientRecord,
  RefreshTokenRecord,
  SigningKeyRecord,
} from '../../ports/auth-store.js';

export type Row = Record<string, unknown>;

/** Most API-key records one process caches, in either store (cleared when full: bounded memory whatever is presented; ADR 0185). */
export const API_KEY_CACHE_MAX = 10_000;

export const num = (v: unknown): number => Number(v);
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
export const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export const rowToClient = (r: Row): OAuthClientRecord => ({
  clientId: String(r.client_id),
  secretHash: strOrNull(r.secret_hash),
  tokenEndpointAuthMethod: r.token_endpoint_auth_method as OAuthClientRecord['tokenEndpointAuthMethod'],
  redirectUris: JSON.parse(String(r.redirect_uris)) as string[],
  grantTypes: JSON.parse(String(r.grant_types)) as string[],
  responseTypes: JSON.parse(String(r.response_types)) as string[],
  scope: String(r.scope),
  clientName: strOrNull(r.client_name),
  extra: JSON.parse(String(r.extra)) as Record<string, string>,
  createdAt: num(r.created_at),
});
export const rowToCode = (r: Row): AuthorizationCodeRecord => ({
  id: String(r.id),
  hash: String(r.hash),
  clientId: String(r.client_id),
  accountId: num(r.account_id),
  redirectUri: String(r.redirect_uri),
  redirectUriGiven: r.redirect_uri_given === true || r.redirect_uri_given === 1,
  codeChallenge: String(r.code_challenge),
  resource: String(r.resource),
  scope: String(r.scope),
  expiresAt: num(r.expires_at),
  usedAt: numOrNull(r.used_at),
  grantId: strOrNull(r.grant_id),
});
export const rowToGrant = (r: Row): GrantRecord => ({
  id: String(r.id),
  kind: r.kind as GrantRecord['kind'],
  accountId: num(r.account_id),
  clientId: strOrNull(r.client_id),
  registrationId: strOrNull(r.registration_id),
  scope: String(r.scope),
  resource: String(r.resource),
  createdAt: num(r.created_at),
  expiresAt: numOrNull(r.expires_at),
  revokedAt: numOrNull(r.revoked_at),
  assertionJti: strOrNull(r.assertion_jti),
});
export const rowToAccess = (r: Row): AccessTokenRecord => ({
  id: String(r.id),
  hash: String(r.hash),
  grantId: String(r.grant_id),
  accountId: num(r.account_id),
  clientId: strOrNull(r.client_id),
  audience: String(r.audience),
  scope: String(r.scope),
  issuedAt: num(r.issued_at),
  expiresAt: num(r.expires_at),
  revokedAt: numOrNull(r.revoked_at),
});
export const rowToRefresh = (r: Row): RefreshTokenRecord => ({
  id: String(r.id),
  hash: String(r.hash),
  grantId: String(r.grant_id),
  issuedAt: num(r.issued_at),
  expiresAt: num(r.expires_at),
  rotatedAt: numOrNull(r.rotated_at),
  revokedAt: numOrNull(r.revoked_at),
});
export const rowToRegistration = (r: Row): AgentRegistrationRecord => ({
  id: String(r.id),
  loginHint: String(r.login_hint),
  claimTokenId: String(r.claim_token_id),
  claimTokenHash: String(r.claim_token_hash),
  createdAt: num(r.created_at),
  attempts: num(r.attempts),
  grantId: strOrNull(r.grant_id),
});
export const rowToAttempt = (r: Row): ClaimAttemptRecord => ({
  id: String(r.id),
  registrationId: String(r.registration_id),
  hash: String(r.hash),
  userCodeHash: String(r.user_code_hash),
  status: r.status as ClaimStatus,
  createdAt: num(r.created_at),
  expiresAt: num(r.expires_at),
  intervalSeconds: num(r.interval_seconds),
  lastPollMs: numOrNull(r.last_poll_ms),
  wrongCodes: num(r.wrong_codes),
  decidedBy: numOrNull(r.decided_by),
  decidedAt: numOrNull(r.decided_at),
  current: r.is_current === true || r.is_current === 1,
});
export const rowToKey = (r: Row): SigningKeyRecord => ({
  kid: String(r.kid),
  alg: String(r.alg),
  publicJwk: String(r.public_jwk),
  privateJwkSealed: String(r.private_jwk_sealed),
  createdAt: num(r.created_at),
  retiredAt: numOrNull(r.retired_at),
  removeAfter: numOrNull(r.remove_after),
});

