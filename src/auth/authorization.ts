// The authorization endpoint's rules (OAuth 2.1 §4.1.1-4.1.2, RFC 7636, RFC 8707, RFC 9207), and the
// authorization_code grant at the token endpoint (OAuth 2.1 §4.1.3).
//
// Order of checks: without a known client_id and a registered redirect_uri nothing is redirected (an
// error page instead: requirement 50); every later problem redirects to the client with `error`,
// `state` and `iss` (requirements 46, 51). Codes are `lac_` secrets valid for 60 s, single use, bound
// to client, redirect_uri, code_challenge, resource and scope (requirement 56).
import type { OAuthClientRecord, OAuthStore } from '../ports/auth-store.js';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';
import type { ClientRegistry } from './clients.js';
import { OAuthError, type OAuthErrorCode } from './oauth-error.js';
import { CHALLENGE_RE, verifyPkce } from './pkce.js';
import { redirectUriMatches } from './redirect-uris.js';
import { issueSecret, matchesDigest, randomId, secretId } from './secrets.js';
import { SCOPE, type AuthSettings } from './settings.js';
import type { TokenResponse, TokenService } from './tokens.js';

/** Query or form parameters as parsed (a repeated parameter is an array). */
export type Params = Record<string, string | string[] | undefined>;

/** A request that passed every check: ready for sign-in and consent. */
export interface AuthorizationRequest {
  client: OAuthClientRecord;
  redirectUri: string;
  redirectUriGiven: boolean;
  state: string | null;
  codeChallenge: string;
  resource: string;
  scope: string;
  /** The parameters to post back from the consent page (re-validated on POST). */
  params: Record<string, string>;
}

export type AuthorizationCheck =
  | { kind: 'ok'; request: AuthorizationRequest }
  /** Unknown client or unregistered redirect: show a page, never redirect. */
  | { kind: 'page'; error: OAuthErrorCode; description: string }
  /** Any other problem: redirect to the client with the error. */
  | { kind: 'redirect'; location: string; error: OAuthErrorCode };

/** Parameters of the authorization request Lectern reads (others are ignored). */
const PARAMS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'resource'] as const;

export class AuthorizationService {
  constructor(
    private readonly store: OAuthStore,
    private readonly clients: ClientRegistry,
    private readonly tokens: TokenService,
    private readonly clock: Clock,
    private readonly settings: AuthSettings,
  ) {}

  /** `redirectUri` with the response parameters appended, the client's own query kept byte for byte. */
  responseLocation(redirectUri: string, params: Record<string, string | null>): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== null) q.append(k, v);
    // RFC 9207: iss in every authorization response, success or error, exactly once.
    q.append('iss', this.settings.issuer);
    return `${redirectUri}${redirectUri.includes('?') ? '&' : '?'}${q.toString()}`;
  }

  async check(input: Params): Promise<AuthorizationCheck> {
    const single: Record<string, string> = {};
    const repeated: string[] = [];
    for (const name of PARAMS) {
      const v = input[name];
      if (Array.isArray(v)) repeated.push(name);
      else if (typeof v === 'string') single[name] = v;
    }
    const page = (error: OAuthErrorCode, description: string): AuthorizationCheck => ({ kind: 'page', error, description });
    if (repeated.includes('client_id') || repeated.includes('redirect_uri')) return page('invalid_request', 'client_id and redirect_uri may appear only once.');
    if (!single.client_id) return page('invalid_request', 'The request has no client_id.');
    const client = await this.clients.get(single.client_id);
    if (!client) return page('invalid_client', 'This client is not registered here (unknown client_id). The application should register again.');
    let redirectUri: string;
    if (single.redirect_uri !== undefined) {
      if (!redirectUriMatches(client.redirectUris, single.redirect_uri)) return page('invalid_request', 'The redirect_uri is not one this client registered.');
      redirectUri = single.redirect_uri;
    } else if (client.redirectUris.length === 1) {
      redirectUri = client.redirectUris[0]!;
    } else {
      return page('invalid_request', 'The request has no redirect_uri and the client registered several.');
    }

    const state = single.state ?? null;
    const fail = (error: OAuthErrorCode, description: string): AuthorizationCheck => ({
      kind: 'redirect',
      error,
      location: this.responseLocation(redirectUri, { error, error_description: description, state: repeated.includes('state') ? null : state }),
    });
    if (repeated.length > 0) return fail('invalid_request', `Parameters may appear only once: ${repeated.join(', ')}.`);
    if (single.response_type === undefined) return fail('invalid_request', 'response_type is missing.');
    if (single.response_type !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported.');
    if (single.code_challenge === undefined) return fail('invalid_request', 'PKCE is required: send code_challenge and code_challenge_method=S256.');
    if (single.code_challenge_method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256.');
    if (!CHALLENGE_RE.test(single.code_challenge)) return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters).');
    let resource: string;
    try {
      resource = this.tokens.resolveResource(single.resource);
    } catch (e) {
      return fail('invalid_target', (e as Error).message);
    }
    const scopes = (single.scope ?? SCOPE).split(' ').filter(Boolean);
    if (scopes.some((s) => s !== SCOPE)) return fail('invalid_scope', `The only scope is ${SCOPE}.`);

    const params: Record<string, string> = {};
    for (const name of PARAMS) if (single[name] !== undefined) params[name] = single[name]!;
    return {
      kind: 'ok',
      request: { client, redirectUri, redirectUriGiven: single.redirect_uri !== undefined, state, codeChallenge: single.code_challenge, resource, scope: SCOPE, params },
    };
  }

  /** Issues a code for the signed-in account's consent; returns the redirect location. */
  async approve(request: AuthorizationRequest, accountId: number): Promise<string> {
    const s = issueSecret('lac');
    await this.store.createCode({
      id: s.id,
      hash: s.hash,
      clientId: request.client.clientId,
      accountId,
      redirectUri: request.redirectUri,
      redirectUriGiven: request.redirectUriGiven,
      codeChallenge: request.codeChallenge,
      resource: request.resource,
      scope: request.scope,
      expiresAt: nowSeconds(this.clock) + this.settings.codeTtlSeconds,
      usedAt: null,
      grantId: null,
    });
    return this.responseLocation(request.redirectUri, { code: s.token, state: request.state });
  }

  /** The redirect location of a refusal (requirement 55: access_denied). */
  deny(request: AuthorizationRequest): string {
    return this.responseLocation(request.redirectUri, { error: 'access_denied', error_description: 'The person declined the request.', state: request.state });
  }

  /** The authorization_code grant (requirements 59, 60). */
  async exchange(client: OAuthClientRecord, form: Record<string, string>): Promise<TokenResponse> {
    const code = form.code;
    if (!code) throw new OAuthError('invalid_request', 'code is missing.');
    const id = secretId('lac', code);
    const rec = id ? await this.store.getCode(id) : null;
    if (!rec || !matchesDigest(code, rec.hash) || rec.clientId !== client.clientId) throw new OAuthError('invalid_grant', 'Unknown authorization code.');
    const now = nowSeconds(this.clock);
    if (rec.usedAt !== null) {
      // OAuth 2.1 §4.1.3: a code used twice revokes what it produced.
      if (rec.grantId) await this.store.revokeGrant(rec.grantId, now);
      throw new OAuthError('invalid_grant', 'The authorization code was already used; the tokens issued for it are revoked.');
    }
    if (rec.expiresAt <= now) throw new OAuthError('invalid_grant', 'The authorization code has expired.');
    if (rec.redirectUriGiven ? form.redirect_uri !== rec.redirectUri : form.redirect_uri !== undefined && form.redirect_uri !== rec.redirectUri) {
      throw new OAuthError('invalid_grant', 'redirect_uri differs from the authorization request.');
    }
    if (!form.code_verifier || !verifyPkce(form.code_verifier, rec.codeChallenge)) {
      // A wrong verifier burns the code (OAuth 2.1 §7.5.1 spirit): whoever holds a stolen code gets one try.
      await this.store.useCode(rec.id, now, null);
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge; the authorization code can no longer be used.');
    }
    if (form.resource !== undefined && this.tokens.resolveResource(form.resource) !== rec.resource) {
      throw new OAuthError('invalid_target', `The code was issued for ${rec.resource}.`);
    }
    if (form.scope !== undefined && form.scope.split(' ').filter(Boolean).some((s) => s !== rec.scope)) throw new OAuthError('invalid_scope', `The grant is for ${rec.scope}.`);
    const grantId = randomId('gr');
    if (!(await this.store.useCode(rec.id, now, grantId))) throw new OAuthError('invalid_grant', 'The authorization code was already used.');
    const grant = await this.tokens.createGrant({
      id: grantId,
      kind: 'authorization_code',
      accountId: rec.accountId,
      clientId: client.clientId,
      registrationId: null,
      scope: rec.scope,
      resource: rec.resource,
      expiresAt: null,
      assertionJti: null,
    });
    return this.tokens.respond(grant, { refresh: client.grantTypes.includes('refresh_token') });
  }
}
