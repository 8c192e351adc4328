// Bullet lists whose bullets are set apart from their text (a hanging indent or a tab: "•" alone in a first
// column, the item in a second) are lists, not two-column tables, and the bullets do not become paragraphs
// of their own (ADR 0368 amendment). Small layouts of lines as the text layer gives them (10 pt, rows 14 pt apart).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LayoutLine, PageExtraction } from '../../src/recognition/index.js';
import { bulletList, detectTables } from '../../src/recognition/structure/tables.js';
import { analyzeLayout } from '../../src/recognition/structure/layout-analysis.js';
import { renderMarkdown } from '../../src/recognition/markdown/render-markdown.js';

const L = (text: string, x0: number, y0: number, x1: number, o: Partial<LayoutLine> = {}): LayoutLine => ({ text, x0, y0, x1, y1: y0 + 12, size: 10, bold: false, italic: false, mono: false, block: 1, ...o });
const prose = (y: number, block: number): LayoutLine[] =>
  [0, 1, 2].map((i) => L(i === 2 ? 'and so the paragraph of running prose ends here.' : 'Running prose of the page, set as wide as the text block of the page for the test.', 72, y + 12 * i, i === 2 ? 300 : 540, { block }));
const page = (lines: LayoutLine[]): PageExtraction => ({ page: 1, kind: 'text-layer', width: 612, height: 792, lines, images: [], notes: [], ms: 0 });

const items = ['Install the tune document first.', 'Run the converter on each page.', 'Compare the output with the base.', 'Write the results down.'];
const bulletLayout = (glyph: string | ((i: number) => string)): LayoutLine[] => [
  ...prose(40, 0),
  ...items.flatMap((t, i) => [L(typeof glyph === 'string' ? glyph : glyph(i), 90, 100 + 14 * i, 95, { block: 2 + 2 * i }), L(t, 110, 100 + 14 * i, 110 + t.length * 5, { block: 3 + 2 * i })]),
  ...prose(170, 20),
];

test('a column of bullets beside text is a bullet list, not a table', () => {
  assert.equal(bulletList([['•', 'One item'], ['•', 'Another item'], ['', 'its second line'], ['•', 'A third']]), true);
  assert.equal(bulletList([['–', 'One'], ['◦', 'Two']]), true);
  assert.equal(bulletList([['•', 'Only one bullet']]), false);
  // A symbol among words in the first column: a table.
  assert.equal(bulletList([['–', 'none'], ['Fast', 'yes'], ['✓', 'all']]), false);
  assert.equal(bulletList([['✓', 'Ready'], ['✓', 'Done'], ['✓', 'Shipped']]), false, 'ticks are a table\'s marks');
  const tables = detectTables(bulletLayout('•'), 10);
  assert.equal(tables.length, 1, JSON.stringify(tables.map((t) => t.rows)));
  assert.equal(tables[0]!.list, true);
});

for (const glyph of ['•', '◦', '▪', '–', '*']) {
  test(`bullets "${glyph}" set apart from their text become Markdown list items, not stray bullets`, () => {
    const { blocks } = analyzeLayout({ pages: [page(bulletLayout(glyph))] });
    assert.ok(!blocks.some((b) => b.kind === 'table'), JSON.stringify(blocks));
    assert.ok(!blocks.some((b) => b.kind === 'paragraph' && b.text.trim() === glyph), 'no stray bullet paragraph');
    const md = renderMarkdown(blocks);
    for (const t of items) assert.match(md, new RegExp(`^[-*] ${t.replace(/\./g, '\\.')}$`, 'm'), md);
  });
}

test('a real table whose first column has symbols among words stays a table', () => {
  const keys = ['✓', 'Fast', '–', 'Small', '✓'];
  const lines = [...prose(40, 0), ...keys.flatMap((k, i) => [L(k, 90, 100 + 14 * i, 90 + k.length * 5, { block: 2 }), L(`value ${i + 1}`, 200, 100 + 14 * i, 240, { block: 2 }), L(`${i * 3}`, 300, 100 + 14 * i, 310, { block: 2 })]), ...prose(180, 20)];
  const tables = detectTables(lines, 10);
  assert.equal(tables.length, 1, JSON.stringify(tables.map((t) => t.rows)));
  assert.equal(tables[0]!.list, undefined);
  const { blocks } = analyzeLayout({ pages: [page(lines)] });
  assert.equal(blocks.filter((b) => b.kind === 'table').length, 1);
});

test('the paragraph after a bullet list, in the last item\'s block at the margin, is no part of the item', () => {
  // A word processor's block for the last item that runs on into the next paragraph, set flush left.
  const lines = [
    ...prose(40, 0),
    ...items.flatMap((t, i) => [L('•', 90, 100 + 14 * i, 95, { block: 2 + 2 * i }), L(t, 110, 100 + 14 * i, 110 + t.length * 5, { block: i === 3 ? 9 : 3 + 2 * i })]),
    L('After the list the text goes on at the margin of the page, as a paragraph of its own.', 72, 156, 520, { block: 9 }),
    ...prose(180, 20),
  ];
  const md = renderMarkdown(analyzeLayout({ pages: [page(lines)] }).blocks);
  assert.match(md, /^- Write the results down\.$/m, md);
  assert.match(md, /^After the list the text goes on/m, md);
});
