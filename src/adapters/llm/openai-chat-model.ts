// A ChatModel over the OpenAI-compatible chat-completions API (POST {base_url}/chat/completions): OpenAI,
// vLLM, llama.cpp server, Ollama (/v1), OpenRouter. Streams with `stream: true` (server-sent events of
// chat.completion.chunk objects, ended by `data: [DONE]`) when the caller wants deltas, otherwise one
// chat.completion object. The key goes in `Authorization: Bearer` and nowhere else (ADR 0065).
import { AppError } from '../../domain/errors.js';
import type { ChatModel, ChatRequest, ChatResult } from '../../ports/chat-model.js';
import { parseJson, post, readAll, scrub, sseEvents } from './provider-http.js';

export interface OpenAiChatModelOptions {
  /** Base URL up to and including the version segment, e.g. https://api.openai.com/v1 (no trailing slash needed). */
  baseUrl: string;
  /** The configured key; null: none (local servers), unless the request brings one. */
  apiKey: string | null;
  /** Longest silence allowed, ms (before the answer starts and between stream chunks). */
  timeoutMs: number;
}

interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

interface Completion {
  model?: string;
  choices?: { message?: { content?: string | null } }[];
  usage?: Usage | null;
}

interface Chunk {
  model?: string;
  choices?: { delta?: { content?: string | null } }[];
  usage?: Usage | null;
  error?: { message?: string };
}

export class OpenAiChatModel implements ChatModel {
  readonly #url: string;
  readonly #provider: string;
  readonly #options: OpenAiChatModelOptions;

  constructor(options: OpenAiChatModelOptions) {
    const base = options.baseUrl.replace(/\/+$/, '');
    this.#url = `${base}/chat/completions`;
    this.#provider = `openai-compatible provider at ${base}`;
    this.#options = options;
  }

  async complete(request: ChatRequest): Promise<ChatResult> {
    const key = request.apiKey ?? this.#options.apiKey;
    const stream = request.onDelta !== undefined;
    const res = await post({
      provider: this.#provider,
      url: this.#url,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), accept: stream ? 'text/event-stream' : 'application/json' },
      body: {
        model: request.model,
        messages: [{ role: 'system', content: request.system }, ...request.messages.map((m) => ({ role: m.role, content: m.content }))],
        max_tokens: request.maxOutputTokens,
        stream,
        ...(stream ? { stream_options: { include_usage: true } } : {}),
      },
      signal: request.signal,
      timeoutMs: this.#options.timeoutMs,
      secrets: key ? [key] : [],
    });
    if (!stream) {
      const body = parseJson<Completion>(this.#provider, await readAll(res), 'chat completion');
      const text = body.choices?.[0]?.message?.content;
      if (typeof text !== 'string') throw new AppError('upstream_error', `${this.#provider} answered without choices[0].message.content`);
      return { text, model: body.model ?? request.model, inputTokens: body.usage?.prompt_tokens ?? null, outputTokens: body.usage?.completion_tokens ?? null };
    }
    let text = '';
    let model = request.model;
    let usage: Usage | null = null;
    let finished = false;
    for await (const event of sseEvents(res)) {
      if (event.data === '[DONE]') {
        finished = true;
        break;
      }
      const chunk = parseJson<Chunk>(this.#provider, event.data, 'stream event');
      if (chunk.error) throw new AppError('upstream_error', scrub(`${this.#provider} failed mid-stream: ${String(chunk.error.message ?? 'unknown error').slice(0, 300)}`, key ? [key] : []));
      if (chunk.model) model = chunk.model;
      if (chunk.usage) usage = chunk.usage;
      const delta = chunk.choices?.[0]?.delta?.content;
      if (typeof delta === 'string' && delta.length > 0) {
        text += delta;
        request.onDelta!(delta);
      }
    }
    if (request.signal.aborted) throw request.signal.reason;
    if (!finished) throw new AppError('upstream_error', `${this.#provider} ended the stream before data: [DONE]`);
    return { text, model, inputTokens: usage?.prompt_tokens ?? null, outputTokens: usage?.completion_tokens ?? null };
  }
}
