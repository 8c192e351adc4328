// The ask and read_conversation MCP tools: answers with verified excerpts, follow-ups by conversation
// id, billing like POST /v2/conversations/ (once, after success; nothing on failure), sharing rules.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { doc, seed } from '../helpers/documents.js';
import { callTool, mcpTestApp, type McpTestApp } from './helpers.js';

describe('MCP conversation tools', () => {
  let app: McpTestApp;
  let acct: { id: number; key: string };
  let token: string;
  before(async () => {
    app = await mcpTestApp({ rateLimits: { conversations: { capacity: 1000, refillPerSecond: 1000 } } } as never);
    acct = await app.account({ credits: 10_000 });
    token = app.tokens.issue(acct.id, app.config.mcpUrl);
    await seed(app, [
      doc('h1', { title: 'Underground hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas. Cushion gas keeps the cavern pressure stable.', language: 'en' }),
      doc('m1', { title: 'Hydrogen effects in mice', abstract: 'Mice breathing hydrogen showed reduced oxidative stress.', language: 'en' }),
    ]);
    await app.indexes!.catchUp();
  });
  after(() => app.dispose());

  test('ask answers with excerpts verbatim in the sources, continues by conversation_id, bills each turn once', async () => {
    const b0 = await app.billing.balance(acct.id);
    const r = await callTool(app, token, 'ask', { question: 'How is hydrogen stored in salt caverns?' });
    assert.equal(r.isError, undefined, r.content[0]!.text);
    const s = r.structuredContent;
    assert.ok(s.citations.length > 0);
    const docs = await app.storage.documents.getMany(s.sources.map((x: { document_id: string }) => x.document_id));
    for (const c of s.citations) assert.ok(docs.get(c.document_id)!.abstract!.includes(c.excerpt) || docs.get(c.document_id)!.title.includes(c.excerpt));
    assert.equal(b0 - (await app.billing.balance(acct.id)), 100);
    assert.equal(s.credits_charged, 100);
    // The text lists the cited sources under "Sources:", any other retrieved one as not cited.
    const text: string = r.content[0]!.text;
    const cited = new Set(s.citations.map((c: { document_index: number }) => c.document_index));
    const sourcesAt = text.indexOf('\nSources:\n');
    assert.ok(sourcesAt > 0, text);
    const uncitedAt = text.indexOf('Also retrieved (not cited):');
    for (const src of s.sources) {
      const at = text.indexOf(`[${src.document_index}] ${src.title}`);
      assert.ok(at > sourcesAt, text);
      if (cited.has(src.document_index)) assert.ok(uncitedAt < 0 || at < uncitedAt, text);
      else assert.ok(uncitedAt > 0 && at > uncitedAt, text);
    }
    // The answer's sources can be rated with rate_results (free).
    assert.ok(s.trajectory && s.trajectory.feedback_token.length > 20);
    const fb = await callTool(app, token, 'rate_results', { trajectory_id: s.trajectory.id, feedback_token: s.trajectory.feedback_token, feedback_id: crypto.randomUUID(), ratings: [{ document_id: s.sources[0].document_id, relevance: 3 }] });
    assert.equal(fb.isError, undefined, fb.content[0]!.text);
    const f = await callTool(app, token, 'ask', { question: 'what about in mice?', conversation_id: s.conversation_id });
    assert.equal(f.structuredContent.sources[0].document_id, 'm1');
    const read = await callTool(app, token, 'read_conversation', { conversation_id: s.conversation_id });
    assert.equal(read.structuredContent.turns.length, 2);
    assert.equal(read.structuredContent.turns[1].question, 'what about in mice?');
    assert.equal(b0 - (await app.billing.balance(acct.id)), 200, 'reading is free');
  });

  test('an answer that cites nothing lists its documents as the closest ones, not as sources', async () => {
    // A pinned document that shares no word with the question: the answer abstains and cites nothing.
    const r = await callTool(app, token, 'ask', { question: 'What is the capital of France?', document_ids: ['h1'] });
    assert.equal(r.isError, undefined, r.content[0]!.text);
    const s = r.structuredContent;
    const text: string = r.content[0]!.text;
    assert.equal(s.citations.length, 0, text);
    assert.ok(s.sources.some((x: { document_id: string }) => x.document_id === 'h1'), text);
    assert.ok(!text.includes('Sources:'), text);
    assert.ok(text.includes('Closest documents (not cited):\n[1] '), text);
  });

  test('failures charge nothing; a private conversation is not readable by another account', async () => {
    const b0 = await app.billing.balance(acct.id);
    assert.equal((await callTool(app, token, 'ask', { question: 'hydrogen', model_name: 'gpt-9' })).isError, true);
    assert.equal((await callTool(app, token, 'ask', { question: '   ' })).isError, true);
    assert.equal(await app.billing.balance(acct.id), b0);
    const mine = (await callTool(app, token, 'ask', { question: 'hydrogen caverns' })).structuredContent.conversation_id;
    const other = await app.account({ credits: 1000 });
    const otherToken = app.tokens.issue(other.id, app.config.mcpUrl);
    assert.equal((await callTool(app, otherToken, 'read_conversation', { conversation_id: mine })).isError, true);
    await app.conversations.setShared({ accountId: acct.id } as never, mine, true);
    assert.equal((await callTool(app, otherToken, 'read_conversation', { conversation_id: mine })).isError, undefined);
  });
});
