// Layouts that ADR 0368's row rules took for tables (its amendment): a title set large beside a picture's
// glyphs or labels, numbered examples with their numbers set apart from the sentences, and the columns of
// a listing under bold heads whose lines the text layer joined across the columns. Small layouts of lines
// as the text layer gives them (10 pt, rows 12 pt apart).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LayoutLine } from '../../src/recognition/index.js';
import { detectTables, numberedList } from '../../src/recognition/structure/tables.js';

const L = (text: string, x0: number, y0: number, x1: number, o: Partial<LayoutLine> = {}): LayoutLine => ({ text, x0, y0, x1, y1: y0 + 12, size: 10, bold: false, italic: false, mono: false, block: 1, ...o });
const above = (y: number): LayoutLine[] => [0, 1, 2].map((i) => L('Running prose of the page above the table, set as wide as the text block of the page.', 72, y + 12 * i, 540, { block: 0 }));
const below = (y: number): LayoutLine[] => [0, 1, 2].map((i) => L('Running prose of the page below the table, set as wide as the text block of the page.', 72, y + 12 * i, 540, { block: 2 }));

test('a title set large on the row of a table\'s cells is no cell of the table', () => {
  // Labels of a picture down both sides of the page and the title between them on one of their rows.
  const lines = [...above(40)];
  const labels = ['North', 'South', 'East', 'West', 'Centre'];
  labels.forEach((t, i) => lines.push(L(t, 80, 100 + 14 * i, 110), L(`${t} pole`, 470, 100 + 14 * i, 520)));
  lines.push(L('The Compass Rose', 220, 118, 380, { size: 24, y1: 142, bold: true }));
  lines.push(...below(200));
  const tables = detectTables(lines, 10);
  assert.ok(tables.every((t) => !t.lines.some((l) => l.text === 'The Compass Rose')), JSON.stringify(tables.map((t) => t.rows)));
  assert.ok(tables.every((t) => !t.rows.flat().some((c) => c.includes('Compass'))));
});

test('a symbol set large in a table\'s column stays its cell', () => {
  const lines = [...above(40)];
  ['North', 'South', 'East', 'West', 'Centre'].forEach((t, i) => lines.push(L(t, 80, 100 + 14 * i, 110), L(`${t} pole`, 300, 100 + 14 * i, 350), L(i === 2 ? '/' : 'x', 470, 100 + 14 * i, 476, i === 2 ? { size: 16 } : {})));
  lines.push(...below(200));
  assert.deepEqual(detectTables(lines, 10).map((t) => t.rows.map((r) => r[2])), [['x', 'x', '/', 'x', 'x']]);
});

test('a font specimen set larger than the description beside it stays its cell', () => {
  // A feature table whose body text (and the document's) is 6 pt: descriptions at 10 pt, specimens at 12.
  const lines = [0, 1, 2, 3, 4].map((i) => L(`note ${i} on the font`, 72, 20 + 8 * i, 150, { size: 6, y1: 26 + 8 * i }));
  const rows = [['Capital eng', 'Ŋŋ'], ['Hooked d', 'Ɗɗ'], ['Caron style', 'Ťť Ďď Ľľ'], ['Ram horn', 'Ɽɽ']];
  rows.forEach(([d, g], i) => lines.push(L(d!, 80, 100 + 16 * i, 150), L(g!, 300, 99 + 16 * i, 340, { size: 12, y1: 113 + 16 * i })));
  lines.push(...[0, 1, 2, 3, 4].map((i) => L(`note ${i} under the table`, 72, 200 + 8 * i, 150, { size: 6, y1: 206 + 8 * i })));
  assert.deepEqual(detectTables(lines, 6).map((t) => t.rows), [rows]);
});

test('the same rows without the title are still a table', () => {
  const lines = [...above(40)];
  ['North', 'South', 'East', 'West', 'Centre'].forEach((t, i) => lines.push(L(t, 80, 100 + 14 * i, 110), L(`${t} pole`, 470, 100 + 14 * i, 520)));
  lines.push(...below(200));
  assert.equal(detectTables(lines, 10).length, 1);
});

test('numbered examples with their numbers set apart are a list, not a table', () => {
  // gb4e: "(1)" at the margin, the sentence an indent to its right; sub-examples "a." in a second column.
  const lines = [
    ...above(40),
    L('(1)', 100, 100, 113), L('Here is one example sentence.', 150, 100, 290),
    L('(2)', 100, 118, 113), L('* Here another is.', 150, 118, 240),
    L('(3)', 100, 136, 113), L('Here are some with judgements.', 150, 136, 300),
    L('(4)', 100, 154, 113), L('A grammatical sentence am I.', 150, 154, 290),
    ...below(200),
  ];
  assert.deepEqual(detectTables(lines, 10), []);
  assert.equal(numberedList([['(1)', 'a.', 'Here is one.'], ['', 'b.', 'Here another.'], ['(2)', '', 'And a third.']]), true);
  assert.equal(numberedList([['(4)', 'a.', 'Here is one.'], ['', 'b.', 'Here another.']]), false, 'one number only');
});

test('a table with a number column and data columns is still a table', () => {
  assert.equal(numberedList([['1', 'Alice', '12'], ['2', 'Bob', '7'], ['3', 'Carol', '9']]), false);
  assert.equal(numberedList([['(a)', '0.5', '0.7'], ['(b)', '0.4', '0.9'], ['(c)', '0.2', '0.1']]), false);
  assert.equal(numberedList([['[twocolumn]', 'Two-column formatting.'], ['[onecolumn]', 'Single-column formatting.']]), false, 'an option table');
  const lines = [
    ...above(40),
    L('No.', 100, 100, 115), L('Name', 150, 100, 180), L('Runs', 300, 100, 325),
    L('1.', 100, 114, 106), L('Alice', 150, 114, 175), L('12', 300, 114, 311),
    L('2.', 100, 128, 106), L('Bob', 150, 128, 168), L('7', 300, 128, 305),
    L('3.', 100, 142, 106), L('Carol', 150, 142, 176), L('9', 300, 142, 305),
    ...below(200),
  ];
  assert.deepEqual(detectTables(lines, 10).map((t) => t.rows), [[['No.', 'Name', 'Runs'], ['1.', 'Alice', '12'], ['2.', 'Bob', '7'], ['3.', 'Carol', '9']]]);
});

test('under bold heads, a line reaching into the next head\'s column ends the table; lines are not joined across it', () => {
  // Three columns of macro names under bold heads; the text layer joined two lines of the first and
  // second column into one, and the second column goes on alone below the first.
  const M = (t: string, x0: number, y0: number): LayoutLine => L(t, x0, y0, x0 + 5 * t.length, { mono: true });
  const lines = [
    ...above(40),
    L('Front matter', 100, 100, 160, { bold: true }), L('Main matter', 220, 100, 275, { bold: true }), L('Back matter', 360, 100, 415, { bold: true }),
    M('\\title{}', 100, 114), M('\\section{}', 220, 114), M('\\appendix', 360, 114),
    M('\\author{}', 100, 128), M('\\subsection{}', 220, 128), M('\\bibliography{}', 360, 128),
    M('\\address{}', 100, 142), M('\\paragraph{}', 220, 142),
    M('\\received{}{}{} \\begin{lstlisting}', 100, 156),
    M('\\abstract{}', 100, 170), M('\\begin{itemize}', 220, 170),
    ...below(220),
  ];
  const tables = detectTables(lines, 10);
  assert.ok(tables.every((t) => t.rows.flat().every((c) => !c.includes('\\received') && !c.includes('\\address{} \\')) && !t.rows.flat().some((c) => /\\abstract.*\\received|\\received.*\\abstract/.test(c))), JSON.stringify(tables.map((t) => t.rows)));
  assert.deepEqual(tables[0]?.rows.slice(0, 2), [['Front matter', 'Main matter', 'Back matter'], ['\\title{}', '\\section{}', '\\appendix']]);
});
