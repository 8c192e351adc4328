// The MCP server behind {mcp_url} (Streamable HTTP, protocol revision 2025-11-25 and the earlier ones the
// SDK negotiates). The HTTP layer (http/routes/mcp.ts) has already checked Origin, the credential, its
// audience and scope; this endpoint answers one authenticated HTTP exchange:
//   1. MCP-Protocol-Version, when present, must be one this server speaks (else 400; item 15);
//   2. only POST carries messages: there are no server-initiated messages (GET) and no session state to
//      terminate (DELETE), so both get 405 as the transport spec allows;
//   3. an Mcp-Session-Id must have been issued to this account at this address (else 404; item 12);
//   4. each message takes a token from the rate-limit bucket of its HTTP twin (429);
//   5. a fresh SDK server and transport answer the messages in JSON (stateless per request, ADR 0050),
//      and an initialize response gets a new session id.
// Tools and resources call the same services as the HTTP API and are billed by them.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  isInitializeRequest,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { RateScope } from '../config/index.js';
import { AppError } from '../domain/errors.js';
import type { PriceTable } from '../domain/prices.js';
import type { Principal } from '../domain/principal.js';
import type { DocumentService } from '../documents/document-service.js';
import type { ReferenceService } from '../citations/reference-service.js';
import type { RateLimitService } from '../limits/rate-limit-service.js';
import { readDocumentResource, resourceTemplates } from './resources.js';
import { SessionIds } from './sessions.js';
import { fetchDocumentTool } from './tools/fetch-document.js';
import { ToolInputError, type ToolContext, type ToolDefinition } from './tools/tool.js';
import { worksCitedTool } from './tools/works-cited.js';
import { searchDocumentsTool, searchSocialTool, similarDocumentsTool, worksCitingTool } from './tools/search.js';
import { searchInDocumentTool } from './tools/search-in-document.js';
import { askTool, readConversationTool } from './tools/conversations.js';
import type { ConversationService } from '../conversations/index.js';
import type { CommunityService } from '../community/index.js';
import { communityTools } from './tools/community.js';
import type { PassageSearch } from '../search/passage-search.js';
import type { SearchService } from '../search/search-service.js';

/** Protocol revisions this server answers (the SDK's list, newest first). */
export const SUPPORTED_MCP_VERSIONS: readonly string[] = [...SUPPORTED_PROTOCOL_VERSIONS];

/** One authenticated MCP exchange (the same shape as McpRequestContext in http/deps.ts). */
export interface McpRequestContext {
  principal: Principal;
  resource: string;
  requestId: string;
  body: unknown;
}

export interface McpLogger {
  error(obj: object, msg: string): void;
}

export interface McpEndpointDeps {
  /** {base_url}: download links in document records. */
  baseUrl: string;
  prices: PriceTable;
  documents: DocumentService;
  references: ReferenceService;
  search: SearchService;
  passages: PassageSearch;
  rateLimits: RateLimitService<RateScope>;
  /** Server secret (session ids are derived from it). */
  secret: string;
  logger: McpLogger;
  /** Lectern's version, reported in serverInfo. */
  version: string;
  /** Conversations (the ask and read_conversation tools); absent: those tools are not offered. */
  conversations?: ConversationService;
  /** The community layer (rate_results, comment_on_document, vote_on_comment, read_document_comments, read_document_activity); absent: not offered. */
  community?: CommunityService;
}

const INSTRUCTIONS = [
  'Lectern searches and reads scholarly literature (papers, books, patents, encyclopedias) and public discussion for the account that connected you.',
  "Every call that returns content spends that account's credits; each tool's description gives its price, and a call that fails costs nothing.",
  'Identify works by their canonical URIs (doi://, arxiv://, pubmed://, pmc://, isbn://) when you cite them.',
  'Works flagged `is_retracted` or carrying `notices` (retraction, erratum, expression of concern) must not be cited as support.',
  'Documents can also be read as resources: lectern://documents/{document_id}.',
].join(' ');

export class McpEndpoint {
  readonly tools: readonly ToolDefinition[];
  readonly #byName: Map<string, { tool: ToolDefinition; validate: ValidateFunction }>;
  readonly #sessions: SessionIds;
  readonly #toolList: object[];
  readonly #templates: ReturnType<typeof resourceTemplates>;

  constructor(private readonly deps: McpEndpointDeps) {
    this.tools = [searchDocumentsTool(deps), searchSocialTool(deps), fetchDocumentTool(deps), searchInDocumentTool(deps), worksCitingTool(deps), worksCitedTool(deps), similarDocumentsTool(deps), ...(deps.conversations ? [askTool({ ...deps, conversations: deps.conversations }), readConversationTool({ conversations: deps.conversations })] : []), ...(deps.community ? communityTools({ community: deps.community }) : [])];
    const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false, strict: false });
    this.#byName = new Map(this.tools.map((tool) => [tool.name, { tool, validate: ajv.compile(tool.inputSchema as object) }]));
    this.#sessions = new SessionIds(deps.secret);
    // JSON round trip: plain JSON Schema, without TypeBox's own markers.
    this.#toolList = this.tools.map((t) =>
      JSON.parse(JSON.stringify({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema, annotations: t.annotations })),
    );
    this.#templates = resourceTemplates(deps.prices);
  }

  async handle(request: Request, ctx: McpRequestContext): Promise<Response> {
    const version = request.headers.get('mcp-protocol-version');
    if (version !== null && !SUPPORTED_MCP_VERSIONS.includes(version)) {
      throw new AppError('bad_request', `Unsupported MCP-Protocol-Version ${JSON.stringify(version.slice(0, 64))}; this server speaks ${SUPPORTED_MCP_VERSIONS.join(', ')}.`, {
        extra: { supported_versions: SUPPORTED_MCP_VERSIONS },
      });
    }
    if (request.method !== 'POST') {
      throw new AppError(
        'method_not_allowed',
        'This MCP server sends no server-initiated messages (no GET stream) and keeps no session state to terminate (no DELETE); send JSON-RPC messages with POST.',
        { headers: { Allow: 'POST, OPTIONS' } },
      );
    }
    const messages: unknown[] = Array.isArray(ctx.body) ? ctx.body : [ctx.body];
    const initializing = messages.some((m) => isInitializeRequest(m));
    const sessionId = request.headers.get('mcp-session-id');
    if (!initializing && sessionId !== null && !this.#sessions.verify(sessionId, ctx.principal.accountId, ctx.resource)) {
      throw new AppError('not_found', 'No such MCP session for this credential: start a new session with initialize. A session belongs to the account that created it.');
    }
    for (const m of messages) await this.deps.rateLimits.check(this.#rateScopeOf(m), `a:${ctx.principal.accountId}`);

    const server = this.#server(ctx);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(request, { parsedBody: ctx.body });
      if (!initializing || response.status !== 200) return response;
      const headers = new Headers(response.headers);
      headers.set('Mcp-Session-Id', this.#sessions.issue(ctx.principal.accountId, ctx.resource));
      return new Response(response.body, { status: response.status, headers });
    } finally {
      await server.close();
    }
  }

  /** The bucket a message draws from: its HTTP twin's (search, documents), else `default`. */
  #rateScopeOf(message: unknown): RateScope {
    const m = message as { method?: unknown; params?: { name?: unknown } } | null;
    if (m?.method === 'tools/call' && typeof m.params?.name === 'string') return this.#byName.get(m.params.name)?.tool.rateScope ?? 'default';
    if (m?.method === 'resources/read') return 'documents';
    return 'default';
  }

  #server(ctx: ToolContext): Server {
    const server = new Server(
      { name: 'lectern', title: 'Lectern', version: this.deps.version },
      { capabilities: { tools: { listChanged: false }, resources: {} }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: this.#toolList as never[] }));
    server.setRequestHandler(CallToolRequestSchema, async (req) => this.callTool(req.params.name, req.params.arguments ?? {}, ctx));
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [] }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: this.#templates }));
    server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
      try {
        const r = await readDocumentResource(this.deps.documents, req.params.uri, ctx);
        if (!r) throw new McpError(-32002, `Resource not found: ${req.params.uri.slice(0, 200)} (use lectern://documents/{document_id} or lectern://documents/by-uri/{uri}).`);
        return r;
      } catch (e) {
        throw this.#protocolError(e, ctx);
      }
    });
    return server;
  }

  /** Runs a tool; failures the agent can act on come back as tool errors (isError), as MCP prescribes. */
  async callTool(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult> {
    const entry = this.#byName.get(name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${JSON.stringify(name.slice(0, 100))}; call tools/list for the available tools.`);
    const input = structuredClone(args);
    if (!entry.validate(input)) return toolError(`Invalid arguments for ${name}: ${describe(entry.validate.errors ?? [])}.`);
    try {
      const out = await entry.tool.run(input, ctx);
      return { content: [{ type: 'text', text: out.text }], structuredContent: out.structured };
    } catch (e) {
      if (e instanceof ToolInputError) return toolError(e.message);
      if (e instanceof AppError && e.status < 500) return toolError(appErrorText(e));
      this.deps.logger.error({ err: e, tool: name, request_id: ctx.requestId }, 'MCP tool failed');
      return toolError(`Internal error; nothing was charged. Quote request id ${ctx.requestId} when you report it.`);
    }
  }

  /** Maps a failure while reading a resource to a JSON-RPC error. */
  #protocolError(e: unknown, ctx: ToolContext): McpError {
    if (e instanceof McpError) return e;
    if (e instanceof AppError && e.code === 'not_found') return new McpError(-32002, e.message);
    if (e instanceof AppError && e.status < 500) {
      return new McpError(e.status === 400 || e.status === 422 ? ErrorCode.InvalidParams : -32000, appErrorText(e), { code: e.code, ...e.extra });
    }
    this.deps.logger.error({ err: e, request_id: ctx.requestId }, 'MCP resource read failed');
    return new McpError(ErrorCode.InternalError, `Internal error; nothing was charged. Quote request id ${ctx.requestId} when you report it.`);
  }
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function appErrorText(e: AppError): string {
  if (e.code === 'invalid_uri') {
    return 'Not a canonical URI: give doi://10.NNNN/..., arxiv://YYMM.NNNNN, pubmed://N, pmc://PMCN, isbn://N or an https URL (https://doi.org/... and doi:... are accepted too).';
  }
  if (e.code === 'insufficient_credits') {
    return `${e.message} Nothing was charged. The account holder can add credits; meanwhile, cut documents with max_tokens to spend less.`;
  }
  return e.message;
}

function describe(errors: readonly ErrorObject[]): string {
  return errors
    .slice(0, 10)
    .map((e) => {
      const at = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : 'arguments';
      if (e.keyword === 'additionalProperties') return `${at} has unknown property "${String((e.params as { additionalProperty?: unknown }).additionalProperty)}"`;
      return `${at} ${e.message ?? 'is invalid'}`;
    })
    .join('; ');
}
