// The community layer through the app (issue 10, "Done when"): search, rate two results with the
// returned token, an agent comment with a DOI and a quote, a reply, a vote from a second account,
// its withdrawal, the thread, the counters in the document's activity and the document climbing the
// trending list; retries of every write change nothing. Then every kind of bad input, each a 4xx
// that stores nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { onBothStores, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { signFeedbackToken } from '../../src/search/feedback-token.js';

/** Opens the app under test and returns it with a clean-up. */
type Open = () => Promise<{ app: TestApp; done(): Promise<void> }>;

function communitySuite(label: string, open: Open): void {
  describe(`community: feedback, comments, votes, activity, trending (${label})`, () => {
    let app: TestApp;
    let done: () => Promise<void>;
    let ada: { id: number; key: string };
    let bob: { id: number; key: string };
    let carol: { id: number; key: string };
    before(async () => {
      ({ app, done } = await open());
      ada = await app.account({ credits: 10_000 });
      bob = await app.account({ credits: 10_000 });
      carol = await app.account({ credits: 10_000 });
      await seed(app, [
        doc('h1', { title: 'Underground hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas.', type: 'journal-article', uris: ['doi://10.1016/j.fuel.2022.1'] }),
        doc('h2', { title: 'Hydrogen storage in depleted gas reservoirs', abstract: 'Cushion gas and hydrogen loss in reservoirs.', type: 'review' }),
        doc('h3', { title: 'Hydrogen blending economics', abstract: 'Economics of hydrogen blending in gas grids.', type: 'posted-content' }),
        { ...doc('s1', { title: 'Is hydrogen storage in caverns safe?', abstract: 'Discussion of cavern safety.', type: 'question' }), index: 'social' },
      ]);
      await app.indexes!.catchUp();
    });
    after(() => done());

    const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, key: string, payload?: unknown) => {
      const res = await app.http.inject({ method, url, headers: { 'x-api-key': key }, ...(payload === undefined ? {} : { payload: payload as object }) });
      return { status: res.statusCode, body: res.json(), headers: res.headers };
    };
    const search = async (key: string) => {
      const r = await call('POST', '/v2/search/', key, { query: 'hydrogen storage', limit: 5 });
      assert.equal(r.status, 200);
      return r.body as { hits: { id: string }[]; trajectory: { id: string; feedback_token: string } };
    };
    const trendingIds = async (query = '') => {
      await app.activity.flush();
      await app.community.refreshTrending();
      const r = await call('GET', `/v2/documents/trending${query}`, ada.key);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body as { period: string; as_of_at: number | null; documents: { id: string; score: number; activity: { positive_ratings_7d: number }; comments: { comments: number } }[] };
    };

    let h1Comment = 0;

    test('done when: the whole flow, retries change nothing', async () => {
      // Some earlier interest in h2, so h1 has something to climb past.
      await app.storage.activity.record([0, 1, 2, 3, 4].map((i) => ({ documentId: 'h2', kind: 'view' as const, accountId: null, visitor: `v${i}`, at: Math.floor(app.clock.nowMs() / 1000) - 60 })));
      const before = await trendingIds();
      assert.equal(before.documents[0]!.id, 'h2');
      assert.ok(!before.documents.some((d) => d.id === 'h1'));

      // Search and rate two results with the returned token; the retry returns the same event.
      const s = await search(ada.key);
      assert.ok(s.hits.some((h) => h.id === 'h1'));
      const feedback = {
        trajectory_id: s.trajectory.id,
        feedback_token: s.trajectory.feedback_token,
        feedback_id: randomUUID(),
        ratings: [
          { document_id: 'h1', relevance: 3 },
          { document_id: 'h1', relevance: 2, ordinal: 0 },
          { document_id: 'h3', relevance: 1 },
        ],
        comment: 'h1 answered it',
        useful: true,
      };
      const credits = await app.storage.ledger.balance(ada.id);
      const f1 = await call('POST', '/v2/search/feedback', ada.key, feedback);
      assert.equal(f1.status, 200, JSON.stringify(f1.body));
      assert.equal(f1.body.trajectory_id, s.trajectory.id);
      assert.match(f1.body.event_id, /^fb_/);
      const f2 = await call('POST', '/v2/search/feedback', ada.key, feedback);
      assert.deepEqual(f2.body, f1.body);
      assert.equal(await app.storage.ledger.balance(ada.id), credits, 'feedback is not billed');

      // An agent comment with a DOI and a quote: pending until the operator approves the author.
      const comment = {
        trajectory_id: s.trajectory.id,
        feedback_token: s.trajectory.feedback_token,
        comment_id: randomUUID(),
        document_id: 'h1',
        model: 'claude-test-1',
        contribution: 'supports',
        content: 'An independent field test reports the same tightness of salt caverns.',
        evidence: [{ uri: 'https://doi.org/10.1000/XYZ.123', quote: 'no measurable hydrogen loss over 12 months' }, { uri: 'arXiv:2101.00001' }],
      };
      const c1 = await call('POST', '/v2/search/comments', ada.key, comment);
      assert.equal(c1.status, 200, JSON.stringify(c1.body));
      assert.deepEqual({ ...c1.body, comment_id: 0 }, { comment_id: 0, status: 'pending_review', duplicate: false });
      h1Comment = c1.body.comment_id;
      assert.equal((await call('GET', '/v2/documents/h1/comments', ada.key)).body.comments.length, 0, 'pending comments are not shown');
      await app.community.approveAuthor(ada.id);
      const c2 = await call('POST', '/v2/search/comments', ada.key, comment);
      assert.deepEqual(c2.body, { comment_id: h1Comment, status: 'published', duplicate: true });
      assert.equal(await app.storage.ledger.balance(ada.id), credits, 'comments are not billed');

      // A reply from a second account (approved too), then Bob votes, changes his vote, withdraws it.
      await app.community.approveAuthor(bob.id);
      const sb = await search(bob.key);
      const reply = { ...comment, trajectory_id: sb.trajectory.id, feedback_token: sb.trajectory.feedback_token, comment_id: randomUUID(), contribution: 'limitation', content: 'The cited test ran at lower pressure.', reply_to_comment_id: h1Comment };
      const r1 = await call('POST', '/v2/search/comments', bob.key, reply);
      assert.equal(r1.status, 200, JSON.stringify(r1.body));
      assert.equal(r1.body.status, 'published');
      assert.deepEqual(await call('POST', '/v2/search/comments', bob.key, reply).then((r) => r.body), { ...r1.body, duplicate: true });

      const v = (vote: number, key = bob.key) => call('PUT', `/v2/comments/${h1Comment}/vote`, key, { vote });
      assert.deepEqual((await v(1)).body, { comment_id: h1Comment, votes: 1, user_vote: 1 });
      assert.deepEqual((await v(1)).body, { comment_id: h1Comment, votes: 1, user_vote: 1 }, 'a repeated vote changes nothing');
      assert.deepEqual((await v(-1)).body, { comment_id: h1Comment, votes: -1, user_vote: -1 }, 'a new vote replaces the old');
      assert.deepEqual((await call('DELETE', `/v2/comments/${h1Comment}/vote`, bob.key)).body, { comment_id: h1Comment, votes: 0, user_vote: 0 });
      assert.deepEqual((await call('DELETE', `/v2/comments/${h1Comment}/vote`, bob.key)).body, { comment_id: h1Comment, votes: 0, user_vote: 0 });
      // Ada cannot endorse or dispute her own comment (issue 25): 403 forbidden, reason own_comment.
      for (const own of [1, -1]) {
        const r = await v(own, ada.key);
        assert.equal(r.status, 403, JSON.stringify(r.body));
        assert.deepEqual([r.body.detail.code, r.body.detail.reason], ['forbidden', 'own_comment']);
      }
      assert.deepEqual((await v(1, carol.key)).body, { comment_id: h1Comment, votes: 1, user_vote: 1 });
      assert.deepEqual((await v(0, carol.key)).body, { comment_id: h1Comment, votes: 0, user_vote: 0 }, 'vote 0 withdraws too');
      assert.deepEqual((await v(0, ada.key)).body, { comment_id: h1Comment, votes: 0, user_vote: 0 }, 'withdrawing is allowed on one\'s own comment');
      assert.deepEqual((await v(1)).body.votes, 1);

      // The thread: comment then its reply, AI-labelled, with the score and the reader's own vote.
      const thread = await call('GET', '/v2/documents/h1/comments', bob.key);
      assert.equal(thread.status, 200);
      assert.deepEqual(
        thread.body.comments.map((c: Record<string, unknown>) => [c.comment_id, c.reply_to_comment_id, c.depth, c.votes, c.user_vote, c.ai_generated, c.model]),
        [
          [h1Comment, null, 0, 1, 1, true, 'claude-test-1'],
          [r1.body.comment_id, h1Comment, 1, 0, 0, true, 'claude-test-1'],
        ],
      );
      assert.deepEqual(thread.body.comments[0].evidence, [
        { uri: 'doi://10.1000/xyz.123', quote: 'no measurable hydrogen loss over 12 months' },
        { uri: 'arxiv://2101.00001', quote: null },
      ]);

      // The counters moved: two positive ratings of h1 would be one (once per document per feedback).
      await app.activity.flush();
      const act = await call('GET', '/v2/documents/h1/activity', ada.key);
      assert.equal(act.status, 200);
      assert.equal(act.body.positive_ratings_7d, 1);
      assert.equal(act.body.positive_ratings_30d, 1);
      assert.ok(act.body.shown_7d >= 2, 'shown by both searches');
      assert.equal(typeof act.body.as_of_at, 'number');
      assert.deepEqual(act.body.comments, {
        comments: 2,
        comments_7d: 2,
        comments_30d: 2,
        votes: 1,
        contributions: [
          { contribution: 'limitation', comments: 1, votes: 0 },
          { contribution: 'supports', comments: 1, votes: 1 },
        ],
      });
      assert.equal((await call('GET', '/v2/documents/h3/activity', ada.key)).body.positive_ratings_7d, 0, 'relevance 1 is not positive');

      // h1 climbed trending: 3 (rating) + 6 (two comments) = 9 > h2's 5 views.
      const t = await trendingIds();
      assert.equal(t.period, 'week');
      assert.equal(t.documents[0]!.id, 'h1');
      assert.equal(t.documents[0]!.score, 9);
      assert.equal(t.documents[0]!.comments.comments, 2);
      assert.equal(typeof t.as_of_at, 'number');
      assert.deepEqual((await trendingIds('?limit=1')).documents.map((d) => d.id), ['h1']);
      assert.deepEqual((await trendingIds('?period=month&scholarly=true')).documents.map((d) => d.id), ['h1'], 'a review is not paper-like');

      // Retries again, after everything: nothing moves.
      await call('POST', '/v2/search/feedback', ada.key, feedback);
      await call('POST', '/v2/search/comments', ada.key, comment);
      await call('POST', '/v2/search/comments', bob.key, reply);
      await v(1);
      await app.activity.flush();
      const again = await call('GET', '/v2/documents/h1/activity', ada.key);
      assert.equal(again.body.positive_ratings_7d, 1);
      assert.equal(again.body.comments.comments, 2);
      assert.equal(again.body.comments.votes, 1);
    });

    test('trending is not shadowed by /v2/documents/{document_id}; bad limit or period is 422; activity of an unknown document is 404', async () => {
      for (const q of ['?limit=0', '?limit=51', '?period=year', '?limit=abc']) {
        const r = await call('GET', `/v2/documents/trending${q}`, ada.key);
        assert.equal(r.status, 422, q);
        assert.ok(r.headers['x-request-id']);
      }
      assert.equal((await call('GET', '/v2/documents/nope/activity', ada.key)).status, 404);
      assert.equal((await call('GET', '/v2/documents/nope/comments', ada.key)).status, 404);
      assert.equal((await app.http.inject({ method: 'GET', url: '/v2/documents/trending' })).statusCode, 401);
    });

    test('bad feedback: forged, expired, foreign or mismatched tokens are 403; out-of-range ratings 422; nothing stored', async () => {
      const s = await search(ada.key);
      const base = { trajectory_id: s.trajectory.id, feedback_token: s.trajectory.feedback_token, feedback_id: randomUUID(), ratings: [{ document_id: 'h2', relevance: 3 }] };
      const cases: [string, Record<string, unknown>, string, number][] = [
        ['forged', { ...base, feedback_token: s.trajectory.feedback_token.slice(0, -2) + 'xx' }, ada.key, 403],
        ['foreign', base, bob.key, 403],
        ['other trajectory', { ...base, trajectory_id: randomUUID() }, ada.key, 403],
        ['expired', { ...base, feedback_token: signFeedbackToken(app.secret, { trajectoryId: s.trajectory.id, accountId: ada.id, expiresAt: Math.floor(app.clock.nowMs() / 1000) - 1 }) }, ada.key, 403],
        ['relevance 4', { ...base, ratings: [{ document_id: 'h2', relevance: 4 }] }, ada.key, 422],
        ['relevance -1', { ...base, ratings: [{ document_id: 'h2', relevance: -1 }] }, ada.key, 422],
        ['unknown document', { ...base, ratings: [{ document_id: 'zzz', relevance: 3 }] }, ada.key, 422],
        ['unknown property', { ...base, extra: 1 }, ada.key, 422],
        ['unknown rating property', { ...base, ratings: [{ document_id: 'h2', relevance: 3, why: 'x' }] }, ada.key, 422],
      ];
      for (const [name, body, key, status] of cases) {
        const r = await call('POST', '/v2/search/feedback', key, body);
        assert.equal(r.status, status, `${name}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.status, 'error');
        if (status === 403) assert.equal(r.body.detail.code, 'invalid_feedback_token');
      }
      await app.activity.flush();
      assert.equal((await call('GET', '/v2/documents/h2/activity', ada.key)).body.positive_ratings_7d, 0, 'nothing was counted');
    });

    test('bad comments: URIs, quotes, contribution, replies, size, key reuse; bad votes', async () => {
      const s = await search(ada.key);
      const base = {
        trajectory_id: s.trajectory.id,
        feedback_token: s.trajectory.feedback_token,
        comment_id: randomUUID(),
        document_id: 'h2',
        model: 'm',
        contribution: 'related_work',
        content: 'See also.',
        evidence: [{ uri: 'doi://10.1000/abc', quote: 'a quote' }],
      };
      const cases: [string, Record<string, unknown>, number][] = [
        ['bad URI', { ...base, evidence: [{ uri: 'ftp://x/y', quote: 'q' }] }, 400],
        ['no quote', { ...base, evidence: [{ uri: 'doi://10.1000/abc' }, { uri: 'https://example.org/a', quote: '  ' }] }, 422],
        ['no evidence', { ...base, evidence: [] }, 422],
        ['no contribution', { ...base, contribution: undefined }, 422],
        ['unknown contribution', { ...base, contribution: 'praise' }, 422],
        ['oversize', { ...base, content: 'x'.repeat(20_001) }, 422],
        ['reply to another document', { ...base, reply_to_comment_id: h1Comment }, 422],
        ['reply to nothing', { ...base, reply_to_comment_id: 999_999 }, 404],
        ['unknown document', { ...base, document_id: 'zzz' }, 404],
        ['forged token', { ...base, feedback_token: 'abc.def' }, 403],
      ];
      for (const [name, body, status] of cases) {
        const r = await call('POST', '/v2/search/comments', ada.key, body);
        assert.equal(r.status, status, `${name}: ${JSON.stringify(r.body)}`);
      }
      assert.equal((await app.community.pending()).filter((c) => c.documentId === 'h2').length, 0, 'nothing stored');
      const ok = await call('POST', '/v2/search/comments', ada.key, base);
      assert.equal(ok.status, 200);
      const reuse = await call('POST', '/v2/search/comments', ada.key, { ...base, content: 'Something else.' });
      assert.equal(reuse.status, 409);

      for (const vote of [2, -2, 0.5, '1']) assert.equal((await call('PUT', `/v2/comments/${h1Comment}/vote`, bob.key, { vote })).status, 422, String(vote));
      assert.equal((await call('PUT', '/v2/comments/999999/vote', bob.key, { vote: 1 })).status, 404);
      // A removed comment cannot be voted on and leaves the thread with its replies.
      assert.equal(await app.community.removeComment(h1Comment), true);
      assert.equal((await call('PUT', `/v2/comments/${h1Comment}/vote`, bob.key, { vote: 1 })).status, 404);
      assert.equal((await call('GET', '/v2/documents/h1/comments', bob.key)).body.comments.length, 0);
      assert.equal((await call('GET', '/v2/documents/h1/activity', bob.key)).body.comments.comments, 0);
    });
  });
}

onBothStores('community', communitySuite);
