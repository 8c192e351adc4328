// A ChatModel over the Anthropic Messages API (POST {base_url}/v1/messages, `x-api-key` and
// `anthropic-version` headers). Streams with `stream: true`: server-sent events message_start (model,
// input tokens), content_block_delta (text_delta), message_delta (output tokens), message_stop, and
// `error` events mid-stream; otherwise one Message object whose text blocks are joined (ADR 0065).
import { AppError } from '../../domain/errors.js';
import type { ChatModel, ChatRequest, ChatResult } from '../../ports/chat-model.js';
import { parseJson, post, readAll, scrub, sseEvents } from './provider-http.js';

/** The API version sent in `anthropic-version` (the Messages API's stable version). */
export const ANTHROPIC_VERSION = '2023-06-01';

export interface AnthropicChatModelOptions {
  /** Base URL without the /v1 segment, e.g. https://api.anthropic.com. */
  baseUrl: string;
  /** The configured key; null: requests must bring their own. */
  apiKey: string | null;
  /** Longest silence allowed, ms (before the answer starts and between stream chunks). */
  timeoutMs: number;
}

interface Message {
  model?: string;
  content?: { type?: string; text?: string }[];
  usage?: { input_tokens?: number; output_tokens?: number };
}

interface StreamEvent {
  type?: string;
  message?: Message;
  delta?: { type?: string; text?: string };
  usage?: { output_tokens?: number };
  error?: { type?: string; message?: string };
}

export class AnthropicChatModel implements ChatModel {
  readonly #url: string;
  readonly #provider: string;
  readonly #options: AnthropicChatModelOptions;

  constructor(options: AnthropicChatModelOptions) {
    const base = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.#url = `${base}/v1/messages`;
    this.#provider = `anthropic provider at ${base}`;
    this.#options = options;
  }

  async complete(request: ChatRequest): Promise<ChatResult> {
    const key = request.apiKey ?? this.#options.apiKey;
    if (!key) throw new AppError('upstream_error', `${this.#provider}: no API key configured for this model and none given in llm_config.api_key`);
    const secrets = [key];
    const stream = request.onDelta !== undefined;
    const res = await post({
      provider: this.#provider,
      url: this.#url,
      headers: { 'x-api-key': key, 'anthropic-version': ANTHROPIC_VERSION, accept: stream ? 'text/event-stream' : 'application/json' },
      body: {
        model: request.model,
        system: request.system,
        messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
        max_tokens: request.maxOutputTokens,
        stream,
      },
      signal: request.signal,
      timeoutMs: this.#options.timeoutMs,
      secrets,
    });
    if (!stream) {
      const body = parseJson<Message>(this.#provider, await readAll(res), 'message');
      if (!Array.isArray(body.content)) throw new AppError('upstream_error', `${this.#provider} answered without a content list`);
      const text = body.content.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text).join('');
      return { text, model: body.model ?? request.model, inputTokens: body.usage?.input_tokens ?? null, outputTokens: body.usage?.output_tokens ?? null };
    }
    let text = '';
    let model = request.model;
    let inputTokens: number | null = null;
    let outputTokens: number | null = null;
    let stopped = false;
    for await (const event of sseEvents(res)) {
      const data = parseJson<StreamEvent>(this.#provider, event.data, 'stream event');
      const type = data.type ?? event.event;
      if (type === 'message_start') {
        if (data.message?.model) model = data.message.model;
        inputTokens = data.message?.usage?.input_tokens ?? inputTokens;
        outputTokens = data.message?.usage?.output_tokens ?? outputTokens;
      } else if (type === 'content_block_delta') {
        const delta = data.delta;
        if (delta?.type === 'text_delta' && typeof delta.text === 'string' && delta.text.length > 0) {
          text += delta.text;
          request.onDelta!(delta.text);
        }
      } else if (type === 'message_delta') {
        outputTokens = data.usage?.output_tokens ?? outputTokens;
      } else if (type === 'message_stop') {
        stopped = true;
        break;
      } else if (type === 'error') {
        const e = data.error;
        throw new AppError('upstream_error', scrub(`${this.#provider} failed mid-stream: ${e?.type ?? 'error'}: ${String(e?.message ?? '').slice(0, 300)}`, secrets));
      }
      // content_block_start, content_block_stop, ping and future event types carry nothing we need.
    }
    if (request.signal.aborted) throw request.signal.reason;
    if (!stopped) throw new AppError('upstream_error', `${this.#provider} ended the stream before message_stop`);
    return { text, model, inputTokens, outputTokens };
  }
}
