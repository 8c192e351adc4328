// De-hyphenation, running header/footer removal and the other pure text passes, on crafted inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LayoutLine, PageExtraction } from '../../src/recognition/index.js';
import { Vocabulary, joinLines, joinParagraph } from '../../src/recognition/structure/dehyphenate.js';
import { removeRunningLines, runningKey } from '../../src/recognition/structure/running-lines.js';

test('line-end hyphens: joined when the word is attested or nothing says otherwise', () => {
  assert.equal(joinLines('the conver-', 'sion of text'), 'the conversion of text');
  const v = new Vocabulary();
  v.add('pretrained models are everywhere');
  assert.equal(joinLines('a pre-', 'trained model', v), 'a pretrained model');
});

test('line-end hyphens: kept for hyphenating prefixes, attested compounds, capitals and digits', () => {
  assert.equal(joinLines('a non-', 'governmental body'), 'a non-governmental body');
  assert.equal(joinLines('self-', 'attention layers'), 'self-attention layers');
  const v = new Vocabulary();
  v.add('a state-based design');
  assert.equal(joinLines('the state-', 'based design', v), 'the state-based design');
  assert.equal(joinLines('COVID-', '19 cases'), 'COVID-19 cases');
  assert.equal(joinLines('Pre-', 'Digital Era'), 'Pre-Digital Era');
});

test('line-end hyphens after a prefix: joined when the document never uses the rest as a word', () => {
  const v = new Vocabulary();
  v.add('the attention of a governmental body; used in some poster elements');
  assert.equal(joinLines('a non-', 'governmental body', v), 'a non-governmental body');
  assert.equal(joinLines('self-', 'attention layers', v), 'self-attention layers');
  // "nally" and "formation" are no words of the document: broken words, not compounds.
  assert.equal(joinLines('It is inter-', 'nally used', v), 'It is internally used');
  assert.equal(joinLines('the in-', 'formation given', v), 'the information given');
});

test('soft hyphens join, dashes and CJK keep their spacing rules', () => {
  assert.equal(joinLines('hyphen\u00ad', 'ation'), 'hyphenation');
  assert.equal(joinLines('one idea —', 'another'), 'one idea — another');
  assert.equal(joinLines('日本語の', '文章です'), '日本語の文章です');
  assert.equal(joinParagraph(['first line', 'second line', 'third']), 'first line second line third');
});

const line = (text: string, y: number, extra: Partial<LayoutLine> = {}): LayoutLine => ({
  text, x0: 72, y0: y, x1: 500, y1: y + 10, size: 10, bold: false, italic: false, mono: false, block: 0, ...extra,
});
const page = (n: number, lines: LayoutLine[]): PageExtraction => ({ page: n, kind: 'text-layer', width: 612, height: 792, lines, images: [], notes: [], ms: 0 });

test('running headers, footers and page numbers are removed; body lines in the margin stay', () => {
  const pages = [1, 2, 3, 4].map((n) =>
    page(n, [
      line(n % 2 ? 'Journal of Tests, vol. 3' : 'A. Author et al.', 30),
      line(`Body text of page ${n} that is unique to it.`, 300),
      line(`${n}`, 760),
      ...(n === 2 ? [line('A footnote-like line that appears once at the bottom.', 745)] : []),
    ]),
  );
  const { pages: out, removed } = removeRunningLines(pages);
  assert.equal(removed, 8);
  for (const p of out) assert.ok(p.lines.some((l) => l.text.startsWith('Body text')));
  assert.ok(out[1]!.lines.some((l) => l.text.startsWith('A footnote-like')));
  assert.equal(runningKey('Page 12 of 40'), 'page # of #');
});

test('page furniture goes by pattern on a single page: stamps, Page n of m, URLs, dates, revisions', () => {
  const lines = [
    line('Downloaded from https://example.org on 3 May 2024', 20),
    line('Rev. 2.1 - internal', 34),
    line('Notice to residents about the water supply', 110),
    line('Page 1 of 1', 760),
    line('https://example.org/notices/2024/17', 772),
    line('12 March 2024', 782),
  ];
  const { pages, removed } = removeRunningLines([page(1, lines)]);
  assert.equal(removed, 5);
  assert.deepEqual(pages[0]!.lines.map((l) => l.text), ['Notice to residents about the water supply']);
  // Journal running titles and copyright lines go when set smaller than the body.
  const journal = removeRunningLines([page(1, [{ ...line('Journal of Synthetic Examples, Vol. 7, No. 2, pp. 12-30', 20), size: 8 }, line('Body line one', 300), line('Body line two', 312), { ...line('© 2024 The Authors. All rights reserved.', 775), size: 8 }, line('Volume 3 of the survey is at body size', 30)])]);
  assert.deepEqual(journal.pages[0]!.lines.map((l) => l.text), ['Body line one', 'Body line two', 'Volume 3 of the survey is at body size']);
  // The same patterns in the body, or set larger than the body (a title), stay.
  const body = removeRunningLines([page(1, [line('Version 2 of the protocol adds checks', 400), line('Downloaded files are cached', 300), { ...line('Draft Guidelines', 30), size: 20 }, line('x', 300), line('y', 310)])]);
  assert.equal(body.removed, 0);
});

test('a single page keeps its margin text but loses a bare page number', () => {
  const { pages, removed } = removeRunningLines([page(1, [line('Top line of a one-page memo', 20), line('- 3 -', 770)])]);
  assert.equal(removed, 1);
  assert.equal(pages[0]!.lines.length, 1);
});

test('a top line above a page title goes on the first page or when it recurs; a one-off line on a later page stays', () => {
  // Each page: a body of lines at 10 pt; page 1 and page 3 open with a 20 pt title under a short top line.
  const bodyLines = (n: number) => [200, 212, 224, 236, 248, 260].map((y, i) => line(`Body line ${i} of page ${n} reads on`, y));
  const title = (text: string) => ({ ...line(text, 62), size: 20, y1: 82 });
  const pages = [
    page(1, [line('Proceedings of the Synthetic Society', 40), title('On Reading Rooms'), ...bodyLines(1)]),
    page(2, bodyLines(2)),
    // A word processor's link line under a logo, spilled onto the contents page: once in the document.
    page(3, [line('Synthetic National Institute for Examples', 40), title('Table of contents'), ...bodyLines(3)]),
    page(4, bodyLines(4)),
    page(5, bodyLines(5)),
  ];
  const texts = (ps: readonly PageExtraction[], i: number) => ps[i]!.lines.map((l) => l.text);
  const { pages: out } = removeRunningLines(pages);
  assert.ok(!texts(out, 0).includes('Proceedings of the Synthetic Society'));
  assert.ok(texts(out, 2).includes('Synthetic National Institute for Examples'));
  // The same line recurring at the top of another page is a running head there too.
  const again = removeRunningLines([...pages.slice(0, 4), page(5, [line('Synthetic National Institute for Examples', 40), ...bodyLines(5)])]);
  assert.ok(!texts(again.pages, 2).includes('Synthetic National Institute for Examples'));
});
