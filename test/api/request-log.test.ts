// The request log as docs/operations.md promises it (issue 25: two lines, 441 bytes per request): one
// JSON line per request at `info`, about 250 bytes, with the documented fields; a refusal's code on
// that line; no credential and no query string in it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/app.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';

describe('request log', () => {
  let app: TestApp;
  const lines: string[] = [];
  let acct: { id: number; key: string };
  before(async () => {
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(...String(chunk).split('\n').filter((l) => l !== ''));
        cb();
      },
    });
    app = await testApp({}, { logger: createLogger({ logLevel: 'info' }, sink) });
    acct = await app.account({ credits: 10_000 });
    await seed(app, [doc('r1', { title: 'Hydrogen storage in salt caverns', abstract: 'Salt caverns store hydrogen.' })]);
    await app.indexes!.catchUp();
  });
  after(() => app.dispose());

  test('one line per request, about 250 bytes, with the documented fields; refusals carry their code', async () => {
    const requests = [
      { method: 'POST' as const, url: '/v2/search/', payload: { query: 'hydrogen caverns', limit: 3 }, key: true, status: 200 },
      { method: 'GET' as const, url: '/v2/documents/r1?max_tokens=5', key: true, status: 200 },
      { method: 'GET' as const, url: '/v2/documents/nope', key: true, status: 404 },
      { method: 'POST' as const, url: '/v2/search/', payload: { query: 'x', limit: 0 }, key: true, status: 422 },
      { method: 'GET' as const, url: '/v2/documents/r1', key: false, status: 401 },
      { method: 'GET' as const, url: '/no/such/route', key: false, status: 404 },
      { method: 'GET' as const, url: '/healthz', key: false, status: 200 },
    ];
    for (const r of requests) {
      lines.length = 0;
      const res = await app.http.inject({ method: r.method, url: r.url, headers: r.key ? { 'x-api-key': acct.key } : {}, ...(r.payload ? { payload: r.payload } : {}) });
      assert.equal(res.statusCode, r.status, `${r.method} ${r.url}`);
      assert.equal(lines.length, 1, `${r.method} ${r.url}: one line, got ${lines.length}:\n${lines.join('\n')}`);
      const line = lines[0]!;
      assert.ok(Buffer.byteLength(line) <= 300, `${Buffer.byteLength(line)} bytes: ${line}`);
      const entry = JSON.parse(line) as Record<string, unknown>;
      assert.deepEqual(Object.keys(entry).filter((k) => !['account', 'code'].includes(k)), ['level', 'time', 'service', 'request_id', 'method', 'path', 'status', 'ms', 'remote', 'msg']);
      assert.equal(entry.level, 30);
      assert.equal(entry.msg, 'request');
      assert.equal(entry.request_id, res.headers['x-request-id']);
      assert.equal(entry.method, r.method);
      assert.equal(entry.path, r.url.split('?')[0], 'no query string');
      assert.equal(entry.status, r.status);
      assert.equal(typeof entry.ms, 'number');
      assert.equal(entry.account, r.key && r.status !== 401 ? acct.id : undefined);
      if (r.status >= 400) assert.equal(typeof entry.code, 'string', 'a refusal names its code');
      assert.ok(!line.includes(acct.key), 'no credential');
    }
  });
});
