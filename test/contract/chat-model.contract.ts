// The ChatModel port's contract, run against each provider client over its local fake server: the same
// answer streamed and not, the caller's key for one call (else the configured key), provider errors and
// timeouts mapped to upstream_error / upstream_timeout naming provider and status without the key,
// malformed and truncated streams refused, and the caller's AbortSignal honoured mid-stream.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/domain/errors.js';
import type { ChatModel, ChatRequest } from '../../src/ports/chat-model.js';
import type { FakeProvider } from '../helpers/fake-llm-servers.js';
import { ceiling, waitFor } from '../helpers/wait.js';

const CALLER_KEY = 'sk-caller-0123456789abcdef';
const CONFIGURED_KEY = 'sk-configured-fedcba9876543210';

export interface ChatModelFixture {
  fake: FakeProvider;
  /** A client for the fake, with the configured key and this idle timeout. */
  model(timeoutMs: number): ChatModel;
  /** The key the fake received on its last request. */
  lastKey(): string | undefined;
}

export function chatModelContract(label: string, open: () => Promise<ChatModelFixture>): void {
  describe(`ChatModel contract: ${label}`, () => {
    let fx: ChatModelFixture;
    let model: ChatModel;
    before(async () => {
      fx = await open();
      model = fx.model(2000);
    });
    after(() => fx.fake.close());
    beforeEach(() => {
      fx.fake.requests = [];
      fx.fake.clientAborted = false;
    });

    const req = (over: Partial<ChatRequest> = {}): ChatRequest => ({
      model: 'm-1',
      system: 'Answer from the passages; cite them as [n].',
      messages: [
        { role: 'user', content: 'What is in salt caverns?' },
        { role: 'assistant', content: 'Hydrogen [1].' },
        { role: 'user', content: 'And in mice?' },
      ],
      maxOutputTokens: 300,
      apiKey: null,
      signal: new AbortController().signal,
      ...over,
    });

    /** Asserts an AppError of `code` whose message names the provider and contains no key. */
    async function rejectsWith(p: Promise<unknown>, code: 'upstream_error' | 'upstream_timeout', pattern?: RegExp): Promise<AppError> {
      const err = await p.then(
        () => assert.fail('expected a rejection'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof AppError, `AppError, got ${String(err)}`);
      assert.equal(err.code, code, err.message);
      assert.equal(err.status, code === 'upstream_error' ? 502 : 504);
      assert.match(err.message, new RegExp(fx.fake.provider));
      if (pattern) assert.match(err.message, pattern);
      const all = JSON.stringify({ m: err.message, extra: err.extra, stack: err.stack });
      assert.ok(!all.includes(CALLER_KEY) && !all.includes(CONFIGURED_KEY), `no key in the error: ${err.message}`);
      return err;
    }

    test('non-streamed: the whole text, the served model and token counts; the prompt reaches the provider', async () => {
      fx.fake.mode = { kind: 'ok', text: 'Salt caverns store hydrogen [1].' };
      const r = await model.complete(req());
      assert.deepEqual(r, { text: 'Salt caverns store hydrogen [1].', model: fx.fake.servedModel, inputTokens: 42, outputTokens: 7 });
      const sent = fx.fake.requests[0]!.body;
      assert.equal(sent.model, 'm-1');
      assert.equal(sent.stream, false);
      assert.equal(sent.max_tokens, 300);
      const text = JSON.stringify(sent);
      assert.ok(text.includes('Answer from the passages') && text.includes('And in mice?') && text.includes('Hydrogen [1].'));
    });

    test('streamed: deltas arrive in order and add up to the text', async () => {
      const text = 'Salt caverns store hydrogen [1]. Mice breathe it [2]. Ünïcödé ✓.';
      fx.fake.mode = { kind: 'ok', text, chunk: 3 };
      const deltas: string[] = [];
      const r = await model.complete(req({ onDelta: (d) => deltas.push(d) }));
      assert.ok(deltas.length > 5);
      assert.equal(deltas.join(''), text);
      assert.equal(r.text, text);
      assert.equal(r.model, fx.fake.servedModel);
      assert.equal(r.inputTokens, 42);
      assert.equal(r.outputTokens, 7);
      assert.equal(fx.fake.requests[0]!.body.stream, true);
    });

    test("the caller's key is used for that one call, the configured key otherwise", async () => {
      fx.fake.mode = { kind: 'ok', text: 'ok' };
      await model.complete(req({ apiKey: CALLER_KEY }));
      assert.equal(fx.lastKey(), CALLER_KEY);
      await model.complete(req());
      assert.equal(fx.lastKey(), CONFIGURED_KEY);
    });

    for (const status of [401, 429, 500]) {
      test(`HTTP ${status} is upstream_error naming provider and status, without the key the provider echoed`, async () => {
        fx.fake.mode = { kind: 'status', status };
        for (const onDelta of [undefined, () => {}]) {
          const err = await rejectsWith(model.complete(req({ apiKey: CALLER_KEY, ...(onDelta ? { onDelta } : {}) })), 'upstream_error', new RegExp(`HTTP ${status}`));
          assert.match(err.message, /\[redacted\]/, 'the echoed key is replaced');
          assert.equal(err.extra.provider_status, status);
        }
        assert.equal(fx.lastKey(), CALLER_KEY, 'the key did reach the provider');
      });
    }

    test('a malformed stream is upstream_error', async () => {
      fx.fake.mode = { kind: 'malformed' };
      await rejectsWith(model.complete(req({ onDelta: () => {} })), 'upstream_error', /malformed/);
    });

    test('a stream that ends before its terminator is upstream_error', async () => {
      fx.fake.mode = { kind: 'truncated', text: 'Half an ans' };
      await rejectsWith(model.complete(req({ onDelta: () => {} })), 'upstream_error', /ended the stream/);
    });

    test('an error reported inside the stream is upstream_error', async () => {
      fx.fake.mode = { kind: 'stream-error' };
      await rejectsWith(model.complete(req({ onDelta: () => {} })), 'upstream_error', /mid-stream/);
    });

    test('a server that does not answer is upstream_timeout after timeout_ms', async () => {
      fx.fake.mode = { kind: 'silent' };
      const quick = fx.model(150);
      const t0 = Date.now();
      await rejectsWith(quick.complete(req()), 'upstream_timeout', /150 ms/);
      const took = Date.now() - t0;
      assert.ok(took >= 140 && took < ceiling(2000), `timed out after ${took} ms`);
    });

    test('a stream that stalls is upstream_timeout (the timeout is re-armed per chunk)', async () => {
      fx.fake.mode = { kind: 'stall', text: 'Begun' };
      const deltas: string[] = [];
      await rejectsWith(fx.model(200).complete(req({ onDelta: (d) => deltas.push(d) })), 'upstream_timeout');
      assert.deepEqual(deltas, ['Begun']);
    });

    test("aborting mid-stream rejects with the signal's reason and closes the provider connection", async () => {
      fx.fake.mode = { kind: 'stall', text: 'Begun' };
      const ac = new AbortController();
      const reason = new Error('client went away');
      const p = model.complete(req({ signal: ac.signal, onDelta: () => ac.abort(reason) }));
      await assert.rejects(p, (e) => e === reason);
      await waitFor('the provider saw the connection close', () => fx.fake.clientAborted);
    });

    test('an already aborted signal sends nothing', async () => {
      const ac = new AbortController();
      ac.abort(new Error('gone'));
      await assert.rejects(model.complete(req({ signal: ac.signal })), /gone/);
      assert.equal(fx.fake.requests.length, 0);
    });

    test('an unreachable server is upstream_error', async () => {
      const dead = await open();
      const m = dead.model(2000);
      await dead.fake.close();
      await rejectsWith(m.complete(req()), 'upstream_error', /could not be reached/);
    });
  });
}

export { CALLER_KEY, CONFIGURED_KEY };
