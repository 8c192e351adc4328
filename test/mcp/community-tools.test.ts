// The community MCP tools over the same services as HTTP (issue 10 "Done when", through MCP): search,
// rate two results, comment with a DOI and a quote, reply, vote from a second account, withdraw,
// read the thread and the activity; retries change nothing; bad input is a tool error that stores nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { doc, seed } from '../helpers/documents.js';
import { callTool, mcpTestApp, type McpTestApp } from './helpers.js';

describe('MCP community tools', () => {
  let app: McpTestApp;
  let ada: string;
  let bob: string;
  let adaId: number;
  before(async () => {
    app = await mcpTestApp();
    const a = await app.account({ credits: 10_000 });
    const b = await app.account({ credits: 10_000 });
    adaId = a.id;
    ada = app.tokens.issue(a.id, app.config.mcpUrl);
    bob = app.tokens.issue(b.id, app.config.mcpUrl);
    await app.community.approveAuthor(a.id);
    await app.community.approveAuthor(b.id);
    await seed(app, [
      doc('h1', { title: 'Underground hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas.', type: 'journal-article' }),
      doc('h2', { title: 'Hydrogen storage in depleted gas reservoirs', abstract: 'Cushion gas and hydrogen loss.', type: 'journal-article' }),
    ]);
    await app.indexes!.catchUp();
  });
  after(() => app.dispose());

  test('rate, comment, reply, vote, withdraw, read; retries change nothing', async () => {
    const s = (await callTool(app, ada, 'search_documents', { query: 'hydrogen storage', limit: 5 })).structuredContent;
    const tr = s.trajectory;
    const b0 = await app.billing.balance(adaId);
    const rate = { trajectory_id: tr.id, feedback_token: tr.feedback_token, feedback_id: randomUUID(), ratings: [{ document_id: 'h1', relevance: 3 }, { document_id: 'h2', relevance: 2 }] };
    const r1 = await callTool(app, ada, 'rate_results', rate);
    assert.equal(r1.isError, undefined, r1.content[0]!.text);
    const r2 = await callTool(app, ada, 'rate_results', rate);
    assert.equal(r2.structuredContent.duplicate, true);
    assert.equal(r2.structuredContent.event_id, r1.structuredContent.event_id);

    const comment = { trajectory_id: tr.id, feedback_token: tr.feedback_token, comment_id: randomUUID(), document_id: 'h1', model: 'agent-x', contribution: 'supports', content: 'Confirmed elsewhere.', evidence: [{ uri: 'doi://10.1000/abc', quote: 'tight' }] };
    const c1 = await callTool(app, ada, 'comment_on_document', comment);
    assert.equal(c1.isError, undefined, c1.content[0]!.text);
    assert.equal(c1.structuredContent.status, 'published');
    assert.equal((await callTool(app, ada, 'comment_on_document', comment)).structuredContent.duplicate, true);
    const id = c1.structuredContent.comment_id;

    const sb = (await callTool(app, bob, 'search_documents', { query: 'hydrogen', limit: 5 })).structuredContent.trajectory;
    const reply = await callTool(app, bob, 'comment_on_document', { ...comment, trajectory_id: sb.id, feedback_token: sb.feedback_token, comment_id: randomUUID(), contribution: 'limitation', reply_to_comment_id: id });
    assert.equal(reply.isError, undefined, reply.content[0]!.text);

    assert.deepEqual((await callTool(app, bob, 'vote_on_comment', { comment_id: id, vote: 1 })).structuredContent, { comment_id: id, votes: 1, user_vote: 1 });
    assert.deepEqual((await callTool(app, bob, 'vote_on_comment', { comment_id: id, vote: 0 })).structuredContent, { comment_id: id, votes: 0, user_vote: 0 });
    await callTool(app, bob, 'vote_on_comment', { comment_id: id, vote: -1 });

    await app.activity.flush();
    const read = await callTool(app, ada, 'read_document_comments', { document_id: 'h1' });
    assert.equal(read.isError, undefined, read.content[0]!.text);
    assert.deepEqual(read.structuredContent.comments.map((c: { comment_id: number; depth: number; votes: number }) => [c.comment_id, c.depth, c.votes]), [
      [id, 0, -1],
      [reply.structuredContent.comment_id, 1, 0],
    ]);
    assert.equal(read.structuredContent.activity.positive_ratings_7d, 1);
    assert.equal(read.structuredContent.activity.comments, 2);
    assert.equal(await app.billing.balance(adaId), b0, 'community tools are free');

    // Bad input: tool errors, nothing stored.
    assert.equal((await callTool(app, bob, 'rate_results', rate)).isError, true, 'a foreign token');
    assert.equal((await callTool(app, ada, 'comment_on_document', { ...comment, comment_id: randomUUID(), evidence: [{ uri: 'doi://10.1000/abc' }] })).isError, true, 'no quote');
    assert.equal((await callTool(app, ada, 'vote_on_comment', { comment_id: 999_999, vote: 1 })).isError, true);
    assert.equal((await callTool(app, ada, 'read_document_comments', { document_id: 'h1' })).structuredContent.comments.length, 2);
  });
});
