// Tables without rules read by their typography (issue 28, ADR 0384): a header cell over a column the
// body leaves empty is a column of its own, a picture's small labels in a cell do not make columns, a
// justified line of a `p{}` cell is not cut into cells at its stretched spaces, a row with one cell filled
// under a column stays the table's (and a line with room above it starts such a row), a key does not take
// the last line of the row above's description, and a grid whose cells stand on both sides of a wide gap
// is not split there as if it were a text-column gutter. Small layouts as the text layer gives them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LayoutLine } from '../../src/recognition/index.js';
import { detectTables } from '../../src/recognition/structure/tables.js';

const L = (text: string, x0: number, y0: number, x1: number, o: Partial<LayoutLine> = {}): LayoutLine => ({ text, x0, y0, x1, y1: y0 + 12, size: 10, bold: false, italic: false, mono: false, block: 1, ...o });
const above = (y: number): LayoutLine[] => [0, 1, 2].map((i) => L('Running prose of the page above the table, set as wide as the text block of the page.', 72, y + 12 * i, 540, { block: 0 }));
const below = (y: number): LayoutLine[] => [0, 1, 2].map((i) => L('Running prose of the page below the table, set as wide as the text block of the page.', 72, y + 12 * i, 540, { block: 2 }));
/** A line cut into segments (parts set more than 0.8 em apart, ADR 0341). */
const S = (parts: [string, number, number][], y0: number, o: Partial<LayoutLine> = {}): LayoutLine =>
  L(parts.map(([t]) => t).join(' '), parts[0]![1], y0, parts[parts.length - 1]![2], { segments: parts.map(([text, x0, x1]) => ({ text, x0, x1 })), ...o });

test('a header cell over a column the body leaves empty is a column of its own', () => {
  // oup-authoring-template's revision table: "Revision History" heads a column with nothing under it; put
  // into the nearest column it glued two headers ("Version Number Revision History").
  const lines = [
    ...above(160),
    S([['Revision State', 139, 202], ['Revision Date', 214, 275]], 228, { size: 9 }), S([['Version Number', 293, 363], ['Revision History', 376, 448]], 228, { size: 9 }),
    L('00', 139, 240, 148, { size: 9 }), S([['16 March, 2020', 214, 281], ['Version 1.0', 293, 341]], 240, { size: 9 }),
    L('01', 139, 253, 148, { size: 9 }), S([['18 March, 2022', 214, 281], ['Version 1.1', 293, 341]], 253, { size: 9 }),
    ...below(300),
  ];
  assert.deepEqual(detectTables(lines, 10).map((t) => t.rows), [[
    ['Revision State', 'Revision Date', 'Version Number', 'Revision History'],
    ['00', '16 March, 2020', 'Version 1.0', ''],
    ['01', '18 March, 2022', 'Version 1.1', ''],
  ]]);
});

test('the labels of a picture drawn in a cell, set small, do not make columns', () => {
  // pfdicons' key-value tables: a key, a description and an Example column holding a drawing whose anchor
  // labels ("west", "shell") are set in 8 pt; as columns of their own they left the table unfilled.
  const lines = [
    ...above(40),
    L('key=value', 92, 101, 141, { mono: true }), L('Description', 212, 99, 265), L('Example', 459, 99, 499),
    L('unit int=packed', 92, 120, 173, { mono: true }), L('Adds a cross representing a packed, dumped, or', 212, 118, 428), L('random fill within the reactor.', 212, 132, 350),
    L('unit int=fixed', 92, 161, 168, { mono: true }), L('Adds angled lines representing a fixed bed.', 212, 159, 408),
    L('unit int=tubular', 92, 192, 179, { mono: true }), L('Adds horizontal lines representing tubes for', 212, 190, 428), L('(e.g.) shell-and-tube reactors, double-pipe reac-', 212, 203, 428), L('tors, and so forth.', 212, 217, 292),
    L('unit ext=cis shell', 92, 246, 190, { mono: true }), L('Adds two shell-side stems, both on the north', 212, 244, 428),
    L('west', 451, 247, 468, { size: 8, y1: 256, mono: true, block: 6 }), L('east', 493, 247, 510, { size: 8, y1: 256, mono: true, block: 7 }),
    L('shell', 446, 255, 468, { size: 8, y1: 264, mono: true, block: 6 }), L('shell', 493, 255, 515, { size: 8, y1: 264, mono: true, block: 7 }),
    L('side with anchors west shell and east shell.', 212, 257, 427),
    ...below(320),
  ];
  const ts = detectTables(lines, 10);
  assert.equal(ts.length, 1);
  const rows = ts[0]!.rows;
  assert.deepEqual(rows[0], ['key=value', 'Description', 'Example']);
  assert.deepEqual(rows.slice(1, 4).map((r) => r.slice(0, 2)), [
    ['unit int=packed', 'Adds a cross representing a packed, dumped, or random fill within the reactor.'],
    ['unit int=fixed', 'Adds angled lines representing a fixed bed.'],
    ['unit int=tubular', 'Adds horizontal lines representing tubes for (e.g.) shell-and-tube reactors, double-pipe reactors, and so forth.'],
  ]);
  assert.equal(rows[4]![0], 'unit ext=cis shell');
  assert.match(rows[4]![2]!, /west/);
});

test('a justified line of a p{} cell is not cut at its stretched spaces, and rows with one cell filled stay rows', () => {
  // An address table (three columns, `p{}` cells): "Fédération<gap>belge<gap>de" is the justified first
  // line of the middle cell of a row whose other cells are empty ("{}{Fédération belge de gong}{}"). Cut
  // into three cells it made five columns and no table; joined to "Fbg Bgf" above it, it glued two rows.
  const lines = [
    ...above(310),
    L('Expédition', 130, 365, 178, { size: 9 }), L('Facturation', 245, 365, 296, { size: 9 }), L('Livraison', 360, 365, 401, { size: 9 }),
    L('Prénom Nom', 130, 377, 190, { size: 9 }), L('Fbg Bgf', 245, 377, 288, { size: 9 }), L('Voir facturation', 360, 377, 430, { size: 9 }),
    S([['Fédération', 245, 292], ['belge', 304, 327], ['de', 339, 349]], 389, { size: 9 }),
    L('gong', 245, 401, 266, { size: 9 }),
    L('Belgische gong federatie', 245, 413, 349, { size: 9 }),
    L('No 1, rue Delarue1', 130, 425, 212, { size: 9 }), L('DelarueStraat, no', 245, 425, 323, { size: 9 }),
    L('CCC1 Ville1', 130, 437, 186, { size: 9 }), L('CCC2 Ville2', 245, 437, 301, { size: 9 }),
    L('user@domain.tld', 130, 449, 202, { size: 9 }), L('(Entité)', 245, 449, 279, { size: 9 }),
    ...below(500),
  ];
  assert.deepEqual(detectTables(lines, 10).map((t) => t.rows), [[
    ['Expédition', 'Facturation', 'Livraison'],
    ['Prénom Nom', 'Fbg Bgf', 'Voir facturation'],
    ['', 'Fédération belge de gong', ''],
    ['', 'Belgische gong federatie', ''],
    ['No 1, rue Delarue1', 'DelarueStraat, no', ''],
    ['CCC1 Ville1', 'CCC2 Ville2', ''],
    ['user@domain.tld', '(Entité)', ''],
  ]]);
});

test('a row of numbers set with equal gaps is still cut into cells', () => {
  // Equal gaps alone do not make a justified line: these words start where the cells of the rows next to
  // them start.
  const lines = [
    ...above(40),
    L('Run', 72, 100, 90), L('First', 160, 100, 185), L('Second', 230, 100, 262), L('Third', 300, 100, 325),
    L('alpha', 72, 112, 97), S([['1.25', 160, 180], ['2.50', 230, 250], ['3.75', 300, 320]], 112),
    L('beta', 72, 124, 92), L('1.50', 160, 124, 180), L('2.75', 230, 124, 250), L('4.00', 300, 124, 320),
    L('gamma', 72, 136, 102), L('1.75', 160, 136, 180), L('3.00', 230, 136, 250), L('4.25', 300, 136, 320),
    ...below(180),
  ];
  assert.deepEqual(detectTables(lines, 10).map((t) => t.rows), [[
    ['Run', 'First', 'Second', 'Third'],
    ['alpha', '1.25', '2.50', '3.75'],
    ['beta', '1.50', '2.75', '4.00'],
    ['gamma', '1.75', '3.00', '4.25'],
  ]]);
});

test('a key does not take the last line of the description above it as its own first line', () => {
  // blockdraw's macro table: "infinity for the head." ends the row above's description (it reads on from
  // "for the tail and"); the key "tbond" stands on its own description's first line. The description's
  // first line is cut at a stretched space, so its next lines are rows of their own (kept in the table as
  // rows with one cell filled), and the key's centre is the centre of "infinity ..." and its own two lines.
  const lines = [
    ...above(120),
    L('Name', 150, 178, 172, { size: 6, y1: 186, bold: true }), L('Argument list', 254, 178, 309, { size: 6, y1: 186, bold: true }), L('Description', 372, 178, 417, { size: 6, y1: 186, bold: true }),
    L('bond', 150, 190, 164, { size: 6, y1: 198, mono: true }), L('( pth )', 270, 189, 293, { size: 6, y1: 197 }), L('Draws the half-arrow.', 372, 189, 447, { size: 6, y1: 197 }),
    L('causalmark', 150, 198, 187, { size: 6, y1: 206, mono: true }), L('( pth, where )', 257, 197, 306, { size: 6, y1: 205 }), S([['Draws the causality mark.', 372, 467], ['where is a', 475, 513]], 197, { size: 6, y1: 205 }),
    L('path time, and shall be 0 for the tail and', 372, 205, 513, { size: 6, y1: 213 }),
    L('infinity for the head.', 372, 213, 444, { size: 6, y1: 221 }),
    L('tbond', 150, 222, 168, { size: 6, y1: 230, mono: true }), L('( pth )', 270, 221, 293, { size: 6, y1: 229 }), L('Draws the half-arrow and a causality', 372, 221, 513, { size: 6, y1: 229 }),
    L('mark at the tail.', 372, 229, 429, { size: 6, y1: 237 }),
    L('hbond', 150, 238, 168, { size: 6, y1: 246, mono: true }), L('( pth )', 270, 237, 293, { size: 6, y1: 245 }), L('Draws the half-arrow and a causality', 372, 237, 513, { size: 6, y1: 245 }),
    L('mark at the head.', 372, 245, 434, { size: 6, y1: 253 }),
    ...below(300),
  ];
  const text = detectTables(lines, 10).flatMap((t) => t.rows.map((r) => r.join(' | '))).join('\n');
  assert.doesNotMatch(text, /infinity for the head\. Draws/);
  assert.match(text, /tbond \| \( pth \) \| Draws the half-arrow and a causality mark at the tail\./);
});

test('a grid with cells on both sides of a wide gap is one table, not two text columns', () => {
  // nrc's journal grid (7 pt): names of 20-37 characters in the first column and web addresses of 20 and
  // more in the last two passed for prose on both sides of the gap before the addresses, which split the
  // grid into text columns. Each row holds several cells on both sides of that gap.
  const names: [string, string, string, string, string][] = [
    ['Biochemistry and Cell Biology', 'Biochem. Cell Biol.', 'bcb', 'http://bcb.nrc.ca', 'http://bbc.cnrc.ca'],
    ['Canadian Geotechnical Journal', 'Can. Geotech. J.', 'cgj', 'http://cgj.nrc.ca', 'http://rcg.cnrc.ca'],
    ['Canadian Journal of Botany', 'Can. J. Bot.', 'cjb', 'http://canjbot.nrc.ca', 'http://revcanbot.cnrc.ca'],
    ['Canadian Journal of Chemistry', 'Can. J. Chem.', 'cjc', 'http://canjchem.nrc.ca', 'http://revcanchim.cnrc.ca'],
    ['Canadian Journal of Civil Engineering', 'Can. J. Civ. Eng.', 'cjce', 'http://cjce.nrc.ca', 'http://rcgc.cnrc.ca'],
    ['Canadian Journal of Earth Sciences', 'Can. J. Earth Sci.', 'cjes', 'http://cjes.nrc.ca', 'http://rcst.cnrc.ca'],
    ['Canadian Journal of Forest Research', 'Can. J. For. Res.', 'cjfr', 'http://cjfr.nrc.ca', 'http://rcrf.cnrc.ca'],
    ['Canadian Journal of Microbiology', 'Can. J. Microbiol.', 'cjm', 'http://cjm.nrc.ca', 'http://rcm.cnrc.ca'],
    ['Canadian Journal of Physics', 'Can. J. Phys.', 'cjp', 'http://cjp.nrc.ca', 'http://rcp.cnrc.ca'],
    ['Canadian Journal of Physiology', 'Can. J. Physiol.', 'cjpp', 'http://cjpp.nrc.ca', 'http://rcpp.cnrc.ca'],
    ['Canadian Journal of Zoology', 'Can. J. Zool.', 'cjz', 'http://cjz.nrc.ca', 'http://rcz.cnrc.ca'],
    ['Genome', 'Genome', 'gen', 'http://genome.nrc.ca', 'http://genome.cnrc.ca'],
    ['Journal of Environmental', 'J. Environ. Eng. Sci.', 'jees', 'http://jees.nrc.ca', 'http://rgse.cnrc.ca'],
  ];
  const xs = [30, 184, 291, 335, 432];
  const lines: LayoutLine[] = [L('Journal name', 30, 102, 80, { size: 7, y1: 109 }), L('Journal abbreviation', 184, 102, 261, { size: 7, y1: 109 }), L('Journal acronym', 291, 102, 322, { size: 7, y1: 109 }), L('English website', 335, 102, 392, { size: 7, y1: 109 }), L('French website', 432, 102, 486, { size: 7, y1: 109 })];
  names.forEach((r, k) => r.forEach((t, c) => lines.push(L(t, xs[c]!, 125 + 11.5 * k, xs[c]! + 3.7 * t.length, { size: 7, y1: 132 + 11.5 * k }))));
  // The last name's second line, indented, left under the table's last row: the grid's own block, not
  // prose beside the table.
  lines.push(L('Engineering and Science', 38, 125 + 11.5 * names.length - 2, 127, { size: 7, y1: 132 + 11.5 * names.length - 2 }));
  const ts = detectTables(lines, 10);
  assert.equal(ts.length, 1);
  assert.equal(ts[0]!.rows[0]!.length, 5);
  assert.deepEqual(ts[0]!.rows[3], names[2]);
});

test("a code column set smaller beside a table is no picture's labels: it keeps its column", () => {
  // dijkstra-fr: `\readgraph{` and its lines in 7 pt typewriter left of the algorithm's 9 pt table (and
  // "Tableau :" between them); taken for a picture's labels they went into the table's first column
  // ("\readgraph{ A", "A [B=7, D=15], 0").
  const M = (text: string, x0: number, y0: number, x1: number, o: Partial<LayoutLine> = {}): LayoutLine => L(text, x0, y0, x1, { size: 9, y1: y0 + 13, ...o });
  const code = ['\\readgraph{', 'A [B=7, D=15],', 'B [C=12, E=4, F=16],', 'C [D=5, F=3],', 'D [E=2],', 'E [F=14]}'];
  const cells = [['A', 'B', 'C', 'D', 'E', 'F'], ['0', '∞', '∞', '∞', '∞', '∞'], ['—', '7A', '∞', '15A', '∞', '∞'], ['—', '—', '19B', '15A', '11B', '23B'], ['—', '—', '19B', '13E', '—', '23B'], ['—', '—', '18D', '—', '—', '23B']];
  const xs = [263, 285, 310, 337, 365, 393];
  const lines = [...above(560)];
  code.forEach((t, k) => {
    const y = 616 + 12 * k;
    const x0 = k ? 42 : 33;
    lines.push(M(t, x0, y + 6, x0 + t.length * 4.3, { size: 7, mono: true, y1: y + 14 }));
    cells[k]!.forEach((c, j) => lines.push(M(c, xs[j]!, y, xs[j]! + 5 * c.length)));
  });
  lines.push(M('Tableau :', 218, 652, 254), ...below(720));
  const ts = detectTables(lines, 9);
  assert.equal(ts.length, 1);
  assert.deepEqual(ts[0]!.rows.map((r) => r[0]), code);
  assert.deepEqual(ts[0]!.rows[0], ['\\readgraph{', 'A', 'B', 'C', 'D', 'E', 'F']);
});

test("a line that goes on with the last row's hyphenated word is that row's, with a code cell beside it", () => {
  // apsguide's font table: "\bm | Bold Greek and other math sym-" over "bols:" and, on the same line, the
  // typewriter "Requires \usepackage{bm}"; a row of two cells, it was left outside the table.
  const M = (text: string, x0: number, y0: number, x1: number, o: Partial<LayoutLine> = {}): LayoutLine => L(text, x0, y0, x1, { size: 9, y1: y0 + 9, ...o });
  const rows = [['\\mathsf', 'Sans serif'], ['\\mathtt', 'Typewriter'], ['\\mathfrak', 'Fraktur'], ['\\bm', 'Bold Greek and other math sym-']];
  const lines = [...above(250)];
  rows.forEach(([k, d], i) => lines.push(M(k!, 319, 308 + 11 * i, 319 + 5 * k!.length, { mono: true }), M(d!, 416, 308 + 11 * i, 416 + 4.5 * d!.length)));
  lines.push(M('bols:', 416, 352, 440), M('Requires \\usepackage{bm}', 447, 352, 560, { mono: true }), ...below(380));
  const ts = detectTables(lines, 9);
  assert.equal(ts.length, 1);
  assert.deepEqual(ts[0]!.rows[3], ['\\bm', 'Bold Greek and other math symbols: Requires \\usepackage{bm}']);
});
