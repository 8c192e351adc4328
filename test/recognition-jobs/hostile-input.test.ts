// Hostile uploads cannot take the service down or loop it (issue 12, first item): EPUB entries that
// expand past the per-entry limit, text past the character limit, a conversion thread that runs out of
// heap (the thread ends, the process lives), and a content whose conversions keep dying (refused after
// MAX_CONVERSION_ATTEMPTS). Refused contents are not converted again, for any account, and their uploads go.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createHash } from 'node:crypto';
import { testApp, type TestApp } from '../helpers/app.js';
import { buildEpub } from '../recognition/helpers/epub-builder.js';
import { balance, submit, waitFor } from './helpers.js';
import { threadedConvert, MAX_CONVERSION_ATTEMPTS, type ConvertFn } from '../../src/recognition-jobs/index.js';
import { isRecognitionError, RecognitionError } from '../../src/recognition/index.js';

describe('hostile recognition input', () => {
  let app: TestApp;
  before(async () => {
    app = await testApp({}, { recognition: { workers: 1, limits: { maxTextChars: 200_000 } } });
  });
  after(() => app.dispose());

  test('an EPUB entry that expands past the per-entry limit fails the job (free), and the same bytes are refused for everyone without converting', async () => {
    const a = await app.account({ credits: 100 });
    const b = await app.account({ credits: 100 });
    const bomb = buildEpub({ title: 'Bomb', chapters: [{ file: 'c1.xhtml', body: `<p>${'all work and no play '.repeat(1_800_000)}</p>` }] });
    assert.ok(bomb.byteLength < 1_000_000, `bomb is ${bomb.byteLength} bytes`);
    const res = await submit(app, a.key, bomb);
    assert.equal(res.statusCode, 202, res.body);
    const job = await waitFor(app, a.key, res.json().id);
    assert.equal(job.status, 'failed');
    assert.equal(job.error.code, 'document_too_large');
    assert.equal(await balance(app, a.id), 100);
    const sha = createHash('sha256').update(bomb).digest('hex');
    assert.equal(await app.blobs.stat(`recognition/${sha}`), null, 'the upload is deleted');
    const again = await waitFor(app, b.key, (await submit(app, b.key, bomb)).json().id);
    assert.equal(again.status, 'failed');
    assert.equal(again.error.code, 'document_too_large');
    assert.match(again.error.message, /refused before/);
    assert.equal(await balance(app, b.id), 100);
  });

  test('text past the character limit fails the job as document_too_large', async () => {
    const a = await app.account({ credits: 100 });
    const many = buildEpub({ chapters: Array.from({ length: 12 }, (_, i) => ({ file: `c${i}.xhtml`, body: `<p>${`Chapter ${i} words and more words. `.repeat(700)}</p>` })) });
    const job = await waitFor(app, a.key, (await submit(app, a.key, many)).json().id);
    assert.equal(job.status, 'failed');
    assert.equal(job.error.code, 'document_too_large');
    assert.match(job.error.message, /200000 characters/);
    assert.equal(await balance(app, a.id), 100);
  });

  test(`a content whose conversions died ${MAX_CONVERSION_ATTEMPTS} times is refused for good instead of crash-looping`, async () => {
    const a = await app.account({ credits: 100 });
    const epub = buildEpub({ chapters: [{ file: 'c1.xhtml', body: '<p>A perfectly ordinary chapter that once killed a server.</p>' }] });
    const sha = createHash('sha256').update(epub).digest('hex');
    // What two conversions that never answered (the process was killed during them) leave behind.
    await app.blobs.put(`recognition-attempts/${sha}`, new Uint8Array(MAX_CONVERSION_ATTEMPTS));
    const job = await waitFor(app, a.key, (await submit(app, a.key, epub)).json().id);
    assert.equal(job.status, 'failed');
    assert.equal(job.error.code, 'conversion_crashed');
    assert.equal(await balance(app, a.id), 100);
  });

  test('a normal EPUB still converts, and clears its attempt marker', async () => {
    const a = await app.account({ credits: 100 });
    const epub = buildEpub({ chapters: [{ file: 'c1.xhtml', body: '<h1>Fine</h1><p>An ordinary chapter.</p>' }] });
    const job = await waitFor(app, a.key, (await submit(app, a.key, epub)).json().id);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    const sha = createHash('sha256').update(epub).digest('hex');
    assert.equal(await app.blobs.stat(`recognition-attempts/${sha}`), null);
  });
});

test('a conversion thread that exhausts its heap ends alone with document_too_large; the process lives', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-oom-'));
  const worker = join(dir, 'hog.mjs');
  writeFileSync(worker, 'const keep = []; for (;;) keep.push(new Array(100000).fill({ x: Math.random() }));\n');
  const convert = threadedConvert(pathToFileURL(worker), { maxHeapMb: 32 });
  const err = await convert(new Uint8Array([1]), {} as Parameters<typeof convert>[1]).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(isRecognitionError(err), String(err));
  assert.equal((err as { code: string }).code, 'document_too_large');
  assert.equal(typeof process.memoryUsage().heapUsed, 'number');
});

test('a conversion thread past its wall-time limit is stopped as conversion_timeout', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-slow-'));
  const worker = join(dir, 'slow.mjs');
  writeFileSync(worker, 'setInterval(() => {}, 1000);\n');
  const convert = threadedConvert(pathToFileURL(worker), { maxWallMs: 200 });
  const err = await convert(new Uint8Array([1]), {} as Parameters<typeof convert>[1]).then(() => null, (e: unknown) => e);
  assert.ok(isRecognitionError(err));
  assert.equal((err as { code: string }).code, 'conversion_timeout');
});

test('a cancelled job whose content no other job needs leaves no upload behind', async () => {
  // A conversion that never finishes on its own; like the real one, it answers an abort with `cancelled`.
  const forever: ConvertFn = (_bytes, options) =>
    new Promise((_, reject) => {
      const cancelled = () => reject(new RecognitionError('cancelled', 'the conversion was cancelled'));
      if (options.signal?.aborted) cancelled();
      options.signal?.addEventListener('abort', cancelled, { once: true });
    });
  const app = await testApp({}, { recognition: { workers: 1, wrapConvert: () => forever } });
  try {
    const a = await app.account({ credits: 100 });
    const epub = buildEpub({ chapters: [{ file: 'c1.xhtml', body: '<p>Waiting forever.</p>' }] });
    const sha = createHash('sha256').update(epub).digest('hex');
    const id = (await submit(app, a.key, epub)).json().id;
    assert.ok(await app.blobs.stat(`recognition/${sha}`));
    const del = await app.http.inject({ method: 'DELETE', url: `/v1/recognitions/${id}`, headers: { 'x-api-key': a.key } });
    assert.equal(del.statusCode, 200, del.body);
    assert.equal(await app.blobs.stat(`recognition/${sha}`), null);
  } finally {
    await app.dispose();
  }
});
