// What every operation of /openapi.json says beyond its own schema (issue 13, "every operation
// documents its success and error responses"; "an oauth2 security scheme"): the security schemes
// (API key, bearer, OAuth 2.0 authorization code with PKCE, and the service_auth claim grant described
// as an extension, since OpenAPI has no flow for it), each operation's security requirement from its
// route `auth` mode, and the ApiError responses that the shared request path can give any operation:
// 401 (authenticated routes), 429 (rate-limited routes), 400/408/413/415/422 (operations with a
// body), 422 (validated parameters), 500. The test helper (test/helpers/response-contract.ts) checks every response of the API
// tests against the result.
import type { TSchema } from 'typebox';
import { AUTH_PATHS, CLAIM_GRANT, JWT_BEARER_GRANT, SCOPE, SCOPE_ALLOWS, SCOPE_DENIES } from '../auth/index.js';
import { ApiError, ref } from './schemas/common.js';

export const OAUTH_SCOPE_DESCRIPTION = `Every operation of this API for the consenting account: ${SCOPE_ALLOWS.join('; ')}. ${SCOPE_DENIES}`;

/** `components.securitySchemes` of /openapi.json. */
export function securitySchemes(authUrl: string): Record<string, never> {
  // (typed loosely for @fastify/swagger: `x-service-auth` is an extension its types do not know)
  const u = (p: keyof typeof AUTH_PATHS) => `${authUrl}${AUTH_PATHS[p]}`;
  return {
    apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An account API key.' },
    bearer: { type: 'http', scheme: 'bearer', description: 'An API key or an OAuth 2.0 access token (`Authorization: Bearer ...`).' },
    oauth2: {
      type: 'oauth2',
      description:
        `OAuth 2.0 access tokens (3600 s) for the resource {mcp_url}. Authorization code with mandatory S256 PKCE (public clients register at ${u('register')}, RFC 7591); refresh tokens rotate. ` +
        `Agents that cannot receive a browser callback use the service_auth grant instead: POST ${u('identity')} with {"type":"service_auth","login_hint":EMAIL}, show the user the verification_uri and user_code, ` +
        `poll ${u('token')} with grant_type=${CLAIM_GRANT} and claim_token (no faster than interval), and renew with grant_type=${JWT_BEARER_GRANT} and the identity assertion (see x-service-auth and docs/auth.md).`,
      flows: {
        authorizationCode: { authorizationUrl: u('authorize'), tokenUrl: u('token'), refreshUrl: u('token'), scopes: { [SCOPE]: OAUTH_SCOPE_DESCRIPTION } },
      },
      'x-service-auth': {
        identityEndpoint: u('identity'),
        claimEndpoint: u('claim'),
        tokenUrl: u('token'),
        grantType: CLAIM_GRANT,
        renewalGrantType: JWT_BEARER_GRANT,
        revocationUrl: u('revoke'),
        scopes: [SCOPE],
      },
    },
  } as unknown as Record<string, never>;
}

/** The security requirement of an operation, from its route `auth` mode. */
export function securityOf(auth: 'required' | 'optional' | 'none' | undefined): Record<string, string[]>[] {
  if (auth === 'none') return [];
  const any: Record<string, string[]>[] = [{ apiKey: [] }, { bearer: [] }, { oauth2: [SCOPE] }];
  return auth === 'optional' ? [...any, {}] : any;
}

interface RouteSchema {
  response?: Record<string | number, unknown>;
  body?: unknown;
  security?: unknown;
  [k: string]: unknown;
}

/**
 * The schema as published: the security requirement (unless the route states one) and the ApiError
 * responses every operation of its kind can give (unless the route documents that status itself).
 */
export function withContract(schema: RouteSchema | undefined, config: { auth?: 'required' | 'optional' | 'none'; rateScope?: unknown; validationStatus?: 400 | 422 } | undefined, method: string): RouteSchema {
  if (!schema) return schema as unknown as RouteSchema;
  const auth = config?.auth ?? 'required';
  const response: Record<string | number, unknown> = { ...(schema.response ?? {}) };
  const add = (...statuses: number[]) => {
    for (const s of statuses) if (!(s in response) && !(String(s) in response)) response[s] = ref(ApiError) as TSchema;
  };
  const rateLimited = config?.rateScope !== null && (auth !== 'none' || config?.rateScope !== undefined);
  if (auth !== 'none') add(401);
  if (rateLimited) add(429);
  if (auth !== 'none' && schema.body !== undefined && ['POST', 'PUT', 'PATCH'].includes(method)) add(400, 408, 413, 415, 422);
  // Path and query parameters are validated too (a too long id, an unknown query parameter).
  if (auth !== 'none' && (schema.params !== undefined || schema.querystring !== undefined)) add(config?.validationStatus ?? 422);
  if (auth !== 'none') add(500);
  return { ...schema, ...optionalDefaults(schema.querystring), response: withHeaders(response, auth), security: schema.security ?? securityOf(auth) };
}

const header = (description: string, schema: Record<string, unknown> = { type: 'string' }) => ({ ...schema, description });

/** The response headers every operation sends: X-Request-Id always; Retry-After on 429; the challenge on 401. */
function withHeaders(response: Record<string | number, unknown>, auth: 'required' | 'optional' | 'none'): Record<string | number, unknown> {
  const out: Record<string | number, unknown> = {};
  for (const [status, r] of Object.entries(response)) {
    if (!r || typeof r !== 'object') {
      out[status] = r;
      continue;
    }
    const given = (r as { headers?: Record<string, unknown> }).headers ?? {};
    const headers: Record<string, unknown> = { 'X-Request-Id': header('The request id (the client\'s own when it sent a well-formed one); quote it to support.'), ...given };
    if (status === '429') headers['Retry-After'] = header('Seconds to wait before retrying (integer >= 1).', { type: 'integer', minimum: 1 });
    if (status === '401' && auth !== 'none') headers['WWW-Authenticate'] = header('A Bearer challenge (with resource_metadata on the MCP endpoints).');
    out[status] = { ...(r as object), headers };
  }
  return out;
}

/** A query parameter with a default is not required of the client (the server fills it in). */
function optionalDefaults(querystring: unknown): { querystring?: unknown } {
  const q = querystring as { required?: string[]; properties?: Record<string, { default?: unknown }> } | undefined;
  if (!q?.required || !q.properties) return {};
  const props = q.properties;
  return { querystring: { ...q, required: q.required.filter((k) => props[k]?.default === undefined) } };
}
