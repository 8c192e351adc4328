// Tables without rules as LaTeX sets them (issue 28, ADRs 0341-0343), end to end on PDFs built here: cells
// 12 pt apart (`tabcolsep` on both sides) at 11 pt, which the text layer joins into one line per row; a
// spanning header over sub-columns; a cell wrapped over lines in a `p{}` column; a table continued on the
// next page under a repeated header. mutool required.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertDocument, type LayoutLine } from '../../src/recognition/index.js';
import { detectTables } from '../../src/recognition/structure/tables.js';
import { displayRegions } from '../../src/recognition/pdf/display-math.js';
import { tables } from '../../bench/recognition/devset/checks.js';
import { buildPdf, type TextRun } from './helpers/pdf-builder.js';
import { needs, runner } from './helpers/tools.js';

const skip = await needs('mutool');

/** Helvetica advances (thousandths of an em, from its AFM). */
const W: Record<string, number> = {
  ' ': 278, ',': 278, '.': 278, '(': 333, ')': 333, '%': 889, '-': 333,
  ...Object.fromEntries([...'0123456789'].map((d) => [d, 556])),
  a: 556, b: 556, c: 500, d: 556, e: 556, f: 278, g: 556, h: 556, i: 222, j: 222, k: 500, l: 222, m: 833, n: 556, o: 556, p: 556, q: 556, r: 333, s: 500, t: 278, u: 556, v: 500, w: 722, x: 500, y: 500, z: 500,
  A: 667, B: 667, C: 722, D: 722, E: 667, F: 611, G: 778, H: 722, I: 278, J: 500, K: 667, L: 556, M: 833, N: 722, O: 778, P: 667, Q: 778, R: 722, S: 667, T: 611, U: 722, V: 667, W: 944, X: 667, Y: 667, Z: 611,
};
const SIZE = 11;
const width = (t: string): number => ([...t].reduce((a, c) => a + W[c]!, 0) * SIZE) / 1000;
const LEAD = 13.6;

/** Prose lines of the page (wide, so no table is made of them). */
const prose = (y: number, n: number): TextRun[] =>
  Array.from({ length: n }, (_, i) => ({ x: 72, y: y + i * LEAD, text: 'The annual figures below were prepared by the finance team and reviewed by the board.', size: SIZE }));

/**
 * A table as LaTeX's `tabular` sets it: each column as wide as its widest cell, columns 12 pt apart, the
 * first column flush left and the others flush right (`lrr...`). `spans` puts a row's cell centred over
 * several columns (`\multicolumn`): [row, first column, columns].
 */
function tabular(rows: readonly (readonly string[])[], x: number, y: number, spans: readonly [number, number, number][] = []): TextRun[] {
  const spanned = (r: number, c: number): boolean => spans.some(([sr, sc, n]) => sr === r && c >= sc && c < sc + n);
  const cols = rows[0]!.length;
  const widths = Array.from({ length: cols }, (_, c) => Math.max(...rows.map((r, i) => (spanned(i, c) ? 0 : width(r[c]!)))));
  const left: number[] = [];
  let at = x;
  for (let c = 0; c < cols; c++) {
    left.push(at);
    at += widths[c]! + 12;
  }
  const runs: TextRun[] = [];
  rows.forEach((r, i) =>
    r.forEach((t, c) => {
      if (!t) return;
      const span = spans.find(([sr, sc]) => sr === i && sc === c);
      if (span) {
        const a = left[c]!;
        const b = left[c + span[2] - 1]! + widths[c + span[2] - 1]!;
        runs.push({ x: (a + b - width(t)) / 2, y: y + i * LEAD, text: t, size: SIZE });
      } else runs.push({ x: c === 0 ? left[0]! : left[c]! + widths[c]! - width(t), y: y + i * LEAD, text: t, size: SIZE });
    }),
  );
  return runs;
}

// Figures of equal width in each column: every gap between cells is 12 pt, under the 1.5 ems (16.5 pt) at
// which the text layer keeps a row's parts apart, so each body row is one line "2019 1,204.5 761.2 37.8%".
const FINANCE = [
  ['Year', 'Sales', 'Costs', 'Margin'],
  ['2019', '1,204.5', '761.2', '36.8%'],
  ['2020', '1,102.3', '702.8', '36.2%'],
  ['2021', '1,310.0', '815.4', '37.8%'],
  ['2022', '1,422.9', '893.1', '37.2%'],
  ['2023', '1,517.6', '940.7', '38.0%'],
];

test('a borderless table with cells 12 pt apart at 11 pt (one text line per row) comes out as a table with its columns', { skip }, async () => {
  const pdf = buildPdf([{ runs: [...prose(72, 4), ...tabular(FINANCE, 72, 140), ...prose(240, 4)] }]);
  const md = (await convertDocument(pdf, { runner })).markdown;
  const ts = tables(md);
  assert.equal(ts.length, 1, md);
  assert.deepEqual(ts[0], FINANCE, md);
  assert.ok(!md.includes('2019 1,204.5'), 'the row is not left as a text line');
});

test('sub-columns under spanning headers stay apart, each spanning header over the first of its columns', { skip }, async () => {
  const rows = [
    ['Region', 'Revenue', '', 'Staff', ''],
    ['', '2023', '2022', '2023', '2022'],
    ['North', '310', '295', '41', '39'],
    ['South', '265', '270', '35', '36'],
    ['East', '190', '181', '22', '21'],
    ['West', '402', '388', '58', '55'],
  ];
  const pdf = buildPdf([{ runs: [...prose(72, 4), ...tabular(rows, 72, 140, [[0, 1, 2], [0, 3, 2]]), ...prose(250, 4)] }]);
  const md = (await convertDocument(pdf, { runner })).markdown;
  const ts = tables(md);
  assert.equal(ts.length, 1, md);
  assert.deepEqual(ts[0], rows, md);
});

test('a cell wrapped over three lines in a column without rules stays one cell of its row', { skip }, async () => {
  // `l l p{5cm}`: the third column's cells wrap; their further lines sit on the next baselines, as close as
  // the rows themselves, with the first two columns empty.
  const desc = [
    ['draft', 'off', ['Marks overfull lines with a', 'black box in the margin and', 'leaves the pic-', 'tures out.']],
    ['final', 'on', ['Sets the document as printed.']],
    ['twoside', 'off', ['Formats the pages for both', 'sides of the sheet.']],
    ['landscape', 'off', ['Turns the page by ninety', 'degrees.']],
  ] as const;
  const c2 = 72 + width('landscape') + 12;
  const c3 = c2 + width('Default') + 12;
  const runs: TextRun[] = [...prose(72, 4)];
  let y = 140;
  runs.push({ x: 72, y, text: 'Option', size: SIZE }, { x: c2, y, text: 'Default', size: SIZE }, { x: c3, y, text: 'Effect', size: SIZE });
  y += LEAD;
  for (const [opt, def, lines] of desc) {
    runs.push({ x: 72, y, text: opt, size: SIZE }, { x: c2, y, text: def, size: SIZE });
    lines.forEach((l, i) => runs.push({ x: c3, y: y + i * LEAD, text: l, size: SIZE }));
    y += lines.length * LEAD;
  }
  runs.push(...prose(y + 30, 4));
  const md = (await convertDocument(buildPdf([{ runs }]), { runner })).markdown;
  const ts = tables(md);
  assert.equal(ts.length, 1, md);
  // A word hyphenated at a line end of the cell is joined ("pic-" / "tures").
  assert.deepEqual(ts[0], [['Option', 'Default', 'Effect'], ...desc.map(([o, d, l]) => [o, d, l.join(' ').replace('pic- tures', 'pictures')])], md);
});

test('a table continued on the next page under a repeated header is one table', { skip }, async () => {
  const head = ['Station', 'Depth', 'Salinity', 'Oxygen'];
  const body = ['North Point', 'Eel Creek', 'Mill Bay', 'Sea Wall', 'Long Reach', 'Black Rock', 'Grey Sands', 'Cold Harbour'].map((s, i) => [s, `${12 + 3 * i}.5`, `${30 + i}.${i}`, `${7 + (i % 3)}.${(i * 7) % 10}`]);
  const page1 = buildPage([...prose(72, 30), ...tabular([head, ...body.slice(0, 4)], 72, 72 + 31 * LEAD)]);
  const page2 = buildPage([...tabular([head, ...body.slice(4)], 72, 72), ...prose(72 + 6 * LEAD, 10)]);
  const md = (await convertDocument(buildPdf([page1, page2]), { runner })).markdown;
  const ts = tables(md);
  assert.equal(ts.length, 1, md);
  assert.deepEqual(ts[0], [head, ...body], md);
});

const buildPage = (runs: TextRun[]) => ({ runs });

test('a key column table (`l p{8cm}`, no header, no rules) is a table whose wrapped descriptions stay whole', { skip }, async () => {
  const rows = [
    ['arrow.mf', ['Source code of the arrow font.']],
    ['chemarrow.sty', ['Macros for the typesetting of arrows in', 'chemical reaction schemes.']],
    ['Readme.txt', ['English readme file.']],
    ['testchem.tex', ['Test file for the macros and the font.']],
  ] as const;
  const c2 = 72 + width('chemarrow.sty') + 12;
  const runs: TextRun[] = [...prose(72, 4)];
  let y = 140;
  for (const [k, lines] of rows) {
    runs.push({ x: 72, y, text: k, size: SIZE });
    lines.forEach((l, i) => runs.push({ x: c2, y: y + i * LEAD, text: l, size: SIZE }));
    y += lines.length * LEAD;
  }
  runs.push(...prose(y + 30, 4));
  const md = (await convertDocument(buildPdf([{ runs }]), { runner })).markdown;
  const ts = tables(md);
  assert.equal(ts.length, 1, md);
  assert.deepEqual(ts[0], rows.map(([k, l]) => [k, l.join(' ')]), md);
  // A numbered list whose markers sit apart from their text is not a key column table.
  const list: TextRun[] = [...prose(72, 4)];
  ['1.', '2.', '3.', '4.'].forEach((m, i) => list.push({ x: 72, y: 140 + i * LEAD, text: m, size: SIZE }, { x: 100, y: 140 + i * LEAD, text: `The item number ${i + 1} of the list.`, size: SIZE }));
  list.push(...prose(220, 4));
  assert.equal(tables((await convertDocument(buildPdf([{ runs: list }]), { runner })).markdown).length, 0);
});

test('comment lines whose "%%" stands apart from their text are not a key column table (a key has a letter)', () => {
  const L = (text: string, x0: number, y0: number, x1: number): LayoutLine => ({ text, x0, y0, x1, y1: y0 + 12, size: 10, bold: false, italic: false, mono: false, block: 1 });
  const lines = [
    ...[0, 1, 2].map((i) => L('Running prose of the page above the listing, set as wide as the text block is.', 72, 60 + i * 12, 500)),
    ...['The TOPtesi bundle', 'Copyright (C) 2015-2019 the author', 'All rights reserved'].flatMap((t, i) => [L('%%', 72, 110 + i * 12, 82), L(t, 95, 110 + i * 12, 95 + t.length * 5)]),
    ...[0, 1, 2].map((i) => L('Running prose of the page below the listing, set as wide as the text block is.', 72, 160 + i * 12, 500)),
  ];
  assert.equal(detectTables(lines, 10).length, 0);
});

// Issue 28, ADR 0354: rows of a table whose line boxes reach into the next row, a table row near the top of
// a page with a bare number cell, numbered headings at the body size.

test('rows whose line boxes reach into the next row (a lowered letter of the TeX logo) stay rows of their own', { skip }, async () => {
  // A key column table at 10 pt, rows 13 pt apart; the widest key stands 12 pt from its description, so its
  // row is one text line cut into segments; the E of "TEX" set 7 pt lower makes the boxes of rows 2 and 3
  // reach into the row below.
  const S = 10;
  const L = 13;
  const w = (t: string): number => ([...t].reduce((a, c) => a + W[c]!, 0) * S) / 1000;
  const rows = [['1. manual.tex', 'Source file for this manual.'], ['2. template.tex', 'Template for making a TEX compuscript.'], ['3. ptptex.cls', 'Main class file of TEX.'], ['4. prep.clo', 'Class option file for preprint style output.'], ['5. wrapft.sty', 'Macro for wrapfigure and wraptable environments.']] as const;
  const c2 = 109 + w('2. template.tex') + 12;
  const runs: TextRun[] = [{ x: 91, y: 100, text: 'The files of this distribution are the following ones, each with its purpose below here.', size: S }];
  rows.forEach(([k, d], i) => {
    const y = 130 + i * L;
    runs.push({ x: 109, y, text: k, size: S });
    const at = d.indexOf('TEX');
    if (at < 0) return void runs.push({ x: c2, y, text: d, size: S });
    const a = d.slice(0, at + 1);
    runs.push({ x: c2, y, text: a, size: S }, { x: c2 + w(a) - 1.6, y: y + 7, text: 'E', size: S }, { x: c2 + w(a) + w('E') - 2.9, y, text: d.slice(at + 2), size: S });
  });
  runs.push({ x: 91, y: 220, text: 'The macros four and five are style files attached to the standard systems of today.', size: S });
  const md = (await convertDocument(buildPdf([{ runs }]), { runner })).markdown;
  const ts = tables(md);
  assert.equal(ts.length, 1, md);
  assert.deepEqual(ts[0], rows.map(([k, d]) => [k, d]), md);
});

test('a table row with a bare number cell near the top of a page is no page number row', { skip }, async () => {
  // A float at the top of the page: caption, header and two rows within the top 13.5% of the page, the last
  // with the cell "24" (a page number's shape).
  const S = 8;
  const runs: TextRun[] = [
    { x: 72, y: 50, text: 'Table 1   A simple table', size: S, font: 'bold' },
    ...[['Experiment', 'Speed', 'Heat'], ['Run 11', '12.5', '103.4'], ['Run 12', '24', '68.3']].flatMap((r, i) => r.map((t, c) => ({ x: [72, 130, 180][c]!, y: 70 + i * 10, text: t, size: S }))),
    ...Array.from({ length: 12 }, (_, i) => ({ x: 72, y: 130 + i * 10, text: 'Running text of the paper below the table, as wide as the column of text on this page.', size: S })),
  ];
  const md = (await convertDocument(buildPdf([{ runs }]), { runner })).markdown;
  const ts = tables(md);
  assert.equal(ts.length, 1, md);
  assert.deepEqual(ts[0], [['Experiment', 'Speed', 'Heat'], ['Run 11', '12.5', '103.4'], ['Run 12', '24', '68.3']], md);
});

test('bold numbered headings at the body size, one under the other, are no two-column table', () => {
  const L = (text: string, x0: number, y0: number, x1: number, bold = false, segments?: { text: string; x0: number; x1: number }[]): LayoutLine => ({ text, x0, y0, x1, y1: y0 + 12, size: 10, bold, italic: false, mono: false, block: y0, segments });
  const head = (n: string, t: string, y: number): LayoutLine => L(`${n} ${t}`, 72, y, 200, true, [{ text: n, x0: 72, x1: 90 }, { text: t, x0: 102, x1: 200 }]);
  const lines = [
    L('Running prose of the page above the headings, set as wide as the text block is here.', 72, 60, 500),
    head('3', 'Process units', 90),
    head('3.1', 'Reactors', 110),
    head('3.1.1', 'Tank reactor', 130),
    L('Running prose of the page below the headings, set as wide as the text block is here.', 72, 160, 500),
    L('Running prose of the page below the headings, set as wide as the text block is here.', 72, 172, 500),
  ];
  assert.equal(detectTables(lines, 10).length, 0);
});

test('a column of math cells in a table spread over the width (cells 7 ems apart) is no displayed equation', () => {
  // `tabular*` with `\extracolsep{\fill}` at 7 pt: "Element 3 | 990 A | 1168 | $1547\pm12$ | 780 A | ...", the
  // math cells of two rows one above the other.
  const L = (text: string, x0: number, y0: number, x1: number, math?: string): LayoutLine => ({ text, x0, y0, x1, y1: y0 + 7, size: 7, bold: false, italic: false, mono: false, block: 4, ...(math ? { math } : {}) });
  const lines = [
    L('Element 3', 54, 103, 91), L('990 A', 141, 103, 163), L('1168', 213, 103, 230), L('1547 ± 12', 278, 103, 314, '$1547 \\pm 12$'), L('780 A', 363, 103, 385), L('1166', 435, 103, 452),
    L('Element 4', 54, 113, 91), L('500 A', 141, 113, 163), L('961', 215, 113, 227), L('922 ± 10', 280, 113, 312, '$922 \\pm 10$'), L('900 A', 363, 113, 385), L('1268', 435, 113, 452),
  ];
  assert.deepEqual(displayRegions(lines), []);
  // The same two lines with prose above and below and nothing beside them are a display.
  const alone = [
    L('The two values below were measured on the first and the second day of the test run.', 54, 80, 400),
    { ...lines[3]!, y0: 103, y1: 110 }, { ...lines[9]!, y0: 113, y1: 120 },
    L('Both agree with the model within the errors given by the manufacturer of the probe.', 54, 135, 400),
  ];
  assert.deepEqual(displayRegions(alone), [[1, 2]]);
  // Beside it, nine ems away, the other column of a two-column page: one short line on each of its rows
  // (the end of a paragraph, a heading) is no table cell.
  const twoColumns = [...alone, L('of the references.', 380, 103, 440), L('SUMMARY', 380, 113, 420)];
  assert.deepEqual(displayRegions(twoColumns), [[1, 2]]);
});

test('bold labels of a figure above a caption do not make the key column table under the caption a header table', () => {
  const L = (text: string, x0: number, y0: number, x1: number, o: Partial<LayoutLine> = {}): LayoutLine => ({ text, x0, y0, x1, y1: y0 + 13, size: 10, bold: false, italic: false, mono: false, block: y0, ...o });
  const lines = [
    L('w', 360, 20, 364, { bold: true, mono: true }), L('e', 423, 20, 427, { bold: true, mono: true }),
    ...[0, 1, 2].map((i) => L('Running prose of the page under the figure, set as wide as the text block is on the page.', 72, 40 + 15 * i, 530)),
    L('Table 4: Key-value pairs for the shell and tube hx shape.', 170, 100, 441),
    L('key=value', 92, 125, 141, { mono: true }), L('Description', 212, 125, 265), L('Example', 459, 125, 499),
    L('unit int=two pass', 92, 145, 184, { mono: true }), L('Adds a horizontal line on the west shell side to', 212, 145, 428), L('indicate a two-pass heat exchanger.', 212, 158, 374),
    L('unit int=four pass', 92, 180, 190, { mono: true }), L('Adds two horizontal line on the west shell side', 212, 180, 428), L('and one on the east to indicate a four-pass heat', 212, 193, 428), L('exchanger.', 212, 206, 261),
    L('Running prose of the page below the table, set as wide as the text block is on the page.', 72, 250, 530),
  ];
  const ts = detectTables(lines, 10);
  assert.equal(ts.length, 1);
  // The Example column holds drawings only: its header is a column of its own, empty below (ADR 0384).
  assert.deepEqual(ts[0]!.rows.slice(-2), [
    ['unit int=two pass', 'Adds a horizontal line on the west shell side to indicate a two-pass heat exchanger.', ''],
    ['unit int=four pass', 'Adds two horizontal line on the west shell side and one on the east to indicate a four-pass heat exchanger.', ''],
  ]);
});

test('key column tables one under the other, each under its label line, are found although their columns differ', () => {
  const L = (text: string, x0: number, y0: number, x1: number, o: Partial<LayoutLine> = {}): LayoutLine => ({ text, x0, y0, x1, y1: y0 + 14, size: 11, bold: false, italic: false, mono: false, block: y0, ...o });
  const rows = (keys: readonly (readonly [string, string])[], x0: number, x1: number, y: number): LayoutLine[] =>
    keys.flatMap(([k, d], i) => [L(k, x0, y + 14.5 * i, x0 + 4.5 * k.length), L(d, x1, y + 14.5 * i, x1 + 4.5 * d.length)]);
  const faculties = [['rw', 'Faculty of Law and Economics'], ['kt', 'Faculty of Catholic Theology'], ['ph', 'Faculty of Physics'], ['chp', 'Faculty of Chemistry and Pharmacy']] as const;
  const colours = [['all', 'all institutions'], ['faculties', 'all faculties'], ['fsimphy', 'student council of mathematics']] as const;
  const lines = [
    L('Running prose of the page above the lists, set as wide as the text block of the page.', 56, 60, 537),
    L('Faculties:', 56, 90, 118, { bold: true }),
    ...rows(faculties, 65, 98, 108),
    L('Colour sets:', 56, 172, 130, { bold: true }),
    // A longer key moves this table's second column: the columns of the two do not line up.
    ...rows(colours, 56, 111, 190),
    L('Running prose of the page below the lists, set as wide as the text block of the page.', 56, 250, 537),
  ];
  const ts = detectTables(lines, 11);
  assert.deepEqual(ts.map((t) => t.rows), [faculties.map(([k, d]) => [k, d]), colours.map(([k, d]) => [k, d])]);
});

test('a page of tables set larger than the document body still has its table lines cut into cells', () => {
  // The document's body is 8 pt (notes and listings); this page's tables are at 9 pt, their header row one
  // text line cut into segments ("Symbole<gap>Valeur").
  const L = (text: string, x0: number, y0: number, x1: number, o: Partial<LayoutLine> = {}): LayoutLine => ({ text, x0, y0, x1, y1: y0 + 12, size: 9, bold: false, italic: false, mono: false, block: y0, ...o });
  const lines = [
    L('Running prose of the page above the table, set as wide as the text block is here.', 124, 470, 470),
    L('Nom', 157, 495, 181, { bold: true }), L('Symbole Valeur', 215, 495, 302, { bold: true, segments: [{ text: 'Symbole', x0: 215, x1: 257 }, { text: 'Valeur', x0: 270, x1: 302 }] }),
    ...[['point', 'pt', '35 mm'], ['millimètre', 'mm', 'millimètre'], ['ex', 'ex', 'hauteur d’un x dans la fonte courante'], ['pouce', 'in', '2,54 cm']].flatMap((r, i) => r.map((t, c) => L(t, [157, 215, 270][c]!, 507 + 12.5 * i, [157, 215, 270][c]! + 5 * t.length))),
    L('Running prose of the page below the table, set as wide as the text block is here.', 124, 570, 470),
  ];
  const ts = detectTables(lines, 8);
  assert.equal(ts.length, 1);
  assert.deepEqual(ts[0]!.rows[0], ['Nom', 'Symbole', 'Valeur']);
});

test('a heading between two tables ends the first, and a caption in Italian under a table is no row of it', () => {
  const L = (text: string, x0: number, y0: number, x1: number, o: Partial<LayoutLine> = {}): LayoutLine => ({ text, x0, y0, x1, y1: y0 + 8, size: 6, bold: false, italic: false, mono: false, block: y0, ...o });
  const grid = (rows: readonly (readonly string[])[], xs: readonly number[], y: number): LayoutLine[] => rows.flatMap((r, i) => r.map((t, c) => L(t, xs[c]!, y + 8 * i, xs[c]! + 3 * t.length)));
  const first = [['Name', 'Argument list'], ['sjunction', '( center )'], ['pjunction', '( center )'], ['gyjunction', '( center, arrowdir, lbl )']];
  const second = [['Name', 'Type', 'Description'], ['longblockrx', 'Length', 'Horizontal size of blocks.'], ['connectionlw', 'Length', 'Width of connection lines.'], ['textscale', 'Scalar', 'Scaling applied to all labels.']];
  const lines = [
    L('Running prose of the page above the tables, set as wide as the text block of the page is.', 144, 300, 470),
    ...grid(first, [187, 275], 320),
    // "G<quad>Setting variables" at 14 pt: one line, not cut (larger than the body), 15 pt under the table.
    L('G Setting variables', 144, 367, 290, { size: 14, bold: true, y1: 384, segments: [{ text: 'G', x0: 144, x1: 156 }, { text: 'Setting variables', x0: 173, x1: 290 }] }),
    ...grid(second, [187, 275, 313], 396),
    L('Tabella 2.1. Densità del mercurio', 198, 436, 357, { segments: [{ text: 'Tabella 2.1.', x0: 198, x1: 251 }, { text: 'Densità del mercurio', x0: 262, x1: 357 }] }),
    L('Running prose of the page below the tables, set as wide as the text block of the page is.', 144, 470, 470),
  ];
  assert.deepEqual(detectTables(lines, 6).map((t) => t.rows), [first, second]);
});

test('a three-row table whose middle row has a long cell lining up with the rows around it is a table', () => {
  const L = (text: string, x0: number, y0: number, x1: number): LayoutLine => ({ text, x0, y0, x1, y1: y0 + 14, size: 10, bold: false, italic: false, mono: false, block: 9 });
  const lines = [
    L('Running prose of the page above the grant, set as wide as the text block of the page is.', 36, 370, 575),
    L('DONALD, BRUCE R.', 41, 400, 143), L('ONGOING', 316, 400, 368),
    L('(PI: A. Anderson, Co-investigator: B. Donald)', 41, 414, 258), L('2003-2008', 316, 414, 368),
    L('NIH (NIGMS & NIAID)', 41, 427, 148), L('R01 GM-067542', 316, 427, 396),
    L('Design of inhibitors of the enzyme', 41, 441, 303),
    L('Running prose of the page below the grant, set as wide as the text block of the page is.', 36, 454, 575),
    L('Running prose of the page below the grant, set as wide as the text block of the page is.', 36, 468, 575),
  ];
  assert.deepEqual(detectTables(lines, 10).map((t) => t.rows), [[['DONALD, BRUCE R.', 'ONGOING'], ['(PI: A. Anderson, Co-investigator: B. Donald)', '2003-2008'], ['NIH (NIGMS & NIAID)', 'R01 GM-067542']]]);
});

// ADR 0363: a word processor's two-column table over the whole text width (LibreOffice, writer2latex's
// option tables): each cell a block of its own, the description wrapped over several lines reaching the
// right margin.
test('a key column table over the whole text width with descriptions wrapped in blocks of their own is a table', () => {
  let block = 0;
  const L = (text: string, x0: number, y0: number, x1: number, b = block++): LayoutLine => ({ text, x0, y0, x1, y1: y0 + 14, size: 11, bold: false, italic: false, mono: false, block: b });
  const lines: LayoutLine[] = [L('These options are used to control general aspects of the generated LaTeX document.', 56, 219, 531)];
  const rows: [string, string[]][] = [
    ['documentclass', ['This option defines the name of the LaTeX documentclass to use', '(default is article).']],
    ['backend', ['This option can have any of the values generic, dvips, pdftex', '(default), xetex and unspecified. This will create LaTeX files', 'suitable for any backend/dvi driver, dvips, pdfTeX or XeTeX', 'respectively. The last value does not assume any backend.']],
    ['inputencoding', ['The option inputencoding can have any of the values ascii', '(default), latin1, latin2, iso-8859-7, cp1250, cp1251 or utf8.']],
    ['multilingual', ['If this option is set to true (default), Writer2LaTeX will export all', 'language information in the document. If backend is xetex, the', 'package polyglossia.sty will be used, otherwise babel.sty.']],
  ];
  let y = 241;
  for (const [k, d] of rows) {
    lines.push(L(k, 59, y, 59 + k.length * 6));
    const b = block++;
    d.forEach((t, i) => lines.push(L(t, 162, y + i * 16, i === d.length - 1 ? 162 + t.length * 5 : 535, b)));
    y += d.length * 16 + 4;
  }
  lines.push(L('The next subsection explains the options for the generated files and their names here.', 56, y + 10, 537));
  const ts = detectTables(lines, 11);
  assert.equal(ts.length, 1);
  assert.deepEqual(ts[0]!.rows.map((r) => r[0]), rows.map(([k]) => k));
  assert.deepEqual(ts[0]!.rows.map((r) => r[1]), rows.map(([, d]) => d.join(' ')));
});

test('words of a paragraph set on both sides of a picture are not a wide key column table (ADR 0363)', () => {
  const L = (text: string, x0: number, y0: number, x1: number, block: number): LayoutLine => ({ text, x0, y0, x1, y1: y0 + 13, size: 12, bold: false, italic: false, mono: false, block });
  const lines: LayoutLine[] = [
    L('Comment: Writing checkpoints too frequently can impact', 127, 170, 482, 3),
    L('performance. However, performance would also decrease if I', 163, 185, 554, 4),
    ...[['had', 'implemented a given time interval for writing checkpoints since'], ['this', 'would require frequent communication between all process. You'], ['may', 'want to tune this such that a checkpoint is written every 1-2'], ['hours or', 'so.']].flatMap(([k, d], i) => [L(k!, 56, 199 + i * 14, 56 + k!.length * 7, 5 + i), L(d!, 163, 199 + i * 14, i === 3 ? 180 : 554, 5 + i)]),
    L('The next paragraph of the manual runs over the whole width of the text block here.', 56, 270, 554, 9),
  ];
  assert.deepEqual(detectTables(lines, 12), []);
});
