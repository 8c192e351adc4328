// Recognition jobs over HTTP with the real converter and tools: submit, poll, result, billing, dedup,
// owner-only reads, request errors, robustness inputs, limits, cancellation. Samples come from the shared
// evaluation data beside the checkout (skipped with the reason when absent) or are built in memory.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { recognitionJobStoreFor } from '../../src/adapters/recognition-job-store-factory.js';
import { PIPELINE_VERSION, RecognitionError } from '../../src/recognition/index.js';
import type { ConvertFn } from '../../src/recognition-jobs/index.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { buildEpub, encryptionXml } from '../recognition/helpers/epub-builder.js';
import { buildPdf, sampleArticle } from '../recognition/helpers/pdf-builder.js';
import { fixtures, needs, recognitionData } from '../recognition/helpers/tools.js';
import { balance, multipart, submit, waitFor } from './helpers.js';

const noData = recognitionData ? false : 'the shared recognition data (../shared/data/recognition) is not beside this checkout';
const sample = (...p: string[]) => new Uint8Array(readFileSync(join(recognitionData!, ...p)));
const mutool = await needs('mutool');
const djvu = await needs('djvused', 'djvudump', 'ddjvu');

/** Wraps the service's converter (a worker thread): counts calls, can hold them at the start until released (or aborted). */
function instrumented() {
  let release: () => void = () => {};
  let gate: Promise<void> = Promise.resolve();
  const calls: string[] = [];
  const wrap = (inner: ConvertFn): ConvertFn => async (bytes, options) => {
    calls.push(String(bytes.length));
    await new Promise<void>((resolve, reject) => {
      if (options.signal?.aborted) return reject(new RecognitionError('cancelled', 'aborted'));
      options.signal?.addEventListener('abort', () => reject(new RecognitionError('cancelled', 'aborted')), { once: true });
      void gate.then(resolve);
    });
    return inner(bytes, options);
  };
  return {
    wrap,
    calls,
    hold() {
      gate = new Promise((r) => (release = r));
    },
    release: () => release(),
  };
}

describe('recognition jobs over HTTP', () => {
  let app: TestApp;
  const conv = instrumented();
  before(async () => {
    app = await testApp({ limits: { jsonBodyBytes: 1024 * 1024, requestTimeoutMs: 120_000, uploadBytes: 4 * 1024 * 1024, uploadPages: 40, queryMaxTerms: 256, queryMaxPostings: 5_000_000, queryMaxResultTerms: 10_000, searchConcurrency: 4, shutdownGraceMs: 10_000 } }, { recognition: { wrapConvert: conv.wrap, workers: 2 } });
  });
  after(() => app.dispose());

  const e2e = async (bytes: Uint8Array, format: string, filename: string) => {
    const a = await app.account({ credits: 1000 });
    const res = await submit(app, a.key, bytes, filename);
    assert.equal(res.statusCode, 202, res.body);
    const created = res.json();
    assert.equal(created.status, 'pending');
    assert.match(created.id, /^rj_[0-9a-f]{32}$/);
    assert.equal(created.format, format);
    assert.equal(res.headers.location, `/v1/recognitions/${created.id}`);
    const job = await waitFor(app, a.key, created.id);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    assert.ok(job.pages_total > 0);
    assert.equal(job.pages_done, job.pages_total);
    assert.equal(job.charged_credits, (await app.http.inject({ method: 'GET', url: `/v1/recognitions/${created.id}/result`, headers: { 'x-api-key': a.key } })).json().quality.pages.billable * app.config.prices.recognitionPerPage);
    const result = await app.http.inject({ method: 'GET', url: `/v1/recognitions/${created.id}/result`, headers: { 'x-api-key': a.key } });
    assert.equal(result.statusCode, 200, result.body);
    const body = result.json();
    assert.equal(body.id, created.id);
    assert.equal(body.status, 'completed');
    assert.ok(body.markdown.length > 100);
    assert.equal(body.quality.input.format, format);
    assert.equal(body.quality.input.pages, job.pages_total);
    const md = await app.http.inject({ method: 'GET', url: `/v1/recognitions/${created.id}/result`, headers: { 'x-api-key': a.key, accept: 'text/markdown' } });
    assert.equal(md.statusCode, 200);
    assert.match(md.headers['content-type'] as string, /^text\/markdown/);
    assert.equal(md.body, body.markdown);
    // Billed once, by pages, with a ledger entry referencing the job.
    assert.equal(await balance(app, a.id), 1000 - job.charged_credits);
    const entries = await app.storage.ledger.entries(a.id, 10);
    assert.deepEqual(entries.filter((e) => e.operation === 'recognition').map((e) => [e.amount, e.reference]), [[-job.charged_credits, created.id]]);
    return { a, job, body };
  };

  test('PDF end to end: 202 pending, poll to completed, result as JSON and as Markdown, billed once per page', { skip: noData || mutool }, async () => {
    const { body } = await e2e(sample('arxiv', '2304.02623v1.pdf'), 'pdf', 'paper.djvu');
    assert.match(body.markdown, /<!-- page 1 -->/);
    assert.ok(body.quality.structure.headings.total > 3);
  });

  test('EPUB end to end', { skip: noData }, async () => {
    const { body } = await e2e(sample('docling-epub', 'epub_purvis_poetry.epub'), 'epub', 'book.pdf');
    assert.equal(body.quality.structure.headings.total, 19);
  });

  test('DJVU end to end (text layer)', { skip: noData || djvu }, async () => {
    const { body, job } = await e2e(sample('djvu', 'myfile_with_text.djvu'), 'djvu', 'scan');
    assert.equal(job.pages_total, 4);
    assert.match(body.markdown, /é/);
  });

  test('identical resubmission is free and returns the same job; another account gets its own job, converted once, billed once', { skip: mutool }, async () => {
    const bytes = sampleArticle(3);
    const a = await app.account({ credits: 100 });
    const first = await submit(app, a.key, bytes, 'a.pdf');
    assert.equal(first.statusCode, 202);
    const job = await waitFor(app, a.key, first.json().id);
    assert.equal(job.status, 'completed');
    assert.equal(job.charged_credits, 3);
    const callsBefore = conv.calls.length;
    const again = await submit(app, a.key, bytes, 'renamed.epub');
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().id, job.id);
    assert.equal(again.json().status, 'completed');
    assert.equal(await balance(app, a.id), 97, 'the resubmission is free');
    const b = await app.account({ credits: 100 });
    const other = await submit(app, b.key, bytes);
    assert.equal(other.statusCode, 202);
    assert.notEqual(other.json().id, job.id);
    const otherJob = await waitFor(app, b.key, other.json().id);
    assert.equal(otherJob.status, 'completed');
    assert.equal(otherJob.charged_credits, 3);
    assert.equal(await balance(app, b.id), 97);
    assert.equal(await balance(app, a.id), 97);
    assert.equal(conv.calls.length, callsBefore, 'the second account got the cached result: no conversion');
    // Owner-only: each account sees its own job, the other's is 404 (poll, result, cancel).
    for (const [method, url] of [['GET', `/v1/recognitions/${job.id}`], ['GET', `/v1/recognitions/${job.id}/result`], ['DELETE', `/v1/recognitions/${job.id}`]] as const) {
      const res = await app.http.inject({ method, url, headers: { 'x-api-key': b.key } });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
      assert.equal(res.json().detail.code, 'not_found');
    }
    const missing = await app.http.inject({ method: 'GET', url: '/v1/recognitions/rj_00000000000000000000000000000000', headers: { 'x-api-key': b.key } });
    assert.equal(missing.statusCode, 404);
    // Each account lists its own jobs only.
    const listA = await app.http.inject({ method: 'GET', url: '/v1/recognitions', headers: { 'x-api-key': a.key } });
    assert.deepEqual(listA.json(), { jobs: [again.json()], next_before: null });
    const listB = await app.http.inject({ method: 'GET', url: '/v1/recognitions?limit=1', headers: { 'x-api-key': b.key } });
    assert.deepEqual(listB.json().jobs.map((j: { id: string }) => j.id), [otherJob.id]);
    assert.equal(listB.json().next_before, otherJob.id);
    const page2 = await app.http.inject({ method: 'GET', url: `/v1/recognitions?limit=1&before=${otherJob.id}`, headers: { 'x-api-key': b.key } });
    assert.deepEqual(page2.json(), { jobs: [], next_before: null });
    const bad = await app.http.inject({ method: 'GET', url: '/v1/recognitions?limit=0', headers: { 'x-api-key': b.key } });
    assert.equal(bad.statusCode, 422);
  });

  test('after a pipeline upgrade an identical resubmission converts again, free; a current result is returned as before (ADR 0387)', { skip: mutool }, async () => {
    const bytes = sampleArticle(2);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const a = await app.account({ credits: 100 });
    // The account's job for these bytes completed and was billed under an earlier pipeline version.
    const store = recognitionJobStoreFor(app.storage);
    const { job: old } = await store.createOrGet({ id: 'rj_' + 'e'.repeat(32), accountId: a.id, sha256, format: 'pdf', bytes: bytes.length, createdAt: 1 });
    await store.update(old.id, { status: 'completed', pagesDone: 2, pagesTotal: 2, chargedCredits: 2, error: null, updatedAt: 2 });
    await store.putResult({ sha256, pipeline: 'lectern-recognition/0', markdown: 'old markdown', report: JSON.stringify({ pipeline: 'lectern-recognition/0' }), pages: 2, createdAt: 2 });
    assert.equal((await app.http.inject({ method: 'GET', url: `/v1/recognitions/${old.id}/result`, headers: { 'x-api-key': a.key } })).json().markdown, 'old markdown');
    // Even with no credits left, the resubmission is accepted and converts again on the current pipeline, free.
    assert.ok((await app.storage.ledger.debit(a.id, 100, 'test', null, 0)).ok);
    const res = await submit(app, a.key, bytes);
    assert.equal(res.statusCode, 202, res.body);
    assert.notEqual(res.json().id, old.id);
    const job = await waitFor(app, a.key, res.json().id);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    assert.equal(job.charged_credits, 0);
    assert.equal(await balance(app, a.id), 0);
    const result = (await app.http.inject({ method: 'GET', url: `/v1/recognitions/${job.id}/result`, headers: { 'x-api-key': a.key } })).json();
    assert.equal(result.quality.pipeline, PIPELINE_VERSION);
    assert.notEqual(result.markdown, 'old markdown');
    // The earlier job now reads the current result too; a further resubmission returns the new job, free.
    assert.equal((await app.http.inject({ method: 'GET', url: `/v1/recognitions/${old.id}/result`, headers: { 'x-api-key': a.key } })).json().markdown, result.markdown);
    const again = await submit(app, a.key, bytes);
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().id, job.id);
    assert.equal(await balance(app, a.id), 0);
  });

  test('concurrent identical submissions create one job', { skip: mutool }, async () => {
    const a = await app.account({ credits: 100 });
    const bytes = sampleArticle(2);
    const all = await Promise.all(Array.from({ length: 4 }, () => submit(app, a.key, bytes)));
    assert.equal(new Set(all.map((r) => r.json().id)).size, 1);
    assert.deepEqual(all.map((r) => r.statusCode).sort(), [200, 200, 200, 202]);
    await waitFor(app, a.key, all[0]!.json().id);
    assert.equal(await balance(app, a.id), 98);
  });

  test('random bytes: 422 unsupported_format, no job, nothing charged', async () => {
    const a = await app.account({ credits: 100 });
    const random = new Uint8Array(4096);
    for (let i = 0; i < random.length; i++) random[i] = (i * 2654435761) >>> 24;
    for (const bytes of [random, new Uint8Array(0), new TextEncoder().encode('just some text named paper.pdf')]) {
      const res = await submit(app, a.key, bytes, 'paper.pdf');
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().detail.code, 'unsupported_format');
    }
    assert.equal(await balance(app, a.id), 100);
  });

  test('damaged, encrypted (PDF password, EPUB DRM), empty and truncated files: the job fails with the reason and nothing is charged; a resubmission returns the failed job', { skip: mutool }, async () => {
    const a = await app.account({ credits: 100 });
    const random = new Uint8Array(2048);
    for (let i = 0; i < random.length; i++) random[i] = (i * 2654435761) >>> 24;
    const cases: [Uint8Array, string][] = [
      [new Uint8Array(Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from(random)])), 'damaged_document'],
      [new Uint8Array(readFileSync(join(fixtures, 'encrypted-user-password.pdf'))), 'encrypted_document'],
      [buildPdf([]), 'empty_document'],
      [
        buildEpub({
          chapters: [{ file: 'one.xhtml', body: '<h1>One</h1><p>Locked text.</p>' }],
          extra: { 'META-INF/encryption.xml': encryptionXml([{ uri: 'OEBPS/text/one.xhtml', algorithm: 'http://www.w3.org/2001/04/xmlenc#aes128-cbc' }]) },
        }),
        'encrypted_document',
      ],
    ];
    for (const [bytes, code] of cases) {
      const res = await submit(app, a.key, bytes);
      assert.equal(res.statusCode, 202, res.body);
      const job = await waitFor(app, a.key, res.json().id);
      assert.equal(job.status, 'failed');
      assert.equal(job.error.code, code);
      assert.equal(job.charged_credits, null);
      const result = await app.http.inject({ method: 'GET', url: `/v1/recognitions/${job.id}/result`, headers: { 'x-api-key': a.key } });
      assert.equal(result.statusCode, 409);
      assert.equal(result.json().detail.code, 'recognition_failed');
      assert.equal(result.json().detail.reason, code);
      const again = await submit(app, a.key, bytes);
      assert.equal(again.statusCode, 200);
      assert.equal(again.json().id, job.id);
    }
    // A truncated PDF is repaired (completed, with the warning, billed) or rejected as damaged (free).
    const whole = sampleArticle(3);
    const res = await submit(app, a.key, whole.slice(0, Math.floor(whole.length * 0.6)));
    const job = await waitFor(app, a.key, res.json().id);
    if (job.status === 'completed') {
      const r = await app.http.inject({ method: 'GET', url: `/v1/recognitions/${job.id}/result`, headers: { 'x-api-key': a.key } });
      assert.ok(r.json().quality.warnings.some((w: { code: string }) => w.code === 'DAMAGED_FILE_REPAIRED'));
      assert.equal(await balance(app, a.id), 100 - job.charged_credits);
    } else {
      assert.equal(job.error.code, 'damaged_document');
      assert.equal(await balance(app, a.id), 100);
    }
  });

  test('too many pages: the job fails with too_many_pages before any page is converted, nothing charged', { skip: mutool }, async () => {
    const a = await app.account({ credits: 100 });
    const res = await submit(app, a.key, buildPdf(Array.from({ length: 41 }, (_, i) => ({ runs: [{ x: 72, y: 72, text: `Page ${i + 1}` }] }))));
    const job = await waitFor(app, a.key, res.json().id);
    assert.equal(job.status, 'failed');
    assert.equal(job.error.code, 'too_many_pages');
    assert.equal(await balance(app, a.id), 100);
  });

  test('402 when the balance cannot pay one page; short at completion: failed insufficient_credits, then a top-up and resubmission complete at once', { skip: mutool }, async () => {
    const broke = await app.account({ credits: 0 });
    const refused = await submit(app, broke.key, sampleArticle(1));
    assert.equal(refused.statusCode, 402);
    assert.equal(refused.json().detail.code, 'insufficient_credits');
    const short = await app.account({ credits: 2 });
    const bytes = sampleArticle(5);
    const res = await submit(app, short.key, bytes);
    assert.equal(res.statusCode, 202);
    const job = await waitFor(app, short.key, res.json().id);
    assert.equal(job.status, 'failed');
    assert.equal(job.error.code, 'insufficient_credits');
    assert.match(job.error.message, /costs 5 credits; the balance is 2/);
    assert.equal(await balance(app, short.id), 2);
    await app.accounts.topUp(short.id, 10, null);
    const calls = conv.calls.length;
    const retry = await submit(app, short.key, bytes);
    assert.equal(retry.statusCode, 202);
    const done = await waitFor(app, short.key, retry.json().id);
    assert.equal(done.status, 'completed');
    assert.equal(done.charged_credits, 5);
    assert.equal(await balance(app, short.id), 7);
    assert.equal(conv.calls.length, calls, 'the cached conversion was reused');
    // With the balance spent, the identical resubmission is still answered (free): no 402.
    assert.ok((await app.storage.ledger.debit(short.id, 7, 'test', null, 0)).ok);
    const free = await submit(app, short.key, bytes);
    assert.equal(free.statusCode, 200);
    assert.equal(free.json().id, done.id);
  });

  test('413 over the upload limit (declared or streamed); nothing charged', async () => {
    const a = await app.account({ credits: 100 });
    const big = new Uint8Array(4 * 1024 * 1024 + 10);
    big.set(new TextEncoder().encode('%PDF-1.7\n'));
    const res = await submit(app, a.key, big);
    assert.equal(res.statusCode, 413, res.body);
    assert.equal(res.json().detail.code, 'payload_too_large');
    assert.equal(res.json().detail.limit_bytes, 4 * 1024 * 1024);
    const huge = await app.http.inject({
      method: 'POST',
      url: '/v1/recognitions',
      headers: { 'x-api-key': a.key, 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(64 * 1024 * 1024) },
      payload: Buffer.alloc(16),
    });
    assert.equal(huge.statusCode, 413);
    assert.equal(await balance(app, a.id), 100);
  });

  test('request errors: 401 without a credential, 415 for another body type, 400 without the file part', async () => {
    const a = await app.account({ credits: 100 });
    const { body, contentType } = multipart([{ name: 'file', filename: 'x.pdf', data: sampleArticle(1) }]);
    const anon = await app.http.inject({ method: 'POST', url: '/v1/recognitions', headers: { 'content-type': contentType }, payload: body });
    assert.equal(anon.statusCode, 401);
    const json = await app.http.inject({ method: 'POST', url: '/v1/recognitions', headers: { 'x-api-key': a.key, 'content-type': 'application/json' }, payload: '{"file":"x"}' });
    assert.equal(json.statusCode, 415);
    assert.match(json.json().detail.message, /multipart\/form-data.*"file"/);
    const raw = await app.http.inject({ method: 'POST', url: '/v1/recognitions', headers: { 'x-api-key': a.key, 'content-type': 'application/pdf' }, payload: Buffer.from(sampleArticle(1)) });
    assert.equal(raw.statusCode, 415);
    const none = await app.http.inject({ method: 'POST', url: '/v1/recognitions', headers: { 'x-api-key': a.key } });
    assert.equal(none.statusCode, 415);
    const fieldsOnly = multipart([{ name: 'note', data: 'hello' }]);
    const missing = await app.http.inject({ method: 'POST', url: '/v1/recognitions', headers: { 'x-api-key': a.key, 'content-type': fieldsOnly.contentType }, payload: fieldsOnly.body });
    assert.equal(missing.statusCode, 400);
    assert.match(missing.json().detail.message, /No file part.*"file"/);
    const wrong = multipart([{ name: 'document', filename: 'x.pdf', data: sampleArticle(1) }]);
    const wrongPart = await app.http.inject({ method: 'POST', url: '/v1/recognitions', headers: { 'x-api-key': a.key, 'content-type': wrong.contentType }, payload: wrong.body });
    assert.equal(wrongPart.statusCode, 400);
    assert.match(wrongPart.json().detail.message, /Unexpected file part "document"/);
    const two = multipart([{ name: 'file', filename: 'a.pdf', data: sampleArticle(1) }, { name: 'file', filename: 'b.pdf', data: sampleArticle(2) }]);
    const twoFiles = await app.http.inject({ method: 'POST', url: '/v1/recognitions', headers: { 'x-api-key': a.key, 'content-type': two.contentType }, payload: two.body });
    assert.equal(twoFiles.statusCode, 400);
    assert.match(twoFiles.json().detail.message, /Only one file per request/);
    assert.equal(await balance(app, a.id), 100);
  });

  test('before completion the result is 409 recognition_not_ready; DELETE cancels (nothing charged), then 409 recognition_failed and 409 on a second DELETE', { skip: mutool }, async () => {
    const a = await app.account({ credits: 100 });
    conv.hold();
    try {
      const res = await submit(app, a.key, sampleArticle(4));
      assert.equal(res.statusCode, 202);
      const id = res.json().id;
      const early = await app.http.inject({ method: 'GET', url: `/v1/recognitions/${id}/result`, headers: { 'x-api-key': a.key } });
      assert.equal(early.statusCode, 409);
      assert.equal(early.json().detail.code, 'recognition_not_ready');
      const del = await app.http.inject({ method: 'DELETE', url: `/v1/recognitions/${id}`, headers: { 'x-api-key': a.key } });
      assert.equal(del.statusCode, 200);
      assert.equal(del.json().status, 'cancelled');
      assert.equal(del.json().error.code, 'cancelled');
      const after = await app.http.inject({ method: 'GET', url: `/v1/recognitions/${id}/result`, headers: { 'x-api-key': a.key } });
      assert.equal(after.statusCode, 409);
      assert.equal(after.json().detail.code, 'recognition_failed');
      assert.equal(after.json().detail.reason, 'cancelled');
      const twice = await app.http.inject({ method: 'DELETE', url: `/v1/recognitions/${id}`, headers: { 'x-api-key': a.key } });
      assert.equal(twice.statusCode, 409);
      await app.recognitions.idle();
      assert.equal((await waitFor(app, a.key, id)).status, 'cancelled');
      assert.equal(await balance(app, a.id), 100);
      // A cancelled job frees its slot: submitting the same bytes again starts a new job.
      conv.release();
      const again = await submit(app, a.key, sampleArticle(4));
      assert.equal(again.statusCode, 202);
      assert.notEqual(again.json().id, id);
      assert.equal((await waitFor(app, a.key, again.json().id)).status, 'completed');
    } finally {
      conv.release();
    }
  });

  test('GET /v1/recognitions/formats lists the formats with their missing tools; metrics count jobs by outcome', async () => {
    const a = await app.account({ credits: 0 });
    const res = await app.http.inject({ method: 'GET', url: '/v1/recognitions/formats', headers: { 'x-api-key': a.key } });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(body.formats.map((f: { format: string }) => f.format), ['pdf', 'epub', 'djvu']);
    assert.equal(body.formats.find((f: { format: string }) => f.format === 'epub').available, true);
    assert.equal(body.max_bytes, 4 * 1024 * 1024);
    assert.equal(body.max_pages, 40);
    const metrics = await app.http.inject({ method: 'GET', url: '/metrics' });
    assert.match(metrics.body, /lectern_recognition_queue_depth \d+/);
    assert.match(metrics.body, /lectern_recognition_workers 2/);
    assert.match(metrics.body, /# TYPE lectern_recognition_jobs_total counter/);
  });

  test('refused and duplicate uploads leave nothing behind in the staging area', async () => {
    const incoming = join(app.config.blobDir, 'recognition', 'incoming');
    assert.deepEqual(existsSync(incoming) ? readdirSync(incoming) : [], []);
  });
});
