// The recognition development set: small documents whose ground truth is known exactly because they are
// generated here, each aimed at one defect of issue 17 (page furniture on a one-page notice, a two-column
// page whose text layer is interleaved line by line with the title after the authors, an unruled financial
// table with a two-level header, a typewriter-face book page, glyph-by-glyph positioned words). The sources
// are this file; `build.ts` writes the PDFs (nothing binary is committed). Checks follow olmOCR-bench:
// text present, text absent, reading-order pairs, table cell relations, headings.
import { type PageSpec, type TextRun, wrap } from '../../../test/recognition/helpers/pdf-builder.js';

/** One olmOCR-bench style check on the Markdown (or plain text) a tool produced. */
export type DevCheck =
  | { readonly kind: 'present'; readonly text: string }
  | { readonly kind: 'absent'; readonly text: string }
  | { readonly kind: 'order'; readonly before: string; readonly after: string }
  /** A table row whose first cell is `row` has `value` in the column headed `column` (any header row). */
  | { readonly kind: 'cell'; readonly row: string; readonly column: string; readonly value: string }
  | { readonly kind: 'no-code'; readonly text: string };

export interface DevDocument {
  readonly name: string;
  readonly pages: readonly PageSpec[];
  /** The exact ground truth as Markdown (headings, paragraphs, tables). */
  readonly truth: string;
  readonly checks: readonly DevCheck[];
}

const para = (x: number, y: number, text: string, width: number, size: number, lead: number, font?: TextRun['font']): { runs: TextRun[]; end: number } => {
  const lines = wrap(text, width);
  return { runs: lines.map((t, i) => ({ x, y: y + i * lead, text: t, size, ...(font ? { font } : {}) })), end: y + lines.length * lead };
};

const NOTICE_1 = 'The municipal water utility will interrupt the supply to the northern district on Thursday between nine in the morning and four in the afternoon while a main valve is replaced.';
const NOTICE_2 = 'Residents are asked to store enough drinking water for the day and to keep taps closed during the works. Pressure may be low for a few hours after the supply returns.';

function notice(): DevDocument {
  const a = para(72, 130, NOTICE_1, 85, 11, 14);
  const b = para(72, a.end + 10, NOTICE_2, 85, 11, 14);
  return {
    name: 'notice-one-page',
    pages: [{ runs: [
      { x: 72, y: 30, text: 'Downloaded from https://notices.example.org on 12 March 2024', size: 8 },
      { x: 72, y: 90, text: 'Notice of Water Supply Interruption', size: 18, font: 'bold' },
      ...a.runs, ...b.runs,
      { x: 280, y: 760, text: 'Page 1 of 1', size: 8 },
      { x: 72, y: 774, text: 'https://notices.example.org/2024/17', size: 8 },
    ] }],
    truth: `# Notice of Water Supply Interruption\n\n${NOTICE_1}\n\n${NOTICE_2}\n`,
    checks: [
      { kind: 'present', text: 'Notice of Water Supply Interruption' },
      { kind: 'absent', text: 'Downloaded from' },
      { kind: 'absent', text: 'Page 1 of 1' },
      { kind: 'absent', text: 'notices.example.org/2024' },
      { kind: 'order', before: 'main valve is replaced', after: 'Residents are asked' },
    ],
  };
}

const COLUMN_TEXT = [
  ['1 Introduction', 'Layout analysis decides the order in which the blocks of a page are read. A converter that follows the content stream reads an interleaved text layer line by line across both columns, which breaks every sentence.'],
  ['2 Method', 'We cut the page recursively at wide vertical and horizontal gaps and read the resulting regions from left to right and from top to bottom, so each column is read whole before the next one starts.'],
  ['3 Results', 'On pages whose text layer alternates between the columns the cut restores the order of the sentences, while single column pages are left exactly as they were before.'],
  ['4 Discussion', 'Columns of unequal length and figures that span both columns remain the hard cases, and the running head at the top of each page must not be read as part of the first column.'],
];

function twoColumn(): DevDocument {
  const pages: PageSpec[] = [];
  let truth = '';
  for (let p = 0; p < 2; p++) {
    const runs: TextRun[] = [
      { x: 72, y: 40, text: 'Devset Journal of Layout, Vol. 1', size: 8 },
      { x: 300, y: 765, text: String(p + 1), size: 8 },
    ];
    let top = 70;
    if (p === 0) {
      // Stream order puts the authors before the title, as some producers do; the title sits above them.
      runs.push({ x: 150, y: 110, text: 'Ada Example and Bob Sample, Example University', size: 11 });
      runs.push({ x: 130, y: 85, text: 'Reading Order on Two Column Pages', size: 18, font: 'bold' });
      truth += '# Reading Order on Two Column Pages\n\nAda Example and Bob Sample, Example University\n\n';
      top = 150;
    }
    const cols = [COLUMN_TEXT[p * 2]!, COLUMN_TEXT[p * 2 + 1]!];
    const colLines = cols.map(([h, body], c) => {
      const x = c === 0 ? 72 : 324;
      const lines: TextRun[] = [{ x, y: top, text: h!, size: 11, font: 'bold' }];
      wrap(body!, 42).forEach((t, i) => lines.push({ x, y: top + 20 + i * 13, text: t, size: 10 }));
      return lines;
    });
    // Interleave the two columns line by line, as an OCR text layer written row by row does.
    for (let i = 0; i < Math.max(colLines[0]!.length, colLines[1]!.length); i++) {
      if (colLines[0]![i]) runs.push(colLines[0]![i]!);
      if (colLines[1]![i]) runs.push(colLines[1]![i]!);
    }
    for (const [h, body] of cols) truth += `## ${h}\n\n${body}\n\n`;
    pages.push({ runs });
  }
  return {
    name: 'two-column-interleaved',
    pages,
    truth,
    checks: [
      { kind: 'order', before: 'Reading Order on Two Column Pages', after: 'Ada Example and Bob Sample' },
      { kind: 'order', before: 'which breaks every sentence', after: '2 Method' },
      { kind: 'order', before: 'restores the order of the sentences', after: '4 Discussion' },
      { kind: 'present', text: 'A converter that follows the content stream reads an interleaved text layer' },
      { kind: 'present', text: 'we cut the page recursively' },
      { kind: 'absent', text: 'Devset Journal of Layout' },
    ],
  };
}

const TABLE_ROWS = [
  ['Revenue', '1,204', '1,098', '9.7%'],
  ['Cost of sales', '(702)', '(655)', '7.2%'],
  ['Gross profit', '502', '443', '13.3%'],
  ['Operating expenses', '(311)', '(290)', '7.2%'],
  ['Operating income', '191', '153', '24.8%'],
  ['Net income', '148', '117', '26.5%'],
];

function financialTable(): DevDocument {
  const intro = 'The table below summarises the results of operations for the last two fiscal years in millions of dollars.';
  const after = 'Revenue grew in every segment, and operating margins improved as the cost of sales rose more slowly than revenue.';
  const cols = [72, 300, 370, 450];
  const a = para(72, 110, intro, 85, 11, 14);
  const runs: TextRun[] = [{ x: 72, y: 80, text: 'Consolidated Statement of Operations', size: 14, font: 'bold' }, ...a.runs];
  let y = a.end + 20;
  runs.push({ x: 300, y, text: 'Year ended December 31', size: 10 });
  y += 14;
  ['Item', '2023', '2022', 'Change'].forEach((t, i) => runs.push({ x: cols[i]!, y, text: t, size: 10 }));
  for (const r of TABLE_ROWS) {
    y += 14;
    r.forEach((t, i) => runs.push({ x: cols[i]!, y, text: t, size: 10 }));
  }
  const b = para(72, y + 30, after, 85, 11, 14);
  runs.push(...b.runs);
  const table = ['| | Year ended December 31 | | |', '| --- | --- | --- | --- |', '| Item | 2023 | 2022 | Change |', ...TABLE_ROWS.map((r) => `| ${r.join(' | ')} |`)].join('\n');
  return {
    name: 'financial-table-unruled',
    pages: [{ runs }],
    truth: `# Consolidated Statement of Operations\n\n${intro}\n\n${table}\n\n${after}\n`,
    checks: [
      { kind: 'cell', row: 'Revenue', column: '2023', value: '1,204' },
      { kind: 'cell', row: 'Net income', column: 'Change', value: '26.5%' },
      { kind: 'cell', row: 'Gross profit', column: '2022', value: '443' },
      { kind: 'present', text: 'Year ended December 31' },
      { kind: 'absent', text: '# Item' },
      { kind: 'order', before: 'in millions of dollars', after: 'Revenue grew in every segment' },
    ],
  };
}

const BOOK = [
  'The letter arrived on a grey morning in late autumn, when the river had already risen over the lower meadows and the ferry no longer crossed before noon. Nobody in the house could remember when the last letter had come from the city.',
  'She read it twice at the kitchen table and then folded it into her apron pocket, where it stayed for the rest of the day while the conversation around her turned to the harvest and the price of wool.',
];

function courierBook(): DevDocument {
  const runs: TextRun[] = [
    { x: 72, y: 50, text: 'CHAPTER THREE', size: 9, font: 'mono' },
    { x: 500, y: 50, text: '47', size: 9, font: 'mono' },
  ];
  let y = 90;
  for (const p of BOOK) {
    const lines = wrap(p, 66);
    lines.forEach((t, i) => runs.push({ x: i === 0 ? 96 : 72, y: y + i * 13, text: t, size: 10, font: 'mono' }));
    y += lines.length * 13 + 4;
  }
  return {
    name: 'courier-book-page',
    pages: [{ runs }],
    truth: `${BOOK.join('\n\n')}\n`,
    checks: [
      { kind: 'no-code', text: 'The letter arrived' },
      { kind: 'absent', text: 'CHAPTER THREE' },
      { kind: 'order', before: 'come from the city.', after: 'She read it twice' },
      { kind: 'present', text: 'the conversation around her turned to the harvest' },
    ],
  };
}

const TRACKED = 'Business results for the third quarter were strong across all regions';

function glyphPositioned(): DevDocument {
  // Every glyph placed on its own: 0.12 em of tracking inside words, 0.3 em (and no space glyph) between them.
  const glyphs: (string | number)[] = [];
  TRACKED.split(' ').forEach((w, wi) => {
    if (wi > 0) glyphs.push(-300);
    [...w].forEach((ch, ci) => {
      if (ci > 0) glyphs.push(-120);
      glyphs.push(ch);
    });
  });
  const body = 'The sentence above is set with every glyph positioned separately, as some report generators do.';
  return {
    name: 'glyph-positioned-words',
    pages: [{ runs: [
      { x: 72, y: 80, text: 'Quarterly Report', size: 16, font: 'bold' },
      { x: 72, y: 120, text: TRACKED, size: 11, glyphs },
      { x: 72, y: 150, text: body, size: 11 },
    ] }],
    truth: `# Quarterly Report\n\n${TRACKED}\n\n${body}\n`,
    checks: [
      { kind: 'present', text: TRACKED },
      { kind: 'present', text: body },
    ],
  };
}

/** The development set, in a fixed order. */
export function devDocuments(): DevDocument[] {
  return [notice(), twoColumn(), financialTable(), courierBook(), glyphPositioned()];
}
