// Equations as LaTeX from math-font runs (ADR 0097): symbols mapped to commands, products of variables
// spaced, scripts by size and position, inline `$...$` in running text, displayed lines `$$...$$`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MATH_FONT_RE, displayLatex as display, mathLine as line_, type MathRun } from '../../src/recognition/structure/math-latex.js';
import { assertMathRenders, assertRenders } from './helpers/katex.js';

// What the converter emits here must render in KaTeX: inline formulas of a line, displays.
const mathLine: typeof line_ = (...args) => {
  const r = line_(...args);
  if (r) assertMathRenders(r);
  return r;
};
const displayLatex: typeof display = (...args) => {
  const r = display(...args);
  if (r) assertRenders(r);
  return r;
};
import { parseStextPage } from '../../src/recognition/pdf/stext-parser.js';

const run = (text: string, o: Partial<MathRun> = {}): MathRun => ({ text, size: 10, y0: 100, y1: 110, math: false, ...o });

test('math fonts: TeX math italic and symbols, OpenType math, Adobe Symbol; not text fonts', () => {
  for (const f of ['YPVUEH+CMMI10', 'CMSY7', 'ABCDEF+MSBM10', 'LatinModernMath-Regular', 'STIXTwoMath', 'CambriaMath', 'Symbol', 'ABCDEF+SymbolMT', 'KJZKZM+rtxmi', 'DAVVCY+txsys', 'GMQEWD+txexs', 'KOBCWY+rntxmi7', 'EURM10', 'zplmr7m', 'pxsy', 'YHDHMV+Yhcmex']) assert.ok(MATH_FONT_RE.test(f), f);
  for (const f of ['WBLIJR+CMR10', 'Helvetica', 'TimesNewRomanPSMT', 'CMBX12', 'SymbolicSans']) assert.ok(!MATH_FONT_RE.test(f), f);
});

test('a displayed formula: variables, symbols and operators; a superscript and a subscript by size and position', () => {
  const eq = mathLine([run('B', { math: true }), run(' =', {}), run(' ρfa', { math: true })], [false, false, false]);
  assert.equal(eq, '$B = \\rho f a$');
  assert.equal(displayLatex(eq!), 'B = \\rho f a');
  // a² + 8 = 12, the "2" smaller and raised; x with a lowered "i".
  const sq = mathLine([run('a', { math: true }), run('2', { size: 7, y0: 98, y1: 104 }), run(' + 8 = 12')], [false, false, false]);
  assert.equal(sq, '$a^{2} + 8 = 12$');
  const sub = mathLine([run('x', { math: true }), run('i', { size: 7, math: true, y0: 105, y1: 112 }), run(' ≤ '), run('y', { math: true })], [false, false, false, true]);
  assert.equal(sub, '$x_{i} \\leq y$');
  // A command from one run never runs into the letters of the next run.
  assert.equal(mathLine([run('⟨', { math: true }), run('a,b', { math: true }), run('⟩', { math: true })], [false, false, false]), '$\\langle a,b\\rangle$');
  // An equation number stays out of the formula.
  assert.equal(displayLatex('$E = m c^{2}$ (3)'), 'E = m c^{2}');
  // A line with words outside the math is not a displayed formula.
  assert.equal(displayLatex('where $x$ is the rate'), null);
});

test('inline math in running text: the math runs in $...$, punctuation after them outside', () => {
  const line = mathLine([run('The burial rate'), run('B', { math: true }), run(' of a core follows from the density'), run('ρ', { math: true }), run(', the fraction'), run('f', { math: true }), run(':')], [false, true, false, true, false, true, false]);
  assert.equal(line, 'The burial rate $B$ of a core follows from the density $\\rho$, the fraction $f$:');
  assert.equal(mathLine([run('No math here')], [false]), null);
  // A dollar amount in the same line stays text.
  assert.equal(mathLine([run('costs $5 per'), run('n', { math: true })], [false, true]), 'costs \\$5 per $n$');
});

test('the text-layer parser keeps the plain text and adds the LaTeX form of lines with math fonts', () => {
  const page = parseStextPage({
    blocks: [
      {
        type: 'text',
        bbox: { x: 160, y: 520, w: 60, h: 12 },
        lines: [
          { bbox: { x: 167, y: 526, w: 7, h: 9 }, font: { name: 'YPVUEH+CMMI10', size: 9, style: 'italic' }, x: 167, y: 534, text: 'B' },
          { bbox: { x: 175, y: 526, w: 11, h: 9 }, font: { name: 'WBLIJR+CMR10', size: 9 }, x: 175, y: 534, text: ' =' },
          { bbox: { x: 186, y: 526, w: 19, h: 9 }, font: { name: 'YPVUEH+CMMI10', size: 9, style: 'italic' }, x: 186, y: 534, text: ' ρfa' },
        ],
      },
    ],
  });
  assert.equal(page.lines[0]!.text, 'B = ρfa');
  assert.equal(page.lines[0]!.math, '$B = \\rho f a$');
});

test('Adobe Symbol\'s pieces of tall delimiters (private use) become one delimiter; other private-use characters are dropped', () => {
  // digiconfigs draws big parentheses from parenlefttp/ex/bt; KaTeX cannot parse a private-use character.
  const eq = mathLine([run('\uF8EB\uF8EC\uF8ED', { math: true }), run(' x + y ', { math: true }), run('\uF8F6\uF8F7\uF8F8', { math: true }), run('\uE123', { math: true })], [false, false, false, false]);
  assert.equal(displayLatex(eq!), '( x+y)');
});

test('the LaTeX logo beside math on a line ("LATEX2ε"): the small raised A is a letter of the word, not a superscript; a raised A elsewhere still is', () => {
  // "only runs with L" + raised small "A" + "TEX" + "2" then ε in a math font.
  const logo = mathLine([run('only runs with L'), run('A', { size: 7, y0: 97, y1: 104 }), run('TEX'), run('2'), run('ε', { math: true })], [false, false, false, false, false]);
  assert.equal(logo, 'only runs with LATEX2$\\epsilon$');
  // x raised to an A (no L before it) stays a script.
  assert.equal(mathLine([run('x', { math: true }), run('A', { size: 7, y0: 97, y1: 104 }), run(' = 1')], [false, false, false]), '$x^{A} = 1$');
});

test('a section sign from a math font (CMSY) is text: "§1. Introduction", not "$§$1. Introduction"', () => {
  assert.equal(mathLine([run('§', { math: true }), run('1. Introduction')], [false, false]), null);
  // Beside real math it stays out of the formula.
  assert.equal(mathLine([run('see §', { math: false }), run('§', { math: true }), run(' and '), run('x', { math: true })], [false, false, false, true]), 'see §§ and $x$');
});
