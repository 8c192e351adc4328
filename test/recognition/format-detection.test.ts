import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectFormat } from '../../src/recognition/index.js';
import { buildEpub } from './helpers/epub-builder.js';
import { buildPdf } from './helpers/pdf-builder.js';
import { strToU8, zipSync } from 'fflate';

const bytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));

test('PDF: %PDF- within the first KiB, leading garbage allowed', () => {
  assert.equal(detectFormat(buildPdf([{}])), 'pdf');
  assert.equal(detectFormat(bytes(`${'x'.repeat(500)}%PDF-1.7\n`)), 'pdf');
  assert.equal(detectFormat(bytes(`${'x'.repeat(1100)}%PDF-1.7\n`)), null);
});

test('EPUB: a ZIP whose first entry is mimetype = application/epub+zip', () => {
  assert.equal(detectFormat(buildEpub({ chapters: [{ file: 'a.xhtml', body: '<p>x</p>' }] })), 'epub');
  // A ZIP that is not an EPUB (first entry named otherwise).
  const zip = bytes('PK\u0003\u0004' + '\u0000'.repeat(22) + '\u0005\u0000\u0000\u0000hello');
  assert.equal(detectFormat(zip), null);
});

test('EPUB in any ZIP entry order: the central directory lists mimetype or META-INF/container.xml (ADR 0235)', () => {
  const chapters = [{ file: 'a.xhtml', body: '<p>x</p>' }];
  const sorted = buildEpub({ chapters, order: 'sorted' });
  const reversed = buildEpub({ chapters, order: 'reversed' });
  // The first entry is not mimetype in either.
  assert.notEqual(Buffer.from(sorted.subarray(30, 38)).toString('latin1'), 'mimetype');
  assert.notEqual(Buffer.from(reversed.subarray(30, 38)).toString('latin1'), 'mimetype');
  assert.equal(detectFormat(sorted), 'epub');
  assert.equal(detectFormat(reversed), 'epub');
  // Without any mimetype entry but with the container (some old producers): a reading system opens it.
  assert.equal(detectFormat(zipSync({ 'META-INF/container.xml': strToU8('<container/>'), 'OEBPS/a.opf': strToU8('<package/>') })), 'epub');
  // Other ZIPs stay unsupported: plain archives, and OpenDocument files (mimetype of another type).
  assert.equal(detectFormat(zipSync({ 'data.jsonl': strToU8('{}'), 'readme.txt': strToU8('hi') })), null);
  const odt = zipSync({ 'META-INF/manifest.xml': strToU8('<manifest/>'), 'content.xml': strToU8('<doc/>'), mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }] });
  assert.equal(detectFormat(odt), null);
  // A truncated archive (no end record) is not taken for an EPUB by its directory.
  assert.equal(detectFormat(sorted.subarray(0, sorted.length - 30)), null);
});

test('DJVU: AT&TFORM then DJVU or DJVM', () => {
  assert.equal(detectFormat(bytes('AT&TFORM\u0000\u0000\u0001\u0000DJVMDIRM')), 'djvu');
  assert.equal(detectFormat(bytes('AT&TFORM\u0000\u0000\u0001\u0000DJVUINFO')), 'djvu');
  assert.equal(detectFormat(bytes('AT&TFORM\u0000\u0000\u0001\u0000AIFF')), null);
});

test('anything else is rejected, the extension never matters', () => {
  assert.equal(detectFormat(new Uint8Array(0)), null);
  assert.equal(detectFormat(bytes('<html><body>not a pdf</body></html>')), null);
  assert.equal(detectFormat(new Uint8Array(4096).fill(7)), null);
});
