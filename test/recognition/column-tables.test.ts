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

/**
 * The first page of an ACM paper as MuPDF gives it down to y = 420 (tune part of the real development set:
 * anonymous-acm.pdf): five authors in two rows over a two-column page, whose colleges reach over the gutter.
 * [text, x0, y0, x1, y1, size, block, bold?]
 */
const ACM_FIRST_PAGE: [string, number, number, number, number, number, number, boolean?][] = [
  ["The anonymous-acm Package for the ACM LATEX Master Article", 60, 78, 550, 103, 17, 0, true],
  ["Template", 269, 97, 341, 119, 17, 0, true],
  ["Version 1.0: May 09, 2020", 244, 124, 367, 137, 11, 1],
  ["Brett A. Becker", 105, 147, 179, 163, 11, 2],
  ["University College Dublin", 89, 161, 195, 174, 9, 2],
  ["Dublin, Ireland", 111, 173, 172, 186, 9, 2],
  ["brett.becker@ucd.ie", 101, 185, 182, 198, 9, 2],
  ["Jiahao Xu", 282, 147, 329, 163, 11, 3],
  ["Beijing-Dublin International College", 232, 161, 380, 174, 9, 3],
  ["Beijing, China", 277, 173, 334, 186, 9, 3],
  ["Zixiang Xu", 443, 147, 497, 163, 11, 4],
  ["Beijing-Dublin International College", 396, 161, 544, 174, 9, 4],
  ["Beijing, China", 441, 173, 498, 186, 9, 4],
  ["Xinchi Feng", 194, 204, 252, 220, 11, 5],
  ["Beijing-Dublin International College", 149, 219, 297, 232, 9, 5],
  ["Beijing, China", 194, 231, 251, 244, 9, 5],
  ["Zhaorui Wang", 352, 204, 422, 220, 11, 6],
  ["Beijing-Dublin International College", 313, 219, 461, 232, 9, 6],
  ["Beijing, China", 359, 231, 416, 244, 9, 6],
  ["ABSTRACT", 53, 251, 111, 265, 10, 7, true],
  ["Academics often need to submit anonymous versions of their pa-", 53, 265, 295, 277, 9, 8],
  ["pers for peer-review. This often requires anonymization which at", 53, 276, 293, 288, 8, 8],
  ["some future date needs to be reversed. However de-anonymizing an", 53, 287, 293, 299, 8, 8],
  ["anonymized paper can be laborious and error-prone. This LATEX pack-", 53, 298, 296, 312, 8, 8],
  ["age allows anonymization options to be specified at the time of", 53, 309, 293, 321, 9, 8],
  ["writing for authors using acmart.cls, the official Association of Com-", 53, 320, 295, 332, 8, 8],
  ["puting Machinery (ACM) master article template. Anonymization", 53, 331, 293, 343, 8, 8],
  ["or deanonymization is carried out by simply changing one option", 53, 342, 293, 354, 8, 8],
  ["and recompiling.", 53, 353, 114, 365, 8, 8],
  ["ACM Reference Format:", 53, 375, 139, 385, 7, 9, true],
  ["Brett A. Becker, Jiahao Xu, Zixiang Xu, Xinchi Feng, and Zhaorui Wang.", 53, 384, 294, 395, 8, 9],
  ["2020. The anonymous-acm Package for the ACM LATEX Master Article Tem-", 53, 394, 294, 407, 7, 9],
  ["plate: Version 1.0: May 09, 2020. In Proceedings of ACM Conference (Con-", 53, 404, 294, 415, 8, 9],
  ["ference’17). ACM, New York, NY, USA, 3 pages. https://doi.org/10.1145/", 53, 414, 294, 425, 8, 9],
  ["1.1 Demonstration", 317, 251, 416, 265, 10, 13, true],
  ["A live demonstration of this package is available on Overleaf at:", 317, 265, 550, 277, 8, 14],
  ["• https://www.overleaf.com/read/bmqdgdxkfwys", 333, 278, 515, 296, 8, 15],
  ["(Overleaf account required).", 317, 292, 419, 304, 8, 15],
  ["1.2 Installation", 317, 312, 399, 326, 10, 16, true],
  ["The anonymous-acm package can be found at:", 317, 327, 487, 339, 8, 17],
  ["• https://ctan.org/pkg/anonymous-acm", 333, 340, 479, 357, 8, 18],
  ["Simply include anonymous-acm.sty in the preamble of your .tex", 317, 353, 557, 365, 9, 18],
  ["file.", 317, 364, 330, 376, 8, 18],
  ["1.3 Requirements", 317, 384, 411, 398, 10, 19, true],
  ["The anonymous-acm package is designed to work with acmart,", 317, 399, 559, 412, 9, 20],
  ["the official Association of Computing Machinery (ACM) master", 317, 410, 557, 422, 9, 20],
];

test('two columns under an author block whose lines cross the gutter: the columns are no table (ACM first page)', () => {
  const lines = ACM_FIRST_PAGE.map(([text, x0, y0, x1, y1, size, block, bold]) => L(text, x0, y0, x1, { y1, size, block, bold: !!bold }));
  // The author block may stay a table of its own (its names and colleges line up); the columns under it
  // (from "ABSTRACT" and "1.1 Demonstration" down) were its further rows while the gutter went unseen.
  const tables = detectTables(lines, 9);
  assert.ok(!tables.some((t) => t.lines.some((l) => l.y0 >= 251)), JSON.stringify(tables.map((t) => t.rows)));
});
