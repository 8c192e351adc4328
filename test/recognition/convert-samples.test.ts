// Each format on a small real sample from the shared evaluation data (skipped when it is not beside the
// checkout): a DJVU text layer with accents, a DJVU page without text (OCR), a rotated scan (OCR with
// rotation recovery), and the EPUB. Kept to a few pages: OCR costs seconds per page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertDocument } from '../../src/recognition/index.js';
import { needs, recognitionData, runner } from './helpers/tools.js';

const noData = recognitionData ? false : 'the shared recognition data is not beside this checkout';
const read = (...p: string[]): Uint8Array => new Uint8Array(readFileSync(join(recognitionData!, ...p)));

test('DJVU text layer: words with accents, line boxes, no OCR', { skip: noData || (await needs('djvused', 'djvudump')) }, async () => {
  const r = await convertDocument(read('djvu', 'myfile_with_text.djvu'), { runner });
  assert.match(r.markdown, /é/);
  assert.match(r.markdown, /ç/);
  assert.equal(r.report.pages.textLayer, 4);
  assert.equal(r.report.ocr.pages, 0);
  assert.deepEqual(r.report.engine.backends, ['djvused']);
});

test('DJVU without text layer goes through OCR and says so', { skip: noData || (await needs('djvused', 'djvudump', 'ddjvu', 'tesseract')) }, async () => {
  const r = await convertDocument(read('djvu', 'myfile_wo_text.djvu'), { runner, limits: { maxPages: 10 } });
  assert.equal(r.report.pages.ocr + r.report.pages.empty, 4);
  assert.ok(r.report.warnings.some((w) => w.code === 'DJVU_NO_TEXT_LAYER'));
  assert.match(r.markdown.toLowerCase(), /file/);
});

test('a scan rotated by 90 degrees is turned upright and read', { skip: noData || (await needs('mutool', 'tesseract')) }, async () => {
  const expected = readFileSync(join(recognitionData!, 'docling-ocr', 'ocr_test.groundtruth.md'), 'utf8').trim();
  const r = await convertDocument(read('docling-ocr', 'ocr_test_rotated_90.pdf'), { runner });
  assert.ok(r.markdown.replace(/\s+/g, ' ').includes(expected), r.markdown);
  assert.deepEqual(r.report.ocr.rotatedPages, [{ page: 1, degrees: 90 }]);
  assert.ok(r.report.warnings.some((w) => w.code === 'ROTATED_PAGES_CORRECTED'));
  assert.ok(r.report.warnings.some((w) => w.code === 'IMAGE_ONLY_PAGES'));
  assert.ok((r.report.ocr.meanConfidence ?? 0) > 80);
  assert.equal(r.report.pages.ocr, 1);
});

test('the sample EPUB keeps every heading', { skip: noData }, async () => {
  const r = await convertDocument(read('docling-epub', 'epub_purvis_poetry.epub'), { runner });
  assert.equal(r.report.structure.headings.total, 19);
  assert.equal(r.metadata.title, 'Poetry');
});
