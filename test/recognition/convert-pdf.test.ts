// The converter end to end on synthetic PDFs (mutool required): Markdown, report fields, metadata,
// checkpoint and resume, cancellation, and every robustness case with its error code or warning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertDocument, isRecognitionError, type PageCheckpoint, type RecognitionErrorCode } from '../../src/recognition/index.js';
import { buildPdf, sampleArticle } from './helpers/pdf-builder.js';
import { fixtures, needs, runner } from './helpers/tools.js';

const skip = await needs('mutool');

async function rejects(bytes: Uint8Array, code: RecognitionErrorCode, extra: Record<string, unknown> = {}): Promise<void> {
  await assert.rejects(convertDocument(bytes, { runner, ...extra }), (e: unknown) => isRecognitionError(e) && e.code === code);
}

test('a text-layer PDF becomes Markdown with headings, paragraphs and page markers', { skip }, async () => {
  const r = await convertDocument(sampleArticle(3), { runner });
  assert.match(r.markdown, /^<!-- page 1 -->\n\n# Synthetic Documents for Testing\n\n## 1 Section number 1\n/);
  assert.match(r.markdown, /<!-- page 3 -->\n\n## 3 Section number 3/);
  assert.match(r.markdown, /the word conversion, while a non-governmental organisation/);
  assert.doesNotMatch(r.markdown, /Journal of Synthetic Examples/); // running header removed
  const rep = r.report;
  assert.equal(rep.input.format, 'pdf');
  assert.equal(rep.input.pages, 3);
  assert.match(rep.input.sha256, /^[0-9a-f]{64}$/);
  assert.equal(rep.input.producer, 'lectern test builder');
  assert.equal(rep.pages.textLayer, 3);
  assert.deepEqual(rep.pages.which.textLayer, [1, 2, 3]);
  assert.equal(rep.structure.headings.total, 4);
  assert.deepEqual(rep.structure.headings.bySource, { title: 1, numbering: 3 });
  assert.equal(rep.structure.removedHeaderFooterLines, 6);
  assert.equal(rep.text.language.code, 'en');
  assert.ok(rep.text.letterRatio > 0.7);
  assert.ok(rep.engine.tools.mutool?.includes('mutool'));
  assert.ok(rep.engine.timings.total! > 0);
  assert.ok(rep.score.value > 0.8 && rep.score.grade <= 'B');
  assert.deepEqual(r.metadata.authors, ['Ada Example', 'Bob Sample']);
  assert.equal(r.metadata.title, 'Synthetic Documents for Testing');
});

test('checkpoints arrive in page order and resuming gives the same result', { skip }, async () => {
  const bytes = sampleArticle(4);
  const seen: PageCheckpoint[] = [];
  const full = await convertDocument(bytes, { runner, onPage: (c) => void seen.push(c) });
  assert.deepEqual(seen.map((c) => c.page), [1, 2, 3, 4]);
  assert.ok(seen.every((c) => c.pageCount === 4 && c.sha256 === full.report.input.sha256));
  // Resume from the first two pages, serialised as a job store would keep them.
  const stored = JSON.parse(JSON.stringify(seen.slice(0, 2))) as PageCheckpoint[];
  const again: number[] = [];
  const resumed = await convertDocument(bytes, { runner, resumeFrom: stored, onPage: (c) => void again.push(c.page) });
  assert.deepEqual(again, [3, 4]);
  assert.equal(resumed.markdown, full.markdown);
  // Several pages at once: checkpoints still come once each, in order, and the result is the same.
  const parallel: number[] = [];
  const par = await convertDocument(bytes, { runner, pageConcurrency: 3, onPage: (c) => void parallel.push(c.page) });
  assert.deepEqual(parallel, [1, 2, 3, 4]);
  assert.equal(par.markdown, full.markdown);
  // Checkpoints of another input are ignored.
  const other = await convertDocument(sampleArticle(2), { runner, resumeFrom: stored });
  assert.equal(other.report.pages.total, 2);
});

test('an aborted signal cancels with `cancelled`', { skip }, async () => {
  const ac = new AbortController();
  ac.abort();
  await rejects(sampleArticle(1), 'cancelled', { signal: ac.signal });
  const ac2 = new AbortController();
  await assert.rejects(
    convertDocument(sampleArticle(3), { runner, signal: ac2.signal, onPage: () => ac2.abort() }),
    (e: unknown) => isRecognitionError(e) && e.code === 'cancelled',
  );
});

test('robustness: random bytes, empty input, zero pages', { skip }, async () => {
  const random = new Uint8Array(4096);
  for (let i = 0; i < random.length; i++) random[i] = (i * 2654435761) >>> 24;
  await rejects(random, 'unsupported_format');
  await rejects(new Uint8Array(0), 'unsupported_format');
  await rejects(buildPdf([]), 'empty_document');
  // Garbage after a PDF header: damaged, not a crash.
  const fake = new Uint8Array(Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from(random)]));
  await rejects(fake, 'damaged_document');
});

test('robustness: a truncated PDF is repaired (warning) or rejected as damaged', { skip }, async () => {
  const whole = sampleArticle(3);
  for (const cut of [0.5, 0.9]) {
    try {
      const r = await convertDocument(whole.slice(0, Math.floor(whole.length * cut)), { runner });
      assert.ok(r.report.input.repaired);
      assert.ok(r.report.warnings.some((w) => w.code === 'DAMAGED_FILE_REPAIRED'));
    } catch (e) {
      assert.ok(isRecognitionError(e) && e.code === 'damaged_document', String(e));
    }
  }
});

test('robustness: encrypted PDFs', { skip }, async () => {
  await rejects(new Uint8Array(readFileSync(join(fixtures, 'encrypted-user-password.pdf'))), 'encrypted_document');
  const r = await convertDocument(new Uint8Array(readFileSync(join(fixtures, 'encrypted-owner-only.pdf'))), { runner });
  assert.equal(r.report.input.encrypted, true);
  assert.ok(r.report.warnings.some((w) => w.code === 'ENCRYPTED'));
  assert.match(r.markdown, /Section number 1/);
});

test('robustness: a huge image-only page is reported, not rendered', { skip }, async () => {
  const r = await convertDocument(buildPdf([{ width: 14400, height: 14400, image: { w: 2, h: 2 } }]), { runner });
  assert.deepEqual(r.report.pages.which.failed, [1]);
  assert.ok(r.report.warnings.some((w) => w.code === 'PAGE_TOO_LARGE' && w.pages[0] === 1));
  assert.ok(r.report.warnings.some((w) => w.code === 'IMAGE_ONLY_PAGES'));
});

test('robustness: limits on bytes and pages; OCR disabled leaves image pages empty', { skip }, async () => {
  await rejects(sampleArticle(3), 'too_many_pages', { limits: { maxPages: 2 } });
  await rejects(sampleArticle(1), 'document_too_large', { limits: { maxBytes: 100 } });
  const r = await convertDocument(buildPdf([{ image: { w: 4, h: 4 } }, { runs: [{ x: 72, y: 72, text: 'Some text on the second page.' }] }]), { runner, ocr: { enabled: false } });
  assert.deepEqual(r.report.pages.which.empty, [1]);
  assert.ok(r.report.warnings.some((w) => w.code === 'OCR_UNAVAILABLE'));
  assert.ok(r.report.warnings.some((w) => w.code === 'EMPTY_PAGES' || w.code === 'IMAGE_ONLY_PAGES'));
});

test('robustness: the overall time limit truncates instead of hanging', { skip }, async () => {
  let t = 0;
  // A clock that jumps 10 s per reading makes the 1 s overall limit expire during the first chunk.
  await assert.rejects(
    convertDocument(sampleArticle(3), { runner, now: () => (t += 10_000), limits: { totalTimeoutMs: 1000 } }),
    (e: unknown) => isRecognitionError(e) && e.code === 'conversion_timeout',
  );
});
