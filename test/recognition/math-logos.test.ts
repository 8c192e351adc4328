// Logos set from math fonts read as words (ADR 0380, amendment "logos"): `\AmS` and `\PTPTeX` from CMSY's
// calligraphic capitals, and the word after the LaTeX2e logo's epsilon.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SYMBOL_FONT_RE, mathLine, type MathRun } from '../../src/recognition/structure/math-latex.js';
import { parseStextPage } from '../../src/recognition/pdf/stext-parser.js';

const run = (text: string, o: Partial<MathRun> = {}): MathRun => ({ text, size: 10, y0: 100, y1: 110, math: false, ...o });

type Piece = [text: string, font: string, x: number, w: number, y?: number, h?: number, size?: number];
/** One line of runs as MuPDF's JSON has them. */
function line(pieces: readonly Piece[]) {
  const page = parseStextPage({
    blocks: [
      {
        type: 'text',
        bbox: { x: 100, y: 280, w: 400, h: 20 },
        lines: pieces.map(([text, name, x, w, y = 282, h = 10, size = 9]) => ({ bbox: { x, y, w, h }, font: { name, size, ...(/cmmi/i.test(name) ? { style: 'italic' } : {}) }, x, y: 290, text })),
      },
    ],
  });
  return page.lines[0]!;
}

test('symbol fonts: CMSY and its kin, not math italic, extensions or text fonts', () => {
  for (const f of ['YKODCT+CMSY10', 'CMBSY7', 'BPACHF+Pxsy', 'DAVVCY+txsys', 'LMMathSymbols10-Regular', 'zplmr7y']) assert.ok(SYMBOL_FONT_RE.test(f), f);
  for (const f of ['BSBBZI+CMMI10', 'CMEX10', 'MSBM10', 'WBLIJR+CMR10', 'Symbol', 'Rpxmi']) assert.ok(!SYMBOL_FONT_RE.test(f), f);
});

test('the AMS logo (CMSY capitals with kerns) between words is a word: "AMS-TEX", "the AMS font set", "PTPTEX"', () => {
  // amsldoc: "like the ones in" + " AMS" in CMSY10 (lowered M makes the box deep) + "-TEX are available".
  const ams = line([
    ['Some commutative diagram commands like the ones in', 'OSVRJX+CMR9', 106, 238],
    [' AMS', 'YKODCT+CMSY10', 345, 26, 281, 19],
    ['-TEX are available', 'OSVRJX+CMR9', 371, 79, 282, 12],
  ]);
  assert.equal(ams.text, 'Some commutative diagram commands like the ones in AMS-TEX are available');
  assert.equal(ams.math, undefined);
  // pxfontsdoc: spaces on both sides, beside real math elsewhere on the line.
  const px = line([
    ['the', 'Pxr', 100, 14],
    [' AMS', 'BPACHF+Pxsy', 116, 24],
    [' font set has', 'Pxr', 142, 50],
    [' x', 'Rpxmi', 196, 5],
  ]);
  assert.equal(px.math, 'the AMS font set has $x$');
  // manptp: "In" + " PTP" (CMSY) + "TEX, all".
  const ptp = line([
    ['ptptex.cls. In', 'JJBSWW+CMR10', 91, 65],
    [' PTP', 'KYIOON+CMSY10', 157, 26, 283, 19],
    ['TEX, all the usual', 'JJBSWW+CMR10', 184, 90],
  ]);
  assert.equal(ptp.text, 'ptptex.cls. In PTPTEX, all the usual');
  assert.equal(ptp.math, undefined);
});

test('capitals that are math stay math: math italic "AB", a calligraphic letter, capitals beside other math, a display', () => {
  assert.equal(mathLine([run('the side'), run(' AB', { math: true }), run(' is long')], [false, true, true]), 'the side $A B$ is long');
  assert.equal(mathLine([run('the category'), run(' C', { math: true, symbol: true }), run(' has')], [false, true, true]), 'the category $C$ has');
  assert.equal(mathLine([run('then'), run(' AB', { math: true, symbol: true }), run('x', { math: true })], [false, true, false]), 'then $A Bx$');
  assert.equal(mathLine([run('AB', { math: true, symbol: true })], [false]), '$A B$');
  // A smaller script run of capitals is no word of the line.
  assert.equal(mathLine([run('x', { math: true }), run('AB', { math: true, symbol: true, size: 7, y0: 96, y1: 103 }), run(' holds')], [false, false, true]), '$x^{AB}$ holds');
});

test('the word after the LaTeX2e logo is a word of its own: "LATEX 2ε manuscripts", not "2$\\epsilon$manuscripts"', () => {
  // manptp: `\LaTeXe manuscripts` (TeX ate the space); the epsilon ends half a point before the next word.
  const l = line([
    ['from L', 'JJBSWW+CMR10', 91, 34, 282, 13, 10],
    ['A', 'JJBSWW+CMR7', 122, 6, 284, 7, 7],
    ['TEX 2', 'JJBSWW+CMR10', 126, 27, 282, 15, 10],
    ['ε', 'ZAEDZY+CMMI10', 154, 5, 286, 10, 10],
    ['manuscripts using', 'JJBSWW+CMR10', 159, 100, 282, 13, 10],
  ]);
  assert.equal(l.math, 'from LATEX 2$\\epsilon$ manuscripts using');
  // A hyphen after the logo stays joined ("LATEX2ε-Beispiel"); a formula's epsilon before a word is untouched.
  assert.equal(mathLine([run('einem L'), run('A', { size: 7, y0: 97, y1: 104 }), run('TEX2'), run('ε', { math: true }), run('-Beispiel')], [true, false, false, false, false]), 'einem LATEX2$\\epsilon$-Beispiel');
  assert.equal(mathLine([run('for 2'), run('ε', { math: true }), run('th')], [false, false, false]), 'for 2$\\epsilon$th');
});
