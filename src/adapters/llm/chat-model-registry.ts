// The ChatModelRegistry built from the configured models (option llm_models): one client per entry,
// OpenAI-compatible or Anthropic, offered under its public name.
import type { ChatModel, ChatModelRegistry, OfferedChatModel } from '../../ports/chat-model.js';
import { AnthropicChatModel } from './anthropic-chat-model.js';
import { OpenAiChatModel } from './openai-chat-model.js';

/** One configured model (the shape of config's LlmModelConfig, restated so adapters need not import config). */
export interface ChatModelEntry {
  name: string;
  provider: 'openai' | 'anthropic';
  baseUrl: string;
  model: string;
  apiKey?: string;
  contextTokens: number;
  timeoutMs: number;
}

/** A client for one entry. */
export function chatModelFor(entry: ChatModelEntry): ChatModel {
  const options = { baseUrl: entry.baseUrl, apiKey: entry.apiKey ?? null, timeoutMs: entry.timeoutMs };
  return entry.provider === 'anthropic' ? new AnthropicChatModel(options) : new OpenAiChatModel(options);
}

/** The registry over the configured entries, in configuration order. */
export function chatModelRegistry(entries: readonly ChatModelEntry[]): ChatModelRegistry {
  const byName = new Map<string, OfferedChatModel>(
    entries.map((e) => [e.name, { model: chatModelFor(e), providerModel: e.model, contextTokens: e.contextTokens }]),
  );
  const names = Object.freeze([...byName.keys()]);
  return {
    resolve: (modelName) => byName.get(modelName) ?? null,
    names: () => names,
  };
}
