// Word spaces from the glyphs' own advances (ADR 0290): letter-spaced text, words placed one by one with
// no space glyph, kerned pairs and ligatures; end to end on PDFs built here (mutool required) and on the
// spacing rule itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertDocument } from '../../src/recognition/index.js';
import { SCORE_WEIGHTS } from '../../src/recognition/report/score.js';
import { spaceWidthEm, spacedText, spacingSuspect, type Glyph } from '../../src/recognition/pdf/glyph-spacing.js';
import { fontSpaceAdvances } from '../../src/recognition/pdf/stext-xml.js';
import type { LayoutLine } from '../../src/recognition/layout-model.js';
import { buildPdf, loSubset, type TextRun } from './helpers/pdf-builder.js';
import { needs, runner } from './helpers/tools.js';

const skip = await needs('mutool');

/** Helvetica advances (thousandths of an em, from its AFM) of the characters the Td-placed caption uses. */
const HELVETICA: Record<string, number> = { F: 611, i: 222, g: 556, u: 556, r: 333, e: 556, '3': 556, ':': 278, s: 500, l: 222, t: 278, o: 556, f: 278, h: 556, n: 556, a: 556, c: 500, p: 556, m: 833, d: 556, w: 722, y: 500 };

/** Words placed one by one (a Td per word, no space glyph), `gap` points apart after each word's advance. */
function placedWords(text: string, x: number, y: number, size: number, gap: number): TextRun[] {
  const runs: TextRun[] = [];
  for (const w of text.split(' ')) {
    runs.push({ x, y, text: w, size });
    x += ([...w].reduce((a, c) => a + HELVETICA[c]!, 0) * size) / 1000 + gap;
  }
  return runs;
}

const prose = 'The quarterly figures were prepared by the finance team and reviewed by the board before release.';

test('letter-spaced text, captions with no space glyphs, kerned pairs and ligature-like pairs read as the source', { skip }, async () => {
  const pdf = buildPdf([
    {
      runs: [
        { x: 72, y: 80, text: prose, size: 10 },
        // Tracking of 0.2 em: MuPDF's fixed 0.15 em rule put a space after every letter ("W e  w r o t e").
        { x: 72, y: 110, text: 'We wrote the November report', size: 12, charSpacing: 2.4 },
        // Kerned pairs (positive TJ numbers tighten) and a real space made by a large negative adjustment.
        { x: 72, y: 140, text: '', size: 12, glyphs: ['W', 80, 'e filed the ', 'Nov', 20, 'ember write-of', 30, 'f and the', -400, 'summary'] },
        // A caption whose words are drawn without space glyphs, 0.12 em apart (MuPDF: "Figure3:resultsof...").
        ...placedWords('Figure 3: results of the audit per month', 72, 170, 12, 1.4),
        // Glyph-by-glyph placement with 0.19 em between letters and a space glyph between words.
        { x: 72, y: 200, text: '', size: 12, glyphs: [...'The Novem'].flatMap((c, i) => (i ? [-190, c] : [c])) },
        { x: 72, y: 230, text: prose, size: 10 },
      ],
    },
  ]);
  const md = (await convertDocument(pdf, { runner })).markdown;
  assert.match(md, /We wrote the November report/);
  assert.match(md, /We filed the November write-off and the summary/);
  assert.match(md, /Figure 3: results of the audit per month/);
  assert.match(md, /The Novem/);
  assert.doesNotMatch(md, /\bW e\b|Nov ember|of f\b/);
  assert.ok(md.includes(prose));
});

test('a tightly set line whose word gaps are all under 0.15 em, with no punctuation or case change inside, gets its spaces back', { skip }, async () => {
  // Words 0.14 em apart with no space glyph (a justified line squeezed tight): MuPDF's JSON has one 56-letter token.
  const tight = 'the finance team then found that the other partners were often late'.split(' ').flatMap((w, i) => (i ? [140, w] : [w])).map((g) => (typeof g === 'number' ? -g : g));
  const pdf = buildPdf([{ runs: [{ x: 72, y: 80, text: prose, size: 10 }, { x: 72, y: 92, text: '', size: 10, glyphs: tight }, { x: 72, y: 104, text: prose, size: 10 }] }]);
  const md = (await convertDocument(pdf, { runner })).markdown;
  assert.match(md, /the finance team then found that the other partners were often late/);
  assert.ok(md.includes(prose));
});

test('a page with ordinary spacing is not read again and keeps its text', { skip }, async () => {
  const pdf = buildPdf([{ runs: [{ x: 72, y: 80, text: prose, size: 10 }, { x: 72, y: 100, text: 'A short line of a few words.', size: 10 }] }]);
  const r = await convertDocument(pdf, { runner });
  assert.ok(r.markdown.includes(prose));
  assert.ok(r.markdown.includes('A short line of a few words.'));
});

test('letter-spaced capitals in a font with no space glyph read as words; a row of letters set apart by its space glyph keeps its spaces (ADR 0374 amendment)', { skip }, async () => {
  // 14 pt capitals 0.55 em wide, tracked by 0.25 em (3.5 pt): MuPDF writes a space into every letter gap.
  // The `caps` font has no space glyph (/Widths from "!"), so none of those spaces is the font's own; in
  // `caps-space` (space glyph 0.278 em) the inserted spaces are 10% narrower than it, the row's real ones exact.
  const pdf = buildPdf([
    {
      runs: [
        { x: 72, y: 80, text: 'INTRODUCTION', size: 14, font: 'caps', charSpacing: 3.5 },
        { x: 72, y: 110, text: '', size: 14, font: 'caps', charSpacing: 3.5, glyphs: ['SINGLE', -650, 'EXTERNAL'] },
        { x: 72, y: 140, text: 'METHODS', size: 14, font: 'caps-space', charSpacing: 3.5 },
        { x: 72, y: 170, text: 'A B C D E F G H', size: 14, font: 'caps-space' },
        { x: 72, y: 210, text: prose, size: 10 },
        { x: 72, y: 222, text: prose, size: 10 },
      ],
    },
  ]);
  const md = (await convertDocument(pdf, { runner })).markdown;
  assert.match(md, /\bINTRODUCTION\b/);
  assert.match(md, /\bSINGLE EXTERNAL\b/);
  assert.match(md, /\bMETHODS\b/);
  assert.match(md, /A B C D E F G H/);
  assert.doesNotMatch(md, /I N T R|S I N G|M E T H/);
});

test('on a page with stacked math, letter-split lines alone are respaced from the glyph advances (ADR 0374 amendment)', { skip }, async () => {
  // A radical (Symbol's \u00d6) makes the page a stacked-math page, which is not read again as a whole; the
  // letter-spaced heading (Elsevier's "A R T I C L E I N F O") takes its XML line's text.
  const pdf = buildPdf([
    {
      runs: [
        { x: 72, y: 80, text: 'ARTICLE', size: 14, font: 'caps-space', charSpacing: 3.5 },
        { x: 72, y: 120, text: prose, size: 10 },
        { x: 72, y: 150, text: 'x = ', size: 12, font: 'times-italic' },
        { x: 100, y: 150, text: '\u00d6', size: 12, font: 'symbol' },
        { x: 110, y: 150, text: '2', size: 12, font: 'times' },
        { x: 72, y: 180, text: prose, size: 10 },
      ],
    },
  ]);
  const md = (await convertDocument(pdf, { runner })).markdown;
  assert.match(md, /\bARTICLE\b/, md);
  assert.doesNotMatch(md, /A R T I/);
  assert.ok(md.includes(prose));
});

test('a row of letters set apart by the spaces of a LibreOffice subset font (no /Encoding, space at code 4) keeps them (ADR 0374 amendment)', { skip }, async () => {
  // Code 32 is no space in such a font; read from its /Widths it made the SIL fonts' character rows one word.
  const pdf = buildPdf([{ runs: [{ x: 72, y: 80, text: loSubset('A B C D E F G'), size: 14, font: 'lo-subset' }, { x: 72, y: 120, text: prose, size: 10 }] }]);
  const md = (await convertDocument(pdf, { runner })).markdown;
  assert.match(md, /A B C D E F G/, md);
});

test('fontSpaceAdvances: the text script\'s space advances in ems; 0 for a font without a space glyph; a name with two advances says nothing', () => {
  const m = fontSpaceAdvances('S\tTeXPalladioL-SC\t0\nS\tPalatino-Roman\t250\nS\tArial\t278\nS\tArial\t500\nS\tArial\t278\nnoise\nS!\tError: x\n');
  assert.equal(m.get('TeXPalladioL-SC'), 0);
  assert.equal(m.get('Palatino-Roman'), 0.25);
  assert.equal(m.has('Arial'), false);
});

const glyphs = (spec: [string, number, number][]): Glyph[] => spec.map(([c, x0, x1]) => ({ c, x0, x1 }));

test('spacedText: gaps judged against the font space width and the line letter spacing', () => {
  // 10 pt, glyphs 5 pt wide: touching letters, a 1.3 pt gap (0.13 em, no space glyph) between words.
  const caption = glyphs([['a', 0, 5], ['b', 5, 10], ['c', 10, 15], ['d', 16.3, 21.3], ['e', 21.3, 26.3], ['f', 26.3, 31.3]]);
  assert.equal(spacedText(caption, 10, 0.28), 'abc def');
  // Letter-spaced by 2 pt with a space glyph (2.8 pt) between words: gaps of 2 pt are letter spacing.
  const tracked: Glyph[] = [];
  let x = 0;
  for (const c of 'ab cd ef') {
    tracked.push({ c, x0: x, x1: x + (c === ' ' ? 2.8 : 5) });
    x += (c === ' ' ? 2.8 : 5) + 2;
  }
  assert.equal(spacedText(tracked, 10, 0.28), 'ab cd ef');
  // A kerned pair (negative gap) and a small positive kern never make a space.
  assert.equal(spacedText(glyphs([['W', 0, 9], ['e', 8.2, 13], ['v', 13.3, 18]]), 10, 0.28), 'Wev');
  // After a ligature glyph a gap must be most of a space: 0.2 em is not one, 0.3 em is.
  assert.equal(spacedText(glyphs([['o', 0, 5], ['\ufb00', 5, 11], ['x', 13, 18]]), 10, 0.28), 'o\ufb00x');
  assert.equal(spacedText(glyphs([['o', 0, 5], ['\ufb00', 5, 11], ['x', 14, 19]]), 10, 0.28), 'o\ufb00 x');
  // The extra characters of a glyph mapped to several (zero-width quads) count as a ligature too.
  assert.equal(spacedText(glyphs([['f', 0, 6], ['f', 6, 6], ['x', 8, 13]]), 10, 0.28), 'ffx');
  // Spaces at the ends of a run stay (they part it from the next font's run); inner ones are re-decided.
  assert.equal(spacedText(glyphs([['S', 0, 5], ['o', 5, 10], [',', 10, 12], [' ', 12, 14.8]]), 10, 0.28), 'So, ');
  assert.equal(spacedText(glyphs([[' ', 0, 2.8], ['w', 2.8, 8], [' ', 8, 10.8], ['x', 10.8, 16]]), 10, 0.28), ' w x');
});

test('spacedText: a font with no space glyph has only inserted spaces, and letter spacing decides; a known space advance is matched closely (ADR 0374 amendment)', () => {
  // 12 pt letters 5 pt wide, 3 pt apart (0.25 em), a space in every gap as wide as it (MuPDF's), 9 pt before the second word.
  const row: Glyph[] = [];
  let x = 0;
  for (const c of 'INTRODUCTION AB') {
    if (c === ' ') {
      x += 6;
      continue;
    }
    if (row.length) row.push({ c: ' ', x0: x - 3, x1: x });
    row.push({ c, x0: x, x1: x + 5 });
    x += 8;
  }
  // The page's spaces say 0.25 em: every gap looks like a space glyph of that width (the ADR 0374 misfire).
  assert.equal(spacedText(row, 12, 0.25), 'I N T R O D U C T I O N A B');
  assert.equal(spacedText(row, 12, 0.25, null), 'INTRODUCTION AB');
  // A space glyph of 0.278 em from the /Widths: the 0.25 em spaces are not it (5%), a real one is.
  assert.equal(spacedText(row, 12, 0.25, 0.278), 'INTRODUCTION AB');
  const specimen = glyphs([['A', 0, 5], [' ', 5, 8.34], ['B', 8.34, 13.34], [' ', 13.34, 16.68], ['C', 16.68, 21.68]]);
  assert.equal(spacedText(specimen, 12, 0.25, 0.278), 'A B C');
  // A contents line: a drawn space of the font's advance between words, then dot leaders 0.5 em apart, whose
  // gaps outnumber the letters' and make the median letter gap 0.5 em: the drawn space still parts the words.
  const toc: Glyph[] = [...glyphs([['a', 0, 5], ['b', 5, 10], [' ', 10, 13], ['c', 13, 18], ['d', 18, 23]])];
  for (let i = 0; i < 8; i++) toc.push({ c: ' ', x0: 23 + i * 8, x1: 29 + i * 8 }, { c: '.', x0: 29 + i * 8, x1: 31 + i * 8 });
  assert.equal(spacedText(toc, 12, 0.5, 0.25), 'ab cd........');
  assert.equal(spacedText(toc, 12, 0.5, null), 'abcd........');
});

test('spaceWidthEm: the font space glyph when drawn, else half the mean advance', () => {
  assert.equal(spaceWidthEm([0.278, 0.278, 0.05], [0.5, 0.6]), 0.278);
  assert.equal(spaceWidthEm([0.05], [0.5, 0.6]), 0.275);
  assert.equal(spaceWidthEm([], [1.2]), 0.4);
});

test('spacingSuspect: letters split by spaces or a long run without spaces; math, mono, URLs and ordinary text are not', () => {
  const line = (text: string, extra: Partial<LayoutLine> = {}): LayoutLine => ({ text, x0: 0, y0: 0, x1: 100, y1: 10, size: 10, bold: false, italic: false, mono: false, block: 0, ...extra });
  assert.equal(spacingSuspect([line('W e w r o t e t h e')]), true);
  assert.equal(spacingSuspect([line('Figure2:resultsoftheauditpermonth')]), true);
  assert.equal(spacingSuspect([line(prose), line('a b c d e f', { math: '$a b c d e f$' })]), false);
  assert.equal(spacingSuspect([line('x y z w v u', { mono: true }), line('see https://example.org/averyveryverylongpath/index')]), false);
  // A long compound word is not words run together.
  assert.equal(spacingSuspect([line('Donaudampfschifffahrtsgesellschaft')]), false);
  assert.equal(spacingSuspect([line('Donaudampfschifffahrtsgesellschaftskapitän.')]), false);
  // A tightly justified line whose word gaps all fell under MuPDF's 0.15 em: letters only, no case change.
  assert.equal(spacingSuspect([line('Tambémhácomoalteraroespaçoverticalacimaeabaixodasseçõesusando \\sectionspaces,')]), true);
  assert.equal(spacingSuspect([line(prose)]), false);
});

test('spacingFaults: split words and words run together, from the document vocabulary; the score sees them', async () => {
  const { spacingFaults, textStatistics } = await import('../../src/recognition/report/text-statistics.js');
  const { scoreReport } = await import('../../src/recognition/report/score.js');
  const base = 'the report of the month and the results of the audit are in the report of november '.repeat(4);
  const tokens = (s: string) => s.toLowerCase().split(/\s+/).filter(Boolean);
  assert.equal(spacingFaults(tokens(base)), 0);
  // "nov ember" beside "november"; "resultsoftheaudit" falls apart into words the document uses.
  assert.equal(spacingFaults(tokens(`${base} the nov ember report`)), 1);
  assert.equal(spacingFaults(tokens(`${base} resultsoftheaudit`)), 1);
  // A rare long word that is not made of the document's words is no fault.
  assert.equal(spacingFaults(tokens(`${base} internationalisation`)), 0);
  const clean = textStatistics(base);
  const broken = textStatistics(`${base} the nov ember report resultsoftheaudit`);
  assert.equal(clean.spacingFaultRatio, 0);
  assert.ok(broken.spacingFaultRatio! > 0.02);
  const inputs = (text: typeof clean) => ({
    format: 'pdf',
    pages: { total: 1, textLayer: 1, ocr: 0, empty: 0, failed: 0, skipped: 0, which: { textLayer: [1], ocr: [], empty: [], failed: [], skipped: [] } },
    text,
    ocr: { pages: 0, meanConfidence: null, p10Confidence: null },
    structure: { headings: { total: 1, byLevel: {}, bySource: {} }, paragraphs: 3, tables: 0, lists: 0, figures: 0, equations: 0, layoutComplexity: 0, rowSwitches: 0, marginLinesKept: 0, imageDominatedPages: 0, removedHeaderFooterLines: 0 },
  });
  const a = scoreReport(inputs(clean) as never);
  const b = scoreReport(inputs(broken) as never);
  assert.equal(a.components.spacing, 1);
  // spacingFaultRatio of 2% or more takes the whole weight (0.8 as fitted on the real set, ADR 0340).
  assert.equal(b.components.spacing, Math.round((1 - SCORE_WEIGHTS.spacing) * 1000) / 1000);
  assert.ok(b.value < a.value);
});
