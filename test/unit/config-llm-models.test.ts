// The llm_models option (LECTERN_LLM_MODELS): parsed with defaults, every fault reported at start, keys
// redacted for display.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig, parseLlmModels, redactLlmModels } from '../../src/config/index.js';

test('a valid list from the environment, with defaults for context_tokens and timeout_ms', () => {
  const raw = JSON.stringify([
    { name: 'gpt', provider: 'openai', base_url: 'https://api.openai.com/v1', model: 'gpt-4o-mini', api_key: 'sk-x', context_tokens: 128000, timeout_ms: 30000 },
    { name: 'ollama', provider: 'openai', base_url: 'http://127.0.0.1:11434/v1', model: 'llama3.1:8b' },
  ]);
  const c = loadConfig({ LECTERN_LLM_MODELS: raw });
  assert.equal(c.llmModels, raw);
  const { models, problems } = parseLlmModels(c.llmModels);
  assert.deepEqual(problems, []);
  assert.deepEqual(models, [
    { name: 'gpt', provider: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', apiKey: 'sk-x', contextTokens: 128000, timeoutMs: 30000 },
    { name: 'ollama', provider: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.1:8b', contextTokens: 8192, timeoutMs: 60000 },
  ]);
  assert.deepEqual(parseLlmModels(loadConfig({}).llmModels), { models: [], problems: [] }, 'default: none');
});

test('every problem of every entry is reported at once, at start', () => {
  const raw = JSON.stringify([
    { name: 'a', provider: 'cohere', base_url: 'ftp://x', model: '', timeout_ms: 5 },
    { name: 'lectern-extractive', provider: 'openai', base_url: 'http://x/v1', model: 'm', colour: 'red' },
    { name: 'a', provider: 'anthropic', base_url: 'https://api.anthropic.com', model: 'claude', context_tokens: 1.5 },
    'not an object',
  ]);
  try {
    loadConfig({ LECTERN_LLM_MODELS: raw });
    assert.fail('expected ConfigError');
  } catch (e) {
    assert.ok(e instanceof ConfigError);
    const p = e.problems.join('\n');
    for (const want of [
      /\[0\]\.provider: must be "openai"/,
      /\[0\]\.base_url: must be an http\(s\) URL/,
      /\[0\]\.model: must be a non-empty string/,
      /\[0\]\.timeout_ms: must be an integer from 100/,
      /\[1\]\.name: names starting with lectern- are reserved/,
      /\[1\]\.colour: unknown property/,
      /\[2\]\.name: "a" is configured twice/,
      /\[2\]\.context_tokens: must be an integer/,
      /\[3\]: must be an object/,
    ]) {
      assert.match(p, want);
    }
    assert.ok(e.problems.every((x) => x.startsWith('llmModels (LECTERN_LLM_MODELS)')));
  }
  assert.throws(() => loadConfig({ LECTERN_LLM_MODELS: '{"name": "x"}' }), /must be a JSON list/);
  assert.throws(() => loadConfig({ LECTERN_LLM_MODELS: '[{' }), /not JSON/);
});

test('keys are redacted for display', () => {
  const shown = redactLlmModels(JSON.stringify([{ name: 'gpt', provider: 'openai', base_url: 'https://api.openai.com/v1', model: 'm', api_key: 'sk-very-secret' }, { name: 'local', provider: 'openai', base_url: 'http://127.0.0.1:8000/v1', model: 'm' }]));
  assert.ok(!shown.includes('sk-very-secret'));
  assert.match(shown, /"api_key":"\[redacted\]"/);
  assert.match(shown, /"name":"local"/);
  assert.ok(!redactLlmModels('[{"api_key": "sk-very-secret"').includes('sk-very-secret'), 'unparsable text is not shown');
});
