// Word-processor tables (ADR 0369), on the line geometry MuPDF gives for LibreOffice PDFs of the real set's
// `wordproc` kind: key tables whose keys are bold and centred in their column under a bold header; a
// centred two-column table with a header cell wrapped over two lines and descriptions wrapped into blocks of
// their own; a three-column table whose first cell wraps into a block of its own, 13 pt from the next
// column. And what is no table: a grid of single letters (a type specimen's character set).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LayoutLine } from '../../src/recognition/index.js';
import { detectTables, isLetterGrid } from '../../src/recognition/structure/tables.js';

const L = (text: string, x0: number, y0: number, x1: number, block: number, o: Partial<LayoutLine> = {}): LayoutLine => ({
  text, x0, y0, x1, y1: y0 + 12, size: 11, bold: false, italic: false, mono: false, block, ...o,
});
const B = { bold: true };
const prose = (y0: number, block: number): LayoutLine[] => [
  L('Some keystrokes and menu items are different on a Mac from those used in Windows and Linux.', 56, y0, 529, block),
  L('The table below gives some common substitutions for the instructions in this chapter. For a more', 56, y0 + 12, 528, block),
  L('detailed list, see the application Help.', 56, y0 + 25, 237, block),
];

test('a key table with bold keys centred under a bold header, one key wrapped over two lines, is one table', () => {
  // Centred keys ("F1" and "Ctrl + M" share the centre of "Key", not its left edge), descriptions at one
  // left edge, some wider than 0.3 of the text width (so no row is a cell row of the grid detector).
  const keys: [string, number, number, string, number][] = [
    ['F1', 142, 157, 'Displays the help file.', 328],
    ['F8', 142, 157, 'Screenshot of main window.', 365],
    ['F10', 138, 160, 'Toggle Real-time / Manual mode.', 392],
    ['F11 (F6 on', 116, 182, 'Previous step.', 287],
    ['Ctrl + M', 124, 174, 'Maximization / Minimization of the map.', 430],
    ['Ctrl + N', 125, 173, 'Night vision.', 278],
    ['A…Z', 135, 162, 'Allows to move in the list of satellites when this', 475],
  ];
  let block = 10;
  const lines: LayoutLine[] = [...prose(20, 1), L('Key', 138, 80, 161, 2, B), L('Shortcuts', 210, 80, 270, 2, B)];
  let y = 94;
  for (const [k, x0, x1, d, dx1] of keys) {
    const b = block++;
    lines.push(L(k, x0, y, x1, b, B), L(d, 210, y, dx1, k.startsWith('F11') ? block++ : b));
    if (k.startsWith('F11')) lines.push(L('MacOS X)', 119, y + 13, 178, b, B));
    if (k === 'A…Z') lines.push(L('one is active.', 210, y + 13, 283, b));
    y += k.startsWith('F11') ? 27 : 14;
  }
  lines.push(...prose(y + 30, 99));
  const ts = detectTables(lines, 11);
  assert.equal(ts.length, 1);
  assert.deepEqual(ts[0]!.rows, [
    ['Key', 'Shortcuts'],
    ...keys.map(([k, , , d]) => [k.startsWith('F11') ? 'F11 (F6 on MacOS X)' : k, k === 'A…Z' ? `${d} one is active.` : d]),
  ]);
});

test('a bold line after a key table that has no cell beside it ends the table (a heading under the table)', () => {
  const lines: LayoutLine[] = [...prose(20, 1), L('Key', 138, 80, 161, 2, B), L('Shortcuts', 210, 80, 270, 2, B)];
  ['F1', 'F8', 'F9'].forEach((k, i) => lines.push(L(k, 142, 94 + i * 14, 157, 3 + i, B), L(`Toggles the view number ${i} of the map window.`, 210, 94 + i * 14, 460, 3 + i)));
  lines.push(L('Mode of use', 142, 148, 215, 9, B), L('By selecting the manual mode in the choice list, the date and time can be set by hand here.', 56, 162, 530, 10));
  const ts = detectTables(lines, 11);
  assert.equal(ts.length, 1);
  assert.deepEqual(ts[0]!.rows.map((r) => r[0]), ['Key', 'F1', 'F8', 'F9']);
  assert.ok(!ts[0]!.lines.some((l) => l.text === 'Mode of use'));
});

test('a centred two-column table: the header cell wrapped over two lines, descriptions wrapped into blocks of their own', () => {
  const lines: LayoutLine[] = [...prose(200, 1), L('Designat', 161, 304, 211, 19, B), L('ion', 177, 316, 194, 20, B), L('Signification', 293, 304, 363, 21, B)];
  const rows: [string, number, number, string, number, number, string?][] = [
    ['AFETR', 168, 203, 'Air Force Eastern Test Range, Florida,', 234, 422, 'USA'],
    ['AFWTR', 166, 206, 'Air Force Western Test Range, California,', 225, 431, 'USA'],
    ['CAS', 175, 197, 'Canaries Airspace', 283, 372],
    ['DLS', 175, 196, 'Dombarovskiy Launch Site, Russia', 242, 414],
    ['ERAS', 171, 200, 'Eastern Range Airspace', 269, 388],
  ];
  let y = 329;
  let block = 22;
  for (const [k, kx0, kx1, d, dx0, dx1, more] of rows) {
    const b = block++;
    lines.push(L(k, kx0, y, kx1, b, B), L(d, dx0, y, dx1, b));
    if (more) lines.push(L(more, 318, y + 11, 338, block++));
    y += more ? 25 : 13;
  }
  lines.push(...prose(y + 30, 99));
  const ts = detectTables(lines, 10);
  assert.equal(ts.length, 1);
  assert.deepEqual(ts[0]!.rows, [['Designat ion', 'Signification'], ...rows.map(([k, , , d, , , more]) => [k, more ? `${d} ${more}` : d])]);
});

test('a three-column table whose first cell wraps into a block of its own, 13 pt before the next column, keeps its header and that row', () => {
  const lines: LayoutLine[] = [
    ...prose(79, 1),
    L('Windows or Linux', 62, 134, 156, 2, B), L('Mac equivalent', 183, 134, 261, 2, B), L('Effect', 333, 134, 363, 2, B),
    L('Tools > Options menu', 62, 152, 170, 3, { size: 10 }), L('selection', 62, 164, 103, 4, { size: 10 }),
    L('LibreOffice > Preferences', 183, 152, 309, 5, { size: 10, bold: true }), L('Access setup options', 333, 152, 431, 5, { size: 10 }),
    L('Right-click', 62, 181, 110, 6, { size: 10 }), L('Control+click', 183, 181, 243, 6, { size: 10 }), L('Opens a context menu', 333, 181, 438, 6, { size: 10 }),
    L('Ctrl (Control)', 62, 198, 121, 7, { size: 10 }), L('⌘ (Command)', 183, 198, 252, 7, { size: 10 }), L('Used with other keys', 333, 198, 429, 7, { size: 10 }),
    L('F5', 62, 215, 74, 8, { size: 10 }), L('Shift+⌘+F5', 183, 215, 239, 8, { size: 10 }), L('Opens the Navigator', 333, 215, 428, 8, { size: 10 }),
    L('This book was written by volunteers from the LibreOffice community, as listed on the Copyright', 56, 294, 518, 11),
  ];
  const ts = detectTables(lines, 11);
  assert.equal(ts.length, 1);
  assert.deepEqual(ts[0]!.rows, [
    ['Windows or Linux', 'Mac equivalent', 'Effect'],
    ['Tools > Options menu selection', 'LibreOffice > Preferences', 'Access setup options'],
    ['Right-click', 'Control+click', 'Opens a context menu'],
    ['Ctrl (Control)', '⌘ (Command)', 'Used with other keys'],
    ['F5', 'Shift+⌘+F5', 'Opens the Navigator'],
  ]);
});

test('a label row under a LaTeX table row (one block for the whole table) is not joined as a wrapped cell', () => {
  // The whole table is block 5 (LaTeX), so "Faculties:" is a row of its own, not the next line of "Law".
  const lines: LayoutLine[] = [
    ...prose(20, 1),
    L('Name', 60, 100, 90, 5, B), L('Staff', 200, 100, 230, 5, B), L('Budget', 300, 100, 340, 5, B),
    L('Law', 60, 114, 80, 5), L('120', 200, 114, 218, 5), L('4.5', 300, 114, 316, 5),
    L('Faculties:', 60, 126, 110, 5),
    L('Arts', 60, 140, 82, 5), L('80', 200, 140, 212, 5), L('2.1', 300, 140, 316, 5),
    L('Science', 60, 154, 100, 5), L('95', 200, 154, 212, 5), L('3.9', 300, 154, 316, 5),
  ];
  const ts = detectTables(lines, 11);
  assert.equal(ts.length, 1);
  assert.ok(!ts[0]!.rows.some((r) => r[0] === 'Law Faculties:'));
});

test('a grid of single letters (a type specimen) is not a table: its lines stay text', () => {
  const rows = ['A B C D E F G H', 'I J K L M N O P', 'Q R S T U V W X', 'a b c d e f g h', 'i j k l m n o p'];
  const lines: LayoutLine[] = [...prose(20, 1)];
  rows.forEach((r, i) => r.split(' ').forEach((c, k) => lines.push(L(c, 72 + k * 40, 100 + i * 20, 80 + k * 40, 5 + i, { size: 16 }))));
  assert.deepEqual(detectTables(lines, 11), []);
  // The same glyphs with accents and Myanmar letters with their signs: still one glyph a cell.
  assert.ok(isLetterGrid([['က', 'ခ', 'ဂ', 'ဃ'], ['ကြ', 'ခွ', 'ဂျ', 'ဃု'], ['é', 'ñ', 'ü', 'ø']]));
});

test('a table of glyphs under digit column heads and beside code labels stays a table (a font chart)', () => {
  const heads = ['', '0', '1', '2', '3', '4', '5', '6', '7'];
  const grid = [heads, ["'00x", 'Γ', 'Δ', 'Θ', 'Λ', 'Ξ', 'Π', 'Σ', 'Υ'], ["'01x", 'Φ', 'Ψ', 'Ω', 'ff', 'fi', 'fl', 'ı', 'ȷ'], ["'02x", 'ˆ', '˜', '¯', '˘', '˙', '¨', '˚', 'ˇ']];
  assert.ok(!isLetterGrid(grid));
  // Tables of data: short codes with digits, words, or fewer than four columns.
  assert.ok(!isLetterGrid([['A', '65', '41', 'x'], ['B', '66', '42', 'y'], ['C', '67', '43', 'z']]));
  assert.ok(!isLetterGrid([['p', 'q', 'r'], ['T', 'T', 'T'], ['T', 'F', 'F'], ['F', 'T', 'F']]));
  assert.ok(!isLetterGrid([['Key', 'Ctrl', 'Alt', 'Shift'], ['A', 'B', 'C', 'D'], ['E', 'F', 'G', 'H']]));
});

test('header cells set over two to four lines, centred vertically beside each other, make one header row', () => {
  // gtkwave's manual (IEEE style, 9 pt): each header cell a bold block of its own lines.
  const H = (text: string, x0: number, y0: number, x1: number, block: number): LayoutLine => L(text, x0, y0, x1, block, { size: 9, bold: true, y1: y0 + 10 });
  const C = (text: string, x0: number, y0: number, x1: number, block: number): LayoutLine => L(text, x0, y0, x1, block, { size: 9, y1: y0 + 10 });
  const lines: LayoutLine[] = [
    L('TABLE II. COMPARISON OF REPRESENTATIONS OF DECIMAL AND HEXADECIMAL', 57, 97, 283, 1, { size: 5 }),
    H('Decimal', 50, 139, 91, 3), H('Hexadecimal', 120, 139, 185, 3),
    H('Variable-', 214, 123, 259, 4), H('Length', 214, 134, 252, 4), H('Unsigned', 214, 144, 264, 4), H('Integer', 214, 155, 251, 4),
  ];
  const rows = [['0', '00', '00'], ['1', '01', '01'], ['127', '7F', '7F'], ['128', '80', '80 01'], ['16383', '3FFF', 'FF 7F']];
  rows.forEach((r, i) => lines.push(C(r[0]!, 70, 169 + i * 15, 70 + r[0]!.length * 5, 5 + i), C(r[1]!, 140, 169 + i * 15, 140 + r[1]!.length * 5, 5 + i), C(r[2]!, 225, 169 + i * 15, 225 + r[2]!.length * 5, 5 + i)));
  const ts = detectTables(lines, 12);
  assert.equal(ts.length, 1);
  assert.deepEqual(ts[0]!.rows, [['Decimal', 'Hexadecimal', 'Variable-Length Unsigned Integer'], ...rows]);
  assert.equal(ts[0]!.lines.filter((l) => l.block === 4).length, 4); // the cell's own lines, not the merged one
});

test('a bold paragraph of short lines with nothing beside it is not merged into one line', () => {
  const lines: LayoutLine[] = [
    L('Warning', 72, 100, 120, 1, B), L('Do not unplug', 72, 112, 150, 1, B), L('the device now', 72, 124, 152, 1, B),
    ...['Alpha', 'Beta', 'Gamma'].flatMap((w, i) => [L(w, 72, 160 + i * 14, 110, 2 + i), L(`${i + 1}.0`, 200, 160 + i * 14, 215, 2 + i), L(`${i * 7}`, 300, 160 + i * 14, 310, 2 + i)]),
  ];
  const ts = detectTables(lines, 11);
  assert.ok(ts.every((t) => !t.rows.flat().some((c) => c.includes('Do not unplug'))));
});
