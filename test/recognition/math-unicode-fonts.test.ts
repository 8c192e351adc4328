// Unicode math fonts in the text layer (ADR 0367 session d): MuPDF gives every run of STIX Two Math a line
// box 2.6 em above and 1.6 em below its baseline (42 pt at 10 pt). A short run in it (`, 𝑦` between two
// subscripts) was tall and narrow enough to be left out as rotated text, a fraction's numerator and
// denominator overlapped and were read as one row, and a display of math italic letters (two UTF-16 code
// units each) looked like twice the glyphs the trace found, so it was not rebuilt.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStextPage, tightBoxes, type StextPage } from '../../src/recognition/pdf/stext-parser.js';
import { applyDisplayMath } from '../../src/recognition/pdf/display-math.js';
import { glyphExtent, type MathGlyph } from '../../src/recognition/structure/math-layout.js';
import type { LayoutLine } from '../../src/recognition/layout-model.js';

const STIX = { name: 'SLYWJL+STIXTwoMath', family: 'serif', weight: 'normal', style: 'normal' };
/** A run as MuPDF's JSON has it for STIX Two Math: origin at the left edge, box 2.6 em up and 1.6 em down. */
const run = (x: number, baseline: number, w: number, text: string, size = 10) => ({
  wmode: 0,
  bbox: { x, y: baseline - 2.6 * size, w, h: 4.2 * size },
  font: { ...STIX, size },
  x,
  y: baseline,
  text,
});

test('STIX Two Math: a short run between subscripts is kept, not taken for rotated text; boxes come to the glyphs', () => {
  // D f(x_0, y_0) = 1 on a display row, the subscripts at 7 pt.
  const page = {
    blocks: [
      { type: 'text', lines: [{ wmode: 0, bbox: { x: 72, y: 90, w: 400, h: 14 }, font: { name: 'STIXTwoText', size: 10 }, x: 72, y: 100, text: 'The directional derivative of a function is' }] },
      { type: 'text', lines: [run(200, 160, 15, '𝑓(𝑥'), run(215, 162, 4, '0', 7), run(220, 160, 9, ', 𝑦'), run(229, 162, 4, '0', 7), run(234, 160, 20, ') = 1')] },
    ],
  } as StextPage;
  const lines = parseStextPage(page).lines;
  const display = lines.find((l) => l.text.includes('𝑓'));
  assert.ok(display, JSON.stringify(lines));
  assert.equal(display.text.replace(/\s/g, ''), '𝑓(𝑥0,𝑦0)=1');
  assert.ok(display.y1 - display.y0 < 2 * 10, `box ${display.y0}..${display.y1}`);
  assert.ok(display.y0 > 110, 'the display row does not reach up into the prose line above it');
  // A run whose first glyph (a space) sits on a script's baseline: the box spans from that baseline's
  // ascent to the base's descent, not 1.05 em around the first glyph's baseline.
  const mixed = tightBoxes({ blocks: [{ type: 'text', lines: [run(300, 160, 20, 'a'), { ...run(320, 157, 20, ' +𝑦'), bbox: { x: 320, y: 131, w: 20, h: 45 } }] }] } as StextPage);
  const box = (mixed.blocks![0]!.lines![1]! as { bbox: { y: number; h: number } }).bbox;
  assert.ok(Math.abs(box.y - (157 - 10.5)) < 0.01 && Math.abs(box.y + box.h - (160 + 3.5)) < 0.01, JSON.stringify(box));
});

test('STIX Two Math: a fraction\'s numerator and denominator are rows of their own, not one row', () => {
  // ∂f over ∂x, 12 pt apart, each in a 42 pt box: the boxes overlap by 30 pt.
  const page = { blocks: [{ type: 'text', lines: [run(300, 575, 12, '𝜕𝑓'), run(300, 589, 12, '𝜕𝑥'), run(315, 582, 10, ' i')] }] } as StextPage;
  const texts = parseStextPage(page).lines.map((l) => l.text.trim());
  assert.ok(texts.includes('𝜕𝑓'), JSON.stringify(texts));
  assert.ok(!texts.some((t) => t.includes('𝜕𝑓') && t.includes('𝜕𝑥')), JSON.stringify(texts));
});

test('a display of math italic letters (two UTF-16 units each) is rebuilt: the text layer and the trace agree on six letters and =', () => {
  const line = (text: string, x0: number, y0: number, x1: number, y1: number, o: Partial<LayoutLine> = {}): LayoutLine => ({ text, x0, y0, x1, y1, size: 10, bold: false, italic: false, mono: false, block: 0, ...o });
  const lines = [
    line('The relation between the two products of the three variables is the following one.', 72, 150, 540, 162, { block: 0 }),
    line('𝑎𝑏𝑐 = 𝑥𝑦𝑧', 260, 175, 320, 187, { block: 1, math: '$𝑎𝑏𝑐=𝑥𝑦𝑧$' }),
    line('and it holds for every choice of the variables in the set we described above.', 72, 200, 540, 212, { block: 2 }),
  ];
  const glyph = (unicode: string, x: number): MathGlyph => {
    const e = glyphExtent(STIX.name, '', 10, 185, unicode);
    return { font: STIX.name, glyph: '', unicode, x0: x, x1: x + 5, y0: e.y0, y1: e.y1, baseline: 185, size: 10 };
  };
  const glyphs = [...'𝑎𝑏𝑐'].map((c, i) => glyph(c, 260 + 6 * i)).concat(glyph('=', 282), ...[...'𝑥𝑦𝑧'].map((c, i) => glyph(c, 292 + 6 * i)));
  const done = applyDisplayMath(lines, glyphs, []);
  assert.equal(done.rebuilt, 1);
  assert.equal(done.lines[1]!.display, 'a b c = x y z');
});

test('STIX Two Math in MuPDF\'s XML (the accent pages\' path): upright glyphs in 42 pt quads keep their origin, so the run is not taken for rotated text', async () => {
  const { parseStextXml } = await import('../../src/recognition/pdf/stext-xml.js');
  const ch = (x0: number, x1: number, c: string) => `<char quad="${x0} 234 ${x1} 234 ${x0} 276 ${x1} 276" x="${x0}" y="260" color="#000000" c="${c}"/>`;
  const xml = `<page><block bbox="230 234 240 276"><line bbox="230 234 240 276" wmode="0" dir="1 0"><font name="STIXTwoMath" size="9.9626">${ch(230.5, 232.9, ',')}${ch(232.9, 234.6, ' ')}${ch(234.6, 239.7, '&#x1d466;')}</font></line></block></page>`;
  const run = (parseStextXml(xml)[0]!.blocks[0] as { lines: { x?: number; y?: number; text: string }[] }).lines[0]!;
  assert.equal(run.y, 260);
  const lines = parseStextPage(parseStextXml(xml)[0] as StextPage).lines;
  assert.deepEqual(lines.map((l) => l.text.replace(/\s/g, '')), [',𝑦']);
});
