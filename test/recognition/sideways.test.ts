// Rotated content (ADR 0362): a sideways table (`sidewaystable`, `lscape`: text turned 90 degrees, lines
// stacked across the page) is body content and is read in its own frame, rows and columns as for upright
// text; a single rotated line along the margin (the arXiv side stamp) stays out of the flow. Each case is a
// small PDF built in memory and converted by the real pipeline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertDocument } from '../../src/recognition/index.js';
import { parseStextPage, type StextPage } from '../../src/recognition/pdf/stext-parser.js';
import { buildPdf, wrap, type TextRun } from './helpers/pdf-builder.js';
import { needs, runner } from './helpers/tools.js';

const skip = await needs('mutool');

const PROSE =
  'The committee met on Tuesday to review the budget for the coming year and agreed that the library should extend its opening hours during the examination period. ' +
  'Members asked for a short report on the use of the reading rooms, which the secretary will prepare before the next meeting in the spring.';

const ROWS = [
  ['Engine', 'Pages', 'Seconds', 'Errors'],
  ['Alphaengine', '120', '4.5', '3'],
  ['Betaengine', '240', '9.1', '0'],
  ['Gammaengine', '360', '12.7', '7'],
  ['Deltaengine', '480', '15.2', '1'],
  ['Epsilonengine', '600', '18.9', '2'],
];
const CAPTION = 'Table 3. Measured throughput of the sideways engines on the long benchmark';
const NOTE = 'Note: seconds are wall-clock time on the shared machine.';

/**
 * A portrait page holding a table turned a quarter: `turn` 90 reads upward (LaTeX's sidewaystable), -90
 * downward. (fx, fy) are positions in the table's own frame (fx along its lines, fy down its lines); the
 * frame's top left corner sits at the page's bottom left (reading upward) or top right (reading downward).
 */
function sidewaysPage(turn: 90 | -90): TextRun[] {
  const at = (fx: number, fy: number, text: string, size = 10): TextRun =>
    turn === 90 ? { x: 110 + fy, y: 720 - fx, text, size, rotate: 90 } : { x: 500 - fy, y: 80 + fx, text, size, rotate: -90 };
  const runs: TextRun[] = [{ x: 72, y: 50, text: 'Sideways Tables in Practice', size: 9 }, { x: 300, y: 760, text: '7', size: 9 }];
  runs.push(at(0, 0, CAPTION));
  ROWS.forEach((row, i) => row.forEach((cell, c) => runs.push(at([0, 160, 260, 360][c]!, 28 + i * 16, cell))));
  runs.push(at(0, 28 + ROWS.length * 16 + 12, NOTE, 9));
  return runs;
}

const md = async (pages: TextRun[][]): Promise<string> => (await convertDocument(buildPdf(pages.map((runs) => ({ runs }))), { runner, pageMarkers: false })).markdown;

for (const turn of [90, -90] as const) {
  test(`a table turned ${turn === 90 ? 'to read upward' : 'to read downward'} is read in its own frame: caption, rows in order, cells in columns`, { skip }, async () => {
    const out = await md([sidewaysPage(turn)]);
    assert.ok(out.includes(CAPTION), out);
    assert.ok(out.includes(NOTE), out);
    const at = ROWS.map((r) => out.indexOf(r[0]!));
    assert.ok(at.every((i) => i >= 0), out);
    assert.deepEqual([...at].sort((a, b) => a - b), at, `rows out of order\n${out}`);
    assert.ok(out.indexOf(CAPTION) < at[0]!, out);
    // Each row's cells on one line, in column order (a GFM table row or a line of text).
    for (const row of ROWS.slice(1)) {
      const line = out.split('\n').find((l) => l.includes(row[0]!)) ?? '';
      let from = 0;
      for (const c of row) {
        const p = line.indexOf(c, from);
        assert.ok(p >= 0, `row ${row[0]}, cell ${c}: ${line}\n${out}`);
        from = p + c.length;
      }
    }
  });
}

test('a rotated side stamp along the margin stays out of the text; the page body is kept', { skip }, async () => {
  const runs: TextRun[] = [];
  let y = 90;
  for (const l of wrap(PROSE)) {
    runs.push({ x: 72, y, text: l, size: 11 });
    y += 14;
  }
  runs.push({ x: 36, y: 600, text: 'arXiv:2411.01234v2  [cs.CL]  29 Nov 2026', size: 20, rotate: 90 });
  const out = await md([runs]);
  assert.ok(out.includes('The committee met on Tuesday'), out);
  assert.ok(!out.includes('arXiv:2411'), out);
});

test('rotated body needs lines, extent and characters: one or two rotated lines, or short rotated column heads, are left out', () => {
  // MuPDF's JSON for text reading upward: a tall narrow box, the first glyph's origin at its bottom right.
  const up = (x: number, y: number, len: number, text: string) => ({ bbox: { x, y: y - len, w: 8, h: len }, x: x + 7, y, text, font: { name: 'Helvetica', size: 10 } });
  const upright = { bbox: { x: 72, y: 90, w: 400, h: 12 }, x: 72, y: 100, text: 'An upright line of body text across the page.', font: { name: 'Helvetica', size: 10 } };
  const page = (lines: object[]): StextPage => ({ blocks: [{ type: 'text', lines: [upright, ...lines] }] } as StextPage);
  const texts = (p: StextPage) => parseStextPage(p).lines.map((l) => l.text);
  // Two lines of a download stamp in the margin.
  assert.deepEqual(texts(page([up(20, 700, 300, 'Downloaded from https://example.org on 3 May 2021'), up(32, 700, 200, 'by guest, all rights reserved')])), [upright.text]);
  // Rotated column heads of an upright table: several lines but short along their reading direction.
  assert.deepEqual(texts(page([up(100, 200, 50, 'Precision'), up(140, 200, 40, 'Recall'), up(180, 200, 60, 'F-measure'), up(220, 200, 50, 'Accuracy')])), [upright.text]);
  // Pieces of big delimiters (CMEX, no Unicode) are tall and narrow with their origin at the top, like text
  // reading downward: not rotated text, and the math symbols beside them stay upright.
  const piece = (i: number) => ({ bbox: { x: 100 + 30 * i, y: 118 + 25 * i, w: 3, h: 49 }, x: 100 + 30 * i, y: 125 + 25 * i, text: '\uFFFD\uFFFD\uFFFD\uFFFD', font: { name: 'CMEX10', size: 10 } });
  const symbol = { bbox: { x: 238, y: 101, w: 5, h: 17 }, x: 238, y: 109, text: '\u2200', font: { name: 'CMSY10', size: 10 } };
  assert.deepEqual(texts(page([...Array.from({ length: 12 }, (_, i) => piece(i)), symbol])), [upright.text, '\u2200']);
  // A cover's side title: three rotated lines in display type beside the page's 10 pt text.
  const big = (x: number, text: string) => ({ ...up(x, 700, 220, text), bbox: { x, y: 480, w: 27, h: 220 }, x: x + 24, font: { name: 'Helvetica', size: 21 } });
  assert.deepEqual(texts(page([big(40, 'Engineer Research and'), big(70, 'Development Center'), big(100, 'ERDC/CRREL SR-05-78 Special Report')])), [upright.text]);
  // Three long rotated lines: body, read in their own frame (upward text: the leftmost line first).
  const body = texts(page([up(100, 700, 400, 'First rotated line of a landscape paragraph here'), up(114, 700, 400, 'second rotated line of the same paragraph text'), up(128, 700, 300, 'third and last rotated line of it')]));
  assert.deepEqual(body, [upright.text, 'First rotated line of a landscape paragraph here', 'second rotated line of the same paragraph text', 'third and last rotated line of it']);
});
