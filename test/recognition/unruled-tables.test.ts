// Tables without rules as LaTeX sets them (issue 28, ADRs 0341-0343), end to end on PDFs built here: cells
// 12 pt apart (`tabcolsep` on both sides) at 11 pt, which the text layer joins into one line per row; a
// spanning header over sub-columns; a cell wrapped over lines in a `p{}` column; a table continued on the
// next page under a repeated header. mutool required.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertDocument, type LayoutLine } from '../../src/recognition/index.js';
import { detectTables } from '../../src/recognition/structure/tables.js';
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
