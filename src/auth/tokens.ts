// Grants, access tokens, refresh tokens and identity assertions.
//
// Access tokens are JWTs (RFC 9068 profile: `typ: at+jwt`, iss, sub = account id, aud = the resource,
// client_id, scope, jti, iat, exp; ES256 with a rotating key, keys.ts) AND have a server-side record
// (by jti, with the token's digest): every use checks the record, so a revoked token is refused at once
// (auth requirement 69) even though it is self-contained. Refresh tokens are opaque `lrt_` secrets that
// rotate on every use; the successor is derived from the presented token with a server key, so a
// concurrent refresh inside the grace window gets the very same successor (requirement 63) although no
// token is stored in the clear; a rotated-out token presented after the window revokes the whole grant
// (requirement 62, decision 8). An identity assertion is a JWT (`typ: lectern-identity+jwt`) naming the
// service_auth registration; it renews access tokens by jwt-bearer until its grant is revoked or expires.
import { decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Principal } from '../domain/principal.js';
import type { AccessTokenRecord, ClaimStore, GrantRecord, OAuthStore, RefreshTokenRecord } from '../ports/auth-store.js';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';
import { OAuthError } from './oauth-error.js';
import { deriveSecret, digest, issueSecret, matchesDigest, randomId, secretId, subkey } from './secrets.js';
import { authUrl, type AuthSettings } from './settings.js';
import { SIGNING_ALG, type KeyRing } from './signing-keys.js';

export const ACCESS_TOKEN_TYP = 'at+jwt';
export const ASSERTION_TYP = 'lectern-identity+jwt';
const JWT_RE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The token endpoint's success body (RFC 6749 §5.1), plus `identity_assertion` for service_auth. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  refresh_token?: string;
  identity_assertion?: string;
}

export class TokenService {
  readonly #refreshKey: Buffer;

  constructor(
    private readonly store: OAuthStore,
    private readonly claims: ClaimStore,
    private readonly keys: KeyRing,
    private readonly clock: Clock,
    private readonly settings: AuthSettings,
  ) {
    this.#refreshKey = subkey(settings.secret, 'refresh-successor');
  }

  /** The resource a request names ({mcp_url} when absent: decision 4), or invalid_target. */
  resolveResource(requested: string | undefined): string {
    const { current, legacy } = this.settings.resources;
    if (requested === undefined || requested === '') return current;
    const r = requested.replace(/\/$/, '');
    if (r === current || r === legacy) return r;
    throw new OAuthError('invalid_target', `resource must be ${current} (or the legacy ${legacy})`);
  }

  async createGrant(g: Omit<GrantRecord, 'id' | 'createdAt' | 'revokedAt'> & { id?: string }): Promise<GrantRecord> {
    const record: GrantRecord = { ...g, id: g.id ?? randomId('gr'), createdAt: nowSeconds(this.clock), revokedAt: null };
    await this.store.createGrant(record);
    return record;
  }

  /** A new access token under the grant, for `audience` (default: the grant's resource). */
  async issueAccessToken(grant: GrantRecord, audience = grant.resource): Promise<{ token: string; record: AccessTokenRecord }> {
    const now = nowSeconds(this.clock);
    const jti = randomId('at');
    const { kid, key } = await this.keys.signingKey();
    const token = await new SignJWT({ scope: grant.scope, ...(grant.clientId ? { client_id: grant.clientId } : {}) })
      .setProtectedHeader({ alg: SIGNING_ALG, kid, typ: ACCESS_TOKEN_TYP })
      .setIssuer(this.settings.issuer)
      .setSubject(String(grant.accountId))
      .setAudience(audience)
      .setIssuedAt(now)
      .setExpirationTime(now + this.settings.accessTokenTtlSeconds)
      .setJti(jti)
      .sign(key);
    const record: AccessTokenRecord = {
      id: jti,
      hash: digest(token),
      grantId: grant.id,
      accountId: grant.accountId,
      clientId: grant.clientId,
      audience,
      scope: grant.scope,
      issuedAt: now,
      expiresAt: now + this.settings.accessTokenTtlSeconds,
      revokedAt: null,
    };
    await this.store.createAccessToken(record);
    return { token, record };
  }

  private refreshRecord(grant: GrantRecord, s: { id: string; hash: string }): RefreshTokenRecord {
    const now = nowSeconds(this.clock);
    return { id: s.id, hash: s.hash, grantId: grant.id, issuedAt: now, expiresAt: now + this.settings.refreshTokenTtlSeconds, rotatedAt: null, revokedAt: null };
  }

  /** The token response for a grant: a new access token, and a first refresh token when asked. */
  async respond(grant: GrantRecord, options: { refresh?: boolean; refreshToken?: string; identityAssertion?: string; audience?: string } = {}): Promise<TokenResponse> {
    const access = await this.issueAccessToken(grant, options.audience);
    let refreshToken = options.refreshToken;
    if (options.refresh && !refreshToken) {
      const s = issueSecret('lrt');
      await this.store.createRefreshToken(this.refreshRecord(grant, s));
      refreshToken = s.token;
    }
    return {
      access_token: access.token,
      token_type: 'Bearer',
      expires_in: this.settings.accessTokenTtlSeconds,
      scope: grant.scope,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      ...(options.identityAssertion ? { identity_assertion: options.identityAssertion } : {}),
    };
  }

  /**
   * The refresh_token grant for `clientId` (OAuth 2.1 §4.3): rotation on every use, the grace window
   * for concurrent refreshes, family revocation on replay after it.
   */
  async refresh(token: string, clientId: string, requestedScope: string | undefined, requestedResource: string | undefined): Promise<TokenResponse> {
    const invalid = (why: string) => new OAuthError('invalid_grant', why);
    const id = secretId('lrt', token);
    const rec = id ? await this.store.getRefreshToken(id) : null;
    if (!rec || !matchesDigest(token, rec.hash)) throw invalid('Unknown refresh token.');
    const grant = await this.store.getGrant(rec.grantId);
    const now = nowSeconds(this.clock);
    if (!grant || grant.revokedAt !== null || rec.revokedAt !== null) throw invalid('The refresh token was revoked.');
    if (grant.clientId !== clientId) throw invalid('The refresh token was issued to another client.');
    if (rec.expiresAt <= now) throw invalid('The refresh token has expired; authorize again.');
    if (requestedScope !== undefined && requestedScope.split(' ').filter(Boolean).some((s) => !grant.scope.split(' ').includes(s))) {
      throw new OAuthError('invalid_scope', `The scope may only narrow the original grant (${grant.scope}).`);
    }
    const audience = requestedResource === undefined ? grant.resource : this.resolveResource(requestedResource);
    if (audience !== grant.resource) throw new OAuthError('invalid_target', `This grant is for ${grant.resource}.`);

    let currentRec = rec;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (currentRec.rotatedAt === null) {
        const successor = deriveSecret(this.#refreshKey, 'lrt', token);
        if (await this.store.rotateRefreshToken(currentRec.id, now, this.refreshRecord(grant, successor))) {
          return this.respond(grant, { refreshToken: successor.token });
        }
        // A concurrent refresh rotated it first: answer like a replay inside the grace window.
        currentRec = (await this.store.getRefreshToken(currentRec.id))!;
        if (currentRec.revokedAt !== null) throw invalid('The refresh token was revoked.');
        continue;
      }
      // A rotated-out token: inside the grace window it gets its own successor, and only while that
      // successor is still the family's head (a concurrent refresh). Anything else is a replay: the
      // family ends. A zero window means any replay ends it.
      const grace = this.settings.refreshGraceSeconds;
      const next = deriveSecret(this.#refreshKey, 'lrt', token);
      const nextRec = await this.store.getRefreshToken(next.id);
      if (grace > 0 && now - currentRec.rotatedAt <= grace && nextRec && nextRec.revokedAt === null && nextRec.rotatedAt === null) {
        return this.respond(grant, { refreshToken: next.token });
      }
      await this.store.revokeGrant(grant.id, now);
      throw invalid('The refresh token was already used; every token of this grant is revoked. Authorize again.');
    }
    throw invalid('The refresh token could not be rotated; try again.');
  }

  /** The principal of a valid, unrevoked access token, or null. */
  async verifyAccessToken(token: string): Promise<{ principal: Principal; record: AccessTokenRecord } | null> {
    if (!JWT_RE.test(token) || token.length > 4096) return null;
    let header;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      return null;
    }
    if (header.typ !== ACCESS_TOKEN_TYP || typeof header.kid !== 'string') return null;
    const key = await this.keys.verificationKey(header.kid);
    if (!key) return null;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key, { issuer: this.settings.issuer, typ: ACCESS_TOKEN_TYP, algorithms: [SIGNING_ALG], currentDate: new Date(this.clock.nowMs()) }));
    } catch {
      return null;
    }
    const record = typeof payload.jti === 'string' ? await this.store.getAccessToken(payload.jti) : null;
    const now = nowSeconds(this.clock);
    if (!record || record.revokedAt !== null || record.expiresAt <= now || !matchesDigest(token, record.hash)) return null;
    const grant = await this.store.getGrant(record.grantId);
    if (!grant || grant.revokedAt !== null || (grant.expiresAt !== null && grant.expiresAt <= now)) return null;
    return {
      record,
      principal: {
        accountId: record.accountId,
        credential: 'oauth',
        credentialId: record.id,
        scopes: record.scope.split(' ').filter(Boolean),
        clientId: record.clientId,
        isAgent: true,
        audience: record.audience,
      },
    };
  }

  /** A signed identity assertion for a service_auth grant (RFC 7523 claims: iss, sub, aud, exp, iat, jti). */
  async signAssertion(grant: GrantRecord, jti: string): Promise<string> {
    const { kid, key } = await this.keys.signingKey();
    return new SignJWT({ scope: grant.scope })
      .setProtectedHeader({ alg: SIGNING_ALG, kid, typ: ASSERTION_TYP })
      .setIssuer(this.settings.issuer)
      .setSubject(grant.registrationId!)
      .setAudience(authUrl(this.settings, 'token'))
      .setIssuedAt(grant.createdAt)
      .setExpirationTime(grant.expiresAt!)
      .setJti(jti)
      .sign(key);
  }

  /**
   * Checks an identity assertion (RFC 7523 §3): our own signature and issuer, audience = the token
   * endpoint or the issuer, exp in the future, iat not in the future; returns its payload or throws
   * invalid_grant. External assertions fail here (interface: they are rejected).
   */
  async verifyAssertion(assertion: string): Promise<JWTPayload & { sub: string; jti: string }> {
    const invalid = (why: string) => new OAuthError('invalid_grant', why);
    if (!JWT_RE.test(assertion) || assertion.length > 8192) throw invalid('The assertion is not a JWT.');
    let header;
    try {
      header = decodeProtectedHeader(assertion);
    } catch {
      throw invalid('The assertion is not a JWT.');
    }
    if (header.typ !== ASSERTION_TYP || typeof header.kid !== 'string') throw invalid('Only identity assertions issued by this service are accepted.');
    const key = await this.keys.verificationKey(header.kid);
    if (!key) throw invalid('Only identity assertions issued by this service are accepted.');
    try {
      const { payload } = await jwtVerify(assertion, key, {
        issuer: this.settings.issuer,
        audience: [authUrl(this.settings, 'token'), this.settings.issuer],
        typ: ASSERTION_TYP,
        algorithms: [SIGNING_ALG],
        requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat', 'jti'],
        maxTokenAge: this.settings.identityAssertionTtlSeconds + 60,
        clockTolerance: 60,
        currentDate: new Date(this.clock.nowMs()),
      });
      return payload as JWTPayload & { sub: string; jti: string };
    } catch (e) {
      throw invalid(`The identity assertion is not valid (${(e as { code?: string }).code ?? 'invalid'}).`);
    }
  }

  /**
   * RFC 7009 revocation. Lectern's tokens say what they are (JWT `typ`, secret prefixes), so a wrong or
   * missing hint never hides a token (requirement 68). Access token: that token only (requirement 71).
   * Refresh token or identity assertion: the whole grant (the agent connection) with all its tokens
   * (requirement 70). Codes, claim tokens, sessions and API keys are not revocable here:
   * unsupported_token_type. Unknown tokens, tokens of another client and already revoked tokens:
   * silently nothing (requirement 67).
   */
  async revoke(token: string, clientId: string | null): Promise<void> {
    const now = nowSeconds(this.clock);
    if (/^(lac|lct|lss|lev|lpw|lcs)_/.test(token) || /^lk_/.test(token)) {
      throw new OAuthError('unsupported_token_type', 'Only access tokens, refresh tokens and identity assertions can be revoked here.');
    }
    const rid = secretId('lrt', token);
    if (rid) {
      const rec = await this.store.getRefreshToken(rid);
      if (!rec || !matchesDigest(token, rec.hash)) return;
      const grant = await this.store.getGrant(rec.grantId);
      if (grant && (clientId === null || grant.clientId === clientId)) await this.store.revokeGrant(grant.id, now);
      return;
    }
    if (!JWT_RE.test(token)) return;
    let typ: unknown;
    let payload: JWTPayload;
    try {
      typ = decodeProtectedHeader(token).typ;
      payload = decodeJwt(token);
    } catch {
      return;
    }
    if (typ === ACCESS_TOKEN_TYP && typeof payload.jti === 'string') {
      const rec = await this.store.getAccessToken(payload.jti);
      if (rec && matchesDigest(token, rec.hash) && (clientId === null || rec.clientId === clientId)) await this.store.revokeAccessToken(rec.id, now);
      return;
    }
    if (typ === ASSERTION_TYP) {
      let verified;
      try {
        verified = await this.verifyAssertion(token);
      } catch {
        return;
      }
      const grant = await this.grantOfAssertion(verified.sub, verified.jti);
      if (grant && clientId === null) await this.store.revokeGrant(grant.id, now);
    }
  }

  /** The grant an assertion belongs to (its registration's grant, when the jti matches), or null. */
  async grantOfAssertion(registrationId: string, jti: string): Promise<GrantRecord | null> {
    const reg = await this.claims.getRegistration(registrationId);
    if (!reg?.grantId) return null;
    const grant = await this.store.getGrant(reg.grantId);
    return grant && grant.assertionJti === jti ? grant : null;
  }
}
