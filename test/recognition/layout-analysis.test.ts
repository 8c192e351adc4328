// Structure passes on crafted pages: headings by size, weight and numbering, the outline, lists,
// captions, tables, footnotes, references and Markdown page markers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LayoutLine, PageExtraction } from '../../src/recognition/index.js';
import { analyzeLayout, looksLikeCode } from '../../src/recognition/structure/layout-analysis.js';
import { renderMarkdown } from '../../src/recognition/markdown/render-markdown.js';
import { isInterleaved, xyCut } from '../../src/recognition/structure/reading-order.js';
import { composeAccents, stripDotLeaders } from '../../src/recognition/structure/text-repairs.js';

let block = 0;
const L = (text: string, y: number, o: Partial<LayoutLine> = {}): LayoutLine => ({
  text, x0: 72, y0: y, x1: o.x1 ?? 72 + text.length * 5, y1: y + (o.size ?? 10) * 1.2, size: 10, bold: false, italic: false, mono: false, block, ...o,
});
const nb = (): number => ++block;
const page = (n: number, lines: LayoutLine[]): PageExtraction => ({ page: n, kind: 'text-layer', width: 612, height: 792, lines, images: [], notes: [], ms: 0 });
const para = (y: number, n = 3): LayoutLine[] => {
  const b = nb();
  return Array.from({ length: n }, (_, i) =>
    L(i === n - 1 ? 'and this is where the paragraph ends.' : 'Body text body text body text body text body text body text body text body', y + i * 12, { block: b, x1: i === n - 1 ? 260 : 520 }),
  );
};

test('headings from font size, bold and numbering get levels; the title is level 1', () => {
  const lines = [
    L('A Study of Synthetic Layouts', 60, { size: 20, bold: true, block: nb(), x1: 400 }),
    ...para(100),
    L('1 Introduction', 160, { size: 12, bold: true, block: nb() }),
    ...para(180),
    L('1.1 Background', 230, { size: 10, bold: true, block: nb() }),
    ...para(250),
    L('Related Work', 300, { size: 14, block: nb() }),
    ...para(320),
  ];
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  const hs = blocks.filter((b) => b.kind === 'heading').map((b) => b.kind === 'heading' && [b.level, b.text, b.source]);
  assert.deepEqual(hs, [
    [1, 'A Study of Synthetic Layouts', 'title'],
    [2, '1 Introduction', 'numbering'],
    [3, '1.1 Background', 'numbering'],
    [2, 'Related Work', 'font-size'],
  ]);
});

test('bold run-in text and author lines are not headings', () => {
  const b = nb();
  const lines = [
    ...para(60),
    L('Ada Lovelace, Charles Babbage, Alan Turing', 120, { size: 12, block: nb() }),
    L('Note that', 150, { bold: true, block: b }),
    L('continues in lower case on the next line of the same block.', 162, { block: b, x1: 520 }),
    ...para(200),
  ];
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  assert.equal(blocks.filter((x) => x.kind === 'heading').length, 0);
});

test('a heading opened by a lower-case outline label is not the wrapped line of the heading above it (ADR 0369)', () => {
  const lines = [
    ...para(40),
    L('1. INTRODUCTION', 100, { size: 14, bold: true, block: nb() }),
    L('a) Purpose', 130, { size: 12, bold: true, block: nb() }),
    ...para(150),
    L('2. A heading set too long for one line that', 270, { size: 14, bold: true, block: nb(), x1: 400 }),
    L('wraps onto a second one', 287, { size: 14, bold: true, block: nb() }),
    ...para(310),
  ];
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  assert.deepEqual(blocks.filter((b) => b.kind === 'heading').map((b) => b.kind === 'heading' && b.text), [
    '1. INTRODUCTION', 'a) Purpose', '2. A heading set too long for one line that wraps onto a second one',
  ]);
});

test('table-of-contents entries with dot leaders are not headings', () => {
  const lines = [
    L('Contents', 60, { size: 14, bold: true, block: nb() }),
    L('1 Introduction . . . . . . . . . . . . . . . . . . . . 1', 90, { bold: true, block: nb() }),
    L('2 Related Work ........................ 3', 110, { bold: true, block: nb() }),
    L('Appendix A . . . . . . . . . . . . . . . . . . . . . . . . xii', 130, { size: 12, bold: true, block: nb() }),
    ...para(160),
  ];
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  assert.deepEqual(
    blocks.filter((x) => x.kind === 'heading').map((x) => (x.kind === 'heading' ? x.text : '')),
    ['Contents'],
  );
});

test('a bare web address in large bold type is not a heading', () => {
  const lines = [
    L('A Report on Something', 40, { size: 24, bold: true, block: nb(), x1: 400 }),
    ...para(80),
    L('ibm.com/redbooks', 140, { size: 15, bold: true, block: nb() }),
    L('www.example.org', 170, { size: 15, bold: true, block: nb() }),
    ...para(200),
  ];
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  assert.deepEqual(
    blocks.filter((x) => x.kind === 'heading').map((x) => (x.kind === 'heading' ? x.text : '')),
    ['A Report on Something'],
  );
});

test('the PDF outline names headings and their levels', () => {
  const lines = [L('Methods', 100, { block: nb() }), ...para(120), L('Data collection', 170, { block: nb() }), ...para(190)];
  const { blocks } = analyzeLayout({
    pages: [page(1, lines)],
    outline: [
      { depth: 1, title: 'Methods', page: 1 },
      { depth: 2, title: 'Data collection', page: 1 },
    ],
  });
  const hs = blocks.filter((x) => x.kind === 'heading');
  assert.deepEqual(hs.map((h) => h.kind === 'heading' && [h.level, h.source]), [[2, 'outline'], [3, 'outline']]);
});

test('lists, captions, footnotes and references are recognised', () => {
  const lines = [
    ...para(60),
    L('• first item of the list', 110, { block: nb() }),
    L('• second item of the list', 124, { block: nb() }),
    L('1. an ordered item', 150, { block: nb() }),
    L('2. another ordered item', 164, { block: nb() }),
    L('Figure 3: A caption under a figure.', 200, { block: nb() }),
    L('References', 300, { bold: true, size: 12, block: nb() }),
    ...((): LayoutLine[] => {
      const b = nb();
      return [L('[1] A. Author. A paper. 2020.', 320, { block: b }), L('[2] B. Author. Another paper. 2021.', 332, { block: b })];
    })(),
    L('3 A footnote at the bottom of the page in small type.', 740, { size: 8, block: nb() }),
  ];
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  const kinds = blocks.map((b) => b.kind);
  assert.deepEqual(kinds, ['paragraph', 'list', 'list', 'caption', 'heading', 'reference', 'reference', 'footnote']);
  const md = renderMarkdown(blocks, { pageCount: 1 });
  assert.match(md, /^- first item of the list\n- second item of the list$/m);
  assert.match(md, /^1\. an ordered item\n2\. another ordered item$/m);
  assert.match(md, /^\[\^3\]: A footnote/m);
  // A small line starting with a longer number (a postal code) is no footnote labelled with its first digits.
  const address = analyzeLayout({ pages: [page(1, [...para(60), L('07233 Seoul, 1 Uisadang-daero, Tel. 02-788-4510', 740, { size: 8, block: nb() })])] });
  assert.ok(!address.blocks.some((b) => b.kind === 'footnote'), JSON.stringify(address.blocks.map((b) => b.kind)));
});

test('a prose paragraph under a References heading, its first line indented, stays one paragraph; hanging entries still split (ADR 0364)', () => {
  const b = nb();
  const prose = ['For authors to properly cite the resources used when re-', 'searching their papers is an obligation. In the interest of', 'promoting uniformity and complete citations, the IEEE Edi-', 'torial Style for Transactions and Journals has been adopted.'];
  const lines = [L('References', 100, { bold: true, size: 12, block: nb() }), ...prose.map((t, i) => L(t, 120 + i * 12, { block: b, x0: i === 0 ? 82 : 72, x1: i === 3 ? 380 : 400 }))];
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  const refs = blocks.filter((x) => x.kind === 'reference' || x.kind === 'paragraph');
  assert.equal(refs.length, 1, JSON.stringify(blocks));
  assert.match(renderMarkdown(blocks, { pageCount: 1 }), /the IEEE Editorial Style for Transactions/);
  // Entries with hanging indents: each entry's first line at the left edge, its continuation set in.
  const h = nb();
  const hang = [['A. Author, A long title of a paper that runs on to', 72], ['a second line. Journal, 2020.', 84], ['B. Author, Another paper that also runs on to', 72], ['its second line. Journal, 2021.', 84]] as const;
  const hl = [L('References', 100, { bold: true, size: 12, block: nb() }), ...hang.map(([t, x], i) => L(t, 120 + i * 12, { block: h, x0: x }))];
  assert.equal(analyzeLayout({ pages: [page(1, hl)] }).blocks.filter((x) => x.kind === 'reference').length, 2);
});

test("an entry's last line that the text layer set in a block of its own goes on with that entry (ascelike's references)", () => {
  const h = nb();
  const tail = nb();
  const lines = [
    L('REFERENCES', 100, { bold: true, size: 12, block: nb() }),
    L('Huang, Y., Bird, R., and Bell, M. (2009a). A comparative study of the emission', 120, { block: h, x0: 104, x1: 515 }),
    L('by road maintenance works. Transportation Research Part D, 14, 197-204.', 134.5, { block: h, x0: 116, x1: 471 }),
    L('Huang, Y., Bird, R., and Hendrich, O. (2009b). Development of a life cycle as-', 149, { block: h, x0: 104, x1: 515 }),
    L('sessment tool for asphalt pavements. Journal', 163.5, { block: h, x0: 116, x1: 514 }),
    L('of Cleaner Production, 17, 283-296.', 178, { block: tail, x0: 116, x1: 298 }),
    L('International Conference of Building Officials (1988). Uniform building code.', 192.5, { block: nb(), x0: 104, x1: 515 }),
  ];
  const refs = analyzeLayout({ pages: [page(1, lines)] }).blocks.flatMap((x) => (x.kind === 'reference' ? [x.text] : []));
  assert.equal(refs.length, 3, JSON.stringify(refs));
  assert.match(refs[1]!, /Journal of Cleaner Production, 17/);
});

test('aligned cells become a Markdown table', () => {
  const rows = [
    ['Model', 'Params', 'Score'],
    ['small', '10M', '0.71'],
    ['base', '110M', '0.78'],
    ['large', '340M', '0.83'],
  ];
  const lines: LayoutLine[] = [...para(60)];
  rows.forEach((r, i) => r.forEach((c, j) => lines.push(L(c, 120 + i * 14, { x0: 72 + j * 150, x1: 72 + j * 150 + c.length * 5, block: nb() }))));
  lines.push(...para(200));
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  const table = blocks.find((b) => b.kind === 'table');
  assert.ok(table && table.kind === 'table');
  assert.deepEqual(table.rows, rows);
  assert.match(renderMarkdown(blocks), /\| Model \| Params \| Score \|\n\| --- \| --- \| --- \|\n\| small \| 10M \| 0.71 \|/);
});

test('a table stays where its first line sat, between the paragraphs around it', () => {
  const lines: LayoutLine[] = [...para(60)];
  [['Model', 'Params'], ['small', '10M'], ['base', '110M']].forEach((r, i) => r.forEach((c, j) => lines.push(L(c, 120 + i * 14, { x0: 72 + j * 150, x1: 72 + j * 150 + c.length * 5, block: nb() }))));
  lines.push(...para(200));
  const kinds = analyzeLayout({ pages: [page(1, lines)] }).blocks.map((b) => b.kind);
  assert.deepEqual(kinds.filter((k) => k === 'table'), ['table']);
  assert.ok(kinds.indexOf('paragraph') < kinds.indexOf('table') && kinds.indexOf('table') < kinds.lastIndexOf('paragraph'), kinds.join(','));
});

test('paragraphs continue across pages; every page gets a marker', () => {
  const b1 = nb();
  const p1 = page(1, [L('The sentence starts on the first page and', 700, { block: b1, x1: 520 })]);
  const p2 = page(2, [L('ends on the second page.', 72, { block: nb() })]);
  const p3: PageExtraction = { ...page(3, []), kind: 'empty' };
  const { blocks } = analyzeLayout({ pages: [p1, p2, p3] });
  assert.equal(blocks.length, 1);
  const md = renderMarkdown(blocks, { pageCount: 3 });
  assert.equal(md, '<!-- page 1 -->\n\nThe sentence starts on the first page and ends on the second page.\n\n<!-- page 2 -->\n\n<!-- page 3 -->\n');
});

test('monospaced body text stays prose; monospaced program text becomes a code block', () => {
  const prose = [
    'It was a bright cold day in April, and the clocks were striking thirteen. Winston',
    'Smith, his chin nuzzled into his breast in an effort to escape the vile wind, slipped',
    'quickly through the glass doors of Victory Mansions, though not quickly enough.',
  ].map((t, i) => L(t, 100 + i * 12, { mono: true, block: 1000, x1: 520 }));
  const code = ['def add(a, b):', 'return a + b', 'print(add(1, 2))'].map((t, i) => L(t, 200 + i * 12, { mono: true, block: 1001, x0: i === 1 ? 96 : 72 }));
  const url = [L('https://example.org/some/long/path?q=1', 300, { mono: true, block: 1002 })];
  assert.equal(looksLikeCode(prose), false);
  assert.equal(looksLikeCode(code), true);
  assert.equal(looksLikeCode(url), false);
  const { blocks } = analyzeLayout({ pages: [page(1, [...prose, ...code])] });
  assert.deepEqual(blocks.map((b) => b.kind), ['paragraph', 'code']);
  assert.match(renderMarkdown(blocks), /```\ndef add\(a, b\):\n    return a \+ b\nprint/);
});

test('an interleaved two-column text layer is read column by column; a title emitted after its authors comes first', () => {
  const left = ['Layout analysis decides the order in which', 'the blocks of a page are read by people', 'and a converter must follow the columns.'];
  const right = ['We cut the page recursively at the wide', 'vertical gaps between the two columns of', 'text and read each column whole and last.'];
  const lines: LayoutLine[] = [
    L('Ada Example and Bob Sample', 110, { x0: 200, x1: 340, block: nb() }),
    L('Reading Order on Two Column Pages', 80, { size: 18, bold: true, x0: 150, x1: 460, block: nb() }),
  ];
  left.forEach((t, i) => {
    lines.push(L(t, 160 + i * 12, { x0: 72, x1: 290, block: nb() }));
    lines.push(L(right[i]!, 160 + i * 12, { x0: 320, x1: 540, block: nb() }));
  });
  const md = renderMarkdown(analyzeLayout({ pages: [page(1, lines)] }).blocks);
  assert.match(md, /# Reading Order on Two Column Pages\n\nAda Example and Bob Sample\n\nLayout analysis decides the order in which the blocks of a page are read by people and a converter must follow the columns\.\n\nWe cut the page/);
  assert.equal(isInterleaved(lines), true);
  // A table's rows switch between short cells the same way, and stay in stream order.
  const cells = ['Model', 'Params', 'small', '10M', 'base', '110M', 'large', '340M'].map((t, i) => L(t, 100 + Math.floor(i / 2) * 14, { x0: 72 + (i % 2) * 150 }));
  assert.equal(isInterleaved(cells), false);
  // Columns written one after the other are not interleaved.
  const sequential = [...left.map((t, i) => L(t, 160 + i * 12, { x0: 72, x1: 290 })), ...right.map((t, i) => L(t, 160 + i * 12, { x0: 320, x1: 540 }))];
  assert.equal(isInterleaved(sequential), false);
  assert.deepEqual(xyCut([...sequential].reverse()).map((l) => l.text), [...left].reverse().concat([...right].reverse()));
});

test('an unruled financial table keeps its spanning group header as the first header row', () => {
  const rows = [
    ['Item', '2023', '2022', 'Change'],
    ['Revenue', '1,204', '1,098', '9.7%'],
    ['Gross profit', '502', '443', '13.3%'],
    ['Net income', '148', '117', '26.5%'],
  ];
  const cols = [72, 300, 370, 450];
  const lines: LayoutLine[] = [...para(60), L('Year ended December 31', 120, { x0: 300, x1: 410, block: nb() })];
  rows.forEach((r, i) => r.forEach((c, j) => lines.push(L(c, 134 + i * 14, { x0: cols[j]!, x1: cols[j]! + c.length * 5, block: nb() }))));
  lines.push(...para(220));
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  const table = blocks.find((b) => b.kind === 'table');
  assert.ok(table && table.kind === 'table');
  assert.deepEqual(table.rows, [['', 'Year ended December 31', '', ''], ...rows]);
  assert.ok(!blocks.some((b) => b.kind !== 'table' && 'text' in b && b.text.includes('Year ended')));
});

test('TeX accents are composed, dot leaders dropped from text, and a drop cap joins its word', () => {
  assert.equal(composeAccents('Caf´e, na¨ıve, ´ Ecole, gar¸con, ˇcesk´y'), 'Café, naïve, École, garçon, český');
  assert.equal(composeAccents('`code` and x´'), '`code` and x´');
  assert.equal(stripDotLeaders('Introduction . . . . . . . 12'), 'Introduction 12');
  assert.equal(stripDotLeaders('Wait... and see. Version 1.2.3.4'), 'Wait... and see. Version 1.2.3.4');
  const b = nb();
  const lines = [
    L('T', 100, { size: 36, x0: 72, x1: 92, y1: 130, block: nb() }),
    L('he letter arrived on a grey morning in late autumn, when the river had', 100, { x0: 96, x1: 520, block: b }),
    L('already risen over the lower meadows and the ferry no longer crossed.', 112, { x0: 96, x1: 500, block: b }),
    L('Contents . . . . . . . . . . . . . . 3', 200, { block: nb(), x1: 300 }),
  ];
  const md = renderMarkdown(analyzeLayout({ pages: [page(1, lines)] }).blocks);
  assert.match(md, /The letter arrived on a grey morning/);
  assert.match(md, /Contents 3/);
  assert.doesNotMatch(md, /^#/m);
});

test('a table beside prose in the other column (or on the other page of a spread) keeps to its column', () => {
  const lines: LayoutLine[] = [];
  const b = nb();
  for (let i = 0; i < 7; i++) lines.push(L(`Left column prose line number ${i + 1} of the text`, 100 + i * 14, { x0: 72, x1: 290, block: b }));
  const rows = [['Group', 'State', 'CSOs'], ['Children', '*', '*'], ['Women', '*', '-'], ['Migrants', '-', '*']];
  rows.forEach((r, i) => r.forEach((c, j) => lines.push(L(c, 100 + i * 14, { x0: 340 + j * 80, x1: 340 + j * 80 + c.length * 5, block: nb() }))));
  for (let i = 0; i < 5; i++) lines.push(L(`Right column prose line number ${i + 1} here`, 170 + i * 14, { x0: 340, x1: 540, block: 9000 }));
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  const table = blocks.find((x) => x.kind === 'table');
  assert.ok(table && table.kind === 'table');
  assert.deepEqual(table.rows, rows);
});

test('a table with wrapped cells under a bold header row becomes one row per entry', () => {
  const lines: LayoutLine[] = [...para(40)];
  const h = (t: string, x: number): LayoutLine => L(t, 108, { x0: x, x1: x + t.length * 4, bold: true, block: nb() });
  lines.push(h('Special register', 142), h('Corresponding value', 230));
  const c = (t: string, x: number, y: number): LayoutLine => L(t, y, { x0: x, x1: x + t.length * 4.5, block: nb() });
  lines.push(c('USER or', 142, 127), c('SESSION_USER', 142, 138), c('The effective user of the thread excluding adopted authority.', 230, 127));
  lines.push(c('CURRENT_USER', 142, 157), c('The effective user of the thread including adopted authority. When no adopted', 230, 157), c('authority is present, this has the same value as USER.', 230, 168));
  lines.push(c('SYSTEM_USER', 142, 187), c('The authorization ID that initiated the connection.', 230, 187));
  lines.push(...para(240));
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  const table = blocks.find((b) => b.kind === 'table');
  assert.ok(table && table.kind === 'table');
  assert.deepEqual(table.rows, [
    ['Special register', 'Corresponding value'],
    ['USER or SESSION_USER', 'The effective user of the thread excluding adopted authority.'],
    ['CURRENT_USER', 'The effective user of the thread including adopted authority. When no adopted authority is present, this has the same value as USER.'],
    ['SYSTEM_USER', 'The authorization ID that initiated the connection.'],
  ]);
});

test('OCR: a numbered heading estimated smaller than the body (no descenders) is a heading; an unnumbered small line is not', () => {
  const ocr = (text: string, y: number, size: number, b: number, x1 = 300): LayoutLine => ({ ...L(text, y, { size, block: b, x1 }), sizeEstimated: true, confidence: 90 });
  const body = (y: number, b: number): LayoutLine[] =>
    Array.from({ length: 4 }, (_, i) => ocr(i === 3 ? 'and here the paragraph of the section ends.' : 'Body text of the section with words in it, as read', y + i * 12, 9, b, i === 3 ? 250 : 300));
  const lines = [...body(100, 1), ocr('2Method', 160, 7, 2, 110), ...body(175, 3), ocr('Small print line', 240, 7, 4, 130), ...body(255, 5)];
  const headings = analyzeLayout({ pages: [page(1, lines)] }).blocks.filter((b) => b.kind === 'heading').map((b) => (b.kind === 'heading' ? b.text : ''));
  assert.deepEqual(headings, ['2Method']);
});

test('a numbered line cut mid-word at its line end goes on in the next block, flush left (issue 28)', () => {
  const lines = [
    ...para(60),
    L('3. Packages The standard distribution contains the amsmath package and the class automati-', 120, { block: nb(), x1: 520 }),
    L('cally loads it so that authors can use numerous convenient environments for math equations.', 134, { block: nb(), x1: 520 }),
    ...para(170),
  ];
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  const md = renderMarkdown(blocks);
  assert.match(md, /the class automatically loads it so that authors/);
  assert.doesNotMatch(md, /^cally loads/m);
});

test('a two-level number on a short line of its own at the body size is a heading; single numbers stay list items (issue 28)', () => {
  const lines = [
    L('1 Introduction', 60, { size: 12, bold: true, block: nb() }),
    ...para(80),
    L('1.1 Class options', 130, { block: nb() }),
    ...para(146),
    L('1. the first step of the procedure', 200, { block: nb() }),
    L('2. the second step of the procedure', 212, { block: nb() }),
    ...para(230),
  ];
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  const hs = blocks.filter((b) => b.kind === 'heading').map((b) => b.kind === 'heading' && [b.level, b.text]);
  assert.deepEqual(hs, [
    [2, '1 Introduction'],
    [3, '1.1 Class options'],
  ]);
});

test('a margin note set between two lines of a paragraph block does not cut the paragraph (issue 28)', () => {
  const b = nb();
  const body = (t: string, y: number): LayoutLine => L(t, y, { block: b, x0: 134, x1: 480 });
  const lines = [
    L('5.2 User-Defined Environments', 60, { size: 12, bold: true, block: nb(), x0: 134 }),
    body('We have enhanced the standard theorem command and slightly changed', 80),
    L('\\spnewtheorem', 84, { block: b, x0: 68, x1: 128, mono: true }),
    body('its syntax to get two new commands that now can be used to define', 92),
    body('additional environments with two more arguments for the fonts used.', 104),
    L('For example, the following lines define a new environment for claims.', 130, { block: nb(), x0: 134, x1: 480 }),
    L('It is numbered together with the theorems of the same document part.', 142, { block: nb(), x0: 134, x1: 480 }),
  ];
  const md = renderMarkdown(analyzeLayout({ pages: [page(1, lines)] }).blocks);
  assert.match(md, /slightly changed its syntax to get two new commands/);
  assert.match(md, /spnewtheorem/, 'the note is kept, after the paragraph');
  assert.ok(md.indexOf('spnewtheorem') > md.indexOf('fonts used.'));
});

test('a word broken after a hyphenating prefix is joined when the document has no such word: the broken rest does not vouch for it', () => {
  const b = nb();
  const lines = [
    L('This option can be used to invert the logo colours of the school. It is inter-', 100, { block: b, x1: 520 }),
    L('nally used in some poster and beamer elements, and in the self-', 112, { block: b, x1: 520 }),
    L('attention of the reader where the attention of the reader is asked.', 124, { block: b, x1: 400 }),
  ];
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  const text = blocks.map((x) => ('text' in x ? x.text : '')).join('\n');
  assert.match(text, /It is internally used in some poster/);
  assert.match(text, /the self-attention of the reader/);
});

test('a table under a caption of two lines comes after both lines, not between them (ADR 0369)', () => {
  // The stream writes the caption, then the table's cells; the table's top is within three body sizes of
  // the caption's first line, so it was put right after that line, before the caption's second line.
  const cap = nb();
  const lines: LayoutLine[] = [
    ...para(40),
    L('TABLE II. COMPARISON OF REPRESENTATIONS OF DECIMAL,', 97, { size: 8, block: cap, x1: 283 }),
    L('HEXADECIMAL, AND VARIABLE-LENGTH UNSIGNED INTEGERS', 106, { size: 8, block: nb(), x1: 274 }),
  ];
  [['Decimal', 'Hex', 'Bytes'], ['0', '00', '00'], ['1', '01', '01'], ['127', '7F', '7F'], ['128', '80', '80 01']].forEach((r, i) => {
    const b = nb();
    r.forEach((c, k) => lines.push({ ...L(c, 125 + i * 14, { block: b, bold: i === 0 }), x0: 72 + k * 80, x1: 72 + k * 80 + c.length * 5 }));
  });
  lines.push(...para(220));
  const md = renderMarkdown(analyzeLayout({ pages: [page(1, lines)] }).blocks);
  const at = (s: string): number => md.indexOf(s);
  assert.ok(at('HEXADECIMAL, AND') >= 0 && at('| Decimal') >= 0, md);
  assert.ok(at('HEXADECIMAL, AND') < at('| Decimal'), md);
});

test('OCR: a numbered heading cut at the gap after its number, or above a one-line paragraph or its first subsection, is a heading (ADR 0372)', () => {
  const ocr = (text: string, y: number, size: number, b: number, x0 = 72, x1 = 300): LayoutLine => ({ ...L(text, y, { size, block: b, x0, x1 }), sizeEstimated: true, confidence: 90 });
  const body = (y: number, b: number): LayoutLine[] =>
    Array.from({ length: 3 }, (_, i) => ocr(i === 2 ? 'and here the paragraph of the section ends.' : 'Body text of the section with words in it, as read', y + i * 12, 9, b, 72, i === 2 ? 250 : 300));
  const lines = [
    ...body(60, 1),
    // "2.2" and its words as two tesseract lines on one row (digits without descenders come out smaller).
    ocr('2.2', 110, 7, 2, 72, 86),
    ocr('Dados para documento', 110, 9, 2, 100, 200),
    ...body(125, 3),
    ocr('2 Downloads', 175, 10, 4, 72, 140),
    ocr('Download the package and install it in your path.', 190, 9, 5, 72, 330),
    ocr('4. Instructions for Authors', 215, 9, 6, 72, 220),
    ocr('4.1 Formatting your paper', 230, 9, 7, 72, 210),
    ...body(245, 8),
    // Not headings: a numbered line above a one-line item that starts with a number, an unnumbered short line
    // above a one-line sentence.
    ocr('3 Apples and pears', 295, 9, 9, 72, 180),
    ocr('4 Oranges and lemons from the market on the square', 310, 9, 10, 72, 330),
    // Unnumbered text beside an equation number tesseract misread, on one row.
    ocr('No Warning', 318, 9, 14, 72, 130),
    ocr('qQ)', 318, 10, 14, 400, 420),
    ...body(331, 15),
    ocr('Short line', 370, 9, 11, 72, 130),
    ocr('Another sentence on a line of its own follows it here.', 385, 9, 12, 72, 330),
    ...body(405, 13),
  ];
  const headings = analyzeLayout({ pages: [page(1, lines)] }).blocks.filter((b) => b.kind === 'heading').map((b) => (b.kind === 'heading' ? b.text : ''));
  assert.deepEqual(headings, ['2.2 Dados para documento', '2 Downloads', '4. Instructions for Authors', '4.1 Formatting your paper']);
});

test('a numbered title centred over its paragraph at the body size is a heading (AMS "1. Introduction", "§1. Introduction"); a flush-left numbered step is not (ADR 0380)', () => {
  // The paragraph lines run 72-520: centre 296.
  const centred = (text: string, y: number): LayoutLine => L(text, y, { x0: 296 - text.length * 2.5, x1: 296 + text.length * 2.5, block: nb() });
  const lines = [
    centred('1. Introduction', 60),
    ...para(80),
    centred('§2. Style and preamble', 130),
    ...para(146),
    L('3. the third step of the procedure', 200, { block: nb() }),
    ...para(216),
  ];
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  const hs = blocks.filter((b) => b.kind === 'heading').map((b) => b.kind === 'heading' && [b.level, b.text]);
  assert.deepEqual(hs, [
    [2, '1. Introduction'],
    [2, '§2. Style and preamble'],
  ]);
});

test('a numbered run-in title set in bold, italic or small capitals is a heading over its paragraph; bold lead words and numbered theorem heads are not (ADR 0383)', () => {
  const runIn = (text: string, lead: string, y: number): LayoutLine[] => {
    const b = nb();
    return [L(text, y, { block: b, x1: 520, lead }), L('and this is where the paragraph ends.', y + 12, { block: b, x1: 260 })];
  };
  const lines = [
    ...para(40),
    // asmejour: "1.1 **Essential Initial Commands.** To begin"; aomart: "9.2. *Over and under arrows*. Some extra".
    ...runIn('1.1 Essential Initial Commands. To begin, fill in the fields to be completed at the top of', '1.1 Essential Initial Commands.', 90),
    ...runIn('9.2. Over and under arrows. Some extra over and under arrow operations are provided in the', '9.2. Over and under arrows', 130),
    // An accent drawn apart ("L¨of") is composed in the title as in the line.
    ...runIn('5.5. Martin-L¨of Type Theory. Invoking the package with the ML option enables the support', '5.5. Martin-L¨of Type Theory.', 150),
    // asmeconf: a one-level number with a title in capitals.
    ...runIn('2. REFERRING TO FIGURES Citations are automatically numbered and sorted in the text of the', '2. REFERRING TO FIGURES', 170),
    // Not titles: a proof head, a theorem head numbered first (\swapnumbers), a one-level numbered item.
    ...runIn('Proof. This is trivial from what was shown above, since every body text body text body', 'Proof.', 210),
    ...runIn('2.1. Theorem. Let the body text be what it is, then body text body text body text body', '2.1. Theorem.', 250),
    ...runIn('3. Apples. The first of the fruits to be listed here is the apple, body text body text', '3. Apples.', 290),
  ];
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  const hs = blocks.filter((b) => b.kind === 'heading').map((b) => b.kind === 'heading' && [b.level, b.text]);
  assert.deepEqual(hs, [
    [3, '1.1 Essential Initial Commands'],
    [3, '9.2. Over and under arrows'],
    [3, '5.5. Martin-Löf Type Theory'],
    [2, '2. REFERRING TO FIGURES'],
  ]);
  const paras = blocks.filter((b) => b.kind === 'paragraph').map((b) => (b.kind === 'paragraph' ? b.text.slice(0, 24) : ''));
  assert.ok(paras.includes('To begin, fill in the fi'));
  assert.ok(paras.includes('Some extra over and unde'));
  assert.ok(paras.includes('Citations are automatica'));
  assert.ok(paras.includes('Proof. This is trivial f'));
  assert.ok(paras.includes('2.1. Theorem. Let the bo'));
});

test('an outline entry without the section number the page prints names the numbered heading (ADR 0383)', () => {
  // hyperref's bookmarks: "Mathematical elements" for "1.1 Mathematical elements", set like the body.
  const lines = [L('1.1 Mathematical elements', 100, { block: nb() }), L('The following options are accepted:', 114, { block: nb(), x1: 300 }), ...para(130)];
  // The outline has the document's title at its root: the level follows the printed number.
  const lines2 = [L('2 Usage', 100, { block: nb() }), L('The following options are accepted:', 114, { block: nb(), x1: 300 }), ...para(130)];
  const outline = [{ depth: 1, title: 'A Manual', page: 1 }, { depth: 2, title: 'Introduction', page: 1 }, { depth: 3, title: 'Mathematical elements', page: 1 }, { depth: 2, title: 'Usage', page: 1 }];
  const hs = [lines, lines2].flatMap((ls) => analyzeLayout({ pages: [page(1, ls)], outline }).blocks.filter((x) => x.kind === 'heading'));
  assert.deepEqual(hs.map((h) => h.kind === 'heading' && [h.level, h.text, h.source]), [[3, '1.1 Mathematical elements', 'outline'], [2, '2 Usage', 'outline']]);
});

test('a bold numbered title listing things with commas is a heading, not an author line (ADR 0383)', () => {
  const lines = [...para(40), L('2. REFERRING TO CITATIONS, FIGURES, AND EQUATIONS', 100, { block: nb(), bold: true, size: 9 }), ...para(120)];
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  const hs = blocks.filter((x) => x.kind === 'heading');
  assert.deepEqual(hs.map((h) => h.kind === 'heading' && h.text), ['2. REFERRING TO CITATIONS, FIGURES, AND EQUATIONS']);
});
