// Word-processor documents of the real development set (issue 28, ADR 0360): ODT and DOCX files shipped in
// Debian packages, converted to PDF by LibreOffice headless (kinds.ts). Their checks come from the document's
// own XML (ODT content.xml, DOCX word/document.xml), never from a converter's output:
//   * body paragraphs in document order (text:p / w:p outside tables, frames, notes, indexes and deleted
//     text); anything that is not text (a footnote's citation, a formula, an image, a text box) cuts a
//     paragraph's word runs where it stands, as a non-letter does;
//   * headings: text:h of outline level 1-3 (ODT), paragraphs whose style is "heading 1-3" or "Title" (DOCX);
//   * tables: rows and cells with their column spans (a cell holding more than one paragraph, a row span or
//     anything that is not text is left unread, as tables.ts leaves an unexpandable LaTeX cell), header rows
//     where the document marks them (table:table-header-rows, w:tblHeader), the rules from the cell borders;
//     cell checks are formed by tables.ts's tableChecks, as for LaTeX tables.
import { type SourceTable, type TableRules, documentTableChecks } from './tables.js';
import { checksFromParagraphs } from './kinds.js';
import type { RealCheck } from './build.js';

/** What a word-processor document holds that its checks are written from. */
export interface WordprocSource {
  readonly paragraphs: string[];
  readonly headings: string[];
  readonly tables: SourceTable[];
}

/** Marks where something that is not text stands (cuts a word run; makes a cell unreadable). */
const CUT = '\u0001';

const decode = (s: string): string =>
  s
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

const attr = (attrs: string, name: string): string | undefined => new RegExp(`\\s${name.replace('.', '\\.')}="([^"]*)"`).exec(attrs)?.[1];

interface Cell {
  parts: string[];
  span: number;
  unreadable: boolean;
  vertical: boolean;
  horizontal: boolean;
}
interface Table {
  rows: { cells: Cell[]; header: boolean }[];
  bad: boolean;
  styleRules: TableRules | null;
}

/** What a format's elements mean; the walk over the XML is shared. */
interface Dialect {
  /** The element that holds the document body. */
  readonly body: string;
  /** Elements skipped with all they hold; `true`: the skip cuts a word run (it stands in the text). */
  readonly skip: ReadonlyMap<string, boolean>;
  readonly paragraph: ReadonlySet<string>;
  readonly text: string | null;
  /** Elements that stand for a space (tab, line break) or, for `space`, `count` spaces. */
  readonly spaces: ReadonlySet<string>;
  readonly table: string;
  readonly row: string;
  readonly cell: string;
  readonly covered: string | null;
  readonly headerRows: string | null;
  /** A paragraph's heading level (1-3) or 0, from its start tag and what the walk saw of its properties. */
  headingLevel(name: string, attrs: string, style: string | null): number;
}

const ODT: Dialect = {
  body: 'office:text',
  skip: new Map([
    ['text:note', true],
    ['draw:frame', true],
    ['draw:custom-shape', true],
    ['draw:g', true],
    ['office:annotation', true],
    // Fields whose shown text the application makes (a reference may show its target's number or page).
    ['text:bookmark-ref', true],
    ['text:reference-ref', true],
    ['text:sequence-ref', true],
    ['text:note-ref', true],
    ['text:tracked-changes', false],
    ['text:table-of-content', false],
    ['text:alphabetical-index', false],
    ['text:illustration-index', false],
    ['text:table-index', false],
    ['text:object-index', false],
    ['text:user-index', false],
    ['text:bibliography', false],
    ['text:hidden-paragraph', false],
    ['text:hidden-text', false],
    ['text:sequence-decls', false],
    ['text:variable-decls', false],
    ['text:user-field-decls', false],
    ['office:forms', false],
  ]),
  paragraph: new Set(['text:p', 'text:h']),
  text: null,
  spaces: new Set(['text:s', 'text:tab', 'text:line-break']),
  table: 'table:table',
  row: 'table:table-row',
  cell: 'table:table-cell',
  covered: 'table:covered-table-cell',
  headerRows: 'table:table-header-rows',
  headingLevel: (name, attrs) => (name === 'text:h' ? Number(attr(attrs, 'text:outline-level') ?? 1) : 0),
};

const DOCX = (headingStyles: ReadonlyMap<string, number>): Dialect => ({
  body: 'w:body',
  skip: new Map([
    ['w:del', false],
    ['w:instrText', false],
    ['w:delText', false],
    ['w:drawing', true],
    ['w:pict', true],
    ['w:object', true],
    ['mc:AlternateContent', true],
    ['m:oMath', true],
    ['m:oMathPara', true],
    ['w:footnoteReference', true],
    ['w:endnoteReference', true],
    ['w:sym', true],
    ['w:pPr', false],
    ['w:rPr', false],
    ['w:sectPr', false],
  ]),
  paragraph: new Set(['w:p']),
  text: 'w:t',
  spaces: new Set(['w:tab', 'w:br', 'w:cr']),
  table: 'w:tbl',
  row: 'w:tr',
  cell: 'w:tc',
  covered: null,
  headerRows: null,
  headingLevel: (_n, _a, style) => (style ? headingStyles.get(style) ?? 0 : 0),
});

/** Cell border styles of an ODT's automatic styles: which draw vertical and which horizontal rules. */
function odtCellBorders(xml: string): Map<string, { vertical: boolean; horizontal: boolean }> {
  const out = new Map<string, { vertical: boolean; horizontal: boolean }>();
  for (const m of xml.matchAll(/<style:style\b([^>]*)>([\s\S]*?)<\/style:style>/g)) {
    if (attr(m[1]!, 'style:family') !== 'table-cell') continue;
    const p = /<style:table-cell-properties\b([^>]*)\/?>/.exec(m[2]!)?.[1] ?? '';
    const drawn = (side: string): boolean => {
      const v = attr(p, `fo:border-${side}`) ?? attr(p, 'fo:border');
      return !!v && v !== 'none' && !/^0(?:\.0+)?(?:pt|cm|in|mm)?\s/.test(v);
    };
    out.set(attr(m[1]!, 'style:name')!, { vertical: drawn('left') || drawn('right'), horizontal: drawn('top') || drawn('bottom') });
  }
  return out;
}

/** A heading level that is read as neither a heading nor body text (headings below level 3 go the same way). */
const TOC = 99;

/** DOCX paragraph styles that are headings (ids of "heading 1-9" and "Title", by their names in styles.xml) or contents entries (TOC). */
export function docxHeadingStyles(stylesXml: string): Map<string, number> {
  const out = new Map<string, number>([
    ['Heading1', 1],
    ['Heading2', 2],
    ['Heading3', 3],
    ['Title', 1],
  ]);
  for (const m of stylesXml.matchAll(/<w:style\b([^>]*)>([\s\S]*?)<\/w:style>/g)) {
    const id = attr(m[1]!, 'w:styleId');
    const name = /<w:name w:val="([^"]*)"/.exec(m[2]!)?.[1]?.toLowerCase();
    if (!id || !name) continue;
    const h = /^heading ([1-9])$/.exec(name);
    if (h) out.set(id, Number(h[1]));
    else if (name === 'title') out.set(id, 1);
    // A table of contents' entries ("toc 1", ids like TOC1 or TM1): left out, as ODT indexes are.
    else if (/^toc [1-9]$/.test(name)) out.set(id, TOC);
  }
  return out;
}

/** Walks a document's XML and collects its paragraphs, headings and tables. */
function walkXml(xml: string, d: Dialect, borders: Map<string, { vertical: boolean; horizontal: boolean }>): WordprocSource {
  const paragraphs: string[] = [];
  const headings: string[] = [];
  const tables: Table[] = [];
  const open: Table[] = [];
  let inBody = false;
  let skipDepth = 0;
  let skipName = '';
  let para: { parts: string[]; level: number } | null = null;
  let paraDepth = 0;
  let style: string | null = null;
  let inText = false;
  let cell: Cell | null = null;
  let header = false;
  let coveredLeft = 0;
  const tag = /<(\/?)([\w:.-]+)((?:\s+[^\s=>/]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|<[?!][^>]*>|([^<]+)/g;
  for (const m of xml.matchAll(tag)) {
    const [, close, name, attrs = '', selfClose, text] = m;
    if (!name) {
      if (text !== undefined && para && skipDepth === 0 && (d.text === null || inText)) para.parts.push(decode(text));
      continue;
    }
    if (!inBody) {
      if (name === d.body && !close) inBody = true;
      continue;
    }
    if (close && name === d.body) break;
    if (skipDepth > 0) {
      if (name === skipName && !selfClose) skipDepth += close ? -1 : 1;
      continue;
    }
    if (!close && d.skip.has(name)) {
      if (d.skip.get(name) && para) para.parts.push(CUT);
      if (name === 'w:pPr' && !selfClose) {
        // The paragraph's style comes before the skip.
        const rest = xml.slice(m.index, xml.indexOf('</w:pPr>', m.index));
        style = /<w:pStyle w:val="([^"]*)"/.exec(rest)?.[1] ?? null;
      }
      if (!selfClose) {
        skipDepth = 1;
        skipName = name;
      }
      continue;
    }
    if (d.paragraph.has(name)) {
      if (!close) {
        if (para) {
          // A paragraph inside a paragraph (a frame's, a note's that was not skipped): part of the outer one.
          paraDepth++;
          continue;
        }
        if (selfClose) {
          if (cell) cell.parts.push('');
          continue;
        }
        para = { parts: [], level: d.headingLevel(name, attrs, null) };
        paraDepth = 0;
        style = null;
      } else if (para) {
        if (paraDepth > 0) {
          paraDepth--;
          continue;
        }
        const level = para.level || d.headingLevel(name, '', style);
        const t = para.parts.join('').replace(/\s+/g, ' ').trim();
        if (cell) cell.parts.push(t);
        else if (level >= 1) {
          if (level <= 3 && t && !t.includes(CUT)) headings.push(t);
        } else if (t) paragraphs.push(t);
        para = null;
      }
      continue;
    }
    if (para && !close && d.spaces.has(name)) {
      // A tab in a cell sets its text in two aligned parts (read as two cells): the cell is left unread.
      para.parts.push(name === 'text:s' ? ' '.repeat(Number(attr(attrs, 'text:c') ?? 1)) : cell && /tab$/.test(name) ? CUT : ' ');
      continue;
    }
    if (d.text && name === d.text) {
      inText = !close && !selfClose;
      continue;
    }
    if (name === d.table) {
      if (!close) {
        if (cell || open.length) for (const t of open) t.bad = true;
        const t: Table = { rows: [], bad: open.length > 0, styleRules: null };
        open.push(t);
        tables.push(t);
        // DOCX: the table's own borders (tblBorders) and style.
        if (d === ODT) continue;
        const pr = /<w:tblPr>([\s\S]*?)<\/w:tblPr>/.exec(xml.slice(m.index, m.index + 4000))?.[1] ?? '';
        const b = /<w:tblBorders>([\s\S]*?)<\/w:tblBorders>/.exec(pr)?.[1];
        const on = (side: string): boolean => {
          const v = new RegExp(`<w:${side}\\b[^>]*w:val="([^"]*)"`).exec(b ?? '')?.[1];
          return !!v && v !== 'none' && v !== 'nil';
        };
        if (b !== undefined) t.styleRules = on('insideV') || on('left') || on('right') ? 'vertical' : on('insideH') || on('top') || on('bottom') ? 'horizontal' : 'none';
        else if (/<w:tblStyle w:val="[^"]*Grid[^"]*"/.test(pr)) t.styleRules = 'vertical';
      } else {
        open.pop();
        cell = null;
      }
      continue;
    }
    const table = open[open.length - 1];
    if (!table) continue;
    if (d.headerRows && name === d.headerRows) {
      header = !close && !selfClose;
      continue;
    }
    if (name === 'w:trPr' || name === 'w:tcPr') {
      // DOCX row and cell properties: a header row, a column span, a vertical merge.
      if (close || selfClose) continue;
      const pr = xml.slice(m.index, xml.indexOf(`</${name}>`, m.index));
      if (name === 'w:trPr') {
        if (/<w:tblHeader(?:\s+w:val="(?:1|true|on)")?\s*\/>/.test(pr)) table.rows[table.rows.length - 1]!.header = true;
      } else if (cell) {
        cell.span = Number(/<w:gridSpan w:val="(\d+)"/.exec(pr)?.[1] ?? 1);
        if (/<w:vMerge\b/.test(pr)) cell.unreadable = true;
        const tb = /<w:tcBorders>([\s\S]*?)<\/w:tcBorders>/.exec(pr)?.[1] ?? '';
        const on = (side: string): boolean => {
          const v = new RegExp(`<w:${side}\\b[^>]*w:val="([^"]*)"`).exec(tb)?.[1];
          return !!v && v !== 'none' && v !== 'nil';
        };
        cell.vertical = on('left') || on('right') || on('start') || on('end');
        cell.horizontal = on('top') || on('bottom');
      }
      continue;
    }
    if (open.length > 1) continue;
    if (name === d.row) {
      if (!close) {
        const n = Number(attr(attrs, 'table:number-rows-repeated') ?? 1);
        table.rows.push({ cells: [], header });
        if (n > 1 && n < 50) for (let k = 1; k < n; k++) table.rows.push({ cells: [], header }); // repeated rows are empty ones
        coveredLeft = 0;
      }
      continue;
    }
    if (name === d.cell || name === d.covered) {
      const row = table.rows[table.rows.length - 1];
      if (!row) continue;
      if (close) {
        cell = null;
        continue;
      }
      if (name === d.covered) {
        if (coveredLeft > 0) coveredLeft--;
        // A cell covered by a row span above: its column is taken, its text unknown.
        else row.cells.push({ parts: [], span: 1, unreadable: true, vertical: false, horizontal: false });
        continue;
      }
      const span = Number(attr(attrs, 'table:number-columns-spanned') ?? 1);
      const rowsSpanned = Number(attr(attrs, 'table:number-rows-spanned') ?? 1);
      const b = borders.get(attr(attrs, 'table:style-name') ?? '');
      const c: Cell = { parts: [], span, unreadable: rowsSpanned > 1, vertical: b?.vertical ?? false, horizontal: b?.horizontal ?? false };
      const repeat = Number(attr(attrs, 'table:number-columns-repeated') ?? 1);
      row.cells.push(c);
      for (let k = 1; k < repeat && k < 64; k++) row.cells.push({ ...c, parts: [] });
      coveredLeft = span - 1;
      if (!selfClose) cell = c;
      continue;
    }
  }
  return { paragraphs, headings, tables: tables.filter((t) => !t.bad).map(toSourceTable).filter((t): t is SourceTable => t !== null) };
}

/** A parsed table as tables.ts reads a LaTeX one (three rows and two columns at least, as there). */
function toSourceTable(t: Table): SourceTable | null {
  const rows = t.rows.filter((r) => r.cells.length > 0);
  if (rows.length < 3) return null;
  const width = Math.max(...rows.map((r) => r.cells.reduce((s, c) => s + c.span, 0)));
  if (width < 2) return null;
  const out = rows.map((r) => {
    let col = 0;
    const cells = r.cells.map((c) => {
      const filled = c.parts.filter((p) => p !== '');
      const text = c.unreadable || filled.length > 1 || filled.some((p) => p.includes(CUT)) ? null : (filled[0] ?? '');
      const x = { text, span: c.span, col };
      col += c.span;
      return x;
    });
    while (col < width) cells.push({ text: '', span: 1, col: col++ });
    return cells;
  });
  const all = rows.flatMap((r) => r.cells);
  const rules: TableRules = t.styleRules ?? (all.some((c) => c.vertical) ? 'vertical' : all.some((c) => c.horizontal) ? 'horizontal' : 'none');
  const headerRows = rows.filter((r) => r.header).length;
  const h = headerRows > 0 && headerRows <= 3 && headerRows < rows.length - 1 ? headerRows : 0; // two body rows at least, as tables.ts
  const spanning = out.slice(0, Math.max(h, 1)).some((r) => r.some((c) => c.span > 1 && c.text));
  return { rows: out, columns: width, headerRows: h, rules, spanning };
}

/** An ODT's paragraphs, headings and tables from its content.xml. */
export function odtSource(contentXml: string): WordprocSource {
  return walkXml(contentXml, ODT, odtCellBorders(contentXml));
}

/** A DOCX's paragraphs, headings and tables from word/document.xml (heading styles from word/styles.xml). */
export function docxSource(documentXml: string, stylesXml = ''): WordprocSource {
  return walkXml(documentXml, DOCX(docxHeadingStyles(stylesXml)), new Map());
}

/** A heading's words without a typed number ("2.1 Usage": the heading check strips the PDF's number). */
const unnumbered = (h: string): string => h.replace(/^(?:\d+(?:\.\d+)*\.?|[A-Z]\.)\s+/, '');

/**
 * Checks of a word-processor document: headings spread over it (up to 8), 12 present runs and 8 order
 * checks from its paragraphs, and cell checks of up to four tables. `bag` holds the words of the PDF's own
 * text (a run or a cell whose words it lacks was not set, e.g. hidden or in a field).
 */
export function wordprocChecks(src: WordprocSource, bag: ReadonlySet<string>): RealCheck[] {
  const inPdf = (t: string): boolean => t.normalize('NFKC').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean).every((w) => bag.has(w));
  const heads: string[] = [];
  for (const h of src.headings.map(unnumbered)) if (inPdf(h) && !heads.includes(h)) heads.push(h);
  const titled = heads.filter((h) => /^[\p{L}][\p{L}\p{N} ,.:'()-]{2,80}$/u.test(h));
  const spread = titled.length <= 8 ? titled : Array.from({ length: 8 }, (_, i) => titled[Math.floor((i * titled.length) / 8)]!);
  const paragraphs = src.paragraphs.map((p) => p.replaceAll(CUT, ' | '));
  const checks = checksFromParagraphs(paragraphs, spread, bag);
  checks.push(...documentTableChecks(src.tables, inPdf));
  return checks;
}
