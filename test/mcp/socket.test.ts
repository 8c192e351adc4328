// The MCP endpoint over a real listening socket, driven by the official SDK client (the root package's
// @modelcontextprotocol/sdk): initialize with a session, tools/list, every tool called with the
// client's own output-schema validation, resources, the legacy address, and the SDK's own metadata
// discovery. Plain fetch checks the transport rules where a real socket matters (challenges, CORS).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort } from '../helpers/server-process.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { discoverOAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/client/auth.js';
import { doc, seed } from '../helpers/documents.js';
import { mcpTestApp, parseChallenge, type McpTestApp } from './helpers.js';


describe('MCP over a real socket with the official SDK client', () => {
  let app: McpTestApp;
  let acct: { id: number; key: string };
  let base: string;
  before(async () => {
    const port = await freePort();
    app = await mcpTestApp({ port, baseUrl: `http://127.0.0.1:${port}` });
    await app.http.listen({ port, host: '127.0.0.1' });
    base = app.config.baseUrl;
    acct = await app.account({ credits: 100_000 });
    await seed(app, [
      doc('W1', { title: 'Hydrogen storage in salt caverns', abstract: 'Salt caverns store hydrogen.', fullText: 'Cushion gas keeps the pressure.', uris: ['doi://10.1016/j.fuel.2022.1'], references: ['doi://10.3390/en2023.2', 'doi://10.9999/absent'] }),
      doc('W2', { title: 'Depleted reservoirs for hydrogen', uris: ['doi://10.3390/en2023.2'], references: ['doi://10.1016/j.fuel.2022.1'], isRetracted: true, notices: [{ kind: 'retraction', uri: null }] }),
      { ...doc('S1', { title: 'Are salt caverns safe for hydrogen?', type: 'question', uris: ['https://earthscience.stackexchange.com/q/9'], attribution: { author: 'a', authorUrl: null, url: 'https://earthscience.stackexchange.com/q/9', site: 'earthscience', license: 'CC BY-SA 4.0' } }), index: 'social' as const },
    ]);
    await app.indexes!.catchUp();
    // corpus-trained models, so similar_documents and every search mode have their channels
    await app.corpusModels.train('documents');
    app.refreshModels();
  });
  after(() => app.dispose());

  const connect = async (headers: Record<string, string>, url = app.config.mcpUrl) => {
    const client = new Client({ name: 'lectern-socket-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
    await client.connect(transport);
    return { client, transport };
  };

  test('[16] the SDK client initializes (2025-11-25, a session id), lists tools and calls every tool; outputs validate', async () => {
    const { client, transport } = await connect({ authorization: `Bearer ${acct.key}` });
    try {
      assert.equal(transport.protocolVersion, '2025-11-25');
      assert.match(String(transport.sessionId), /^[\x21-\x7E]{32,}$/);
      assert.equal(client.getServerVersion()?.name, 'lectern');
      assert.match(String(client.getInstructions()), /retracted/);
      const { tools } = await client.listTools();
      assert.equal(tools.length, 14);
      const calls: [string, Record<string, unknown>][] = [
        ['search_documents', { query: 'hydrogen salt caverns', limit: 5 }],
        ['search_social', { query: 'salt caverns' }],
        ['fetch_document', { uri: 'doi://10.1016/j.fuel.2022.1', max_tokens: 20 }],
        ['search_in_document', { document_id: 'W1', text_filter: 'cushion gas' }],
        ['works_citing', { uri: 'doi://10.1016/j.fuel.2022.1' }],
        ['works_cited', { document_id: 'W1' }],
        ['similar_documents', { document_id: 'W1', limit: 5 }],
        ['search_documents', { query: 'hydrogen', mode: 'short_document' }],
      ];
      for (const [name, args] of calls) {
        // The SDK client validates structuredContent against the tool's outputSchema and throws on a mismatch.
        const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: any; content: { text: string }[] };
        assert.notEqual(r.isError, true, `${name}: ${r.content[0]?.text}`);
        assert.ok(r.structuredContent, name);
        assert.ok(r.structuredContent.credits_charged > 0, name);
      }
      const hits = ((await client.callTool({ name: 'search_documents', arguments: { query: 'hydrogen' } })) as any).structuredContent.hits;
      assert.ok(hits.length >= 2, 'real hits from the search service');
      const templates = await client.listResourceTemplates();
      assert.equal(templates.resourceTemplates.length, 2);
      const res = await client.readResource({ uri: 'lectern://documents/W2' });
      assert.match(String((res.contents[0] as { text: string }).text), /RETRACTED/);
    } finally {
      await client.close();
    }
  });

  test('read_document_activity through the SDK client: the same record as GET /v2/documents/{id}/activity; unknown documents are tool errors', async () => {
    // some activity first: a page view
    const now = Math.floor(app.clock.nowMs() / 1000);
    await app.storage.activity.record([{ documentId: 'W1', kind: 'view', accountId: null, visitor: 'v-sdk', at: now }]);
    // the earlier tests' searches showed W1: their buffered "shown" events are written now, not by the
    // once-a-second flush between the two reads below (seen on a loaded machine: shown 1 against 3)
    await app.activity.flush();
    const { client } = await connect({ authorization: `Bearer ${acct.key}` });
    try {
      const r = (await client.callTool({ name: 'read_document_activity', arguments: { document_id: 'W1' } })) as unknown as { isError?: boolean; structuredContent: any; content: { text: string }[] };
      assert.notEqual(r.isError, true, r.content[0]?.text);
      const http = await fetch(`${base}/v2/documents/W1/activity`, { headers: { 'x-api-key': acct.key } });
      assert.equal(http.status, 200);
      assert.ok(r.structuredContent.views_7d >= 1, 'the recorded view is counted');
      assert.deepEqual(r.structuredContent, await http.json(), 'the HTTP twin answers the same record');
      assert.match(r.content[0]!.text, /Document W1, last 7 days \(30 days\): [1-9]\d* \([1-9]\d*\) views/);
      const unknown = (await client.callTool({ name: 'read_document_activity', arguments: { document_id: 'nope' } })) as unknown as { isError?: boolean; content: { text: string }[] };
      assert.equal(unknown.isError, true);
      assert.match(unknown.content[0]!.text, /nope/);
    } finally {
      await client.close();
    }
  });

  test('[9] an OAuth token for {mcp_url} works there; one for the legacy address only at the legacy address', async () => {
    const mcpToken = app.tokens.issue(acct.id, app.config.mcpUrl);
    const legacyToken = app.tokens.issue(acct.id, app.config.legacyMcpUrl);
    const a = await connect({ authorization: `Bearer ${mcpToken}` });
    assert.ok((await a.client.listTools()).tools.length > 0);
    await a.client.close();
    const b = await connect({ authorization: `Bearer ${legacyToken}` }, app.config.legacyMcpUrl);
    assert.ok((await b.client.listTools()).tools.length > 0);
    await b.client.close();
    await assert.rejects(connect({ authorization: `Bearer ${legacyToken}` }), /401|Unauthorized/);
  });

  test('[19] the SDK\'s own discovery finds the metadata (path-inserted location first) and it names this resource', async () => {
    for (const url of [app.config.mcpUrl, app.config.legacyMcpUrl]) {
      const prm = await discoverOAuthProtectedResourceMetadata(url);
      assert.equal(prm.resource, url);
      assert.deepEqual(prm.authorization_servers, [app.config.authUrl]);
    }
    const viaHeader = await discoverOAuthProtectedResourceMetadata(app.config.mcpUrl, { resourceMetadataUrl: `${app.config.mcpUrl}/.well-known/oauth-protected-resource` });
    assert.equal(viaHeader.resource, app.config.mcpUrl);
  });

  test('[2, 7] over the wire: 401 with the challenge, the ApiError body and X-Request-Id; X-Api-Key works', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const res = await fetch(app.config.mcpUrl, { method: 'POST', headers, body });
    assert.equal(res.status, 401);
    assert.equal(parseChallenge(res.headers.get('www-authenticate')!).params.resource_metadata, `${base}/mcp/.well-known/oauth-protected-resource`);
    assert.deepEqual(await res.json(), { status: 'error', detail: 'Unauthorized' });
    assert.ok(res.headers.get('x-request-id'));
    const ok = await fetch(app.config.mcpUrl, { method: 'POST', headers: { ...headers, 'x-api-key': acct.key }, body });
    assert.equal(ok.status, 200);
  });

  test('[92, 38] a browser-style preflight and request from an allowed origin over the wire', async () => {
    const origin = 'http://localhost:6274';
    const pre = await fetch(app.config.mcpUrl, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,mcp-protocol-version' } });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), origin);
    const res = await fetch(app.config.mcpUrl, { method: 'POST', headers: { origin, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    assert.equal(res.status, 401);
    assert.match(String(res.headers.get('access-control-expose-headers')), /WWW-Authenticate/);
    const prmPre = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'mcp-protocol-version' } });
    assert.equal(prmPre.status, 204);
    assert.equal(prmPre.headers.get('access-control-allow-origin'), '*');
  });
});
