// Dynamic client registration (RFC 7591) and client authentication at the token and revocation
// endpoints. Public clients (`none`) are the default; asking for `client_secret_post` or
// `client_secret_basic` gets a confidential client with a secret (decision 3). Registrations are
// stored, so they survive restarts (auth requirement 58). Metadata Lectern does not understand is
// ignored (RFC 7591 §2; requirement 43); URL-valued metadata is echoed only when it is a valid URL
// (requirement 41).
import type { OAuthClientRecord, OAuthStore } from '../ports/auth-store.js';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';
import { OAuthError } from './oauth-error.js';
import { redirectUriProblem } from './redirect-uris.js';
import { issueSecret, matchesDigest, randomId } from './secrets.js';
import { SCOPE } from './settings.js';

const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
const GRANT_TYPES = ['authorization_code', 'refresh_token'];
const URL_FIELDS = ['client_uri', 'logo_uri', 'tos_uri', 'policy_uri'] as const;
const TEXT_FIELDS = ['software_id', 'software_version'] as const;

/** The registration response (RFC 7591 §3.2.1). */
export type ClientInformation = Record<string, unknown> & { client_id: string; client_id_issued_at: number };

/** How a request authenticated its client (token and revocation endpoints). */
export interface PresentedClient {
  clientId: string | null;
  secret: string | null;
  /** Which method the request used. */
  method: 'none' | 'client_secret_post' | 'client_secret_basic';
}

const bad = (msg: string) => new OAuthError('invalid_client_metadata', msg);

function stringList(v: unknown, name: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw bad(`${name} must be an array of strings`);
  return v as string[];
}

export class ClientRegistry {
  constructor(
    private readonly store: OAuthStore,
    private readonly clock: Clock,
  ) {}

  /** Registers a client from RFC 7591 metadata; returns the 201 body. */
  async register(body: unknown): Promise<ClientInformation> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad('The body must be a JSON object of client metadata.');
    const m = body as Record<string, unknown>;
    const redirectUris = stringList(m.redirect_uris, 'redirect_uris');
    if (!redirectUris || redirectUris.length === 0) throw new OAuthError('invalid_redirect_uri', 'redirect_uris must list at least one callback address');
    if (redirectUris.length > 20) throw new OAuthError('invalid_redirect_uri', 'at most 20 redirect_uris');
    for (const uri of redirectUris) {
      const problem = redirectUriProblem(uri);
      if (problem) throw new OAuthError('invalid_redirect_uri', problem);
    }
    const method = m.token_endpoint_auth_method ?? 'none';
    if (typeof method !== 'string' || !(AUTH_METHODS as readonly string[]).includes(method)) {
      throw bad(`token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`);
    }
    const grantTypes = stringList(m.grant_types, 'grant_types') ?? ['authorization_code'];
    const unknownGrant = grantTypes.find((g) => !GRANT_TYPES.includes(g));
    if (unknownGrant) throw bad(`grant_types may hold only ${GRANT_TYPES.join(' and ')} (got ${unknownGrant})`);
    if (!grantTypes.includes('authorization_code')) throw bad('grant_types must include authorization_code');
    const responseTypes = stringList(m.response_types, 'response_types') ?? ['code'];
    if (responseTypes.length !== 1 || responseTypes[0] !== 'code') throw bad('response_types must be ["code"]');
    if (m.scope !== undefined && typeof m.scope !== 'string') throw bad('scope must be a string');
    // Scopes other than `search` do not exist here; the registration is narrowed to `search`
    // (RFC 7591 §3.2.1 lets the server replace requested values).
    const scope = SCOPE;
    let clientName: string | null = null;
    if (m.client_name !== undefined && m.client_name !== null) {
      if (typeof m.client_name !== 'string') throw bad('client_name must be a string');
      clientName = m.client_name.trim().slice(0, 200) || null;
    }
    const extra: Record<string, string> = {};
    for (const f of URL_FIELDS) {
      const v = m[f];
      if (v === undefined || v === null || v === '') continue;
      if (typeof v !== 'string') throw bad(`${f} must be a URL`);
      let u: URL;
      try {
        u = new URL(v);
      } catch {
        throw bad(`${f} must be a URL`);
      }
      if (u.protocol !== 'https:' && u.protocol !== 'http:') throw bad(`${f} must be an http(s) URL`);
      extra[f] = v;
    }
    for (const f of TEXT_FIELDS) if (typeof m[f] === 'string' && (m[f] as string).length <= 200) extra[f] = m[f] as string;

    const clientId = randomId('lc');
    const secret = method === 'none' ? null : issueSecret('lcs');
    const record: OAuthClientRecord = {
      clientId,
      secretHash: secret?.hash ?? null,
      tokenEndpointAuthMethod: method as OAuthClientRecord['tokenEndpointAuthMethod'],
      redirectUris,
      grantTypes: [...new Set(grantTypes)],
      responseTypes,
      scope,
      clientName,
      extra,
      createdAt: nowSeconds(this.clock),
    };
    await this.store.createClient(record);
    const info = ClientRegistry.information(record);
    // A secret is shown once, with client_secret_expires_at (0: never), which RFC 7591 requires with it.
    return secret ? { ...info, client_secret: secret.token, client_secret_expires_at: 0 } : info;
  }

  /** The registered metadata of a client, as echoed by registration. */
  static information(c: OAuthClientRecord): ClientInformation {
    return {
      client_id: c.clientId,
      client_id_issued_at: c.createdAt,
      redirect_uris: c.redirectUris,
      token_endpoint_auth_method: c.tokenEndpointAuthMethod,
      grant_types: c.grantTypes,
      response_types: c.responseTypes,
      scope: c.scope,
      ...(c.clientName !== null ? { client_name: c.clientName } : {}),
      ...c.extra,
    };
  }

  async get(clientId: string): Promise<OAuthClientRecord | null> {
    if (clientId.length === 0 || clientId.length > 100) return null;
    return this.store.getClient(clientId);
  }

  /**
   * Authenticates the client of a token or revocation request. Unknown clients and wrong secrets get
   * 401 invalid_client, the signal for clients to register again (auth requirement 58); with HTTP
   * Basic the answer carries `WWW-Authenticate: Basic` (RFC 6749 §5.2).
   */
  async authenticate(p: PresentedClient): Promise<OAuthClientRecord> {
    const fail = (msg: string) =>
      new OAuthError('invalid_client', msg, p.method === 'client_secret_basic' ? { headers: { 'WWW-Authenticate': 'Basic realm="lectern", charset="UTF-8"' } } : {});
    if (!p.clientId) throw fail('client_id is missing');
    const client = await this.get(p.clientId);
    if (!client) throw fail('Unknown client_id: register the client again.');
    if (client.secretHash === null) {
      if (p.secret !== null) throw fail('This client is public; it has no secret.');
      return client;
    }
    if (p.secret === null || !matchesDigest(p.secret, client.secretHash)) throw fail('Client authentication failed.');
    return client;
  }
}
