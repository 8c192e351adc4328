// The HTTP side shared by the chat-model clients: one POST to a provider with the caller's AbortSignal
// and an idle timeout, provider failures mapped to AppError (upstream_error 502, upstream_timeout 504)
// with messages that name the provider and the HTTP status and never carry the API key, and
// server-sent event streams read with eventsource-parser (ADR 0065).
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { AppError } from '../../domain/errors.js';

/** The most bytes of an error body read to find the provider's message. */
const ERROR_BODY_BYTES = 4096;

export interface ProviderCall {
  /** Names the provider in errors, e.g. `openai (http://127.0.0.1:11434/v1)`. */
  provider: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** The caller's signal: aborting it rethrows its reason. */
  signal: AbortSignal;
  /** Longest silence allowed, ms: before the response headers and between two chunks of the body. */
  timeoutMs: number;
  /** Secrets that must never appear in an error message (the API key in use). */
  secrets: readonly string[];
}

/** Removes every secret from a text that came from the provider (it may echo the key back). */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length > 0) out = out.split(s).join('[redacted]');
  return out;
}

/**
 * An open response from the provider: `chunks()` yields its body as text, with the idle timeout re-armed
 * on each chunk; errors (abort, timeout, connection reset) come out as the mapped AppError or the
 * caller's abort reason.
 */
export interface ProviderResponse {
  status: number;
  chunks(): AsyncGenerator<string>;
  /** Maps any failure while reading the body (abort, timeout, reset) like `post` does. */
  fail(err: unknown): never;
}

/** Sends the request; a non-2xx answer throws upstream_error naming provider, status and its message. */
export async function post(call: ProviderCall): Promise<ProviderResponse> {
  const controller = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, call.timeoutMs);
    timer.unref?.();
  };
  const onAbort = () => controller.abort();
  if (call.signal.aborted) throw call.signal.reason;
  call.signal.addEventListener('abort', onAbort, { once: true });
  const done = () => {
    clearTimeout(timer);
    call.signal.removeEventListener('abort', onAbort);
  };
  const fail = (err: unknown): never => {
    done();
    if (err instanceof AppError) throw err;
    if (call.signal.aborted) throw call.signal.reason;
    if (timedOut) throw new AppError('upstream_timeout', `${call.provider} did not answer within ${call.timeoutMs} ms`);
    const cause = err as { message?: string; cause?: { code?: string; message?: string } };
    const why = cause.cause?.code ?? cause.cause?.message ?? cause.message ?? String(err);
    throw new AppError('upstream_error', scrub(`${call.provider} could not be reached: ${why}`, call.secrets));
  };

  arm();
  let res: Response;
  try {
    res = await fetch(call.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...call.headers },
      body: JSON.stringify(call.body),
      signal: controller.signal,
    });
  } catch (e) {
    return fail(e);
  }
  if (!res.ok) {
    let detail = '';
    try {
      detail = providerMessage((await readLimited(res, ERROR_BODY_BYTES, arm)).trim());
    } catch (e) {
      if (call.signal.aborted || timedOut) fail(e);
    }
    done();
    throw new AppError(
      'upstream_error',
      scrub(`${call.provider} answered HTTP ${res.status}${detail ? `: ${detail}` : ''}`, call.secrets),
      { extra: { provider_status: res.status } },
    );
  }
  const body = res.body;
  return {
    status: res.status,
    fail,
    async *chunks() {
      try {
        if (!body) return;
        const decoder = new TextDecoder();
        try {
          for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
            arm();
            const text = decoder.decode(chunk, { stream: true });
            if (text) yield text;
          }
        } catch (e) {
          fail(e);
        }
        const rest = decoder.decode();
        if (rest) yield rest;
      } finally {
        done();
      }
    },
  };
}

async function readLimited(res: Response, limit: number, onChunk: () => void): Promise<string> {
  if (!res.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    onChunk();
    text += decoder.decode(chunk, { stream: true });
    if (text.length >= limit) break;
  }
  return text.slice(0, limit);
}

/** The human part of a provider's error body (OpenAI and Anthropic: `{"error": {"message": ...}}`). */
function providerMessage(body: string): string {
  try {
    const j = JSON.parse(body) as { error?: { message?: unknown; type?: unknown } | string; message?: unknown };
    const e = j.error;
    if (typeof e === 'string') return e.slice(0, 300);
    if (e && typeof e.message === 'string') return `${typeof e.type === 'string' ? `${e.type}: ` : ''}${e.message}`.slice(0, 300);
    if (typeof j.message === 'string') return j.message.slice(0, 300);
  } catch {
    // not JSON: a short text body is still useful
  }
  return body.replace(/\s+/g, ' ').slice(0, 200);
}

/** The whole body as text (non-streamed answers). */
export async function readAll(res: ProviderResponse): Promise<string> {
  let text = '';
  for await (const t of res.chunks()) text += t;
  return text;
}

/** The server-sent events of a streamed body, parsed by eventsource-parser. */
export async function* sseEvents(res: ProviderResponse): AsyncGenerator<EventSourceMessage> {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => queue.push(e) });
  for await (const text of res.chunks()) {
    parser.feed(text);
    while (queue.length > 0) yield queue.shift()!;
  }
  parser.reset({ consume: true });
  while (queue.length > 0) yield queue.shift()!;
}

/** Parses one JSON payload of a stream or body; anything unreadable is upstream_error. */
export function parseJson<T>(provider: string, text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new AppError('upstream_error', `${provider} sent a malformed ${what} (not JSON)`);
  }
}
