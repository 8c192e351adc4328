// GET /v2/downloads/...: eligibility, formats, validators, conditional requests, byte ranges.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, original, seed } from '../helpers/documents.js';

const BYTES = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i < 8 ? '%PDF-1.4'.charCodeAt(i) : 32 + (i % 90))));

/** Parses a multipart/byteranges body into its parts. */
function parseMultipart(body: Buffer, boundary: string): { range: string; data: Buffer }[] {
  const parts: { range: string; data: Buffer }[] = [];
  const delim = Buffer.from(`--${boundary}`);
  let pos = body.indexOf(delim);
  while (pos >= 0) {
    const next = body.indexOf(delim, pos + delim.length);
    if (next < 0) break;
    const chunk = body.subarray(pos + delim.length + 2, next - 2);
    const sep = chunk.indexOf('\r\n\r\n');
    const head = chunk.subarray(0, sep).toString();
    parts.push({ range: /Content-Range: (.*)/i.exec(head)![1]!.trim(), data: chunk.subarray(sep + 4) });
    pos = next;
  }
  return parts;
}

describe('downloads', () => {
  let app: TestApp;
  let eligible: { key: string };
  let ineligible: { key: string };
  before(async () => {
    app = await testApp();
    eligible = await app.account({ eligible: true });
    ineligible = await app.account({ eligible: false });
    await seed(app, [doc('P1', { uris: ['doi://10.5555/p1'], originals: [await original(app, 'pdf', BYTES)] }), doc('N1')]);
  });
  after(() => app.dispose());

  const get = (url: string, headers: Record<string, string> = {}, key = eligible.key) =>
    app.http.inject({ method: 'GET', url, headers: { 'x-api-key': key, ...headers } });

  test('whole file with Content-Type, Content-Length, ETag, Last-Modified, Accept-Ranges', async () => {
    const res = await get('/v2/downloads/P1.pdf');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/pdf');
    assert.equal(res.headers['content-length'], '1000');
    assert.match(String(res.headers.etag), /^"[0-9a-f]{64}"$/);
    assert.ok(!Number.isNaN(Date.parse(String(res.headers['last-modified']))));
    assert.equal(res.headers['accept-ranges'], 'bytes');
    assert.deepEqual(res.rawPayload, BYTES);
  });

  test('by URI with ?format=', async () => {
    const res = await get(`/v2/downloads/by-uri/${encodeURIComponent('doi://10.5555/p1')}?format=pdf`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.rawPayload, BYTES);
  });

  test('single range: 206 with Content-Range', async () => {
    const res = await get('/v2/downloads/P1.pdf', { range: 'bytes=10-19' });
    assert.equal(res.statusCode, 206);
    assert.equal(res.headers['content-range'], 'bytes 10-19/1000');
    assert.deepEqual(res.rawPayload, BYTES.subarray(10, 20));
    const suffix = await get('/v2/downloads/P1.pdf', { range: 'bytes=-5' });
    assert.deepEqual(suffix.rawPayload, BYTES.subarray(995));
  });

  test('multiple ranges: 206 multipart/byteranges with each part', async () => {
    const res = await get('/v2/downloads/P1.pdf', { range: 'bytes=0-4, 100-109, 990-' });
    assert.equal(res.statusCode, 206);
    const boundary = /boundary=(.+)$/.exec(String(res.headers['content-type']))![1]!;
    assert.equal(Number(res.headers['content-length']), res.rawPayload.length);
    const parts = parseMultipart(res.rawPayload, boundary);
    assert.deepEqual(parts.map((p) => p.range), ['bytes 0-4/1000', 'bytes 100-109/1000', 'bytes 990-999/1000']);
    assert.deepEqual(parts[1]!.data, BYTES.subarray(100, 110));
    assert.deepEqual(parts[2]!.data, BYTES.subarray(990));
  });

  test('unsatisfiable range: 416 with Content-Range bytes */N', async () => {
    const res = await get('/v2/downloads/P1.pdf', { range: 'bytes=5000-6000' });
    assert.equal(res.statusCode, 416);
    assert.equal(res.headers['content-range'], 'bytes */1000');
    assert.equal(res.json().detail.code, 'range_not_satisfiable');
  });

  test('If-None-Match: 304; If-Range with a stale ETag: the whole file', async () => {
    const etag = String((await get('/v2/downloads/P1.pdf')).headers.etag);
    assert.equal((await get('/v2/downloads/P1.pdf', { 'if-none-match': etag })).statusCode, 304);
    assert.equal((await get('/v2/downloads/P1.pdf', { 'if-none-match': `W/${etag}` })).statusCode, 304);
    const stale = await get('/v2/downloads/P1.pdf', { range: 'bytes=0-9', 'if-range': '"0000"' });
    assert.equal(stale.statusCode, 200);
    assert.equal(stale.rawPayload.length, 1000);
    const fresh = await get('/v2/downloads/P1.pdf', { range: 'bytes=0-9', 'if-range': etag });
    assert.equal(fresh.statusCode, 206);
  });

  test('not eligible: 403 with a clear detail', async () => {
    const res = await get('/v2/downloads/P1.pdf', {}, ineligible.key);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().detail.code, 'not_eligible');
    assert.match(res.json().detail.message, /eligible/);
  });

  test('unknown format, missing original, unknown document: 404', async () => {
    for (const url of ['/v2/downloads/P1.docx', '/v2/downloads/P1.epub', '/v2/downloads/N1.pdf', '/v2/downloads/ZZ.pdf', '/v2/downloads/P1']) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
    }
  });
});
