// The real development set's second manifest (bench/recognition/realset/kinds.ts, ADR 0338): checks from
// plain sources (EPUB XHTML, a typeset text file) and the bench's rule for which raw extractor reads which
// format. Checks come from the sources only; these tests pin how.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checksFromParagraphs, epubChecksFrom, pbmToR4, plainWordRuns, scanSettings } from '../../bench/recognition/realset/kinds.js';
import { applies } from '../../bench/recognition/realset.bench.js';

test('word runs: 6-12 words of letters, cut at anything that is neither a letter nor a space', () => {
  assert.deepEqual(plainWordRuns('Tell me, O Muse, of that ingenious hero who travelled far and wide after he had sacked the famous town of Troy.'), [
    'of that ingenious hero who travelled far and wide after he had',
  ]);
  assert.deepEqual(plainWordRuns('Short one. Two-part words break runs here: a b c d e f g'), ['a b c d e f g']);
  assert.deepEqual(plainWordRuns('Überall grüßen die Bürger ihre Nachbarn sehr freundlich'), ['Überall grüßen die Bürger ihre Nachbarn sehr freundlich']);
});

test('checks from paragraphs: runs the document has, in source order, headings when plain', () => {
  const paras = ['one two three four five six seven', 'alpha beta gamma delta epsilon zeta eta', 'red green blue cyan magenta yellow black'];
  const bag = new Set('one two three four five six seven red green blue cyan magenta yellow black'.split(' '));
  const checks = checksFromParagraphs(paras, ['Introduction', '$x$ formula'], bag);
  assert.deepEqual(checks, [
    { kind: 'heading', text: 'Introduction' },
    { kind: 'present', text: 'one two three four five six seven' },
    { kind: 'present', text: 'red green blue cyan magenta yellow black' },
    { kind: 'order', before: 'one two three four five six seven', after: 'red green blue cyan magenta yellow black' },
  ]);
  // No bag: every run counts (the EPUB's XHTML is the text itself).
  assert.equal(checksFromParagraphs(paras, [], null).filter((c) => c.kind === 'present').length, 3);
});

test('EPUB checks: spine order, each content document once whatever #fragments the manifest adds', () => {
  const files: Record<string, string> = {
    'META-INF/container.xml': '<container><rootfiles><rootfile full-path="OEBPS/content.opf"/></rootfiles></container>',
    'OEBPS/content.opf': `<package><manifest>
      <item id="b" href="b.xhtml"/><item id="a" href="a.xhtml"/><item id="a2" href="a.xhtml#part2"/><item id="css" href="s.css"/>
    </manifest><spine><itemref idref="a"/><itemref idref="a2"/><itemref idref="b"/></spine></package>`,
    'OEBPS/a.xhtml': '<html><body><h1>1. Getting started</h1><p>the first chapter tells you how to begin</p><pre>code that is not prose at all here</pre></body></html>',
    'OEBPS/b.xhtml': '<html><body><h2>Building &amp; testing</h2><h3>Building and testing</h3><p>the second chapter <em>explains</em> how to build things</p></body></html>',
  };
  const { checks, units } = epubChecksFrom((n) => {
    if (!(n in files)) throw new Error(`no entry ${n}`);
    return files[n]!;
  });
  assert.equal(units, 2);
  assert.deepEqual(checks, [
    { kind: 'heading', text: 'Getting started' },
    { kind: 'heading', text: 'Building and testing' }, // "Building & testing" is not a plain title
    { kind: 'present', text: 'the first chapter tells you how to begin' },
    { kind: 'present', text: 'the second chapter explains how to build things' },
    { kind: 'order', before: 'the first chapter tells you how to begin', after: 'the second chapter explains how to build things' },
  ]);
});

test('raw extractors are scored only on formats they read', () => {
  assert.equal(applies('lectern', 'epub'), true);
  assert.equal(applies('pdftotext', 'djvu'), true); // djvutxt: the DJVU text layer
  assert.equal(applies('pdftotext', 'epub'), false);
  assert.equal(applies('mutool', 'epub'), true);
  assert.equal(applies('mutool', 'djvu'), false);
});

test('scan-djvu-tool: the tools\' default encoders (cjb2 lossless, csepdjvu compound); scan-djvu keeps its own', () => {
  assert.match(String(scanSettings(1, true, true, true).encoder), /^cjb2 \(lossless/);
  assert.match(String(scanSettings(2, true, false, true).encoder), /^csepdjvu \(defaults/);
  assert.equal(scanSettings(1, true, true).encoder, 'cjb2 -lossy');
  assert.equal(scanSettings(2, true, false).encoder, 'c44');
  assert.equal(scanSettings(2, false, false).encoder, 'img2pdf (JPEG)');
});

test('csepdjvu mask (R4): white-first runs per row, a black first pixel after an empty run, long runs in two bytes', () => {
  const head = (w: number, h: number) => Buffer.from(`P4\n# made by a test\n${w} ${h}\n`);
  // Row 0: 3 white, 2 black, 5 white; row 1: 1 black, 9 white (10 columns: two bytes a row).
  const small = Buffer.concat([head(10, 2), Buffer.from([0b00011000, 0, 0b10000000, 0])]);
  assert.deepEqual([...pbmToR4(small)], [...Buffer.from('R4\n10 2\n'), 3, 2, 5, 0, 1, 9]);
  const wide = Buffer.concat([head(200, 1), Buffer.alloc(25)]);
  assert.deepEqual([...pbmToR4(wide)], [...Buffer.from('R4\n200 1\n'), 0xc0, 200]);
  assert.throws(() => pbmToR4(Buffer.from('P1\n1 1\n0\n')), /not a raw PBM/);
});
