// Issue 26, "turns keep their order": follow-ups sent at once to one conversation are answered one at a
// time, in turn (ADR 0225), on SQLite and on PostgreSQL (DATABASE_URL). 10 concurrent follow-ups through
// a slow model (each answer takes a while, so unserialised turns would interleave): the stored steps
// alternate question, answer; each answer belongs to the question before it and saw every earlier turn
// in its history; each charge matches one stored answer. Edits sent during turns take their turn too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import type { ChatModel, ChatModelRegistry, ChatRequest } from '../../src/ports/chat-model.js';
type OpenedStorage = NonNullable<Parameters<typeof testApp>[1]>['storage'];
import { createTestSchema, databaseUrl, postgresSkip } from '../helpers/storage.js';

const TURN = 100;
const EDIT = 100;

/** A model that answers after a pause and tells which question it answered and how much history it saw. */
class SlowModel implements ChatModel {
  inFlight = 0;
  maxInFlight = 0;
  async complete(r: ChatRequest) {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise((res) => setTimeout(res, 5 + Math.floor(Math.random() * 25)));
      const question = /Question: (.*)$/s.exec(r.messages.at(-1)!.content)![1]!.trim();
      const seen = r.messages.filter((m) => m.role === 'user').length - 1;
      const text = `Answer to ${question} after ${seen} turns. Salt caverns offer tight storage for hydrogen gas [1].`;
      r.onDelta?.(text);
      return { text, model: 'slow-1', inputTokens: null, outputTokens: null };
    } finally {
      this.inFlight--;
    }
  }
}

function scenarios(label: string, openStorage: () => Promise<{ storage: OpenedStorage; drop: () => Promise<void> }>) {
  describe(`concurrent turns on one conversation: ${label}`, () => {
    let app: TestApp;
    let drop: () => Promise<void>;
    const model = new SlowModel();
    const registry: ChatModelRegistry = { resolve: (n) => (n === 'slow' ? { model, providerModel: 'slow-1', contextTokens: 8000 } : null), names: () => ['slow'] };
    before(async () => {
      const s = await openStorage();
      drop = s.drop;
      app = await testApp({ rateLimits: { conversations: { capacity: 1000, refillPerSecond: 1000 } } } as never, { chatModels: registry, ...(s.storage ? { storage: s.storage } : {}) });
      await seed(app, [
        doc('h1', { title: 'Hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas. Cushion gas keeps the pressure stable.', language: 'en' }),
        doc('h2', { title: 'Hydrogen in depleted reservoirs', abstract: 'Depleted reservoirs can store hydrogen at large scale.', language: 'en' }),
      ]);
      await app.indexes!.catchUp();
    });
    after(async () => {
      await app.dispose();
      await drop();
    });

    test('10 follow-ups sent at once: steps alternate Q A, each answer follows its question and saw every earlier turn, one charge per stored answer', { timeout: 120_000 }, async () => {
      const a = await app.account({ credits: 100_000 });
      const post = (body: object) => app.http.inject({ method: 'POST', url: '/v2/conversations/', headers: { 'x-api-key': a.key }, payload: { llm_config: { model_name: 'slow' }, ...body } });
      const first = await post({ query: 'hydrogen storage q0' });
      assert.equal(first.statusCode, 200, first.body);
      const id = first.json().conversation_id;
      const rs = await Promise.all(Array.from({ length: 10 }, (_, i) => post({ query: `hydrogen caverns q${i + 1}`, conversation_id: id })));
      for (const r of rs) assert.equal(r.statusCode, 200, r.body);
      assert.equal(model.maxInFlight, 1, 'one answer at a time on one conversation');
      const full = (await app.http.inject({ method: 'GET', url: `/v2/conversations/${id}`, headers: { 'x-api-key': a.key } })).json();
      const steps = full.conversation_steps as { kind: string; id: number; query?: string; answer?: string }[];
      assert.equal(steps.length, 22);
      for (let i = 0; i < steps.length; i += 2) {
        assert.deepEqual([steps[i]!.kind, steps[i + 1]!.kind, steps[i]!.id, steps[i + 1]!.id], ['request', 'response', i, i + 1]);
        const q = steps[i]!.query!;
        // The model sees at most the last 3 earlier turns (llm-answerer): every one it could see, it saw.
        assert.match(steps[i + 1]!.answer!, new RegExp(`^Answer to ${q} after ${Math.min(3, i / 2)} turns`), `step ${i + 1} answers step ${i}`);
      }
      // Each response returned to its client is the one stored for its question.
      for (const r of rs) {
        const body = r.json();
        assert.equal(steps[body.id]!.kind, 'response');
        assert.equal(steps[body.id]!.answer, body.answer);
      }
      await app.billing.idle();
      const charges = (await app.storage.ledger.entries(a.id, 1000)).filter((e) => e.amount < 0);
      assert.equal(charges.length, 11, 'one charge per stored answer');
      assert.ok(charges.every((e) => e.amount === -TURN));
      assert.equal(await app.billing.balance(a.id), 100_000 - 11 * TURN);
    });

    test('a conversation deleted while a turn waits for it: that turn is 404 and charges nothing', { timeout: 120_000 }, async () => {
      const a = await app.account({ credits: 100_000 });
      const headers = { 'x-api-key': a.key };
      const post = (body: object) => app.http.inject({ method: 'POST', url: '/v2/conversations/', headers, payload: { llm_config: { model_name: 'slow' }, ...body } });
      const id = (await post({ query: 'hydrogen storage d0' })).json().conversation_id;
      const running = post({ query: 'hydrogen d1', conversation_id: id });
      const waiting = post({ query: 'hydrogen d2', conversation_id: id });
      const deleted = app.http.inject({ method: 'DELETE', url: `/v2/conversations/${id}`, headers });
      const [r1, r2, d] = await Promise.all([running, waiting, deleted]);
      assert.equal(d.statusCode, 200);
      for (const r of [r1, r2]) assert.ok([200, 404].includes(r.statusCode), `${r.statusCode} ${r.body}`);
      await app.billing.idle();
      const charged = (await app.storage.ledger.entries(a.id, 100)).filter((e) => e.amount < 0).length;
      assert.equal(charged, 1 + [r1, r2].filter((r) => r.statusCode === 200).length, 'only answered turns are charged');
    });

    test('an edit sent amid follow-ups waits its turn; the conversation stays in pairs', { timeout: 120_000 }, async () => {
      const a = await app.account({ credits: 100_000 });
      const post = (body: object) => app.http.inject({ method: 'POST', url: '/v2/conversations/', headers: { 'x-api-key': a.key }, payload: { llm_config: { model_name: 'slow' }, ...body } });
      const first = await post({ query: 'hydrogen storage e0' });
      const id = first.json().conversation_id;
      const edit = app.http.inject({ method: 'PUT', url: `/v2/conversations/${id}/edit-step/0`, headers: { 'x-api-key': a.key }, payload: { new_query: 'hydrogen caverns edited' } });
      const rs = await Promise.all([post({ query: 'hydrogen e1', conversation_id: id }), edit, post({ query: 'hydrogen e2', conversation_id: id })]);
      for (const r of rs) assert.equal(r.statusCode, 200, r.body);
      const steps = (await app.http.inject({ method: 'GET', url: `/v2/conversations/${id}`, headers: { 'x-api-key': a.key } })).json().conversation_steps as { kind: string; query?: string; answer?: string }[];
      assert.equal(steps.length % 2, 0);
      for (let i = 0; i < steps.length; i += 2) {
        assert.deepEqual([steps[i]!.kind, steps[i + 1]!.kind], ['request', 'response']);
        assert.ok(steps[i + 1]!.answer!.startsWith(`Answer to ${steps[i]!.query}`));
      }
      assert.equal(steps[0]!.query, 'hydrogen caverns edited');
      await app.billing.idle();
      assert.equal(await app.billing.balance(a.id), 100_000 - 3 * TURN - EDIT);
    });
  });
}

scenarios('SQLite', async () => ({ storage: undefined, drop: async () => {} }));
if (!databaseUrl) test('concurrent turns on PostgreSQL', { skip: postgresSkip('concurrent turns on PostgreSQL') }, () => {});
else {
  scenarios('PostgreSQL', async () => {
    const schema = await createTestSchema(databaseUrl!);
    return { storage: await openPostgresStorage(schema.url, { max: 4 }), drop: () => schema.drop() };
  });
}
