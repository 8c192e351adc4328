// Reading order and text joins where the raw extractors read on and Lectern broke the text (ADR 0374): a
// paragraph cut by a page break whose next page opens with a float, an example number set apart from its
// text, and narrow columns of German prose (nouns in capitals) that line up like a grid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LayoutLine, PageExtraction } from '../../src/recognition/index.js';
import { analyzeLayout, joinItemMarks } from '../../src/recognition/structure/layout-analysis.js';
import { detectTables } from '../../src/recognition/structure/tables.js';
import { escapeLineStart, renderMarkdown } from '../../src/recognition/markdown/render-markdown.js';
import { spacedText } from '../../src/recognition/pdf/glyph-spacing.js';

const L = (text: string, x0: number, y0: number, x1: number, o: Partial<LayoutLine> = {}): LayoutLine => ({ text, x0, y0, x1, y1: y0 + 12, size: 10, bold: false, italic: false, mono: false, block: 1, ...o });
const page = (n: number, lines: LayoutLine[]): PageExtraction => ({ page: n, kind: 'text-layer', width: 612, height: 792, lines, images: [], notes: [], ms: 0 });
const WIDE = 'Running prose of the page, set as wide as the text block of the page for this test';

/** Page 1 ends mid-sentence; page 2 opens with a float (caption, and a table when `table`), then the sentence goes on. */
function cutByFloat(table: boolean, continuation: string): PageExtraction[] {
  const p1 = [0, 1, 2, 3].map((i) => L(i === 3 ? 'and the last line of the page stops in the middle of the' : WIDE, 72, 100 + 12 * i, 540, { block: 0 }));
  const rows = [['Star', 'Mass', 'Luminosity'], ['Sun', '1.00', '1.00'], ['Vega', '2.10', '40.1'], ['Sirius', '2.06', '25.4']];
  const p2 = [
    L('Table 3 - continued. A table continued from the previous one.', 72, 80, 400, { block: 1 }),
    ...(table ? rows.flatMap((r, i) => r.map((c, k) => L(c, 120 + 120 * k, 110 + 14 * i, 120 + 120 * k + 6 * c.length, { block: 2 }))) : []),
    ...[0, 1, 2].map((i) => L(i === 0 ? continuation : i === 2 ? 'and so the paragraph ends.' : WIDE, 72, 200 + 12 * i, i === 2 ? 200 : 540, { block: 3 })),
  ];
  return [page(1, p1), page(2, p2)];
}

for (const table of [true, false]) {
  test(`a paragraph cut by a page break reads on past a float at the top of the next page (${table ? 'caption and table' : 'caption'})`, () => {
    const { blocks } = analyzeLayout({ pages: cutByFloat(table, 'sentence, which goes on after the float on the next page of the text block') });
    const md = renderMarkdown(blocks);
    assert.match(md, /stops in the middle of the sentence, which goes on after the float/, md);
    // The float comes after the paragraph it interrupted.
    assert.ok(md.indexOf('goes on after the float') < md.indexOf('Table 3'), md);
    if (table) assert.equal(blocks.filter((b) => b.kind === 'table').length, 1, JSON.stringify(blocks));
  });
}

test('a capitalised paragraph after a float on the next page is a paragraph of its own', () => {
  const { blocks } = analyzeLayout({ pages: cutByFloat(true, 'Sentence of a new paragraph after the float on the next page of the text block') });
  const md = renderMarkdown(blocks);
  assert.doesNotMatch(md, /middle of the Sentence/, md);
});

test('an example number set apart from its text is joined to it, and a judgement mark after it is no bullet', () => {
  const lines = [
    L('(1) Here is one.', 128, 634, 209, { block: 9, segments: [{ text: '(1)', x0: 128, x1: 141 }, { text: 'Here is one.', x0: 158, x1: 209 }] }),
    L('(2)', 128, 652, 141, { block: 10 }),
    L('* Here another is.', 158, 652, 241, { block: 10 }),
    L('(3) Here are some with judgements.', 128, 670, 306, { block: 11 }),
  ];
  const joined = joinItemMarks(lines, new Set());
  assert.deepEqual(joined.map((l) => l.text), ['(1) Here is one.', '(2) * Here another is.', '(3) Here are some with judgements.']);
  assert.equal(joined[1]!.x0, 128);
  const md = renderMarkdown(analyzeLayout({ pages: [page(1, lines)] }).blocks);
  assert.match(md, /^2\. \\\* Here another is\.$/m, md);
  assert.doesNotMatch(md, /^\(2\)$/m, md);
});

test('a number left of a line in another block, far away, below it or in math stays apart', () => {
  const base = (o: Partial<LayoutLine>): LayoutLine[] => [L('(2)', 128, 652, 141, { block: 10 }), L('Text beside it.', 158, 652, 241, { block: 10, ...o })];
  for (const o of [{ block: 11 }, { x0: 300, x1: 380 }, { y0: 680, y1: 692 }, { math: 'x^2' }]) assert.equal(joinItemMarks(base(o), new Set()).length, 2, JSON.stringify(o));
  const [m, t] = base({});
  assert.equal(joinItemMarks([m!, t!], new Set([m!])).length, 2, 'table lines stay');
});

test('two narrow columns of German prose whose rows line up are no table (nouns in capitals read on)', () => {
  // As the grid gives them after joining wrapped cells (schule's worksheet, tune part of the real set).
  const left = ['Dies hier ist', 'ein Blindtext zum Testen von', 'Textausgaben.', 'Wer diesen Text', 'liest, ist natürlich selbst schuld. Der', 'Text gibt lediglich den Grauwert.', 'Ist es gleichgül-'];
  const right = ['tig, ob ich schreibe:', '»Dies ist ein Blindtext« oder »Huar-', 'dest gefburn«? Kjift', '– mitnichten! Ein', 'Blindtext liefert mir wichtige Hinwei-', 'se. An ihm messe ich die Lesbarkeit wie', 'harmonisch die Fi-'];
  const lines = left.flatMap((t, i) => [L(t, 85, 130 + 14 * i, 85 + 4.5 * t.length, { block: 2 + i }), L(right[i]!, 300, 130 + 14 * i, 300 + 4.5 * right[i]!.length, { block: 20 + i })]);
  const tables = detectTables(lines, 10);
  assert.ok(!tables.some((t) => t.lines.some((l) => /Hinwei-|Grauwert/.test(l.text))), JSON.stringify(tables.map((t) => t.rows)));
});

test('a key table whose descriptions start in capitals stays a table', () => {
  const rows = [['width', 'The width of the box'], ['height', 'The height of the box'], ['depth', 'The depth below the line'], ['fill', 'The colour inside'], ['frame', 'The rule around it'], ['shadow', 'The offset of its shadow']];
  const lines = rows.flatMap(([k, v], i) => [L(k!, 72, 140 + i * 14.5, 72 + k!.length * 5.6, { block: 1 }), L(v!, 200, 140 + i * 14.5, 200 + v!.length * 5.6, { block: 1 })]);
  const tables = detectTables(lines, 11);
  assert.equal(tables.length, 1, JSON.stringify(tables.map((t) => t.rows)));
});

test('letters set apart by space glyphs of the font\'s own width keep their spaces (a type specimen row)', () => {
  // 12 pt, space 0.25 em (3 pt): "A B C D E F G H" with a real space after each letter.
  const row: { c: string; x0: number; x1: number }[] = [];
  let x = 0;
  for (const c of 'A B C D E F G H') {
    const w = c === ' ' ? 3 : 8;
    row.push({ c, x0: x, x1: x + w });
    x += w;
  }
  assert.equal(spacedText(row, 12, 0.25), 'A B C D E F G H');
  // MuPDF's narrow inserted spaces (not the font's width) do not count: letter spacing still decides.
  const tracked = [...'abcdefgh'].flatMap((c, i) => [{ c, x0: i * 7, x1: i * 7 + 5 }, ...(i < 7 ? [{ c: ' ', x0: i * 7 + 5, x1: i * 7 + 7 }] : [])]);
  assert.equal(spacedText(tracked, 12, 0.25), 'abcdefgh');
});

test('a line start that would open a Markdown construct is escaped where Markdown reads the escape', () => {
  assert.equal(escapeLineStart('08. 2007'), '08\\. 2007');
  assert.equal(escapeLineStart('3) then'), '3\\) then');
  assert.equal(escapeLineStart('* judged'), '\\* judged');
  assert.equal(escapeLineStart('2007 was a year'), '2007 was a year');
  // An ordered item whose text starts like a number or a bullet is no nested list.
  const md = renderMarkdown([{ kind: 'list', page: 1, ordered: true, items: ['22. 08. 2007', '23. * starred'] }]);
  assert.ok(md.trimEnd().endsWith('22. 08\\. 2007\n23. \\* starred'), md);
});
