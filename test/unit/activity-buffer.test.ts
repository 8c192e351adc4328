import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActivityBuffer } from '../../src/activity/activity-buffer.js';
import type { ActivityEvent, ActivityStore } from '../../src/ports/activity-store.js';

const ev = (documentId: string): ActivityEvent => ({ documentId, kind: 'shown', accountId: 1, visitor: null, at: 1 });

test('events are held until a flush, then written in one call', async () => {
  const calls: number[] = [];
  const store = { record: async (e: readonly ActivityEvent[]) => void calls.push(e.length), counts: async () => { throw new Error('unused'); }, topOver: async () => [], prune: async () => ({ raw: 0, daily: 0 }) } as ActivityStore;
  const b = new ActivityBuffer(store, () => {});
  await b.record([ev('a'), ev('b')]);
  await b.record([ev('c')]);
  assert.deepEqual(calls, []);
  await b.flush();
  assert.deepEqual(calls, [3]);
  await b.flush();
  assert.deepEqual(calls, [3]);
});

test('a failed flush is reported and its events kept for the next one', async () => {
  let fail = true;
  const written: string[] = [];
  const reports: string[] = [];
  const store = {
    record: async (e: readonly ActivityEvent[]) => {
      if (fail) throw new Error('database is locked');
      written.push(...e.map((x) => x.documentId));
    },
  } as unknown as ActivityStore;
  const b = new ActivityBuffer(store, (_e, ctx) => reports.push(ctx));
  await b.record([ev('a')]);
  await b.flush();
  assert.equal(reports.length, 1);
  await b.record([ev('b')]);
  fail = false;
  await b.flush();
  assert.deepEqual(written, ['a', 'b']);
  assert.equal(b.pending, 0);
});

test('a large flush is written in transactions of at most 1,000 events, yielding between them; a failure keeps only what was not written', async () => {
  const calls: number[] = [];
  let failAt = -1;
  const store = {
    record: async (e: readonly ActivityEvent[]) => {
      if (calls.length === failAt) {
        failAt = -1;
        throw new Error('disk I/O error');
      }
      calls.push(e.length);
    },
  } as unknown as ActivityStore;
  const b = new ActivityBuffer(store, () => {});
  await b.record(Array.from({ length: 2_500 }, (_, i) => ev(`d${i}`)));
  await b.flush();
  assert.deepEqual(calls, [1_000, 1_000, 500]);
  calls.length = 0;
  failAt = 1; // the second chunk fails
  await b.record(Array.from({ length: 2_500 }, (_, i) => ev(`e${i}`)));
  await b.flush();
  assert.deepEqual(calls, [1_000]);
  assert.equal(b.pending, 1_500, 'the failed chunk and the rest are kept, the written one is not');
  await b.flush();
  assert.deepEqual(calls, [1_000, 1_000, 500]);
  assert.equal(b.pending, 0);
});
