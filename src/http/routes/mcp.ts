// {mcp_url} and the legacy MCP address on the Fastify server. This adapter owns the HTTP side of the
// MCP authorization rules (auth requirements 1-17, 92; decisions 5 and 7) and hands each authenticated
// request, as a Web Request, to the McpHandler that app.ts built in mcp/:
//   - Origin: a present Origin that is not allowed gets 403 (item 14; docs/mcp.md lists the allowed set);
//     allowed browser origins get CORS with WWW-Authenticate and Mcp-Session-Id exposed, never `*` (92);
//   - every request needs a credential of its own, sessions or not (items 1, 12): an API key
//     (`X-Api-Key` or `Authorization: Bearer`, decision 7) or an OAuth access token in the Authorization
//     header only, never the query string (item 11); tokens must be issued for this very address
//     (item 9, decision 5) and carry the scope `search` (item 8);
//   - refusals are ApiError bodies with X-Request-Id and an RFC 6750 challenge pointing at the
//     resource's metadata (items 2-7): no `error` without a token, `invalid_token` for a bad one.
// The credential is not passed on: the MCP server sees only the principal (item 10, no passthrough).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config/index.js';
import { AppError } from '../../domain/errors.js';
import type { HttpDeps, McpHandler } from '../deps.js';
import { errorResponses, mediaResponse, NoBody } from '../schemas/common.js';
import { securityOf } from '../openapi-contract.js';
import { MCP_SCOPE, metadataUrlOf, resourcePath } from './protected-resource.js';

/** Response headers a browser client must be able to read (item 92). */
const EXPOSED_HEADERS = 'WWW-Authenticate, Mcp-Session-Id, MCP-Protocol-Version, X-Request-Id, Retry-After';
/** Request headers a browser client may send. */
const ALLOWED_HEADERS = 'Authorization, X-Api-Key, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID';

/** An RFC 6750 §3 quoted-string. */
const quoted = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/**
 * The `WWW-Authenticate` challenge of `resource` (RFC 9110 §11.2 syntax: comma-separated auth-params,
 * URLs quoted): `error` only when a token was presented (RFC 6750 §3.1), always `resource_metadata`
 * (RFC 9728 §5.1) and the scope to request (MCP 2025-11-25 scope selection).
 */
export function bearerChallenge(resource: string, error?: { code: 'invalid_token' | 'insufficient_scope'; description: string }): string {
  const params: [string, string][] = [];
  if (error) params.push(['error', error.code], ['error_description', error.description]);
  params.push(['resource_metadata', metadataUrlOf(resource)], ['scope', MCP_SCOPE]);
  return `Bearer ${params.map(([k, v]) => `${k}=${quoted(v)}`).join(', ')}`;
}

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;

/**
 * Which browser origins may call the MCP endpoint: the service's own origins, loopback origins (local
 * tools such as the MCP Inspector; a DNS-rebinding page never has one) and `mcpAllowedOrigins`.
 */
export function mcpOriginPolicy(config: Pick<Config, 'baseUrl' | 'authUrl' | 'mcpUrl' | 'legacyMcpUrl' | 'mcpAllowedOrigins'>): (origin: string) => boolean {
  const extra = config.mcpAllowedOrigins
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (extra.includes('*')) return () => true;
  const allowed = new Set([config.baseUrl, config.authUrl, config.mcpUrl, config.legacyMcpUrl].map((u) => new URL(u).origin));
  for (const o of extra) {
    try {
      allowed.add(new URL(o).origin);
    } catch {
      // not a URL: ignored (documented)
    }
  }
  return (origin) => allowed.has(origin.toLowerCase()) || LOOPBACK_ORIGIN.test(origin);
}

type Presented = { kind: 'none' } | { kind: 'malformed' } | { kind: 'credential'; value: string };

/** The credential of an MCP request: `X-Api-Key`, else `Authorization: Bearer` (never the query string). */
function presented(request: FastifyRequest): Presented {
  const apiKey = request.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim().length > 0) return { kind: 'credential', value: apiKey.trim() };
  const authz = request.headers.authorization;
  if (typeof authz !== 'string') return { kind: 'none' };
  const m = /^Bearer(?:\s+(.*))?$/i.exec(authz.trim());
  // Another scheme (Basic, ...) is no bearer credential: the plain challenge applies (RFC 6750 §3.1).
  if (!m) return { kind: 'none' };
  const token = (m[1] ?? '').trim();
  return /^[A-Za-z0-9\-._~+/]+=*$/.test(token) ? { kind: 'credential', value: token } : { kind: 'malformed' };
}

const unauthorized = (resource: string, description?: string) =>
  new AppError('unauthorized', undefined, { headers: { 'WWW-Authenticate': bearerChallenge(resource, description ? { code: 'invalid_token', description } : undefined) } });

/** Request headers passed to the MCP server: none of the credentials, no hop-by-hop headers. */
const DROPPED = new Set(['authorization', 'x-api-key', 'cookie', 'host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade', 'te', 'trailer']);

function toWebRequest(request: FastifyRequest, resource: string): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(request.headers)) {
    if (v === undefined || DROPPED.has(k)) continue;
    headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  }
  const q = request.url.indexOf('?');
  return new Request(resource + (q >= 0 ? request.url.slice(q) : ''), { method: request.method, headers });
}

export function registerMcpRoutes(app: FastifyInstance, deps: Pick<HttpDeps, 'config' | 'credentials' | 'rateLimits'> & { mcp: McpHandler }): void {
  const { config } = deps;
  const originAllowed = mcpOriginPolicy(config);
  const open = { auth: 'none' as const, rateScope: null };

  /** CORS for an allowed Origin; 403 for any other present Origin (item 14). */
  const checkOrigin = (request: FastifyRequest, reply: FastifyReply): string | undefined => {
    reply.header('Vary', 'Origin');
    const origin = request.headers.origin;
    if (origin === undefined) return undefined;
    if (!originAllowed(origin)) {
      throw new AppError('forbidden', `Origin ${JSON.stringify(origin.slice(0, 200))} may not call this MCP endpoint (docs/mcp.md: mcpAllowedOrigins).`);
    }
    reply.header('Access-Control-Allow-Origin', origin);
    reply.header('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    return origin;
  };

  for (const resource of [config.mcpUrl, config.legacyMcpUrl]) {
    const path = resourcePath(resource) || '/';
    const legacy = resource !== config.mcpUrl;

    const guard = async (request: FastifyRequest, reply: FastifyReply) => {
      checkOrigin(request, reply);
      const cred = presented(request);
      if (cred.kind === 'none') throw unauthorized(resource);
      if (cred.kind === 'malformed') throw unauthorized(resource, 'The Authorization header is not a valid Bearer credential.');
      // The same failed-credential bound as the API (server.ts, ADR 0271): checked first, so a valid
      // credential works from an address others' guesses spent; failures get 429 while it is spent.
      const principal = await deps.credentials.verify(cred.value);
      if (!principal) {
        await deps.rateLimits.failedCredential('authFailures', `ip:${request.ip}`);
        throw unauthorized(resource, 'The access token is invalid, expired or revoked.');
      }
      // Audience binding (item 9, decision 5): an OAuth token works only at the address it was issued
      // for; API keys (audience null) work everywhere (decision 7).
      if (principal.audience !== null && principal.audience !== resource) throw unauthorized(resource, `The access token was issued for another resource; request one for ${resource}.`);
      if (!principal.scopes.includes(MCP_SCOPE)) {
        throw new AppError('forbidden', `The credential lacks the scope ${MCP_SCOPE}.`, {
          headers: { 'WWW-Authenticate': bearerChallenge(resource, { code: 'insufficient_scope', description: `This operation needs the scope ${MCP_SCOPE}.` }) },
        });
      }
      request.principal = principal;
    };

    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const response = await deps.mcp.handle(toWebRequest(request, resource), { principal: request.principal!, resource, requestId: request.id, body: request.body });
      return reply.send(response);
    };

    app.post(
      path,
      {
        config: open,
        onRequest: guard,
        schema: {
          summary: legacy ? 'The MCP endpoint at the legacy resource address (Streamable HTTP).' : 'The MCP endpoint {mcp_url} (Streamable HTTP, protocol 2025-11-25).',
          description:
            'JSON-RPC messages of the Model Context Protocol; see docs/mcp.md. Needs an API key or an OAuth access token issued for this address; 401 carries `WWW-Authenticate: Bearer resource_metadata=...`. GET and DELETE answer 405 after authentication.',
          tags: ['mcp'],
          security: securityOf('required'),
          body: Type.Unknown({ description: 'A JSON-RPC 2.0 message (or batch) of the Model Context Protocol.' }),
          response: {
            200: mediaResponse('A JSON-RPC response (or batch), or a stream of them.', {
              'application/json': Type.Unknown({ description: 'JSON-RPC 2.0 response or batch.' }),
              'text/event-stream': Type.String({ description: 'Server-sent events carrying JSON-RPC messages.' }),
            }),
            202: NoBody('Accepted: the message was a notification or a response.'),
            ...errorResponses(400, 401, 403, 404, 405, 406, 408, 413, 415, 429, 500),
          },
        },
      },
      handler,
    );
    app.route({ method: ['GET', 'DELETE'], url: path, config: open, onRequest: guard, schema: { hide: true }, handler });
    app.options(path, { config: open, schema: { hide: true } }, async (request, reply) => {
      if (checkOrigin(request, reply) !== undefined) {
        reply.header('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
        reply.header('Access-Control-Allow-Headers', ALLOWED_HEADERS);
        reply.header('Access-Control-Max-Age', '600');
      }
      reply.header('Allow', 'GET, POST, DELETE, OPTIONS');
      return reply.code(204).send();
    });
  }
}
