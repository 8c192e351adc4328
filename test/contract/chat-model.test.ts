// Runs the ChatModel contract against the OpenAI-compatible and the Anthropic clients, each over its
// local fake server, plus what is particular to each wire format.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AnthropicChatModel, ANTHROPIC_VERSION } from '../../src/adapters/llm/anthropic-chat-model.js';
import { OpenAiChatModel } from '../../src/adapters/llm/openai-chat-model.js';
import { chatModelRegistry } from '../../src/adapters/llm/chat-model-registry.js';
import { fakeAnthropic, fakeOpenAi } from '../helpers/fake-llm-servers.js';
import { chatModelContract, CONFIGURED_KEY } from './chat-model.contract.js';

chatModelContract('OpenAI-compatible chat completions', async () => {
  const fake = await fakeOpenAi();
  return {
    fake,
    model: (timeoutMs) => new OpenAiChatModel({ baseUrl: fake.baseUrl, apiKey: CONFIGURED_KEY, timeoutMs }),
    lastKey: () => fake.requests.at(-1)?.headers.authorization?.replace(/^Bearer /, ''),
  };
});

chatModelContract('Anthropic Messages', async () => {
  const fake = await fakeAnthropic();
  return {
    fake,
    model: (timeoutMs) => new AnthropicChatModel({ baseUrl: fake.baseUrl, apiKey: CONFIGURED_KEY, timeoutMs }),
    lastKey: () => fake.requests.at(-1)?.headers['x-api-key'] as string | undefined,
  };
});

test('OpenAI-compatible wire format: system message first, Bearer key, usage requested when streaming; no key: no Authorization header', async () => {
  const fake = await fakeOpenAi();
  try {
    fake.mode = { kind: 'ok', text: 'ok' };
    const m = new OpenAiChatModel({ baseUrl: `${fake.baseUrl}/`, apiKey: null, timeoutMs: 2000 });
    await m.complete({ model: 'llama3', system: 'SYS', messages: [{ role: 'user', content: 'Q' }], maxOutputTokens: 10, apiKey: null, signal: new AbortController().signal, onDelta: () => {} });
    const r = fake.requests[0]!;
    assert.equal(r.path, '/v1/chat/completions');
    assert.equal(r.headers.authorization, undefined, 'local servers need no key');
    assert.deepEqual(r.body.messages, [{ role: 'system', content: 'SYS' }, { role: 'user', content: 'Q' }]);
    assert.deepEqual(r.body.stream_options, { include_usage: true });
  } finally {
    await fake.close();
  }
});

test('Anthropic wire format: top-level system, x-api-key and anthropic-version headers; no key at all is upstream_error without a request', async () => {
  const fake = await fakeAnthropic();
  try {
    fake.mode = { kind: 'ok', text: 'ok' };
    const m = new AnthropicChatModel({ baseUrl: `${fake.baseUrl}/v1`, apiKey: 'k-1', timeoutMs: 2000 });
    await m.complete({ model: 'claude-x', system: 'SYS', messages: [{ role: 'user', content: 'Q' }], maxOutputTokens: 10, apiKey: null, signal: new AbortController().signal });
    const r = fake.requests[0]!;
    assert.equal(r.path, '/v1/messages');
    assert.equal(r.headers['x-api-key'], 'k-1');
    assert.equal(r.headers['anthropic-version'], ANTHROPIC_VERSION);
    assert.equal(r.body.system, 'SYS');
    assert.deepEqual(r.body.messages, [{ role: 'user', content: 'Q' }]);
    const keyless = new AnthropicChatModel({ baseUrl: fake.baseUrl, apiKey: null, timeoutMs: 2000 });
    await assert.rejects(
      keyless.complete({ model: 'claude-x', system: 'S', messages: [{ role: 'user', content: 'Q' }], maxOutputTokens: 10, apiKey: null, signal: new AbortController().signal }),
      (e: { code?: string; message?: string }) => e.code === 'upstream_error' && /no API key/.test(e.message ?? ''),
    );
    assert.equal(fake.requests.length, 1);
  } finally {
    await fake.close();
  }
});

test('the registry offers each configured model under its public name', async () => {
  const reg = chatModelRegistry([
    { name: 'gpt', provider: 'openai', baseUrl: 'http://127.0.0.1:1/v1', model: 'gpt-4o-mini', contextTokens: 128000, timeoutMs: 1000 },
    { name: 'claude', provider: 'anthropic', baseUrl: 'http://127.0.0.1:1', model: 'claude-sonnet', apiKey: 'k', contextTokens: 200000, timeoutMs: 1000 },
  ]);
  assert.deepEqual(reg.names(), ['gpt', 'claude']);
  assert.ok(reg.resolve('gpt')!.model instanceof OpenAiChatModel);
  assert.ok(reg.resolve('claude')!.model instanceof AnthropicChatModel);
  assert.equal(reg.resolve('claude')!.providerModel, 'claude-sonnet');
  assert.equal(reg.resolve('gpt')!.contextTokens, 128000);
  assert.equal(reg.resolve('nope'), null);
});
