// DJVU pages built here with djvulibre's own encoders (ADR 0373): a page whose INFO chunk turns it is read
// as ddjvu shows it, at its own resolution, not shrunk into the box of its unturned size; a page with hidden
// text is read without OCR; djvused's page delimiter carries the rotation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PageCheckpoint } from '../../src/recognition/checkpoint.js';
import { splitBySize } from '../../src/recognition/djvu/djvu-extractor.js';
import type { PageExtraction } from '../../src/recognition/layout-model.js';
import { convertDocument } from '../../src/recognition/index.js';
import { buildPdf, wrap } from './helpers/pdf-builder.js';
import { needs, runner } from './helpers/tools.js';

const TEXT =
  'The quick brown fox jumps over the lazy dog while seven careful readers check every printed word of this short page. ' +
  'Scanned books are often bundled as DJVU files with one bilevel layer for the letters.';

/** A one-page bilevel DJVU at `dpi` made from a letter-size PDF page (mutool draw, cjb2), optionally turned. */
function djvuPage(dir: string, dpi: number, rotation: number): Uint8Array {
  const runs = wrap(TEXT, 60).map((l, i) => ({ x: 72, y: 100 + i * 22, text: l, size: 14 }));
  writeFileSync(join(dir, 'p.pdf'), buildPdf([{ runs }]));
  execFileSync('mutool', ['draw', '-q', '-r', String(dpi), '-c', 'mono', '-o', join(dir, 'p.pbm'), join(dir, 'p.pdf'), '1']);
  execFileSync('cjb2', ['-dpi', String(dpi), join(dir, 'p.pbm'), join(dir, 'p.djvu')]);
  if (rotation) execFileSync('djvused', [join(dir, 'p.djvu'), '-e', `select 1; set-rotation ${rotation}`, '-s']);
  return new Uint8Array(readFileSync(join(dir, 'p.djvu')));
}

/** cjb2 (djvulibre-bin, beside ddjvu) is no converter tool, so the runner does not probe it. */
const cjb2 = ((): string | false => {
  try {
    execFileSync('sh', ['-c', 'command -v cjb2'], { stdio: 'ignore' });
    return false;
  } catch {
    return 'cjb2 is not installed (djvulibre-bin)';
  }
})();
const tools = cjb2 || (await needs('mutool', 'djvused', 'djvudump', 'ddjvu', 'tesseract'));

async function convert(bytes: Uint8Array): Promise<{ markdown: string; pages: PageExtraction[]; ocrPages: number }> {
  const pages: PageExtraction[] = [];
  const r = await convertDocument(bytes, { runner, onPage: (c: PageCheckpoint) => void pages.push(c.unit as PageExtraction) });
  return { markdown: r.markdown.replace(/\s+/g, ' '), pages, ocrPages: r.report.pages.ocr };
}

test('a DJVU page turned by its INFO rotation is OCRed at its own resolution, as ddjvu shows it', { skip: tools }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-djvu-'));
  try {
    const upright = await convert(djvuPage(dir, 200, 0));
    assert.equal(upright.ocrPages, 1);
    assert.match(upright.markdown, /quick brown fox jumps over the lazy dog/);
    assert.ok(Math.abs(upright.pages[0]!.width - 612) < 2 && Math.abs(upright.pages[0]!.height - 792) < 2, JSON.stringify(upright.pages[0]));
    assert.equal(upright.pages[0]!.ocr?.dpi, 200);
    // A quarter turn (set-rotation 1: 90 degrees counter-clockwise): ddjvu shows it landscape, 2200 x 1700
    // pixels at 200 dpi, and rotation recovery turns it back (612 x 792 pt). Rendered into the unturned
    // 1700 x 2200 box it came out 1700 x 1314 pixels, read as 473 x 612 pt at a wrong 200 dpi.
    const turned = await convert(djvuPage(dir, 200, 1));
    assert.equal(turned.ocrPages, 1);
    const p = turned.pages[0]!;
    assert.deepEqual([Math.round(Math.min(p.width, p.height)), Math.round(Math.max(p.width, p.height))], [612, 792]);
    assert.equal(p.ocr?.dpi, 200);
    assert.ok(p.ocr?.rotation === 90 || p.ocr?.rotation === 270, String(p.ocr?.rotation));
    assert.match(turned.markdown, /quick brown fox jumps over the lazy dog/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a DJVU page with hidden text is read from its text layer without OCR', { skip: tools }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-djvu-'));
  try {
    const bytes = djvuPage(dir, 200, 0);
    writeFileSync(join(dir, 'p.djvu'), bytes);
    writeFileSync(join(dir, 'txt'), '(page 0 0 1700 2200 (line 200 1800 1500 1860 (word 200 1800 600 1860 "Hidden") (word 650 1800 1000 1860 "layer") (word 1050 1800 1500 1860 "words")))');
    execFileSync('djvused', [join(dir, 'p.djvu'), '-e', `select 1; set-txt ${join(dir, 'txt')}`, '-s']);
    const r = await convert(new Uint8Array(readFileSync(join(dir, 'p.djvu'))));
    assert.equal(r.ocrPages, 0);
    assert.equal(r.pages[0]!.kind, 'text-layer');
    assert.match(r.markdown, /Hidden layer words/);
    assert.doesNotMatch(r.markdown, /quick brown fox/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('djvused page delimiters: size with and without a rotation', () => {
  const pages = splitBySize('width=1700 height=2200\n(page 0 0 1700 2200 "a")\nwidth=1700 height=2200 rotation=1\nwidth=10 height=20 rotation=3\n(page 0 0 10 20 "b")\n');
  assert.deepEqual(
    pages.map((p) => [p.width, p.height, p.rotation, p.text.trim()]),
    [
      [1700, 2200, 0, '(page 0 0 1700 2200 "a")'],
      [1700, 2200, 1, ''],
      [10, 20, 3, '(page 0 0 10 20 "b")'],
    ],
  );
});
