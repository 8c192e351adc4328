// The community pages (issue 11 over the community layer): the document page's counters, comment
// stats and thread (order, AI label, evidence, scores), a person's comment waiting for review until
// the author is approved, replies, votes that change the score and their withdrawal, the Trending
// page with its scholarly filter, and what signed-out visitors may do (read, not vote).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { authApp, Browser, csrfOf, hiddenFields, person, type AuthTestApp } from '../auth/helpers.js';
import { doc, seed } from '../helpers/documents.js';
import { signFeedbackToken } from '../../src/search/feedback-token.js';
import type { Principal } from '../../src/domain/principal.js';

describe('web pages: community', () => {
  let app: AuthTestApp;
  before(async () => {
    app = await authApp();
    await seed(app, [
      doc('k1', { title: 'Salt cavern hydrogen tightness', abstract: 'Salt caverns keep hydrogen tight.', type: 'journal-article' }),
      doc('k2', { title: 'A blog-like dataset about caverns', abstract: 'Cavern data.', type: 'dataset' }),
    ]);
  });
  after(() => app.dispose());

  const signedIn = async () => {
    const p = await person(app, { credits: 100_000 });
    const b = new Browser(app);
    assert.equal((await b.signIn(p.email, p.password, '/')).statusCode, 303);
    return { b, p };
  };
  /** An agent comment through the service, as POST /v2/search/comments makes it. */
  const agentComment = async (accountId: number, documentId: string, content: string) => {
    const principal: Principal = { accountId, credential: 'oauth', credentialId: 'tok', scopes: [], clientId: 'agent', isAgent: true, audience: null };
    const trajectoryId = `t_${randomUUID()}`;
    const feedbackToken = signFeedbackToken(app.secret, { trajectoryId, accountId, expiresAt: Math.floor(app.clock.nowMs() / 1000) + 3600 });
    return app.community.submitComment(principal, { trajectoryId, feedbackToken, commentId: randomUUID(), documentId, model: 'claude-test-1', contribution: 'limitation', content, evidence: [{ uri: 'https://doi.org/10.1000/ABC.1', quote: 'only two caverns were measured' }], replyToCommentId: null });
  };
  const threadIds = (body: string) => [...body.matchAll(/<li id="comment-(\d+)" class="comment depth-(\d+)"/g)].map((m) => `${m[1]}@${m[2]}`);
  const score = (body: string, id: number) => new RegExp(`id="c-${id}-score">Score (-?\\d+)`).exec(body)?.[1];

  test('comment waits for review, then the thread, replies, votes, withdraw, counters and trending', async () => {
    const { b: ada, p: adaP } = await signedIn();
    const { b: bob, p: bobP } = await signedIn();

    const page = await ada.get('/documents/k1');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h2 id="h-activity">Activity<\/h2>/);
    assert.match(page.body, /<h2 id="h-comments">Comments <small>\(0\)<\/small><\/h2>/);
    assert.match(page.body, /No comments yet/);
    const form = hiddenFields(page.body);
    assert.ok(form.comment_key);

    // Ada is a new author: her comment is stored but waits for review; the page says so honestly.
    const posted = await ada.post('/documents/k1/comments', { csrf: csrfOf(page.body), comment_key: form.comment_key, content: 'The cavern tests ran for a year.', contribution: 'supports', evidence_uri: 'doi:10.1000/XYZ.9', evidence_quote: 'twelve months of monitoring' });
    assert.equal(posted.statusCode, 303, posted.body.slice(0, 400));
    const loc = posted.headers.location as string;
    const adaId = Number(/comment=(\d+)/.exec(loc)![1]);
    const retry = await ada.post('/documents/k1/comments', { csrf: csrfOf(page.body), comment_key: form.comment_key, content: 'The cavern tests ran for a year.', contribution: 'supports', evidence_uri: 'doi:10.1000/XYZ.9', evidence_quote: 'twelve months of monitoring' });
    assert.equal(retry.headers.location, loc, 'a double submit of one form stores one comment');
    const waiting = await ada.get(loc.replace(/#.*$/, ''));
    assert.match(waiting.body, /id="comment-pending"[^>]*>Your comment is <strong>waiting for review<\/strong>/);
    assert.deepEqual(threadIds(waiting.body), [], 'a pending comment is not in the thread');
    assert.doesNotMatch((await bob.get(loc.replace(/#.*$/, ''))).body, /comment-pending/, 'only the author hears about her comment');

    // Approved: published, a person's comment (not AI-labelled), with its kind, evidence link and quote.
    await app.community.approveAuthor(adaP.id);
    await app.community.approveAuthor(bobP.id);
    const agent = await agentComment(bobP.id, 'k1', 'Only two caverns were measured.');
    assert.equal(agent.status, 'published');
    const shown = await bob.get('/documents/k1');
    assert.match(shown.body, new RegExp(`<li id="comment-${adaId}" class="comment depth-0"`));
    assert.match(shown.body, /<span class="kind">Supports<\/span> <span class="human">Person<\/span>/);
    assert.match(shown.body, /<a href="https:\/\/doi.org\/10.1000\/xyz.9"[^>]*>doi:\/\/10.1000\/xyz.9<\/a><blockquote>twelve months of monitoring<\/blockquote>/i);
    assert.match(shown.body, /<span class="kind">Limitation<\/span> <span class="ai">AI-generated · claude-test-1<\/span>/);

    // Bob replies to Ada's comment through the reply form: thread order is parent, reply, next top-level.
    const replyPage = await bob.get(`/documents/k1?reply=${adaId}`);
    assert.match(replyPage.body, new RegExp(`<form method="post" action="/documents/k1/comments" class="comment-form" id="reply-${adaId}">`));
    const replyKey = new RegExp(`id="reply-${adaId}">[\\s\\S]*?name="comment_key" value="([^"]+)"`).exec(replyPage.body)![1]!;
    const replied = await bob.post('/documents/k1/comments', { csrf: csrfOf(replyPage.body), comment_key: replyKey, reply_to: String(adaId), content: 'Which caverns?', contribution: 'question', evidence_uri: '', evidence_quote: '' });
    assert.equal(replied.statusCode, 303);
    const replyId = Number(/comment=(\d+)/.exec(replied.headers.location as string)![1]);
    assert.match(replied.headers.location as string, new RegExp(`#comment-${replyId}$`), 'an approved author lands on the published reply');
    const thread = await bob.get('/documents/k1');
    assert.deepEqual(threadIds(thread.body), [`${adaId}@0`, `${replyId}@1`, `${agent.commentId}@0`]);
    assert.match(thread.body, /<h2 id="h-comments">Comments <small>\(3\)<\/small><\/h2>/);

    // Voting changes the score; disputing replaces the endorsement; withdrawing returns it to 0.
    assert.equal(score(thread.body, adaId), '0');
    const v1 = await bob.post(`/documents/k1/comments/${adaId}/vote`, { csrf: csrfOf(thread.body), vote: '1' });
    assert.equal(v1.statusCode, 303);
    assert.equal(v1.headers.location, `/documents/k1#comment-${adaId}`);
    let now = await bob.get('/documents/k1');
    assert.equal(score(now.body, adaId), '1');
    assert.match(now.body, /aria-pressed="true" aria-describedby="c-\d+-score">Endorse</);
    assert.match(now.body, />Withdraw my vote</);
    // Ada's own comment has no vote buttons for her, and a forged vote on it is refused (issue 25).
    const adaView = await ada.get('/documents/k1');
    assert.doesNotMatch(new RegExp(`id="comment-${adaId}"[\\s\\S]*?</article>`).exec(adaView.body)![0], />Endorse</);
    const selfVote = await ada.post(`/documents/k1/comments/${adaId}/vote`, { csrf: csrfOf(adaView.body), vote: '1' });
    assert.equal(selfVote.statusCode, 403);
    assert.equal(score((await bob.get('/documents/k1')).body, adaId), '1', 'the refused self-vote changed nothing');
    const { b: cyd } = await signedIn();
    await cyd.post(`/documents/k1/comments/${adaId}/vote`, { csrf: csrfOf((await cyd.get('/documents/k1')).body), vote: '1' });
    await bob.post(`/documents/k1/comments/${adaId}/vote`, { csrf: csrfOf(now.body), vote: '-1' });
    now = await bob.get('/documents/k1');
    assert.equal(score(now.body, adaId), '0', 'cyd endorses (+1), bob now disputes (-1)');
    await bob.post(`/documents/k1/comments/${adaId}/vote`, { csrf: csrfOf(now.body), vote: '0' });
    now = await bob.get('/documents/k1');
    assert.equal(score(now.body, adaId), '1', 'bob withdrew; cyd’s endorsement stays');
    assert.doesNotMatch(new RegExp(`id="comment-${adaId}"[\\s\\S]*?</article>`).exec(now.body)![0], /Withdraw my vote/);
    const foreign = await bob.post(`/documents/k2/comments/${adaId}/vote`, { csrf: csrfOf(now.body), vote: '1' });
    assert.equal(foreign.statusCode, 404, 'a comment is voted on through its own document');

    // Counters and comment stats: views (once per visitor and day) and the comments posted.
    await app.activity.flush();
    const counted = await new Browser(app).get('/documents/k1');
    assert.match(counted.body, /<th scope="row">Page views<\/th><td>[1-9]\d*<\/td><td>[1-9]\d*<\/td>/);
    assert.match(counted.body, /<td id="comments-7d">3<\/td><td id="comments-30d">3<\/td>/);
    assert.match(counted.body, /<p id="comment-stats">3 visible comments, score 1; Limitation 1, Question 1, Supports 1\.<\/p>/);

    // Trending lists the commented document with its score; the scholarly filter keeps the article.
    await app.storage.activity.record([{ documentId: 'k2', kind: 'view', accountId: null, visitor: 'v-x', at: Math.floor(app.clock.nowMs() / 1000) }]);
    await app.activity.flush();
    await app.community.refreshTrending();
    const week = await new Browser(app).get('/trending');
    assert.equal(week.statusCode, 200);
    assert.match(week.body, /<a href="\/trending" aria-current="page">Trending<\/a>/);
    const order = [...week.body.matchAll(/<h2 class="title"><a href="\/documents\/(k\d)">/g)].map((m) => m[1]);
    assert.deepEqual(order, ['k1', 'k2']);
    assert.match(week.body, /Score <strong>(\d+)<\/strong> · [1-9]\d* views · \d+ agent reads · 0 AI citations · 0 positive ratings · 3 comments/);
    const scholarly = await new Browser(app).get('/trending?period=month&scholarly=1');
    assert.deepEqual([...scholarly.body.matchAll(/<h2 class="title"><a href="\/documents\/(k\d)">/g)].map((m) => m[1]), ['k1']);
    assert.match(scholarly.body, /<a href="\/trending\?period=month&amp;scholarly=1" aria-current="page">This month<\/a>/);
    assert.match(scholarly.body, /id="scholarly" name="scholarly" value="1" checked/);
  });

  test('signed out: read the counters and thread, no forms; posting a vote is sent to sign-in', async () => {
    const { p } = await signedIn();
    await app.community.approveAuthor(p.id);
    const c = await agentComment(p.id, 'k2', 'Not peer reviewed.');
    const anon = new Browser(app);
    const page = await anon.get('/documents/k2');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, new RegExp(`<li id="comment-${c.commentId}"`));
    assert.match(page.body, /Sign in<\/a> to comment and vote/);
    assert.doesNotMatch(page.body, /name="csrf"|class="vote"|comment-form/);
    const vote = await anon.post(`/documents/k2/comments/${c.commentId}/vote`, { vote: '1' });
    assert.equal(vote.statusCode, 303);
    assert.match(vote.headers.location as string, /sign-in/);
  });

  test('bad input is a readable error with the form refilled; a missing CSRF token is refused', async () => {
    const { b } = await signedIn();
    const page = await b.get('/documents/k1');
    const f = hiddenFields(page.body);
    const bad = await b.post('/documents/k1/comments', { csrf: csrfOf(page.body), comment_key: f.comment_key, content: 'See this.', evidence_uri: 'ftp://nowhere', evidence_quote: '' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /role="alert"[\s\S]*?Evidence 1 is not an https URL/);
    assert.match(bad.body, /<textarea id="new-comment-content" name="content"[^>]*>See this\.<\/textarea>/);
    const empty = await b.post('/documents/k1/comments', { csrf: csrfOf(page.body), comment_key: f.comment_key, content: '   ' });
    assert.equal(empty.statusCode, 422);
    assert.match(empty.body, /The comment is empty/);
    const first = await b.post('/documents/k1/comments', { csrf: csrfOf(page.body), comment_key: f.comment_key, content: 'First text.' });
    assert.equal(first.statusCode, 303);
    const reused = await b.post('/documents/k1/comments', { csrf: csrfOf(page.body), comment_key: f.comment_key, content: 'Another text.' });
    assert.equal(reused.statusCode, 409, 'one form key is one comment; another body with it is refused');
    assert.match(reused.body, /reload the page and write it again/);
    const quoteOnly = await b.post('/documents/k1/comments', { csrf: csrfOf(page.body), comment_key: randomUUID(), content: 'Hm.', evidence_quote: 'a quote' });
    assert.equal(quoteOnly.statusCode, 422);
    assert.match(quoteOnly.body, /A quote needs the evidence it comes from/);
    const otherDoc = await b.post('/documents/k2/comments', { csrf: csrfOf(page.body), comment_key: randomUUID(), content: 'Reply elsewhere.', reply_to: /comment=(\d+)/.exec(first.headers.location as string)![1] });
    assert.equal(otherDoc.statusCode, 422, 'a reply stays on its document');
    const noCsrf = await b.post('/documents/k1/comments', { comment_key: f.comment_key, content: 'Hello' });
    assert.equal(noCsrf.statusCode, 403);
    const badVote = await b.post('/documents/k1/comments/1/vote', { csrf: csrfOf(page.body), vote: '5' });
    assert.equal(badVote.statusCode, 422);
    assert.equal((await b.get('/documents/k1/comments/x')).statusCode, 404);
  });
});
