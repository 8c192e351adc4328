// Parsers of tool outputs: mutool stext JSON, pages, info and outline; tesseract TSV and OSD; djvused
// S-expressions and djvudump; PGM rotation; render resolution.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStextJson, visualToLogical } from '../../src/recognition/pdf/stext-parser.js';
import { parseOutline, parsePagesXml, parseShowOutput } from '../../src/recognition/pdf/pdf-info.js';
import { parseOsd, parseTesseractTsv } from '../../src/recognition/ocr/tesseract-tsv.js';
import { djvuTextLines, parseDjvudump, parseSExprs } from '../../src/recognition/djvu/djvu-text.js';
import { encodePgm, parsePgm, rotateGray } from '../../src/recognition/ocr/pgm.js';
import { chooseDpi, nativeImagePpi } from '../../src/recognition/pdf/render-resolution.js';

const run = (x: number, y: number, w: number, text: string, size = 10, weight = 'normal') => ({
  bbox: { x, y, w, h: size * 1.2 }, font: { name: 'Times', family: 'serif', weight, style: 'normal', size }, x, y: y + size, text,
});

test('stext: font runs on one baseline join into a line; wide gaps split cells; images kept', () => {
  const json = JSON.stringify([
    {
      blocks: [
        { type: 'text', bbox: { x: 72, y: 100, w: 400, h: 30 }, lines: [run(72, 100, 40, 'Hello'), run(113, 100, 30, ' world', 10, 'bold'), run(72, 114, 60, 'next line')] },
        { type: 'text', bbox: { x: 72, y: 200, w: 400, h: 12 }, lines: [run(72, 200, 30, 'cell A'), run(300, 200, 30, 'cell B')] },
        { type: 'image', bbox: { x: 72, y: 300, w: 200, h: 100 } },
      ],
    },
  ]);
  const [p] = parseStextJson(json);
  assert.deepEqual(p!.lines.map((l) => l.text), ['Hello world', 'next line', 'cell A', 'cell B']);
  assert.equal(p!.lines[0]!.bold, false); // 5 bold of 10 characters is not a bold line
  assert.deepEqual(p!.images, [{ x0: 72, y0: 300, x1: 272, y1: 400 }]);
});

test('stext: word spaces follow the row\'s own gaps, so glyph-positioned words are not broken apart', () => {
  // "Business plan": fragments 0.15 em apart inside words, 0.35 em between them (a per-glyph positioned font).
  const frag = (parts: [number, string][]) => parts.map(([x, t]) => run(x, 100, t.length * 5, t));
  const json = JSON.stringify([
    { blocks: [{ type: 'text', bbox: { x: 72, y: 100, w: 400, h: 12 }, lines: frag([[72, 'Bus'], [88.5, 'i'], [95, 'ne'], [106.5, 's'], [113, 's'], [121.5, 'plan']]) }] },
    // Whole words with tight (0.18 em) justified spaces keep their spaces.
    { blocks: [{ type: 'text', bbox: { x: 72, y: 100, w: 400, h: 12 }, lines: frag([[72, 'Tight'], [98.8, 'caption'], [135.6, 'words']]) }] },
    // A kerned join (0.02 em) stays joined next to a real space.
    { blocks: [{ type: 'text', bbox: { x: 72, y: 100, w: 400, h: 12 }, lines: frag([[72, 'Wor'], [87.2, 'ds'], [100, 'here']]) }] },
  ]);
  const texts = parseStextJson(json).map((p) => p.lines.map((l) => l.text));
  assert.deepEqual(texts, [['Business plan'], ['Tight caption words'], ['Words here']]);
});

test('stext: a heading or list number set apart by a tab stays on its title\'s line (ADR 0363)', () => {
  // LibreOffice sets "2.3.6<tab>Case sensitivity" 2.4 ems apart at 14 pt, and "I.<tab>Overview" likewise:
  // more than the 1.5 ems that cut a row into cells. The joined line keeps both parts as segments.
  const json = JSON.stringify([
    {
      blocks: [
        { type: 'text', bbox: { x: 72, y: 100, w: 400, h: 17 }, lines: [run(72, 100, 30, '2.3.6', 14, 'bold'), run(136, 100, 110, 'Case sensitivity', 14, 'bold')] },
        { type: 'text', bbox: { x: 72, y: 130, w: 400, h: 17 }, lines: [run(72, 130, 10, 'I.', 14, 'bold'), run(108, 130, 60, 'Overview', 14, 'bold')] },
        // Cells stay apart: a number before a number, a number before text a column away, a label in
        // another type than the text beside it.
        { type: 'text', bbox: { x: 72, y: 160, w: 400, h: 12 }, lines: [run(72, 160, 10, '12'), run(120, 160, 20, '4.5')] },
        { type: 'text', bbox: { x: 72, y: 180, w: 400, h: 12 }, lines: [run(72, 180, 10, '3.'), run(300, 180, 40, 'Apples')] },
        { type: 'text', bbox: { x: 72, y: 200, w: 400, h: 12 }, lines: [run(72, 200, 10, '3.', 10, 'bold'), run(110, 200, 40, 'Apples')] },
      ],
    },
  ]);
  const [p] = parseStextJson(json);
  assert.deepEqual(p!.lines.map((l) => l.text), ['2.3.6 Case sensitivity', 'I. Overview', '12', '4.5', '3.', 'Apples', '3.', 'Apples']);
  assert.deepEqual(p!.lines[0]!.segments?.map((s) => s.text), ['2.3.6', 'Case sensitivity']);
});

test('stext: a small line number before its line, more than a word space apart, is a line of its own; a footnote mark is not (ADR 0364)', () => {
  // reledmac numbers every fifth line: "5" at 8 pt on the text's baseline, 12 pt left of the 12 pt text, in the line's block.
  const json = JSON.stringify([
    {
      blocks: [
        { type: 'text', bbox: { x: 118, y: 388, w: 360, h: 14 }, lines: [run(118.8, 392, 3, '5', 8), run(133.8, 388, 340, 'fringilla leo ante in turpis. Vivamus ut tellus', 12)] },
        { type: 'text', bbox: { x: 72, y: 700, w: 300, h: 10 }, lines: [run(72, 700, 3, '1', 6), run(76, 700, 200, 'A footnote set after its mark.', 8)] },
        // ABNT's footnote: the mark raised 3.6 pt, an em before its text.
        { type: 'text', bbox: { x: 57, y: 755, w: 450, h: 14 }, lines: [run(57, 755.9, 4, '1', 7), run(71.1, 756.5, 400, 'O Perl é uma linguagem de programação', 10)] },
      ],
    },
  ]);
  const [p] = parseStextJson(json);
  assert.deepEqual(p!.lines.map((l) => l.text), ['5', 'fringilla leo ante in turpis. Vivamus ut tellus', '1 A footnote set after its mark.', '1 O Perl é uma linguagem de programação']);
});

test('right-to-left runs come back in logical order with embedded Latin kept', () => {
  // Visual order as MuPDF emits it: reversed Arabic with "R" unreversed.
  assert.equal(visualToLogical('ةغلب'), 'بلغة');
  assert.equal(visualToLogical('R 2023 ماع'), 'عام 2023 R');
});

test('mutool pages, info and outline', () => {
  const pages = parsePagesXml('<page pagenum="0">\nFailed to gather information for page 0\n</page>\n<page pagenum="1">\n<MediaBox l="0" b="0" r="595" t="842" />\n<Rotate v="90" />\n</page>');
  assert.deepEqual(pages, [{ page: 1, width: 842, height: 595, rotate: 90 }]);
  const info = parseShowOutput('3 0 obj\n<<\n  /Title <FEFF00480069>\n  /Author (Ada \\(A.\\) Lovelace)\n  /Producer (pdf\\351TeX)\n>>\nendobj\n<<\n  /Filter /Standard\n  /R 3\n>>\n12\n|\t"Intro"\t#page=2\n');
  assert.equal(info.pageCount, 12);
  assert.equal(info.encrypted, true);
  assert.deepEqual(info.metadata, { Title: 'Hi', Author: 'Ada (A.) Lovelace', Producer: 'pdféTeX' });
  assert.deepEqual(info.outline, [{ depth: 1, title: 'Intro', page: 2 }]);
  const none = parseShowOutput('null\nnull\n0\n');
  assert.deepEqual([none.pageCount, none.encrypted, none.metadata, none.outline], [0, false, {}, []]);
  const outline = parseOutline('|\t"Abstract"\t#page=1&zoom=nan,53,198\n|\t"1 Introduction"\t#page=1\n||\t"1.1 Scope"\t#page=2\n');
  assert.deepEqual(outline, [
    { depth: 1, title: 'Abstract', page: 1 },
    { depth: 1, title: '1 Introduction', page: 1 },
    { depth: 2, title: '1.1 Scope', page: 2 },
  ]);
  // What mutool 1.21 really prints for a nested outline: one marker, then one tab per depth level.
  const nested = parseOutline('-\t"Intro \\"quoted\\""\t#page=1&zoom=100,0,0\n|\t\t"Sub é 日本"\t#page=2&view=Fit\n+\t\t"Line\\nbreak"\t#page=2\n|\t\t\t"Deep"\t#page=1\n|\t"Second"\thttps://example.org/\n');
  assert.deepEqual(nested, [
    { depth: 1, title: 'Intro "quoted"', page: 1 },
    { depth: 2, title: 'Sub é 日本', page: 2 },
    { depth: 2, title: 'Line break', page: 2 },
    { depth: 3, title: 'Deep', page: 1 },
    { depth: 1, title: 'Second', page: null },
  ]);
});

test('tesseract TSV becomes lines in points with confidences; OSD gives the rotation', () => {
  const tsv = [
    'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext',
    '1\t1\t0\t0\t0\t0\t0\t0\t3000\t3000\t-1\t',
    '5\t1\t1\t1\t1\t1\t300\t300\t200\t42\t96.5\tHello',
    '5\t1\t1\t1\t1\t2\t520\t300\t250\t42\t90.1\tworld',
    '5\t1\t1\t1\t2\t1\t300\t360\t100\t42\t40\tagain',
  ].join('\n');
  const r = parseTesseractTsv(tsv, 72 / 300);
  assert.deepEqual(r.lines.map((l) => l.text), ['Hello world', 'again']);
  assert.equal(r.lines[0]!.x0, 72);
  assert.deepEqual(r.wordConfidences, [97, 90, 40]);
  assert.deepEqual(parseOsd('Page number: 0\nOrientation in degrees: 270\nRotate: 90\nOrientation confidence: 2.57\n'), { rotate: 90, confidence: 2.57 });
});

test('djvused hidden text and djvudump', () => {
  const [page] = parseSExprs('(page 0 0 1000 2000 (line 100 1800 600 1830 (word 100 1800 200 1830 "Caf\\303\\251") (word 220 1800 600 1830 "cr\\303\\250me")))');
  const lines = djvuTextLines(page!, 2000, 200);
  assert.equal(lines[0]!.text, 'Café crème');
  assert.equal(Math.round(lines[0]!.y0), Math.round(((2000 - 1830) * 72) / 200));
  const dump = parseDjvudump('  FORM:DJVM [1]\n    DIRM [96]\n    FORM:DJVU [8228] {p0001.djvu} [P1]\n      INFO [10]         DjVu 1653x2339, v24, 200 dpi, gamma=2.2\n      TXTz [2538]\n    FORM:DJVU [1] {p0002.djvu} [P2]\n      INFO [10]         DjVu 2480x3508, v24, 300 dpi, gamma=2.2\n');
  assert.deepEqual(dump, [
    { width: 1653, height: 2339, dpi: 200, hasText: true },
    { width: 2480, height: 3508, dpi: 300, hasText: false },
  ]);
});

test('PGM rotation by quarter turns', () => {
  const img = parsePgm(encodePgm({ width: 3, height: 2, data: new Uint8Array([1, 2, 3, 4, 5, 6]) }))!;
  assert.deepEqual([...rotateGray(img, 90).data], [4, 1, 5, 2, 6, 3]);
  assert.deepEqual([...rotateGray(img, 180).data], [6, 5, 4, 3, 2, 1]);
  assert.deepEqual([...rotateGray(img, 270).data], [3, 6, 2, 5, 1, 4]);
  assert.equal(rotateGray(img, 90).width, 2);
});

test('render resolution: native scan resolution, capped by dpi and pixel limits', () => {
  const trace = '<fill_image alpha="1" transform="0 -595.2 841.9 0 0 595.2" width="4960" height="7016"/>';
  assert.equal(Math.round(nativeImagePpi(trace)!), 600);
  assert.deepEqual(chooseDpi(600, 595, 842, 300, 40e6), { dpi: 300, tooLarge: false });
  assert.deepEqual(chooseDpi(72, 595, 842, 300, 40e6), { dpi: 72, tooLarge: false });
  assert.deepEqual(chooseDpi(null, 595, 842, 300, 40e6), { dpi: 300, tooLarge: false });
  assert.equal(chooseDpi(300, 14400, 14400, 300, 40e6).tooLarge, true);
});

test('text layer verdicts: usable, image-only, garbled, empty', async () => {
  const { judgeTextLayer } = await import('../../src/recognition/pdf/text-layer-quality.js');
  const line = (text: string) => ({ text, x0: 72, y0: 72, x1: 500, y1: 84, size: 10, bold: false, italic: false, mono: false, block: 0 });
  const scan = [{ x0: 0, y0: 0, x1: 612, y1: 792 }];
  assert.equal(judgeTextLayer([line('An ordinary sentence with enough letters to count as text.')], [], 612, 792), 'usable');
  assert.equal(judgeTextLayer([], scan, 612, 792), 'image-only');
  assert.equal(judgeTextLayer([line('12')], scan, 612, 792), 'image-only');
  const pua = Array.from({ length: 60 }, (_, i) => String.fromCharCode(0xe001 + i) + (i % 6 === 5 ? ' ' : '')).join('');
  assert.equal(judgeTextLayer([line(pua)], [], 612, 792), 'garbled');
  assert.equal(judgeTextLayer([line('#$%& *+,-./ :;<=>? @[\\]^_ `{|}~ !"#$%& *+,-./ :;<=>? @[\\]^_')], [], 612, 792), 'garbled');
  assert.equal(judgeTextLayer([], [], 612, 792), 'empty');
  // A table of contents is mostly dot leaders: punctuation by design, not a broken font mapping.
  const toc = ['Table of Contents', '1 Introduction . . . . . . . . . . . . . . . . . . . . . . . . . . . 1', '2.1 ASN.1 syntax. . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . 2', '2.2 Naming . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . 3'];
  assert.equal(judgeTextLayer(toc.map(line), [], 612, 792), 'usable');
  // A CJK template's contents: leaders set as the dot operator U+22C5 (shtthesis-user-guide.pdf, ADR 0346).
  const dots = (n: number) => Array.from({ length: n }, () => '\u22c5').join(' ');
  const cjk = ['目 录', `第 1 章 模板介绍 ${dots(60)} 1`, `第 2 章 模板使用 ${dots(60)} 3`, `2.1 上海科技大学校徽${dots(50)} 16`];
  assert.equal(judgeTextLayer(cjk.map(line), [], 612, 792), 'usable');
});

test('a glyph chart (font table) is a usable text layer, a broken one with the same glyphs is not (ADR 0346)', async () => {
  const { judgeTextLayer, isGlyphChart } = await import('../../src/recognition/pdf/text-layer-quality.js');
  const line = (text: string) => ({ text, x0: 72, y0: 72, x1: 500, y1: 84, size: 10, bold: false, italic: false, mono: false, block: 0 });
  const hex = '0 1 2 3 4 5 6 7 8 9 A B C D E F';
  // A math font's chart as pxfontsdoc.pdf prints it: a title, hex column heads, rows labelled at both ends,
  // most glyphs without a Unicode mapping (U+FFFD), a few symbols.
  const cells = (row: number) => Array.from({ length: 16 }, (_, i) => ((row * 16 + i) % 11 === 0 ? '\u2225' : '\ufffd')).join(' ');
  const rows = Array.from({ length: 8 }, (_, r) => `${r} ${cells(r)} ${r}`);
  const chart = ['Math Symbols C \u2013 pxsyc', hex, ...rows, hex];
  assert.equal(isGlyphChart(chart.join(' ')), true);
  assert.equal(judgeTextLayer(chart.map(line), [], 612, 792), 'usable');
  // A text companion chart: valid symbols, few letters.
  const symbols = '` \u00b4 \u02c6 \u02dc \u00a8 \u02dd \u02da \u02c7 \u02d8 \u00af \u02d9 \u00b8 \u02db \u201a \u2190 \u2192 $ \' * , . \u2044 \u27e8 \u2212 \u27e9 \u2126 \u2191 \u2193 \u266a \u2020 \u2021 \u2225 \u2030 \u2022 \u00a2 \u0192 \u20a1 \u20a9 \u00b1 \u00b2 \u00b3 \u00b5 \u00b6 \u00b7 \u00b9 \u221a \u00bc \u00bd \u00be \u20ac \u00d7 \u00f7 \u00a3 \u00a5 \u00a6 \u00a7 \u00a9 \u00ae \u00b0 \u00ac';
  assert.equal(judgeTextLayer(['Text Companion Roman Upright \u2013 pcxr', hex, symbols, hex].map(line), [], 612, 792), 'usable');
  // The same glyphs without the chart's column heads: a broken layer, as before.
  assert.equal(judgeTextLayer(rows.map((r) => r.replace(/^\d+ | \d+$/g, '')).map(line), [], 612, 792), 'garbled');
  // Words of replacement characters (a font without a mapping set as prose) stay garbled even beside a digit run.
  const prose = Array.from({ length: 40 }, (_, i) => '\ufffd'.repeat(2 + (i % 7))).join(' ');
  assert.equal(judgeTextLayer([line(hex), line(prose), line(prose)], [], 612, 792), 'garbled');
  // Letter-spaced symbols without a header (a broken mapping of spaced-out text) stay garbled.
  const spaced = Array.from({ length: 80 }, (_, i) => '#$%&*+<=>?@^~'[i % 13]).join(' ');
  assert.equal(judgeTextLayer([line(spaced)], [], 612, 792), 'garbled');
});

test('right-to-left XML text: word spaces from the glyph advances, Arabic-Indic numbers kept left to right (ADR 0239)', async () => {
  const { parseStextXml } = await import('../../src/recognition/pdf/stext-xml.js');
  // Visual order left to right: "يوم" (drawn as م و ي) at 100..124, a 4 pt gap (0.4 em), then "٢٩" drawn as ٢ ٩
  // at 128..140; no space character between them, as MuPDF writes XeTeX's glue.
  const ch = (x0: number, x1: number, c: string) => `<char quad="${x0} 90 ${x1} 90 ${x0} 100 ${x1} 100" x="${x0}" y="98" color="#000000" c="${c}"/>`;
  const xml = `<page><block bbox="100 90 140 100"><line bbox="100 90 140 100" wmode="0" dir="1 0"><font name="Amiri" size="10">${ch(100, 108, 'م')}${ch(108, 116, 'و')}${ch(116, 124, 'ي')}${ch(128, 134, '٢')}${ch(134, 140, '٩')}</font></line></block></page>`;
  const [page] = parseStextXml(xml);
  const text = ((page!.blocks[0] as { lines: { text: string }[] }).lines[0]!).text;
  assert.equal(text, 'موي ٢٩');
  // Logical order: the word reads right to left, the number keeps its digits' order.
  assert.equal(visualToLogical(text), '٢٩ يوم');
  assert.equal(visualToLogical('٢٩ نيرشت'), 'تشرين ٢٩');
  // Glyphs that touch stay one word.
  const tight = `<page><block bbox="0 0 30 10"><line bbox="0 0 30 10" wmode="0" dir="1 0"><font name="Amiri" size="10">${ch(0, 8, 'م')}${ch(8.5, 16, 'و')}${ch(16.5, 24, 'ي')}</font></line></block></page>`;
  assert.equal(((parseStextXml(tight)[0]!.blocks[0] as { lines: { text: string }[] }).lines[0]!).text, 'موي');
});

test('stext: a shadow or overprint (the same text drawn again within 0.15 em) is read once (ADR 0369)', () => {
  // NRPE's headings: "1. I" at 15 pt and the small capitals "NTRODUCTION" at 10 pt, each drawn twice one
  // point apart (a shadow). Read twice they made "I1. INTRODUCTIONNTRODUCTION".
  const json = JSON.stringify([
    {
      blocks: [
        { type: 'text', bbox: { x: 36, y: 102, w: 120, h: 18 }, lines: [run(36, 102, 27, '1. I', 15, 'bold'), run(36, 101, 27, '1. I', 15, 'bold'), run(64, 107, 83, 'NTRODUCTION', 10, 'bold'), run(63, 106, 83, 'NTRODUCTION', 10, 'bold')] },
        // The same word twice on a line, apart, is two words; and a word repeated on the next line stays.
        { type: 'text', bbox: { x: 72, y: 200, w: 400, h: 30 }, lines: [run(72, 200, 30, 'very'), run(105, 200, 30, 'very'), run(72, 214, 30, 'very')] },
      ],
    },
  ]);
  const [p] = parseStextJson(json);
  assert.deepEqual(p!.lines.map((l) => l.text), ['1. INTRODUCTION', 'very very', 'very']);
});

test('stext: a line\'s lead is its first words set in bold, italic or small capitals before roman text; CM bold extended faces are bold (ADR 0383)', () => {
  const f = (x: number, y: number, w: number, text: string, name: string) => ({ bbox: { x, y, w, h: 12 }, font: { name, family: 'serif', weight: 'normal', style: 'normal', size: 10 }, x, y: y + 10, text });
  const json = JSON.stringify([
    {
      blocks: [
        { type: 'text', bbox: { x: 72, y: 100, w: 400, h: 12 }, lines: [f(72, 100, 12, '1.1', 'TeXGyreTermesX-Bold'), f(88, 100, 120, 'Essential Commands.', 'TeXGyreTermesX-Bold'), f(210, 100, 100, ' To begin, fill', 'TeXGyreTermesX-Regular')] },
        { type: 'text', bbox: { x: 72, y: 130, w: 400, h: 12 }, lines: [f(72, 130, 14, '9.2.', 'CMR10'), f(88, 130, 80, ' Over and under', 'CMTI10'), f(168, 130, 100, '. Some extra', 'CMR10')] },
        { type: 'text', bbox: { x: 72, y: 160, w: 400, h: 12 }, lines: [f(72, 160, 80, 'Notation', 'CMCSC10'), f(160, 160, 100, ' is set here', 'CMR10')] },
        { type: 'text', bbox: { x: 72, y: 190, w: 400, h: 12 }, lines: [f(72, 190, 100, 'plain roman ', 'CMR10'), f(172, 190, 60, 'bold', 'CMBX10')] },
        { type: 'text', bbox: { x: 72, y: 220, w: 400, h: 12 }, lines: [f(72, 220, 100, 'INTRODUCTION', 'CMSSBX10')] },
      ],
    },
  ]);
  const [p] = parseStextJson(json);
  assert.deepEqual(p!.lines.map((l) => l.lead ?? null), ['1.1 Essential Commands.', '9.2. Over and under', 'Notation', null, null]);
  assert.equal(p!.lines[4]!.bold, true);
});
