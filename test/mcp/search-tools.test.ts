// The search tools (search_documents, search_social, works_citing, search_in_document): the same
// service and the same bill as POST /v2/search/ and by-uri text_filter; agent-friendly dates; flags.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dateBound } from '../../src/mcp/tools/search.js';
import { doc, seed } from '../helpers/documents.js';
import { callTool, mcpTestApp, type McpTestApp } from './helpers.js';

const Y = (y: number) => Date.UTC(y, 0, 1) / 1000;

describe('MCP search tools', () => {
  let app: McpTestApp;
  let acct: { id: number; key: string };
  let token: string;
  before(async () => {
    app = await mcpTestApp();
    acct = await app.account({ credits: 100_000 });
    token = app.tokens.issue(acct.id, app.config.mcpUrl);
    await seed(app, [
      doc('h1', { title: 'Underground hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas; cushion gas keeps pressure.', fullText: 'Methods. We measured a storage capacity of 42 TWh in the Zechstein salt.', type: 'journal-article', language: 'en', issuedAt: Y(2022), uris: ['doi://10.1016/j.fuel.2022.1'] }),
      doc('h2', { title: 'Hydrogen storage in depleted gas reservoirs', abstract: 'A review of cushion gas and hydrogen loss.', type: 'review', language: 'en', issuedAt: Y(2023), uris: ['doi://10.3390/en2023.2'], references: ['doi://10.1016/j.fuel.2022.1'] }),
      doc('h3', { title: 'Gas storage economics', abstract: 'Storage of natural gas and hydrogen blending.', type: 'journal-article', issuedAt: Y(2015), uris: ['doi://10.1234/econ.3'], references: ['doi://10.1016/j.fuel.2022.1'], isRetracted: true, notices: [{ kind: 'retraction', uri: null }] }),
      doc('nouri', { title: 'An untitled hydrogen note', abstract: 'Hydrogen.' }),
      {
        ...doc('s1', {
          title: 'Is hydrogen storage in caverns safe?',
          abstract: 'Discussion of cavern safety and hydrogen.',
          type: 'question',
          uris: ['https://earthscience.stackexchange.com/q/1'],
          references: ['doi://10.1016/j.fuel.2022.1'],
          attribution: { author: 'geo', authorUrl: null, url: 'https://earthscience.stackexchange.com/q/1', site: 'earthscience.stackexchange.com', license: 'CC BY-SA 4.0' },
        }),
        index: 'social' as const,
      },
    ]);
    await app.indexes!.catchUp();
  });
  after(() => app.dispose());

  const balance = () => app.storage.ledger.balance(acct.id);
  const httpSearch = async (body: Record<string, unknown>) => (await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': acct.key }, payload: body })).json();

  test('search_documents returns the ranking of POST /v2/search/, billed the same', async () => {
    let before = await balance();
    const r = await callTool(app, token, 'search_documents', { query: 'hydrogen storage', limit: 3 });
    const mcpCost = before - (await balance());
    before = await balance();
    const viaHttp = await httpSearch({ query: 'hydrogen storage', limit: 3 });
    const httpCost = before - (await balance());
    assert.deepEqual(r.structuredContent.hits.map((h: any) => h.id), viaHttp.hits.map((h: any) => h.id));
    assert.equal(mcpCost, httpCost);
    assert.equal(r.structuredContent.credits_charged, mcpCost);
    assert.equal(mcpCost, app.config.prices.search + 3 * app.config.prices.searchPerHit);
    assert.ok(r.structuredContent.hits.every((h: any) => h.document.id === h.id));
    assert.match(r.content[0]!.text, /Underground hydrogen storage in salt caverns/);
    assert.ok(r.structuredContent.trajectory.feedback_token.length > 20);
  });

  test('search_documents flags retracted works and filters by type, language and calendar dates', async () => {
    const all = await callTool(app, token, 'search_documents', { query: 'storage', limit: 10 });
    const h3 = all.structuredContent.hits.find((h: any) => h.id === 'h3');
    assert.equal(h3.document.is_retracted, true);
    assert.match(all.content[0]!.text, /⚠ RETRACTED/);
    const reviews = await callTool(app, token, 'search_documents', { query: 'hydrogen', filter_types: ['review'] });
    assert.deepEqual(reviews.structuredContent.hits.map((h: any) => h.id), ['h2']);
    const recent = await callTool(app, token, 'search_documents', { query: 'storage', published_after: '2022', published_before: '2022-12' });
    assert.deepEqual(recent.structuredContent.hits.map((h: any) => h.id), ['h1']);
    const bad = await callTool(app, token, 'search_documents', { query: 'x', published_after: 'last year' });
    assert.equal(bad.isError, true);
  });

  test('search_documents refuses what the API refuses, as tool errors, charging nothing', async () => {
    const before = await balance();
    const r = await callTool(app, token, 'search_documents', { query: 'x', limit: 50, offset: 480 });
    assert.equal(r.isError, true);
    assert.match(r.content[0]!.text, /offset \+ limit must not exceed 500/);
    assert.equal((await callTool(app, token, 'search_documents', { query: 'x', limit: 51 })).isError, true);
    assert.equal(await balance(), before);
  });

  test('search_social searches the social index and carries the attribution', async () => {
    const r = await callTool(app, token, 'search_social', { query: 'cavern safety' });
    assert.deepEqual(r.structuredContent.hits.map((h: any) => h.id), ['s1']);
    assert.equal(r.structuredContent.hits[0].document.attribution.license, 'CC BY-SA 4.0');
    assert.match(r.content[0]!.text, /Posted by geo on earthscience\.stackexchange\.com/);
  });

  test('works_citing: referenced_by_uri search by URI or by id, optionally with social posts', async () => {
    const byUri = await callTool(app, token, 'works_citing', { uri: 'doi://10.1016/j.fuel.2022.1' });
    assert.deepEqual(byUri.structuredContent.hits.map((h: any) => h.id).sort(), ['h2', 'h3']);
    const viaHttp = await httpSearch({ referenced_by_uri: 'doi://10.1016/j.fuel.2022.1' });
    assert.deepEqual(byUri.structuredContent.hits.map((h: any) => h.id), viaHttp.hits.map((h: any) => h.id));
    const byId = await callTool(app, token, 'works_citing', { document_id: 'h1', include_social: true });
    assert.deepEqual(byId.structuredContent.hits.map((h: any) => h.id).sort(), ['h2', 'h3', 's1']);
    const ranked = await callTool(app, token, 'works_citing', { uri: 'doi://10.1016/j.fuel.2022.1', query: 'economics' });
    assert.deepEqual(ranked.structuredContent.hits.map((h: any) => h.id), ['h3']);
    assert.equal((await callTool(app, token, 'works_citing', {})).isError, true);
    assert.match((await callTool(app, token, 'works_citing', { document_id: 'nouri' })).content[0]!.text, /no canonical URI/);
  });

  test('search_in_document: passages of one document, billed like by-uri text_filter', async () => {
    let before = await balance();
    const r = await callTool(app, token, 'search_in_document', { document_id: 'h1', text_filter: '"storage capacity"' });
    assert.equal(before - (await balance()), app.config.prices.documentPassages);
    assert.ok(r.structuredContent.passages.length >= 1);
    assert.match(r.structuredContent.passages[0].text, /storage capacity/);
    assert.equal(r.structuredContent.document.id, 'h1');
    before = await balance();
    const viaHttp = (await app.http.inject({ method: 'GET', url: `/v2/documents/by-uri/${encodeURIComponent('doi://10.1016/j.fuel.2022.1')}?text_filter=${encodeURIComponent('"storage capacity"')}`, headers: { 'x-api-key': acct.key } })).json();
    assert.equal(before - (await balance()), app.config.prices.documentPassages);
    assert.deepEqual(r.structuredContent.passages.map((p: any) => p.text), viaHttp.hits.map((h: any) => h.snippets[0].text));
    const byUri = await callTool(app, token, 'search_in_document', { uri: 'doi://10.1016/j.fuel.2022.1', text_filter: 'Zechstein' });
    assert.ok(byUri.structuredContent.passages.length >= 1);
    before = await balance();
    const unbalanced = await callTool(app, token, 'search_in_document', { document_id: 'h1', text_filter: '"open' });
    assert.equal(unbalanced.isError, true);
    assert.equal(await balance(), before);
  });

  test('calendar dates become inclusive Unix-second bounds', () => {
    assert.equal(dateBound('2022', false), Date.UTC(2022, 0, 1) / 1000);
    assert.equal(dateBound('2022', true), Date.UTC(2023, 0, 1) / 1000 - 1);
    assert.equal(dateBound('2022-02', true), Date.UTC(2022, 2, 1) / 1000 - 1);
    assert.equal(dateBound('2022-02-28', true), Date.UTC(2022, 2, 1) / 1000 - 1);
    assert.equal(dateBound('2022-12-31', false), Date.UTC(2022, 11, 31) / 1000);
    assert.throws(() => dateBound('2022-13', false));
  });
});
