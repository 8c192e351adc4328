// The quality score's layout and text signals (ADR 0095): rows read sideways, page furniture kept by
// position, paragraphs cut mid-sentence, digits counted as text, and the factors they drive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LayoutLine, PageExtraction } from '../../src/recognition/index.js';
import { keptMarginLines, rowSwitchShare } from '../../src/recognition/structure/layout-risk.js';
import { brokenEquationRatio, brokenParagraphRatio, mergedCellRatio, textStatistics, tokenShape } from '../../src/recognition/report/text-statistics.js';
import { SCORE_WEIGHTS, scoreReport, type ScoreWeights } from '../../src/recognition/report/score.js';
import { textLayerMisses } from '../../src/recognition/report/build-report.js';
import { emptyCellRatio, fragmentBlockRatio, headingParagraphRatio, letterRunRate, longTokenRatio, looseRowRatio, markdownFaults, numberedLineRatio, proseCellRatio, proseHeadingRatio } from '../../src/recognition/report/markdown-faults.js';

const L = (text: string, x: number, y: number, size = 10): LayoutLine => ({
  text, x0: x, y0: y, x1: x + text.length * size * 0.5, y1: y + size * 1.2, size, bold: false, italic: false, mono: false, block: 0,
});
const page = (lines: LayoutLine[]): PageExtraction => ({ page: 1, kind: 'text-layer', width: 612, height: 792, lines, images: [], notes: [], ms: 0 });
const LEFT = Array.from({ length: 10 }, (_, i) => L(`left column line number ${i} of the text`, 72, 100 + i * 13));
const RIGHT = Array.from({ length: 10 }, (_, i) => L(`right column line number ${i} of the text`, 330, 100 + i * 13));

test('rowSwitchShare: two columns read column by column are no risk; read row by row, every line is', () => {
  assert.equal(rowSwitchShare([page([...LEFT, ...RIGHT])]), 0);
  const rows = LEFT.flatMap((l, i) => [l, RIGHT[i]!]);
  assert.equal(rowSwitchShare([page(rows)]), 0.5);
  // Lines recovered as table cells are left out: a table read row by row is what a table is.
  assert.equal(rowSwitchShare([page(rows)], new Set(rows)), 0);
  // Words of one line split into two runs by a word space are not side by side.
  const a = L('The first half of a line', 72, 100);
  assert.equal(rowSwitchShare([page([a, L('and its second half', a.x1 + 3, 100)])]), 0);
});

test('keptMarginLines: a small line set apart in the top or bottom band counts; body lines there do not', () => {
  const body = Array.from({ length: 20 }, (_, i) => L(`body line ${i} with enough words to be prose text`, 72, 120 + i * 13, 11));
  assert.equal(keptMarginLines([page(body)], 11), 0);
  const header = L('Town Newsletter, summer issue', 72, 42, 9);
  const footer = L('Printed for the members', 72, 760, 9);
  assert.equal(keptMarginLines([page([header, ...body, footer])], 11), 2);
  // A title in the band is larger than the body; a body line in the band has no gap before the next one.
  const title = L('A Title', 72, 60, 18);
  const tight = Array.from({ length: 5 }, (_, i) => L(`first lines of a page with small margins ${i}`, 72, 40 + i * 13, 11));
  assert.equal(keptMarginLines([page([title, ...body])], 11), 0);
  assert.equal(keptMarginLines([page([...tight, ...body])], 11), 0);
});

test('brokenParagraphRatio: paragraphs stopping mid-sentence before another paragraph', () => {
  const good = 'Intro\n\n# Head\n\nA complete sentence here.\n\nAnother one that ends well!\n\n| a | b |\n\nA caption without a stop';
  assert.equal(brokenParagraphRatio(good), 0);
  const cut = 'The first part of a sentence that\n\ncontinues here after the running head.\n\nAnd a line that\n\nis cut again.';
  assert.equal(brokenParagraphRatio(cut), 0.5);
  assert.equal(textStatistics('x y z').brokenParagraphRatio, 0);
  assert.equal(textStatistics('a b c d', 'a b c d\n\ne f g h.').brokenParagraphRatio, 0.5);
});

test('score factors: row switches, kept furniture, cut paragraphs and image pages lower the score; digits do not', () => {
  const words = Array.from({ length: 300 }, (_, i) => `w${(i * 7919).toString(26).replace(/[0-9]/g, (d) => 'klmnopqrst'[Number(d)]!)}`).join(' ');
  const base = {
    format: 'pdf',
    pages: { total: 10, textLayer: 10, ocr: 0, empty: 0, failed: 0, skipped: 0, billable: 10, which: { textLayer: [], ocr: [], empty: [], failed: [], skipped: [] } },
    text: textStatistics(words),
    ocr: { pages: 0, meanConfidence: null, p10Confidence: null, pagesBelow60: [], rotatedPages: [] },
    structure: { headings: { total: 3, byLevel: {}, bySource: {} }, paragraphs: 20, lists: 0, listItems: 0, tables: 0, figures: 0, captions: 0, equations: 0, footnotes: 0, references: 0, codeBlocks: 0, removedHeaderFooterLines: 0, layoutComplexity: 0, rowSwitches: 0, marginLinesKept: 0, imageDominatedPages: 0 },
  };
  assert.equal(scoreReport(base).value, 1);
  // A two-column document read column by column: complex, barely penalised; read row by row: graded down.
  const columns = scoreReport({ ...base, structure: { ...base.structure, layoutComplexity: 0.45 } });
  const rows = scoreReport({ ...base, structure: { ...base.structure, layoutComplexity: 0.45, rowSwitches: 0.45 } });
  assert.ok(columns.value >= 1 - SCORE_WEIGHTS.layoutComplexity && columns.value < 1 && rows.value <= 1 - SCORE_WEIGHTS.rowSwitches, `${columns.value} ${rows.value}`);
  const heads = scoreReport({ ...base, structure: { ...base.structure, marginLinesKept: 10 } });
  assert.equal(heads.components.margins, 1 - SCORE_WEIGHTS.margins);
  const cut = scoreReport({ ...base, text: { ...base.text, brokenParagraphRatio: 0.7 } });
  assert.equal(cut.components.paragraphs, Math.round((1 - SCORE_WEIGHTS.paragraphs * 0.5) * 1000) / 1000);
  const images = scoreReport({ ...base, structure: { ...base.structure, imageDominatedPages: 10 } });
  assert.equal(images.components.images, 0.5);
  // A financial table: a fifth of the characters are digits, which is no sign of garbled text.
  const text = textStatistics(`${words} ${'1,204 702 9.7 '.repeat(60)}`);
  assert.ok(text.digitRatio > 0.2 && 0.3 + 0.75 * text.letterRatio < 0.95, JSON.stringify(text));
  assert.equal(scoreReport({ ...base, text }).components.letters, 1);
});

test('tokenShape and oddTokenRatio: OCR-noise shapes count, ordinary words, numbers, units and names do not', () => {
  for (const w of ['tHe', 'l0ng', 'wa,ter', 're|ease', 'fo;r', 'sta5tion']) assert.equal(tokenShape(w), 2, w);
  for (const w of ['the', 'Water,', '(H2O)', 'COVID-19', '10th', '5kg', "don't", 'e.g.', 'well-known', 'and/or', 'Straße', '“quoted”']) assert.equal(tokenShape(w), 1, w);
  for (const w of ['1,204', '9.7%', '--', '§']) assert.equal(tokenShape(w), 0, w);
  assert.equal(textStatistics('the tHe water 1,204 l0ng').oddTokenRatio, 0.5);
  assert.equal(textStatistics('1 2 3').oddTokenRatio, 0);
});

test('score weights: odd word shapes lower OCR and text-layer documents; the OCR low tail counts; every weight is used', () => {
  const words = Array.from({ length: 300 }, () => 'word').join(' ');
  const base = {
    format: 'pdf',
    pages: { total: 1, textLayer: 0, ocr: 1, empty: 0, failed: 0, skipped: 0, billable: 1, which: { textLayer: [], ocr: [], empty: [], failed: [], skipped: [] } },
    text: textStatistics(words),
    ocr: { pages: 1, meanConfidence: 90, p10Confidence: 90, pagesBelow60: [], rotatedPages: [] },
    structure: { headings: { total: 1, byLevel: {}, bySource: {} }, paragraphs: 20, lists: 0, listItems: 0, tables: 0, figures: 0, captions: 0, equations: 0, footnotes: 0, references: 0, codeBlocks: 0, removedHeaderFooterLines: 0, layoutComplexity: 0, rowSwitches: 0, marginLinesKept: 0, imageDominatedPages: 0 },
  };
  const clean = scoreReport(base).value;
  const noisy = scoreReport({ ...base, text: { ...base.text, oddTokenRatio: 0.2 } });
  assert.ok(noisy.value < clean, `${noisy.value} ${clean}`);
  const tail = scoreReport({ ...base, ocr: { ...base.ocr, p10Confidence: 40 } });
  assert.ok(tail.value < clean);
  // Each weight changes some score: a weight that no input reaches would be a dead parameter of the fit.
  const hard = {
    ...base,
    pages: { ...base.pages, total: 3, textLayer: 2, ocr: 1 },
    text: { ...base.text, garbageRatio: 0.01, letterRatio: 0.7, singleCharTokenRatio: 0.2, oddTokenRatio: 0.1, brokenParagraphRatio: 0.6, spacingFaultRatio: 0.01, brokenEquationRatio: 0.5, mergedCellRatio: 0.1 },
    structure: { ...base.structure, headings: { total: 0, byLevel: {}, bySource: {} }, layoutComplexity: 0.3, rowSwitches: 0.1, marginLinesKept: 2, equations: 4, missedHeadingRatio: 0.3, droppedTextRatio: 0.1, headingParagraphRatio: 0.1, proseHeadingRatio: 0.1, proseCellRatio: 0.1, looseRowRatio: 0.05, longTokenRatio: 0.01, emptyCellRatio: 0.3, fragmentBlockRatio: 0.3, numberedLineRatio: 0.1, letterRunRate: 1 },
    ocr: { ...base.ocr, p10Confidence: 50 },
  };
  for (const k of Object.keys(SCORE_WEIGHTS) as (keyof ScoreWeights)[]) {
    const w = { ...SCORE_WEIGHTS, [k]: SCORE_WEIGHTS[k] === 0 ? 0.3 : SCORE_WEIGHTS[k] * 0.5 };
    assert.notEqual(scoreReport(hard, w).value, scoreReport(hard).value, k);
  }
});

test('broken equations: fragments, placeholders and unbalanced braces among the displays (ADR 0339)', () => {
  assert.equal(brokenEquationRatio('no displays here'), 0);
  const whole = '$$\\sum_{i=1}^{n} x_{i} = \\frac{a}{b}$$\n\n$$E = m c^{2}$$';
  assert.equal(brokenEquationRatio(whole), 0);
  // One equation emitted as three displays, a glyph that mapped to nothing, a brace left open.
  const broken = `${whole}\n\n$$\\sum$$\n\n$$x$$\n\n$$a + \ufffd = b$$\n\n$$\\frac{a}{b + c$$`;
  assert.equal(brokenEquationRatio(broken), 0.6667);
  const stats = textStatistics('text', broken);
  assert.equal(stats.brokenEquationRatio, 0.6667);
  assert.equal(textStatistics('text').brokenEquationRatio, undefined);
});

test('merged table columns: two numbers in one cell, body rows of GFM tables only (ADR 0339)', () => {
  const good = '| item | 2023 | 2024 |\n|---|---|---|\n| sales | 12.5 | 13.7 |\n| costs | (4,100) | 3,900 |\n';
  assert.equal(mergedCellRatio(good), 0);
  // Sub-columns under a spanning header read as one column: each cell holds two figures.
  const merged = '| item | 2023 2024 |\n|---|---|\n| sales | 12.5 13.7 |\n| costs | 4,100 3,900 |\n| staff | 12 |\n';
  assert.equal(mergedCellRatio(merged), 0.6667);
  // Numbers in prose, a header row and a table-like line outside a table do not count.
  assert.equal(mergedCellRatio('In 2023 we sold 12.5 and 13.7 units.\n| 1 2 | 3 4 |\n'), 0);
});

/** Score inputs of a clean two-page text-layer document of 300 words with `tables` tables and `equations` displays. */
function cleanInputs(n: { tables: number; equations: number }) {
  const words = Array.from({ length: 300 }, () => 'word').join(' ');
  return {
    format: 'pdf',
    pages: { total: 2, textLayer: 2, ocr: 0, empty: 0, failed: 0, skipped: 0, billable: 2, which: { textLayer: [1, 2], ocr: [], empty: [], failed: [], skipped: [] } },
    text: textStatistics(words, words),
    ocr: { pages: 0, meanConfidence: null, p10Confidence: null, pagesBelow60: [], rotatedPages: [] },
    structure: { headings: { total: 1, byLevel: {}, bySource: {} }, paragraphs: 20, lists: 0, listItems: 0, tables: n.tables, figures: 0, captions: 0, equations: n.equations, footnotes: 0, references: 0, codeBlocks: 0, removedHeaderFooterLines: 0, layoutComplexity: 0, rowSwitches: 0, marginLinesKept: 0, imageDominatedPages: 0 },
  };
}

test('score: broken equations and merged columns lower it once their weights are on (ADR 0339)', () => {
  const base = cleanInputs({ tables: 1, equations: 6 });
  const w = { ...SCORE_WEIGHTS, equations: 0.3, mergedCells: 0.3 };
  const clean = scoreReport(base, w);
  const eq = scoreReport({ ...base, text: { ...base.text, brokenEquationRatio: 0.5 } }, w);
  assert.ok(eq.components.equations! < clean.components.equations!, `${eq.components.equations}`);
  assert.ok(eq.value < clean.value);
  const cells = scoreReport({ ...base, text: { ...base.text, mergedCellRatio: 0.4 } }, w);
  assert.equal(cells.components.tables, 0.7);
  // One display of one is weak evidence: the equations factor weighs by the number of displays.
  const one = scoreReport({ ...base, text: { ...base.text, brokenEquationRatio: 1 }, structure: { ...base.structure, equations: 1 } }, w);
  assert.equal(one.components.equations, 0.9);
});

test('textLayerMisses: a large or bold-alone line in no heading is a missed heading; text-layer letters the Markdown lacks are dropped (ADR 0352)', () => {
  const body = Array.from({ length: 10 }, (_, i) => ({ ...L(`body line ${i} with enough words to be prose text`, 72, 140 + i * 13), block: 1 }));
  const head = { ...L('Results and discussion', 72, 300, 14), block: 0 };
  const p = page([head, ...body]);
  const text = body.map((l) => l.text).join(' ');
  // The heading-like line became a heading: nothing missed, nothing dropped.
  assert.deepEqual(textLayerMisses([p], `## Results and discussion\n\n${text}\n`), { missedHeadingRatio: 0, droppedTextRatio: 0 });
  // It stayed a paragraph: one of one heading-like line missed.
  assert.equal(textLayerMisses([p], `Results and discussion\n\n${text}\n`).missedHeadingRatio, 1);
  // A whole bold line standing as its own block counts too; a bold line inside a paragraph block does not.
  const bold = { ...L('Method', 72, 300), bold: true, block: 0 };
  assert.equal(textLayerMisses([page([bold, ...body])], `Method\n\n${text}\n`).missedHeadingRatio, 1);
  assert.equal(textLayerMisses([page([{ ...bold, block: 1 }, ...body])], `Method\n\n${text}\n`).missedHeadingRatio, 0);
  // What looks like a heading and is not: a caption, a contact line, a contents entry ending in its page
  // number, and the first page's title block above its first line of prose.
  for (const t of ['Table 1 A simple table', 'jane@example.org', '2 Results 14']) {
    assert.equal(textLayerMisses([page([...body, { ...L(t, 72, 300), bold: true, block: 0 }])], text).missedHeadingRatio, 0, t);
  }
  const author = { ...L('Jane Author', 72, 100, 14), block: 0 };
  assert.equal(textLayerMisses([page([author, ...body])], text).missedHeadingRatio, 0);
  assert.equal(textLayerMisses([p, { ...page([author, ...body]), page: 2 }], `## Results and discussion\n\n${text}\n`).missedHeadingRatio, 0.5);
  // Half the body lost from the Markdown: about half the letters and digits dropped.
  const half = body.slice(0, 5).map((l) => l.text).join(' ');
  const r = textLayerMisses([p], `## Results and discussion\n\n${half}\n`);
  assert.ok(r.droppedTextRatio > 0.4 && r.droppedTextRatio < 0.5, `${r.droppedTextRatio}`);
  // OCR and markup units carry no text layer to compare with.
  assert.deepEqual(textLayerMisses([{ ...p, kind: 'ocr' }], ''), { missedHeadingRatio: 0, droppedTextRatio: 0 });
});

test('score: missed headings and dropped text lower it once their weights are on (ADR 0352)', () => {
  const base = cleanInputs({ tables: 0, equations: 0 });
  const w = { ...SCORE_WEIGHTS, missedHeadings: 0.2, droppedText: 0.3 };
  const clean = scoreReport(base, w);
  assert.equal(scoreReport({ ...base, structure: { ...base.structure, missedHeadingRatio: 0.25 } }, w).components.headings, 0.9);
  // Up to 3% of the text layer is what page furniture takes: no penalty; 8% costs half the weight.
  assert.equal(scoreReport({ ...base, structure: { ...base.structure, droppedTextRatio: 0.03 } }, w).components.dropped, 1);
  const dropped = scoreReport({ ...base, structure: { ...base.structure, droppedTextRatio: 0.08 } }, w);
  assert.equal(dropped.components.dropped, 0.85);
  assert.ok(dropped.value < clean.value);
});

test('markdown faults: headings left as paragraphs, from the Markdown alone (ADR 0356)', () => {
  const prose = 'The converter reads every page of the document and writes the text it finds as running paragraphs of Markdown.';
  const made = `## 1 Introduction\n\n${prose}\n\n## 2 Method\n\n${prose}\n`;
  assert.equal(headingParagraphRatio(made), 0);
  // The same section titles left as paragraphs: numbered and standing alone, or in capitals.
  const missed = `1 Introduction\n\n${prose}\n\nMETHOD AND DATA\n\n${prose}\n`;
  assert.equal(headingParagraphRatio(missed), 0.5);
  // A numbered title run into its paragraph, with a heading beside it: one of one heading and one missed (+2).
  assert.equal(headingParagraphRatio(`## Results\n\n${prose}\n\n1.1 Essential Initial Commands. To begin, fill in the fields.\n`), 0.25);
  // Chinese titles and text, written without spaces.
  assert.equal(headingParagraphRatio(`3.1 三城八校\n\n${'山东大学的历史可以追溯到一九零一年'.repeat(2)}\n`), 0.3333);
  // Not headings: a caption, a line inside a cut paragraph, a numbered line before code, a short closed line.
  for (const md of [`Table 2 Results of the runs\n\n${prose}\n`, `A sentence that stops mid\n\nway through\n\n${prose}\n`, `2 ENTER\n\n\`\`\`\nx\n\`\`\`\n`, `Thank you.\n\n${prose}\n`]) {
    assert.equal(headingParagraphRatio(md), 0, md);
  }
});

test('markdown faults: prose made headings, prose read as table cells, table rows left as text (ADR 0356)', () => {
  assert.equal(proseHeadingRatio('## 3 Results\n\n## Method and data\n'), 0);
  assert.equal(proseHeadingRatio('## 3 Results\n\n## O tamanho da fonte é 12 pt de imediato e pode ser configurado com o comando\n'), 0.5);
  assert.equal(proseHeadingRatio('## Results of the runs that were made in the\n'), 1);
  const table = '| run | speed | time |\n|---|---|---|\n| 11 | 12.5 | 103.4 |\n| 12 | 24 | 68.3 |\n';
  assert.equal(proseCellRatio(table), 0);
  // Two columns of prose read across as one table.
  const columns = '| ABSTRACT | 1.1 Demonstration |\n|---|---|\n| Academics often need to submit anonymous versions of their pa- | A live demonstration of this package is available on Overleaf at: |\n| pers for review. | x |\n';
  assert.equal(proseCellRatio(columns), 0.5);
  assert.equal(looseRowRatio(`Run 11 12.5 103.4\n\n${'The speed was measured twice.'}\n`), 0.5);
  assert.equal(looseRowRatio(`${table}\nIn 2023 we sold 12.5 and 13.7 units.\n`), 0);
});

test('score: the Markdown faults lower it once their weights are on (ADR 0356)', () => {
  const base = cleanInputs({ tables: 1, equations: 0 });
  const w = { ...SCORE_WEIGHTS, headingParagraphs: 0.2, proseHeadings: 0.2, proseCells: 0.2, looseRows: 0.2 };
  const clean = scoreReport(base, w);
  assert.equal(clean.value, scoreReport(base).value);
  const s = (k: string, v: number) => scoreReport({ ...base, structure: { ...base.structure, [k]: v } }, w);
  assert.equal(s('headingParagraphRatio', 0.15).components.headingParagraphs, 0.9);
  assert.equal(s('proseHeadingRatio', 0.4).components.proseHeadings, 0.8);
  assert.equal(s('proseCellRatio', 0.1).components.proseCells, 0.9);
  assert.equal(s('looseRowRatio', 0.05).components.looseRows, 0.9);
  assert.ok(s('headingParagraphRatio', 0.3).value < clean.value);
  // Stored reports without the inputs score as before.
  assert.equal(scoreReport(base, w).components.proseCells, 1);
  // The letters factor's weight: 1 is the formula of ADR 0095 (0.3 + 0.75 x letters and digits), 0 leaves
  // only a text without characters at 0.
  const symbols = { ...base, text: { ...base.text, letterRatio: 0.6, digitRatio: 0 } };
  assert.equal(scoreReport(symbols, { ...w, letters: 1 }).components.letters, 0.75);
  assert.equal(scoreReport(symbols, { ...w, letters: 0.5 }).components.letters, 0.875);
  assert.equal(scoreReport(symbols, { ...w, letters: 0 }).components.letters, 1);
  assert.equal(scoreReport({ ...symbols, text: { ...symbols.text, characters: 0 } }, { ...w, letters: 0 }).components.letters, 0);
});

const PROSE = [
  'The committee met on Tuesday to review the annual budget and the plans for the coming year.',
  'Several members asked for more detail on the costs of the new building and its heating.',
  'The chair agreed to circulate a revised version of the report before the next meeting.',
];

test('longTokenRatio: words run together count, ordinary words, compounds, code, addresses and mathematics do not (ADR 0366)', () => {
  const spaced = PROSE.join('\n\n');
  assert.equal(longTokenRatio(spaced), 0);
  // A caption with every space lost, and two words joined at a case change.
  const lost = [PROSE[0], 'Figure 2: Thecommitteemetontuesdaytoreviewthebudget for the year.', 'The numbers are in SyntaxHelpers of the appendix.', PROSE[2]].join('\n\n');
  assert.ok(longTokenRatio(lost) > 0.02, `${longTokenRatio(lost)}`);
  // German compounds below 20 letters, all-capital acronyms, code, URLs and mathematics are no lost spaces.
  const fine = ['Die Haushaltsplanung der Forschungsabteilung wurde besprochen.', 'See `thisIsAnIdentifierInCode` and https://example.org/averyveryverylongpathsegmentname for it.', 'The value $\\mathrm{averyveryverylongsubscriptname}$ is small; NATOEUROPEANHEADQUARTERSBUILDING stands.'].join('\n\n');
  assert.equal(longTokenRatio(fine), 0);
  // A long token used many times counts once.
  const name = Array.from({ length: 20 }, () => 'The pneumonoultramicroscopicsilicovolcanoconiosis case is rare.').join('\n\n');
  assert.equal(longTokenRatio(name), 0.01);
});

test('emptyCellRatio and fragmentBlockRatio: empty cells of misaligned columns, text cut into fragments (ADR 0366)', () => {
  const good = '| Year | Sales | Costs |\n|---|---|---|\n| 2020 | 12.5 | 10.1 |\n| 2021 | 13.7 | 11.0 |';
  assert.equal(emptyCellRatio(good), 0);
  const merged = '| Year | Sales | Costs |\n|---|---|---|\n| 2020 12.5 | | 10.1 |\n| 2021 13.7 | | |';
  assert.equal(emptyCellRatio(merged), 0.5);
  // A one-row table is weak evidence: left out.
  assert.equal(emptyCellRatio('| a | b |\n|---|---|\n| x | |'), 0);
  assert.equal(fragmentBlockRatio(PROSE.join('\n\n')), 0);
  const cut = [PROSE[0], 'output signal', 'x(t)', PROSE[1], 'Figure 3', 'Done.'].join('\n\n');
  // "output signal" and "x(t)" are fragments; a label and a closed sentence are not.
  assert.equal(fragmentBlockRatio(cut), 0.3333);
});

test('score: a document with lost spaces, empty cells or fragments scores lower than the same without (ADR 0366)', () => {
  const base = cleanInputs({ tables: 1, equations: 0 });
  const w = { ...SCORE_WEIGHTS, longTokens: SCORE_WEIGHTS.longTokens || 0.3, emptyCells: SCORE_WEIGHTS.emptyCells || 0.3, fragments: SCORE_WEIGHTS.fragments || 0.3 };
  const withFaults = (md: string) => scoreReport({ ...base, structure: { ...base.structure, ...markdownFaults(md) } }, w);
  const spaced = PROSE.join('\n\n');
  const lost = PROSE.map((p, i) => (i === 1 ? p.replace(/ /g, '') : p)).join('\n\n');
  assert.ok(withFaults(lost).value < withFaults(spaced).value, `${withFaults(lost).value} ${withFaults(spaced).value}`);
  assert.ok(withFaults(lost).components.longTokens! < 1);
  const table = (rows: string) => `${spaced}\n\n| Year | Sales | Costs |\n|---|---|---|\n${rows}`;
  assert.ok(withFaults(table('| 2020 12.5 | | |\n| 2021 13.7 | | |')).value < withFaults(table('| 2020 | 12.5 | 10.1 |\n| 2021 | 13.7 | 11.0 |')).value);
  const cut = [PROSE[0], 'output', 'x(t)', 'signal y', PROSE[1]].join('\n\n');
  assert.ok(withFaults(cut).value < withFaults(spaced).value);
  // Stored reports without the inputs score as before.
  assert.equal(scoreReport(base, w).value, scoreReport(base, { ...w, longTokens: 0, emptyCells: 0, fragments: 0 }).value);
});

test('score in use: lost spaces, merged columns, broken equations and garbage each lower it (issue 28, ADR 0366)', () => {
  const base = cleanInputs({ tables: 1, equations: 6 });
  const clean = scoreReport(base).value;
  const lower = (patch: { text?: object; structure?: object }) => scoreReport({ ...base, text: { ...base.text, ...patch.text }, structure: { ...base.structure, ...patch.structure } }).value;
  assert.ok(lower({ structure: { longTokenRatio: 0.02 } }) < clean, 'words run together');
  assert.ok(lower({ text: { spacingFaultRatio: 0.02 } }) < clean, 'words split');
  assert.ok(lower({ text: { mergedCellRatio: 0.3 } }) < clean, 'merged columns');
  assert.ok(lower({ text: { brokenEquationRatio: 1 } }) < clean, 'broken equations');
  assert.ok(lower({ text: { garbageRatio: 0.05 } }) < clean, 'garbage');
});

test('numberedLineRatio: a numbered title left as text counts wherever it stands; headings, sentences, labels and references do not (ADR 0376)', () => {
  // "2.1 Class options" before a short paragraph and a list (the hagenberg-thesis manual of the tune part):
  // headingParagraphRatio wants running text of 10+ words after it and does not see it.
  const md = ['## 2 Document classes', PROSE[0], '2.1 Class options', 'The classes accept these options:', '- english\n- german', '2.2. Fonts', 'Two are used:', '| a | b |\n|---|---|\n| x | y |', 'IV.1 Scope', '- a\n- b', '3. Results', PROSE[2]].join('\n\n');
  assert.equal(headingParagraphRatio(md), 0);
  // Four titles left as text (2.1, 2.2., IV.1, 3.) and one heading: 4 / (1 + 4 + 2).
  assert.equal(numberedLineRatio(md), 0.5714);
  // Made headings, they are nothing missed.
  assert.equal(numberedLineRatio(md.replace(/^(2\.1|2\.2\.|IV\.1|3\.) /gm, '### $1 ')), 0);
  // A sentence after a number, a closed line, a number at the end (a date, a page), a label, a line of a
  // paragraph, an undotted number ("2 apples") and a lower-case start are not titles.
  const fine = ['1.5 million people voted in the election of that year, more than ever before.', '2.1 See the table.', '3.4 Version 2', '4.1 Figure 3', '5.1 First line\nsecond line of a paragraph', '2 Apples', '6.2 and the rest'].join('\n\n');
  assert.equal(numberedLineRatio(fine), 0);
  // A table of contents without page numbers (an EPUB's): three or more numbered lines in a row do not count.
  const toc = ['1.1 About this manual', '1.2 Terms', '1.3 Authors', '2.1 Motivation', PROSE[0]].join('\n\n');
  assert.equal(numberedLineRatio(toc), 0);
  // Two in a row (a section and its first subsection, both left as text) do.
  assert.equal(numberedLineRatio(['2. Methods', '2.1 Design', PROSE[0]].join('\n\n')), 0.5);
});

test('letterRunRate: words set letter by letter count; initials, mathematics, code and ordinary prose do not (ADR 0376)', () => {
  const prose = Array.from({ length: 10 }, () => PROSE.join(' ')).join('\n\n');
  assert.equal(letterRunRate(prose), 0);
  // A title in spaced capitals and a caption whose glyph gaps all became spaces: two runs.
  const spaced = `${prose}\n\nW E L C O M E to the meeting.\n\nFigure 1: t h e c o m m i t t e e at work.`;
  const words = spaced.split(/\s+/).filter(Boolean).length - 2;
  assert.ok(Math.abs(letterRunRate(spaced) - (1000 * 2) / words) < 0.05, `${letterRunRate(spaced)}`);
  // One run is half the rate.
  assert.ok(Math.abs(letterRunRate(spaced.replace('W E L C O M E', 'WELCOME')) - letterRunRate(spaced) / 2) < 0.05);
  // Initials carry dots; single letters in mathematics and code are left out; a heading is not running text.
  const fine = `${prose}\n\nJ. R. R. Tolkien wrote it.\n\nLet $a b c d e$ be given and \`x y z w\` run.\n\n## A B C D`;
  assert.equal(letterRunRate(fine), 0);
});

test('score: numbered titles left as text and letter-spaced words lower it once their weights are on; stored reports score as before (ADR 0376)', () => {
  const base = cleanInputs({ tables: 0, equations: 0 });
  const w = { ...SCORE_WEIGHTS, numberedLines: SCORE_WEIGHTS.numberedLines || 0.2, letterRuns: SCORE_WEIGHTS.letterRuns || 0.2 };
  const clean = scoreReport(base, w);
  const titles = scoreReport({ ...base, structure: { ...base.structure, numberedLineRatio: 0.15 } }, w);
  assert.equal(titles.components.numberedLines, Math.round((1 - w.numberedLines * 0.5) * 1000) / 1000);
  assert.ok(titles.value < clean.value);
  const letters = scoreReport({ ...base, structure: { ...base.structure, letterRunRate: 4 } }, w);
  assert.equal(letters.components.letterRuns, Math.round((1 - w.letterRuns) * 1000) / 1000);
  assert.ok(letters.value < clean.value);
  // Reports stored before ADR 0376 lack both inputs: the factors are 1.
  assert.equal(clean.components.numberedLines, 1);
  assert.equal(clean.components.letterRuns, 1);
  // The inputs are read from the Markdown with the others.
  const f = markdownFaults(['## 1 Intro', PROSE[0], '1.1 Scope', '- a'].join('\n\n'));
  assert.ok(f.numberedLineRatio > 0 && f.letterRunRate === 0);
});
