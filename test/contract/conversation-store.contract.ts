// The conversation store contract (ports/conversation-store.ts): one suite run against the SQLite and
// PostgreSQL stores. Callers pass a factory that opens fresh, empty storage.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RequestStepData, ResponseStepData } from '../../src/domain/conversation.js';
import type { ConversationStore } from '../../src/ports/conversation-store.js';
import type { Storage } from '../../src/ports/storage.js';
import type { StorageFixture } from '../helpers/storage.js';

export type ConversationStoreFactory = () => Promise<{ fixture: StorageFixture; conversations: ConversationStore }>;

const request = (query: string): RequestStepData => ({ query, modelName: 'lectern-extractive', maxContextLength: null, documentIds: ['d1'], limit: 5, maxModelDocuments: null, sourcesFilters: { types: ['review'] }, sourcesLiteralFilters: null, resolvedSourcesLiteralFilters: null });
const response = (answer: string): ResponseStepData => ({
  answer,
  citations: [{ citationIndex: 0, documentIndex: 1, excerpt: 'Salt caverns are tight.', snippetIndex: 0 }],
  modelName: 'lectern-extractive',
  query: { originalQuery: 'q', reformulatedQuery: 'q', keywords: ['q'], classifiedAspects: [], date: [1, 2], dateExpression: 'since 2020', isRecent: false, isEvent: false, contentType: null, queryLanguage: 'en', relatedQueries: [], title: null },
  queryDetails: { queries: ['q'], query: 'q', retrieved: 1, compared: 1, selected: 1, planningFallback: false, rankingFallback: false },
  documents: [{ documentId: 'd1', source: 'documents', score: 1.5, pinned: false, snippets: [{ field: 'abstract', text: 'Salt caverns are tight.', chunkId: null, score: 1, source: { startChar: 0, endChar: 23, fieldLength: 23 }, highlights: [{ start: 0, end: 4 }], sourceHighlights: [] }] }],
  trajectoryId: 't1',
});

export function conversationStoreContract(label: string, open: ConversationStoreFactory): void {
  const it = (name: string, fn: (c: ConversationStore, s: Storage) => Promise<void>) =>
    test(name, async () => {
      const { fixture, conversations } = await open();
      try {
        await fn(conversations, fixture.storage);
      } finally {
        await fixture.dispose();
      }
    });
  const conv = (id: string, accountId: number, createdAt = 100) => ({ id, slug: `slug-${id}`, accountId, title: `T ${id}`, preview: null, query: 'q', createdAt });

  describe(`conversation store contract: ${label}`, () => {
    it('create, then get by id and by slug with every field', async (c, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const created = await c.create(conv('00000000-0000-4000-8000-000000000001', a.id));
      assert.deepEqual(created, { id: '00000000-0000-4000-8000-000000000001', slug: 'slug-00000000-0000-4000-8000-000000000001', accountId: a.id, title: 'T 00000000-0000-4000-8000-000000000001', preview: null, query: 'q', isShared: false, createdAt: 100, updatedAt: 100 });
      assert.deepEqual(await c.get(created.id), created);
      assert.deepEqual(await c.get(created.slug), created);
      assert.equal(await c.get('nope'), null);
      await assert.rejects(c.create(conv('00000000-0000-4000-8000-000000000001', a.id)));
    });

    it('steps append at dense positions, round-trip their data, are replaced and truncated', async (c, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      await c.create(conv('c1', a.id));
      assert.equal(await c.appendStep('c1', { kind: 'request', data: request('first') }), 0);
      assert.equal(await c.appendStep('c1', { kind: 'response', data: response('one') }), 1);
      assert.equal(await c.appendStep('c1', { kind: 'request', data: request('second') }), 2);
      const steps = await c.steps('c1');
      assert.deepEqual(steps.map((x) => [x.position, x.kind]), [[0, 'request'], [1, 'response'], [2, 'request']]);
      assert.deepEqual(steps[0]!.data, request('first'));
      assert.deepEqual(steps[1]!.data, response('one'));
      await c.replaceStep('c1', 0, { kind: 'request', data: request('edited') });
      await c.truncateSteps('c1', 1);
      const after = await c.steps('c1');
      assert.equal(after.length, 1);
      assert.equal((after[0]!.data as RequestStepData).query, 'edited');
      assert.equal(await c.appendStep('c1', { kind: 'response', data: response('two') }), 1);
    });

    it('concurrent appends get distinct positions', async (c, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      await c.create(conv('c1', a.id));
      const positions = await Promise.all(Array.from({ length: 8 }, (_, i) => c.appendStep('c1', { kind: 'request', data: request(`q${i}`) })));
      assert.deepEqual([...positions].sort((x, y) => x - y), [0, 1, 2, 3, 4, 5, 6, 7]);
    });

    it('lists an account’s conversations newest first, paged; other accounts are not listed', async (c, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const b = await s.accounts.create({ email: 'bob@example.org' });
      for (const id of ['c1', 'c2', 'c3']) await c.create(conv(id, a.id, 100));
      await c.create(conv('b1', b.id));
      assert.deepEqual((await c.listForAccount(a.id, 10, 0)).map((x) => x.id), ['c3', 'c2', 'c1']);
      assert.deepEqual((await c.listForAccount(a.id, 2, 2)).map((x) => x.id), ['c1']);
      assert.deepEqual((await c.listForAccount(b.id, 10, 0)).map((x) => x.id), ['b1']);
    });

    it('update patches only what is given; delete removes the conversation and its steps', async (c, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      await c.create(conv('c1', a.id));
      await c.appendStep('c1', { kind: 'request', data: request('first') });
      const shared = await c.update('c1', { isShared: true, updatedAt: 200 });
      assert.equal(shared!.isShared, true);
      assert.equal(shared!.title, 'T c1');
      const titled = await c.update('c1', { title: 'New', preview: 'p', updatedAt: 300 });
      assert.deepEqual([titled!.isShared, titled!.title, titled!.preview, titled!.updatedAt], [true, 'New', 'p', 300]);
      assert.equal(await c.update('nope', { isShared: true, updatedAt: 1 }), null);
      assert.equal(await c.delete('c1'), true);
      assert.equal(await c.get('c1'), null);
      assert.deepEqual(await c.steps('c1'), []);
      assert.equal(await c.delete('c1'), false);
    });

    it('a conversation is created with its first turn in one transaction, or not at all', async (c, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const created = await c.createWithTurn(conv('c1', a.id), { kind: 'request', data: request('q0') }, { kind: 'response', data: response('a0') });
      assert.deepEqual(await c.get('c1'), created);
      assert.deepEqual((await c.steps('c1')).map((x) => [x.position, x.kind]), [[0, 'request'], [1, 'response']]);
      // The same id again fails as a whole: no second conversation, no steps added.
      await assert.rejects(c.createWithTurn(conv('c1', a.id), { kind: 'request', data: request('q1') }, { kind: 'response', data: response('a1') }));
      assert.equal((await c.steps('c1')).length, 2);
      // An unknown account fails at the conversation: no steps are left behind.
      await assert.rejects(c.createWithTurn(conv('c2', 999_999), { kind: 'request', data: request('q') }, { kind: 'response', data: response('a') }));
      assert.equal(await c.get('c2'), null);
      assert.deepEqual(await c.steps('c2'), []);
    });

    it('a turn appends its request and response together; concurrent turns stay in pairs; an edit rewrites the tail at once', async (c, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      await c.create(conv('c1', a.id));
      assert.equal(await c.appendTurn('c1', { kind: 'request', data: request('q0') }, { kind: 'response', data: response('a0') }), 1);
      await Promise.all(Array.from({ length: 6 }, (_, i) => c.appendTurn('c1', { kind: 'request', data: request(`q${i + 1}`) }, { kind: 'response', data: response(`a${i + 1}`) })));
      const steps = await c.steps('c1');
      assert.equal(steps.length, 14);
      for (let i = 0; i < steps.length; i += 2) {
        assert.deepEqual([steps[i]!.kind, steps[i + 1]!.kind], ['request', 'response']);
        const q = (steps[i]!.data as RequestStepData).query;
        assert.equal((steps[i + 1]!.data as ResponseStepData).answer, `a${q.slice(1)}`, 'each answer follows its own question');
      }
      await c.rewriteFrom('c1', 2, [
        { kind: 'request', data: request('edited') },
        { kind: 'response', data: response('new') },
      ]);
      assert.deepEqual((await c.steps('c1')).map((x) => x.kind), ['request', 'response', 'request', 'response']);
      assert.equal(((await c.steps('c1'))[2]!.data as RequestStepData).query, 'edited');
      // A failing transaction changes nothing: the turn's conversation does not exist.
      await assert.rejects(c.appendTurn('nope', { kind: 'request', data: request('x') }, { kind: 'response', data: response('x') }));
    });

    it('the turn lease: one holder, renewed by it, free after release or once it has run out', async (c, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      await c.create(conv('c1', a.id));
      assert.equal(await c.acquireTurn('c1', { token: 't0', untilMs: 1_000 }, 0), true, 'free');
      assert.equal(await c.acquireTurn('c1', { token: 't1', untilMs: 2_000 }, 500), false, 'held by t0');
      assert.equal(await c.acquireTurn('c1', { token: 't1', untilMs: 2_000 }, 1_001), true, 't0\'s lease ran out');
      assert.equal(await c.acquireTurn('c1', { token: 't2', untilMs: 3_000 }, 1_500), false);
      assert.equal(await c.renewTurn('c1', { token: 't1', untilMs: 5_000 }), true);
      assert.equal(await c.acquireTurn('c1', { token: 't2', untilMs: 6_000 }, 4_000), false, 'renewed');
      await c.releaseTurn('c1', 't2');
      assert.equal(await c.acquireTurn('c1', { token: 't2', untilMs: 6_000 }, 4_000), false, 'only the holder releases');
      await c.releaseTurn('c1', 't1');
      assert.equal(await c.renewTurn('c1', { token: 't1', untilMs: 5_000 }), false);
      assert.equal(await c.acquireTurn('c1', { token: 't2', untilMs: 6_000 }, 4_000), true);
    });

    it('start-up repair removes trailing questions without answers and empty conversations whose lease is free', async (c, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      await c.create(conv('ok', a.id));
      await c.appendTurn('ok', { kind: 'request', data: request('q') }, { kind: 'response', data: response('a') });
      await c.create(conv('dangling', a.id));
      await c.appendTurn('dangling', { kind: 'request', data: request('q') }, { kind: 'response', data: response('a') });
      await c.appendStep('dangling', { kind: 'request', data: request('q2') });
      await c.appendStep('dangling', { kind: 'request', data: request('q3') });
      await c.create(conv('empty', a.id));
      await c.create(conv('live', a.id));
      assert.equal(await c.acquireTurn('live', { token: 'alive', untilMs: 10_000 }, 0), true);
      await c.create(conv('live2', a.id));
      await c.appendStep('live2', { kind: 'request', data: request('q') });
      assert.equal(await c.acquireTurn('live2', { token: 'alive2', untilMs: 10_000 }, 0), true);
      assert.deepEqual(await c.repairInterrupted(5_000, false), { danglingRequests: 2, emptyConversations: 1 });
      assert.deepEqual((await c.steps('dangling')).map((x) => x.kind), ['request', 'response']);
      assert.equal((await c.steps('ok')).length, 2);
      assert.equal(await c.get('empty'), null);
      assert.ok(await c.get('live'), 'a live lease is left alone');
      assert.equal((await c.steps('live2')).length, 1);
      // A store one process owns: every lease is stale.
      assert.deepEqual(await c.repairInterrupted(5_000, true), { danglingRequests: 1, emptyConversations: 2 });
      assert.equal(await c.get('live'), null);
    });
  });
}
