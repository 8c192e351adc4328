// The MCP tools and resources, in-process: each calls the same service as its HTTP twin and is billed
// exactly like it; failures are tool errors that charge nothing; retracted works are flagged.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths.js';
import { doc, seed } from '../helpers/documents.js';
import { callTool, mcpTestApp, rpc, type McpTestApp } from './helpers.js';

describe('MCP tools and resources', () => {
  let app: McpTestApp;
  let acct: { id: number; key: string };
  let token: string;
  const fullText = 'Porous media and hydrogen. '.repeat(400).trim();
  before(async () => {
    app = await mcpTestApp();
    acct = await app.account({ credits: 100_000 });
    token = app.tokens.issue(acct.id, app.config.mcpUrl);
    await seed(app, [
      doc('W1', {
        uris: ['doi://10.1016/j.fuel.2022.125636'],
        abstract: 'Hydrogen storage in depleted gas reservoirs.',
        fullText,
        authors: [{ name: 'Ada Lovelace' }, { name: 'Alan Turing', orcid: '0000-0001-2345-6789' }],
        references: ['doi://10.1234/cited.one', 'arxiv://2101.00001', 'doi://10.1234/not.here', 'doi://10.1234/cited.one'],
      }),
      doc('W2', { uris: ['doi://10.1234/cited.one'], title: 'A retracted study', isRetracted: true, notices: [{ kind: 'retraction', uri: 'doi://10.1234/retraction.notice' }] }),
      doc('W3', { uris: ['arxiv://2101.00001'], title: 'A preprint', abstract: 'x'.repeat(2000) }),
    ]);
  });
  after(() => app.dispose());

  const balance = () => app.storage.ledger.balance(acct.id);
  const http = (url: string) => app.http.inject({ method: 'GET', url, headers: { 'x-api-key': acct.key } });

  test('tools/list: every tool has an agent description with its cost, an input and an output schema', async () => {
    const res = await rpc(app, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { token });
    const tools = res.json().result.tools as { name: string; description: string; inputSchema: any; outputSchema: any; annotations: any }[];
    assert.deepEqual(tools.map((t) => t.name), ['search_documents', 'search_social', 'fetch_document', 'search_in_document', 'works_citing', 'works_cited', 'similar_documents', 'ask', 'read_conversation', 'rate_results', 'comment_on_document', 'vote_on_comment', 'read_document_comments', 'read_document_activity']);
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object');
      assert.equal(t.outputSchema.type, 'object');
      assert.match(t.description, /Cost: /);
      assert.match(t.description, /credits/);
      if (t.name !== 'search_social') assert.match(t.description, /retract/i, t.name);
      assert.equal(t.annotations.readOnlyHint, !['ask', 'rate_results', 'comment_on_document', 'vote_on_comment'].includes(t.name), t.name); // these record something
      assert.ok(!JSON.stringify(t).includes('"~kind"'), 'TypeBox internals leaked into the schema');
    }
  });

  test('docs/mcp.md documents every tool and resource template', async () => {
    const docs = readFileSync(join(repoRoot, 'docs/mcp.md'), 'utf8');
    const tools = (await rpc(app, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { token })).json().result.tools as { name: string }[];
    for (const t of tools) assert.match(docs, new RegExp(`^\\| \`${t.name}\` \\|`, 'm'), t.name);
    const templates = (await rpc(app, { jsonrpc: '2.0', id: 1, method: 'resources/templates/list' }, { token })).json().result.resourceTemplates as { uriTemplate: string }[];
    for (const t of templates) assert.ok(docs.includes(`| \`${t.uriTemplate}\` |`), t.uriTemplate);
  });

  test('fetch_document by id: the HTTP twin\'s content and price; the record and the text content', async () => {
    const before = await balance();
    const r = await callTool(app, token, 'fetch_document', { document_id: 'W1' });
    const charged = before - (await balance());
    assert.equal(charged, app.config.prices.documentFetch);
    assert.equal(r.structuredContent.credits_charged, charged);
    const viaHttp = (await http('/v2/documents/W1')).json();
    assert.equal(r.structuredContent.document.content, viaHttp.document.content);
    const { content: _c, ...rest } = r.structuredContent.document;
    const { content: _h, ...httpRest } = viaHttp.document;
    assert.deepEqual(rest, httpRest, 'the MCP document object has the HTTP document object\'s fields and values');
    assert.deepEqual(r.structuredContent.uris, viaHttp.uris);
    assert.match(r.content[0]!.text, /Ada Lovelace, Alan Turing/);
    assert.match(r.content[0]!.text, /Porous media and hydrogen/);
    assert.match(r.content[0]!.text, new RegExp(`${charged} credits charged`));
  });

  test('fetch_document by URI with max_tokens / max_chars: cut like the HTTP API, billed by returned tokens', async () => {
    const uri = 'https://doi.org/10.1016/J.FUEL.2022.125636';
    const before = await balance();
    const r = await callTool(app, token, 'fetch_document', { uri, max_tokens: 250 });
    const viaHttp = (await http(`/v2/documents/by-uri/${encodeURIComponent(uri)}?max_tokens=250`)).json();
    assert.equal(r.structuredContent.document.content, viaHttp.document.content);
    assert.equal(r.structuredContent.document.content_tokens, 250);
    assert.equal(r.structuredContent.document.truncated, true);
    const cost = Math.ceil(250 / app.config.prices.documentTokensPerCredit);
    assert.equal(r.structuredContent.credits_charged, cost);
    assert.equal(before - (await balance()), 2 * cost, 'MCP and HTTP charged the same');
    const chars = await callTool(app, token, 'fetch_document', { document_id: 'W1', max_chars: 40 });
    assert.equal([...chars.structuredContent.document.content].length, 40);
    assert.ok(chars.structuredContent.document.content_length > 40);
    assert.match(chars.content[0]!.text, /cut: 40 of \d+ characters/);
  });

  test('fetch_document flags retracted works first thing, in text and structure', async () => {
    const r = await callTool(app, token, 'fetch_document', { document_id: 'W2' });
    assert.equal(r.structuredContent.document.is_retracted, true);
    assert.deepEqual(r.structuredContent.document.notices, [{ kind: 'retraction', uri: 'doi://10.1234/retraction.notice', document_id: null }]);
    assert.match(r.content[0]!.text, /^⚠ RETRACTED/);
  });

  test('fetch_document failures are tool errors that charge nothing', async () => {
    const before = await balance();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ document_id: 'nope' }, /No document/],
      [{ uri: 'doi://10.9999/unknown' }, /No document/],
      [{ uri: 'not a uri' }, /Not a canonical URI/],
      [{}, /exactly one of document_id or uri/],
      [{ document_id: 'W1', uri: 'doi://10.1016/j.fuel.2022.125636' }, /exactly one/],
      [{ document_id: 'W1', max_tokens: -1 }, /max_tokens must be >= 0/],
      [{ document_id: 'W1', max_tokens: 1.5 }, /max_tokens must be integer/],
      [{ document_id: 'W1', colour: 'red' }, /unknown property "colour"/],
    ];
    for (const [args, re] of cases) {
      const r = await callTool(app, token, 'fetch_document', args);
      assert.equal(r.isError, true, JSON.stringify(args));
      assert.match(r.content[0]!.text, re);
      assert.equal(r.structuredContent, undefined);
    }
    assert.equal(await balance(), before);
  });

  test('insufficient credits: a tool error naming the price and the balance; nothing charged', async () => {
    const poor = await app.account({ credits: 3 });
    const t = app.tokens.issue(poor.id, app.config.mcpUrl);
    const r = await callTool(app, t, 'fetch_document', { document_id: 'W1' });
    assert.equal(r.isError, true);
    assert.match(r.content[0]!.text, /costs 50 credits; the balance is 3/);
    assert.equal(await app.storage.ledger.balance(poor.id), 3);
  });

  test('an unknown tool is a JSON-RPC error (-32602)', async () => {
    const res = await rpc(app, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'launch_rockets', arguments: {} } }, { token });
    assert.equal(res.json().error.code, -32602);
  });

  test('works_cited: the reference list in order, resolved where Lectern holds the work, billed like a search', async () => {
    const before = await balance();
    const r = await callTool(app, token, 'works_cited', { uri: 'doi://10.1016/j.fuel.2022.125636' });
    const s = r.structuredContent;
    assert.equal(s.document.id, 'W1');
    assert.equal(s.total_references, 3, 'duplicates collapse');
    assert.deepEqual(
      s.references.map((x: any) => [x.uri, x.document?.id ?? null]),
      [
        ['doi://10.1234/cited.one', 'W2'],
        ['arxiv://2101.00001', 'W3'],
        ['doi://10.1234/not.here', null],
      ],
    );
    assert.equal(s.references[0].document.is_retracted, true);
    assert.ok([...s.references[1].document.abstract].length <= 600);
    const p = app.config.prices;
    assert.equal(s.credits_charged, p.search + 2 * p.searchPerHit);
    assert.equal(before - (await balance()), s.credits_charged);
    assert.match(r.content[0]!.text, /⚠ RETRACTED/);
    assert.match(r.content[0]!.text, /not in Lectern/);
  });

  test('works_cited pages with limit and offset', async () => {
    const r = await callTool(app, token, 'works_cited', { document_id: 'W1', limit: 1, offset: 1 });
    assert.deepEqual(r.structuredContent.references.map((x: any) => x.uri), ['arxiv://2101.00001']);
    assert.equal(r.structuredContent.has_more, true);
    assert.match(r.content[0]!.text, /offset 2/);
    const bad = await callTool(app, token, 'works_cited', { document_id: 'W1', limit: 101 });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0]!.text, /limit must be <= 100/);
  });

  test('resources: a template by id and by URI; reading one is a whole-document fetch, billed like it', async () => {
    const list = (await rpc(app, { jsonrpc: '2.0', id: 1, method: 'resources/templates/list' }, { token })).json().result.resourceTemplates;
    assert.deepEqual(list.map((t: any) => t.uriTemplate), ['lectern://documents/{document_id}', 'lectern://documents/by-uri/{uri}']);
    assert.deepEqual((await rpc(app, { jsonrpc: '2.0', id: 1, method: 'resources/list' }, { token })).json().result.resources, []);
    const read = async (uri: string) => (await rpc(app, { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri } }, { token })).json();
    let before = await balance();
    const byId = await read('lectern://documents/W1');
    assert.equal(byId.result.contents[0].mimeType, 'text/markdown');
    assert.match(byId.result.contents[0].text, /Hydrogen storage in depleted gas reservoirs/);
    assert.equal(before - (await balance()), app.config.prices.documentFetch);
    before = await balance();
    const byUri = await read(`lectern://documents/by-uri/${encodeURIComponent('doi://10.1234/cited.one')}`);
    assert.match(byUri.result.contents[0].text, /^⚠ RETRACTED/);
    assert.equal(before - (await balance()), app.config.prices.documentFetch);
    before = await balance();
    assert.equal((await read('lectern://documents/nope')).error.code, -32002);
    assert.equal((await read('https://example.org/x')).error.code, -32002);
    assert.equal(await balance(), before);
  });
});
