// EPUB conversion on synthetic books: spine order, headings from the markup, OPF metadata, images
// referenced by archive path, a missing spine item, DRM and font obfuscation, damaged archives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertDocument, isRecognitionError } from '../../src/recognition/index.js';
import { buildEpub, encryptionXml } from './helpers/epub-builder.js';
import { xhtmlToMarkdown } from '../../src/recognition/epub/epub-converter.js';
import { runner } from './helpers/tools.js';

const chapters = [
  { file: 'one.xhtml', body: '<h1>Chapter One</h1><p>It was a <em>dark</em> night.</p><img src="../images/fig.png" alt="A figure"/>' },
  { file: 'two.xhtml', body: '<h2>Chapter Two</h2><p>The second chapter.</p><ul><li>first</li><li>second</li></ul><aside epub:type="footnote"><p>A note.</p></aside>' },
];

test('EPUB: spine order, headings, metadata and image references', async () => {
  const checkpoints: number[] = [];
  const r = await convertDocument(buildEpub({ title: 'My Book', creators: ['Ada Author', 'Bo Writer'], chapters }), { runner, onPage: (c) => void checkpoints.push(c.page) });
  assert.ok(r.markdown.indexOf('# Chapter One') < r.markdown.indexOf('## Chapter Two'));
  assert.match(r.markdown, /!\[A figure\]\(OEBPS\/images\/fig\.png\)/);
  assert.deepEqual(checkpoints, [1, 2]);
  const rep = r.report;
  assert.equal(rep.input.format, 'epub');
  assert.equal(rep.input.pages, 2);
  assert.deepEqual(rep.structure.headings.byLevel, { '1': 1, '2': 1 });
  assert.deepEqual(rep.structure.headings.bySource, { markup: 2 });
  assert.equal(rep.structure.figures, 1);
  assert.equal(rep.structure.listItems, 2);
  assert.equal(rep.structure.footnotes, 1);
  assert.equal(rep.pages.textLayer, 2);
  assert.deepEqual(r.metadata.authors, ['Ada Author', 'Bo Writer']);
  assert.equal(r.metadata.title, 'My Book');
  assert.equal(r.metadata.language, 'en');
  assert.equal(r.metadata.identifier, 'urn:isbn:9780000000002');
});

test('EPUB: a missing spine item is a warning with its position', async () => {
  const r = await convertDocument(buildEpub({ chapters, missingInSpine: ['gone.xhtml'] }), { runner });
  const w = r.report.warnings.find((x) => x.code === 'MISSING_SPINE_ITEM');
  assert.deepEqual(w?.pages, [3]);
  assert.deepEqual(r.report.pages.which.failed, [3]);
  assert.match(r.markdown, /Chapter Two/);
});

test('EPUB: all spine items missing, or no content at all, fails (and so is not charged) instead of an empty result', async () => {
  await assert.rejects(convertDocument(buildEpub({ chapters: [], missingInSpine: ['a.xhtml', 'b.xhtml'] }), { runner }), (e: unknown) => isRecognitionError(e) && e.code === 'damaged_document' && /none of the EPUB's 2 spine items/.test(e.message));
  await assert.rejects(convertDocument(buildEpub({ chapters: [{ file: 'blank.xhtml', body: '<p> </p>' }] }), { runner }), (e: unknown) => isRecognitionError(e) && e.code === 'empty_document');
});

test('EPUB: a heading with a line break keeps both lines', () => {
  assert.equal(xhtmlToMarkdown('<html><body><h1>Chapter One<br/>The Beginning</h1><p>Text.</p></body></html>', '').markdown, '# Chapter One The Beginning\n\nText.');
});

test('EPUB: DRM-encrypted content is `encrypted_document`; font obfuscation only warns', async () => {
  const drm = buildEpub({ chapters, extra: { 'META-INF/encryption.xml': encryptionXml([{ uri: 'OEBPS/text/one.xhtml', algorithm: 'http://www.w3.org/2001/04/xmlenc#aes128-cbc' }]) } });
  await assert.rejects(convertDocument(drm, { runner }), (e: unknown) => isRecognitionError(e) && e.code === 'encrypted_document');
  const fonts = buildEpub({ chapters, extra: { 'META-INF/encryption.xml': encryptionXml([{ uri: 'OEBPS/fonts/a.otf', algorithm: 'http://www.idpf.org/2008/embedding' }]) } });
  const r = await convertDocument(fonts, { runner });
  assert.ok(r.report.warnings.some((w) => w.code === 'FONT_OBFUSCATION'));
});

test('EPUB: damaged archives, empty spines and zip bombs are rejected with codes', async () => {
  const whole = buildEpub({ chapters });
  await assert.rejects(convertDocument(whole.slice(0, 200), { runner }), (e: unknown) => isRecognitionError(e) && e.code === 'damaged_document');
  await assert.rejects(convertDocument(buildEpub({ chapters: [] }), { runner }), (e: unknown) => isRecognitionError(e) && e.code === 'empty_document');
  await assert.rejects(convertDocument(whole, { runner, limits: { maxUncompressedBytes: 100 } }), (e: unknown) => isRecognitionError(e) && e.code === 'document_too_large');
});

test('EPUB in any ZIP entry order converts like the OCF order (ADR 0235)', async () => {
  const ocf = await convertDocument(buildEpub({ chapters }), { runner });
  for (const order of ['sorted', 'reversed'] as const) {
    const r = await convertDocument(buildEpub({ chapters, order }), { runner });
    assert.equal(r.report.input.format, 'epub');
    assert.equal(r.markdown, ocf.markdown, order);
    assert.equal(r.report.pages.billable, 2);
  }
});

test('EPUB: a content document listed under several #fragment ids is converted once, and counted once for billing', async () => {
  const checkpoints: number[] = [];
  const r = await convertDocument(buildEpub({ chapters, fragmentsPerChapter: 4, order: 'sorted' }), { runner, onPage: (c) => void checkpoints.push(c.page) });
  assert.equal(r.markdown.match(/Chapter One/g)?.length, 1);
  assert.equal(r.markdown.match(/The second chapter/g)?.length, 1);
  assert.ok(r.markdown.indexOf('Chapter One') < r.markdown.indexOf('Chapter Two'));
  assert.equal(r.report.input.pages, 2);
  assert.equal(r.report.pages.billable, 2);
  assert.deepEqual(checkpoints, [1, 2]);
  assert.ok(r.report.warnings.some((w) => w.code === 'DUPLICATE_SPINE_ITEMS' && /6 spine entries/.test(w.message)));
});

test('EPUB billing: content documents without text or images and missing ones are not billable', async () => {
  const r = await convertDocument(buildEpub({ chapters: [...chapters, { file: 'blank.xhtml', body: '<div> </div>' }], missingInSpine: ['gone.xhtml'] }), { runner });
  assert.equal(r.report.input.pages, 4);
  assert.equal(r.report.pages.billable, 2);
});

test('EPUB: nesting deeper than the parser can walk is refused with too_deeply_nested, not a stack overflow (issue 25)', async () => {
  for (const depth of [5_000, 200_000]) {
    const epub = buildEpub({ chapters: [{ file: 'deep.xhtml', body: `${'<div>'.repeat(depth)}<p>deep</p>${'</div>'.repeat(depth)}` }] });
    await assert.rejects(convertDocument(epub, { runner }), (e: unknown) => isRecognitionError(e) && e.code === 'too_deeply_nested' && /nest/.test(e.message));
  }
  // Ordinary nesting converts.
  const ok = await convertDocument(buildEpub({ chapters: [{ file: 'ok.xhtml', body: `${'<div>'.repeat(100)}<p>fine</p>${'</div>'.repeat(100)}` }] }), { runner });
  assert.match(ok.markdown, /fine/);
});
