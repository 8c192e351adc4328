// Local stand-ins for the chat providers, on 127.0.0.1 (no external calls in tests): an OpenAI-compatible
// chat-completions server and an Anthropic Messages server, each speaking its documented wire format,
// streamed (server-sent events) and not, with scripted failures (HTTP errors echoing the key, malformed
// streams, truncated streams, silence, stalls mid-stream). Every request is recorded.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeMode =
  | { kind: 'ok'; text: string; chunk?: number }
  /** An HTTP error with the provider's JSON error body (which echoes the key, as real providers sometimes do). */
  | { kind: 'status'; status: number }
  /** A stream whose second event is not JSON. */
  | { kind: 'malformed' }
  /** A stream that ends without its terminator (data: [DONE] / message_stop). */
  | { kind: 'truncated'; text: string }
  /** Headers never come. */
  | { kind: 'silent' }
  /** Streams `text` as one delta, then goes silent. */
  | { kind: 'stall'; text: string }
  /** The provider reports an error inside the stream (Anthropic `event: error`, OpenAI `{"error": ...}`). */
  | { kind: 'stream-error' };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export interface FakeProvider {
  readonly provider: 'openai' | 'anthropic';
  /** Base URL as configured (openai: .../v1; anthropic: without /v1). */
  readonly baseUrl: string;
  /** The model name the server reports as having answered. */
  readonly servedModel: string;
  mode: FakeMode;
  requests: RecordedRequest[];
  /** Set when a client closed the connection before the response ended. */
  clientAborted: boolean;
  close(): Promise<void>;
}

const pieces = (text: string, size: number) => text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  let raw = '';
  for await (const c of req) raw += String(c);
  return JSON.parse(raw || '{}') as Record<string, unknown>;
}

function keyOf(req: IncomingMessage): string {
  const auth = req.headers.authorization;
  return String(req.headers['x-api-key'] ?? (auth ? auth.replace(/^Bearer /, '') : ''));
}

async function start(provider: 'openai' | 'anthropic', handle: (f: FakeProvider, req: IncomingMessage, body: Record<string, unknown>, res: ServerResponse) => void): Promise<FakeProvider> {
  const open = new Set<ServerResponse>();
  let fake: FakeProvider;
  const server: Server = createServer((req, res) => {
    void readBody(req).then((body) => {
      fake.requests.push({ method: req.method!, path: req.url!, headers: req.headers, body });
      open.add(res);
      res.on('close', () => {
        open.delete(res);
        if (!res.writableEnded) fake.clientAborted = true;
      });
      handle(fake, req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  fake = {
    provider,
    baseUrl: provider === 'openai' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`,
    servedModel: provider === 'openai' ? 'fake-gpt-served' : 'fake-claude-served',
    mode: { kind: 'ok', text: 'Hello.' },
    requests: [],
    clientAborted: false,
    async close() {
      for (const r of open) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return fake;
}

const sse = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });

/** An OpenAI-compatible server: POST /v1/chat/completions. */
export function fakeOpenAi(): Promise<FakeProvider> {
  return start('openai', (f, req, body, res) => {
    if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.url}`, type: 'invalid_request_error' } }));
      return;
    }
    const mode = f.mode;
    const id = 'chatcmpl-1';
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model: f.servedModel, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    switch (mode.kind) {
      case 'status': {
        const type = mode.status === 401 ? 'invalid_api_key' : mode.status === 429 ? 'rate_limit_exceeded' : 'server_error';
        res.writeHead(mode.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `Incorrect or throttled key provided: ${keyOf(req)}`, type, code: type } }));
        return;
      }
      case 'silent':
        return;
      case 'ok':
        if (!body.stream) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              id,
              object: 'chat.completion',
              created: 1,
              model: f.servedModel,
              choices: [{ index: 0, message: { role: 'assistant', content: mode.text }, finish_reason: 'stop' }],
              usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 },
            }),
          );
          return;
        }
        sse(res);
        res.write(chunk({ role: 'assistant', content: '' }));
        for (const p of pieces(mode.text, mode.chunk ?? 5)) res.write(chunk({ content: p }));
        res.write(chunk({}, 'stop'));
        res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model: f.servedModel, choices: [], usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 } })}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      case 'malformed':
        sse(res);
        res.write(chunk({ content: 'Hel' }));
        res.end('data: {"choices": [{"delta": \n\n');
        return;
      case 'truncated':
        sse(res);
        res.end(chunk({ content: mode.text }));
        return;
      case 'stall':
        sse(res);
        res.write(chunk({ content: mode.text }));
        return;
      case 'stream-error':
        sse(res);
        res.write(chunk({ content: 'Hel' }));
        res.end(`data: ${JSON.stringify({ error: { message: 'The server had an error while processing your request.', type: 'server_error' } })}\n\n`);
        return;
    }
  });
}

/** An Anthropic Messages server: POST /v1/messages (requires x-api-key and anthropic-version). */
export function fakeAnthropic(): Promise<FakeProvider> {
  return start('anthropic', (f, req, body, res) => {
    const fail = (status: number, type: string, message: string) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type, message } }));
    if (req.url !== '/v1/messages' || req.method !== 'POST') return void fail(404, 'not_found_error', `no route ${req.url}`);
    if (!req.headers['anthropic-version']) return void fail(400, 'invalid_request_error', 'anthropic-version header is required');
    if (typeof body.max_tokens !== 'number') return void fail(400, 'invalid_request_error', 'max_tokens: Field required');
    const mode = f.mode;
    const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const start = event('message_start', {
      message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: f.servedModel, stop_reason: null, stop_sequence: null, usage: { input_tokens: 42, output_tokens: 1 } },
    });
    const blockStart = event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    const delta = (text: string) => event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
    switch (mode.kind) {
      case 'status': {
        const type = mode.status === 401 ? 'authentication_error' : mode.status === 429 ? 'rate_limit_error' : mode.status === 529 ? 'overloaded_error' : 'api_error';
        return void fail(mode.status, type, `invalid or throttled x-api-key: ${keyOf(req)}`);
      }
      case 'silent':
        return;
      case 'ok':
        if (!body.stream) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              id: 'msg_1',
              type: 'message',
              role: 'assistant',
              model: f.servedModel,
              content: [{ type: 'text', text: mode.text }],
              stop_reason: 'end_turn',
              stop_sequence: null,
              usage: { input_tokens: 42, output_tokens: 7 },
            }),
          );
          return;
        }
        sse(res);
        res.write(start);
        res.write(blockStart);
        res.write(event('ping', {}));
        for (const p of pieces(mode.text, mode.chunk ?? 5)) res.write(delta(p));
        res.write(event('content_block_stop', { index: 0 }));
        res.write(event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 7 } }));
        res.end(event('message_stop', {}));
        return;
      case 'malformed':
        sse(res);
        res.write(start);
        res.end('event: content_block_delta\ndata: {"type": "content_block_delta", "delta": \n\n');
        return;
      case 'truncated':
        sse(res);
        res.write(start);
        res.end(delta(mode.text));
        return;
      case 'stall':
        sse(res);
        res.write(start);
        res.write(delta(mode.text));
        return;
      case 'stream-error':
        sse(res);
        res.write(start);
        res.write(delta('Hel'));
        res.end(event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }));
        return;
    }
  });
}
