// Rows of a table decided by its columns, not by every line (issue 28, ADR 0368): a cell wrapped over two
// or three lines is one cell, a key set vertically centred against a wrapped description lands on the
// description's row, a multirow label column keeps its rows apart, and a numbers column starting afresh
// under a row keeps that row. Small layouts of lines as the text layer gives them (10 pt, rows 12 pt apart).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LayoutLine } from '../../src/recognition/index.js';
import { detectTables, readsOn } from '../../src/recognition/structure/tables.js';

const L = (text: string, x0: number, y0: number, x1: number, o: Partial<LayoutLine> = {}): LayoutLine => ({ text, x0, y0, x1, y1: y0 + 12, size: 10, bold: false, italic: false, mono: false, block: 1, ...o });
const above = (y: number): LayoutLine[] => [0, 1, 2].map((i) => L('Running prose of the page above the table, set as wide as the text block of the page.', 72, y + 12 * i, 540, { block: 0 }));
const below = (y: number): LayoutLine[] => [0, 1, 2].map((i) => L('Running prose of the page below the table, set as wide as the text block of the page.', 72, y + 12 * i, 540, { block: 2 }));

test('readsOn: a line left open over one starting in lower case, or a word broken at a hyphen, reads on', () => {
  assert.equal(readsOn('Provides two tubes roughly corresponding to', 'the radiative zones.'), true);
  assert.equal(readsOn('multicast to maintain synchro-', 'nization when no data is there'), true);
  assert.equal(readsOn('A finished description.', 'and more'), false);
  assert.equal(readsOn('{boolean}', '{Länge}'), false);
  assert.equal(readsOn('0.5', '0.7'), false);
  assert.equal(readsOn('mean', 'median'), false, 'a one-word cell over a one-word cell is two rows');
  assert.equal(readsOn('Raumgruppe und Summenformel eins', 'Mindestlänge Linie'), false);
});

test('a description wrapped onto a second line beside labels in another column stays one cell of its row', () => {
  // The second line of each description shares its row with a picture's labels in the Example column: the
  // row has more cells than the one above, so it was a row of its own ("| | the radiative ... | wnw ene |").
  const lines = [
    ...above(40),
    L('key=value', 95, 100, 144), L('Description', 215, 100, 268), L('Example', 459, 100, 499),
    L('unit int=double', 95, 120, 176), L('Provides two tubes roughly corresponding to', 215, 120, 431),
    L('the radiative and convective zones.', 215, 132, 375), L('wnw', 449, 134, 462, { size: 8, y1: 143 }), L('ene', 499, 134, 512, { size: 8, y1: 143 }),
    L('unit int=triple', 95, 160, 176), L('Provides three tubes roughly corresponding to', 215, 160, 431),
    L('a radiative zone and two convective zones.', 215, 172, 409), L('nnw', 461, 174, 474, { size: 8, y1: 183 }), L('nne', 487, 174, 500, { size: 8, y1: 183 }),
    ...below(220),
  ];
  assert.deepEqual(detectTables(lines, 10).map((t) => t.rows), [[
    ['key=value', 'Description', 'Example'],
    ['unit int=double', 'Provides two tubes roughly corresponding to the radiative and convective zones.', 'wnw ene'],
    ['unit int=triple', 'Provides three tubes roughly corresponding to a radiative zone and two convective zones.', 'nnw nne'],
  ]]);
});

test('a key set vertically centred against a description of three lines is that description\'s key', () => {
  // `m{}` cells: the key sits on the middle line of its row, the description's first line is a row without
  // a key above it and its last line one below.
  const desc: [string, string, string][] = [
    ['Sets the width of the frame around', 'the box, measured from the outer', 'edge of the rule inwards.'],
    ['Sets the colour of the rule that', 'is drawn around the box, given as', 'a name of the xcolor package.'],
    ['Sets the distance between the', 'text of the box and the inner edge', 'of its frame on every side.'],
  ];
  const keys = ['framewidth', 'framecolor', 'framesep'];
  const lines = [...above(40), L('Key', 95, 100, 113), L('Meaning', 215, 100, 255)];
  let y = 120;
  desc.forEach((d, i) => {
    d.forEach((t, k) => lines.push(L(t, 215, y + 12 * k, 215 + 4.8 * t.length)));
    lines.push(L(keys[i]!, 95, y + 12, 95 + 5 * keys[i]!.length));
    y += 40;
  });
  lines.push(...below(y + 20));
  assert.deepEqual(detectTables(lines, 10).map((t) => t.rows), [[['Key', 'Meaning'], ...keys.map((k, i) => [k, desc[i]!.join(' ')])]]);
});

test('rows under a multirow label start a new line in most columns: they stay rows, the label in a column of its own', () => {
  // `\multirow` label on the first row, each further row's type and description starting afresh (not
  // reading on from the row above): not the first row's wrapped cells.
  const lines = [
    ...above(40),
    L('Typ', 171, 100, 190), L('Beschreibung', 228, 100, 291), L('Name in Abb. 1', 422, 100, 499),
    L('\\setuplinks {boolean} Raumgruppe und Summenformel eins lblockeins', 96, 120, 468, { segments: [{ text: '\\setuplinks', x0: 96, x1: 159 }, { text: '{boolean}', x0: 171, x1: 216 }, { text: 'Raumgruppe und Summenformel eins', x0: 228, x1: 408 }, { text: 'lblockeins', x0: 422, x1: 468 }] }),
    L('{Länge}', 171, 132, 209), L('Mindestlänge Linie/Pfeil1', 228, 132, 351),
    L('{boolean} Abstiegssymbol eins', 171, 144, 323, { segments: [{ text: '{boolean}', x0: 171, x1: 216 }, { text: 'Abstiegssymbol eins', x0: 228, x1: 323 }] }), L('lseins', 422, 144, 447),
    L('{boolean} Raumgruppe und Summenformel zwei', 171, 156, 410, { segments: [{ text: '{boolean}', x0: 171, x1: 216 }, { text: 'Raumgruppe und Summenformel zwei', x0: 228, x1: 410 }] }), L('lblockzwei', 422, 156, 470),
    L('{Länge}', 171, 168, 209), L('zusätzliche vertikale Abstände', 228, 168, 372),
    ...below(210),
  ];
  assert.deepEqual(detectTables(lines, 10).map((t) => t.rows), [[
    ['', 'Typ', 'Beschreibung', 'Name in Abb. 1'],
    ['\\setuplinks', '{boolean}', 'Raumgruppe und Summenformel eins', 'lblockeins'],
    ['', '{Länge}', 'Mindestlänge Linie/Pfeil1', ''],
    ['', '{boolean}', 'Abstiegssymbol eins', 'lseins'],
    ['', '{boolean}', 'Raumgruppe und Summenformel zwei', 'lblockzwei'],
    ['', '{Länge}', 'zusätzliche vertikale Abstände', ''],
  ]]);
});

test('a key wrapped onto a second line is one key, and rows whose numbers start afresh stay rows', () => {
  const lines = [
    ...above(40),
    L('Model', 95, 100, 125), L('Error', 260, 100, 285), L('Runs', 340, 100, 362),
    L('linear fit of the', 95, 120, 170), L('0.52', 260, 120, 280), L('12', 340, 120, 350),
    L('residuals', 95, 132, 140),
    // A group under a multirow label: its second row's number starts afresh although the label reads on.
    L('quadratic fit with', 95, 152, 180), L('0.31', 260, 152, 280), L('14', 340, 152, 350),
    L('weights', 95, 164, 130), L('0.29', 260, 164, 280), L('15', 340, 164, 350),
    L('cubic', 95, 184, 120), L('0.30', 260, 184, 280), L('16', 340, 184, 350),
    ...below(220),
  ];
  assert.deepEqual(detectTables(lines, 10).map((t) => t.rows), [[
    ['Model', 'Error', 'Runs'],
    ['linear fit of the residuals', '0.52', '12'],
    ['quadratic fit with', '0.31', '14'],
    ['weights', '0.29', '15'],
    ['cubic', '0.30', '16'],
  ]]);
});

test('a three-column table with a description column of two thirds of the width keeps all its rows', () => {
  // Rows of three cells (type, modifier, description) and of two (the type a multirow label above): the
  // description is too wide for a cell row, so the rows of three (not next to a row of three) ended the
  // table; they line up with its first row of three.
  const rows: [string, string, string[]][] = [
    ['data(0)', 'data(0)', ['The packet is one that contains user information. Only the', 'process possessing a transmit token is permitted to send.']],
    ['', 'eow(1)', ['A data packet with the eow (end of window) modifier set', 'indicates that the transmitter intends to send no more.']],
    ['', 'eom(2)', ['Data[eom] marks the end of the message to the consumers,', 'and the surrendering of the transmit token to the master.']],
    ['nak(1)', 'request(0)', ['A nak[request] packet is a consumer requesting a retrans-', 'mission of one or more data packets.']],
    ['', 'deny(1)', ['A nak[deny] message indicates that the producer source of', 'the nak cannot retransmit one or more of the packets.']],
    ['empty(2)', 'dally(0)', ['An empty[dally] packet is multicast to maintain synchro-', 'nization when no client data is available.']],
    ['', 'cancel(1)', ['If a producer finds itself in possession of a transmit token', 'and has no data to send, it may cancel the token.']],
  ];
  const lines = [...above(20), L('type', 93, 78, 113), L('modifier', 166, 78, 205), L('description', 237, 78, 289)];
  let y = 98;
  for (const [t, m, d] of rows) {
    if (t) lines.push(L(t, 93, y, 93 + 5 * t.length));
    lines.push(L(m, 166, y, 166 + 5 * m.length));
    d.forEach((s, k) => lines.push(L(s, 237, y + 13 * k, k === 0 ? 517 : 237 + 4.6 * s.length)));
    y += 13 * d.length + 10;
  }
  lines.push(...below(y + 20));
  const ts = detectTables(lines, 10);
  assert.equal(ts.length, 1);
  assert.deepEqual(ts[0]!.rows.slice(1).map((r) => r.slice(0, 2)), rows.map(([t, m]) => [t, m]));
  assert.equal(ts[0]!.rows[4]![2], 'A nak[request] packet is a consumer requesting a retransmission of one or more data packets.');
});

test('a header word broken without a hyphen in a narrow column is joined without a space', () => {
  // A word processor breaks "Compressor", wider than its column, where the column ends: "Compresso" over
  // a centred "r". A header "Number" over "of" in a column as narrow stays two words.
  const lines = [
    ...above(40),
    L('Tool', 72, 100, 95), L('Compresso', 150, 100, 198), L('Number', 230, 100, 266),
    L('r', 172, 112, 176), L('of runs', 232, 112, 264),
    L('gzip', 72, 130, 92), L('2.1', 160, 130, 175), L('12', 240, 130, 250),
    L('bzip2', 72, 142, 97), L('3.4', 160, 142, 175), L('14', 240, 142, 250),
    L('xz', 72, 154, 82), L('4.0', 160, 154, 175), L('9', 240, 154, 245),
    ...below(190),
  ];
  assert.deepEqual(detectTables(lines, 10).map((t) => t.rows), [[
    ['Tool', 'Compressor', 'Number of runs'],
    ['gzip', '2.1', '12'],
    ['bzip2', '3.4', '14'],
    ['xz', '4.0', '9'],
  ]]);
});

test('cells centred vertically against cells of two and three lines make one row each (a word processor\'s table)', () => {
  // Lines 11 pt apart inside a cell, rows 16 pt apart; a one-line cell sits half a line below the first
  // line of a two-line cell, or on the middle line of a three-line one; the header's cells have two and
  // three lines ("Compresso" over "r": a word broken at the narrow column's edge).
  const W = (text: string, x0: number, y0: number, o: Partial<LayoutLine> = {}): LayoutLine => L(text, x0, y0, x0 + 5.2 * text.length, { y1: y0 + 10, size: 9, ...o });
  const lines = [
    ...above(20),
    W('Compresso', 320, 85, { bold: true, x1: 375 }), W('r', 320, 96, { bold: true, x1: 324 }),
    W('Compressed', 390, 85, { bold: true }), W('size (bytes)', 390, 96, { bold: true }),
    W('Compression', 480, 80, { bold: true }), W('time', 480, 90, { bold: true }), W('(seconds)', 480, 101, { bold: true }),
    W('gzip -1', 320, 115), W('15,213,337', 390, 115), W('1.15', 480, 115),
    W('gzip -9', 320, 131), W('12,236,236', 390, 131), W('13.39', 480, 131),
    W('lz4 (run', 320, 147), W('once)', 320, 158), W('23,825,848', 390, 152.5), W('0.28', 480, 152.5),
    W('vcd2fst (zlib)', 320, 174), W('plus gzip -4', 320, 185), W('11,164,461', 390, 179.5), W('24.41', 480, 179.5),
    W('vcd2fst (LZ4)', 320, 201), W('no', 320, 212), W('deduplication', 320, 223), W('71,600,821', 390, 212), W('18.68', 480, 212),
    ...below(260),
  ];
  assert.deepEqual(detectTables(lines, 9).map((t) => t.rows), [[
    ['Compressor', 'Compressed size (bytes)', 'Compression time (seconds)'],
    ['gzip -1', '15,213,337', '1.15'],
    ['gzip -9', '12,236,236', '13.39'],
    ['lz4 (run once)', '23,825,848', '0.28'],
    ['vcd2fst (zlib) plus gzip -4', '11,164,461', '24.41'],
    ['vcd2fst (LZ4) no deduplication', '71,600,821', '18.68'],
  ]]);
});

test('a key column centred under its bold header cell, its keys bold, is one table with its wrapped keys', () => {
  const lines = [
    ...above(20),
    L('Key', 138, 80, 161, { bold: true }), L('Shortcuts', 210, 80, 270, { bold: true }),
    ...[['F1', 'Displays the help file.'], ['F8', 'Screenshot of main window.'], ['F10', 'Toggle Real-time / Manual mode.']].flatMap(([k, d], i) => [
      L(k!, 149.5 - 3.5 * k!.length, 94 + 14 * i, 149.5 + 3.5 * k!.length, { bold: true, block: 3 + i }), L(d!, 210, 94 + 14 * i, 210 + 5.5 * d!.length, { block: 3 + i }),
    ]),
    L('F11 (F6 on', 116, 136, 182, { bold: true, block: 7 }), L('MacOS X)', 119, 149, 178, { bold: true, block: 7 }), L('Previous step.', 210, 136, 287, { block: 8 }),
    L('Ctrl + M', 124, 163, 174, { bold: true, block: 9 }), L('Maximization / Minimization of the map.', 210, 163, 430, { block: 9 }),
    ...below(200),
  ];
  assert.deepEqual(detectTables(lines, 11).map((t) => t.rows), [[
    ['Key', 'Shortcuts'],
    ['F1', 'Displays the help file.'],
    ['F8', 'Screenshot of main window.'],
    ['F10', 'Toggle Real-time / Manual mode.'],
    ['F11 (F6 on MacOS X)', 'Previous step.'],
    ['Ctrl + M', 'Maximization / Minimization of the map.'],
  ]]);
});

test('a one-line key centred against a description of three or four lines is that description\'s key', () => {
  // A word processor's table (the Math Guide's support table): each cell a block, lines 12 pt apart, the
  // key on the middle line of three, or between the second and third of four.
  const lines = [
    ...above(400),
    L('Ask LibreOffice', 65, 516, 135, { block: 18 }), L('Questions and answers from the LibreOffice community', 191, 510, 447, { block: 18 }), L('http://ask.libreoffice.org/en/questions/', 191, 522, 366, { block: 18 }),
    L('Documentation', 65, 553, 135, { block: 19 }),
    L('User guides, how-tos, and other documentation.', 191, 541, 416, { block: 20 }), L('http://www.libreoffice.org/get-help/documentation/', 191, 553, 419, { block: 20 }), L('https://wiki.documentfoundation.org/Documentation/Publications', 191, 565, 490, { block: 20 }),
    L('FAQs', 65, 591, 91, { block: 21 }), L('Answers to frequently asked questions', 191, 585, 369, { block: 21 }), L('http://wiki.documentfoundation.org/Faq', 191, 597, 370, { block: 21 }),
    L('International support', 65, 636, 160, { block: 23 }),
    L('The LibreOffice website in your language.', 191, 616, 383, { block: 24 }), L('http://www.libreoffice.org/international-sites/', 191, 628, 392, { block: 24 }),
    L('International mailing lists', 191, 644, 305, { block: 25 }), L('http://wiki.documentfoundation.org/Local_Mailing_Lists', 191, 656, 443, { block: 25 }),
    ...below(700),
  ];
  assert.deepEqual(detectTables(lines, 11).map((t) => t.rows), [[
    ['Ask LibreOffice', 'Questions and answers from the LibreOffice community http://ask.libreoffice.org/en/questions/'],
    ['Documentation', 'User guides, how-tos, and other documentation. http://www.libreoffice.org/get-help/documentation/ https://wiki.documentfoundation.org/Documentation/Publications'],
    ['FAQs', 'Answers to frequently asked questions http://wiki.documentfoundation.org/Faq'],
    ['International support', 'The LibreOffice website in your language. http://www.libreoffice.org/international-sites/ International mailing lists http://wiki.documentfoundation.org/Local_Mailing_Lists'],
  ]]);
});
