// Stacked fractions and radicals rebuilt as LaTeX from the page's rules (ADR 0134): the rules read from
// `mutool draw -F trace`, the evidence each stack needs, the cases left alone, and the converter end to end
// on a pdfLaTeX fixture (test/fixtures/recognition/stacked-math.tex).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTraceRules, rebuildStacks, hasStackCandidate, type StackPage } from '../../src/recognition/pdf/math-stacks.js';
import { parseStextPage } from '../../src/recognition/pdf/stext-parser.js';
import { MATH_FONT_RE } from '../../src/recognition/structure/math-latex.js';
import { convertDocument } from '../../src/recognition/index.js';
import { fixtures, needs, runner } from './helpers/tools.js';
import { assertMathRenders } from './helpers/katex.js';

const isMath = (n: string): boolean => MATH_FONT_RE.test(n);
const CMMI = { name: 'XNFFAH+CMMI10', size: 9, style: 'italic' };
const CMR = { name: 'AJNSNE+CMR10', size: 9 };
const CMSY = { name: 'FKFMOI+CMSY10', size: 9 };
const run = (x: number, y: number, w: number, h: number, text: string, font: { name: string; size: number }, base: number) => ({ bbox: { x, y, w, h }, font, x, y: base, text });

// x = (a+b)/c as MuPDF 1.21 writes it: the numerator joined to the "x =" line, the denominator a block of its own.
const fraction = (): StackPage => ({
  blocks: [
    { type: 'text', bbox: { x: 284, y: 145, w: 41, h: 16 }, lines: [run(284, 151, 5, 9, 'x', CMMI, 159), run(289, 151, 10, 9, ' =', CMR, 159), run(300, 145, 9, 16, ' a', CMMI, 159), run(309, 145, 9, 9, ' +', CMR, 152), run(319, 145, 6, 9, ' b', CMMI, 152)] },
    { type: 'text', bbox: { x: 312, y: 158, w: 4, h: 9 }, lines: [run(312, 158, 4, 9, 'c', CMMI, 166)] },
  ],
});
const FRACTION_RULE = { x0: 304.253, x1: 325.971, y: 156.891 };

test('horizontal rules from a trace: stroked lines and thin filled rectangles, in page coordinates; not curves or thick boxes', () => {
  const xml = `<page mediabox="0 0 595 842">
<stroke_path linewidth=".398" miterlimit="10" transform="1 0 0 -1 304.253 156.89099"><moveto x="0" y="0"/><lineto x="21.718" y="0"/></stroke_path>
<fill_path winding="nonzero" transform="1 0 0 1 0 0"><moveto x="100" y="200"/><lineto x="150" y="200"/><lineto x="150" y="200.4"/><lineto x="100" y="200.4"/><closepath/></fill_path>
<fill_path winding="nonzero" transform="1 0 0 1 0 0"><moveto x="100" y="300"/><lineto x="150" y="300"/><lineto x="150" y="330"/><lineto x="100" y="330"/><closepath/></fill_path>
<stroke_path linewidth="1" transform="1 0 0 1 0 0"><moveto x="10" y="10"/><lineto x="10" y="90"/></stroke_path>
</page>`;
  const rules = parseTraceRules(xml);
  assert.equal(rules.length, 2);
  assert.ok(Math.abs(rules[0]!.x0 - 304.253) < 1e-6 && Math.abs(rules[0]!.x1 - 325.971) < 1e-6 && Math.abs(rules[0]!.y - 156.891) < 1e-3);
  assert.deepEqual([rules[1]!.x0, rules[1]!.x1], [100, 150]);
});

test('a fraction: numerator above the rule, denominator below, in math fonts, becomes one run with \\frac', () => {
  const page = fraction();
  assert.ok(hasStackCandidate(page, isMath));
  const r = rebuildStacks(page, [FRACTION_RULE], isMath);
  assert.equal(r.rebuilt, 1);
  const lines = parseStextPage(r.page as never).lines;
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.math, '$x = \\frac{a + b}{c}$');
  assert.equal(lines[0]!.text, 'x = (a + b)/c');
  // Without the rule (no drawing) nothing changes.
  assert.equal(rebuildStacks(page, [], isMath).rebuilt, 0);
});

test('unclear evidence leaves the page as it was: text crossing the rule, a second rule nearby, a denominator in a text font', () => {
  const crossed = fraction();
  crossed.blocks!.push({ type: 'text', lines: [run(250, 160, 90, 9, 'long prose running under the rule', CMR, 168)] });
  assert.equal(rebuildStacks(crossed, [FRACTION_RULE], isMath).rebuilt, 0);
  // A nested fraction: another rule just below over the same width. Nothing is rebuilt, and the blocks
  // around the rules get no LaTeX form (they would read as wrong formulas).
  const nested = rebuildStacks(fraction(), [FRACTION_RULE, { x0: 310, x1: 320, y: 164 }], isMath);
  assert.equal(nested.rebuilt, 0);
  assert.ok(nested.unresolved > 0);
  assert.ok(parseStextPage(nested.page as never).lines.every((l) => l.math === undefined));
  // The denominator a word in a text font: not a formula part.
  const worded = fraction();
  worded.blocks![1] = { type: 'text', lines: [run(306, 158, 18, 9, 'total', CMR, 166)] };
  assert.equal(rebuildStacks(worded, [FRACTION_RULE], isMath).rebuilt, 0);
  // A rule under a line with nothing below (an underline) is no fraction.
  assert.equal(rebuildStacks({ blocks: [fraction().blocks![0]!] }, [FRACTION_RULE], isMath).rebuilt, 0);
});

test('a rule starting at a √ is never a fraction; a table rule between a cell and the line below blocks the stack', () => {
  const page: StackPage = {
    blocks: [
      { type: 'text', lines: [run(216, 453, 4, 9, '7', CMR, 461)] },
      { type: 'text', lines: [run(205, 458, 8, 17, '√', CMSY, 467), run(214, 467, 5, 9, 'k', CMMI, 475)] },
    ],
  };
  // The cell "7" sits above the root's bar: no radical (something over the radicand), and no \frac{7}{k}.
  const r = rebuildStacks(page, [{ x0: 148, x1: 228, y: 464.3 }, { x0: 214.2, x1: 219.7, y: 466.1 }], isMath);
  assert.equal(r.rebuilt, 0);
  assert.ok(parseStextPage(r.page as never).lines.every((l) => !/\\frac|\\sqrt/.test(l.math ?? '')));
});

test('a radical: a lone √ ending where the overbar starts, the radicand under the bar, becomes \\sqrt', () => {
  const page: StackPage = {
    blocks: [
      { type: 'text', lines: [run(280, 198, 4, 9, 's', CMMI, 206), run(284, 198, 10, 9, ' =', CMR, 206), run(298, 190, 8, 17, '√', CMSY, 198)] },
      { type: 'text', lines: [run(306, 198, 4, 9, 'v', CMMI, 206), run(311, 198, 10, 9, ' +', CMR, 206), run(321, 198, 9, 9, ' w', CMMI, 206)] },
    ],
  };
  const r = rebuildStacks(page, [{ x0: 306.37, x1: 331.134, y: 197.804 }], isMath);
  assert.equal(r.rebuilt, 1);
  assert.equal(parseStextPage(r.page as never).lines[0]!.math, '$s = \\sqrt{v + w}$');
  // A bar over the first variable only: the root is of that variable alone.
  const short = rebuildStacks(page, [{ x0: 306.37, x1: 311, y: 197.804 }], isMath);
  assert.equal(parseStextPage(short.page as never).lines[0]!.math, '$s = \\sqrt{v} + w$');
  // A bar that starts away from the sign is not the sign's.
  assert.equal(rebuildStacks(page, [{ x0: 309, x1: 331.134, y: 197.804 }], isMath).rebuilt, 0);
});

const skip = await needs('mutool');

test('end to end: a pdfLaTeX page with displayed fractions and radicals reads as \\frac and \\sqrt, nested ones too (ADR 0320)', { skip }, async () => {
  const r = await convertDocument(readFileSync(join(fixtures, 'stacked-math.pdf')), { runner });
  assertMathRenders(r.markdown);
  assert.match(r.markdown, /\$\$x = \\frac\{a \+ b\}\{c\}\$\$/);
  assert.match(r.markdown, /\$\$s = \\sqrt\{v \+ w\}\$\$/);
  assert.match(r.markdown, /\$\$y = \\frac\{x\^\{2\}\}\{2n\}\$\$/);
  // An alignment of numbered rows: a fraction on each row (the next row's numerator is no part of this
  // one), each row a display of its own with its number.
  assert.match(r.markdown, /\$\$f\(x\) = \\frac\{1\}\{x \+ 1\} \\tag\{1\}\$\$/);
  assert.match(r.markdown, /\$\$g\(x\) = \\frac\{\\alpha\}\{\\beta\} - 1 \\tag\{2\}\$\$/);
  // Before ADR 0320 a cube root and a nested fraction were left as text; the glyphs and rules of the
  // whole display now rebuild them. A ruled table is still no fraction.
  assert.match(r.markdown, /\$\$r = \\sqrt\[3\]\{u \+ v\}\$\$/);
  assert.match(r.markdown, /\$\$z = \\frac\{1\}\{1 \+ \\frac\{1\}\{w\}\}\$\$/);
  assert.doesNotMatch(r.markdown, /\\sqrt\^|\\frac\{7|\\frac\{12/);
  assert.equal((r.markdown.match(/\\frac/g) ?? []).length, 9);
  // Two on one row; a subscript of a numerator's first letter (whose box MuPDF stretches) stays a subscript.
  assert.match(r.markdown, /\$\$h = \\frac\{a_\{1\}\}\{b_\{2\}\} \+ \\frac\{c\}\{d\^\{2\}\}\$\$/);
  // Inline: a text-style fraction (small, on the text line) and a root in running text.
  assert.match(r.markdown, /Inline \$\\frac\{p\}\{q\}\$ and \$\\sqrt\{k\}\$ in running text\./);
  // No fragments: every display is one equation.
  assert.doesNotMatch(r.markdown, /\$\$z =\$\$|\$\$w\$\$|\$\$1\$\$/);
  // Every stack was rebuilt in the end: nothing is reported as left in text.
  assert.equal(r.report.warnings.find((x) => x.code === 'EQUATIONS_AS_TEXT'), undefined, JSON.stringify(r.report.warnings));
});

test('author and affiliation markers in math fonts (Name^{α,∗} on one line above ^{α}Institute) are not stacked math; a numerator is still found', () => {
  const TEXT = { name: 'WARMCT+NimbusRomNo9L-Medi', size: 11 };
  const MARK = { name: 'DQQDPN+CMMI8', size: 7 };
  const SYM = { name: 'FRNIHB+CMSY8', size: 7 };
  // as MuPDF 1.21 writes a pdfLaTeX title block: the markers are runs of their own, raised and touching their text
  const authors: StackPage = {
    blocks: [
      { type: 'text', bbox: { x: 100, y: 105, w: 150, h: 15 }, lines: [run(100, 105, 40, 15, 'Kyle Lo', TEXT, 117), run(140, 107, 5, 7, 'α', MARK, 113), run(146, 106, 4, 13, '∗', SYM, 113)] },
      { type: 'text', bbox: { x: 130, y: 119, w: 150, h: 15 }, lines: [run(133, 121, 5, 7, 'α', MARK, 127), run(139, 119, 101, 14, 'Allen Institute for AI', TEXT, 131)] },
    ],
  };
  assert.equal(hasStackCandidate(authors, isMath), false);
  // the same page with a fraction below still asks for its rules
  assert.equal(hasStackCandidate({ blocks: [...authors.blocks!, ...fraction().blocks!] }, isMath), true);
});
