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

/**
 * A worksheet set in four narrow columns with line numbers (lineno) beside them, down to y = 292, as MuPDF
 * gives it (tune part of the real development set: schule's beispiel-ab.pdf). [text, x0, y0, x1, y1, size, block,
 * segments?]: lines of a justified narrow column have word gaps wide enough to be segments.
 */
const FOUR_COLUMNS: [string, number, number, number, number, number, number, [string, number, number][]?][] = [
  ["Informatik GK EF", 85, 66, 177, 79, 10, 0],
  ["Ein Arbeitsblatt", 269, 66, 346, 79, 10, 0],
  ["Arbeitsblatt", 477, 66, 534, 79, 10, 0],
  ["Text", 85, 98, 115, 115, 14, 1],
  ["Dies", 85, 127, 105, 140, 10, 2],
  ["hier", 127, 127, 145, 140, 10, 2],
  ["ist", 168, 127, 179, 140, 10, 2],
  ["ein", 85, 140, 98, 153, 10, 3],
  ["Blindtext", 134, 140, 178, 153, 10, 3],
  ["zum Testen von", 85, 154, 178, 167, 10, 4, [["zum",85,104],["Testen",118,149],["von",162,178]]],
  ["Textausgaben.", 85, 167, 153, 180, 10, 5],
  ["Wer diesen Text", 85, 181, 179, 194, 10, 5, [["Wer",85,104],["diesen",116,144],["Text",158,179]]],
  ["5", 76, 186, 79, 193, 5, 5],
  ["liest, ist natürlich", 85, 194, 179, 207, 10, 6, [["liest,",85,107],["ist",116,127],["natürlich",137,179]]],
  ["selbst schuld. Der", 85, 208, 179, 221, 10, 7, [["selbst",85,111],["schuld.",120,152],["Der",162,179]]],
  ["Text gibt ledig-", 85, 222, 178, 235, 10, 8, [["Text",85,106],["gibt",120,138],["ledig-",153,178]]],
  ["lich den Grauwert", 85, 235, 179, 248, 10, 9],
  ["der Schrift an. Ist", 85, 249, 179, 262, 10, 9],
  ["10", 73, 253, 80, 260, 5, 9],
  ["das wirklich so?", 85, 262, 178, 275, 10, 10, [["das",85,100],["wirklich",114,151],["so?",164,178]]],
  ["Ist es gleichgül-", 85, 276, 178, 289, 10, 11, [["Ist",85,97],["es",111,120],["gleichgül-",134,178]]],
  ["tig, ob ich schreibe:", 204, 127, 298, 140, 10, 12],
  ["»Dies ist ein Blind-", 204, 140, 298, 153, 10, 12],
  ["text« oder »Huar-", 204, 154, 298, 167, 10, 12],
  ["15", 192, 158, 199, 165, 5, 12],
  ["dest gefburn«? Kjift", 204, 167, 298, 180, 10, 13],
  ["– mitnichten! Ein", 204, 181, 298, 194, 10, 13, [["–",204,209],["mitnichten!",219,272],["Ein",282,298]]],
  ["Blindtext liefert mir", 204, 194, 298, 207, 10, 14],
  ["wichtige", 204, 208, 242, 221, 10, 14],
  ["Hinwei-", 263, 208, 298, 221, 10, 14],
  ["se. An ihm messe", 204, 222, 298, 235, 10, 15],
  ["20", 192, 226, 199, 233, 5, 15],
  ["ich die Lesbarkeit", 204, 235, 299, 248, 10, 16, [["ich",204,217],["die",227,240],["Lesbarkeit",250,299]]],
  ["einer Schrift, ih-", 204, 249, 298, 262, 10, 17, [["einer",204,226],["Schrift,",239,273],["ih-",286,298]]],
  ["re Anmutung, wie", 204, 262, 298, 275, 10, 18],
  ["harmonisch die Fi-", 204, 276, 298, 289, 10, 18],
  ["guren", 324, 127, 350, 140, 10, 19],
  ["zueinander", 367, 127, 418, 140, 10, 19],
  ["25", 312, 131, 319, 138, 5, 19],
  ["stehen und prü-", 324, 140, 418, 153, 10, 20, [["stehen",324,354],["und",367,385],["prü-",399,418]]],
  ["fe, wie breit oder", 324, 154, 418, 167, 10, 21],
  ["schmal sie läuft.", 324, 167, 418, 180, 10, 21, [["schmal",324,356],["sie",369,381],["läuft.",393,418]]],
  ["Ein Blindtext soll-", 324, 181, 418, 194, 10, 22],
  ["te möglichst viele", 324, 194, 418, 207, 10, 22, [["te",324,333],["möglichst",342,386],["viele",397,418]]],
  ["30", 312, 199, 319, 206, 5, 22],
  ["verschiedene Buch-", 324, 208, 418, 221, 10, 23],
  ["staben", 324, 222, 355, 235, 10, 23],
  ["enthalten", 374, 222, 418, 235, 10, 23],
  ["und in der Original-", 324, 235, 418, 248, 10, 24],
  ["sprache gesetzt sein.", 324, 249, 418, 262, 10, 24],
  ["Er muss keinen Sinn", 324, 262, 418, 275, 10, 24],
  ["35", 312, 267, 319, 274, 5, 24],
  ["ergeben, sollte aber", 324, 276, 418, 289, 10, 25],
  ["lesbar sein. Fremd-", 443, 127, 537, 140, 10, 26],
  ["sprachige Texte wie", 443, 140, 537, 153, 10, 26],
  ["»Lorem ipsum« die-", 443, 154, 537, 167, 10, 26],
  ["nen nicht dem ei-", 443, 167, 537, 180, 10, 26],
  ["40", 431, 172, 438, 179, 5, 26],
  ["gentlichen", 443, 181, 490, 194, 10, 27],
  ["Zweck,", 506, 181, 538, 194, 10, 27],
  ["da sie eine falsche", 443, 194, 537, 207, 10, 28],
  ["Anmutung vermit-", 443, 208, 538, 221, 10, 28, [["Anmutung",443,493],["vermit-",504,538]]],
  ["teln. e »Ein Zitat«.", 443, 222, 538, 235, 10, 29],
  ["Schülerinnen", 443, 235, 503, 248, 10, 30],
  ["und", 520, 235, 538, 248, 10, 30],
  ["45", 431, 240, 438, 247, 5, 30],
  ["Schüler oder Kolleg-", 443, 249, 537, 262, 10, 31],
  ["innen und Kollegen", 443, 262, 537, 275, 10, 31],
];

test('four narrow columns of running text whose rows line up are no table: their cells read on, broken at hyphens', () => {
  // The line numbers (5 pt) are moved out as margin notes before tables are looked for.
  const lines = FOUR_COLUMNS.filter((l) => l[5] > 6).map(([text, x0, y0, x1, y1, size, block, segs]) => L(text, x0, y0, x1, { y1, size, block, ...(segs ? { segments: segs.map(([t, a, b]) => ({ text: t, x0: a, x1: b })) } : {}) }));
  const tables = detectTables(lines, 10);
  assert.ok(!tables.some((t) => t.lines.some((l) => /Hinwei-|Grauwert|gleichgül-/.test(l.text))), JSON.stringify(tables.map((t) => t.rows)));
});

test('a table of two-word cells in lower case is still a table (its cells do not end in broken words)', () => {
  const rows = [['width', 'the width of the box'], ['height', 'the height of the box'], ['depth', 'the depth below the line'], ['fill', 'the colour inside'], ['frame', 'the rule around it']];
  const lines = [...prose(72, 540, 80, 3, 0), ...rows.flatMap(([k, v], i) => [L(k!, 72, 140 + i * 14.5, 72 + k!.length * 5.6, { block: 1 }), L(v!, 200, 140 + i * 14.5, 200 + v!.length * 5.6, { block: 1 })])];
  const tables = detectTables(lines, 11);
  assert.equal(tables.length, 1);
  assert.deepEqual(tables[0]!.rows.map((r) => r[0]), rows.map((r) => r[0]));
});

/**
 * A table of six columns spanning both columns of a two-column page (`table*`), its halves apart at the
 * page's gutter, with the columns' prose under it, down to y = 330 as MuPDF gives it (tune part of the real
 * development set: asmejour-template.pdf). [text, x0, y0, x1, y1, size, block, segments?]
 */
const SPANNING_TABLE: [string, number, number, number, number, number, number, [string, number, number][]?][] = [
  ["Table 4 A table spanning two columns", 228, 42, 382, 53, 8, 0, [["Table 4",228,255],["A table spanning two columns",265,382]]],
  ["𝑥", 128, 66, 131, 74, 8, 1],
  ["erf( 𝑥)", 180, 64, 200, 81, 8, 1],
  ["erfc(𝑥 )", 245, 64, 270, 81, 8, 1],
  ["𝑥", 344, 66, 347, 74, 8, 1],
  ["erf(𝑥)", 396, 64, 416, 81, 8, 1],
  ["erfc(𝑥 )", 462, 64, 486, 81, 8, 1],
  ["0.00", 122, 79, 137, 90, 8, 2],
  ["0.00000", 176, 79, 205, 90, 8, 2],
  ["1.00000", 244, 79, 273, 90, 8, 2],
  ["1.10", 338, 79, 353, 90, 8, 2],
  ["0.88021", 392, 79, 421, 90, 8, 2],
  ["0.11980", 460, 79, 489, 90, 8, 2],
  ["0.05", 122, 89, 137, 100, 8, 2],
  ["0.05637", 176, 89, 205, 100, 8, 2],
  ["0.94363", 244, 89, 273, 100, 8, 2],
  ["1.20", 338, 89, 353, 100, 8, 2],
  ["0.91031", 392, 89, 421, 100, 8, 2],
  ["0.08969", 460, 89, 489, 100, 8, 2],
  ["0.10", 122, 99, 137, 110, 8, 2],
  ["0.11246", 176, 99, 205, 110, 8, 2],
  ["0.88754", 244, 99, 273, 110, 8, 2],
  ["1.30", 338, 99, 353, 110, 8, 2],
  ["0.93401", 392, 99, 421, 110, 8, 2],
  ["0.06599", 460, 99, 489, 110, 8, 2],
  ["0.15", 122, 109, 137, 120, 8, 2],
  ["0.16800", 176, 109, 205, 120, 8, 2],
  ["0.83200", 244, 109, 273, 120, 8, 2],
  ["1.40", 338, 109, 353, 120, 8, 2],
  ["0.95229", 392, 109, 421, 120, 8, 2],
  ["0.04771", 460, 109, 489, 120, 8, 2],
  ["0.20", 122, 119, 137, 130, 8, 2],
  ["0.22270", 176, 119, 205, 130, 8, 2],
  ["0.77730", 244, 119, 273, 130, 8, 2],
  ["1.50", 338, 119, 353, 130, 8, 2],
  ["0.96611", 392, 119, 421, 130, 8, 2],
  ["0.03389", 460, 119, 489, 130, 8, 2],
  ["0.30", 122, 129, 137, 140, 8, 2],
  ["0.32863", 176, 129, 205, 140, 8, 2],
  ["0.67137", 244, 129, 273, 140, 8, 2],
  ["1.60", 338, 129, 353, 140, 8, 2],
  ["0.97635", 392, 129, 421, 140, 8, 2],
  ["0.02365", 460, 129, 489, 140, 8, 2],
  ["0.40", 122, 139, 137, 150, 8, 2],
  ["0.42839", 176, 139, 205, 150, 8, 2],
  ["0.57161", 244, 139, 273, 150, 8, 2],
  ["1.70", 338, 139, 353, 150, 8, 2],
  ["0.98379", 392, 139, 421, 150, 8, 2],
  ["0.01621", 460, 139, 489, 150, 8, 2],
  ["0.50", 122, 149, 137, 160, 8, 2],
  ["0.52050", 176, 149, 205, 160, 8, 2],
  ["0.47950", 244, 149, 273, 160, 8, 2],
  ["1.80", 338, 149, 353, 160, 8, 2],
  ["0.98909", 392, 149, 421, 160, 8, 2],
  ["0.01091", 460, 149, 489, 160, 8, 2],
  ["0.60", 122, 159, 137, 170, 8, 2],
  ["0.60386", 176, 159, 205, 170, 8, 2],
  ["0.39614", 244, 159, 273, 170, 8, 2],
  ["1.8214", 338, 159, 362, 170, 8, 2],
  ["0.99000", 392, 159, 421, 170, 8, 2],
  ["0.01000", 460, 159, 489, 170, 8, 2],
  ["0.70", 122, 169, 137, 180, 8, 2],
  ["0.67780", 176, 169, 205, 180, 8, 2],
  ["0.32220", 244, 169, 273, 180, 8, 2],
  ["1.90", 338, 169, 353, 180, 8, 2],
  ["0.99279", 392, 169, 421, 180, 8, 2],
  ["0.00721", 460, 169, 489, 180, 8, 2],
  ["0.80", 122, 179, 137, 190, 8, 2],
  ["0.74210", 176, 179, 205, 190, 8, 2],
  ["0.25790", 244, 179, 273, 190, 8, 2],
  ["2.00", 338, 179, 353, 190, 8, 2],
  ["0.99532", 392, 179, 421, 190, 8, 2],
  ["0.00468", 460, 179, 489, 190, 8, 2],
  ["0.90", 122, 189, 137, 200, 8, 2],
  ["0.79691", 176, 189, 205, 200, 8, 2],
  ["0.20309", 244, 189, 273, 200, 8, 2],
  ["2.50", 338, 189, 353, 200, 8, 2],
  ["0.99959", 392, 189, 421, 200, 8, 2],
  ["0.00041", 460, 189, 489, 200, 8, 2],
  ["1.00", 122, 199, 137, 210, 8, 2],
  ["0.84270", 176, 199, 205, 210, 8, 2],
  ["0.15730", 244, 199, 273, 210, 8, 2],
  ["3.00", 338, 199, 353, 210, 8, 2],
  ["0.99998", 392, 199, 421, 210, 8, 2],
  ["0.00002", 460, 199, 489, 210, 8, 2],
  ["When 𝜆𝑇 → ∞, 𝑓 = 1 and the last equation yields the well-known", 59, 233, 298, 250, 8, 3],
  ["result", 59, 243, 78, 254, 8, 3],
  ["𝜎𝑇4 = 2𝜋𝑘4", 124, 253, 170, 273, 8, 4],
  ["𝐵", 167, 262, 172, 269, 7, 4],
  ["𝑇 4", 172, 253, 181, 265, 8, 4],
  ["ℎ3𝑐2", 158, 269, 174, 280, 8, 5],
  ["𝑜", 171, 276, 175, 283, 7, 5],
  ["∫ ∞", 185, 247, 198, 286, 8, 6],
  ["0", 189, 272, 192, 281, 7, 7],
  ["𝑡 3", 209, 255, 215, 267, 8, 8],
  ["𝑒 𝑡 − 1 𝑑𝑡", 201, 265, 233, 286, 8, 9],
  ["⏞ˉˉˉˉˉˉˉˉˉˉˉ⏟⏟ˉˉˉˉˉˉˉˉˉˉˉ ⏞", 185, 272, 234, 319, 8, 9],
  ["≡ ζ (4) Γ(4)", 192, 288, 225, 301, 7, 9],
  ["(A3)", 282, 262, 298, 273, 8, 10],
  ["where the Gamma function Γ( 4) = 3! and the Riemann zeta func-", 59, 305, 298, 322, 8, 11],
  ["tion, ζ ( 4 ) , has the indicated integral representation [ 28 , §13.12].", 59, 315, 299, 332, 8, 11],
  ["A classical result due to Euler [ 29 ] gives ζ ( 4 ) = 𝜋4 /90 (see also", 59, 325, 299, 343, 8, 11],
  ["References", 312, 231, 357, 245, 9, 14],
  ["[1] Kern, U., 2021, “Extending LATEX’s color facilities: the xcolor package,” Version", 315, 247, 551, 257, 6, 15],
  ["2.13, Comprehensive TEX Archive Network, accessed Dec. 22, 2021, https:", 328, 255, 551, 265, 6, 15],
  ["//ctan.org/pkg/xcolor", 328, 263, 386, 272, 6, 15],
  ["[2] Edwards, D. K., 1969, “Radiative Transfer Characteristics of Materials,” ASME", 315, 271, 551, 280, 6, 16],
  ["J. Heat Transfer-Trans. ASME, 91(1), pp. 1–15.", 328, 279, 462, 289, 6, 16],
  ["[3] Toohey, K. S., Sottos, N. R., Lewis, J. A., Moore, J. S., and White, S. R., 2007,", 315, 287, 551, 296, 6, 17],
  ["“Self-Healing Materials With Microvascular Networks,” Nature Materials, 6 (8),", 328, 295, 551, 305, 6, 17],
  ["pp. 581–585.", 328, 303, 364, 312, 6, 17],
  ["[4] Gibson, T. A. and Tucker, M. A., 2008, The Big Book of Cellular Studies , John", 315, 311, 551, 320, 6, 18],
  ["Wiley and Sons, New York, NY.", 328, 319, 419, 328, 6, 18],
  ["[5] Stevens, T. T., 1999, “Stochastic Fields and Their Digital Simulation,” Stochas-", 315, 327, 551, 336, 6, 19],
];

test('a table spanning both columns, its halves apart at the gutter, stays one table of six columns', () => {
  const lines = SPANNING_TABLE.map(([text, x0, y0, x1, y1, size, block, segs]) => L(text, x0, y0, x1, { y1, size, block, ...(segs ? { segments: segs.map(([t, a, b]) => ({ text: t, x0: a, x1: b })) } : {}) }));
  const tables = detectTables(lines, 9);
  const wide = tables.find((t) => t.rows.some((r) => r.includes('0.94363')));
  assert.ok(wide, JSON.stringify(tables.map((t) => t.rows.slice(0, 2))));
  assert.deepEqual(wide.rows.find((r) => r.includes('0.94363')), ['0.05', '0.05637', '0.94363', '1.20', '0.91031', '0.08969']);
});

/**
 * A conversion table of three columns (quantity, factor, unit; the units up to 26 characters), the page as
 * MuPDF gives it (tune part of the real development set: erdc's sample.pdf, page 10).
 */
const UNIT_TABLE: [string, number, number, number, number, number, number, [string, number, number][]?][] = [
  ["ERDC/CRREL SR-05-78", 73, 36, 176, 48, 9, 0],
  ["viii", 526, 36, 538, 48, 9, 0],
  ["Multiply", 116, 80, 151, 92, 9, 1],
  ["By", 330, 80, 340, 92, 9, 1],
  ["To Obtain", 411, 80, 452, 92, 9, 1],
  ["pounds (force) per inch", 116, 98, 213, 110, 9, 2],
  ["175.1268", 330, 98, 372, 110, 9, 2],
  ["newtons per meter", 411, 98, 491, 110, 9, 2],
  ["pounds (force) per square foot", 116, 114, 244, 126, 9, 3],
  ["47.88026", 330, 114, 371, 126, 9, 3],
  ["pascals", 411, 114, 443, 126, 9, 3],
  ["pounds (force) per square inch", 116, 130, 245, 142, 9, 4],
  ["6.894757", 330, 130, 372, 142, 9, 4],
  ["kilopascals", 411, 130, 458, 142, 9, 4],
  ["pounds (mass)", 116, 146, 178, 158, 9, 5],
  ["0.45359237", 330, 146, 384, 158, 9, 5],
  ["kilograms", 411, 146, 453, 158, 9, 5],
  ["pounds (mass) per cubic foot", 116, 162, 239, 174, 9, 6],
  ["16.01846", 330, 162, 373, 174, 9, 6],
  ["kilograms per cubic meter", 411, 162, 522, 174, 9, 6],
  ["pounds (mass) per cubic inch", 116, 178, 240, 190, 9, 7],
  ["2.757990E+04", 330, 178, 395, 190, 9, 7],
  ["kilograms per cubic meter", 411, 178, 522, 190, 9, 7],
  ["pounds (mass) per square foot", 116, 194, 246, 206, 9, 8],
  ["4.882428", 330, 194, 372, 206, 9, 8],
  ["kilograms per square meter", 411, 194, 529, 206, 9, 8],
  ["pounds (mass) per square yard", 116, 210, 247, 222, 9, 9],
  ["0.542492", 330, 210, 373, 222, 9, 9],
  ["kilograms per square meter", 411, 210, 529, 222, 9, 9],
  ["quarts (U.S. liquid)", 116, 226, 194, 238, 9, 10],
  ["9.463529E-04", 330, 226, 392, 238, 9, 10],
  ["cubic meters", 411, 226, 466, 238, 9, 10],
  ["slugs", 116, 241, 138, 253, 9, 11],
  ["14.59390", 330, 241, 373, 253, 9, 11],
  ["kilograms", 411, 241, 453, 253, 9, 11],
  ["square feet", 116, 257, 164, 269, 9, 12],
  ["0.09290304", 330, 257, 384, 269, 9, 12],
  ["square meters", 411, 257, 472, 269, 9, 12],
  ["square inches", 116, 273, 175, 285, 9, 13],
  ["6.4516E-04", 330, 273, 380, 285, 9, 13],
  ["square meters", 411, 273, 472, 285, 9, 13],
  ["square miles", 116, 289, 171, 301, 9, 14],
  ["2.589998E+06", 330, 289, 396, 301, 9, 14],
  ["square meters", 411, 289, 472, 301, 9, 14],
  ["square yards", 116, 305, 170, 317, 9, 15],
  ["0.8361274", 330, 305, 377, 317, 9, 15],
  ["square meters", 411, 305, 472, 317, 9, 15],
  ["tons (force)", 116, 321, 163, 333, 9, 16],
  ["8,896.443", 330, 321, 375, 333, 9, 16],
  ["newtons", 411, 321, 446, 333, 9, 16],
  ["tons (force) per square foot", 116, 337, 231, 349, 9, 17],
  ["95.76052", 330, 337, 372, 349, 9, 17],
  ["kilopascals", 411, 337, 458, 349, 9, 17],
  ["tons (long) per cubic yard", 116, 353, 223, 365, 9, 18],
  ["1,328.939", 330, 353, 375, 365, 9, 18],
  ["kilograms per cubic meter", 411, 353, 522, 365, 9, 18],
  ["tons (nuclear equivalent of TNT)", 116, 369, 250, 381, 9, 19],
  ["4.184E+09", 330, 369, 378, 381, 9, 19],
  ["joules", 411, 369, 436, 381, 9, 19],
  ["tons (2,000 pounds, mass)", 116, 385, 230, 397, 9, 20],
  ["907.1847", 330, 385, 371, 397, 9, 20],
  ["kilograms", 411, 385, 453, 397, 9, 20],
  ["tons (2,000 pounds, mass) per square foot", 116, 401, 297, 413, 9, 21],
  ["9,764.856", 330, 401, 375, 413, 9, 21],
  ["kilograms per square meter", 411, 401, 529, 413, 9, 21],
  ["yards", 116, 417, 138, 429, 9, 22],
  ["0.9144", 330, 417, 361, 429, 9, 22],
  ["meters", 411, 417, 441, 429, 9, 22],
];

test('a table whose last column holds longer cells keeps it: the gap before it is no text column gutter', () => {
  const lines = UNIT_TABLE.map(([text, x0, y0, x1, y1, size, block, segs]) => L(text, x0, y0, x1, { y1, size, block, ...(segs ? { segments: segs.map(([t, a, b]) => ({ text: t, x0: a, x1: b })) } : {}) }));
  const rows = detectTables(lines, 9).flatMap((t) => t.rows);
  assert.ok(rows.some((r) => r.join('|') === 'square yards|0.8361274|square meters'), JSON.stringify(rows.slice(0, 4)));
});
