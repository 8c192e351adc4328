// The speed work of ADR 0357 changed how some passes compute, not what they give: each test here pins an
// answer the faster code must give exactly as the code before it did (letters and digits counted by code
// point, math fonts by a memo of the pattern, program punctuation by code unit, stacks found from the runs
// near each rule, workspace files unlinked).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LayoutLine, PageExtraction } from '../../src/recognition/layout-model.js';
import { textLayerMisses } from '../../src/recognition/report/build-report.js';
import { MATH_FONT_RE, isMathFont } from '../../src/recognition/structure/math-latex.js';
import { looksLikeCode } from '../../src/recognition/structure/layout-analysis.js';
import { hasStackCandidate, rebuildStacks, type StackPage } from '../../src/recognition/pdf/math-stacks.js';
import { LocalProcessRunner } from '../../src/adapters/process/local-process-runner.js';

const line = (text: string, y: number, extra: Partial<LayoutLine> = {}): LayoutLine => ({
  text, x0: 72, y0: y, x1: 72 + text.length * 5, y1: y + 12, size: 10, bold: false, italic: false, mono: false, block: y, ...extra,
});
const page = (lines: LayoutLine[]): PageExtraction => ({ page: 1, kind: 'text-layer', width: 612, height: 792, lines, images: [], notes: [], ms: 0 });
/** The count the report made before ADR 0357: every match of the Unicode pattern. */
const reference = (s: string): number => (s.match(/[\p{L}\p{N}]/gu) ?? []).length;

test('dropped text counts letters and digits by code point: ASCII, accents, Greek, CJK, astral math letters, marks and lone surrogates as the pattern does', () => {
  const texts = [
    'Plain ASCII words, digits 0123456789 and punctuation: @[`{~',
    'Accented café naïve Ærø, Greek αβγ ΔΣΩ, Cyrillic жизнь, digits ٣٤٥ and ½ ² ⅷ',
    'CJK 漢字かなカナ한국어, math italic 𝑥𝑦𝑧 and bold 𝐀𝐁, emoji 😀 (no letter)',
    'combining marks e\u0301 a\u0308, a lone high \ud835 and low \udc65 surrogate, ZWJ \u200d',
  ];
  const source = texts.map((t, i) => line(t, 100 + 20 * i));
  const total = texts.reduce((n, t) => n + reference(t), 0);
  for (const markdown of [texts.join('\n\n'), texts.slice(0, 2).join('\n\n'), texts[2]!, 'x']) {
    const want = Math.round(Math.max(0, 1 - reference(markdown) / total) * 1e4) / 1e4;
    assert.equal(textLayerMisses([page(source)], markdown).droppedTextRatio, want, markdown.slice(0, 30));
  }
});

test('math fonts: the memo answers as the pattern, asked once or many times', () => {
  const names = ['XNFFAH+CMMI10', 'AJNSNE+CMR10', 'FKFMOI+CMSY10', 'Cambria Math', 'STIXTwoMath-Regular', 'SymbolMT', 'ABCDEF+Symbol', 'Times-Roman', 'LMMathItalic10-Regular', '', 'txmia', 'Helvetica-Bold'];
  for (let round = 0; round < 3; round++) for (const n of names) assert.equal(isMathFont(n), MATH_FONT_RE.test(n), n);
});

test('code blocks: program punctuation is counted by character as the pattern did (over 4% of the visible characters makes code)', () => {
  const mono = (t: string, y: number): LayoutLine => line(t, y, { mono: true });
  // 2 symbols in 50 visible characters (4%): code; 1 in 50 with prose lines: not code.
  const text = 'abcdefghij klmnopqrst uvwxyzabcd efghijklmn opqrstuv';
  assert.equal(looksLikeCode([mono(`${text.slice(0, -2)}{}`, 100)]), true);
  assert.equal(looksLikeCode([mono('This is a sentence of prose set in a typewriter face, which ends.', 100), mono('Another sentence of prose in the typewriter face that ends here.', 112)]), false);
  // Every character of the class counts, and only those.
  assert.equal(looksLikeCode([mono('{}()[];=<>+*\\|&#$@`"\'^~!', 100)]), true);
  assert.equal(looksLikeCode([mono('This is a sentence of prose set in a typewriter face, % - _ / : ends.', 100), mono('Another sentence of prose in the typewriter face that ends here, ok.', 112)]), false);
});

test('stacks are found from the runs near each rule: a large title elsewhere on the page and many unrelated rules change nothing', () => {
  const CMMI = { name: 'XNFFAH+CMMI10', size: 9 };
  const CMR = { name: 'AJNSNE+CMR10', size: 9 };
  const run = (x: number, y: number, w: number, h: number, text: string, font: { name: string; size: number }, base: number) => ({ bbox: { x, y, w, h }, font, x, y: base, text });
  const fraction = (extra: StackPage['blocks'] = []): StackPage => ({
    blocks: [
      ...extra,
      { type: 'text', bbox: { x: 284, y: 145, w: 41, h: 16 }, lines: [run(284, 151, 5, 9, 'x', CMMI, 159), run(289, 151, 10, 9, ' =', CMR, 159), run(300, 145, 9, 16, ' a', CMMI, 159), run(309, 145, 9, 9, ' +', CMR, 152), run(319, 145, 6, 9, ' b', CMMI, 152)] },
      { type: 'text', bbox: { x: 312, y: 158, w: 4, h: 9 }, lines: [run(312, 158, 4, 9, 'c', CMMI, 166)] },
    ],
  });
  const rule = { x0: 304.253, x1: 325.971, y: 156.891 };
  const plain = rebuildStacks(fraction(), [rule], isMathFont);
  assert.equal(plain.rebuilt, 1);
  // A 30 pt title far above, a run without a box height, and rules under every line of a long list below.
  const title = { type: 'text', bbox: { x: 100, y: 40, w: 300, h: 36 }, lines: [run(100, 40, 300, 36, 'A Title', { name: 'CMR17', size: 30 }, 70)] };
  const odd = { type: 'text', bbox: { x: 100, y: 600, w: 10, h: Number.NaN }, lines: [run(100, 600, 10, Number.NaN, 'z', CMMI, 605)] };
  const list = Array.from({ length: 40 }, (_, i) => ({ type: 'text', bbox: { x: 72, y: 300 + 10 * i, w: 200, h: 9 }, lines: [run(72, 300 + 10 * i, 200, 9, `item ${i} of a list`, CMR, 308 + 10 * i)] }));
  const rules = [rule, ...Array.from({ length: 40 }, (_, i) => ({ x0: 72, x1: 272, y: 309.5 + 10 * i }))];
  const busy = rebuildStacks(fraction([title, odd, ...list]), rules, isMathFont);
  assert.equal(busy.rebuilt, 1);
  const latex = (p: StackPage): string[] => (p.blocks ?? []).flatMap((b) => (b.lines ?? []).flatMap((l) => (l.latex ? [l.latex] : [])));
  assert.deepEqual(latex(busy.page), latex(plain.page));
  assert.deepEqual(latex(plain.page), ['\\frac{a + b}{c}']);
});

test('stack candidates: two math runs one above the other are found among runs in any order, a larger title and runs without a height', () => {
  const CMMI = { name: 'XNFFAH+CMMI10', size: 9 };
  const run = (x: number, y: number, h: number, text: string, size = 9) => ({ bbox: { x, y, w: 8, h }, font: { ...CMMI, size }, x, y: y + h, text });
  const block = (...lines: ReturnType<typeof run>[]) => ({ type: 'text', bbox: { x: 0, y: 0, w: 600, h: 800 }, lines });
  // A numerator at y 100 and its denominator 12 points lower, listed last after unrelated runs further down.
  const far = Array.from({ length: 30 }, (_, i) => run(50 + 15 * i, 400 + 40 * (i % 7), 9, 'x'));
  const pair = [run(300, 100, 9, 'a'), run(300, 112, 9, 'b')];
  assert.equal(hasStackCandidate({ blocks: [block(...far), block(pair[1]!), block(pair[0]!)] }, isMathFont), true);
  // The same two 3 ems apart (beyond 2.5) are no stack, whatever else the page holds: a 30 pt run far away
  // widens the search, runs without a height are left out.
  const apart = [run(300, 100, 9, 'a'), run(300, 127, 9, 'b')];
  const title = run(100, 700, 30, 'T', 30);
  const odd = run(300, 105, Number.NaN, 'z');
  assert.equal(hasStackCandidate({ blocks: [block(...far), block(apart[1]!), block(apart[0]!), block(title), block(odd)] }, isMathFont), false);
  // The unrelated runs alone: neighbours 15 points apart sideways are 40 points apart in height.
  assert.equal(hasStackCandidate({ blocks: [block(...far)] }, isMathFont), false);
});

test('workspace: a removed file is gone, removing a missing one is no error', async () => {
  const ws = await new LocalProcessRunner().createWorkspace();
  try {
    await ws.writeFile('a.json', new TextEncoder().encode('{}'));
    assert.deepEqual(await ws.list(), ['a.json']);
    await ws.remove('a.json');
    assert.deepEqual(await ws.list(), []);
    await ws.remove('a.json');
    await ws.remove('never-there.xml');
  } finally {
    await ws.dispose();
  }
});
