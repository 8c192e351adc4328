// Schema of the auth capability (ports/auth-store.ts), both dialects. Secrets are stored as SHA-256
// digests only. Never edit a released step: add `auth/002-...`.
import type { MigrationStep } from './migrations.js';

/** Tables shared by both dialects, with `{INT}` / `{BOOL}` / `{TRUE}` placeholders. */
const tables = `
  CREATE TABLE auth_passwords (
    account_id {INT} PRIMARY KEY REFERENCES accounts(id),
    hash TEXT NOT NULL,
    updated_at {INT} NOT NULL
  );
  CREATE TABLE auth_sessions (
    id TEXT PRIMARY KEY,
    hash TEXT NOT NULL,
    account_id {INT} NOT NULL REFERENCES accounts(id),
    created_at {INT} NOT NULL,
    expires_at {INT} NOT NULL
  );
  CREATE INDEX auth_sessions_account ON auth_sessions(account_id);
  CREATE TABLE auth_email_tokens (
    id TEXT PRIMARY KEY,
    hash TEXT NOT NULL,
    account_id {INT} NOT NULL REFERENCES accounts(id),
    purpose TEXT NOT NULL,
    expires_at {INT} NOT NULL,
    used_at {INT}
  );
  CREATE TABLE oauth_clients (
    client_id TEXT PRIMARY KEY,
    secret_hash TEXT,
    token_endpoint_auth_method TEXT NOT NULL,
    redirect_uris TEXT NOT NULL,
    grant_types TEXT NOT NULL,
    response_types TEXT NOT NULL,
    scope TEXT NOT NULL,
    client_name TEXT,
    extra TEXT NOT NULL,
    created_at {INT} NOT NULL
  );
  CREATE TABLE oauth_codes (
    id TEXT PRIMARY KEY,
    hash TEXT NOT NULL,
    client_id TEXT NOT NULL,
    account_id {INT} NOT NULL,
    redirect_uri TEXT NOT NULL,
    redirect_uri_given {BOOL} NOT NULL,
    code_challenge TEXT NOT NULL,
    resource TEXT NOT NULL,
    scope TEXT NOT NULL,
    expires_at {INT} NOT NULL,
    used_at {INT},
    grant_id TEXT
  );
  CREATE TABLE auth_grants (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    account_id {INT} NOT NULL REFERENCES accounts(id),
    client_id TEXT,
    registration_id TEXT,
    scope TEXT NOT NULL,
    resource TEXT NOT NULL,
    created_at {INT} NOT NULL,
    expires_at {INT},
    revoked_at {INT},
    assertion_jti TEXT
  );
  CREATE INDEX auth_grants_account ON auth_grants(account_id);
  CREATE TABLE oauth_access_tokens (
    id TEXT PRIMARY KEY,
    hash TEXT NOT NULL,
    grant_id TEXT NOT NULL,
    account_id {INT} NOT NULL,
    client_id TEXT,
    audience TEXT NOT NULL,
    scope TEXT NOT NULL,
    issued_at {INT} NOT NULL,
    expires_at {INT} NOT NULL,
    revoked_at {INT}
  );
  CREATE INDEX oauth_access_tokens_grant ON oauth_access_tokens(grant_id);
  CREATE TABLE oauth_refresh_tokens (
    id TEXT PRIMARY KEY,
    hash TEXT NOT NULL,
    grant_id TEXT NOT NULL,
    issued_at {INT} NOT NULL,
    expires_at {INT} NOT NULL,
    rotated_at {INT},
    revoked_at {INT}
  );
  CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens(grant_id);
  CREATE TABLE agent_registrations (
    id TEXT PRIMARY KEY,
    login_hint TEXT NOT NULL,
    claim_token_id TEXT NOT NULL UNIQUE,
    claim_token_hash TEXT NOT NULL,
    created_at {INT} NOT NULL,
    attempts INTEGER NOT NULL,
    grant_id TEXT
  );
  CREATE TABLE agent_claim_attempts (
    id TEXT PRIMARY KEY,
    registration_id TEXT NOT NULL REFERENCES agent_registrations(id),
    hash TEXT NOT NULL,
    user_code_hash TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at {INT} NOT NULL,
    expires_at {INT} NOT NULL,
    interval_seconds INTEGER NOT NULL,
    last_poll_ms {INT},
    wrong_codes INTEGER NOT NULL DEFAULT 0,
    decided_by {INT},
    decided_at {INT},
    is_current {BOOL} NOT NULL
  );
  CREATE INDEX agent_claim_attempts_registration ON agent_claim_attempts(registration_id);
  CREATE TABLE auth_signing_keys (
    kid TEXT PRIMARY KEY,
    alg TEXT NOT NULL,
    public_jwk TEXT NOT NULL,
    private_jwk_sealed TEXT NOT NULL,
    created_at {INT} NOT NULL,
    retired_at {INT},
    remove_after {INT}
  );
`;

export const AUTH_MIGRATIONS: readonly MigrationStep[] = [
  {
    id: 'auth/001-init',
    sqlite: tables.replaceAll('{INT}', 'INTEGER').replaceAll('{BOOL}', 'INTEGER'),
    postgres: tables.replaceAll('{INT}', 'BIGINT').replaceAll('{BOOL}', 'BOOLEAN'),
  },
];
