// A table in one column of a two-column page must not take the prose lines of the other column that share
// its rows (issue 17, held-out documents heldout-104-latex and heldout-112-office of the devset). The
// geometry below is the one MuPDF gave for those pages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LayoutLine } from '../../src/recognition/index.js';
import { detectTables } from '../../src/recognition/structure/tables.js';

const L = (text: string, x0: number, y0: number, x1: number, o: Partial<LayoutLine> = {}): LayoutLine => ({
  text, x0, y0, x1, y1: y0 + 14, size: 11, bold: false, italic: false, mono: false, block: 0, ...o,
});
const prose = (x0: number, x1: number, y0: number, n: number, block: number, last = x1): LayoutLine[] =>
  Array.from({ length: n }, (_, i) => L(`Line ${i} of a justified paragraph in the column`, x0, y0 + i * 14.5, i === n - 1 ? last : x1, { block }));
const noProseIn = (rows: string[][]): boolean => rows.every((r) => r.every((c) => c.length < 20));

test('LaTeX 11 pt two columns 10 pt apart (under one em): the right-column table keeps the left column out', () => {
  const cells = [['Grey Horn', '31%', '42 m', 'south'], ['Long Valley', '18%', '27 m', 'north'], ['White Saddle', '64%', '19 m', 'south'], ['Black Cirque', '22%', '35 m', 'east']];
  const lines = [
    L('Appointments at the District Hospital', 150, 155, 459, { size: 20 }),
    ...prose(72, 300, 277, 6, 2, 261),
    L('y = ax + b', 161, 394, 210, { block: 3 }),
    ...prose(72, 300, 429, 6, 4, 152),
    ...prose(310, 538, 269, 5, 8),
    L('Glacier', 316, 365, 351, { block: 9 }),
    L('Area lost Thinning Aspect', 393, 365, 537, { block: 9 }),
    // The label column is set flush left, the others flush right (LaTeX `lrrr`).
    ...cells.flatMap((r, i) => r.map((c, j) => (j === 0 ? L(c, 316, 380 + i * 14.5, 316 + c.length * 5.6, { block: 10 }) : L(c, [435, 492, 537][j - 1]! - c.length * 5.6, 380 + i * 14.5, [435, 492, 537][j - 1]!, { block: 10 })))),
    ...prose(310, 538, 450, 5, 11),
  ];
  const tables = detectTables(lines, 11);
  assert.equal(tables.length, 1);
  const rows = tables[0]!.rows;
  assert.ok(noProseIn(rows), JSON.stringify(rows));
  assert.ok(rows.every((r) => r.length === 4), JSON.stringify(rows));
  assert.ok(!tables[0]!.lines.some((l) => l.x1 <= 300), 'no line of the left column is a cell');
  assert.deepEqual(rows.slice(-4).map((r) => r[0]), cells.map((r) => r[0]));
  // The header row's three right-hand cells, joined into one line by MuPDF, are split at the columns.
  assert.deepEqual(rows[0], ['Glacier', 'Area lost', 'Thinning', 'Aspect']);
});

test('LibreOffice two columns under a title that reaches over the gutter: the right-column table keeps the left column out', () => {
  const lines = [
    L('Notes from the Town Choir', 62, 57, 304, { size: 19, block: 0 }),
    L('Summary', 62, 90, 125, { size: 14, block: 1 }),
    ...prose(62, 280, 106, 5, 1, 278),
    L('water.', 62, 169, 88, { block: 1 }),
    L('y = a x + b', 62, 187, 109, { block: 2 }),
    ...prose(62, 283, 206, 5, 3, 198),
    // MuPDF's lines: the first row's two left cells joined, the wrapped names in a block of their own.
    L('Grey Horn 31%', 312, 93, 387, { block: 10 }), L('42 m', 423, 93, 445, { block: 10 }), L('south', 479, 93, 502, { block: 10 }),
    ...[['Long', 'Valley', '18%', '27 m', 'north'], ['White', 'Saddle', '64%', '19 m', 'south'], ['Black', 'Cirque', '22%', '35 m', 'east']].flatMap(([a, b, ...r], i) => [
      L(a!, 312, 118 + i * 37, 340, { block: 11 + 2 * i, y1: 130 + i * 37 }),
      L(b!, 312, 130 + i * 37, 341, { block: 11 + 2 * i, y1: 142 + i * 37 }),
      ...r.map((c, j) => L(c, [367, 423, 479][j]!, 118 + i * 37, [387, 445, 502][j]!, { block: 12 + 2 * i, y1: 130 + i * 37 })),
    ]),
    ...prose(309, 532, 226, 5, 17, 469),
    ...prose(309, 532, 295, 5, 18, 436),
  ];
  const tables = detectTables(lines, 11);
  assert.equal(tables.length, 1);
  const rows = tables[0]!.rows;
  assert.ok(noProseIn(rows), JSON.stringify(rows));
  assert.ok(!tables[0]!.lines.some((l) => l.x1 <= 290), 'no line of the left column is a cell');
  assert.deepEqual(rows.map((r) => r[0]), ['Grey Horn', 'Long Valley', 'White Saddle', 'Black Cirque'], JSON.stringify(rows));
  assert.deepEqual(rows.map((r) => r[1]), ['31%', '18%', '64%', '22%']);
});

test('a table broken at the column break: the header row at the foot of the left column heads the body at the top of the right one', () => {
  const body = [
    L('Grey Horn 31%', 312, 93, 387, { block: 10 }), L('42 m', 423, 93, 445, { block: 10 }), L('south', 479, 93, 502, { block: 10 }),
    ...[['Long', 'Valley', '18%', '27 m', 'north'], ['White', 'Saddle', '64%', '19 m', 'south']].flatMap(([a, b, ...r], i) => [
      L(a!, 312, 118 + i * 37, 340, { block: 11 + 2 * i, y1: 130 + i * 37 }),
      L(b!, 312, 130 + i * 37, 341, { block: 11 + 2 * i, y1: 142 + i * 37 }),
      ...r.map((c, j) => L(c, [367, 423, 479][j]!, 118 + i * 37, [387, 445, 502][j]!, { block: 12 + 2 * i, y1: 130 + i * 37 })),
    ]),
  ];
  const header = [L('Glacier', 65, 526, 97, { block: 9 }), L('Area lost', 121, 526, 160, { block: 9 }), L('Thinning Aspect', 177, 526, 263, { block: 9 })];
  const left = [...prose(62, 283, 206, 8, 3), ...prose(62, 281, 400, 7, 8, 188)];
  const right = [...prose(309, 532, 226, 5, 17, 469), ...prose(309, 532, 295, 5, 18, 436)];
  const tables = detectTables([...left, ...header, ...body, ...right], 11);
  assert.equal(tables.length, 1);
  const rows = tables[0]!.rows;
  assert.equal(rows.length, 4, JSON.stringify(rows));
  assert.deepEqual(rows[0]!.slice(0, 2), ['Glacier', 'Area lost'], JSON.stringify(rows));
  assert.ok(rows[0]!.join(' ').includes('Thinning') && rows[0]!.join(' ').includes('Aspect'));
  assert.ok(header.every((h) => tables[0]!.lines.includes(h)), 'the header lines leave the text flow');
  // Without the header row at the foot of the left column (prose ends it), the table stays as it was.
  const alone = detectTables([...left, ...body, ...right], 11);
  assert.equal(alone.length, 1);
  assert.equal(alone[0]!.rows.length, 3);
});

test('one column of text with a table: no gutter is made up from a narrow gap without aligned prose on both sides', () => {
  // Ragged prose lines on the left (no common right edge) 8 pt from lines on the right: not a gutter.
  const left = Array.from({ length: 6 }, (_, i) => L(`Ragged line ${i} of a note that ends here`, 72, 100 + i * 14.5, 240 + i * 9));
  const right = Array.from({ length: 6 }, (_, i) => L(`Side remark ${i} set beside the note text`, 293 + i * 3, 100 + i * 14.5, 500));
  const cells = [['Site', 'Rate', 'Share'], ['North Point', '310', '18%'], ['Eel Creek', '265', '21%'], ['Mill Bay', '190', '19%']];
  const lines = [...left, ...right, ...cells.flatMap((r, i) => r.map((c, j) => L(c, [72, 300, 420][j]!, 200 + i * 14.5, [72, 300, 420][j]! + c.length * 5.5)))];
  const tables = detectTables(lines, 11);
  assert.equal(tables.length, 1);
  assert.deepEqual(tables[0]!.rows.map((r) => r[0]), cells.map((r) => r[0]));
});
