// ADR 0305 (issue 25, fairness): a large search response is written in chunks, one per turn of the event
// loop, as views of the search thread's bytes (no copy), and only as fast as the response stream takes
// them (backpressure). Asserted by order and counts, not timing: another callback runs between two
// chunks of one body; a reader that does not read holds the body at its first chunks; the bytes and
// the HTTP framing (Content-Length, no chunked transfer coding) are those of the whole buffer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { PacedBody } from '../../src/http/paced-body.js';
import { encodedHitsBody, spliceEncodedHits } from '../../src/http/presenters/search.js';

const tick = () => new Promise((r) => setImmediate(r));
const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) % 251);

test('a paced body yields the parts\' bytes in chunks of at most chunkBytes, as views of the parts (no copy)', async () => {
  const head = bytes(10, 1);
  const hits = bytes(1000, 2);
  const tail = bytes(7, 3);
  const body = new PacedBody([head, hits, tail], 128);
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  assert.deepEqual(Buffer.concat(chunks), Buffer.concat([head, hits, tail]));
  assert.ok(chunks.every((c) => c.byteLength <= 128));
  assert.equal(body.byteLength, 1017);
  // every chunk of the middle part shares the part's memory
  const middle = chunks.filter((c) => c.buffer === hits.buffer);
  assert.equal(middle.reduce((n, c) => n + c.byteLength, 0), 1000);
  assert.equal(chunks.length, 1 + Math.ceil(1000 / 128) + 1);
});

test('other work runs between two chunks of one body (a chunk per turn of the event loop)', async () => {
  const body = new PacedBody([bytes(64 * 10, 4)], 64);
  const events: string[] = [];
  let scheduled = false;
  body.on('data', () => {
    events.push('chunk');
    if (!scheduled) {
      scheduled = true;
      // what another request's I/O callback would be: queued after the first chunk
      setImmediate(() => events.push('other'));
    }
  });
  await new Promise((ok) => body.once('end', ok));
  assert.equal(events.filter((e) => e === 'chunk').length, 10);
  const other = events.indexOf('other');
  assert.ok(other > 0 && other < events.length - 1, `another callback ran before the body's last chunk: ${events.join(' ')}`);
  assert.ok(other <= 2, `...right after the chunk it was queued behind: ${events.join(' ')}`);
});

test('a reader that does not take the bytes holds the body (backpressure), which then completes', async () => {
  const parts = [bytes(64 * 50, 5)];
  const body = new PacedBody(parts, 64);
  const held: (() => void)[] = [];
  const got: Buffer[] = [];
  const sink = new Writable({
    highWaterMark: 64,
    write(chunk: Buffer, _enc, done) {
      got.push(chunk);
      held.push(done);
    },
  });
  body.pipe(sink);
  for (let i = 0; i < 20; i++) await tick();
  // one chunk in the sink's write, at most a chunk or two buffered: not the 50 chunks of the body
  assert.ok(body.chunks <= 4, `chunks produced while the reader holds: ${body.chunks}`);
  assert.equal(got.length, 1);
  const finished = new Promise((ok) => sink.once('finish', ok));
  while (!sink.writableFinished) {
    held.splice(0).forEach((d) => d());
    await tick();
  }
  await finished;
  assert.equal(body.chunks, 50);
  assert.deepEqual(Buffer.concat(got), Buffer.from(parts[0]!));
});

test('over HTTP a paced body has the whole buffer\'s bytes and framing (Content-Length, no chunked coding)', async () => {
  const envelope = '{"ranking_mode":"documents","hits":[],"total_hits":3,"has_next":false}';
  const hits = new TextEncoder().encode(JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ id: `d${i}`, text: 'ü🚀'.repeat(i % 7) }))));
  // keep-alive sockets of the client closed with the server (not after Fastify's 72 s keep-alive)
  const app = Fastify({ forceCloseConnections: true });
  const send = (paced: boolean) => async (_req: unknown, reply: import('fastify').FastifyReply) => {
    const body = paced ? encodedHitsBody(envelope, hits, 256) : spliceEncodedHits(envelope, hits);
    reply.type('application/json; charset=utf-8');
    if (body instanceof PacedBody) reply.header('content-length', body.byteLength);
    return reply.send(body);
  };
  app.get('/whole', send(false));
  app.get('/paced', send(true));
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { port } = app.server.address() as { port: number };
    const whole = await fetch(`http://127.0.0.1:${port}/whole`);
    const paced = await fetch(`http://127.0.0.1:${port}/paced`);
    const wb = Buffer.from(await whole.arrayBuffer());
    const pb = Buffer.from(await paced.arrayBuffer());
    assert.deepEqual(pb, wb);
    assert.equal(paced.headers.get('content-length'), String(wb.byteLength));
    assert.equal(paced.headers.get('transfer-encoding'), null);
    assert.equal(paced.headers.get('content-type'), whole.headers.get('content-type'));
    assert.equal((JSON.parse(pb.toString('utf8')) as { hits: unknown[] }).hits.length, 300);
    // a body that fits one chunk stays one buffer
    assert.ok(Buffer.isBuffer(encodedHitsBody(envelope, hits.subarray(0, 2).fill(0x5b, 0, 1).fill(0x5d, 1, 2))));
  } finally {
    await app.close();
  }
});

test('a client that hangs up in the middle of a large paced body: the response does not finish (billing settles it as not delivered) and the body stops', async () => {
  const size = 32 * 1024 * 1024;
  const parts = [new Uint8Array(size).fill(0x61)];
  let body: PacedBody | null = null;
  const events: string[] = [];
  const app = Fastify({ forceCloseConnections: true });
  app.get('/big', async (_req, reply) => {
    // what server.ts's billing hook listens to: 'finish' (handed over whole) and 'close'
    reply.raw.once('finish', () => events.push('finish'));
    reply.raw.once('close', () => events.push('close'));
    body = new PacedBody(parts);
    reply.header('content-length', body.byteLength);
    return reply.send(body);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { port } = app.server.address() as { port: number };
    const { request } = await import('node:http');
    await new Promise<void>((ok, fail) => {
      const req = request({ port, path: '/big' }, (res) => {
        assert.equal(res.headers['content-length'], String(size));
        // the first bytes arrived: hang up
        res.once('data', () => {
          req.destroy();
          ok();
        });
      });
      req.on('error', () => undefined);
      req.once('error', fail);
      req.end();
    });
    // condition, not time: the server sees the connection close
    for (let i = 0; i < 100_000 && !events.includes('close'); i++) await tick();
    assert.deepEqual(events, ['close'], 'the response closed without finishing');
    const produced = body!.chunks;
    for (let i = 0; i < 50; i++) await tick();
    assert.equal(body!.chunks, produced, 'no chunk is produced after the client went away');
    assert.ok(produced < size / (64 * 1024), `the body stopped before its end (${produced} of ${size / (64 * 1024)} chunks)`);
    assert.equal(body!.destroyed, true);
  } finally {
    await app.close();
  }
});
