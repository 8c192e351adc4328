// The community store contract (ports/community-store.ts): one suite run against the SQLite and
// PostgreSQL stores, including concurrent retries of one feedback_id and one comment_id (exactly
// one record). Callers pass a factory that opens fresh, empty storage.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CommunityStore, NewComment } from '../../src/ports/community-store.js';
import type { StorageFixture } from '../helpers/storage.js';

export type CommunityStoreFactory = () => Promise<{ fixture: StorageFixture; community: CommunityStore }>;

const NOW = 1_800_000_000;
const DAY = 86_400;

const comment = (over: Partial<NewComment> = {}): NewComment => ({
  accountId: 1,
  clientId: 'c-1',
  documentId: 'W1',
  parentId: null,
  model: 'm1',
  contribution: 'supports',
  content: 'Text.',
  evidence: [{ uri: 'doi://10.1000/x', quote: 'q' }],
  status: 'published',
  bodyHash: 'h1',
  at: NOW,
  ...over,
});

export function communityStoreContract(label: string, open: CommunityStoreFactory): void {
  const it = (name: string, fn: (c: CommunityStore) => Promise<void>) =>
    test(name, async () => {
      const { fixture, community } = await open();
      try {
        await fn(community);
      } finally {
        await fixture.dispose();
      }
    });

  describe(`community store contract: ${label}`, () => {
    it('feedback: 20 concurrent retries of one feedback_id store exactly one record', async (c) => {
      const rs = await Promise.all(
        Array.from({ length: 20 }, (_, i) => c.recordFeedback({ accountId: 1, feedbackId: 'f-1', eventId: `fb_${i}`, trajectoryId: 't1', body: { ratings: [] }, at: NOW })),
      );
      assert.equal(rs.filter((r) => !r.duplicate).length, 1);
      assert.equal(new Set(rs.map((r) => r.eventId)).size, 1);
      // Another account may use the same feedback_id.
      assert.equal((await c.recordFeedback({ accountId: 2, feedbackId: 'f-1', eventId: 'fb_x', trajectoryId: 't2', body: {}, at: NOW })).duplicate, false);
    });

    it('feedbackSince: stored feedback oldest first with its body, filtered by time and paged by key', async (c) => {
      const body = { ratings: [{ documentId: 'W1', relevance: 3, ordinal: null }], query: 'graphene', indexNames: ['documents'] };
      await c.recordFeedback({ accountId: 2, feedbackId: 'b', eventId: 'e1', trajectoryId: 't1', body, at: NOW });
      await c.recordFeedback({ accountId: 1, feedbackId: 'z', eventId: 'e2', trajectoryId: 't2', body: {}, at: NOW });
      await c.recordFeedback({ accountId: 2, feedbackId: 'a', eventId: 'e3', trajectoryId: 't3', body: {}, at: NOW });
      await c.recordFeedback({ accountId: 1, feedbackId: 'old', eventId: 'e4', trajectoryId: 't4', body: {}, at: NOW - DAY });
      const all = await c.feedbackSince(0, 10);
      assert.deepEqual(all.map((f) => `${f.at - NOW}/${f.accountId}/${f.feedbackId}`), [`${-DAY}/1/old`, '0/1/z', '0/2/a', '0/2/b']);
      assert.deepEqual(all[3], { accountId: 2, feedbackId: 'b', trajectoryId: 't1', body, at: NOW });
      assert.deepEqual((await c.feedbackSince(NOW, 10)).map((f) => f.feedbackId), ['z', 'a', 'b']);
      const first = await c.feedbackSince(0, 2);
      const last = first[first.length - 1]!;
      const next = await c.feedbackSince(0, 2, { at: last.at, accountId: last.accountId, feedbackId: last.feedbackId });
      assert.deepEqual([...first, ...next].map((f) => f.feedbackId), ['old', 'z', 'a', 'b']);
      assert.deepEqual(await c.feedbackSince(NOW + 1, 10), []);
    });

    it('comments: 20 concurrent retries of one comment_id store exactly one comment', async (c) => {
      const rs = await Promise.all(Array.from({ length: 20 }, () => c.insertComment(comment())));
      assert.equal(rs.filter((r) => !r.duplicate).length, 1);
      assert.equal(new Set(rs.map((r) => r.comment.id)).size, 1);
      const stored = await c.getComment(rs[0]!.comment.id);
      const { at, ...fields } = comment();
      assert.deepEqual(stored, { ...fields, id: rs[0]!.comment.id, createdAt: at });
      assert.equal((await c.visibleComments('W1', null)).length, 1);
      assert.equal(await c.getComment(9_999), null);
    });

    it('votes: one per account, replaced, withdrawn; scores and the viewer vote in the thread', async (c) => {
      const { comment: a } = await c.insertComment(comment());
      assert.equal(await c.setVote(a.id, 7, 1), 1);
      assert.equal(await c.setVote(a.id, 7, 1), 1);
      assert.equal(await c.setVote(a.id, 8, -1), 0);
      assert.equal(await c.setVote(a.id, 7, -1), -2);
      assert.equal(await c.setVote(a.id, 7, 0), -1);
      assert.equal(await c.setVote(a.id, 7, 0), -1);
      const [t] = await c.visibleComments('W1', 8);
      assert.equal(t!.votes, -1);
      assert.equal(t!.userVote, -1);
      assert.equal((await c.visibleComments('W1', 7))[0]!.userVote, 0);
    });

    it('moderation: pending until approved; removal hides replies; stats count visible comments only', async (c) => {
      const { comment: top } = await c.insertComment(comment({ clientId: 'a', status: 'pending_review', accountId: 3 }));
      const { comment: reply } = await c.insertComment(comment({ clientId: 'b', parentId: top.id, contribution: 'limitation', at: NOW - 10 * DAY }));
      await c.insertComment(comment({ clientId: 'c', contribution: 'limitation', at: NOW - 2 * DAY }));
      assert.equal(await c.authorState(3), 'pending');
      assert.deepEqual((await c.pendingComments(10)).map((x) => x.id), [top.id]);
      assert.equal((await c.visibleComments('W1', null)).length, 1, 'a reply under a pending comment is hidden');
      await c.setAuthorState(3, 'approved', NOW);
      assert.equal(await c.authorState(3), 'approved');
      assert.equal((await c.getComment(top.id))!.status, 'published');
      await c.setVote(reply.id, 9, 1);
      assert.deepEqual(await c.commentStats('W1', NOW), {
        comments: 3,
        comments7d: 2,
        comments30d: 3,
        votes: 1,
        contributions: [
          { contribution: 'limitation', comments: 2, votes: 1 },
          { contribution: 'supports', comments: 1, votes: 0 },
        ],
      });
      assert.deepEqual([...(await c.commentsPostedSince(NOW - 7 * DAY))], [['W1', 2]]);
      assert.equal(await c.setCommentStatus(top.id, 'removed'), true);
      assert.equal(await c.setCommentStatus(9_999, 'removed'), false);
      assert.equal((await c.commentStats('W1', NOW)).comments, 1, 'the removed comment and its reply are gone');
      await c.setAuthorState(1, 'pending', NOW);
      assert.equal((await c.commentStats('W1', NOW)).comments, 0, 'suspending an author returns their comments to review');
    });
  });
}
