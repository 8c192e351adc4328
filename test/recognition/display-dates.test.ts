// A date under a title ("2022/04/13", the \date of ltxdoc package manuals) is text, not a displayed quotient
// `$$2022 / 04 / 13$$` (ADR 0380): a line of a year, a month and a day divides nothing. A quotient of
// numbers that is no date stays a display.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { displayRegions } from '../../src/recognition/pdf/display-math.js';
import { isDate, mathLine, type MathRun } from '../../src/recognition/structure/math-latex.js';
import type { LayoutLine } from '../../src/recognition/layout-model.js';

const line = (text: string, x0: number, y0: number, x1: number, y1: number, o: Partial<LayoutLine> = {}): LayoutLine => ({ text, x0, y0, x1, y1, size: 10, bold: false, italic: false, mono: false, block: 0, ...o });

test('dates in digits are told from quotients', () => {
  for (const d of ['2022/04/13', '1999 / 10 / 29', '13.04.2022', '04/13/2022', '2005-03-19']) assert.ok(isDate(d), d);
  for (const q of ['12/4/3', '2022/14/40', '1/2', 'a/b/c', '2022/04', '3000/01/01']) assert.ok(!isDate(q), q);
});

test('a title block\'s centred date is no display; a centred quotient of numbers is one', () => {
  const page = (centre: string): LayoutLine[] => [
    line('The ifthen package', 256, 164, 391, 181, { size: 17 }),
    line('David Carlisle', 285, 197, 357, 208, { size: 12 }),
    line(centre, 292, 221, 350, 232, { size: 12 }),
    line('This file is maintained by the LaTeX Project team. Bug reports can be opened', 148, 252, 463, 262),
    line('at the address below, in the category of the package concerned, and are read.', 148, 264, 463, 274),
  ];
  assert.deepEqual(displayRegions(page('2022/04/13')).filter((r) => r.includes(2)), []);
  assert.deepEqual(displayRegions(page('12/4/3')).filter((r) => r.includes(2)), [[2]]);
});

test('a date whose slashes are set in a math font (MathDesign on a thesis approval page) is text, not a formula', () => {
  const run = (text: string, math: boolean): MathRun => ({ text, size: 11, y0: 668, y1: 681, math });
  assert.equal(mathLine([run('12', false), run('/', true), run('14', false), run('/', true), run('2022', false)], [false, false, false, false, false]), null);
  // A quotient in the same fonts is still one.
  assert.equal(mathLine([run('12', false), run('/', true), run('4', false)], [false, false, false]), '$12/4$');
});
