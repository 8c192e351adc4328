// Billing by what was read (ADR 0236) and EPUBs as reading systems open them (ADR 0235), through the job
// API with the real converter: blank pages (PDF, DJVU) are free, a document of blank pages completes at 0
// credits; an EPUB whose `mimetype` is not the first ZIP entry (and is past the first 64 KiB the upload
// is detected from) is accepted and billed per distinct content document; a large ZIP that is no EPUB is
// refused with 422 and leaves nothing stored.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testApp, type TestApp } from '../helpers/app.js';
import { buildEpub } from '../recognition/helpers/epub-builder.js';
import { buildPdf } from '../recognition/helpers/pdf-builder.js';
import { fixtures, needs } from '../recognition/helpers/tools.js';
import { balance, submit, waitFor } from './helpers.js';
import { billablePages } from '../../src/recognition-jobs/recognition-job-service.js';
import { strToU8, zipSync } from 'fflate';

const mutool = await needs('mutool');
const djvu = await needs('djvused', 'djvudump', 'ddjvu');

/** Bytes that do not compress, so the archive is larger than the detection head. */
function noise(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

describe('recognition billing by pages read, and EPUBs in any entry order', () => {
  let app: TestApp;
  before(async () => {
    app = await testApp({}, { recognition: { workers: 1 } });
  });
  after(() => app.dispose());

  const run = async (bytes: Uint8Array) => {
    const a = await app.account({ credits: 100 });
    const res = await submit(app, a.key, bytes);
    assert.equal(res.statusCode, 202, res.body);
    const job = await waitFor(app, a.key, res.json().id);
    assert.equal(job.status, 'completed', JSON.stringify(job.error));
    const result = (await app.http.inject({ method: 'GET', url: `/v1/recognitions/${job.id}/result`, headers: { 'x-api-key': a.key } })).json();
    return { a, job, result };
  };

  test('a PDF of one blank page completes with no text and is not charged', { skip: mutool }, async () => {
    const { a, job, result } = await run(buildPdf([{}]));
    assert.equal(job.pages_total, 1);
    assert.equal(result.quality.pages.empty, 1);
    assert.equal(result.quality.pages.billable, 0);
    assert.equal(job.charged_credits, 0);
    assert.equal(await balance(app, a.id), 100);
    const entries = await app.storage.ledger.entries(a.id, 10);
    assert.equal(entries.filter((e) => e.operation === 'recognition').length, 0, 'no ledger entry for a free job');
  });

  test('blank pages inside a PDF are free; the pages with text are billed', { skip: mutool }, async () => {
    const text = (s: string) => ({ runs: [{ x: 72, y: 100, text: s, size: 11 }] });
    const { a, job, result } = await run(buildPdf([text('The first page has words on it.'), {}, text('The third page has words too.'), {}]));
    assert.equal(job.pages_total, 4);
    assert.deepEqual(result.quality.pages.which.empty, [2, 4]);
    assert.equal(job.charged_credits, 2 * app.config.prices.recognitionPerPage);
    assert.equal(await balance(app, a.id), 100 - job.charged_credits);
  });

  test('a blank DJVU page completes and is not charged', { skip: djvu }, async () => {
    const { a, job, result } = await run(new Uint8Array(readFileSync(join(fixtures, 'blank-page.djvu'))));
    assert.equal(result.quality.input.format, 'djvu');
    assert.equal(result.quality.pages.billable, 0);
    assert.equal(job.charged_credits, 0);
    assert.equal(await balance(app, a.id), 100);
  });

  test('an EPUB whose mimetype entry comes last, past the first 64 KiB, is accepted and billed once per content document', async () => {
    const chapters = [
      { file: 'one.xhtml', body: '<h1>One</h1><p>The first chapter.</p>' },
      { file: 'two.xhtml', body: '<h1>Two</h1><p>The second chapter.</p>' },
      { file: 'three.xhtml', body: '<h1>Three</h1><p>The third chapter.</p>' },
    ];
    const epub = buildEpub({ chapters, order: 'sorted', fragmentsPerChapter: 3, extra: { 'OEBPS/images/cover.png': noise(150_000, 7) } });
    assert.ok(epub.length > 140_000);
    assert.equal(Buffer.from(epub.subarray(30, 38)).toString('latin1'), 'META-INF');
    const { a, job, result } = await run(epub);
    assert.equal(job.format, 'epub');
    assert.equal(result.quality.input.pages, 3, 'nine spine entries, three content documents');
    assert.equal(job.charged_credits, 3 * app.config.prices.recognitionPerPage);
    assert.equal(await balance(app, a.id), 100 - job.charged_credits);
    assert.equal(result.markdown.match(/The second chapter/g)?.length, 1);
  });

  // Debian's EPUB books (ubuntu-packaging-guide-epub 1.0.4, live-manual-epub 2:20151217.2): zipped in name
  // order, `mimetype` last. Used where installed, or from LECTERN_EPUB_DIR (apt-get download; dpkg-deb -x).
  const debianEpubs = [
    ['ubuntu-packaging-guide-epub/ubuntu-packaging-guide.epub', 125],
    ['live-manual/epub/live-manual.en.epub', 47],
  ]
    .map(([rel, files]) => [[process.env.LECTERN_EPUB_DIR, '/usr/share/doc'].map((d) => (d ? join(d, rel as string) : '')).find((f) => f && existsSync(f)), files] as const)
    .filter((x): x is readonly [string, number] => !!x[0]);
  test('the EPUB books in Debian convert through the API, billed once per content document', { skip: debianEpubs.length ? false : 'the Debian EPUB packages are not installed (set LECTERN_EPUB_DIR)' }, async () => {
    for (const [file, files] of debianEpubs) {
      const bytes = new Uint8Array(readFileSync(file));
      const a = await app.account({ credits: 1000 });
      const res = await submit(app, a.key, bytes, 'book.bin');
      assert.equal(res.statusCode, 202, `${file}: ${res.body}`);
      const job = await waitFor(app, a.key, res.json().id, 120_000);
      assert.equal(job.status, 'completed', `${file}: ${JSON.stringify(job.error)}`);
      assert.equal(job.pages_total, files, file);
      assert.equal(job.charged_credits, files * app.config.prices.recognitionPerPage, file);
    }
  });

  test('staging in small chunks: the directory at the end decides (EPUB accepted, other ZIP refused and removed)', async () => {
    const chunks = async function* (b: Uint8Array) {
      for (let i = 0; i < b.length; i += 4096) yield b.subarray(i, i + 4096);
    };
    const epub = buildEpub({ chapters: [{ file: 'one.xhtml', body: '<p>Text.</p>' }], order: 'reversed', extra: { 'OEBPS/images/big.png': noise(100_000, 11) } });
    const staged = await app.recognitions.stage(chunks(epub));
    assert.equal(staged.format, 'epub');
    assert.equal(staged.bytes, epub.length);
    await app.recognitions.discard(staged);
    const before = (await app.blobs.list('recognition/')).length;
    const zip = zipSync({ 'a.bin': [noise(120_000, 5), { level: 0 }], 'notes.txt': strToU8('not a book') });
    await assert.rejects(app.recognitions.stage(chunks(zip)), (e: { code?: string }) => e.code === 'unsupported_format');
    assert.equal((await app.blobs.list('recognition/')).length, before);
  });

  test('a large ZIP that is not an EPUB is refused with 422 after its directory is read, and its upload is removed', async () => {
    const a = await app.account({ credits: 100 });
    const before = (await app.blobs.list('recognition/')).length;
    const zip = zipSync({ 'a.bin': [noise(120_000, 3), { level: 0 }], 'notes.txt': strToU8('not a book') });
    const res = await submit(app, a.key, zip, 'book.epub');
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().detail.code, 'unsupported_format');
    assert.equal((await app.blobs.list('recognition/')).length, before, 'nothing left in the blob store');
    assert.equal(await balance(app, a.id), 100);
  });
});

test('billablePages: the report field, bounded by the pages; the pages for a report without it', () => {
  assert.equal(billablePages(JSON.stringify({ pages: { billable: 3 } }), 5), 3);
  assert.equal(billablePages(JSON.stringify({ pages: { billable: 0 } }), 5), 0);
  assert.equal(billablePages(JSON.stringify({ pages: { billable: 9 } }), 5), 5);
  assert.equal(billablePages(JSON.stringify({ pages: {} }), 5), 5);
  assert.equal(billablePages('not json', 5), 5);
});
