// Table checks of the real development set (issue 28), olmOCR-bench style: a cell's text and its relation to
// its neighbours (left, right, up, down) and to the heading of its column, written from the LaTeX source of
// `tabular`, `tabular*`, `tabularx`, `tabulary` and `longtable` environments (ruled, booktabs, or without any
// rules; `\multicolumn` spanning headers over sub-columns), and scored on GFM tables in a tool's output.
// Cells whose macros cannot be expanded reliably (anything beyond font switches, `\multicolumn`, `\num`, a
// few symbols and plain numbers in math) are left out, and so are relations to them.
import { normalizeForDistance } from '../metrics.js';
import { tables as gfmTables } from '../devset/checks.js';
import { group, skipSpace } from './tex-source.js';

/** How a source table is ruled: vertical rules in the column spec, only horizontal rules, or none at all. */
export type TableRules = 'vertical' | 'horizontal' | 'none';

export interface CellCheck {
  readonly kind: 'cell';
  /** The cell's text as TeX sets it (compared letters and digits only). */
  readonly cell: string;
  readonly left?: string;
  readonly right?: string;
  readonly up?: string;
  readonly down?: string;
  /** A header cell over the cell's column (the sub-column's header, or a spanning header over it). */
  readonly top_heading?: string;
  /** The source table's rules, and whether it has a spanning header over sub-columns (for the report). */
  readonly rules: TableRules;
  readonly spanning?: true;
}

/** One cell of a parsed source table: its text (null when it holds macros left unexpanded) and its span. */
interface SrcCell {
  readonly text: string | null;
  readonly span: number;
  readonly col: number;
}

export interface SourceTable {
  readonly rows: SrcCell[][];
  readonly columns: number;
  /** Rows that form the header (0 when the source does not mark one). */
  readonly headerRows: number;
  readonly rules: TableRules;
  readonly spanning: boolean;
}

/** Letters and digits only, lower case (how cells are compared: quotes, dashes, spaces do not count). */
export const cellKey = (s: string): string => normalizeForDistance(s).normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

const TABLE_ENVS = ['tabular', 'tabular*', 'tabularx', 'tabulary', 'longtable'] as const;
/** Environments whose content is shown as code, not typeset (a tabular inside is source text). */
const CODE_ENVS = /\\begin\{(verbatim\*?|Verbatim|lstlisting|minted|alltt|comment|macrocode|LTXexample|tcblisting|sourcecode|code|example|filecontents\*?|BVerbatim|LVerbatim|codeexample|latexcode|texcode|lstcode)\}[\s\S]*?\\end\{\1\}/g;



/** Columns of a tabular column spec and whether it draws vertical rules (null when it cannot be read). */
export function parseColumnSpec(spec: string): { columns: number; vertical: boolean } | null {
  let columns = 0;
  let vertical = false;
  for (let i = 0; i < spec.length; ) {
    const c = spec[i]!;
    if (/\s/.test(c)) i++;
    else if (c === '|') {
      vertical = true;
      i++;
    } else if (c === '@' || c === '!' || c === '>' || c === '<') {
      const g = group(spec, skipSpace(spec, i + 1));
      if (!g) return null;
      if (c === '!' && /\\vline|\|/.test(g.text)) vertical = true;
      i = g.end;
    } else if (c === '*') {
      const n = group(spec, skipSpace(spec, i + 1));
      const body = n ? group(spec, skipSpace(spec, n.end)) : null;
      if (!n || !body || !/^\s*\d+\s*$/.test(n.text)) return null;
      const inner = parseColumnSpec(body.text);
      if (!inner) return null;
      columns += Number(n.text) * inner.columns;
      vertical ||= inner.vertical;
      i = body.end;
    } else if (/[pmbwW]/.test(c)) {
      // p{width}, m{width}, b{width}; w{align}{width} and W{align}{width} (array).
      let j = skipSpace(spec, i + 1);
      for (let k = 0; k < (/[wW]/.test(c) ? 2 : 1); k++) {
        const g = group(spec, j);
        if (!g) return null;
        j = skipSpace(spec, g.end);
      }
      columns++;
      i = j;
    } else if (c === 'D' || c === 'S' || c === 'X' || /[A-Za-z]/.test(c)) {
      // D{.}{.}{2} (dcolumn), S[...] (siunitx), X (tabularx), l/c/r and column types of the document's own.
      let j = i + 1;
      if (c === 'D') for (let k = 0; k < 3; k++) {
        const g = group(spec, skipSpace(spec, j));
        if (!g) return null;
        j = g.end;
      }
      else if (spec[skipSpace(spec, j)] === '[') {
        const g = group(spec, skipSpace(spec, j), '[', ']');
        if (!g) return null;
        j = g.end;
      }
      columns++;
      i = j;
    } else if (c === '{' || c === '}') i++;
    else return null;
  }
  return columns > 0 ? { columns, vertical } : null;
}

/** Declarations that change only the font, size or alignment (dropped from a cell). */
const DECLARATIONS = /\\(?:centering|raggedright|raggedleft|arraybackslash|tiny|scriptsize|footnotesize|small|normalsize|large|Large|LARGE|huge|Huge|bfseries|mdseries|itshape|upshape|slshape|scshape|rmfamily|sffamily|ttfamily|normalfont|em|bf|it|rm|sf|tt|sc|strut|hfill|null|relax|quad|qquad|noindent|unskip|hspace\*?\{[^{}]*\}|vspace\*?\{[^{}]*\}|rule\{[^{}]*\}\{[^{}]*\}|color\{[^{}]*\}|cellcolor(?:\[[^\]]*\])?\{[^{}]*\})(?![A-Za-z])\s*/g;
/** Commands whose one argument is set as it is (font and emphasis wrappers). */
const WRAPPERS = /\\(?:textbf|textit|emph|textrm|textsf|texttt|textsc|textup|textmd|textsl|textnormal|underline|mbox|thead|textcolor\{[^{}]*\})\s*\{/;

/**
 * A cell's text as TeX sets it, or null when it holds something this cannot expand reliably (a `|` too: in
 * package manuals it is `shortvrb`'s verbatim delimiter).
 */
export function cellText(raw: string): { text: string | null; bold: boolean } {
  let s = raw;
  const bold = /^\s*(?:\{?\s*\\bfseries|\\textbf\s*\{|\{\\bf\s)/.test(s);
  if (/\\verb|\\(?:begin|end)\b|#|\||\\\\|\\newline|\\shortstack|\\makecell|\\parbox|\\multirow|\\rotatebox|\\includegraphics|\\ref\b|\\cite|\\footnote/.test(s)) return { text: null, bold };
  s = s.replace(/\\(?:textbackslash)(?![A-Za-z])/g, '\u0000');
  // Wrappers: innermost first, until none is left.
  for (let guard = 0; guard < 20; guard++) {
    const m = WRAPPERS.exec(s);
    if (!m) break;
    const g = group(s, m.index + m[0].length - 1);
    if (!g) return { text: null, bold };
    // Kept as a group, so a declaration before it stays a whole control word ("\small{Net}").
    s = `${s.slice(0, m.index)}{${g.text}}${s.slice(g.end)}`;
  }
  // \num{1331} (siunitx): the number.
  s = s.replace(/\\num\s*\{([-+]?[\d.,\s]+)\}/g, '$1');
  s = s.replace(DECLARATIONS, '');
  // Plain numbers and a few signs in math.
  s = s.replace(/\$([^$]*)\$/g, (m, x: string) => {
    const t = x.replace(/\\pm(?![A-Za-z])/g, '±').replace(/\\times(?![A-Za-z])/g, '×').replace(/\\%/g, '%').replace(/\{|\}/g, '').trim();
    return /^[-+±×<>=.,\d\s%]*$/.test(t) ? t.replace(/-/g, '−') : '\u0001';
  });
  if (s.includes('\u0001') || s.includes('$')) return { text: null, bold };
  s = s
    .replace(/\\([%&$_{}#])/g, '$1')
    .replace(/\\(?:ldots|dots|textellipsis)(?![A-Za-z])\s*/g, '…')
    .replace(/\\textendash(?![A-Za-z])\s*/g, '–')
    .replace(/\\textemdash(?![A-Za-z])\s*/g, '—')
    .replace(/\\(?:[,;: /]|@)/g, ' ')
    .replace(/---/g, '—')
    .replace(/--/g, '–')
    .replace(/~/g, ' ')
    .replace(/``|''/g, '"')
    .replace(/\u0000/g, '\\');
  if (/\\[A-Za-z@]/.test(s) || /[\^_]/.test(s)) return { text: null, bold };
  s = s.replace(/[{}]/g, '').replace(/\s+/g, ' ').trim();
  return { text: s, bold };
}

/** Splits at a separator at brace depth 0 (and not escaped). `sep` is a literal string. */
function splitTop(s: string, sep: RegExp): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  // A separator that starts at `i` ends a part: the index to go on from (the loop adds one), else null.
  const cutAt = (i: number): number | null => {
    sep.lastIndex = i;
    const m = sep.exec(s);
    if (!m || m.index !== i) return null;
    out.push(s.slice(start, i));
    start = i + m[0].length;
    return start - 1;
  };
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\') {
      // A row end: \\ at depth 0 (sep decides).
      const next = depth === 0 ? cutAt(i) : null;
      if (next !== null) i = next;
      else i++;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}') depth = Math.max(0, depth - 1);
    else if (depth === 0) i = cutAt(i) ?? i;
  }
  out.push(s.slice(start));
  return out;
}

/** Horizontal rules and row decorations at the start of a row (removed); whether there was a rule, and a full-width one. */
function leadingRules(row: string): { rest: string; rule: boolean; full: boolean } {
  let s = row;
  let rule = false;
  let full = false;
  for (;;) {
    const t = s.replace(/^\s+/, '');
    const m = /^\\(hline|toprule|midrule|bottomrule|cmidrule|cline|hhline|addlinespace|rowcolor|noalign|specialrule|morecmidrules|endfirsthead|endhead|endfoot|endlastfoot|hdashline|cdashline)(?![A-Za-z])/.exec(t);
    if (!m) return { rest: t, rule, full };
    if (/rule$|^hline$|^cline$|^hhline$|dashline$/.test(m[1]!)) rule = true;
    // A partial rule (under a spanning header's columns) does not end the header.
    if (/^(?:hline|toprule|midrule|bottomrule|hhline|specialrule|hdashline)$/.test(m[1]!)) full = true;
    let i = m[0].length;
    // Arguments: (trim) [width] {range}.
    for (;;) {
      const j = skipSpace(t, i);
      const g = t[j] === '(' ? group(t, j, '(', ')') : t[j] === '[' ? group(t, j, '[', ']') : t[j] === '{' && m[1] !== 'hline' && m[1] !== 'toprule' && m[1] !== 'midrule' && m[1] !== 'bottomrule' ? group(t, j) : null;
      if (!g) break;
      i = g.end;
      if (m[1] === 'rowcolor' || m[1] === 'noalign') break;
    }
    s = t.slice(i);
  }
}

/** The tables of a LaTeX source (environments nested in another table, or shown as code, left out). */
export function sourceTables(tex: string): SourceTable[] {
  const src = tex.replace(/(^|[^\\])%.*$/gm, '$1').replace(CODE_ENVS, ' ');
  const out: SourceTable[] = [];
  const begin = /\\begin\{(tabular\*?|tabularx|tabulary|longtable)\}/g;
  for (const m of src.matchAll(begin)) {
    const env = m[1]! as (typeof TABLE_ENVS)[number];
    let i = m.index + m[0].length;
    // Arguments: tabular*, tabularx and tabulary take a width first; a [position] may come before the spec.
    if (env !== 'tabular' && env !== 'longtable') {
      const w = group(src, skipSpace(src, i));
      if (!w) continue;
      i = w.end;
    }
    let j = skipSpace(src, i);
    if (src[j] === '[') {
      const p = group(src, j, '[', ']');
      if (!p) continue;
      j = skipSpace(src, p.end);
    }
    const spec = group(src, j);
    if (!spec) continue;
    const endTag = `\\end{${env}}`;
    const end = src.indexOf(endTag, spec.end);
    if (end < 0) continue;
    let body = src.slice(spec.end, end);
    if (/\\begin\{(?:tabular|longtable|array|minipage)/.test(body)) continue;
    const cs = parseColumnSpec(spec.text);
    if (!cs || cs.columns < 2) continue;
    // longtable: the first head (or the head), then the body; the repeated head and the feet are left out.
    if (env === 'longtable') {
      const parts = body.split(/\\(endfirsthead|endhead|endfoot|endlastfoot)(?![A-Za-z])/);
      if (parts.length > 1) {
        let head = '';
        let seenFirst = false;
        for (let k = 0; k + 1 < parts.length; k += 2) {
          const marker = parts[k + 1]!;
          if (marker === 'endfirsthead') {
            head = parts[k]!;
            seenFirst = true;
          } else if (marker === 'endhead' && !seenFirst) head = parts[k]!;
        }
        body = `${head}\\\\ ${parts[parts.length - 1]!}`;
      }
      body = body.replace(/\\caption\*?\s*(?:\[[^\]]*\])?\s*\{(?:[^{}]|\{[^{}]*\})*\}\s*(?:\\\\)?/g, '').replace(/\\label\{[^}]*\}/g, '');
    }
    const rawRows = splitTop(body, /\\\\\*?(?:\s*\[[^\]]*\])?|\\tabularnewline(?![A-Za-z])|\\cr(?![A-Za-z])/y);
    const rows: SrcCell[][] = [];
    const bold: boolean[] = [];
    /** Rows (index into `rows`) after which a rule is drawn. */
    const ruleAfter = new Set<number>();
    let horizontal = false;
    let bad = false;
    for (const raw of rawRows) {
      const { rest, rule, full } = leadingRules(raw);
      if (rule) horizontal = true;
      if (full) ruleAfter.add(rows.length - 1);
      if (!rest.trim()) continue;
      const cells: SrcCell[] = [];
      let col = 0;
      let allBold = true;
      for (const c of splitTop(rest, /&/y)) {
        const mc = /^\s*\\multicolumn\s*\{\s*(\d+)\s*\}\s*/.exec(c);
        let span = 1;
        let content = c;
        if (mc) {
          span = Number(mc[1]);
          const specG = group(c, skipSpace(c, mc[0].length));
          const textG = specG ? group(c, skipSpace(c, specG.end)) : null;
          if (!specG || !textG || c.slice(textG.end).trim()) {
            bad = true;
            break;
          }
          content = textG.text;
        }
        const t = cellText(content);
        if (t.text && !t.bold) allBold = false;
        cells.push({ text: t.text, span, col });
        col += span;
      }
      if (bad || col > cs.columns) {
        bad = true;
        break;
      }
      // Rows may leave their last cells out.
      while (col < cs.columns) cells.push({ text: '', span: 1, col: col++ });
      rows.push(cells);
      bold.push(allBold && cells.some((c) => c.text));
    }
    if (bad || rows.length < 3) continue;
    // The header: the rows above the first full rule under the first row (three rows at most), or a first row
    // all in bold; none otherwise (a table without rules or bold says nothing of its header).
    const firstRule = [...ruleAfter].filter((r) => r >= 0).sort((a, b) => a - b)[0];
    const headerRows = firstRule !== undefined && firstRule <= 2 && firstRule < rows.length - 2 ? firstRule + 1 : bold[0] ? 1 : 0;
    const spanning = rows.slice(0, Math.max(headerRows, 1)).some((r) => r.some((c) => c.span > 1 && c.text)) && rows.length > 1;
    out.push({ rows, columns: cs.columns, headerRows, rules: cs.vertical ? 'vertical' : horizontal ? 'horizontal' : 'none', spanning });
  }
  return out;
}

/** The cell checks of a document's first `tables` source tables that yield any (as build.ts and wordproc.ts take them). */
export function documentTableChecks(sources: Iterable<SourceTable>, inPdf: (text: string) => boolean, tables = 4): CellCheck[] {
  const out: CellCheck[] = [];
  let taken = 0;
  for (const t of sources) {
    if (taken >= tables) break;
    const cells = tableChecks(t, inPdf);
    if (cells.length === 0) continue;
    taken++;
    out.push(...cells);
  }
  return out;
}

/** Checks from one source table: up to `max` body cells spread over the table, and a sub-column header. */
export function tableChecks(t: SourceTable, inPdf: (text: string) => boolean, max = 4): CellCheck[] {
  const at = (r: number, c: number): SrcCell | undefined => t.rows[r]?.find((x) => x.col <= c && c < x.col + x.span);
  const usable = (x: SrcCell | undefined): x is SrcCell & { text: string } => !!x && x.text !== null && cellKey(x.text) !== '' && inPdf(x.text);
  const keys = new Map<string, number>();
  for (const r of t.rows) for (const c of r) if (c.text) keys.set(cellKey(c.text), (keys.get(cellKey(c.text)) ?? 0) + 1);
  const unique = (x: SrcCell & { text: string }): boolean => keys.get(cellKey(x.text)) === 1;
  // A body row needs two cells or more that can be read.
  const bodyRows = t.rows.map((_, r) => r).filter((r) => r >= t.headerRows && t.rows[r]!.filter((c) => usable(c)).length >= 2);
  if (bodyRows.length < 2) return [];
  const spanning = t.spanning && t.headerRows >= 2 ? { spanning: true as const } : {};
  const heading = (r: number, c: number): string | undefined => {
    for (let h = Math.min(r, t.headerRows) - 1; h >= 0; h--) {
      const x = at(h, c);
      if (x && x.text && usable(x)) return x.text;
      if (x && x.text === null) return undefined;
    }
    return undefined;
  };
  const candidates: CellCheck[] = [];
  for (const r of bodyRows) {
    for (const x of t.rows[r]!) {
      if (!usable(x) || x.span !== 1 || !unique(x)) continue;
      const nb = (y: SrcCell | undefined): string | undefined => (y && y.span === 1 && usable(y) ? y.text : undefined);
      const left = x.col > 0 ? nb(at(r, x.col - 1)) : undefined;
      const right = nb(at(r, x.col + 1));
      const up = r > 0 ? nb(at(r - 1, x.col)) : undefined;
      const down = nb(at(r + 1, x.col));
      const top = heading(r, x.col);
      const rel: Partial<CellCheck> = { ...(left ? { left } : right ? { right } : {}), ...(up && r - 1 >= t.headerRows ? { up } : down ? { down } : {}), ...(top ? { top_heading: top } : {}) };
      if (Object.keys(rel).length === 0) continue;
      candidates.push({ kind: 'cell', cell: x.text, ...rel, rules: t.rules, ...spanning });
    }
  }
  const picked = candidates.length <= max ? candidates : Array.from({ length: max }, (_, i) => candidates[Math.floor(((i + 0.5) * candidates.length) / max)]!);
  // A sub-column header under a spanning header: the spanning header is its column's heading.
  if (t.spanning && t.headerRows >= 2) {
    for (let h = 1; h < t.headerRows; h++) {
      const sub = t.rows[h]!.find((x) => usable(x) && x.span === 1 && unique(x) && at(h - 1, x.col)?.span !== 1 && usable(at(h - 1, x.col)));
      if (sub) {
        picked.push({ kind: 'cell', cell: sub.text!, top_heading: at(h - 1, sub.col)!.text!, rules: t.rules, spanning: true });
        break;
      }
    }
  }
  return picked;
}

/**
 * Whether a tool's output passes a cell check: some GFM table has a cell with the check's text whose
 * neighbours are the check's (the cell right of it, left, above, below) and whose column has the check's
 * heading in a row above it, where a heading spanning several columns is written in the first of them with
 * the others left empty (as GFM has no column spans). Plain text has no tables and passes none.
 */
export function cellPasses(c: CellCheck, out: string): boolean {
  const want = cellKey(c.cell);
  for (const t of gfmTables(out)) {
    const k = t.map((r) => r.map(cellKey));
    for (let r = 0; r < k.length; r++) {
      for (let col = 0; col < k[r]!.length; col++) {
        if (k[r]![col] !== want) continue;
        if (c.left !== undefined && k[r]![col - 1] !== cellKey(c.left)) continue;
        if (c.right !== undefined && k[r]![col + 1] !== cellKey(c.right)) continue;
        if (c.up !== undefined && k[r - 1]?.[col] !== cellKey(c.up)) continue;
        if (c.down !== undefined && k[r + 1]?.[col] !== cellKey(c.down)) continue;
        if (c.top_heading !== undefined) {
          const h = cellKey(c.top_heading);
          const above = (rr: number): boolean => {
            for (let cc = col; cc >= 0; cc--) {
              if (k[rr]![cc] === h) return true;
              if (k[rr]![cc] !== '') return false;
            }
            return false;
          };
          let ok = false;
          for (let rr = r - 1; rr >= 0 && !ok; rr--) ok = above(rr);
          if (!ok) continue;
        }
        return true;
      }
    }
  }
  return false;
}
