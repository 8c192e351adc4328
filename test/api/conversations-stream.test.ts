// Issue 26, "progressive events on both stores": each stream event leaves the server when its stage
// ends, not with the result. Tested by condition, not by timing: the client runs in a worker thread
// and reads the stream over a real socket; the answerer (a test double of a hosted model) blocks the
// server's main thread until that client has received the `answering` event. Unless accepted,
// classified, searching, retrieved and answering were flushed before the answer is computed, the
// client never sees them while the answerer waits, and the wait runs into its ceiling. On SQLite (the
// default store, whose calls do not yield to the event loop) and PostgreSQL (DATABASE_URL).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import type { ChatModel, ChatModelRegistry, ChatRequest } from '../../src/ports/chat-model.js';
import { createTestSchema, databaseUrl, postgresSkip } from '../helpers/storage.js';

type OpenedStorage = NonNullable<Parameters<typeof testApp>[1]>['storage'];

/** Ceiling of the answerer's wait for the client (generous: a loaded machine still passes). */
const WAIT_CEILING_MS = 60_000;

/** Blocks the main thread (synchronously, as CPU-bound work would) until the client has seen `answering`. */
class BlockingModel implements ChatModel {
  flag = new Int32Array(new SharedArrayBuffer(4));
  outcome: string | null = null;
  async complete(r: ChatRequest) {
    this.outcome = Atomics.wait(this.flag, 0, 0, WAIT_CEILING_MS);
    const text = 'Salt caverns offer tight storage for hydrogen gas [1].';
    r.onDelta?.(text);
    return { text, model: 'blocking-1', inputTokens: null, outputTokens: null };
  }
}

/** The client: reads the SSE stream, records each event, raises the flag on `answering`. */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const { port, key, flag } = workerData;
const f = new Int32Array(flag);
(async () => {
  const events = [];
  const res = await fetch('http://127.0.0.1:' + port + '/v2/conversations/stream', { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'hydrogen salt caverns', llm_config: { model_name: 'blocking' } }) });
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    buf += dec.decode(r.value, { stream: true });
    const parts = buf.split('\\n\\n');
    buf = parts.pop();
    for (const p of parts) {
      const kind = /^event: (.*)$/m.exec(p)[1];
      events.push(kind);
      if (kind === 'answering') { Atomics.store(f, 0, 1); Atomics.notify(f, 0); }
    }
  }
  parentPort.postMessage({ status: res.status, events });
})().catch((e) => parentPort.postMessage({ error: String(e) }));
`;

function scenarios(label: string, openStorage: () => Promise<{ storage: OpenedStorage; drop: () => Promise<void> }>) {
  describe(`progressive stream events: ${label}`, () => {
    let app: TestApp;
    let drop: () => Promise<void>;
    let port: number;
    const model = new BlockingModel();
    const registry: ChatModelRegistry = { resolve: (n) => (n === 'blocking' ? { model, providerModel: 'blocking-1', contextTokens: 8000 } : null), names: () => ['blocking'] };
    before(async () => {
      const s = await openStorage();
      drop = s.drop;
      app = await testApp({}, { chatModels: registry, ...(s.storage ? { storage: s.storage } : {}) });
      await seed(app, [doc('h1', { title: 'Hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas. Cushion gas keeps the pressure stable.', language: 'en' })]);
      await app.indexes!.catchUp();
      await app.http.listen({ port: 0, host: '127.0.0.1' });
      port = (app.http.server.address() as AddressInfo).port;
    });
    after(async () => {
      await app.dispose();
      await drop();
    });

    test('every stage event reaches the client before the answer is computed', { timeout: 180_000 }, async () => {
      const a = await app.account({ credits: 10_000 });
      const worker = new Worker(CLIENT, { eval: true, workerData: { port, key: a.key, flag: model.flag.buffer } });
      const out = await new Promise<{ status?: number; events?: string[]; error?: string }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      await worker.terminate();
      assert.equal(out.error, undefined, out.error);
      assert.equal(out.status, 200);
      assert.deepEqual(out.events!.slice(0, 5), ['accepted', 'classified', 'searching', 'retrieved', 'answering']);
      assert.equal(out.events!.at(-1), 'result');
      // 'ok': woken by the client; 'not-equal': the client had raised the flag before the answerer
      // looked. Either way it had the stage events before the answer was computed; 'timed-out': it had not.
      assert.ok(model.outcome === 'ok' || model.outcome === 'not-equal', `the client received the stage events while the answer was being computed (not at its end): ${model.outcome}`);
    });
  });
}

scenarios('SQLite', async () => ({ storage: undefined, drop: async () => {} }));
if (!databaseUrl) test('progressive stream events on PostgreSQL', { skip: postgresSkip('stream events on PostgreSQL') }, () => {});
else {
  scenarios('PostgreSQL', async () => {
    const schema = await createTestSchema(databaseUrl!);
    return { storage: await openPostgresStorage(schema.url, { max: 4 }), drop: () => schema.drop() };
  });
}
