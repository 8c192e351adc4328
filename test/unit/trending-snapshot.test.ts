// Trending is served from a snapshot: requests never read the activity store; the snapshot is rebuilt
// only when due (60 s), scored by the interface's weights (comments included), scholarly-filtered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommunityService, TRENDING_REFRESH_MS } from '../../src/community/index.js';
import type { ActivityStore, ActivityTotals } from '../../src/ports/activity-store.js';
import type { CommunityStore } from '../../src/ports/community-store.js';
import type { DocumentStore } from '../../src/ports/document-store.js';
import type { StoredDocument } from '../../src/domain/document.js';
import { testClock } from '../helpers/app.js';

test('trending: one scan per refresh, not per request; weights, comments and the scholarly filter', async () => {
  let scans = 0;
  const totals: ActivityTotals[] = [
    { documentId: 'a', views: 10, shown: 100, agentReads: 0, aiCitations: 0, positiveRatings: 0 }, // 10
    { documentId: 'b', views: 1, shown: 0, agentReads: 2, aiCitations: 1, positiveRatings: 1 }, // 1 + 4 + 3 + 3 = 11
    { documentId: 'gone', views: 50, shown: 0, agentReads: 0, aiCitations: 0, positiveRatings: 0 }, // not in the store
  ];
  const activityStore = {
    topOver: async () => (scans++, totals),
    counts: async (documentId: string) => ({ documentId, views7d: 0, views30d: 0, shown7d: 0, shown30d: 0, agentReads7d: 0, agentReads30d: 0, aiCitations7d: 0, aiCitations30d: 0, positiveRatings7d: 0, positiveRatings30d: 0, asOfAt: 1 }),
  } as unknown as ActivityStore;
  const store = {
    commentsPostedSince: async () => new Map([['c', 4]]), // 12
    commentStats: async () => ({ comments: 0, comments7d: 0, comments30d: 0, votes: 0, contributions: [] }),
  } as unknown as CommunityStore;
  const types: Record<string, string> = { a: 'journal-article', b: 'review', c: 'preprint' };
  const documents = {
    getMany: async (ids: readonly string[]) => new Map(ids.filter((id) => types[id]).map((id) => [id, { id, type: types[id], uris: [] } as unknown as StoredDocument])),
  } as unknown as DocumentStore;
  const clock = testClock();
  const svc = new CommunityService({ store, activityStore, activity: { record: async () => {} }, documents, clock, secret: 's', report: () => {} });

  const week = await svc.trending('week', 50, false);
  assert.deepEqual(week.documents.map((d) => [d.document.id, d.score]), [['c', 12], ['b', 11], ['a', 10]]);
  assert.equal(week.asOfAt, Math.floor(clock.nowMs() / 1000));
  assert.deepEqual((await svc.trending('month', 50, true)).documents.map((d) => d.document.id), ['c', 'a']);
  assert.deepEqual((await svc.trending('week', 1, false)).documents.map((d) => d.document.id), ['c']);
  const after = scans;
  for (let i = 0; i < 20; i++) await svc.trending('week', 20, false);
  assert.equal(scans, after, 'requests read the snapshot');
  await svc.refreshTrendingIfDue();
  assert.equal(scans, after, 'not due yet');
  clock.advance(TRENDING_REFRESH_MS);
  await svc.refreshTrendingIfDue();
  assert.equal(scans, after + 2, 'one scan per period');
  await assert.rejects(svc.trending('week', 51, false), /limit/);
  await assert.rejects(svc.trending('week', 0, false), /limit/);
});
