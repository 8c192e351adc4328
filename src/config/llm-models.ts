// The chat models this server offers (option llm_models, LECTERN_LLM_MODELS): a JSON list of
// {name, provider, base_url, model, api_key?, context_tokens?, timeout_ms?}, parsed and checked at
// start with every problem reported (docs/models.md). Keys are secrets: never printed.

/** One configured model, camelCase inside. */
export interface LlmModelConfig {
  /** The public name callers put in llm_config.model_name. */
  name: string;
  provider: 'openai' | 'anthropic';
  /** Provider base URL (openai: up to /v1; anthropic: without /v1). */
  baseUrl: string;
  /** The name sent to the provider. */
  model: string;
  /** The configured key (secret); absent: none (local servers) or the caller's llm_config.api_key. */
  apiKey?: string;
  /** The model's context window, tokens (default 8192, range 512..10,000,000). */
  contextTokens: number;
  /** Longest silence allowed from the provider, ms (default 60,000, range 100..600,000). */
  timeoutMs: number;
}

const KEYS = new Set(['name', 'provider', 'base_url', 'model', 'api_key', 'context_tokens', 'timeout_ms']);
/** Names the built-in answerer owns. */
const RESERVED = /^lectern-/;

/** Parses the option; `problems` names every fault (empty when the list is usable). */
export function parseLlmModels(raw: string): { models: LlmModelConfig[]; problems: string[] } {
  const where = 'llmModels (LECTERN_LLM_MODELS)';
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.trim() === '' ? '[]' : raw);
  } catch (e) {
    return { models: [], problems: [`${where}: not JSON (${(e as Error).message})`] };
  }
  if (!Array.isArray(parsed)) return { models: [], problems: [`${where}: must be a JSON list of models`] };
  const problems: string[] = [];
  const models: LlmModelConfig[] = [];
  const seen = new Set<string>();
  parsed.forEach((entry: unknown, i) => {
    const at = `${where}[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${at}: must be an object`);
      return;
    }
    const e = entry as Record<string, unknown>;
    const before = problems.length;
    for (const k of Object.keys(e)) if (!KEYS.has(k)) problems.push(`${at}.${k}: unknown property (allowed: ${[...KEYS].join(', ')})`);
    const str = (k: string, required: boolean): string | undefined => {
      const v = e[k];
      if (v === undefined && !required) return undefined;
      if (typeof v !== 'string' || v.trim() === '') {
        problems.push(`${at}.${k}: ${v === undefined ? 'required' : 'must be a non-empty string'}`);
        return undefined;
      }
      return v;
    };
    const int = (k: string, min: number, max: number, def: number): number => {
      const v = e[k];
      if (v === undefined) return def;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
        problems.push(`${at}.${k}: must be an integer from ${min} to ${max}`);
        return def;
      }
      return v;
    };
    const name = str('name', true);
    if (name !== undefined) {
      if (RESERVED.test(name)) problems.push(`${at}.name: names starting with lectern- are reserved for the built-in answerers`);
      else if (seen.has(name)) problems.push(`${at}.name: ${JSON.stringify(name)} is configured twice`);
      seen.add(name);
    }
    const provider = e.provider;
    if (provider !== 'openai' && provider !== 'anthropic') problems.push(`${at}.provider: must be "openai" (any OpenAI-compatible server) or "anthropic"`);
    const baseUrl = str('base_url', true);
    if (baseUrl !== undefined) {
      let ok = false;
      try {
        const u = new URL(baseUrl);
        ok = u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        ok = false;
      }
      if (!ok) problems.push(`${at}.base_url: must be an http(s) URL`);
    }
    const model = str('model', true);
    const apiKey = str('api_key', false);
    const contextTokens = int('context_tokens', 512, 10_000_000, 8192);
    const timeoutMs = int('timeout_ms', 100, 600_000, 60_000);
    if (problems.length === before) {
      models.push({ name: name!, provider: provider as 'openai' | 'anthropic', baseUrl: baseUrl!, model: model!, ...(apiKey ? { apiKey } : {}), contextTokens, timeoutMs });
    }
  });
  return { models, problems };
}

/** The option's text with every api_key replaced by [redacted] (for `config check` and logs). */
export function redactLlmModels(raw: string): string {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!Array.isArray(parsed)) return raw.trim() === '' ? raw : '[redacted: not a list]';
    return JSON.stringify(parsed.map((m: unknown) => (typeof m === 'object' && m !== null && 'api_key' in m ? { ...m, api_key: '[redacted]' } : m)));
  } catch {
    return '[redacted: not JSON]';
  }
}
