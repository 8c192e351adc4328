// Displayed equations rebuilt whole from the glyphs a page draws (issue 28, ADR 0320): glyph boxes in,
// LaTeX out (scripts, nested fractions, radicals with an index, big operators with limits in TeX's
// extension font and in Adobe Symbol, equation numbers as \tag), the glyph mapping, the trace parser,
// the grouping of a page's lines into one display, and the converter end to end on a PDF built here in
// Times and Symbol (no TeX font), which came out as scrambled text before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { glyphExtent, glyphTex, rebuildEquation as rebuild, type MathGlyph } from '../../src/recognition/structure/math-layout.js';
import { parseTraceGlyphs } from '../../src/recognition/pdf/trace-glyphs.js';
import { applyDisplayMath, displayRegions } from '../../src/recognition/pdf/display-math.js';
import type { LayoutLine } from '../../src/recognition/layout-model.js';
import { convertDocument } from '../../src/recognition/index.js';
import { mathPage } from './helpers/math-pages.js';
import { buildPdf } from './helpers/pdf-builder.js';
import { needs, runner } from './helpers/tools.js';
import { assertMathRenders, assertRenders } from './helpers/katex.js';

/** The equation rebuilt, which must render in KaTeX as a display (every display these tests see does). */
const rebuildEquation: typeof rebuild = (...args) => {
  const r = rebuild(...args);
  if (r) assertRenders(r.latex);
  return r;
};

const CMMI = 'ABCDEF+CMMI10';
const CMR = 'ABCDEF+CMR10';
const CMSY = 'ABCDEF+CMSY10';
const CMEX = 'ABCDEF+CMEX10';

/** One glyph at (x, baseline), `w` ems wide; its box from the font's kind (extension glyphs hang below). */
function g(font: string, unicode: string, x: number, baseline: number, size = 10, w = 0.5, glyph = ''): MathGlyph {
  const e = glyphExtent(font, glyph, size, baseline, unicode);
  return { font, glyph, unicode, x0: x, x1: x + w * size, y0: e.y0, y1: e.y1, baseline, size };
}
/** A run of glyphs of one font, each `w` ems wide, from x. */
function word(font: string, text: string, x: number, baseline: number, size = 10, w = 0.5): MathGlyph[] {
  return [...text].map((c, i) => g(font, c, x + i * w * size, baseline, size, w));
}

test('scripts by baseline offset and size: x_i^2 + y^{n+1} = 1, a script of a script, primes', () => {
  const glyphs = [
    g(CMMI, 'x', 100, 200),
    g(CMMI, 'i', 105, 202, 7, 0.4), // lowered, smaller
    g(CMR, '2', 105, 196, 7, 0.5), // raised over the subscript
    g(CMR, '+', 112, 200, 10, 0.8),
    g(CMMI, 'y', 122, 200),
    ...word(CMMI, 'n', 127, 196, 7, 0.6),
    g(CMR, '+', 131.5, 196, 7, 0.8),
    g(CMR, '1', 137, 196, 7, 0.5),
    g(CMR, '=', 145, 200, 10, 0.8),
    g(CMR, '1', 155, 200),
  ];
  assert.equal(rebuildEquation(glyphs)!.latex, 'x_{i}^{2} + y^{n + 1} = 1');
  // e^{x^2}: the script's own script is found in the script's row.
  const nested = [g(CMMI, 'e', 100, 200), g(CMMI, 'x', 105, 196, 7), g(CMR, '2', 109, 193.5, 5)];
  assert.equal(rebuildEquation(nested)!.latex, 'e^{x^{2}}');
  // f'(x): a prime is written as a prime.
  const prime = [g(CMMI, 'f', 100, 200), g(CMSY, '′', 105.5, 196, 7, 0.3), g(CMR, '(', 108, 200, 10, 0.4), g(CMMI, 'x', 112, 200), g(CMR, ')', 117, 200, 10, 0.4)];
  assert.equal(rebuildEquation(prime)!.latex, "f'(x)");
});

test('fractions from rules, innermost first: 1 / (1 + 1/x), and a rule over material alone is an overline', () => {
  // The outer rule spans the whole denominator; the inner one sits inside the denominator.
  const glyphs = [
    g(CMMI, 'y', 80, 200),
    g(CMR, '=', 88, 200, 10, 0.8),
    g(CMR, '1', 117, 193),
    g(CMR, '1', 100, 212),
    g(CMR, '+', 107, 212, 10, 0.8),
    g(CMR, '1', 118, 207, 7),
    g(CMMI, 'x', 118, 217, 7),
  ];
  const rules = [
    { x0: 98, x1: 128, y: 197.5 },
    { x0: 117, x1: 123, y: 209.5 },
  ];
  assert.equal(rebuildEquation(glyphs, rules)!.latex, 'y = \\frac{1}{1 + \\frac{1}{x}}');
  // Without the rules the parts are not a fraction (no guessing from positions alone).
  assert.doesNotMatch(rebuildEquation(glyphs)!.latex, /\\frac/);
  const over = [g(CMMI, 'z', 100, 200), g(CMR, '=', 108, 200, 10, 0.8), g(CMMI, 'w', 118, 200)];
  assert.equal(rebuildEquation(over, [{ x0: 117.5, x1: 123.5, y: 192 }])!.latex, 'z = \\overline{w}');
});

test('radicals: the sign with its overbar; an index over the left arm gives \\sqrt[n]{}', () => {
  const sign = (x: number) => ({ ...g(CMSY, '√', x, 191, 10, 0.83, 'radical'), y0: 191, y1: 203 });
  const glyphs = [g(CMMI, 'r', 80, 200), g(CMR, '=', 88, 200, 10, 0.8), sign(98), g(CMMI, 'a', 107, 200), g(CMR, '+', 113, 200, 10, 0.8), g(CMMI, 'b', 122, 200)];
  assert.equal(rebuildEquation(glyphs, [{ x0: 106.3, x1: 128, y: 191.2 }])!.latex, 'r = \\sqrt{a + b}');
  const cube = [sign(100), g(CMR, '3', 99, 193, 5), g(CMMI, 'x', 109, 200)];
  assert.equal(rebuildEquation(cube, [{ x0: 108.3, x1: 115, y: 191.2 }])!.latex, '\\sqrt[3]{x}');
});

test('big operators with limits: CMEX summationdisplay (no Unicode) and Adobe Symbol, limits above and below', () => {
  // As pdfTeX draws \sum_{i=1}^{n} x_i: the CMEX glyph's baseline at its top, U+FFFD for Unicode.
  const sum = [
    g(CMMI, 'S', 80, 200),
    g(CMR, '=', 89, 200, 10, 0.8),
    g(CMEX, '\uFFFD', 100, 189.5, 10, 1.44, 'summationdisplay'),
    ...[g(CMMI, 'i', 101, 211, 7, 0.4), g(CMR, '=', 104, 211, 7, 0.8), g(CMR, '1', 110, 211, 7, 0.5)],
    g(CMMI, 'n', 105, 186, 7, 0.6),
    g(CMMI, 'x', 117, 200),
    g(CMMI, 'i', 122, 202, 7, 0.4),
  ];
  const r = rebuildEquation(sum)!;
  assert.equal(r.latex, 'S = \\sum_{i = 1}^{n} x_{i}');
  assert.doesNotMatch(r.latex, /\uFFFD|□/);
  // An integral with limits at its side: scripts of a tall glyph.
  const int = [g(CMEX, '\uFFFD', 100, 190, 10, 0.56, 'integraldisplay'), g(CMR, '0', 106, 214, 7), g(CMR, '1', 110, 190, 7), g(CMMI, 'f', 116, 203)];
  assert.equal(rebuildEquation(int)!.latex, '\\int_{0}^{1} f');
  // lim under a word operator: \lim_{n \to \infty} a_n
  const lim = [...word(CMR, 'lim', 100, 200, 10, 0.4), g(CMMI, 'n', 99, 207, 7, 0.6), g(CMSY, '→', 103.5, 207, 7, 1), g(CMSY, '∞', 110.5, 207, 7, 1), g(CMMI, 'a', 120, 200), g(CMMI, 'n', 125, 202, 7, 0.6)];
  assert.equal(rebuildEquation(lim)!.latex, '\\lim_{n \\rightarrow \\infty} a_{n}');
});

test('an equation number apart at the margin is a \\tag; two numbered rows are two displays', () => {
  const eq = [g(CMMI, 'E', 250, 200), g(CMR, '=', 258, 200, 10, 0.8), g(CMMI, 'm', 268, 200, 10, 0.9), g(CMMI, 'c', 277, 200), g(CMR, '2', 282, 196, 7), ...word(CMR, '(3)', 500, 200, 10, 0.4)];
  const r = rebuildEquation(eq)!;
  assert.equal(r.latex, 'E = m c^{2}');
  assert.equal(r.tag, '3');
  // Rows 15 pt apart at 10 pt, as an alignment sets them (baselineskip and jot).
  const two = [g(CMMI, 'a', 250, 200), g(CMR, '=', 258, 200, 10, 0.8), g(CMMI, 'b', 268, 200), ...word(CMR, '(4)', 500, 200, 10, 0.4), g(CMMI, 'c', 250, 215), g(CMR, '=', 258, 215, 10, 0.8), g(CMMI, 'd', 268, 215), ...word(CMR, '(5)', 500, 215, 10, 0.4)];
  const rr = rebuildEquation(two)!;
  assert.deepEqual(rr.displays, [{ latex: 'a = b', tag: '4' }, { latex: 'c = d', tag: '5' }]);
  // An unnumbered alignment stays one display with its rows, aligned at their relations; a continuation
  // row without a relation starts right of them; rows whose relations do not line up are gathered.
  const rows = rebuildEquation(two.filter((x) => x.x0 < 400))!;
  assert.deepEqual(rows.displays, [{ latex: '\\begin{aligned} a & = b \\\\ c & = d \\end{aligned}', tag: null }]);
  const cont = rebuildEquation([...two.filter((x) => x.x0 < 400), g(CMR, '+', 268, 230, 10, 0.8), g(CMMI, 'e', 277, 230)])!;
  assert.equal(cont.latex, '\\begin{aligned} a & = b \\\\ c & = d \\\\ & + e \\end{aligned}');
  const centred = rebuildEquation([g(CMMI, 'a', 250, 200), g(CMR, '=', 258, 200, 10, 0.8), g(CMMI, 'b', 268, 200), g(CMMI, 'x', 220, 215), g(CMR, '+', 228, 215, 10, 0.8), g(CMMI, 'y', 238, 215), g(CMR, '=', 246, 215, 10, 0.8), g(CMMI, 'z', 256, 215)])!;
  assert.equal(centred.latex, '\\begin{gathered} a = b \\\\ x + y = z \\end{gathered}');
  // Two displays set one after the other (rows 3 ems apart) are two displays.
  const apart = rebuildEquation([g(CMMI, 'a', 250, 200), g(CMR, '=', 258, 200, 10, 0.8), g(CMMI, 'b', 268, 200), g(CMMI, 'c', 250, 230), g(CMR, '=', 258, 230, 10, 0.8), g(CMMI, 'd', 268, 230)])!;
  assert.deepEqual(apart.displays, [{ latex: 'a = b', tag: null }, { latex: 'c = d', tag: null }]);
  // TeX sets a number at least a quad from its equation (ADR 0355): two numbered rows whose numbers sit
  // 0.95 em from a display that fills the column are still two displays, each with its number; a
  // parenthesis closer than that is the formula's own (`f (2)` set tight is an argument).
  const tight = [g(CMMI, 'a', 250, 200), g(CMR, '=', 258, 200, 10, 0.8), g(CMMI, 'b', 268, 200), ...word(CMR, '(4)', 282.5, 200, 10, 0.4), g(CMMI, 'c', 250, 215), g(CMR, '=', 258, 215, 10, 0.8), g(CMMI, 'd', 268, 215), ...word(CMR, '(5)', 282.5, 215, 10, 0.4)];
  assert.deepEqual(rebuildEquation(tight)!.displays, [{ latex: 'a = b', tag: '4' }, { latex: 'c = d', tag: '5' }]);
  const arg = rebuildEquation([g(CMMI, 'a', 250, 200), g(CMR, '=', 258, 200, 10, 0.8), g(CMMI, 'f', 268, 200), ...word(CMR, '(4)', 275, 200, 10, 0.4)])!;
  assert.deepEqual(arg.displays, [{ latex: 'a = f(4)', tag: null }]);
});

test('glyph mapping: extension-font names, alphabets by font, mathematical alphanumerics; nothing unmapped is printed', () => {
  assert.equal(glyphTex(CMEX, 'summationtext', '\uFFFD')!.tex, '\\sum');
  assert.equal(glyphTex(CMEX, 'parenleftBig', '\uFFFD')!.tex, '(');
  assert.equal(glyphTex(CMEX, 'bracerightbigg', '\uFFFD')!.tex, '\\}');
  assert.equal(glyphTex(CMEX, 'radicalBig', '\uFFFD')!.tex, '\\sqrt');
  assert.equal(glyphTex(CMEX, 'integraldisplay', '')!.tex, '\\int');
  assert.equal(glyphTex('XYZABC+MSBM10', 'R', 'R')!.tex, '\\mathbb{R}');
  assert.equal(glyphTex('EUFM10', 'g', 'g')!.tex, '\\mathfrak{g}');
  assert.equal(glyphTex(CMSY, 'L', 'L')!.tex, '\\mathcal{L}');
  assert.equal(glyphTex('STIXTwoMath-Regular', '', '𝐱')!.tex, '\\mathbf{x}');
  assert.equal(glyphTex('STIXTwoMath-Regular', '', 'ℝ')!.tex, '\\mathbb{R}');
  assert.equal(glyphTex('NewTXMI', '', '𝜃')!.tex, '\\theta');
  assert.equal(glyphTex('Symbol', 'summation', '∑')!.tex, '\\sum');
  assert.equal(glyphTex(CMSY, 'lessequal', '\uFFFD')!.tex, '\\leq');
  assert.equal(glyphTex(CMMI, 'epsilon1', '')!.tex, '\\varepsilon');
  assert.equal(glyphTex('Foo', 'g1234', '\uFFFD'), null);
  assert.equal(glyphTex('Foo', 'g1234', '□'), null);
  const r = rebuildEquation([g(CMMI, 'a', 100, 200), g('Foo', '\uFFFD', 106, 200), g(CMR, '=', 112, 200, 10, 0.8), g(CMMI, 'b', 122, 200)])!;
  assert.equal(r.latex, 'a = b');
  assert.equal(r.unmapped, 1);
});

test('trace parser: glyph names, Unicode and positions in page coordinates; invisible and rotated text left out', () => {
  const xml = `<page mediabox="0 0 612 792">
<fill_text colorspace="DeviceGray" color="0" transform="1 0 0 -1 0 792">
<span font="MJUZVW+CMEX10" wmode="0" bidi="0" trm="10.9091 0 0 10.9091">
<g unicode="&#xfffd;" glyph="summationdisplay" x="261.45" y="596.79" adv="1.444"/>
</span>
<span font="STTEJK+CMMI8" wmode="0" bidi="0" trm="7.9701 0 0 7.9701">
<g unicode="&lt;" glyph="less" x="261.85" y="573.45" adv=".778"/>
</span>
</fill_text>
<ignore_text transform="1 0 0 -1 0 792"><span font="Hidden" wmode="0" bidi="0" trm="10 0 0 10"><g unicode="h" glyph="h" x="10" y="10" adv=".5"/></span></ignore_text>
<fill_text colorspace="DeviceGray" color="0" transform="0 1 -1 0 0 792"><span font="Side" wmode="0" bidi="0" trm="10 0 0 10"><g unicode="r" glyph="r" x="10" y="10" adv=".5"/></span></fill_text>
</page>`;
  const gs = parseTraceGlyphs(xml);
  assert.equal(gs.length, 2);
  assert.equal(gs[0]!.glyph, 'summationdisplay');
  assert.ok(Math.abs(gs[0]!.baseline - 195.21) < 0.01 && Math.abs(gs[0]!.size - 10.9091) < 1e-6);
  assert.ok(gs[0]!.y1 > gs[0]!.baseline + 15, 'the display sum hangs below its baseline');
  assert.equal(gs[1]!.unicode, '<');
  assert.ok(Math.abs(gs[1]!.x1 - gs[1]!.x0 - 0.778 * 7.9701) < 1e-6);
});

const line = (text: string, x0: number, y0: number, x1: number, y1: number, o: Partial<LayoutLine> = {}): LayoutLine => ({ text, x0, y0, x1, y1, size: 10, bold: false, italic: false, mono: false, block: 0, ...o });

test('grouping: margin line numbers on the rows of a display (`lineno`) are no part of it (ADR 0364)', () => {
  // Prose and a display at the text block's left edge, each row numbered in the margin 8 pt to the left.
  const lines: LayoutLine[] = [];
  for (let i = 1; i <= 9; i++) {
    const y = 100 + i * 14;
    if (i === 5) lines.push(line('B = (bij) + C', 72, y, 140, y + 10, { math: '$B = (b_{ij}) + C$' }));
    else lines.push(line('running prose of the paragraph around the display, a full line long', 72, y, 540, y + 10));
    lines.push(line(String(i), 58, y + 1, i < 10 ? 62 : 66, y + 9, { size: 8 }));
  }
  assert.deepEqual(displayRegions(lines), [[8]]);
});

test('grouping: the lines of one display (operator, limits, number) form one region; prose around it does not', () => {
  const lines = [
    line('The sum of the first terms is given by the formula below, which we use.', 72, 150, 540, 160, { block: 0 }),
    line('S = \uFFFD', 250, 175, 290, 215, { block: 1, math: '$S =$ \uFFFD' }),
    line('n', 272, 172, 278, 180, { block: 2, size: 7, math: '$n$' }),
    line('i=1', 268, 208, 285, 216, { block: 3, size: 7, math: '$i=1$' }),
    line('xi', 292, 190, 305, 202, { block: 4, math: '$x_{i}$' }),
    line('(1)', 520, 190, 540, 202, { block: 5 }),
    line('where the terms are taken from the sequence defined in the previous section.', 72, 225, 540, 235, { block: 6 }),
  ];
  assert.deepEqual(displayRegions(lines), [[1, 2, 3, 4, 5]]);
  // Inline math inside a paragraph line (prose on its row) is no display.
  const inline = [line('for every', 72, 100, 120, 110), line('x = y', 124, 100, 150, 110, { math: '$x = y$' }), line('we have the bound stated in the lemma above.', 154, 100, 400, 110)];
  assert.deepEqual(displayRegions(inline), []);
  // Glyphs in: one line with the display's LaTeX replaces the region's lines.
  const glyphs = [
    g(CMMI, 'S', 252, 200), g(CMR, '=', 261, 200, 10, 0.8),
    g(CMEX, '\uFFFD', 270, 189.5, 10, 1.44, 'summationdisplay'),
    g(CMMI, 'n', 274, 178, 7, 0.6), g(CMMI, 'i', 269, 214, 7, 0.4), g(CMR, '=', 272, 214, 7, 0.8), g(CMR, '1', 278, 214, 7, 0.5),
    g(CMMI, 'x', 292, 200), g(CMMI, 'i', 297, 202, 7, 0.4),
    g(CMR, '(', 521, 200, 10, 0.4), g(CMR, '1', 525, 200, 10, 0.5), g(CMR, ')', 530, 200, 10, 0.4),
  ];
  const done = applyDisplayMath(lines, glyphs, []);
  assert.equal(done.rebuilt, 1);
  assert.equal(done.lines.length, 3);
  assertRenders(done.lines[1]!.display!);
  assert.equal(done.lines[1]!.display, 'S = \\sum_{i = 1}^{n} x_{i} \\tag{1}');
  assert.equal(done.lines[0]!.text, lines[0]!.text);
});

const skip = await needs('mutool');

test('end to end: equations in Times and Symbol (no TeX font) come out whole as one $$ display each, numbered', { skip }, async () => {
  // e^{iπ} + 1 = 0 (1) and S = Σ_{k=1}^{n} 1/k (2), as a word processor sets them: Times Italic variables,
  // Symbol Greek and summation, a drawn fraction rule, the numbers at the right margin.
  const pdf = buildPdf([mathPage(1)]);
  const r = await convertDocument(pdf, { runner });
  assertMathRenders(r.markdown);
  const displays = [...r.markdown.matchAll(/\$\$([\s\S]+?)\$\$/g)].map((m) => m[1]!);
  assert.deepEqual(displays, ['e^{i \\pi} + 1 = 0 \\tag{1}', 'S = \\sum_{k = 1}^{n} \\frac{1}{k} \\tag{2}'], r.markdown);
  assert.doesNotMatch(r.markdown, /\uFFFD|□/);
  assert.match(r.markdown, /appears in nearly every textbook on complex analysis\./);
  assert.match(r.markdown, /which the next section shows with an integral bound\./);
});

test('matrices: tall delimiters around rows and columns become pmatrix / bmatrix / vmatrix, other pairs \\left..\\right', () => {
  // A = (a b; c d) with CMEX's parenleftbigg / parenrightbigg (no Unicode), rows 1.2 em apart, columns an em apart.
  const cell = (x: number, y: number, t: string) => g(CMMI, t, x, y);
  const body = [cell(126, 197, 'a'), cell(141, 197, 'b'), cell(126, 209, 'c'), cell(141, 209, 'd')];
  const paren = [g(CMMI, 'A', 100, 203), g(CMR, '=', 109, 203, 10, 0.8), g(CMEX, '\uFFFD', 119, 189, 10, 0.6, 'parenleftbigg'), ...body, g(CMEX, '\uFFFD', 148, 189, 10, 0.6, 'parenrightbigg')];
  assert.equal(rebuildEquation(paren)!.latex, 'A = \\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}');
  const bracket = [g(CMEX, '\uFFFD', 119, 189, 10, 0.6, 'bracketleftbigg'), ...body, g(CMEX, '\uFFFD', 148, 189, 10, 0.6, 'bracketrightbigg')];
  assert.equal(rebuildEquation(bracket)!.latex, '\\begin{bmatrix} a & b \\\\ c & d \\end{bmatrix}');
  // A determinant: single bars stacked from extensible pieces (vextendsingle), one column of pieces each side.
  const bars = [0, 6, 12, 18].flatMap((dy) => [g(CMEX, '\uFFFD', 120, 189 + dy, 10, 0.3, 'vextendsingle'), g(CMEX, '\uFFFD', 149, 189 + dy, 10, 0.3, 'vextendsingle')]);
  assert.equal(rebuildEquation([...bars, ...body])!.latex, '\\begin{vmatrix} a & b \\\\ c & d \\end{vmatrix}');
  // A column vector with a fraction in one cell; a row of scripts stays in its cell.
  const vec = [
    g(CMEX, '\uFFFD', 119, 187, 10, 0.6, 'parenleftBigg'),
    g(CMMI, 'x', 128, 194), g(CMR, '2', 133, 191, 7, 0.5),
    g(CMR, '1', 128, 205), g(CMR, '2', 128, 216),
    g(CMEX, '\uFFFD', 138, 187, 10, 0.6, 'parenrightBigg'),
  ];
  assert.equal(rebuildEquation(vec, [{ x0: 127.5, x1: 133.5, y: 208 }])!.latex, '\\begin{pmatrix} x^{2} \\\\ \\frac{1}{2} \\end{pmatrix}');
  // A big pair around one row is no matrix: \left( \frac{a}{b} \right) stays a row.
  const single = [g(CMEX, '\uFFFD', 119, 189, 10, 0.6, 'parenleftbigg'), g(CMMI, 'a', 127, 198), g(CMMI, 'b', 127, 211), g(CMEX, '\uFFFD', 134, 189, 10, 0.6, 'parenrightbigg')];
  assert.equal(rebuildEquation(single, [{ x0: 126, x1: 133, y: 202 }])!.latex, '(\\frac{a}{b})');
});

test('\\binom: parentheses around two plain rows 1.36 em apart (a fraction without a rule); an array\'s rows 1.2 em apart stay a pmatrix', () => {
  const paren = (x: number, name: string) => g(CMEX, '\uFFFD', x, 189, 10, 0.6, name);
  // (n over k), numerator 6.8 pt up and denominator 6.9 pt down from the axis line at 203.
  const binom = [g(CMMI, 'C', 100, 203), g(CMR, '=', 109, 203, 10, 0.8), paren(119, 'parenleftbigg'), g(CMMI, 'n', 126, 196.2), g(CMMI, 'k', 126, 209.9), paren(133, 'parenrightbigg')];
  assert.equal(rebuildEquation(binom)!.latex, 'C = \\binom{n}{k}');
  const wide = [paren(119, 'parenleftbigg'), ...word(CMMI, 'n', 126, 196.2), g(CMR, '+', 131, 196.2, 10, 0.8), g(CMR, '1', 139, 196.2), g(CMMI, 'k', 132, 209.9), paren(146, 'parenrightbigg')];
  assert.equal(rebuildEquation(wide)!.latex, '\\binom{n + 1}{k}');
  // The same two cells one strut (12 pt) apart are a column vector.
  const vector = [paren(119, 'parenleftbigg'), g(CMMI, 'x', 126, 197), g(CMMI, 'y', 126, 209), paren(133, 'parenrightbigg')];
  assert.equal(rebuildEquation(vector)!.latex, '\\begin{pmatrix} x \\\\ y \\end{pmatrix}');
});

test('cases: a tall left brace with rows after it, value & condition, the equation number kept apart as \\tag', () => {
  const glyphs = [
    g(CMMI, 'f', 100, 203), g(CMR, '(', 105, 203, 10, 0.4), g(CMMI, 'x', 109, 203), g(CMR, ')', 114, 203, 10, 0.4), g(CMR, '=', 120, 203, 10, 0.8),
    // braceleft from pieces: top, middle, bottom and extension pieces between them.
    g(CMEX, '\uFFFD', 130, 188, 10, 0.9, 'bracelefttp'), g(CMEX, '\uFFFD', 130, 195, 10, 0.9, 'braceex'), g(CMEX, '\uFFFD', 130, 200, 10, 0.9, 'braceleftmid'), g(CMEX, '\uFFFD', 130, 206, 10, 0.9, 'braceex'), g(CMEX, '\uFFFD', 130, 211, 10, 0.9, 'braceleftbt'),
    g(CMR, '1', 142, 197), ...word(CMR, 'if', 158, 197, 10, 0.3), g(CMMI, 'x', 166, 197), g(CMR, '>', 173, 197, 10, 0.8), g(CMR, '0', 182, 197),
    g(CMR, '0', 142, 209), ...word(CMR, 'otherwise', 158, 209, 10, 0.45),
    g(CMR, '(', 300, 203, 10, 0.4), g(CMR, '7', 304, 203, 10, 0.5), g(CMR, ')', 309, 203, 10, 0.4),
  ];
  const r = rebuildEquation(glyphs)!;
  assert.equal(r.latex, 'f(x) = \\begin{cases} 1 & \\text{if} x > 0 \\\\ 0 & \\text{otherwise} \\end{cases}');
  assert.equal(r.tag, '7');
});

test('end to end: a matrix and cases drawn from Symbol\'s delimiter pieces come out as environments, the condition word kept', { skip }, async () => {
  // As a word processor's equation editor draws them: Times Italic letters, the tall parentheses and the
  // brace from Adobe Symbol's pieces (parenlefttp / parenleftbt, bracelefttp / braceleftmid / braceleftbt),
  // which MuPDF's text layer gives as private-use characters. Before, the rows came out as separate
  // displays and the pieces were dropped; "otherwise" was prose and left the display.
  const it = (x: number, y: number, text: string) => ({ x, y, text, size: 12, font: 'times-italic' as const });
  const rm = (x: number, y: number, text: string) => ({ x, y, text, size: 12, font: 'times' as const });
  const sym = (x: number, y: number, text: string) => ({ x, y, text, size: 12, font: 'symbol' as const });
  const pdf = buildPdf([
    {
      runs: [
        { x: 72, y: 100, text: 'The rotation acts on the plane by the matrix below, applied to column vectors.', size: 11 },
        it(250, 152, 'A'), rm(262, 152, '='),
        sym(276, 146, '\u00e6'), sym(276, 158, '\u00e8'),
        it(288, 144, 'a'), it(308, 144, 'b'), it(288, 160, 'c'), it(308, 160, 'd'),
        sym(320, 146, '\u00f6'), sym(320, 158, '\u00f8'),
        rm(530, 152, '(3)'),
        { x: 72, y: 200, text: 'The step function is defined piecewise, with the value at the origin set apart.', size: 11 },
        it(230, 256, 'f'), rm(236, 256, '('), it(241, 256, 'x'), rm(247, 256, ')'), rm(255, 256, '='),
        sym(270, 242, '\u00ec'), sym(270, 254, '\u00ed'), sym(270, 266, '\u00ee'),
        rm(284, 248, '1'), it(320, 248, 'x'), rm(330, 248, '>'), rm(341, 248, '0'),
        rm(284, 266, '0'), rm(320, 266, 'otherwise'),
        { x: 72, y: 310, text: 'Both are used in the next section, where the rotation is composed with the step.', size: 11 },
      ],
    },
  ]);
  const r = await convertDocument(pdf, { runner });
  assertMathRenders(r.markdown);
  const displays = [...r.markdown.matchAll(/\$\$([\s\S]+?)\$\$/g)].map((m) => m[1]!);
  assert.deepEqual(displays, ['A = \\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix} \\tag{3}', 'f(x) = \\begin{cases} 1 & x > 0 \\\\ 0 & \\text{otherwise} \\end{cases}'], r.markdown);
  assert.doesNotMatch(r.markdown, /[\uFFFD\uE000-\uF8FF]/);
  assert.match(r.markdown, /applied to column vectors\./);
  assert.match(r.markdown, /where the rotation is composed with the step\./);
});

test('three centred dots are \\cdots, a slash over a relation negates it, LuaLaTeX math letters given as Hangul are letters', () => {
  const dots = [g(CMMI, 'x', 100, 200), g(CMR, '+', 106, 200, 10, 0.8), g(CMSY, '·', 116, 200, 10, 0.28), g(CMSY, '·', 119, 200, 10, 0.28), g(CMSY, '·', 122, 200, 10, 0.28), g(CMR, '+', 128, 200, 10, 0.8), g(CMMI, 'y', 138, 200)];
  assert.equal(rebuildEquation(dots)!.latex, 'x + \\cdots + y');
  // \notin as TeX draws it: the element sign with a negation slash over it.
  const notin = [g(CMMI, 'x', 100, 200), g(CMSY, '∈', 108, 200, 10, 0.67), g(CMSY, '/', 109.5, 200, 10, 0.3), g(CMMI, 'A', 118, 200, 10, 0.75)];
  assert.equal(rebuildEquation(notin)!.latex, 'x \\notin A');
  // MuPDF gives 𝑦 (U+1D466) of LatinModernMath as 푦 (U+D466); 𝜋 (U+1D70B) as U+D70B.
  const lua = [g('ABCDEF+LatinModernMath-Regular', '\ud466', 100, 200), g('ABCDEF+LatinModernMath-Regular', '=', 108, 200, 10, 0.8), g('ABCDEF+LatinModernMath-Regular', '\ud70b', 118, 200)];
  assert.equal(rebuildEquation(lua)!.latex, 'y = \\pi');
});

test('big delimiters inside a text line: the extension font\'s U+FFFD is named from the trace, in the text and its inline math', { skip }, async () => {
  const pdf = buildPdf([
    {
      runs: [
        { x: 72, y: 100, text: 'The bound holds for every', size: 11, font: 'times' },
        { x: 200, y: 102, text: '(', size: 11, font: 'tex-ext' },
        { x: 206, y: 100, text: 'a', size: 11, font: 'times-italic' },
        { x: 212, y: 100, text: '+', size: 11, font: 'times' },
        { x: 220, y: 100, text: 'b', size: 11, font: 'times-italic' },
        { x: 226, y: 102, text: ')', size: 11, font: 'tex-ext' },
        { x: 234, y: 100, text: 'and stays finite in the limit that we take in the section below.', size: 11, font: 'times' },
      ],
    },
  ]);
  const r = await convertDocument(pdf, { runner });
  assertMathRenders(r.markdown);
  assert.doesNotMatch(r.markdown, /\uFFFD/, r.markdown);
  assert.match(r.markdown.replace(/[$\s]/g, ''), /every\(a\+b\)andstays/, r.markdown);
});

test('unmapped glyph names to characters: CMEX delimiters and operators by size, accents and unknown names left', async () => {
  const { unmappedGlyphChar, mapUnmappedRuns } = await import('../../src/recognition/pdf/inline-delimiters.js');
  const at = (glyph: string, x: number): MathGlyph => ({ font: 'ABCDEF+CMEX10', glyph, unicode: '\uFFFD', x0: x, x1: x + 5, y0: 95, y1: 110, baseline: 96, size: 10 });
  assert.deepEqual(['parenleftbig', 'bracketrightBig', 'braceleftbigg', 'summationtext', 'integraldisplay', 'radicalbig', 'angbracketleftBig', 'hatwide', 'foo'].map((n) => unmappedGlyphChar(at(n, 0))), ['(', ']', '{', '∑', '∫', '√', '⟨', null, null]);
  const page = { blocks: [{ type: 'text', lines: [{ bbox: { x: 100, y: 94, w: 60, h: 14 }, text: '\uFFFDx + y\uFFFD', font: { name: 'CMEX10', size: 10 } }, { bbox: { x: 300, y: 94, w: 20, h: 14 }, text: '\uFFFD', font: { name: 'CMEX10', size: 10 } }] }] };
  const done = mapUnmappedRuns(page, [at('parenleftBig', 100), at('parenrightBig', 150), at('summationdisplay', 305)], [{ x0: 290, y0: 80, x1: 330, y1: 120 }]);
  assert.equal(done.mapped, 2);
  assert.deepEqual(done.page.blocks![0]!.lines!.map((l) => l.text), ['(x + y)', '\uFFFD']);
});

test('dvipdfmx rules (parallel hairlines in one stroked path) are fraction bars; a number alone between the rows of a split numbers it', async () => {
  const { parseTraceRules } = await import('../../src/recognition/pdf/math-stacks.js');
  const hair = (x0: number, x1: number, y: number) => `<stroke_path linewidth=".12" transform="1 0 0 -1 0 842">${[0, 0.12, 0.24, 0.36].map((d) => `<moveto x="${x0}" y="${y + d}"/><lineto x="${x1}" y="${y + d}"/>`).join('')}</stroke_path>`;
  const rules = parseTraceRules(hair(291.36, 306, 592.64));
  assert.equal(rules.length, 1);
  assert.ok(Math.abs(rules[0]!.y - 249.18) < 0.01 && rules[0]!.x0 === 291.36 && rules[0]!.x1 === 306);
  // Two rows of a split aligned at their relations, the number (3) between them at the right margin.
  const glyphs = [
    g(CMMI, 'm', 250, 200, 10, 0.9), g(CMR, '=', 260, 200, 10, 0.8), g(CMMI, 'a', 270, 200),
    g(CMR, '=', 260, 214, 10, 0.8), g(CMMI, 'b', 270, 214),
    ...word(CMR, '(3)', 500, 207, 10, 0.4),
  ];
  const r = rebuildEquation(glyphs)!;
  assert.deepEqual(r.displays, [{ latex: '\\begin{aligned} m & = a \\\\ & = b \\end{aligned}', tag: '3' }]);
  // The radical sign of CMSY under a numeric glyph name hangs from its baseline like `radical`.
  const root = [g('JKPAGC+Cmsy10', '√', 100, 190, 10, 0.83, '36'), g(CMR, '3', 108.3, 199)];
  assert.equal(rebuildEquation(root, [{ x0: 108.3, x1: 114, y: 189.8 }])!.latex, '\\sqrt{3}');
});

test('grouping: a short worded line joins a display on its rows (a condition), not the end of a prose line above it', () => {
  const lines = [
    line('The derivative of f at the point in the direction of a', 72, 150, 540, 160),
    line('unit vector is', 72, 163, 140, 173),
    line('0) in the direction of a', 369, 163, 480, 173),
    line('D f(x0) = lim (f(x0 + h a) − f(x0))/h,', 239, 175, 420, 187, { math: '$D f(x_0) = \\lim (f(x_0 + h a) - f(x_0))/h,$' }),
    line('if the limit exists, which it does for every differentiable function used below.', 72, 215, 540, 225),
  ];
  assert.deepEqual(displayRegions(lines), [[3]]);
  // A condition on the display's row joins it.
  const cases = [line('f(x) = \uFFFD 1', 239, 190, 300, 202, { math: '$f(x) =$ \uFFFD $1$' }), line('otherwise', 330, 190, 380, 202)];
  assert.deepEqual(displayRegions(cases), [[0, 1]]);
});

test('things over and under a base (ADR 0355): braces with their notes, an underline, a radical whose bar the sign does not join', () => {
  // \underbrace{a + b}_{n}: CMEX's brace tips and middle under the material, a rule between them, the note
  // smaller below; the rule is the brace's, not a fraction bar.
  const under = [
    g(CMMI, 'a', 250, 200), g(CMR, '+', 258, 200, 10, 0.8), g(CMMI, 'b', 268, 200),
    g(CMEX, '', 249, 205, 10, 0.5, 'bracehtipdownleft'), g(CMEX, '', 258, 205, 10, 0.5, 'bracehtipupright'), g(CMEX, '', 263, 205, 10, 0.5, 'bracehtipupleft'), g(CMEX, '', 269, 205, 10, 0.5, 'bracehtipdownright'),
    g(CMMI, 'n', 261, 212, 7),
  ];
  const rules = [{ x0: 254, x1: 258, y: 205.5 }, { x0: 268, x1: 269, y: 205.5 }];
  assert.equal(rebuildEquation([g(CMMI, 'x', 230, 200), g(CMR, '=', 238, 200, 10, 0.8), ...under], rules)!.latex, 'x = \\underbrace{a + b}_{n}');
  // \overbrace{x y}^{k} as an OpenType font draws it: one stretched ⏞ glyph over the material.
  const over = [g(CMMI, 'x', 250, 200), g(CMMI, 'y', 256, 200), g('ABCDEF+LatinModernMath-Regular', '⏞', 249, 192, 10, 1.3), g(CMMI, 'k', 257, 186, 7)];
  assert.equal(rebuildEquation(over)!.latex, '\\overbrace{x y}^{k}');
  // Brace pieces with nothing to span leave nothing behind.
  assert.equal(rebuildEquation([g(CMMI, 'z', 250, 200), g('ABCDEF+LatinModernMath-Regular', '⏟', 300, 230, 10, 1.3)])!.latex, 'z');
  // A rule right under material, nothing below it: an underline.
  assert.equal(rebuildEquation([g(CMMI, 'x', 250, 200), g(CMR, '+', 258, 200, 10, 0.8), g(CMMI, 'y', 268, 200)], [{ x0: 250, x1: 273, y: 203 }])!.latex, '\\underline{x + y}');
  // A longer rule under it (a proof's inference line whose conclusion is elsewhere) is no underline.
  assert.equal(rebuildEquation([g(CMMI, 'x', 250, 200), g(CMR, '+', 258, 200, 10, 0.8), g(CMMI, 'y', 268, 200)], [{ x0: 240, x1: 273, y: 203 }])!.latex, 'x + y');
  // A radical sign set lower than TeX's, its bar starting half an em after it: the radical's bar, not an overline.
  const root = [g(CMSY, '√', 240, 196, 10, 0.8, 'radical'), g(CMMI, 'x', 254, 200), g(CMR, '+', 258, 200, 10, 0.8), g(CMR, '1', 268, 200)];
  assert.equal(rebuildEquation(root, [{ x0: 253, x1: 274, y: 192 }])!.latex, '\\sqrt{x + 1}');
  // A radical sign without any bar stands alone.
  assert.equal(rebuildEquation([g(CMR, '7', 230, 200), g(CMSY, '√', 240, 200, 10, 0.8, 'radical')])!.latex, '7 \\surd');
});

test('accents over math letters (ADR 0367): drawn from the baseline of an x-height base, over a capital raised; inside a fraction they stay on their letter', () => {
  // TeX sets a math accent on its base's baseline and raises it only by how much the base is taller than
  // x-height: \vec{a}, \bar{z}, \hat{x}, \tilde{n}, \dot{x} have the accent glyph on the base's own baseline.
  const accent = (ch: string, x: number, baseline: number, glyph = '') => g(ch === '⃗' ? CMMI : CMR, ch, x, baseline, 10, 0.5, glyph);
  const eq = [
    g(CMMI, 'F', 100, 200), accent('⃗', 101.5, 197.5), // over a capital: raised by cap height - x-height
    g(CMR, '=', 110, 200, 10, 0.8),
    g(CMMI, 'm', 120, 200, 10, 0.8),
    g(CMMI, 'a', 129, 200), accent('⃗', 129.5, 200), // over an x-height letter: the same baseline
  ];
  assert.equal(rebuildEquation(eq)!.latex, '\\vec{F} = m \\vec{a}');
  for (const [ch, name, cmd] of [['¯', 'macron', '\\bar'], ['ˆ', 'circumflex', '\\hat'], ['˜', 'tilde', '\\tilde'], ['˙', 'dotaccent', '\\dot']] as const) {
    const base = [g(CMMI, 'p', 100, 200), g(CMR, '(', 105, 200, 10, 0.4), g(CMMI, 'z', 109, 200), accent(ch, 109.5, 200), g(CMR, ')', 114, 200, 10, 0.4)];
    assert.equal(rebuildEquation(base)!.latex, `p(${cmd}{z})`, ch);
    // By glyph name when the font gives no Unicode.
    assert.equal(rebuildEquation([g(CMMI, 'x', 100, 200), { ...g(CMR, '', 100.5, 200, 10, 0.5, name) }])!.latex, `${cmd}{x}`, name);
  }
  // In a numerator the accent goes with its letter, not over the whole fraction: \frac{\partial \vec{B}}{\partial t}.
  const frac = [g(CMMI, '∂', 100, 194), g(CMMI, 'B', 106, 194), accent('⃗', 107.5, 191.5), g(CMMI, '∂', 101, 210), g(CMMI, 't', 107, 210)];
  assert.equal(rebuildEquation(frac, [{ x0: 99, x1: 113, y: 197.5 }])!.latex, '\\frac{\\partial \\vec{B}}{\\partial t}');
});

test('material over or under a relation (ADR 0367): \\stackrel{def}{=} is \\overset, a limit under an arrow \\underset; a script before the relation stays a script', () => {
  // x \stackrel{def.}{=} a: "def." in script size centred over the "=", its baseline 0.6 em up.
  const defined = [g(CMMI, 'x', 100, 200), ...word(CMR, 'def', 108, 194, 7, 0.45), g(CMR, '.', 117.5, 194, 7, 0.3), g(CMR, '=', 110, 200, 10, 0.8), g(CMMI, 'a', 122, 200)];
  assert.equal(rebuildEquation(defined)!.latex, 'x \\overset{\\text{def} .}{=} a');
  // f_n \underset{n \to \infty}{\longrightarrow} f: the note below the arrow, centred on it.
  const limit = [
    g(CMMI, 'f', 100, 200), g(CMMI, 'n', 105, 202, 7),
    g(CMSY, '→', 112, 200, 10, 1.6),
    g(CMMI, 'n', 113, 207, 7), g(CMSY, '→', 117.5, 207, 7, 1), g(CMSY, '∞', 125, 207, 7, 0.7),
    g(CMMI, 'f', 132, 200),
  ];
  assert.equal(rebuildEquation(limit)!.latex, 'f_{n} \\underset{n \\rightarrow \\infty}{\\rightarrow} f');
  // A superscript of the letter before "=" is left of the relation: still a superscript.
  assert.equal(rebuildEquation([g(CMMI, 'x', 100, 200), g(CMR, '2', 105, 196, 7), g(CMR, '=', 112, 200, 10, 0.8), g(CMMI, 'a', 122, 200)])!.latex, 'x^{2} = a');
});

test('integral limits set beside a display integral (ADR 0367): a lower limit that starts left of the slanted glyph is still its limit; newtx display integrals hang like CMEX\'s', () => {
  // \frac{1}{2\pi} \int_{-\infty}^{\infty} e^{x} dx: the lower limit moved left by the italic correction
  // starts 3 pt before the integral (as newtx sets it: `uni222B.updsp`, baseline 14 pt above the row's).
  const TXEX = 'ABCDEF+txexs';
  const eq = [
    g(CMR, '1', 289, 586.5), g(CMR, '2', 286.5, 600.4), g(CMMI, 'π', 291.6, 600.4),
    g(TXEX, '∫', 301.1, 579.4, 10.3, 0.56, 'uni222B.updsp'),
    g(CMSY, '∞', 303.5, 577.4, 7.5, 0.85),
    g(CMSY, '−', 298.1, 608.2, 7.5, 0.64), g(CMSY, '∞', 302.9, 608.2, 7.5, 0.85),
    g(CMMI, 'e', 312.5, 593.4), g(CMMI, 'x', 317.1, 589.2, 7.5),
  ];
  assert.equal(rebuildEquation(eq, [{ x0: 286.5, x1: 296.7, y: 590.8 }])!.latex, '\\frac{1}{2 \\pi} \\int_{- \\infty}^{\\infty} e^{x}');
  // A script of the glyph before an integral, on the row's own level, stays that glyph's.
  const before = [g(CMMI, 'a', 280, 593.4), g(CMMI, 'i', 285, 595.5, 7.5, 0.4), g(TXEX, '∫', 290, 579.4, 10.3, 0.56, 'uni222B.updsp'), g(CMMI, 'f', 298, 593.4)];
  assert.equal(rebuildEquation(before)!.latex, 'a_{i} \\int f');
});

test('a text-style big operator with scripts beside it (ADR 0367 amendment): \\sum^{a}_{b} keeps one superscript and one subscript', () => {
  // As pdfTeX sets 1\sum^{a}_{b} in text style: CMEX `summationtext` hangs from a baseline 7.5 pt above the
  // row's (at its top), its scripts right of it, one raised and one lowered around the row's baseline.
  const eq = [
    g(CMR, '1', 100, 200),
    g(CMEX, '\uFFFD', 106, 192.5, 10, 1.06, 'summationtext'),
    g(CMMI, 'a', 117, 196.4, 7, 0.55),
    g(CMMI, 'b', 117, 201.5, 7, 0.45),
    g(CMMI, 'x', 123, 200),
  ];
  assert.equal(rebuildEquation(eq)!.latex, '1 \\sum_{b}^{a} x');
  // Under a fraction rule (aipsamp's numerator): still one of each.
  const frac = [...eq.slice(0, 4).map((q) => ({ ...q, baseline: q.baseline - 8, y0: q.y0 - 8, y1: q.y1 - 8 })), g(CMMI, 'A', 108, 206)];
  assert.equal(rebuildEquation(frac, [{ x0: 100, x1: 121, y: 197.5 }])!.latex, '\\frac{1 \\sum_{b}^{a}}{A}');
});

test('a 9 pt display whose scripts are 7.3 pt (ADR 0367 amendment): the integrals\' upper limits and the squares stay in the row, not a row of their own', () => {
  // asmejour's wide display as newtx sets it at 9 pt (glyph positions from the trace): scripts at 0.81 of
  // the row's size, display integrals hanging from a baseline 12 pt above the row's.
  const EX = 'ABCDEF+txexs';
  const MI = 'ABCDEF+NewTXMI';
  const MI7 = 'ABCDEF+NewTXMI7';
  const SY = 'ABCDEF+txsys';
  const RM = 'ABCDEF+TeXGyreTermesX-Regular';
  const eq = [
    g(EX, '∫', 85.7, 288.2, 9, 0.62, 'uni222B.dsp'), g(MI7, '𝑏', 96.4, 291, 7.3, 0.575), g(MI7, '𝑎', 91.1, 308.4, 7.3, 0.575),
    g(EX, '∫', 105.9, 288.2, 9, 0.62, 'uni222B.dsp'), g(MI7, '𝑏', 116.7, 291, 7.3, 0.575), g(MI7, '𝑎', 111.3, 308.4, 7.3, 0.575),
    g(SY, '[', 122.1, 300.4, 9, 0.33), g(MI, '𝑓', 126.9, 300.4, 9, 0.28), g(SY, '(', 131.4, 300.4, 9, 0.33), g(MI, '𝑥', 134.7, 300.4, 9, 0.44), g(SY, ')', 139.2, 300.4, 9, 0.33),
    g(RM, '2', 142.6, 296.7, 7.3, 0.5), g(MI, '𝑔', 146.8, 300.4, 9, 0.5), g(SY, '(', 152, 300.4, 9, 0.33), g(MI, '𝑦', 155.7, 300.4, 9, 0.44), g(SY, ')', 160, 300.4, 9, 0.33),
    g(RM, '2', 163.4, 296.7, 7.3, 0.5), g(SY, ']', 167.5, 300.4, 9, 0.33),
  ];
  assert.equal(rebuildEquation(eq)!.latex, '\\int_{a}^{b} \\int_{a}^{b} [f(x)^{2} g(y)^{2}]');
  // Two rows of an alignment at that size are still two rows.
  const rows = [...word(MI, 'x', 100, 300, 9), g(RM, '2', 104.5, 296.3, 7.3), g(SY, '=', 110, 300, 9, 0.8), g(MI, 'a', 120, 300, 9), ...word(MI, 'y', 100, 313, 9), g(SY, '=', 110, 313, 9, 0.8), g(MI, 'b', 120, 313, 9)];
  assert.match(rebuildEquation(rows)!.latex, /x\^\{2\} &?\s*= a \\\\ y &?\s*= b/);
});

test('a newtx underbrace (ADR 0367 amendment c): its `bracehext` extension glyphs are the brace, not a row of left braces', () => {
  // \underbrace{a + b}_{0} as newtx draws it (asmeconf): tips and middle from txexs, the extension between
  // them as repeated `bracehext` glyphs of txexas (Unicode a macron), all on one row under the material.
  const TXEXS = 'ABCDEF+txexs';
  const TXEXAS = 'ABCDEF+txexas';
  const ext = (x: number) => g(TXEXAS, 'ˉ', x, 205, 10, 0.2, 'bracehext');
  const glyphs = [
    g(CMMI, 'a', 250, 200), g(CMR, '+', 258, 200, 10, 0.8), g(CMMI, 'b', 268, 200),
    g(TXEXS, '⏞', 249, 205, 10, 0.6, 'bracehtipupleft'), ext(254), ext(256), g(TXEXS, '⏟', 258, 205, 10, 0.6, 'bracehtipdownright'),
    g(TXEXS, '⏟', 264, 205, 10, 0.6, 'bracehtipdownleft'), ext(269), ext(271), g(TXEXS, '⏞', 273, 205, 10, 0.6, 'bracehtipupright'),
    g(CMR, '0', 262, 212, 7),
  ];
  assert.equal(rebuildEquation([g(CMMI, 'x', 230, 200), g(CMR, '=', 238, 200, 10, 0.8), ...glyphs])!.latex, 'x = \\underbrace{a + b}_{0}');
});

test('grouping (ADR 0367 amendment c, converter): a named distribution in upright letters and a display\'s `where` are no prose', () => {
  // statex: `X \sim \mathrm{Pareto}(\alpha, \beta)` set alone between prose; the word before its argument list
  // counted as prose, so the display was never found and stayed text in pieces (`$X \sim$ Pareto ($\alpha,\beta)$`).
  const named = [
    line('Pareto Distribution', 72, 150, 200, 160),
    line('X ∼ Pareto (α, β)', 250, 175, 330, 187, { math: '$X \\sim$ Pareto ($\\alpha,\\beta)$' }),
    line('The density of this distribution is given by the formula below, which we use.', 72, 200, 540, 210),
  ];
  assert.deepEqual(displayRegions(named), [[1]]);
  // A fraction with its condition set after it (`\frac{1}{b-a} I_x(a, b), \text{where} a < b`): one region.
  const where = [
    line('1', 262, 170, 267, 180, { math: '$1$' }),
    line('Ix (a, b) , where a < b', 279, 177, 380, 189, { math: '$I_x (a, b)$ , where $a < b$' }),
    line('b − a', 255, 185, 275, 195, { math: '$b - a$' }),
  ];
  assert.deepEqual(displayRegions(where), [[0, 1, 2]]);
  // A prose word before a parenthesis on a line without a relation is still prose; with other prose words too.
  assert.deepEqual(displayRegions([line('see Figure (3)', 250, 175, 330, 187)]), []);
  assert.deepEqual(displayRegions([line('the model X ∼ Pareto (α, β) holds', 250, 175, 400, 187, { math: 'the model $X \\sim$ Pareto ($\\alpha,\\beta)$ holds' })]), []);
});

test('OpenType extenders (ADR 0367 amendment c, converter): a tall `\\middle|` drawn as STIX `uni007C.x` pieces, scaled vertically, is one bar; two side by side are two', () => {
  // perfectcut's `\left\langle t \middle|\mkern-2mu\middle| e \right\rangle` as STIX draws it: each tall bar is
  // four `uni007C.x` extender pieces in one column, in a text matrix scaled vertically (d = -0.84); the trace
  // parser left them out (uneven scale), and read one by one they made a bar of each piece.
  const pieces = (x: number) => [563.078, 556.502, 549.927, 543.352].map((y) => `<g unicode="|" glyph="uni007C.x" x="${x}" y="${y}" adv=".32"/>`).join('');
  const xml = `<page mediabox="0 0 612 792">
<fill_text colorspace="DeviceGray" color="0" transform="1 0 0 -.84096 0 755.47537"><span font="UDEBTF+STIXMathExtensions-Regul" wmode="0" bidi="0" trm="11.9552 0 0 11.9552">${pieces(180.34)}${pieces(182.067)}</span></fill_text>
<fill_text colorspace="DeviceGray" color="0" transform="1 0 0 -.84096 0 755.47537"><span font="ABCDEF+STIXGeneral" wmode="0" bidi="0" trm="11.9552 0 0 11.9552"><g unicode="x" glyph="x" x="10" y="10" adv=".5"/></span></fill_text>
</page>`;
  const gs = parseTraceGlyphs(xml);
  // The pieces are kept (an extension font's); a text font's unevenly scaled glyph is still left out.
  assert.equal(gs.length, 8);
  assert.ok(gs.every((q) => q.y1 - q.y0 < 1.1 * 11.9552), 'each piece takes the vertical scale');
  const MI = 'ABCDEF+STIXMath-Italic';
  const base = gs[0]!.baseline + 16; // the bar spans the row, centred on its axis
  const eq = [g(MI, '⟨', 170, base, 12, 0.35), g(MI, 't', 175, base, 12, 0.35), ...gs, g(MI, 'e', 186, base, 12, 0.45), g(MI, '⟩', 192, base, 12, 0.35)];
  assert.equal(rebuildEquation(eq)!.latex, '\\langle t | | e \\rangle');
});
