// POST {auth_url}/v2/oauth/token as an ordered list of steps (after panva/node-oidc-provider's
// lib/actions/token.js): reject repeated parameters, pick the grant, authenticate the client where the
// grant needs one, rate-limit, then run the grant. The claim grant rate-limits itself after its
// terminal checks (requirement 81). Decision 10: the claim and jwt-bearer grants need no client.
import type { AuthorizationService } from './authorization.js';
import type { ClaimService } from './claims.js';
import type { ClientRegistry, PresentedClient } from './clients.js';
import { OAuthError } from './oauth-error.js';
import { CLAIM_GRANT, JWT_BEARER_GRANT } from './settings.js';
import type { TokenResponse, TokenService } from './tokens.js';

export type FormParams = Record<string, string | string[] | undefined>;

/** The HTTP Basic credentials of a request (RFC 6749 §2.3.1: form-urlencoded, then base64), or null. */
export function basicCredentials(authorization: string | undefined): { id: string; secret: string } | null | 'malformed' {
  if (!authorization) return null;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return 'malformed';
  try {
    const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: dec(decoded.slice(0, i)), secret: dec(decoded.slice(i + 1)) };
  } catch {
    return 'malformed';
  }
}

/** Form parameters as single strings; a repeated parameter is invalid_request (RFC 6749 §3.2). */
export function singleParams(form: FormParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(form)) {
    if (Array.isArray(v)) throw new OAuthError('invalid_request', `Parameter ${k} may appear only once.`);
    if (typeof v === 'string') out[k] = v;
  }
  return out;
}

/** How the request presented its client (Basic header, or client_id/client_secret in the body). */
export function presentedClient(form: Record<string, string>, authorization: string | undefined): PresentedClient {
  const basic = basicCredentials(authorization);
  if (basic === 'malformed') throw new OAuthError('invalid_client', 'Malformed HTTP Basic credentials.', { headers: { 'WWW-Authenticate': 'Basic realm="lectern"' } });
  // Some public clients send an empty secret (`client_secret=` or Basic `id:`): that is no secret.
  const postSecret = form.client_secret === '' ? undefined : form.client_secret;
  if (basic) {
    if (form.client_id !== undefined && form.client_id !== basic.id) throw new OAuthError('invalid_request', 'client_id differs from the Basic credentials.');
    if (postSecret !== undefined) throw new OAuthError('invalid_request', 'Use one client authentication method.');
    if (basic.secret === '') return { clientId: basic.id, secret: null, method: 'none' };
    return { clientId: basic.id, secret: basic.secret, method: 'client_secret_basic' };
  }
  return { clientId: form.client_id ?? null, secret: postSecret ?? null, method: postSecret !== undefined ? 'client_secret_post' : 'none' };
}

export class TokenEndpoint {
  constructor(
    private readonly clients: ClientRegistry,
    private readonly authorization: AuthorizationService,
    private readonly tokens: TokenService,
    private readonly claims: ClaimService,
  ) {}

  async handle(input: FormParams, authorization: string | undefined, limit: () => Promise<void>): Promise<TokenResponse> {
    const form = singleParams(input);
    const grantType = form.grant_type;
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is missing.');
    switch (grantType) {
      case CLAIM_GRANT:
        return this.claims.poll(form.claim_token, form.resource, limit);
      case JWT_BEARER_GRANT:
        await limit();
        return this.claims.renew(form.assertion, form.scope, form.resource);
      case 'authorization_code':
      case 'refresh_token': {
        await limit();
        const client = await this.clients.authenticate(presentedClient(form, authorization));
        if (!client.grantTypes.includes(grantType)) throw new OAuthError('unauthorized_client', `This client did not register the ${grantType} grant.`);
        if (grantType === 'authorization_code') return this.authorization.exchange(client, form);
        if (!form.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is missing.');
        return this.tokens.refresh(form.refresh_token, client.clientId, form.scope, form.resource);
      }
      default:
        await limit();
        throw new OAuthError('unsupported_grant_type', `Unsupported grant_type ${grantType.slice(0, 100)}. Supported: authorization_code, refresh_token, ${JWT_BEARER_GRANT}, ${CLAIM_GRANT}.`);
    }
  }
}
