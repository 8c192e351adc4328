// Conversations with a configured provider model (llm_models), through the app and a real socket:
// the OpenAI-compatible client talks to a local fake server, the turn streams the provider's deltas and
// ends with verified citations; the caller's api_key reaches the provider's header and appears in no log
// line, response body, stored conversation or error.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { fakeAnthropic, fakeOpenAi, type FakeProvider } from '../helpers/fake-llm-servers.js';

const Y = (y: number) => Date.UTC(y, 0, 1) / 1000;
const CALLER_KEY = 'sk-turn-only-5f1e2d3c4b5a69788796';
const CONFIGURED_KEY = 'sk-configured-a1b2c3d4e5f6a7b8';

describe('conversations with configured provider models', () => {
  let app: TestApp;
  let openai: FakeProvider;
  let anthropic: FakeProvider;
  let acct: { id: number; key: string };
  let port: number;
  const logLines: string[] = [];

  before(async () => {
    openai = await fakeOpenAi();
    anthropic = await fakeAnthropic();
    const llmModels = JSON.stringify([
      { name: 'local-gpt', provider: 'openai', base_url: openai.baseUrl, model: 'llama3.1:8b', api_key: CONFIGURED_KEY, context_tokens: 8192, timeout_ms: 3000 },
      { name: 'claude', provider: 'anthropic', base_url: anthropic.baseUrl, model: 'claude-test', timeout_ms: 3000 },
    ]);
    const sink = new Writable({
      write(chunk, _enc, cb) {
        logLines.push(String(chunk));
        cb();
      },
    });
    app = await testApp({ llmModels, logLevel: 'trace', rateLimits: { conversations: { capacity: 1000, refillPerSecond: 1000 } } } as never, { logger: pino({ level: 'trace' }, sink) });
    acct = await app.account({ credits: 100_000 });
    await seed(app, [
      doc('h1', { title: 'Underground hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas. Cushion gas keeps the cavern pressure stable during withdrawal.', type: 'journal-article', language: 'en', issuedAt: Y(2022) }),
      doc('x1', { title: 'Sandstone porosity', abstract: 'Sandstone porosity controls fluid flow in aquifers.', type: 'journal-article', language: 'en', issuedAt: Y(2015) }),
    ]);
    await app.indexes!.catchUp();
    await app.http.listen({ port: 0, host: '127.0.0.1' });
    port = (app.http.server.address() as AddressInfo).port;
  });
  after(async () => {
    await app.dispose();
    await openai.close();
    await anthropic.close();
  });

  const post = (path: string, body: unknown) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'x-api-key': acct.key, 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  const events = (text: string) => [...text.matchAll(/event: (\w+)\ndata: (.*)\n\n/g)].map((m) => ({ event: m[1]!, data: JSON.parse(m[2]!) }));

  function assertVerified(r: { answer: string; citations: { citation_index: number; document_index: number; excerpt: string; snippet_index: number }[]; search_documents: { snippets: { text: string }[] }[] }) {
    const markers = r.answer.match(/\[(\d+)\]/g) ?? [];
    assert.equal(markers.length, r.citations.length, 'one CitationOccurrence per marker');
    r.citations.forEach((c, i) => {
      assert.equal(markers[i], `[${c.document_index}]`);
      assert.ok(r.search_documents[c.document_index - 1]!.snippets[c.snippet_index]!.text.includes(c.excerpt), 'snippet holds the excerpt');
    });
  }

  test('the unknown-model 422 lists the configured models', async () => {
    const r = await post('/v2/conversations/', { query: 'hydrogen', llm_config: { model_name: 'gpt-9' } });
    assert.equal(r.status, 422);
    assert.match(r.text, /local-gpt/);
    assert.match(r.text, /claude/);
  });

  test('a streamed turn with the configured OpenAI-compatible model streams its deltas and ends with verified citations', async () => {
    openai.requests = [];
    const answer = 'Salt caverns offer tight storage for hydrogen gas [1]. Cushion gas keeps the cavern pressure stable [1].';
    openai.mode = { kind: 'ok', text: answer, chunk: 7 };
    const r = await post('/v2/conversations/stream', { query: 'How is hydrogen stored in salt caverns?', llm_config: { model_name: 'local-gpt' } });
    assert.equal(r.status, 200);
    const ev = events(r.text);
    const deltas = ev.filter((e) => e.event === 'delta').map((e) => e.data.text as string);
    assert.ok(deltas.length >= 10, `the provider's deltas are passed on (${deltas.length})`);
    assert.equal(deltas.join(''), answer, 'deltas are exactly what the provider streamed');
    const last = ev.at(-1)!;
    assert.equal(last.event, 'result', r.text.slice(-500));
    assert.equal(last.data.model_name, 'local-gpt');
    assertVerified(last.data);
    assert.equal(last.data.citations.length, 2);
    assert.ok(last.data.citations.every((c: { excerpt: string }) => /caverns|Cushion gas/.test(c.excerpt)));
    const sent = openai.requests[0]!;
    assert.equal(sent.body.model, 'llama3.1:8b', 'the provider model name is sent');
    assert.equal(sent.body.stream, true);
    assert.equal(sent.headers.authorization, `Bearer ${CONFIGURED_KEY}`, 'no caller key: the configured key');
    assert.match(JSON.stringify(sent.body.messages), /Salt caverns offer tight storage/, 'the passages reach the prompt');
  });

  test("the caller's key reaches the provider's header and no log line, body, stored conversation or error", async () => {
    logLines.length = 0;
    openai.requests = [];
    openai.mode = { kind: 'ok', text: 'Salt caverns offer tight storage for hydrogen gas [1].' };
    const ok = await post('/v2/conversations/', { query: 'hydrogen salt caverns', llm_config: { model_name: 'local-gpt', api_key: CALLER_KEY } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(openai.requests.at(-1)!.headers.authorization, `Bearer ${CALLER_KEY}`);
    const id = JSON.parse(ok.text).conversation_id as string;
    const stored = await app.http.inject({ method: 'GET', url: `/v2/conversations/${id}`, headers: { 'x-api-key': acct.key } });

    // The provider refuses the key and echoes it back in its error body.
    openai.mode = { kind: 'status', status: 401 };
    const refused = await post('/v2/conversations/', { query: 'hydrogen salt caverns', llm_config: { model_name: 'local-gpt', api_key: CALLER_KEY } });
    assert.equal(refused.status, 502, refused.text);
    assert.match(refused.text, /upstream_error/);
    assert.match(refused.text, /HTTP 401/, 'the error names the status');
    assert.equal(JSON.parse(refused.text).detail.provider_status, 401);
    assert.equal(openai.requests.at(-1)!.headers.authorization, `Bearer ${CALLER_KEY}`);

    // Anthropic, streamed, refused with 429.
    anthropic.mode = { kind: 'status', status: 429 };
    const streamed = await post('/v2/conversations/stream', { query: 'hydrogen salt caverns', llm_config: { model_name: 'claude', api_key: CALLER_KEY } });
    assert.equal(anthropic.requests.at(-1)!.headers['x-api-key'], CALLER_KEY);
    assert.equal(events(streamed.text).at(-1)!.event, 'error');

    assert.ok(logLines.length > 0, 'the log was captured');
    for (const [what, text] of [
      ['log', logLines.join('')],
      ['turn body', ok.text],
      ['stored conversation', stored.body],
      ['502 body', refused.text],
      ['stream', streamed.text],
    ] as const) {
      assert.ok(!text.includes(CALLER_KEY), `the caller's key appears in the ${what}`);
      assert.ok(!text.includes(CONFIGURED_KEY), `the configured key appears in the ${what}`);
    }
  });

  test('a provider that does not answer in time is 504, nothing charged', async () => {
    openai.mode = { kind: 'silent' };
    const before = await app.billing.balance(acct.id);
    const r = await app.http.inject({
      method: 'POST',
      url: '/v2/conversations/',
      headers: { 'x-api-key': acct.key },
      payload: { query: 'hydrogen salt caverns', llm_config: { model_name: 'local-gpt' } },
    });
    assert.equal(r.statusCode, 504, r.body);
    assert.match(r.body, /upstream_timeout/);
    assert.equal(await app.billing.balance(acct.id), before);
  });
});
