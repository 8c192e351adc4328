// Ligature glyphs named by their letters (`f_f`, `f_i`, `f_f_i`, `T_h`, `f_t.alt`) in a simple font without
// ToUnicode, as TeX's Type 1 fonts (Libertine, newtx) name them in /Differences: MuPDF alone reads only the
// first letter ("ofers", "frst"); the text scripts map them to all their letters (ADR 0353). On PDFs built
// here (mutool required): in the first chunk (the start script), in a later chunk (the text script) and on
// a page read again from the XML (letter-spaced text, ADR 0290).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertDocument } from '../../src/recognition/index.js';
import { buildPdf, LIGATURE as L, type PageSpec } from './helpers/pdf-builder.js';
import { needs, runner } from './helpers/tools.js';

const skip = await needs('mutool');

const words = `The o${L.ff}ice o${L.ff}ers the ${L.fi}rst ${L.fl}oor, an a${L.ffi}ne map and a ba${L.ffl}ing ${L.Th}eorem on le${L.ft} shi${L.ft}s.`;
const read = 'The office offers the first floor, an affine map and a baffling Theorem on left shifts.';

const page = (extra: PageSpec['runs'] = []): PageSpec => ({
  runs: [{ x: 72, y: 90, text: 'A page of plain text set in Helvetica before the line with ligatures.', size: 11 }, { x: 72, y: 120, text: words, size: 11, font: 'ligatures' }, ...extra],
});

test('ligature glyphs named f_f, f_i, f_f_i, T_h keep every letter in the first chunk', { skip }, async () => {
  const r = await convertDocument(buildPdf([page()]), { runner });
  assert.ok(r.markdown.includes(read), r.markdown);
  assert.doesNotMatch(r.markdown, /ofers|frst|afne/);
  // The other codes of the font still come from its glyph names (WinAnsi base encoding).
  assert.match(r.markdown, /A page of plain text set in Helvetica/);
});

test('ligature names are mapped on pages after the first chunk, read by the text script', { skip }, async () => {
  const pages: PageSpec[] = Array.from({ length: 34 }, (_, i) => ({ runs: [{ x: 72, y: 90, text: `Page ${i + 1} of a long manual, with a sentence of ordinary prose on it.`, size: 11 }] }));
  pages[33] = page();
  const r = await convertDocument(buildPdf(pages), { runner });
  assert.equal(r.report.pages.which.textLayer.length, 34);
  assert.ok(r.markdown.includes(read), r.markdown.slice(-600));
});

test('a letter-spaced page read again from the XML keeps the ligatures whole', { skip }, async () => {
  // Tracking of 0.2 em makes the page's spaces be decided again from the glyphs (the XML text layer).
  const r = await convertDocument(buildPdf([page([{ x: 72, y: 150, text: 'We wrote the November report', size: 12, charSpacing: 2.4 }])]), { runner });
  assert.match(r.markdown, /We wrote the November report/);
  assert.ok(r.markdown.includes(read), r.markdown);
});
