// ActualText spans (`/Span <</ActualText (...)>> BDC ... EMC`, ISO 32000-1 14.9.4): the text of the glyphs
// they enclose, as LibreOffice writes a complex-script cluster whose glyphs its ToUnicode cannot map
// (Padauk's combining signs on a dotted circle) and other producers a ligature or a hyphen. MuPDF 1.21 reads
// no ActualText; the text scripts mark each span in the page's content and give its glyphs the span's text
// (ADR 0386). On PDFs built here (mutool required).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEXT_SCRIPT } from '../../src/recognition/pdf/mutool-script.js';
import { convertDocument } from '../../src/recognition/index.js';
import { buildPdf, LO_SUBSET } from './helpers/pdf-builder.js';
import { needs, runner } from './helpers/tools.js';

const skip = await needs('mutool');

const hex = (s: string): string => [...s].map((c) => (LO_SUBSET[c] ?? '\x09').charCodeAt(0).toString(16).padStart(2, '0')).join('');

test('a span with an ActualText gives its glyphs the span text (inline property list, Helvetica and a LibreOffice subset)', { skip }, async () => {
  const content = [
    // As LibreOffice writes a cluster: the span opens in a text object before its font is set (and after a
    // Q took back the font of the text object before).
    `q BT /F12 11 Tf 72 760 Td <${hex('G')}> Tj ET Q q BT /Span<</ActualText<FEFF0416>>> BDC 72 740 Td /F12 11 Tf [<${hex('C')}> 200 <09>] TJ EMC 1 0 0 1 90 740 Tm /F12 11 Tf <${hex(' EF')}> Tj ET Q`,
    // WinAnsi 0x9F is "Ÿ": the glyph drawn for the letter the span says.
    'BT /F1 11 Tf 72 700 Td (The river Stra) Tj /Span <</ActualText <FEFF00DF>>> BDC (\\237) Tj EMC (e runs north past the mill.) Tj ET',
    // LibreOffice's subset: code 9 has no ToUnicode entry (MuPDF writes the code's own character); the span
    // covers two glyphs and says one character, as a sign drawn on a dotted circle.
    `BT /F12 11 Tf 72 660 Td <${hex('A B')}> Tj /Span <</ActualText <FEFF03A9>>> BDC <${hex('C')}09> Tj EMC <${hex(' D')}> Tj ET`,
    // A tagged paragraph without ActualText reads as it did.
    'BT /F1 11 Tf 72 620 Td /P <</MCID 0>> BDC (A tagged sentence reads as before.) Tj EMC ET',
  ].join('\n');
  const r = await convertDocument(buildPdf([{ content }]), { runner });
  assert.match(r.markdown, /The river Straße runs north past the mill\./);
  assert.doesNotMatch(r.markdown, /Ÿ/);
  assert.match(r.markdown, /A BΩ D/);
  assert.match(r.markdown, /Ж EF/);
  assert.match(r.markdown, /A tagged sentence reads as before\./);
});

test('a named property list\'s ActualText is read, and the text after a span keeps its place under letter spacing', { skip }, async () => {
  // Tracking of 0.2 em (the page is read again from the XML, ADR 0290): the marker glyphs must not move the
  // glyphs after the span, or "Straße" would come apart.
  const content = 'BT /F1 12 Tf 2.4 Tc 72 700 Td (We walked down the Stra) Tj /Span /P1 BDC (\\237) Tj EMC (e to the river) Tj 0 Tc ET';
  const runs = [{ x: 72, y: 60, text: 'A page of plain text set in Helvetica before the letter-spaced line.', size: 11 }];
  const r = await convertDocument(buildPdf([{ runs, content, properties: '/P1 << /ActualText <FEFF00DF> >>' }]), { runner });
  assert.match(r.markdown, /We walked down the Straße to the river/);
});

test('a span outside a text object and a span over a ligature glyph with several characters', { skip }, async () => {
  const content = [
    '/Span <</ActualText (office)>> BDC BT /F1 11 Tf 72 700 Td (The o\\203ce is open on Monday.) Tj ET EMC',
    'BT /F1 11 Tf 72 680 Td (A sentence about the ) Tj /Span <</ActualText (fi)>> BDC (\\205) Tj EMC (rst floor of the house.) Tj ET',
    // A small-capital word whose ActualText is its capitals, the interword space glyph before it inside the span.
    'BT /F1 11 Tf 72 660 Td (The package is on) Tj /Span <</ActualText (CTAN)>> BDC ( ctan) Tj EMC ( since last year.) Tj ET',
  ].join('\n');
  const r = await convertDocument(buildPdf([{ content }]), { runner });
  // The whole run is the span: its text spread over its glyphs ("office", then nothing for the rest).
  assert.match(r.markdown, /office/);
  assert.doesNotMatch(r.markdown, /Monday/);
  assert.match(r.markdown, /A sentence about the first floor of the house\./);
  assert.match(r.markdown, /The package is on CTAN since last year\./);
});

test('pages whose content is several compressed streams read as MuPDF reads them, and a span in a later stream is read', { skip }, async () => {
  // The text script decompresses each page's content once and runs the page on that copy (the cost of
  // finding spans, amendment of ADR 0386); a part that ends without a line end (a comment, a token cut at
  // the stream's end) keeps the page's own streams, so the text layer is mutool convert's byte for byte.
  const pages = [
    { runs: [{ x: 72, y: 60, text: 'A first line in the page\'s own stream.' }], contentStreams: ['BT /F1 11 Tf 72 700 Td (A second line in a compressed stream.) Tj ET\n', 'BT /F1 11 Tf 72 680 Td (A third line after it.) Tj ET'] },
    { runs: [{ x: 72, y: 60, text: 'A page whose second stream ends in a comment.' }], contentStreams: ['BT /F1 11 Tf 72 700 Td (Text before the comment.) Tj ET % a comment without a line end', 'BT /F1 11 Tf 72 680 Td (Text after the comment.) Tj ET\n', 'BT /F1 11 Tf 72 660 Td (The last line of the page.) Tj ET'] },
    // MuPDF puts a space between streams: "ET" and "BT" stay two operators (joined as they are, "ETBT" would not).
    { runs: [{ x: 72, y: 60, text: 'A page whose first extra stream ends in a token.' }], contentStreams: ['BT /F1 11 Tf 72 700 Td (Text before the cut.) Tj ET', 'BT /F1 11 Tf 72 680 Td (Text after the cut.) Tj ET'] },
    { runs: [{ x: 72, y: 60, text: 'A single stream page in plain text.' }] },
  ];
  const dir = mkdtempSync(join(tmpdir(), 'lectern-at-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), buildPdf(pages));
    writeFileSync(join(dir, 'text.js'), TEXT_SCRIPT);
    execFileSync('mutool', ['run', join(dir, 'text.js'), join(dir, 'in.pdf'), join(dir, 'a.json'), 'stext.json', '1-4'], { stdio: 'ignore' });
    execFileSync('mutool', ['convert', '-F', 'stext.json', '-O', 'preserve-images', '-o', join(dir, 'b.json'), join(dir, 'in.pdf'), '1-4'], { stdio: 'ignore' });
    assert.equal(readFileSync(join(dir, 'a.json'), 'utf8'), readFileSync(join(dir, 'b.json'), 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const span = [{ runs: [{ x: 72, y: 60, text: 'A page of plain text before the span.' }], contentStreams: ['BT /F1 11 Tf 72 700 Td (The river Stra) Tj /Span <</ActualText <FEFF00DF>>> BDC (\\237) Tj EMC (e runs north.) Tj ET\n', 'BT /F1 11 Tf 72 680 Td (The last line.) Tj ET'] }];
  const r = await convertDocument(buildPdf(span), { runner });
  assert.match(r.markdown, /The river Straße runs north\./);
});
