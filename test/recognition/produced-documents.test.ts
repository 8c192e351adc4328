// Defects found on documents made by LaTeX and LibreOffice (issue 17): furniture outside the 10% bands
// (LaTeX on A4 sets its running head at 10.5% and its page number at 82.6% of the height), a small letterhead
// line on a one-page document, an author block under the title, a heading in the same source block as a
// narrower paragraph, a table in one column beside prose with a 10 pt gutter, OCR lines of a justified
// narrow column. The end-to-end test builds the documents when pdflatex and soffice are installed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { LayoutLine, PageExtraction } from '../../src/recognition/index.js';
import { convertDocument } from '../../src/recognition/index.js';
import { removeRunningLines } from '../../src/recognition/structure/running-lines.js';
import { analyzeLayout } from '../../src/recognition/structure/layout-analysis.js';
import { detectTables } from '../../src/recognition/structure/tables.js';
import { parseTesseractTsv } from '../../src/recognition/ocr/tesseract-tsv.js';
import { buildProduced } from '../../bench/recognition/devset/build.js';
import { check } from '../../bench/recognition/devset/checks.js';
import type { DevCheck } from '../../bench/recognition/devset/documents.js';
import { normalizedEditDistance } from '../../bench/recognition/metrics.js';
import { needs, runner } from './helpers/tools.js';

const L = (text: string, x: number, y: number, o: Partial<LayoutLine> = {}): LayoutLine => {
  const size = o.size ?? 9;
  return { text, x0: x, y0: y, x1: o.x1 ?? x + text.length * size * 0.5, y1: y + size, size, bold: false, italic: false, mono: false, block: 0, ...o };
};
const A4 = (n: number, lines: LayoutLine[]): PageExtraction => ({ page: n, kind: 'text-layer', width: 595, height: 842, lines, images: [], notes: [], ms: 0 });
const body = (y0: number, n: number, x = 72, block = 1): LayoutLine[] =>
  Array.from({ length: n }, (_, i) => L(`Body line ${i} of the column with enough words in it`, x, y0 + i * 12, { x1: x + 228, block }));

test('LaTeX furniture on A4: a running head at 10.5% and a page number at 82.6%, set apart, go; first body lines stay', () => {
  const pages = [1, 2, 3].map((n) =>
    A4(n, [
      L('Devset Letters in Coastal Science 12 (2026)', 72, 88),
      ...body(110, 47),
      L(String(n), 303, 695),
    ]),
  );
  const { pages: out, removed } = removeRunningLines(pages);
  assert.equal(removed, 6);
  for (const p of out) {
    assert.equal(p.lines.length, 47);
    assert.equal(p.lines[0]!.y0, 110, 'the first body line, inside the wide band but not set apart, stays');
  }
  // A heading set apart at the top of a page is not furniture: it neither repeats nor reads as a stamp.
  const one = removeRunningLines([A4(1, [L('2 Methods', 72, 100, { size: 12, bold: true }), ...body(125, 40)])]);
  assert.equal(one.removed, 0);
});

test('a small line set apart above the text of a one-page document goes; a body-size first line stays', () => {
  const letterhead = removeRunningLines([A4(1, [L('Town Newsletter, summer issue', 71, 42, { size: 9 }), L('Harbour News', 71, 79, { size: 18, bold: true }), ...body(100, 30, 71).map((l) => ({ ...l, size: 11 }))])]);
  assert.equal(letterhead.removed, 1);
  assert.ok(!letterhead.pages[0]!.lines.some((l) => l.text.startsWith('Town')));
  const memo = removeRunningLines([A4(1, [L('To all staff of the northern depot', 71, 42, { size: 11 }), ...body(80, 30, 71).map((l) => ({ ...l, size: 11 }))])]);
  assert.equal(memo.removed, 0);
});

test('the author block under the title is not a heading; the next section heading is', () => {
  const lines = [
    L('Carbon Burial in Tidal Marshes of the Northern Shore', 116, 153, { size: 17, block: 1 }),
    L('Ada Example', 216, 186, { size: 11, block: 2 }),
    L('Bob Sample', 333, 186, { size: 11, block: 2 }),
    L('1 Introduction', 72, 223, { size: 14, bold: true, block: 3 }),
    ...body(250, 10, 72, 4),
    L('Related Work', 72, 400, { size: 12, block: 5 }),
    ...body(420, 10, 72, 6),
  ];
  const headings = analyzeLayout({ pages: [A4(1, lines)] }).blocks.filter((b) => b.kind === 'heading').map((b) => (b.kind === 'heading' ? b.text : ''));
  assert.deepEqual(headings, ['Carbon Burial in Tidal Marshes of the Northern Shore', '1 Introduction', 'Related Work']);
});

test('a heading wider than the paragraph of its source block does not cut the paragraph after each full line', () => {
  const para = ['The old harbour was dredged for the', 'last time in the nineteen seventies.', 'Since then the channel has silted up', 'to a depth of less than two metres.'];
  const lines = [L('Harbour and Library News', 71, 79, { size: 18, bold: true, x1: 337, block: 1 }), ...para.map((t, i) => L(t, 71, 100 + i * 13, { size: 11, x1: 286, block: 1 }))];
  const paragraphs = analyzeLayout({ pages: [A4(1, lines)] }).blocks.filter((b) => b.kind === 'paragraph');
  assert.equal(paragraphs.length, 1);
});

test('a table in the right column beside prose, 10 pt apart, under a title spanning both columns', () => {
  const lines = [
    L('Carbon Burial in Tidal Marshes of the Northern Shore', 116, 153, { size: 17, x1: 494 }),
    ...body(225, 20, 72),
    L('Site', 316, 225), L('Tides', 420, 225), L('Rate', 470, 225), L('Share', 520, 225),
    ...[['North Point', '42', '310', '18%'], ['Eel Creek', '37', '265', '21%'], ['Sea Wall', '9', '82', '26%'], ['Mill Bay', '28', '190', '19%']].flatMap((r, i) =>
      r.map((c, j) => L(c, [316, 420, 470, 520][j]!, 238 + i * 12)),
    ),
    ...body(320, 12, 310),
  ];
  const tables = detectTables(lines, 9);
  assert.equal(tables.length, 1);
  assert.deepEqual(tables[0]!.rows.map((r) => r[0]), ['Site', 'North Point', 'Eel Creek', 'Sea Wall', 'Mill Bay']);
  assert.ok(tables[0]!.rows.every((r) => r.length === 4));
});

test('a table in the right column beside a paragraph that flows past it, with too little prose on its side for a gutter', () => {
  // The left column's paragraph (one source block) runs from above the table to below it; the right column
  // holds the table and two lines of prose, too few for the column split, so the rows share both columns.
  const para = Array.from({ length: 16 }, (_, i) => L(`Prose line ${i} of the left column paragraph goes on`, 72, 200 + i * 12, { x1: 290, block: 1 }));
  const cells = [['Glacier', 'Lost', 'Aspect'], ['Grey Horn', '31%', 'south'], ['Long Valley', '18%', 'north'], ['White Saddle', '64%', 'south'], ['Black Cirque', '22%', 'east']];
  const lines = [
    ...para,
    L('A short paragraph above the table in', 310, 200, { x1: 520, block: 2 }),
    L('the right column of the page.', 310, 212, { x1: 480, block: 2 }),
    ...cells.flatMap((r, i) => r.map((c, j) => L(c, [310, 420, 480][j]!, 236 + i * 12, { block: 3 + i }))),
  ];
  const tables = detectTables(lines, 9);
  assert.equal(tables.length, 1);
  assert.deepEqual(tables[0]!.rows.map((r) => r[0]), cells.map((r) => r[0]));
  assert.ok(tables[0]!.rows.every((r) => r.length === 3), JSON.stringify(tables[0]!.rows));
  assert.ok(!tables[0]!.lines.some((l) => l.block === 1));
  // A label column of long labels is still the table's: its lines do not flow on outside the table (a note
  // below in the same block as one label is not enough).
  const labels = [['Revenue from operations', '1,204', '1,117'], ['Cost of goods sold, net', '702', '655'], ['Gross profit of the year', '502', '462'], ['Net income to the owners', '97', '88']];
  const fin = [
    ...Array.from({ length: 4 }, (_, i) => L(`Body text of the page above the table, line ${i} of it`, 72, 100 + i * 12, { x1: 520, block: 1 })),
    ...labels.flatMap((r, i) => r.map((c, j) => L(c, [72, 400, 470][j]!, 160 + i * 12, { block: 10 + i }))),
    L('A note under the table that is long prose', 72, 220, { x1: 300, block: 10 }),
  ];
  const ft = detectTables(fin, 9);
  assert.equal(ft.length, 1);
  assert.deepEqual(ft[0]!.rows.map((r) => r[0]), labels.map((r) => r[0]));
});

test('OCR: a justified line of a narrow column keeps its wide spaces; a table row and a column gutter split', () => {
  const row = (words: [number, number, number, string][]): string[] =>
    words.map(([x, w, h, t], i) => `5\t1\t1\t1\t1\t${i + 1}\t${x}\t300\t${w}\t${h}\t90\t${t}`);
  const head = ['level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext'];
  // Words 30 px high, spaces of 50 px (1.7 word heights) all alike: justified, one line.
  const justified = parseTesseractTsv([...head, ...row([[100, 80, 30, 'years.'], [230, 60, 30, 'The'], [340, 140, 30, 'estimate'], [530, 140, 30, 'includes'], [720, 60, 30, 'the']])].join('\n'), 1);
  assert.deepEqual(justified.lines.map((l) => l.text), ['years. The estimate includes the']);
  // Cells 200 px apart (over three word heights): a table row.
  const table = parseTesseractTsv([...head, ...row([[100, 150, 30, 'Revenue'], [450, 80, 30, '1,204'], [730, 80, 30, '1,098']])].join('\n'), 1);
  assert.equal(table.lines.length, 3);
  // Two columns read as one line: a 70 px gutter among 12 px word spaces.
  const gutter = parseTesseractTsv([...head, ...row([[100, 80, 30, 'left'], [192, 80, 30, 'column'], [284, 80, 30, 'text'], [434, 80, 30, 'right'], [526, 80, 30, 'column']])].join('\n'), 1);
  assert.deepEqual(gutter.lines.map((l) => l.text), ['left column text', 'right column']);
});

const installed = (tool: string, flag = '--version'): boolean => {
  try {
    execFileSync(tool, [flag], { stdio: 'ignore', timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
};
const producers = !installed('pdflatex') || !installed('soffice') || !installed('pdftoppm', '-v') ? 'pdflatex, soffice or pdftoppm is not installed (texlive-latex-base, libreoffice-writer-nogui, poppler-utils)' : await needs('mutool', 'tesseract');

test('documents made by LaTeX and LibreOffice: furniture removed, order kept, close to their ground truth', { skip: producers, timeout: 600_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-produced-'));
  try {
    const { pdfs } = buildProduced(dir);
    for (const pdf of pdfs.filter((p) => !p.endsWith('.scan.pdf'))) {
      const name = basename(pdf, '.pdf');
      const r = await convertDocument(new Uint8Array(readFileSync(pdf)), { runner, pageMarkers: false });
      const checks = JSON.parse(readFileSync(join(dir, `${name}.checks.json`), 'utf8')) as DevCheck[];
      // A known gap, measured in the benchmark: MuPDF joins the LaTeX table's header cells into one line, so
      // cell checks by column name fail there. (The equation check, `$B = \rho f a$`, must pass.)
      const expectedToFail = (c: DevCheck): boolean => name === 'latex-two-column-paper' && c.kind === 'cell';
      const failed = checks.filter((c) => !expectedToFail(c) && !check(c, r.markdown));
      assert.deepEqual(failed, [], `${name}\n${r.markdown}`);
      // The Type 3 fonts of the T1 document drop their ligature glyphs in every extractor (6% of characters).
      const limit = name === 'latex-article-pages' ? 0.07 : 0.02;
      const ed = normalizedEditDistance(r.markdown, readFileSync(join(dir, `${name}.md`), 'utf8'));
      assert.ok(ed < limit, `${name}: edit distance ${ed}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('unmapped glyphs: a run becomes an unreadable-text comment still counted as garbage; one or two before a line are a bullet', async () => {
  const { foldUnreadable } = await import('../../src/recognition/markdown/render-markdown.js');
  const { plainText, textStatistics } = await import('../../src/recognition/report/text-statistics.js');
  const md = foldUnreadable('Highlights\n\n\ufffd\ufffd \ufffd\ufffd\ufffd\ufffd \ufffd\ufffd\ufffd\n\nA caf\ufffd stays.\n');
  assert.equal(md, 'Highlights\n\n<!-- unreadable text: 9 characters -->\n\nA caf\ufffd stays.\n');
  assert.equal(textStatistics(plainText(md)).garbageRatio, textStatistics('Highlights \ufffd\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd A caf\ufffd stays.').garbageRatio);
  const lines = [L('\ufffd\ufffd Database performance and scalability', 72, 100), L('\ufffd\ufffd Database modernization and re-engineering', 72, 112), ...body(140, 5)];
  const blocks = analyzeLayout({ pages: [A4(1, lines)] }).blocks;
  assert.deepEqual(blocks[0], { kind: 'list', page: 1, ordered: false, items: ['Database performance and scalability', 'Database modernization and re-engineering'] });
});

test('a table whose "Table N" caption sits just above it follows the caption, wherever the stream wrote its cells', () => {
  const cells = [['Column name', 'Data type'], ['FUNCTION_ID', 'VARCHAR(30)'], ['USER_NAME', 'VARCHAR(10)'], ['USAGE', 'VARCHAR(7)']].flatMap((r, i) => r.map((c, j) => L(c, [72, 250][j]!, 220 + i * 12, { block: 9 })));
  const lines = [L('Table 2-1 FUNCTION_USAGE view', 72, 200, { block: 7 }), ...body(300, 6, 72, 8).map((l) => ({ ...l, text: l.text.replace('Body', 'After') })), ...cells];
  const kinds = analyzeLayout({ pages: [A4(1, lines)] }).blocks.map((b) => b.kind);
  assert.deepEqual(kinds.slice(0, 3), ['caption', 'table', 'paragraph']);
});
