// Durable state of the auth capability: passwords, browser sessions, emailed links, OAuth clients,
// authorization codes, grants (agent connections), access and refresh tokens, service_auth claims and
// signing keys. Every secret is stored as a SHA-256 digest (`hash`), never in the clear; a record is
// found by its public `id` and its digest compared in constant time by the caller. Times are Unix
// seconds unless named `*Ms`.

export interface PasswordRecord {
  accountId: number;
  /** Self-describing memory-hard hash (`scrypt$...`). */
  hash: string;
  updatedAt: number;
}

export interface SessionRecord {
  id: string;
  hash: string;
  accountId: number;
  createdAt: number;
  expiresAt: number;
}

export type EmailTokenPurpose = 'verify' | 'password';

export interface EmailTokenRecord {
  id: string;
  hash: string;
  accountId: number;
  purpose: EmailTokenPurpose;
  expiresAt: number;
  usedAt: number | null;
}

export interface OAuthClientRecord {
  clientId: string;
  /** Digest of the client secret (confidential clients), else null. */
  secretHash: string | null;
  tokenEndpointAuthMethod: 'none' | 'client_secret_post' | 'client_secret_basic';
  redirectUris: string[];
  grantTypes: string[];
  responseTypes: string[];
  scope: string;
  clientName: string | null;
  /** Other registered metadata echoed to the client (logo_uri, client_uri, ...). */
  extra: Record<string, string>;
  createdAt: number;
}

export interface AuthorizationCodeRecord {
  id: string;
  hash: string;
  clientId: string;
  accountId: number;
  redirectUri: string;
  /** Whether the authorization request carried redirect_uri (then the token request must too). */
  redirectUriGiven: boolean;
  codeChallenge: string;
  resource: string;
  scope: string;
  expiresAt: number;
  usedAt: number | null;
  /** The grant created when the code was exchanged (revoked if the code is replayed). */
  grantId: string | null;
}

export type GrantKind = 'authorization_code' | 'service_auth';

/** An agent connection: what a person approved; tokens hang off it and die with it. */
export interface GrantRecord {
  id: string;
  kind: GrantKind;
  accountId: number;
  /** DCR client (authorization_code grants), else null. */
  clientId: string | null;
  /** service_auth registration, else null. */
  registrationId: string | null;
  scope: string;
  /** Audience of tokens from this grant (the resource). */
  resource: string;
  createdAt: number;
  /** End of the connection (service_auth: the identity assertion's exp), null = until revoked. */
  expiresAt: number | null;
  revokedAt: number | null;
  /** jti of the identity assertion (service_auth), else null. */
  assertionJti: string | null;
}

export interface AccessTokenRecord {
  /** The token's jti. */
  id: string;
  hash: string;
  grantId: string;
  accountId: number;
  clientId: string | null;
  audience: string;
  scope: string;
  issuedAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

export interface RefreshTokenRecord {
  id: string;
  hash: string;
  grantId: string;
  issuedAt: number;
  expiresAt: number;
  /** When it was exchanged for its successor, else null. */
  rotatedAt: number | null;
  revokedAt: number | null;
}

export type ClaimStatus = 'pending' | 'approved' | 'denied' | 'redeemed';

export interface AgentRegistrationRecord {
  id: string;
  /** Lower-cased login_hint. */
  loginHint: string;
  claimTokenId: string;
  claimTokenHash: string;
  createdAt: number;
  /** Claim attempts started so far (the first one included). */
  attempts: number;
  /** The grant made when a claim was redeemed, else null. */
  grantId: string | null;
}

export interface ClaimAttemptRecord {
  id: string;
  registrationId: string;
  /** The attempt token of verification_uri (digest). */
  hash: string;
  /** The six-digit user code, as a digest. */
  userCodeHash: string;
  status: ClaimStatus;
  createdAt: number;
  expiresAt: number;
  /** Seconds the client must wait between polls (grows by 5 with every slow_down). */
  intervalSeconds: number;
  lastPollMs: number | null;
  wrongCodes: number;
  decidedBy: number | null;
  decidedAt: number | null;
  /** Whether this is the registration's current attempt (a new attempt supersedes the old). */
  current: boolean;
}

export interface SigningKeyRecord {
  kid: string;
  alg: string;
  /** Public JWK as JSON. */
  publicJwk: string;
  /** Private JWK, encrypted with the server secret (AES-256-GCM), base64url. */
  privateJwkSealed: string;
  createdAt: number;
  /** After this, nothing is signed with it; verification goes on until removeAfter. */
  retiredAt: number | null;
  /** When the key leaves the JWKS (everything it signed has expired). */
  removeAfter: number | null;
}

export interface PeopleStore {
  getPassword(accountId: number): Promise<PasswordRecord | null>;
  setPassword(record: PasswordRecord): Promise<void>;
  createSession(record: SessionRecord): Promise<void>;
  getSession(id: string): Promise<SessionRecord | null>;
  deleteSession(id: string): Promise<void>;
  deleteSessionsOf(accountId: number): Promise<void>;
  createEmailToken(record: EmailTokenRecord): Promise<void>;
  getEmailToken(id: string): Promise<EmailTokenRecord | null>;
  /** Marks the token used; false when it was already used (single use under concurrency). */
  useEmailToken(id: string, at: number): Promise<boolean>;
}

export interface OAuthStore {
  createClient(record: OAuthClientRecord): Promise<void>;
  getClient(clientId: string): Promise<OAuthClientRecord | null>;
  createCode(record: AuthorizationCodeRecord): Promise<void>;
  getCode(id: string): Promise<AuthorizationCodeRecord | null>;
  /** Marks the code used and records its grant (null: burned without a grant, e.g. a wrong PKCE verifier); false when it was already used. */
  useCode(id: string, at: number, grantId: string | null): Promise<boolean>;
  createGrant(record: GrantRecord): Promise<void>;
  getGrant(id: string): Promise<GrantRecord | null>;
  listGrantsOf(accountId: number): Promise<GrantRecord[]>;
  /** Revokes the grant with every access and refresh token issued under it. */
  revokeGrant(id: string, at: number): Promise<void>;
  createAccessToken(record: AccessTokenRecord): Promise<void>;
  getAccessToken(id: string): Promise<AccessTokenRecord | null>;
  revokeAccessToken(id: string, at: number): Promise<void>;
  createRefreshToken(record: RefreshTokenRecord): Promise<void>;
  getRefreshToken(id: string): Promise<RefreshTokenRecord | null>;
  /**
   * Atomically marks `id` rotated at `at` and stores its successor; false (and nothing stored) when
   * `id` was already rotated or revoked (a concurrent refresh won).
   */
  rotateRefreshToken(id: string, at: number, successor: RefreshTokenRecord): Promise<boolean>;
  /** Deletes expired codes, tokens, sessions and email tokens (housekeeping). */
  purgeExpired(now: number): Promise<void>;
}

export interface ClaimStore {
  createRegistration(registration: AgentRegistrationRecord, attempt: ClaimAttemptRecord): Promise<void>;
  getRegistration(id: string): Promise<AgentRegistrationRecord | null>;
  getRegistrationByClaimToken(claimTokenId: string): Promise<AgentRegistrationRecord | null>;
  /** The current attempt of a registration. */
  currentAttempt(registrationId: string): Promise<ClaimAttemptRecord | null>;
  getAttempt(id: string): Promise<ClaimAttemptRecord | null>;
  /** Makes `attempt` the registration's current one (the old one is superseded) and counts it. */
  replaceAttempt(registrationId: string, attempt: ClaimAttemptRecord): Promise<void>;
  /** Records a poll; returns nothing (rate state is read back with getAttempt). */
  recordPoll(attemptId: string, atMs: number, intervalSeconds: number): Promise<void>;
  /** Adds one wrong code; returns the new count. */
  addWrongCode(attemptId: string): Promise<number>;
  /** Moves a pending attempt to approved/denied; false when it was no longer pending. */
  decide(attemptId: string, status: 'approved' | 'denied', accountId: number | null, at: number): Promise<boolean>;
  /** Moves an approved attempt to redeemed and records the grant; false when it was not approved. */
  redeem(attemptId: string, grantId: string, at: number): Promise<boolean>;
}

export interface SigningKeyStore {
  listKeys(): Promise<SigningKeyRecord[]>;
  addKey(record: SigningKeyRecord): Promise<void>;
  retireKey(kid: string, at: number, removeAfter: number): Promise<void>;
  deleteKey(kid: string): Promise<void>;
}

/** Everything the auth capability stores, behind one bundle (SQLite or PostgreSQL). */
export interface AuthStore {
  readonly people: PeopleStore;
  readonly oauth: OAuthStore;
  readonly claims: ClaimStore;
  readonly keys: SigningKeyStore;
}
