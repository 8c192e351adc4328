// The consent and claim pages say what the `search` scope really lets an agent do (issue 13: the pages
// promised comments and votes before they existed): the words come from SCOPE_ALLOWS / SCOPE_DENIES,
// and each promise is kept for an OAuth access token: search, reading, a conversation, feedback, an
// AI-labelled comment and a vote; while the account pages (API keys, password) stay out of its reach.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SCOPE_ALLOWS, SCOPE_DENIES } from '../../src/auth/index.js';
import { doc, seed } from '../helpers/documents.js';
import { approvedAgent, authApp, authorizeUrl, Browser, codeFlowTokens, pathOf, person, pkce, registerAgent, registerClient, type AuthTestApp } from './helpers.js';

const escaped = (s: string) => s.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

describe('what the search scope allows, in words and in fact', () => {
  let app: AuthTestApp;
  before(async () => {
    app = await authApp();
    await seed(app, [doc('sw1', { title: 'Hydrogen storage in salt caverns', abstract: 'Salt caverns store hydrogen tightly.', type: 'journal-article', uris: ['doi://10.5555/sw1'] })]);
    await app.indexes!.catchUp();
  });
  after(() => app.dispose());

  const pageHas = (body: string) => {
    for (const w of [...SCOPE_ALLOWS, SCOPE_DENIES]) assert.ok(body.includes(escaped(w)), `missing: ${w}`);
    assert.match(SCOPE_ALLOWS.join(' '), /comments/);
    assert.match(SCOPE_ALLOWS.join(' '), /vote/);
  };

  test('the consent page and the claim page list the same grants', async () => {
    const client = await registerClient(app);
    const who = await person(app);
    const browser = new Browser(app);
    await browser.signIn(who.email, who.password);
    const consent = await browser.get(
      authorizeUrl({ response_type: 'code', client_id: client.client_id, redirect_uri: client.redirect_uris[0], scope: 'search', state: 's', code_challenge: pkce().challenge, code_challenge_method: 'S256', resource: app.mcp }),
    );
    assert.equal(consent.statusCode, 200);
    pageHas(consent.body);
    const reg = (await registerAgent(app, { type: 'service_auth', login_hint: who.email })).json() as { claim: { verification_uri: string } };
    const claim = await browser.get(pathOf(reg.claim.verification_uri));
    assert.equal(claim.statusCode, 200);
    pageHas(claim.body);
  });

  test('an access token does what the pages promise: search, read, converse, rate, an AI-labelled comment, a vote', async () => {
    // another reader's published comment to vote on (one's own cannot be voted on: docs/community.md)
    const other = await app.account({ credits: 1_000 });
    await app.community.approveAuthor(other.id);
    const otherSearch = (await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': other.key }, payload: { query: 'hydrogen', limit: 1 } })).json();
    const otherComment = await app.http.inject({ method: 'POST', url: '/v2/search/comments', headers: { 'x-api-key': other.key }, payload: { trajectory_id: otherSearch.trajectory.id, feedback_token: otherSearch.trajectory.feedback_token, comment_id: randomUUID(), document_id: 'sw1', model: 'other-model', contribution: 'review', content: 'A careful review of the cavern data.', evidence: [{ uri: 'https://doi.org/10.1000/abc', quote: 'twelve months' }] } });
    assert.equal(otherComment.json().status, 'published', otherComment.body);
    for (const { tokens, who } of [await codeFlowTokens(app), await approvedAgent(app)]) {
      await app.community.approveAuthor(who.id); // the operator's moderation: comments publish at once
      const auth = { authorization: `Bearer ${tokens.access_token}` };
      const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => app.http.inject({ method, url, headers: auth, ...(payload ? { payload } : {}) });
      const search = await call('POST', '/v2/search/', { query: 'hydrogen caverns', limit: 3 });
      assert.equal(search.statusCode, 200, search.body);
      const { trajectory } = search.json();
      assert.equal((await call('GET', '/v2/documents/sw1')).statusCode, 200);
      assert.equal((await call('POST', '/v2/conversations/', { query: 'How tight are salt caverns?', llm_config: { model_name: 'lectern-extractive' } })).statusCode, 200);
      const fb = await call('POST', '/v2/search/feedback', { trajectory_id: trajectory.id, feedback_token: trajectory.feedback_token, feedback_id: randomUUID(), ratings: [{ document_id: 'sw1', relevance: 3 }] });
      assert.equal(fb.statusCode, 200, fb.body);
      const comment = await call('POST', '/v2/search/comments', {
        trajectory_id: trajectory.id,
        feedback_token: trajectory.feedback_token,
        comment_id: randomUUID(),
        document_id: 'sw1',
        model: 'scope-test-model',
        contribution: 'supports',
        content: 'A field test reports the same tightness.',
        evidence: [{ uri: 'https://doi.org/10.1000/xyz', quote: 'no measurable loss' }],
      });
      assert.equal(comment.statusCode, 200, comment.body);
      const c = comment.json();
      assert.equal(c.status, 'published');
      const thread = (await call('GET', '/v2/documents/sw1/comments')).json() as { comments: { comment_id: number; model: string | null; ai_generated: boolean }[] };
      const shown = thread.comments.find((x) => x.comment_id === c.comment_id);
      assert.equal(shown?.model, 'scope-test-model');
      assert.equal(shown?.ai_generated, true, 'AI-labelled');
      assert.equal((await call('PUT', `/v2/comments/${c.comment_id}/vote`, { vote: 1 })).statusCode, 403, 'not on its own comment');
      const vote = await call('PUT', `/v2/comments/${otherComment.json().comment_id}/vote`, { vote: 1 });
      assert.equal(vote.statusCode, 200, vote.body);
      assert.equal(vote.json().user_vote, 1);
      // ...and not what they deny: the account pages take a signed-in browser, not a token.
      const account = await app.http.inject({ method: 'GET', url: '/v2/auth/account', headers: auth });
      assert.notEqual(account.statusCode, 200);
    }
  });
});
