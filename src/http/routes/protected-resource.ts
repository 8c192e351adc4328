// OAuth 2.0 Protected Resource Metadata (RFC 9728) for the MCP resources: {mcp_url} and the legacy MCP
// address each describe themselves (RFC 9728 §3.3 forbids one document claiming both). Every document
// is served at three places (auth requirements, decision 1; items 18-24):
//   {resource}/.well-known/oauth-protected-resource            the interface's location
//   /.well-known/oauth-protected-resource<path of resource>    RFC 9728 §3.1, path inserted
//   /.well-known/oauth-protected-resource                      the root (current resource only)
// The documents are public and carry no credentials, so they answer CORS with `*` (item 38; item 92
// forbids `*` only together with credentials).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { SCOPE } from '../../auth/index.js';
import type { Config } from '../../config/index.js';
import type { HttpDeps } from '../deps.js';

/** The scope every MCP operation needs: the authorization server's one scope (interface, Authentication: OAuth scope `search`). */
export const MCP_SCOPE = SCOPE;

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** Where a client finds the metadata of `resource`: the absolute URL sent in `resource_metadata`. */
export const metadataUrlOf = (resource: string): string => `${resource}${WELL_KNOWN}`;

/** The path component of a resource address ('' for an origin-only address). */
export const resourcePath = (resource: string): string => new URL(resource).pathname.replace(/\/+$/, '');

/** The metadata document of `resource` (RFC 9728 §2). */
export function protectedResourceMetadata(config: Pick<Config, 'authUrl'>, resource: string) {
  return {
    resource,
    // String-equal to the authorization server's `issuer` (items 21, 26).
    authorization_servers: [config.authUrl],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'Lectern',
  };
}

const ProtectedResourceMetadata = Type.Object(
  {
    resource: Type.String({ description: 'The resource address, exactly as clients use it.' }),
    authorization_servers: Type.Array(Type.String(), { description: 'Issuer identifiers of the authorization servers ({auth_url}).' }),
    scopes_supported: Type.Array(Type.String()),
    bearer_methods_supported: Type.Array(Type.String()),
    resource_name: Type.String(),
  },
  { description: 'OAuth 2.0 Protected Resource Metadata (RFC 9728).' },
);

/** CORS for public, credential-free documents. */
function publicCors(reply: FastifyReply): void {
  reply.header('Access-Control-Allow-Origin', '*');
}

/** The paths that serve the metadata of each resource, current resource first; a path is served once. */
export function metadataPaths(config: Pick<Config, 'mcpUrl' | 'legacyMcpUrl'>): { path: string; resource: string }[] {
  const out = new Map<string, string>();
  for (const [resource, primary] of [
    [config.mcpUrl, true],
    [config.legacyMcpUrl, false],
  ] as const) {
    const p = resourcePath(resource);
    const paths = [`${p}${WELL_KNOWN}`, `${WELL_KNOWN}${p}`, ...(primary ? [WELL_KNOWN] : [])];
    for (const path of paths) if (!out.has(path)) out.set(path, resource);
  }
  return [...out].map(([path, resource]) => ({ path, resource }));
}

export function registerProtectedResourceRoutes(app: FastifyInstance, deps: Pick<HttpDeps, 'config'>): void {
  const open = { auth: 'none' as const, rateScope: null };
  for (const { path, resource } of metadataPaths(deps.config)) {
    const body = protectedResourceMetadata(deps.config, resource);
    app.get(
      path,
      {
        config: open,
        schema: {
          summary: `Protected resource metadata (RFC 9728) of ${resource === deps.config.mcpUrl ? 'the MCP resource {mcp_url}' : 'the legacy MCP resource address'}.`,
          description: 'Public; names the authorization server, the scope `search` and the bearer method `header`. Answers CORS from any origin.',
          tags: ['authentication'],
          security: [],
          response: { 200: ProtectedResourceMetadata },
        },
      },
      async (_request, reply) => {
        publicCors(reply);
        reply.header('Cache-Control', 'public, max-age=300');
        return body;
      },
    );
    // Preflight: the SDK sends MCP-Protocol-Version on discovery requests, which makes browsers
    // preflight them (item 38).
    app.options(path, { config: open, schema: { hide: true } }, async (request, reply) => {
      publicCors(reply);
      reply.header('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
      const asked = request.headers['access-control-request-headers'];
      reply.header('Access-Control-Allow-Headers', typeof asked === 'string' && /^[\w\-, ]{1,1000}$/.test(asked) ? asked : 'MCP-Protocol-Version, Accept, Content-Type, Authorization');
      reply.header('Access-Control-Max-Age', '86400');
      return reply.code(204).send();
    });
  }
}
