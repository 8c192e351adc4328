// Running lines as real documents carry them (ADR 0237), each case isolated in a small synthetic PDF
// converted by the real pipeline: download stamps in their usual wordings, revision lines, a running head
// above the title of a one-page document, and per-chapter running heads in a long manual (present on far
// fewer than 40% of its pages). Plus a check on Debian's valgrind manual when it is installed here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { convertDocument } from '../../src/recognition/index.js';
import { FURNITURE_RE } from '../../src/recognition/structure/running-lines.js';
import { buildPdf, wrap, type PageSpec, type TextRun } from './helpers/pdf-builder.js';
import type { LayoutLine, PageExtraction } from '../../src/recognition/index.js';
import { needs, runner } from './helpers/tools.js';

const skip = await needs('mutool');

const PROSE =
  'The committee met on Tuesday to review the budget for the coming year and agreed that the library should extend its opening hours during the examination period. ' +
  'Members asked for a short report on the use of the reading rooms, which the secretary will prepare before the next meeting in the spring.';

/** Body paragraphs from y on, 11 pt, returning the runs and the next y. */
function body(y: number, paragraphs = 2): { runs: TextRun[]; y: number } {
  const runs: TextRun[] = [];
  for (let k = 0; k < paragraphs; k++) {
    for (const l of wrap(PROSE)) {
      runs.push({ x: 72, y, text: l, size: 11 });
      y += 14;
    }
    y += 12;
  }
  return { runs, y };
}

const md = async (pdf: Uint8Array): Promise<string> => (await convertDocument(pdf, { runner })).markdown;

test('download stamps in their wordings, alone or after other text, are page furniture', () => {
  for (const s of [
    'Download date: 12/03/2024 14:05:33',
    'Downloaded from https://example.org/paper on 3 May 2021',
    'Date downloaded: 2024-03-12',
    'Date of access: 12 March 2024',
    'Last accessed 3 May 2021',
    'Retrieved on 2020-01-01 from the archive',
    'This content downloaded from 192.0.2.10 on Mon, 01 Jan 2024 10:00:00 UTC',
    'J. Synth. Ex. 7 (2019). Downloaded from https://journals.example.org by guest on 12 May 2024',
    'Revision: 2.4',
    'Rev. 2.4, 2019-03-01',
    'Document revision 3',
    'Version: 1.0 (draft)',
    'Last revised: 1 March 2024',
  ]) assert.ok(FURNITURE_RE.test(s), s);
  // Prose that merely mentions the words stays.
  for (const s of ['The data retrieved from the survey were cleaned.', 'Users accessed the service mostly at night', 'Revisions to the plan were discussed']) assert.ok(!FURNITURE_RE.test(s), s);
});

test('one-page article: a "Download date" stamp at the foot and a "Revision: 2.4" line are removed, the text stays', { skip }, async () => {
  const { runs } = body(120);
  const out = await md(
    buildPdf([
      {
        runs: [
          { x: 72, y: 80, text: 'Minutes of the Library Committee', size: 18, font: 'bold' },
          ...runs,
          { x: 72, y: 748, text: 'Revision: 2.4', size: 8 },
          { x: 72, y: 770, text: 'Download date: 12/03/2024 14:05:33', size: 8 },
        ],
      },
    ]),
  );
  assert.doesNotMatch(out, /Download date/);
  assert.doesNotMatch(out, /Revision: 2\.4/);
  assert.match(out, /^# Minutes of the Library Committee$/m);
  assert.match(out, /extend its opening hours/);
});

test('one-page document: a running head above the title is removed, never a heading; the title stays the `#` heading', { skip }, async () => {
  for (const font of ['regular', 'bold', 'italic'] as const) {
    const { runs } = body(130);
    const out = await md(
      buildPdf([
        {
          runs: [
            { x: 360, y: 40, text: 'Proceedings of the Synthetic Society', size: 10, font },
            { x: 72, y: 90, text: 'On Reading Rooms', size: 20, font: 'bold' },
            ...runs,
          ],
        },
      ]),
    );
    assert.doesNotMatch(out, /Proceedings of the Synthetic Society/, font);
    assert.match(out, /^# On Reading Rooms$/m, font);
    assert.equal(out.match(/^#/gm)?.length, 1, font);
  }
});

test('long manual: per-chapter running heads (each on under 40% of the pages) are removed; chapter titles stay headings', { skip }, async () => {
  const chapters = ['Getting Started with the Tool', 'Configuring the Service', 'Troubleshooting Common Problems'];
  const perChapter = 9;
  const pages: PageSpec[] = [];
  let n = 0;
  chapters.forEach((title, c) => {
    for (let k = 0; k < perChapter; k++) {
      n++;
      const runs: TextRun[] = [{ x: 300, y: 760, text: String(n), size: 10 }];
      let y = 80;
      if (k === 0) {
        runs.push({ x: 72, y: 80, text: `${c + 1}. ${title}`, size: 20, font: 'bold' });
        y = 130;
      } else {
        // The chapter's running head, top right, at the body's size.
        runs.push({ x: 340, y: 40, text: `${c + 1}. ${title}`, size: 10 });
      }
      runs.push(...body(y, 3).runs);
      pages.push({ runs });
    }
  });
  const out = await md(buildPdf(pages));
  for (const [c, title] of chapters.entries()) {
    const all = out.split('\n').filter((l) => l.includes(title));
    assert.equal(all.length, 1, `${title}: ${JSON.stringify(all)}`);
    assert.match(all[0]!, new RegExp(`^#+ ${c + 1}\\. ${title}$`));
  }
  // Nothing of the body went: every page's paragraphs are there.
  assert.equal(out.match(/extend its opening hours/g)?.length, chapters.length * perChapter * 3);
});

test('a line at the top of three nearby pages of a long document, at different heights, is body text, not a running head', { skip }, async () => {
  const pages: PageSpec[] = Array.from({ length: 12 }, (_, i) => ({
    runs: i < 3 ? [{ x: 72, y: 50 + i * 10, text: 'Note the reading room rules', size: 11 }, ...body(80 + i * 10, 3).runs] : body(60, 3).runs,
  }));
  const out = await md(buildPdf(pages));
  assert.equal(out.match(/Note the reading room rules/g)?.length, 3);
});

// Debian's valgrind package (1:3.19.0-1) ships the manual as /usr/share/doc/valgrind/valgrind_manual.pdf.gz;
// LECTERN_VALGRIND_PDF names another copy (e.g. extracted with `apt-get download valgrind; dpkg-deb -x`).
const valgrindPdf = [process.env.LECTERN_VALGRIND_PDF, '/usr/share/doc/valgrind/valgrind_manual.pdf', '/usr/share/doc/valgrind/valgrind_manual.pdf.gz'].find((p) => p && existsSync(p));

test('the valgrind manual: chapter running heads are gone from the text', { skip: skip || (valgrindPdf ? false : 'the valgrind manual is not installed (apt-get download valgrind; set LECTERN_VALGRIND_PDF)') }, async () => {
  const raw = readFileSync(valgrindPdf!);
  const out = await md(new Uint8Array(valgrindPdf!.endsWith('.gz') ? gunzipSync(raw) : raw));
  const lines = out.split('\n').map((l) => l.trim());
  // Before (issue 28) these chapter heads stood alone 9-29 times each, once per page of their chapter.
  for (const head of ['Using and understanding the Valgrind core', 'Memcheck: a memory error detector', 'DRD: a thread error detector', 'Cachegrind: a cache and branch-prediction profiler', 'NEWS', 'OLDER NEWS']) {
    const alone = lines.filter((l) => l === head).length;
    assert.ok(alone <= 1, `${head}: ${alone} lines`);
  }
  assert.match(out, /^#+ 4\. Memcheck: a memory error detector$/m);
});

test('line numbers in the margin (lineno, review manuscripts) are removed and the paragraph reads through', { skip }, async () => {
  const lines = wrap(`${PROSE} ${PROSE}`);
  const runs: TextRun[] = [{ x: 72, y: 80, text: 'Reading Rooms Revisited', size: 18, font: 'bold' }];
  lines.forEach((t, i) => {
    runs.push({ x: 102, y: 120 + i * 14, text: t, size: 11 });
    runs.push({ x: i + 1 >= 10 ? 80 : 84, y: 118 + i * 14, text: String(i + 1), size: 6 });
  });
  const out = await md(buildPdf([{ runs }]));
  assert.match(out, /extend its opening hours during the examination period\. Members asked/);
  assert.doesNotMatch(out, /^\d+$/m, 'no line number on its own line');
  assert.doesNotMatch(out, /[a-z] \d{1,2} [a-z]/, 'no line number inside the text');
  // A table's numbered first column sits inside the text block and stays.
  const table: TextRun[] = [{ x: 72, y: 80, text: 'Results by room', size: 14, font: 'bold' }, ...body(110, 1).runs];
  ['Room', 'Seats', 'Visitors'].forEach((h, c) => table.push({ x: 72 + c * 120, y: 260, text: h, size: 11, font: 'bold' }));
  for (let r = 1; r <= 5; r++) [String(r), String(20 * r), String(300 + r)].forEach((v, c) => table.push({ x: 72 + c * 120, y: 260 + r * 16, text: v, size: 11 }));
  const out2 = await md(buildPdf([{ runs: table }]));
  for (const v of ['301', '305', '100']) assert.match(out2, new RegExp(`\\b${v}\\b`));
  assert.match(out2, /\|\s*3\s*\|/);
});

test('column line numbers counted on from column to column (every fifth line, small type) go; table row numbers stay', async () => {
  const { removeLineNumbers } = await import('../../src/recognition/structure/running-lines.js');
  const line = (text: string, x0: number, y0: number, size = 10): LayoutLine => ({ text, x0, x1: x0 + (text.length * size) / 2, y0, y1: y0 + size * 1.2, size, bold: false, italic: false, mono: false, block: Math.round(x0) });
  const lines: LayoutLine[] = [];
  for (const [c, x] of [200, 320].entries())
    for (let i = 0; i < 15; i++) {
      lines.push(line('text of the column', x, 100 + i * 13));
      if ((i + 1) % 5 === 0) lines.push(line(String(c * 15 + i + 1), x - 10, 102 + i * 13, 5));
    }
  const page: PageExtraction = { page: 1, kind: 'text-layer', width: 595, height: 842, lines, images: [], notes: [], ms: 0 };
  const r = removeLineNumbers(page);
  assert.equal(r.removed, 6);
  assert.ok(r.page.lines.every((l) => !/^\d+$/.test(l.text)));
  // Row numbers of a table, set like its cells, beside them, under running text at the same left edge.
  const table: LayoutLine[] = [0, 1, 2, 3].map((i) => line('Running text of the page above the table, at its left edge.', 72, 20 + i * 14));
  for (let i = 1; i <= 6; i++) table.push(line(String(i), 72, 100 + i * 14), line(`cell ${i} of the table`, 90, 100 + i * 14), line(String(100 * i), 300, 100 + i * 14));
  assert.equal(removeLineNumbers({ ...page, lines: table }).removed, 0);
});

test('left-aligned margin line numbers ("9" ending before "10", as some classes set `lineno`) all go', async () => {
  const { removeLineNumbers } = await import('../../src/recognition/structure/running-lines.js');
  const line = (text: string, x0: number, y0: number, size = 10): LayoutLine => ({ text, x0, x1: x0 + (text.length * size) / 2, y0, y1: y0 + size * 1.2, size, bold: false, italic: false, mono: false, block: 0 });
  const lines: LayoutLine[] = [];
  for (let i = 1; i <= 14; i++) lines.push(line('a line of running text in the text block of the page', 90, 100 + i * 14), line(String(i), 60, 102 + i * 14, 8));
  const page: PageExtraction = { page: 1, kind: 'text-layer', width: 595, height: 842, lines, images: [], notes: [], ms: 0 };
  const r = removeLineNumbers(page);
  assert.equal(r.removed, 14);
  assert.ok(r.page.lines.every((l) => !/^\d+$/.test(l.text)));
});

test('one line number on a short page (every fifth line, small, left of the text block) goes; the page number stays (ADR 0364)', async () => {
  const { removeLineNumbers } = await import('../../src/recognition/structure/running-lines.js');
  const line = (text: string, x0: number, y0: number, size = 12): LayoutLine => ({ text, x0, x1: x0 + (text.length * size) / 2, y0, y1: y0 + size * 1.2, size, bold: false, italic: false, mono: false, block: 0 });
  const lines: LayoutLine[] = [];
  for (let i = 1; i <= 7; i++) lines.push(line('a line of running text in the text block of the page', 134, 340 + i * 12));
  lines.push(line('5', 119, 342 + 5 * 12, 8), line('1', 304, 693, 12));
  const page: PageExtraction = { page: 1, kind: 'text-layer', width: 612, height: 792, lines, images: [], notes: [], ms: 0 };
  const r = removeLineNumbers(page);
  assert.equal(r.removed, 1);
  assert.ok(!r.page.lines.some((l) => l.text === '5') && r.page.lines.some((l) => l.text === '1'));
  // A number that is not a multiple of five, or one set as large as the text, is no such line number.
  assert.equal(removeLineNumbers({ ...page, lines: [...lines.slice(0, 7), line('3', 119, 342 + 3 * 12, 8)] }).removed, 0);
  assert.equal(removeLineNumbers({ ...page, lines: [...lines.slice(0, 7), line('5', 119, 342 + 5 * 12, 12)] }).removed, 0);
});

test('a watermark set at a slant across every page ("draft", TUGboat preprints) is dropped, never a heading; slanted small labels stay', { skip }, async () => {
  const pages: PageSpec[] = [];
  for (let k = 0; k < 3; k++) {
    const runs: TextRun[] = [{ x: 150, y: 600, text: 'draft', size: 150, font: 'bold', rotate: 55 }, ...body(k === 0 ? 130 : 80, 3).runs];
    if (k === 0) runs.push({ x: 72, y: 80, text: 'On Reading Rooms', size: 20, font: 'bold' });
    // A figure's axis label drawn at a slant in the body's own size: text of the page, kept.
    if (k === 1) runs.push({ x: 300, y: 560, text: 'reading hours', size: 10, rotate: 45 });
    pages.push({ runs });
  }
  const out = await md(buildPdf(pages));
  assert.doesNotMatch(out, /draft/i, out);
  assert.match(out, /^# On Reading Rooms$/m);
  assert.equal(out.match(/^#/gm)?.length, 1, out);
  assert.match(out, /reading hours/);
  assert.equal(out.match(/extend its opening hours/g)?.length, 9);
});

test('a running footer on most pages goes also where the text comes too close for the margin test (a code listing into the foot)', { skip }, async () => {
  const pages: PageSpec[] = [];
  for (let k = 0; k < 6; k++) {
    // The footer above the page's bottom tenth (an A4 layout on a Letter page: TUGboat's preprints), so only
    // the widened band with its set-apart gap takes it.
    const runs: TextRun[] = [...body(80, 3).runs, { x: 72, y: 704, text: 'preliminary draft, September 24, 2008 20:26', size: 9, font: 'italic' }];
    // On two pages a listing runs down to about 3 pt above the footer: no set-apart gap there.
    if (k % 3 === 1) for (let i = 0; i < 6; i++) runs.push({ x: 72, y: 632 + i * 12, text: `\\renewcommand\\btxISBN${i}{isbn}`, size: 8, font: 'mono' });
    pages.push({ runs });
  }
  const out = await md(buildPdf(pages));
  assert.doesNotMatch(out, /preliminary draft/, out);
  assert.match(out, /btxISBN5/);
});

test('margin line numbers are remembered per lines array only: the same lines in another array (another page or document) are judged afresh (ADR 0377)', async () => {
  const { removeLineNumbers, marginLineNumbers } = await import('../../src/recognition/structure/running-lines.js');
  const { displayRegions } = await import('../../src/recognition/pdf/display-math.js');
  const line = (text: string, x0: number, y0: number, size = 10): LayoutLine => ({ text, x0, x1: x0 + (text.length * size) / 2, y0, y1: y0 + size * 1.2, size, bold: false, italic: false, mono: false, block: 0 });
  const text: LayoutLine[] = [];
  const nums: LayoutLine[] = [];
  for (let i = 1; i <= 14; i++) {
    text.push(line('a line of running text in the text block of the page', 90, 100 + i * 14));
    nums.push(line(String(i), 60, 102 + i * 14, 8));
  }
  const lines = text.flatMap((t, i) => [t, nums[i]!]);
  const page: PageExtraction = { page: 1, kind: 'text-layer', width: 595, height: 842, lines, images: [], notes: [], ms: 0 };
  // The display-math pass asks first (as the extractor does), then the running-lines pass: one answer.
  displayRegions(lines);
  assert.equal(marginLineNumbers(lines), marginLineNumbers(lines));
  assert.equal(removeLineNumbers(page).removed, 14);
  // The same line objects in other arrays: numbers that no longer rise down the page stay; the text alone has none.
  const shuffled = [...text, ...nums.map((n, i) => ({ ...n, text: String(i % 2 ? 3 : 9) }))];
  assert.equal(removeLineNumbers({ ...page, lines: shuffled }).removed, 0);
  assert.equal(removeLineNumbers({ ...page, lines: [...text] }).removed, 0);
  assert.equal(removeLineNumbers(page).removed, 14);
});
