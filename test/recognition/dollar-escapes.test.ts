// A dollar sign of the text never pairs with a formula's delimiter (issue 28, ADR 0355): literal `$` in
// prose, headings, captions, table cells and footnotes is written `\$`, code stays as it is (fenced), inline
// formulas that touch are joined, and the escaped Markdown still serves search snippets and verbatim
// citations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LayoutLine, PageExtraction } from '../../src/recognition/index.js';
import { analyzeLayout } from '../../src/recognition/structure/layout-analysis.js';
import { renderMarkdown } from '../../src/recognition/markdown/render-markdown.js';
import { displayParts, escapeDollars, mathLine } from '../../src/recognition/structure/math-latex.js';
import { xhtmlToMarkdown } from '../../src/recognition/epub/epub-converter.js';
import { recognizedRecord, type ConvertedFile } from '../../src/ingest/recognized-file.js';
import { buildSnippet } from '../../src/engine/snippets.js';
import { parseQuery } from '../../src/engine/query-parser.js';
import { anchorCitations, type Passage } from '../../src/conversations/passages.js';
import { markdownMath } from '../../bench/recognition/realset/render.js';
import { assertMathRenders } from './helpers/katex.js';

let block = 0;
const L = (text: string, y: number, o: Partial<LayoutLine> = {}): LayoutLine => ({
  text, x0: 72, y0: y, x1: o.x1 ?? 72 + text.length * 5, y1: y + (o.size ?? 10) * 1.2, size: 10, bold: false, italic: false, mono: false, block, ...o,
});
const nb = (): number => ++block;
const page = (n: number, lines: LayoutLine[]): PageExtraction => ({ page: n, kind: 'text-layer', width: 612, height: 792, lines, images: [], notes: [], ms: 0 });

test('escapeDollars: a dollar becomes \\$, a backslash right before it stays literal; nothing else changes', () => {
  assert.equal(escapeDollars('no dollars here'), 'no dollars here');
  assert.equal(escapeDollars('costs $5, or $$ in plain TeX'), 'costs \\$5, or \\$\\$ in plain TeX');
  // `\$` written in a TeX manual's prose: the backslash doubled, so the reader sees `\$`.
  assert.equal(escapeDollars('type \\$ for a dollar'), 'type \\\\\\$ for a dollar');
  // A math line's text runs are escaped the same way; its formulas keep their delimiters.
  const run = (text: string, math = false) => ({ text, size: 10, y0: 100, y1: 110, math });
  assert.equal(mathLine([run('pay $'), run('x', true), run(' now')], [false, false, false]), 'pay \\$$x$ now');
  assert.equal(mathLine([run('pay $ '), run('x', true), run(' now')], [false, false, false]), 'pay \\$ $x$ now');
  // A radical sign with nothing to take stands alone (`\surd`): `\sqrt \sqrt` does not render.
  assert.equal(mathLine([run('7 '), run('√√', true)], [false, false]), '$7\\surd \\surd$');
  // A Markdown renderer reads `\$` as a dollar: no formula is found in escaped text.
  assert.deepEqual(markdownMath(escapeDollars('from $a$ to $$b$$ and $c')), []);
});

test('converted text: prose dollars are escaped, formulas keep theirs, code is verbatim, touching formulas join; every formula renders', () => {
  const p1 = nb();
  const p2 = nb();
  const p3 = nb();
  const code = nb();
  const t = nb();
  const lines: LayoutLine[] = [
    L('Prices in $ and the $$ of plain TeX', 60, { size: 14, bold: true, block: nb(), x1: 300 }),
    L('Plain TeX opens a display with $$ and closes it with $$ again, and a', 100, { block: p1, x1: 520 }),
    L('price of $5 is no formula: nothing here pairs with a display.', 112, { block: p1, x1: 400 }),
    // A paragraph with inline math on one line and a literal dollar on the next.
    L('We have x = y and so', 150, { block: p2, x1: 520, math: 'We have $x = y$ and so' }),
    L('the cost is $3 per item, paid once.', 162, { block: p2, x1: 400 }),
    // Two inline formulas that touch (a formula closed and the next opened at once).
    L('so ab holds for all of them here.', 200, { block: p3, x1: 400, math: 'so $a$$b$ holds for all of them here.' }),
    L('$$ x $$', 240, { block: code, mono: true, x1: 200 }),
    L('\\def\\cost{$5}', 252, { block: code, mono: true, x1: 200 }),
    L('Table 1: Prices in $ per unit.', 290, { block: nb(), x1: 300 }),
    L('Item', 310, { block: t, x1: 100 }),
    L('$12', 310, { block: t, x0: 300, x1: 330 }),
    L('Tea', 322, { block: t, x1: 100 }),
    L('$3', 322, { block: t, x0: 300, x1: 330 }),
    L('Wine', 334, { block: t, x1: 100 }),
    L('$30', 334, { block: t, x0: 300, x1: 330 }),
    L('E = mc2', 370, { block: nb(), x0: 250, x1: 320, display: 'E = m c^{2}' }),
  ];
  const { blocks } = analyzeLayout({ pages: [page(1, lines)] });
  const md = renderMarkdown(blocks);
  assert.match(md, /^# Prices in \\\$ and the \\\$\\\$ of plain TeX$/m);
  assert.match(md, /a display with \\\$\\\$ and closes it with \\\$\\\$ again/);
  assert.match(md, /price of \\\$5 is no formula/);
  assert.match(md, /We have \$x = y\$ and so the cost is \\\$3 per item/);
  assert.match(md, /so \$a b\$ holds/);
  assert.match(md, /\$\$E = m c\^\{2\}\$\$/);
  // Code is fenced and verbatim: no renderer reads math (or escapes) inside a fence.
  assert.match(md, /```\n\$\$ x \$\$\n\\def\\cost\{\$5\}\n```/);
  // Caption and table cells escaped too.
  assert.match(md, /Prices in \\\$ per unit/);
  assert.ok(!/(?<!\\)\$(?:12|3|30)\b/.test(md.replace(/```[\s\S]*?```/g, '')), md);
  // What a Markdown renderer finds: the two inline formulas and the display, each rendering in KaTeX.
  const found = markdownMath(md);
  assert.deepEqual(found.map((m) => [m.tex, m.display]), [['x = y', false], ['a b', false], ['E = m c^{2}', true]]);
  assert.equal(assertMathRenders(md), 3);
});

test('EPUB text: a dollar is escaped like the other characters Markdown would read', () => {
  const { markdown } = xhtmlToMarkdown('<html><body><p>A $5 fee, or $$ in TeX; <code>$x$</code> stays.</p><pre>echo $HOME $$</pre></body></html>', 'OEBPS');
  assert.match(markdown, /A \\\$5 fee, or \\\$\\\$ in TeX/);
  assert.match(markdown, /echo \$HOME \$\$/);
  assert.deepEqual(markdownMath(markdown).filter((m) => m.display), []);
});

test('escaped Markdown still serves search and citations: the snippet and every cited excerpt are verbatim in the stored text', () => {
  const b = nb();
  const lines = [
    L('The fee is $5 per page and the formula x + y gives the total. It is paid', 100, { block: b, x1: 520, math: 'The fee is \\$5 per page and the formula $x + y$ gives the total. It is paid' }),
    L('once; a second $5 is never charged for the same page.', 112, { block: b, x1: 400 }),
  ];
  const markdown = renderMarkdown(analyzeLayout({ pages: [page(1, lines)] }).blocks);
  const converted: ConvertedFile = {
    title: 'Fees', authors: [], language: 'en', markdown, sha256: 'a'.repeat(64),
    report: { pipeline: 'test', input: { format: 'pdf', pages: 1, metadata: {} }, score: { value: 90, grade: 'A' }, warnings: [] },
  };
  const rec = recognizedRecord('fees.pdf', new Uint8Array([1]), converted, 'blob', 0);
  const body = rec.fullText!;
  assert.match(body, /The fee is \\\$5 per page and the formula \$x \+ y\$ gives the total/);
  const snippet = buildSnippet(body, parseQuery('fee page charged', null, 'en'), { field: 'body', maxChars: 300 });
  assert.ok(body.includes(snippet.text), 'the snippet is a window of the stored text');
  const passage: Passage = { number: 1, documentIndex: 1, snippetIndex: 0, documentId: rec.id, title: 'Fees', field: 'body', text: snippet.text, fieldText: body, pinned: false };
  const r = anchorCitations('A fee of five dollars is charged per page [1]. A second fee is never charged for the same page [1].', [passage]);
  assert.equal(r.citations.length, 2);
  for (const c of r.citations) {
    assert.ok(body.includes(c.excerpt), `verbatim: ${c.excerpt}`);
    assert.equal(body.indexOf(c.excerpt), c.offset);
  }
  assert.match(r.citations[0]!.excerpt, /\\\$5/);
});

test('one display per equation: numbered math lines of one block are displays of their own, each with its \\tag', () => {
  const b = nb();
  const lines = [
    ...Array.from({ length: 3 }, (_, i) => L('Body text body text body text body text body text body text body text', 40 + 12 * i, { block: nb(), x1: 520 })),
    L('E = mc2 (1)', 100, { block: b, x0: 200, x1: 520, math: '$E = m c^{2}$ (1)' }),
    L('a = b + c (2)', 116, { block: b, x0: 200, x1: 520, math: '$a = b + c$ (2)' }),
    // An unnumbered pair of rows stays one display, gathered.
    L('u = v', 200, { block: (block = nb()), x0: 200, x1: 300, math: '$u = v$' }),
    L('w = z', 214, { block, x0: 200, x1: 300, math: '$w = z$' }),
    // Fragments are no displays: a lone delimiter, a run of a brace's pieces.
    L('(', 240, { block: nb(), x0: 200, x1: 210, math: '$($' }),
    L('⏞ˉˉˉˉ⏟⏟ˉˉˉˉ⏞', 248, { block: nb(), x0: 200, x1: 300, math: '$⏞ˉˉˉˉ⏟⏟ˉˉˉˉ⏞$' }),
    // A tight parenthesis at the end is the formula's: no number.
    L('g = f(5)', 260, { block: nb(), x0: 200, x1: 300, math: '$g = f(5)$' }),
  ];
  const md = renderMarkdown(analyzeLayout({ pages: [page(1, lines)] }).blocks);
  const displays = markdownMath(md).filter((m) => m.display).map((m) => m.tex);
  assert.deepEqual(displays, ['E = m c^{2} \\tag{1}', 'a = b + c \\tag{2}', '\\begin{gathered} u = v \\\\ w = z \\end{gathered}', 'g = f(5)'], md);
  // A line's number: right of it, left of it (leqno), or alone on its line (it numbers the rows before it).
  assert.deepEqual(displayParts('$E = m c^{2}$ (2.1).'), { latex: 'E = m c^{2}', tag: '2.1' });
  assert.deepEqual(displayParts('(3) $x = y$'), { latex: 'x = y', tag: '3' });
  assert.deepEqual(displayParts('$(3) \\frac{1}{1 + x} = 1 - x$'), { latex: '\\frac{1}{1 + x} = 1 - x', tag: '3' });
  assert.deepEqual(displayParts('(4)'), { latex: '', tag: '4' });
  assert.deepEqual(displayParts('$g = f(5)$'), { latex: 'g = f(5)', tag: null });
  assert.equal(displayParts('where $x$ is (4)'), null);
  assertMathRenders(md);
});

test('leqno (ADR 0367): a display numbered on the left is an equation with its tag, not a numbered list item; a list item with prose stays one', () => {
  const lines = [
    L('Body text body text body text body text body text body text body text', 40, { block: nb(), x1: 520 }),
    // MuPDF gives the left number at the start of the display's line: "(3)" then the formula.
    L('(3) x = y + 1', 100, { block: nb(), x0: 72, x1: 400, math: '(3) $x = y + 1$' }),
    L('(4) a^2 + b^2 = c^2', 120, { block: nb(), x0: 72, x1: 400, math: '$(4) a^{2} + b^{2} = c^{2}$' }),
    // An enumerated item whose text is prose with a formula in it is a list item as before.
    L('(1) Let x be a real number.', 160, { block: nb(), x0: 72, x1: 400, math: '(1) Let $x$ be a real number.' }),
  ];
  const md = renderMarkdown(analyzeLayout({ pages: [page(1, lines)] }).blocks);
  const displays = markdownMath(md).filter((m) => m.display).map((m) => m.tex);
  assert.deepEqual(displays, ['x = y + 1 \\tag{3}', 'a^{2} + b^{2} = c^{2} \\tag{4}'], md);
  // (Items keep the line's text, as before.)
  assert.match(md, /^1\. Let x be a real number\.$/m);
  assertMathRenders(md);
});
