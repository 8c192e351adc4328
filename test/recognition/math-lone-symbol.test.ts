// A display of one symbol (ADR 0367 session d): `\[ \underline{x} \]` has no relation, so no line of it was
// a seed and it stayed a text line. It is a display where it is set as one: alone on its row, centred where
// the page's other formulas are, after a prose line; an axis label or a letter beside prose is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDisplayMath, displayRegions } from '../../src/recognition/pdf/display-math.js';
import { glyphExtent, type MathGlyph } from '../../src/recognition/structure/math-layout.js';
import type { LayoutLine } from '../../src/recognition/layout-model.js';

const line = (text: string, x0: number, y0: number, x1: number, y1: number, o: Partial<LayoutLine> = {}): LayoutLine => ({ text, x0, y0, x1, y1, size: 10, bold: false, italic: false, mono: false, block: 0, ...o });
const CMMI = 'ABCDEF+CMMI10';

/** A page of prose with two displays centred at x 305, and `lone` where the caller puts it. */
function page(lone: LayoutLine, above = line('And, underlines are nice too, as the next display shows:', 148, 381, 400, 391)): LayoutLine[] {
  return [
    line('Many accents have been defined again for the notation of this short example.', 148, 127, 463, 137),
    line('Γ (n + 1) = n!', 275, 150, 335, 160, { math: 'Γ ($n + 1) = n!$' }),
    line('Sometimes an overline is better than a bar, as in the following formula here.', 148, 337, 463, 347),
    line('x = y + 1', 285, 359, 325, 368, { math: '$x = y + 1$' }),
    above,
    lone,
    line('A few other nice things to have are given in the rest of this example.', 148, 425, 463, 434),
  ];
}

test('a lone underlined letter centred like the page\'s displays, after a prose line, is a display: \\underline{x}', () => {
  const lines = page(line('x', 302, 403, 307, 412, { math: '$x$', italic: true }));
  assert.deepEqual(displayRegions(lines).filter((r) => r.includes(5)), [[5]]);
  const e = glyphExtent(CMMI, '', 10, 411, 'x');
  const glyphs: MathGlyph[] = [{ font: CMMI, glyph: '', unicode: 'x', x0: 302, x1: 307.5, y0: e.y0, y1: e.y1, baseline: 411, size: 10 }];
  const done = applyDisplayMath(lines, glyphs, [{ x0: 302, x1: 307.5, y: 413.4 }]);
  assert.equal(done.lines.find((l) => l.display !== undefined && l.text.includes('x') && !l.text.includes('='))?.display, '\\underline{x}');
});

test('a lone letter is no display off the displays\' centre, at the prose\'s left edge, or without prose right above it', () => {
  const none = (lines: LayoutLine[]) => assert.deepEqual(displayRegions(lines).filter((r) => r.includes(5)), []);
  // Off centre: 60 points right of where the displays are.
  none(page(line('x', 362, 403, 367, 412, { math: '$x$' })));
  // At the column's left edge (a variable starting a line).
  none(page(line('x', 150, 403, 155, 412, { math: '$x$' })));
  // An axis label: tick numbers right above, no prose.
  none(page(line('x', 302, 403, 307, 412, { math: '$x$' }), line('0 1 2 3', 250, 381, 360, 391)));
});
