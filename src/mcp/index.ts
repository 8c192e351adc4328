// The MCP server: tools and resources over the same services as http/, with no business rules of their
// own. Mounted at {mcp_url} and the legacy address by http/routes/mcp.ts through the McpHandler that
// app.ts passes in (http/ and mcp/ never import each other). See docs/mcp.md and ADR 0050.
export { McpEndpoint, SUPPORTED_MCP_VERSIONS, type McpEndpointDeps, type McpRequestContext } from './mcp-endpoint.js';
export { SessionIds } from './sessions.js';
