// Table detection on a page's lines: rows are lines sharing a vertical band; a table is a run of at least
// three rows with two or more separated, narrow cells whose x-extents line up into columns. Conservative
// on purpose: two-column prose (two wide cells per row) is not a table, and a region is only emitted as a
// Markdown table when every column is used by most rows.
import type { LayoutLine } from '../layout-model.js';
import { CAPTION_RE, SECTION_NUMBER_RE } from './patterns.js';

/** A detected table: its source lines (left out of the text flow) and its cell texts, row-major. */
export interface TableRegion {
  readonly lines: LayoutLine[];
  readonly rows: string[][];
  /**
   * A list, not a table: a column of bullets set apart from the items' text (see {@link bulletList}). The
   * caller joins each bullet to the text beside it and reads the lines as list items.
   */
  readonly list?: true;
}

interface Row {
  y0: number;
  y1: number;
  cells: LayoutLine[];
  /** Further lines of wrapped cells (see {@link joinWrappedCells}): text of the cell above, not cells. */
  more: LayoutLine[];
  /** First lines of cells set above the row's top line (a description beside a vertically centred key). */
  lead?: LayoutLine[];
}

/**
 * Text columns of a page: split at x-gaps that no line crosses within the band where both sides have text
 * (lines spanning the text width left out), with five or more prose lines (20+ characters) on each side. A
 * spread of two pages on one sheet, or a table in one column beside prose in the other, would otherwise share
 * rows across the gutter and be read as one table. The gap must be one em, or 0.6 em where the gutter is
 * also drawn by alignment: five or more prose lines ending at the left column's right edge (justified) and
 * five or more starting at the right column's left edge (LaTeX sets its columns 10 pt apart, under one em of
 * an 11 or 12 pt body). A line crossing the gap above or below that band (a title over both columns that is
 * not wide enough to be left out) does not hide the gutter.
 */
function textColumns(lines: readonly LayoutLine[], body: number): LayoutLine[][] {
  let minX = Infinity;
  let maxX = -Infinity;
  for (const l of lines) {
    minX = Math.min(minX, l.x0);
    maxX = Math.max(maxX, l.x1);
  }
  const narrow = lines.filter((l) => l.x1 - l.x0 <= 0.55 * (maxX - minX));
  // Candidate gutters: gaps of at least 0.6 em between the x-extents of prose lines at body size (a larger
  // title above the columns may reach over the gutter; isGutter checks the band where the columns are).
  const longLines = narrow.filter((l) => l.text.length >= 20 && l.size <= 1.15 * body);
  if (longLines.length < 10) return [[...lines]];
  const spans = longLines.map((l) => [l.x0, l.x1] as [number, number]).sort((a, b) => a[0] - b[0]);
  const found: number[] = [];
  let reach = spans[0]![1];
  for (const [a, b] of spans.slice(1)) {
    if (a - reach >= 0.6 * body) {
      const at = (reach + a) / 2;
      if (isGutter(at, lines, narrow, body)) found.push(at);
    }
    reach = Math.max(reach, b);
  }
  // A gap hidden from the sweep by a line above or below the columns that crosses it (an author block over
  // both columns of a paper's first page): a left edge where three or more prose lines start, other than
  // the leftmost, is tried just left of it.
  const starts = new Map<number, number>();
  for (const [a] of spans) starts.set(Math.round(a), (starts.get(Math.round(a)) ?? 0) + 1);
  const leftmost = spans[0]![0];
  for (const [x, n] of starts) {
    if (n < 3 || x - leftmost < 4 * body) continue;
    const at = x - 0.5 - 0.3 * body;
    if (!found.some((c) => Math.abs(c - at) < body) && isGutter(at, lines, narrow, body, true)) found.push(at);
  }
  const cuts = found.sort((a, b) => a - b).filter((c, k, all) => k === 0 || c - all[k - 1]! >= body);
  if (cuts.length === 0) return [[...lines]];
  const cols: LayoutLine[][] = Array.from({ length: cuts.length + 1 }, () => []);
  for (const l of lines) cols[cuts.filter((c) => l.x0 >= c).length]!.push(l);
  return cols;
}

/**
 * Three consecutive rows (each within 1.25 line heights of the one before: set solid, as table rows are)
 * with short lines (under 20 characters) on both sides of a gap: a table's rows across it. Two text columns
 * have such rows only now and then (a heading beside a paragraph's last line), and an author block's rows
 * of names and cities stand further apart (its colleges between them are longer).
 */
function tableAcross(left: readonly LayoutLine[], right: readonly LayoutLine[], inBand: (l: LayoutLine) => boolean): boolean {
  const short = (l: LayoutLine): boolean => inBand(l) && l.text.trim().length < 20;
  const shortRight = right.filter(short);
  const rows = left
    .filter((l) => short(l) && shortRight.some((r) => Math.min(l.y1, r.y1) - Math.max(l.y0, r.y0) > 0.5 * Math.min(l.y1 - l.y0, r.y1 - r.y0)))
    .map((l) => [(l.y0 + l.y1) / 2, l.y1 - l.y0] as const)
    .sort((a, b) => a[0] - b[0]);
  let run = 1;
  for (let k = 1; k < rows.length; k++) {
    const d = rows[k]![0] - rows[k - 1]![0];
    const h = Math.max(rows[k]![1], rows[k - 1]![1]);
    if (d < 0.5 * h) continue; // another cell of the same row
    run = d <= 1.25 * h ? run + 1 : 1;
    if (run >= 3) return true;
  }
  return false;
}

/**
 * Three consecutive rows (each within 2.5 line heights of the one before: a table's rows may be spread)
 * with lines on both sides of a gap, two or more on one side, all of them shorter than a line of prose
 * (40 characters) and none of them code (a listing's short lines beside an algorithm's numbered lines): a column of text has one line on a baseline, so cells on both sides of a gap, several
 * on one, are the cells of one table (a five-column journal grid whose names and web addresses, 20
 * characters and more, passed for prose on both sides), not two text columns, where such rows are half
 * of the rows left of the gap in the band or more (a `table*` over both columns above them keeps their
 * gutter). Prose beside a table in the other column keeps its gutter (its lines are longer).
 */
function cellsBothSides(left: readonly LayoutLine[], right: readonly LayoutLine[], inBand: (l: LayoutLine) => boolean): boolean {
  const on = (l: LayoutLine, o: LayoutLine): boolean => Math.min(l.y1, o.y1) - Math.max(l.y0, o.y0) > 0.5 * Math.min(l.y1 - l.y0, o.y1 - o.y0);
  const ls = left.filter(inBand);
  const rs = right.filter(inBand);
  const short = (l: LayoutLine): boolean => l.text.trim().length < 40 && !l.mono;
  const rows = ls
    .filter((l) => {
      const a = ls.filter((o) => on(l, o));
      const b = rs.filter((o) => on(l, o));
      return b.length >= 1 && a.length + b.length >= 3 && a.every(short) && b.every(short);
    })
    .map((l) => [(l.y0 + l.y1) / 2, l.y1 - l.y0] as const)
    .sort((a, b) => a[0] - b[0]);
  // Distinct rows (baselines) of such cells, and of all the lines on the gap's left in the band.
  const distinct = (ys: (readonly [number, number])[]): number => ys.filter((r, k) => k === 0 || r[0] - ys[k - 1]![0] >= 0.5 * Math.max(r[1], ys[k - 1]![1])).length;
  const all = ls.map((l) => [(l.y0 + l.y1) / 2, l.y1 - l.y0] as const).sort((a, b) => a[0] - b[0]);
  let run = 1;
  let longest = rows.length ? 1 : 0;
  for (let k = 1; k < rows.length; k++) {
    const d = rows[k]![0] - rows[k - 1]![0];
    const h = Math.max(rows[k]![1], rows[k - 1]![1]);
    if (d < 0.5 * h) continue; // another cell of the same row
    run = d <= 2.5 * h ? run + 1 : 1;
    longest = Math.max(longest, run);
  }
  // The table must be most of the band: a table over both columns above them (a `table*`) leaves their
  // gutter a gutter.
  return longest >= 3 && 2 * distinct(rows) >= distinct(all);
}

/**
 * Five lines or more of 40 characters on each side of a gap: columns of running text, as a table's columns
 * of units or names ("kilograms per cubic meter") are not.
 */
function textBothSides(left: readonly LayoutLine[], right: readonly LayoutLine[], inBand: (l: LayoutLine) => boolean): boolean {
  const long = (l: LayoutLine): boolean => inBand(l) && l.text.length >= 40;
  return left.filter(long).length >= 5 && right.filter(long).length >= 5;
}

/**
 * Whether x = `at` is a column gutter (see {@link textColumns}). `acrossTables`: the gap was not found by the
 * sweep (a line crosses it somewhere), so it must not be the gap between two halves of a table that spans
 * both columns (a `table*` of six columns; see {@link tableAcross}, over the whole band: a stretch between
 * crossing lines is then not asked again), nor the gap before a table's column of longer cells: running
 * text on both sides ({@link textBothSides}).
 */
function isGutter(at: number, lines: readonly LayoutLine[], narrow: readonly LayoutLine[], body: number, acrossTables = false): boolean {
  const left = narrow.filter((l) => l.x1 <= at);
  const right = narrow.filter((l) => l.x0 >= at);
  const proseL = left.filter((l) => l.text.length >= 20);
  const proseR = right.filter((l) => l.text.length >= 20);
  if (proseL.length < 5 || proseR.length < 5) return false;
  // The band where both sides have text: no line may cross the gutter there.
  const top = Math.max(Math.min(...left.map((l) => l.y0)), Math.min(...right.map((l) => l.y0)));
  const bottom = Math.min(Math.max(...left.map((l) => l.y1)), Math.max(...right.map((l) => l.y1)));
  const inBand = (l: LayoutLine): boolean => l.y1 > top + 1 && l.y0 < bottom - 1;
  if (acrossTables && (tableAcross(left, right, inBand) || !textBothSides(left, right, inBand))) return false;
  if (cellsBothSides(left, right, inBand)) return false;
  const crossing = narrow.filter((l) => l.x0 < at && l.x1 > at && inBand(l)).sort((a, b) => a.y0 - b.y0);
  if (crossing.length) {
    // Lines crossing the gap inside the band (an author block of three names over both columns of a paper's
    // first page): the gutter holds when it does in one stretch between them, with its own band there.
    const edges = [top - 1, ...crossing.flatMap((l) => [l.y0, l.y1]), bottom + 1];
    for (let k = 0; k + 1 < edges.length; k += 2) {
      const [a, b] = [edges[k]!, edges[k + 1]!];
      const within = (l: LayoutLine): boolean => l.y0 >= a - 1 && l.y1 <= b + 1;
      const sub = narrow.filter(within);
      if (sub.length < narrow.length && sub.length >= 10 && isGutter(at, lines.filter(within), sub, body)) return true;
    }
    return false;
  }
  const leftEdge = Math.max(...left.filter(inBand).map((l) => l.x1));
  const rightEdge = Math.min(...right.filter(inBand).map((l) => l.x0));
  const gap = rightEdge - leftEdge;
  if (!(gap >= 0.6 * body)) return false;
  if (gap >= body) return true;
  const maxL = Math.max(...proseL.map((l) => l.x1));
  const minR = Math.min(...proseR.map((l) => l.x0));
  return proseL.filter((l) => l.x1 >= maxL - 1).length >= 5 && proseR.filter((l) => l.x0 <= minR + 1).length >= 5 && lines.length > 0;
}

/**
 * A caption line ("Table 2", "Figure 3", and the same words in German, French, Italian, Spanish, Dutch,
 * Portuguese, Polish and Czech: "Tabelle 3:", "Tabella 2.1.", "Tableau 4"). Cut at its quad, a caption
 * under a table would make a row whose cells straddle the table's columns.
 */
const OTHER_CAPTION_RE = /^(?:tabelle|tabella|tableau|tabla|tabela|tabel|tabulka|abbildung|abb\.|figura|figur|rysunek|obrázek)\s*(?:[A-Z]?\d+(?:[.-]\d+)*|[IVX]+)\s*[.:|—–-]?(\s|$)/i;
const isCaption = (text: string): boolean => CAPTION_RE.test(text.trim()) || OTHER_CAPTION_RE.test(text.trim());

/** A section number standing alone ("3.1.1", "A.2"): the first segment of a numbered heading. */
const SECTION_NUMBER_ONLY_RE = /^(?:\d{1,2}|[A-Z])(?:\.\d{1,2}){0,4}\.?$/;

/**
 * A bold heading set at the body size, its number a quad from its title ("3.1.1<quad>Tank reactor"): its
 * two segments are no table row (headings one after another would otherwise make a two-column table).
 */
const boldNumberedHeading = (l: LayoutLine): boolean =>
  l.bold && l.segments?.length === 2 && SECTION_NUMBER_ONLY_RE.test(l.segments[0]!.text.trim()) && /^\p{L}/u.test(l.segments[1]!.text.trim());

/** The line a segment of a line stands for (see {@link detectTables}). */
const segmentOf = new WeakMap<LayoutLine, LayoutLine>();

/**
 * A line of a paragraph set justified in a narrow column (a `p{}` cell: "Fédération<gap>belge<gap>de" over
 * "gong"), whose stretched word spaces pass the 0.8 em that makes segments: three segments or more, each one
 * word, whose gaps agree within 1.5 pt (justification stretches every space of a line alike), and the next
 * line of its block starts at its left edge right under it and reads on from it ({@link readsOn}). Cut at
 * its spaces it made a row of three cells inside one column, and the table it stood in no grid.
 */
function justifiedLine(l: LayoutLine, lines: readonly LayoutLine[]): boolean {
  const s = l.segments;
  if (!s || s.length < 3 || s.some((x) => /\s/.test(x.text.trim()))) return false;
  const gaps = s.slice(1).map((x, i) => x.x0 - s[i]!.x1);
  if (Math.max(...gaps) - Math.min(...gaps) > 1.5) return false;
  const h = Math.max(1, l.y1 - l.y0);
  const next = lines.find((o) => o !== l && o.block === l.block && Math.abs(o.x0 - l.x0) <= 2 && o.y0 > l.y0 + 0.5 * h && o.y0 - l.y1 <= 0.5 * h);
  if (!next || !readsOn(l.text, next.text)) return false;
  // A row's cells start where the cells of the rows next to it start; the words of a justified line do not.
  const near = lines.filter((o) => o !== l && Math.abs(o.y0 - l.y0) <= 2.5 * h);
  const justified = !s.slice(1).some((x) => near.some((o) => Math.abs(o.x0 - x.x0) <= 2 || (o.segments ?? []).some((y) => Math.abs(y.x0 - x.x0) <= 2)));
  if (justified) justifiedLines.add(l);
  return justified;
}

/** Lines found justified by {@link justifiedLine} (see {@link roomAbove}). */
const justifiedLines = new WeakSet<LayoutLine>();

/**
 * Finds tables among a page's lines. `body` is the document's body font size in points. A line with
 * segments (parts set apart by more than 0.8 em, ADR 0341: cells LaTeX sets 12 pt apart, which the text
 * layer joins into one line) is looked at as its segments, unless it is set larger than the body (the
 * document's or the page's, whichever is larger: a numbered heading), is a bold numbered heading at the
 * body size, is a caption ("Table 1<quad>A simple table") or is mostly monospaced (a code line with its
 * line number); a table's `lines` are the whole lines.
 */
export function detectTables(pageLines: readonly LayoutLine[], body: number): TableRegion[] {
  // Headings set larger than the body keep their number and title together ("1<quad>Introduction"). The
  // body is the page's own when it is set larger than the document's (a page of 9 pt tables in a document
  // whose notes and listings make 8 pt the most common size).
  const pageBody = Math.max(body, median(pageLines.map((l) => l.size)));
  const cut = pageLines.flatMap((l) => (l.segments && l.segments.length >= 2 && l.size <= 1.1 * pageBody && !l.mono && !isCaption(l.text) && !boldNumberedHeading(l) && !justifiedLine(l, pageLines) ? l.segments.map((s) => {
    const cut: LayoutLine = { ...l, text: s.text, x0: s.x0, x1: s.x1, segments: undefined };
    segmentOf.set(cut, l);
    return cut;
  }) : [l]));
  const lines = withStackedHeaderCells(cut, body);
  if (lines.length < 6) return [];
  const cols = textColumns(lines, body);
  const found = cols.length > 1 ? cols.flatMap((c, k) => detectTablesIn(c, body).map((t) => (k > 0 ? withHeaderFromColumnFoot(t, cols[k - 1]!, c, body) : t))) : detectTablesIn(lines, body);
  let grids = found.flatMap((t) => withoutProseBeside(t, lines, body));
  // A header table that holds the whole of the grid tables it shares lines with (its rows under a bold
  // header, the grid found for their last rows only) is the one kept (ADR 0368).
  const headerTables = detectHeaderTables(lines, body);
  for (const h of headerTables) {
    const mine = new Set(h.lines);
    const overlapping = grids.filter((g) => g.lines.some((l) => mine.has(l)));
    if (overlapping.length && overlapping.every((g) => g.lines.every((l) => mine.has(l)))) grids = [...grids.filter((g) => !overlapping.includes(g)), h];
  }
  const used = new Set(grids.flatMap((t) => t.lines));
  // Without grid tables the lines left are all the lines, whose header tables are known (ADR 0377: this
  // ran detectHeaderTables a second time on every page without tables, most pages).
  const rest = used.size === 0 ? headerTables : detectHeaderTables(lines.filter((l) => !used.has(l)), body);
  const all = [...grids, ...rest].filter((t) => !isLetterGrid(t.rows));
  return all.map((t) => ({ ...t, lines: [...new Set(t.lines.flatMap((l) => stackOf.get(l) ?? [segmentOf.get(l) ?? l]))] }));
}

/** The lines a stacked header cell stands for (see {@link withStackedHeaderCells}). */
const stackOf = new WeakMap<LayoutLine, LayoutLine[]>();

/**
 * A header cell set over several lines beside header cells of one line centred on it ("Variable- / Length /
 * Unsigned / Integer" beside "Decimal" and "Hexadecimal", a word processor's header row centred
 * vertically): read as one line, so that the header is one row. The cell is a source block of two to six
 * bold lines of at most 25 characters, at one left edge or centre, each touching the one before (within 0.3
 * em), and a bold line of another block beside it has its centre between the bottom of the cell's first line
 * and the top of its last (header cells of two and three lines side by side: "Compresso / r", "Compressi /
 * on time / (seconds)"). A hyphen at a line end is kept and joined ("Variable-Length"); other lines join with a space.
 */
function withStackedHeaderCells(lines: readonly LayoutLine[], body: number): LayoutLine[] {
  const byBlock = new Map<number, LayoutLine[]>();
  for (const l of lines) {
    const g = byBlock.get(l.block);
    if (g) g.push(l);
    else byBlock.set(l.block, [l]);
  }
  const merged = new Map<LayoutLine, LayoutLine>();
  for (const group of byBlock.values()) {
    if (group.length < 2 || group.length > 6) continue;
    const g = [...group].sort((a, b) => a.y0 - b.y0);
    const first = g[0]!;
    if (!g.every((l, k) => l.bold && !l.mono && l.text.trim().length <= 25 && (Math.abs(l.x0 - first.x0) <= 2 || Math.abs(l.x0 + l.x1 - first.x0 - first.x1) <= 4) && (k === 0 || (l.y0 - g[k - 1]!.y1 <= 0.3 * body && l.y0 > g[k - 1]!.y0)))) continue;
    const x0 = Math.min(...g.map((l) => l.x0));
    const x1 = Math.max(...g.map((l) => l.x1));
    const y0 = first.y0;
    const y1 = g[g.length - 1]!.y1;
    const last = g[g.length - 1]!;
    const beside = lines.some((o) => o.bold && o.block !== first.block && (o.x1 < x0 || o.x0 > x1) && (o.y0 + o.y1) / 2 >= first.y1 - 0.5 && (o.y0 + o.y1) / 2 <= last.y0 + 0.5);
    if (!beside) continue;
    const text = g.reduce((t, l) => (t === '' ? l.text.trim() : /\p{L}-$/u.test(t) ? t + l.text.trim() : `${t} ${l.text.trim()}`), '');
    const line: LayoutLine = { ...first, text, x0, x1, y0, y1, segments: undefined };
    stackOf.set(line, g.map((l) => segmentOf.get(l) ?? l));
    for (const l of g) merged.set(l, line);
  }
  if (merged.size === 0) return [...lines];
  const out: LayoutLine[] = [];
  const seen = new Set<LayoutLine>();
  for (const l of lines) {
    const m = merged.get(l);
    if (!m) out.push(l);
    else if (!seen.has(m)) {
      seen.add(m);
      out.push(m);
    }
  }
  return out;
}

/** A glyph shown alone: one or two letters or symbols (combining marks aside), no digit, no space. */
const glyphCell = (cell: string): boolean => {
  const t = cell.replace(/\p{M}+/gu, '').trim();
  return t.length > 0 && [...t].length <= 2 && !/[\p{N}\s]/u.test(t);
};

/**
 * A grid of single letters or glyphs (a type specimen's character set, an alphabet set out in rows with
 * wide spaces): four columns or more and nine cells in ten (of those filled) a glyph alone ({@link
 * glyphCell}). It is text that shows the characters, read row by row as the raw extractors read it, not a
 * table of data (ADR 0369). A font table whose glyphs stand under column heads and beside row labels
 * (`0 1 2 ... F`, `'00x`) keeps a table: its heads and labels are digits.
 */
export function isLetterGrid(rows: readonly (readonly string[])[]): boolean {
  if ((rows[0]?.length ?? 0) < 4) return false;
  const filled = rows.flat().filter((c) => c.trim());
  return filled.length >= 8 && filled.filter(glyphCell).length >= 0.9 * filled.length;
}

/**
 * A table broken at the column break: its header row is the last row of the previous column and its body
 * starts the next column (LibreOffice flows a table on). When `t` is the first thing in its column and the
 * previous column ends in a row of two or more short lines (40 characters at most), that row is moved
 * beside the table (shifted by the difference of their left edges, set right above it) and the table is
 * looked for again: when it comes back with the same body and the row as its header, with half of its
 * cells or more filled, the row is the table's header. Otherwise `t` is returned as it was.
 */
function withHeaderFromColumnFoot(t: TableRegion, prevCol: readonly LayoutLine[], col: readonly LayoutLine[], body: number): TableRegion {
  const top = Math.min(...t.lines.map((l) => l.y0));
  if (col.some((l) => !t.lines.includes(l) && l.y1 <= top + 1) || prevCol.length === 0) return t;
  const bottom = Math.max(...prevCol.map((l) => l.y1));
  const last = prevCol.filter((l) => l.y1 > bottom - 0.5 * body && l.y0 < bottom);
  const rowTop = Math.min(...last.map((l) => l.y0));
  if (last.length < 2 || last.length > t.rows[0]!.length || last.some((l) => l.text.trim().length > 40) || prevCol.some((l) => !last.includes(l) && l.y1 > rowTop + 1)) return t;
  const dx = Math.min(...t.lines.map((l) => l.x0)) - Math.min(...last.map((l) => l.x0));
  const dy = top - 0.5 * body - Math.max(...last.map((l) => l.y1));
  const moved = last.map((l) => ({ ...l, x0: l.x0 + dx, x1: l.x1 + dx, y0: l.y0 + dy, y1: l.y1 + dy }));
  const again = detectTablesIn([...moved, ...t.lines], body);
  if (again.length !== 1) return t;
  const rows = again[0]!.rows;
  const head = rows[0]!;
  const same = rows.length === t.rows.length + 1 && rows.slice(1).every((r, i) => r.join('|') === t.rows[i]!.join('|'));
  if (!same || head.filter((c) => c.trim()).length < Math.ceil(head.length / 2) || !moved.every((m) => again[0]!.lines.includes(m))) return t;
  return { ...t, lines: [...last, ...t.lines], rows };
}

/**
 * A list marker, reference label or line number ("[12]", "3.", "(b)", a bullet, "12" beside a code
 * listing): not the key of a key column table.
 */
const LIST_MARK_RE = /^(?:\d{1,4}|\[[^\]]{1,12}\]|\(?[\p{L}\p{N}]{1,3}[.)]|[•·◦▪‣*\u2013\u2014-])$/u;

/** A line of running prose: 20 characters or more, with word spaces. */
const isProse = (l: LayoutLine): boolean => l.text.trim().length >= 20 && /\S\s+\S.*\s+\S/.test(l.text.trim());

/**
 * A table set in one column of a page whose other column holds prose: when too few prose lines stand beside
 * the table for `textColumns` to find the gutter, the prose lines that share the table's rows come out as
 * its first (or last) column. They are told apart from a label column by flowing on: they belong to source
 * blocks (MuPDF blocks, tesseract paragraphs) with three prose lines among the table's or with prose lines
 * outside the table in the same column, and they fill at least half of the table's rows in a band separated
 * from the other cells by an em. Those lines
 * go back to the text and the table is looked for again without them (it may then be none).
 */
function withoutProseBeside(t: TableRegion, lines: readonly LayoutLine[], body: number): TableRegion[] {
  const inTable = new Set(t.lines);
  const top = Math.min(...t.lines.map((l) => l.y0));
  const bottom = Math.max(...t.lines.map((l) => l.y1));
  const outside = lines.filter((l) => !inTable.has(l) && isProse(l) && (l.y1 <= top + 1 || l.y0 >= bottom - 1));
  // A block with three prose lines among the table's is a paragraph beside it, not a cell (cells of a grid
  // are short: a cell's block stays within its row).
  const perBlock = new Map<number, number>();
  for (const l of t.lines) if (isProse(l)) perBlock.set(l.block, (perBlock.get(l.block) ?? 0) + 1);
  // A block that also holds cells in another column of the table is the table's own (LaTeX sets a whole
  // table as one block: the descriptions of a key column table are its cells, not prose beside it).
  // The prose lines' common left edge (the one most of them start at) tells their column.
  const tableBlock = (b: number): boolean => {
    const own = t.lines.filter((l) => l.block === b && isProse(l));
    const edge = median(own.map((l) => l.x0));
    const x1 = Math.max(...own.map((l) => l.x1)) + body;
    return t.lines.some((l) => l.block === b && (l.x1 < edge - body || l.x0 > x1));
  };
  // A block that is one wrapped cell (a word processor's cells are blocks of their own): its lines start
  // at one left edge and no line of the table's other columns stands beside its lines after the first
  // (prose beside a table runs past the table's rows; a cell stays within its row) (ADR 0363).
  const oneCell = (b: number): boolean => {
    const own = t.lines.filter((l) => l.block === b).sort((x, y) => x.y0 - y.y0);
    if (own.length < 2 || own.some((l) => Math.abs(l.x0 - own[0]!.x0) > 2)) return false;
    const top = own[0]!.y1;
    const end = own[own.length - 1]!.y1;
    return !t.lines.some((l) => l.block !== b && l.x1 < own[0]!.x0 - body && (l.y0 + l.y1) / 2 > top && (l.y0 + l.y1) / 2 < end);
  };
  // A prose line of the same block outside the table does not make a table's own block prose (the last
  // line of a wrapped name under the table's last row, left out of it).
  const prose = t.lines.filter((l) => isProse(l) && (((perBlock.get(l.block) ?? 0) >= 3 && !tableBlock(l.block) && !oneCell(l.block)) || (outside.some((o) => o.block === l.block && Math.abs(o.x0 - l.x0) <= body) && !tableBlock(l.block))));
  if (prose.length < 2 || prose.length < t.rows.length / 2) return [t];
  const px0 = Math.min(...prose.map((l) => l.x0));
  const px1 = Math.max(...prose.map((l) => l.x1));
  // Every line of the prose's column goes with it (a heading of that column sharing a row with the table).
  const rest = t.lines.filter((l) => !prose.includes(l) && !(l.x0 >= px0 - body && l.x1 <= px1 + body));
  if (rest.length === 0) return [];
  const rx0 = Math.min(...rest.map((l) => l.x0));
  const rx1 = Math.max(...rest.map((l) => l.x1));
  if (!(px1 + body <= rx0 || rx1 + body <= px0)) return [t];
  return detectTablesIn(rest, body);
}

/**
 * Tables with wrapped cells under a bold header row ("Special register | Corresponding value" with
 * two-line descriptions), which the grid detector rejects because its cells are long. The header is a row
 * of two to six bold cells of at most 40 characters, separated by 1.2 ems or more; the lines below it
 * that start at a header cell's left edge (within 3 pt) and follow without a gap over 2 ems form the body.
 * A line in the first column opens a new row when it follows an extra gap (half an em) or when another
 * column already has text in the row and starts a line on the same baseline; other lines continue their
 * cell. At least two body rows are needed, the first column's cells must be short (under 40 characters,
 * its lines 25 on average) and the first header cell not a numbered section title, so two-column prose is
 * not taken for a table.
 */
function detectHeaderTables(lines: readonly LayoutLine[], body: number): TableRegion[] {
  const out: TableRegion[] = [];
  const sorted = [...lines].sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
  const sameRow = (a: LayoutLine, b: LayoutLine): boolean => Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) > 0.5 * Math.min(a.y1 - a.y0, b.y1 - b.y0);
  // The lines on a bold line's row, in `sorted` order: with boxes of finite, non-negative height a line on
  // the row overlaps it vertically, so only the lines from the last one whose top is above the bold line's
  // bottom, back to the first one reaching below its top, are tested (every line of the page was, for every
  // bold line: ADR 0377). `reach[j]`: the lowest bottom of sorted[0..j].
  const boxed = sorted.every((l) => Number.isFinite(l.y0) && Number.isFinite(l.y1) && l.y1 >= l.y0);
  const reach: number[] = [];
  for (const l of sorted) reach.push(Math.max(l.y1, reach.length ? reach[reach.length - 1]! : -Infinity));
  const rowOf = (i: number): LayoutLine[] => {
    const first = sorted[i]!;
    if (!boxed) return sorted.filter((l) => sameRow(l, first));
    let lo = i;
    while (lo > 0 && reach[lo - 1]! > first.y0) lo--;
    let hi = i + 1;
    while (hi < sorted.length && sorted[hi]!.y0 < first.y1) hi++;
    return sorted.slice(lo, hi).filter((l) => sameRow(l, first));
  };
  for (let i = 0; i < sorted.length; i++) {
    const first = sorted[i]!;
    if (!first.bold) continue;
    const header = rowOf(i).sort((a, b) => a.x0 - b.x0);
    if (header[0] !== first || header.length < 2 || header.length > 6) continue;
    if (!header.every((h) => h.bold && h.text.length <= 40)) continue;
    if (header.some((h, k) => k > 0 && h.x0 - header[k - 1]!.x1 < 1.2 * body)) continue;
    // A line is in a header cell's column when it starts at its left edge, or when it is centred under it
    // without reaching into the next or previous column (a centred column, ADR 0369).
    const colOf = (l: LayoutLine): number =>
      header.findIndex((h, k) => Math.abs(h.x0 - l.x0) <= 3 || (Math.abs(h.x0 + h.x1 - l.x0 - l.x1) <= 6 && l.x1 < (header[k + 1]?.x0 ?? Infinity) && l.x0 > (header[k - 1]?.x1 ?? -Infinity)));
    const headerText = header.map((h) => h.text.trim());
    let headerBottom = Math.max(...header.map((h) => h.y1));
    const rows: { cells: string[]; bottom: number; lines: LayoutLine[]; label: boolean }[] = [];
    let bottom = headerBottom;
    const taken: LayoutLine[] = [...header];
    const boldKeyEnd: number[] = [];
    for (const l of sorted) {
      if (l.y0 < headerBottom - 1 || header.includes(l)) continue;
      if (l.y0 - bottom > 2 * body) break;
      const c = colOf(l);
      if (c < 0) break;
      // A line reaching into the next header cell's column is no cell of this table (lines of two columns
      // of a listing that the text layer joined: "\\received{...} \\begin{lstlisting}"): the table ends above
      // it (ADR 0368 amendment).
      if (c + 1 < header.length && l.x1 > header[c + 1]!.x0 + 2) break;
      if (l.bold) {
        const beside = sorted.some((o) => o !== l && !o.bold && colOf(o) >= 0 && colOf(o) !== c && Math.abs(o.y0 - l.y0) <= 2);
        // A header cell wrapped over two lines ("Designat" over "ion"): a bold line touching the header,
        // before any row, with no plain cell on its baseline.
        if (rows.length === 0 && !beside && l.y0 - headerBottom <= 0.3 * body) {
          headerText[c] = headerText[c] ? `${headerText[c]} ${l.text.trim()}` : l.text.trim();
          headerBottom = Math.max(headerBottom, l.y1);
          bottom = headerBottom;
          taken.push(l);
          continue;
        }
        // Bold keys of a key table ("F1" beside "Displays the help file."): a bold line in the first column
        // beside a plain line of another column on its baseline, or the next line of such a key (touching it).
        const wrapsKey = boldKeyEnd.length > 0 && rows.length > 0 && l.y0 - boldKeyEnd[boldKeyEnd.length - 1]! <= 0.3 * body && l.y0 >= boldKeyEnd[boldKeyEnd.length - 1]! - 2;
        if (c !== 0 || !(beside || wrapsKey)) break;
        boldKeyEnd.push(l.y1);
      }
      const row = rows[rows.length - 1];
      // A key-column line under a full row of a table set as one block (LaTeX) that does not read on from
      // the key above is a label row of its own ("Faculties:" under "Law | 120 | 4.5"), as joinWrappedCells
      // decides for grids; a word processor's cells are blocks of their own.
      const labelRow = !!row && row.cells[0] !== '' && row.lines.some((o) => colOf(o) > 0) && row.lines.every((o) => o.block === l.block) && !readsOn(row.cells[0]!, l.text.trim());
      // The row after such a label starts at the next key with cells beside it.
      const afterLabel = !!row?.label && sorted.some((o) => o !== l && colOf(o) > 0 && Math.abs(o.y0 - l.y0) <= 2);
      const startsRow = c === 0 && (!row || labelRow || afterLabel || l.y0 - row.bottom > 0.5 * body || row.lines.some((o) => colOf(o) > 0 && Math.abs(o.y0 - l.y0) <= 2) || (row.cells[0] !== '' && row.lines.some((o) => colOf(o) > 0) && sorted.some((o) => o !== l && colOf(o) > 0 && !o.bold && Math.abs(o.y0 - l.y0) <= 2)));
      if (!row || startsRow) rows.push({ cells: header.map(() => ''), bottom: l.y1, lines: [], label: labelRow });
      const r = rows[rows.length - 1]!;
      r.cells[c] = r.cells[c] ? `${r.cells[c]} ${l.text.trim()}` : l.text.trim();
      r.bottom = Math.max(r.bottom, l.y1);
      r.lines.push(l);
      taken.push(l);
      bottom = Math.max(bottom, l.y1);
    }
    if (rows.length < 2) continue;
    const firstCol = rows.map((r) => r.cells[0]!.length);
    if (firstCol.reduce((a, b) => a + b, 0) / rows.length >= 40 || rows.some((r) => r.cells[0] === '')) continue;
    // Side-by-side sections ("3 Results | 4 Discussion" over two prose columns) are not a table: the first
    // column's lines are short keys (25 characters on average at most) and the header is not numbered.
    const keyLines = taken.filter((l) => !header.includes(l) && colOf(l) === 0);
    if (keyLines.reduce((n, l) => n + l.text.length, 0) / keyLines.length > 25 || SECTION_NUMBER_RE.test(first.text.trim())) continue;
    out.push({ lines: taken, rows: [headerText, ...rows.map((r) => r.cells)] });
    i = sorted.indexOf(taken[taken.length - 1]!);
  }
  return out;
}

function detectTablesIn(lines: readonly LayoutLine[], body: number): TableRegion[] {
  if (lines.length < 6) return [];
  const textWidth = Math.max(1, Math.max(...lines.map((l) => l.x1)) - Math.min(...lines.map((l) => l.x0)));
  // A title or heading set half as large again as the page's text (the body, or the lines' median where
  // larger: a slide) and as every line beside it is no cell: it would share a row with a picture's glyphs
  // or a table's labels beside it and be swallowed by the table (seminar's title beside its glyph picture,
  // ADR 0368 amendment). A word of three letters at least: a symbol or a specimen set large ("/" in an
  // "in print" column, "qv" in a Display column, "Ťť Ďď") is a cell; so is a font specimen set a little
  // larger than the description beside it (a font's feature table in a document whose body is its 6 pt
  // notes).
  const titleSize = 1.5 * Math.max(body, median(lines.map((l) => l.size)));
  const title = (l: LayoutLine): boolean => {
    if (l.size < titleSize || !/\p{L}{3}/u.test(l.text)) return false;
    const beside = lines.filter((o) => o !== l && Math.min(o.y1, l.y1) > Math.max(o.y0, l.y0));
    return beside.length > 0 && beside.every((o) => l.size >= 1.5 * o.size);
  };
  const sorted = lines.filter((l) => !title(l)).sort((a, b) => (a.y0 + a.y1) / 2 - (b.y0 + b.y1) / 2);
  const rows: Row[] = [];
  // A line joins the row when it overlaps it and its centre lies within half a line of the centre of the
  // row's tightest line (its box is the best guess of the row's baseline band). Boxes made tall by a
  // lowered or raised letter (the TeX logo's E, a superscript), or typewriter boxes, reach into the next
  // row; the row's own box grows with them, so overlap alone chained rows together.
  const tightest: LayoutLine[] = [];
  for (const l of sorted) {
    const r = rows[rows.length - 1];
    const h = Math.max(1, Math.min(l.y1 - l.y0, r ? r.y1 - r.y0 : Infinity));
    const t = tightest[rows.length - 1];
    const centred = !t || Math.abs((l.y0 + l.y1) / 2 - (t.y0 + t.y1) / 2) <= 0.5 * Math.max(1, Math.min(l.y1 - l.y0, t.y1 - t.y0));
    if (r && t && centred && Math.min(r.y1, l.y1) - Math.max(r.y0, l.y0) > 0.5 * h) {
      r.cells.push(l);
      r.y0 = Math.min(r.y0, l.y0);
      r.y1 = Math.max(r.y1, l.y1);
      if (l.y1 - l.y0 < t.y1 - t.y0) tightest[rows.length - 1] = l;
    } else {
      rows.push({ y0: l.y0, y1: l.y1, cells: [l], more: [] });
      tightest.push(l);
    }
  }
  // The rules of ADR 0368 are for text layers: OCR lines (sizes estimated from word heights) have padded,
  // uneven boxes and noise marks, and keep the rules before them.
  const ocr = lines.some((l) => l.sizeEstimated);
  if (!ocr) mergeCentredRows(rows, tightest);
  for (const r of rows) r.cells.sort((a, b) => a.x0 - b.x0);
  joinWrappedCells(rows, lines, body);
  joinContinuationRows(rows, body, ocr);
  if (!ocr) joinCentredKeys(rows, body);
  const isCellRow = (r: Row): boolean => {
    if (r.cells.length < 2) return false;
    for (let i = 1; i < r.cells.length; i++) {
      const a = r.cells[i - 1]!;
      const b = r.cells[i]!;
      // Segments of one line are already more than 0.8 em apart (the gap that made them segments).
      const parent = segmentOf.get(a);
      if (parent && parent === segmentOf.get(b)) continue;
      if (b.x0 - a.x1 < Math.max(1.2 * body, 6)) return false;
    }
    if (r.cells.length >= 3) return r.cells.every((c) => c.x1 - c.x0 < 0.5 * textWidth);
    return r.cells.every((c) => c.x1 - c.x0 < 0.3 * textWidth);
  };
  // A row too wide for a cell row on its own (a long description in a key column table) still belongs to
  // a table whose row next to it it lines up with: as many cells, each sharing a left, right or centre
  // edge (within 2 pt) with the cell in the same place, apart by 0.8 em or more (ADR 0342), none over
  // `cap` of the text width.
  const alignsWith = (r: Row, ref: Row, cap = 0.6): boolean =>
    r.cells.length >= 2 && r.cells.length === ref.cells.length &&
    r.cells.every((c, k) => {
      const o = ref.cells[k]!;
      const prev = r.cells[k - 1];
      const apart = !prev || (segmentOf.get(prev) !== undefined && segmentOf.get(prev) === segmentOf.get(c)) || c.x0 - prev.x1 >= 0.8 * body;
      return apart && c.x1 - c.x0 <= cap * textWidth && (Math.abs(c.x0 - o.x0) <= 2 || Math.abs(c.x1 - o.x1) <= 2 || Math.abs(c.x0 + c.x1 - o.x0 - o.x1) <= 4);
    });
  // Key column tables (`l p{8cm}`: a file name or option, then a description that may wrap): rows of two
  // cells 0.8 em apart or more, the key short (30 characters, under 0.3 of the text width, with a letter,
  // not a list marker or a reference label) and the description within 0.75 of the text width or starting a
  // fifth of the text width or more right of the key (a word processor's two-column table over the whole
  // text width: "backend | This option can have ...", ADR 0363; such a table must not read on from row
  // to row, see {@link readsOnAcrossRows}), whose keys and
  // descriptions start at the same left edges (within 2 pt) as those of the key row next to them (ADR 0343).
  // A description list or a bibliography sets its text right after the label, so its lines do not line up.
  const relaxed = new Set<Row>();
  const isKeyRow = (r: Row): boolean => {
    if (r.cells.length !== 2) return false;
    const [k, d] = r.cells as [LayoutLine, LayoutLine];
    const parent = segmentOf.get(k);
    const cut = parent !== undefined && parent === segmentOf.get(d);
    const apart = cut || d.x0 - k.x1 >= 0.8 * body;
    return apart && k.text.trim().length <= 30 && /\p{L}/u.test(k.text) && k.x1 - k.x0 < 0.3 * textWidth && !LIST_MARK_RE.test(k.text.trim()) && (d.x1 - d.x0 <= 0.75 * textWidth || (d.x0 - k.x0 >= 0.2 * textWidth && !!relaxed.add(r)));
  };
  // Keys and descriptions line up on their left edges, or on their centres in centred columns (a word
  // processor's key table: "F1" and "Ctrl + M" centred over "Key", ADR 0369).
  const lined = (p: LayoutLine, q: LayoutLine): boolean => Math.abs(p.x0 - q.x0) <= 2 || Math.abs(p.x0 + p.x1 - q.x0 - q.x1) <= 4;
  const keyAligned = (a: Row | undefined, b: Row | undefined): boolean =>
    !!a && !!b && isKeyRow(a) && isKeyRow(b) && lined(a.cells[0]!, b.cells[0]!) && lined(a.cells[1]!, b.cells[1]!) && Math.abs(b.y0 - a.y1) <= 1.5 * body;
  // Under a bold header row the header table detector reads key column tables (it also joins a key
  // wrapped in its own column).
  const underBold: boolean[] = [];
  rows.forEach((r, k) => {
    const prev = rows[k - 1];
    // A bold numbered heading ("3.2.2<quad>Shell and tube") cut at its number is no header row, and a
    // caption ("Table 4: ...") starts another table.
    const heading = !!prev && prev.cells.length === 2 && SECTION_NUMBER_ONLY_RE.test(prev.cells[0]!.text.trim());
    underBold[k] = !!prev && r.y0 - prev.y1 <= 2 * body && ((prev.cells.length >= 2 && !heading && prev.cells.every((c) => c.bold)) || (!!underBold[k - 1] && !isCaption(prev.cells[0]!.text)));
  });
  const tableRow = (k: number): boolean => isCellRow(rows[k]!) || (!underBold[k] && (keyAligned(rows[k - 1], rows[k]) || keyAligned(rows[k], rows[k + 1])));
  const out: TableRegion[] = [];
  let i = 0;
  let lastEnd = -1;
  while (i < rows.length) {
    if (!tableRow(i)) {
      i++;
      continue;
    }
    const start = i;
    while (i - 1 > lastEnd && rows[i]!.y0 - rows[i - 1]!.y1 <= 1.5 * body && alignsWith(rows[i - 1]!, rows[i]!)) i--;
    let j = i;
    let cellRows = 0;
    let firstLoose = -1;
    let gapRun = 0;
    let end = i;
    while (j < rows.length) {
      const r = rows[j]!;
      const prev = rows[j - 1];
      if (prev && j > i && r.y0 - prev.y1 > 2.5 * body) break;
      // A row too wide for a cell row between two cell rows it lines up with (a long middle cell of a
      // three-row table) is the table's too; not under a first column without letters or digits (comment
      // markers of a listing: "%%").
      const between = j === end + 1 && j + 1 < rows.length && tableRow(j + 1) && /[\p{L}\p{N}]/u.test(r.cells[0]!.text) && rows[j + 1]!.y0 - r.y1 <= 1.5 * body && alignsWith(r, rows[end]!) && alignsWith(r, rows[j + 1]!);
      // A row right after the table's last that lines up with one of its rows of as many cells (a row of a
      // multirow label's group; cells up to 0.75 of the text width: a `p{}` description column of two
      // thirds of it, ADR 0368) is the table's too; if the grid fails with such rows, it is tried without.
      const strict = j < start || tableRow(j) || (cellRows - (start - i) >= 2 && j === end + 1 && alignsWith(r, rows[end]!)) || between;
      const loose = !strict && !ocr && cellRows - (start - i) >= 2 && j === end + 1 && rows.slice(i, end + 1).some((o) => alignsWith(r, o, 0.75));
      if (loose && firstLoose < 0) firstLoose = j;
      if (strict || loose) {
        cellRows++;
        gapRun = 0;
        end = j;
      } else if (!ocr && j === end + 1 && cellRows - (start - i) >= 1 && sparseRow(r, prev!, rows.slice(i, end + 1), body)) {
        // A row with one cell filled under a column of the table, set solid under the row before it (a
        // `{}{Fédération belge de gong}{}` row of an address table) is the table's; it counts for neither.
        gapRun = 0;
        end = j;
      } else {
        gapRun++;
        // One single-cell row may be a wrapped cell or a section row; two in a row end the table, and so
        // does a heading (a line set a fifth or more larger than the table's first row).
        if (gapRun > 1 || r.cells[0]!.x1 - r.cells[0]!.x0 > 0.6 * textWidth || r.cells.some((c) => c.size > 1.2 * rowSize(rows[start]!))) break;
      }
      j++;
    }
    if (cellRows >= 3) {
      const region = rows.slice(i, end + 1);
      // A spanning group header ("Year ended December 31" over the year columns) sits alone on the row
      // right above the first cell row, over the data columns rather than the label column: it is the
      // table's first header level, not a paragraph (or a heading) of its own.
      const above = rows[i - 1];
      const first = rows[i]!;
      if (above && above.cells.length === 1) {
        const c = above.cells[0]!;
        if (c.text.length <= 48 && first.y0 - above.y1 <= 1.5 * body && c.x0 >= first.cells[0]!.x1 + 2 && !isCaption(c.text) && c.size <= 1.2 * rowSize(first) && !out.some((t) => t.lines.includes(c))) region.unshift(above);
      } else if (above && above.cells.length >= 2 && !isCellRow(above) && first.y0 - above.y1 <= 1.5 * body) {
        // A header row whose cells MuPDF joined into one line ("Area lost Thinning Aspect" over three
        // right-aligned columns) is too wide for a cell row; it is the table's when its short cells stay
        // within the table's width (buildGrid splits the joined cell at the columns).
        const x0 = Math.min(...region.flatMap((r) => r.cells.map((c) => c.x0)));
        const x1 = Math.max(...region.flatMap((r) => r.cells.map((c) => c.x1)));
        if (above.cells.every((c) => c.text.length <= 40 && c.x0 >= x0 - body && c.x1 <= x1 + body && !isCaption(c.text)) && above.cells[0]!.x0 <= x0 + body) region.unshift(above);
      }
      let table = buildGrid(region);
      if (!table && firstLoose > i && firstLoose <= end && firstLoose - i >= 3) {
        region.splice(region.indexOf(rows[firstLoose]!));
        end = firstLoose - 1;
        table = buildGrid(region);
      }
      // A one-cell row set solid under the last row, starting at one of its cells' left edges, may be that
      // row's cell wrapped (the last line of a key centred against the row): it is the table's when the
      // grid joins it to the row (ADR 0368).
      const after = rows[end + 1];
      const last = rows[end]!;
      // Also a row that goes on with a cell's hyphenated word ("math sym-" over "bols:", a code cell of the
      // next column beside it: apsguide's `\bm` row), its first cell at that cell's left edge; the cells
      // beside it code (prose beside it is the next paragraph's start: auguide's "specified. For" / "more").
      const goesOnHyphen = !!after && after.cells.slice(1).every((c) => c.mono) && last.cells.some((c) => /\p{L}-$/u.test(c.text) && Math.abs(c.x0 - after.cells[0]!.x0) <= 2);
      if (table && !ocr && after && (after.cells.length === 1 || goesOnHyphen) && after.y0 - last.y1 <= 0.5 * Math.max(1, after.cells[0]!.y1 - after.cells[0]!.y0) && last.cells.some((c) => Math.abs(c.x0 - after.cells[0]!.x0) <= 2)) {
        const longer = buildGrid([...region, after]);
        if (longer && longer.rows.length <= table.rows.length) {
          table = longer;
          end++;
        }
      }
      if (table && !flowsAsText(table.rows) && !numberedList(table.rows) && !(region.some((r) => relaxed.has(r)) && readsOnAcrossRows(table.rows))) {
        out.push(bulletList(table.rows) ? { ...table, list: true } : table);
        lastEnd = end;
      } else if (!table) {
        // Tables one under the other, each under its own label line ("Faculties:", "Central services:"),
        // are one run of rows whose columns need not line up (a longer key moves a table's second column):
        // when the run makes no grid, the parts between its one-cell rows are tried on their own.
        const parts: Row[][] = [[]];
        for (const r of region) {
          if (r.cells.length >= 2) parts[parts.length - 1]!.push(r);
          else if (parts[parts.length - 1]!.length) parts.push([]);
        }
        if (parts.length >= 2) {
          for (const p of parts) {
            const t = p.length >= 3 ? buildGrid(p) : null;
            if (t && !flowsAsText(t.rows)) {
              out.push(t);
              lastEnd = end;
            }
          }
        }
      }
    }
    i = end + 1;
  }
  return out;
}

/**
 * Words of one paragraph set on both sides of a picture ("had | implemented a given time interval ... since"
 * over "this | would require ..."): each row's last cell reads on into the next row's first, without closing
 * punctuation before a word in lower case, in half of the row pairs or more (two at least). Asked of tables
 * found only by the wide key column rule of ADR 0363: a word processor's option table ends its descriptions
 * in full stops.
 */
function readsOnAcrossRows(rows: readonly string[][]): boolean {
  let pairs = 0;
  let flowing = 0;
  for (let r = 0; r + 1 < rows.length; r++) {
    const a = rows[r]![rows[r]!.length - 1]?.trim() ?? '';
    const b = rows[r + 1]![0]?.trim() ?? '';
    if (!a || !b) continue;
    pairs++;
    if (!/[.:;!?)\]]$/.test(a) && /^\p{Ll}/u.test(b)) flowing++;
  }
  return pairs >= 2 && flowing * 2 >= pairs;
}

/**
 * An example or item number set apart from its text: "(1)", "(12a)", "a.", "b)", "(iv)", "3.". Not a
 * bracketed key ("[twocolumn]": an option table) and not a bullet (bullets set apart from their text are
 * {@link bulletList}'s).
 */
const ITEM_MARK_RE = /^(?:\(\d{1,3}[a-z]?\)|\(?(?:[a-z]|[ivx]{1,4})[.)]|\d{1,3}[.)])$/u;

/**
 * Numbered examples or items ("(1)" beside its sentence, "(4) a. ..." over "b. ..."): every column but the
 * last holds item marks only (or is empty), the first column two marks or more. It is a list, however
 * far the text stands from its number (gb4e's linguistic examples, ADR 0368 amendment). Plain numbers are
 * no marks here: "1 | Alice" is a numbered table row as often as an item.
 */
export function numberedList(rows: readonly (readonly string[])[]): boolean {
  return marksBeforeText(rows, ITEM_MARK_RE);
}

/** Every column but the last holds marks matching `mark` only (or nothing), the first column two marks or more. */
function marksBeforeText(rows: readonly (readonly string[])[], mark: RegExp): boolean {
  const n = rows[0]?.length ?? 0;
  if (n < 2) return false;
  for (let c = 0; c < n - 1; c++) if (!rows.every((r) => !r[c]?.trim() || mark.test(r[c]!.trim()))) return false;
  return rows.filter((r) => r[0]?.trim()).length >= 2;
}

/** A bullet set apart from its item's text (a hanging indent or a tab): a list mark, not a cell. */
const BULLET_RE = /^[•◦▪▫●○■□‣⁃∙·∗*►▶➢➤\u2013\u2014-]$/u;

/**
 * Bullets set apart from their items' text ("•" in a first column, the item in a second): every column
 * but the last holds bullets only (or is empty), the first column two bullets or more. It is a list, not
 * a table; the caller joins each bullet to its text so that the lines read as list items (dropping the
 * table alone would leave the bullets as paragraphs of their own). A table whose first column has a
 * symbol ("–", "✓") among words keeps its grid.
 */
export function bulletList(rows: readonly (readonly string[])[]): boolean {
  return marksBeforeText(rows, BULLET_RE);
}

/** Where the text of a line made by {@link joinBullets} starts (right of its bullet). */
const itemTextStart = new WeakMap<LayoutLine, number>();

/**
 * The left edge of the text of a list item's first line made by {@link joinBullets} (its bullet joined to
 * it), or undefined for other lines: lines under the item that start left of it (at or near the bullet)
 * are no part of the item (a word processor puts the paragraph after a list in the last item's block).
 */
export const bulletItemTextStart = (l: LayoutLine): number | undefined => itemTextStart.get(l);

/**
 * A page's lines with the bullets of bullet lists (`list` regions of {@link detectTables}) joined to the
 * text beside them: the bullet's line and the nearest line to its right that shares its row become one line
 * ("• text", from the bullet's left edge), in the text line's place in the stream, so that it reads as a
 * list item. Lines of the lists that are no bullet (wrapped item text) stay as they are.
 */
export function joinBullets(pageLines: readonly LayoutLine[], lists: readonly TableRegion[]): LayoutLine[] {
  const joined = new Map<LayoutLine, LayoutLine>();
  const gone = new Set<LayoutLine>();
  for (const t of lists) {
    for (const b of t.lines) {
      if (!BULLET_RE.test(b.text.trim())) continue;
      const mid = (b.y0 + b.y1) / 2;
      let best: LayoutLine | null = null;
      for (const l of t.lines) {
        if (l === b || l.x0 < b.x1 - 1 || mid < l.y0 || mid > l.y1 || BULLET_RE.test(l.text.trim()) || gone.has(l) || joined.has(l)) continue;
        if (!best || l.x0 < best.x0) best = l;
      }
      if (!best) continue;
      gone.add(b);
      const line: LayoutLine = {
        ...best,
        text: `${b.text.trim()} ${best.text}`,
        x0: b.x0,
        y0: Math.min(b.y0, best.y0),
        y1: Math.max(b.y1, best.y1),
        segments: undefined,
        ...(best.math !== undefined ? { math: `${b.text.trim()} ${best.math}` } : {}),
      };
      itemTextStart.set(line, best.x0);
      joined.set(best, line);
    }
  }
  return pageLines.filter((l) => !gone.has(l)).map((l) => joined.get(l) ?? l);
}

/**
 * Narrow columns of running text (a worksheet in four columns of some 20 characters a line) whose rows line
 * up like a grid: every column reads on from row to row. A table's cells rarely do: at least a sixth of the
 * cells that have a cell under them end in a word broken at a hyphen ("Hinwei-" over "se. An ihm"), and
 * over half continue into the cell under them (broken at a hyphen, or of two words or more without
 * closing punctuation over a cell that starts in lower case, or, when the cell ends in a word in lower case,
 * over one that starts with a letter of either case: German sets nouns in capitals, so "zum Testen von"
 * reads on into "Textausgaben." and "eine falsche" into "»Anmutung ...", ADR 0374).
 */
function flowsAsText(rows: readonly string[][]): boolean {
  let pairs = 0;
  let broken = 0;
  let flowing = 0;
  for (let r = 0; r + 1 < rows.length; r++) {
    for (let c = 0; c < rows[r]!.length; c++) {
      const a = rows[r]![c]?.trim() ?? '';
      const b = rows[r + 1]![c]?.trim() ?? '';
      if (!a || !b) continue;
      pairs++;
      if (/\p{Ll}-$/u.test(a) && /^\p{Ll}/u.test(b)) {
        broken++;
        flowing++;
      } else if (/\S\s+\S/.test(a) && !/[.:;!?)\]]$/.test(a) && (/^\p{Ll}/u.test(b) || (/\p{Ll}$/u.test(a) && /^[»«„“"‘(]?\p{L}/u.test(b)))) flowing++;
    }
  }
  return pairs >= 8 && broken * 6 >= pairs && flowing * 2 > pairs;
}

/** The font size of a row's cells (the median). */
const rowSize = (r: Row): number => median(r.cells.map((c) => c.size));

function buildGrid(region: Row[]): TableRegion | null {
  // Prose in two columns or checkbox lists is not a table: table cells are short.
  // In a table of two columns the keys must be (the descriptions of a key column table may be long).
  const cells = region.flatMap((r) => r.cells);
  const judged = region.every((r) => r.cells.length <= 2) ? region.map((r) => r.cells[0]!) : cells;
  const meanLength = judged.reduce((s, c) => s + c.text.length, 0) / Math.max(1, judged.length);
  if (meanLength > 28) return null;
  // A listing with its line numbers (bare numbers beside monospaced lines, a picture's label among them)
  // is code, not a table (ADR 0368).
  const byX = (r: Row): LayoutLine[] => [...r.cells].sort((a, b) => a.x0 - b.x0);
  const multi = region.filter((r) => r.cells.length >= 2);
  const numbered = multi.filter((r) => /^\d{1,4}(?:\s+\d{1,4})*$/.test(byX(r)[0]!.text.trim()));
  if (numbered.length === multi.length && numbered.filter((r) => byX(r).slice(1).every((c) => c.mono)).length >= 0.8 * multi.length) return null;
  // Columns come from the rows with the most common number of cells (spanning header cells would merge
  // columns otherwise): the union of their overlapping x-intervals.
  // A few cells set smaller than the table's text (by more than a seventh: the labels of a picture drawn
  // in a cell, "west" and "shell" in 8 pt beside 10 pt descriptions) say nothing of the columns; they go
  // to the column nearest them. Not where such cells are a quarter of the table or more (a column of
  // notes set small is a column). A label has a letter: a listing's line numbers set small ("8" in 4 pt
  // beside a Verbatim example) are no picture's labels. And a table with a small cell that reads as code
  // (a backslash, braces, brackets, "=": a code column set smaller beside a table, dijkstra's
  // `\readgraph{` lines) has no picture labels; its small cells make columns as before.
  const em = median(cells.map((c) => c.size));
  const small = (c: LayoutLine): boolean => c.size < 0.85 * em && /\p{L}/u.test(c.text);
  const fewSmall = cells.filter(small).length * 4 < cells.length && !cells.some((c) => small(c) && /[\\{}[\]=%#$]/.test(c.text));
  // Each row's cells that decide the columns, worked out once per row.
  const owned = new Map<Row, readonly LayoutLine[]>(region.map((r) => [r, fewSmall ? r.cells.filter((c) => !small(c)) : r.cells]));
  const own = (r: Row): readonly LayoutLine[] => owned.get(r)!;
  const counts = new Map<number, number>();
  for (const r of region) {
    const n = own(r).length;
    if (n >= 2) counts.set(n, (counts.get(n) ?? 0) + 1);
  }
  let refCount = 0;
  let best = -1;
  for (const [k, v] of counts) if (v > best || (v === best && k > refCount)) [refCount, best] = [k, v];
  const spans = region
    .filter((r) => own(r).length === refCount)
    .flatMap((r) => own(r).map((c) => [c.x0, c.x1] as [number, number]))
    .sort((a, b) => a[0] - b[0]);
  const cols: [number, number][] = [];
  for (const [a, b] of spans) {
    const last = cols[cols.length - 1];
    if (last && a <= last[1] + 2) last[1] = Math.max(last[1], b);
    else cols.push([a, b]);
  }
  if (cols.length < 2 || cols.length > 20) return null;
  // A multirow label left of every column (`\setuplinks` set once beside the rows of its arguments, on the
  // first of them): cells that overlap no column and end left of the first are a column of their own, which
  // may stay empty in most rows (ADR 0368); joined into the first column they glued the label to its cell.
  const labels = cells.filter((c) => c.x1 <= cols[0]![0] - 0.8 * em).sort((a, b) => a.x0 - b.x0);
  const labelCols: [number, number][] = [];
  for (const c of labels) {
    const last = labelCols[labelCols.length - 1];
    if (last && c.x0 <= last[1] + 2) last[1] = Math.max(last[1], c.x1);
    else labelCols.push([c.x0, c.x1]);
  }
  const ocr = cells.some((c) => c.sizeEstimated);
  const sparse = labelCols.length === 1 && !ocr ? 1 : 0;
  if (sparse) cols.unshift(labelCols[0]!);
  // A header cell over a column the body leaves empty (its cells are pictures, or left blank: "Example"
  // over tikz drawings, "Revision History" over nothing): a first-row cell right of the first column that
  // stays 0.8 em clear of every column is a column of its own, which need not be filled below it. Put into
  // the nearest column it glued two headers into one ("Version Number Revision History") and took the
  // heading from the column under it.
  const headerOnly = new Set<[number, number]>();
  if (!ocr && region.length >= 3) {
    for (const c of region[0]!.cells) {
      if (c.x0 <= cols[0]![1] || !cols.every(([a, b]) => c.x0 > b + 0.8 * em || c.x1 < a - 0.8 * em)) continue;
      const col: [number, number] = [c.x0, c.x1];
      headerOnly.add(col);
      cols.push(col);
    }
    cols.sort((p, q) => p[0] - q[0]);
  }
  const columnOf = (c: LayoutLine): number => {
    const mid = (c.x0 + c.x1) / 2;
    let k = cols.findIndex(([a, b]) => mid >= a - 2 && mid <= b + 2);
    if (k < 0) k = cols.findIndex(([a, b]) => c.x0 >= a - 2 && c.x0 <= b + 2);
    if (k < 0) {
      let d = Infinity;
      cols.forEach(([a, b], i) => {
        const dist = Math.min(Math.abs(mid - a), Math.abs(mid - b));
        if (dist < d) [d, k] = [dist, i];
      });
    }
    return Math.max(0, k);
  };
  // A header spanning two or more columns (over sub-columns) that is not cut at them goes into the first
  // of them (GFM has no spans; the ones after it stay empty): it reaches over the gap between them and
  // covers a quarter or more of each.
  const spannedFirst = (c: LayoutLine): number | null => {
    const over = cols.map((_, k) => k).filter((k) => {
      const [a, b] = cols[k]!;
      return Math.min(b, c.x1) - Math.max(a, c.x0) >= 0.25 * Math.max(1, b - a);
    });
    return over.length >= 2 && over[over.length - 1]! - over[0]! === over.length - 1 ? over[0]! : null;
  };
  const align = columnAlignment(region.filter((r) => r.cells.length === refCount), cols, columnOf);
  const cw = charWidth(cells);
  const body = median(cells.map((c) => c.size));
  // Each cell's first and last line (none for the runs of a line cut across columns) and each column's
  // right edge: what tells a cell wrapped onto the next row's line (see mergeWrappedRows).
  const edges: CellLines[][] = [];
  const right = cols.map(([, b]) => b);
  const grid: string[][] = region.map((r) => {
    const row = cols.map(() => '');
    const at: CellLines[] = cols.map(() => ({}));
    edges.push(at);
    const put = (idx: number, text: string, l?: LayoutLine): void => {
      if (text) row[idx] = row[idx] ? `${row[idx]} ${text}` : text;
      if (!l) return;
      at[idx]!.first ??= l;
      at[idx]!.last = l;
      right[idx] = Math.max(right[idx]!, l.x1);
    };
    for (const c of r.lead ?? []) put(columnOf(c), c.text, c);
    for (const c of r.cells) {
      const parts = r.cells.length >= 2 ? splitAcrossColumns(c, cols, align, cw, body) : null;
      if (parts) for (const p of parts) put(p.col, p.text);
      else put(spannedFirst(c) ?? columnOf(c), c.text, c);
    }
    // A wrapped cell's next line; a word hyphenated at the line end ("accord-" / "ing") is joined.
    // A word broken without a hyphen because it is wider than its narrow column ("Compresso" over "r": a
    // word processor breaks it where the column ends) is joined without a space (ADR 0368).
    for (const c of r.more) {
      const k = columnOf(c);
      if (/\p{Ll}-$/u.test(row[k]!) && /^\p{Ll}/u.test(c.text)) {
        row[k] = row[k]!.slice(0, -1) + c.text;
        put(k, '', c);
      } else if (!ocr && brokenWord(at[k]!.last, c, cols[k]!)) {
        row[k] = row[k]! + c.text.trim();
        put(k, '', c);
      } else put(k, c.text, c);
    }
    return row;
  });
  if (!ocr) mergeWrappedRows(grid, region, edges, cols.map(([a], k) => [a, right[k]!] as [number, number]));
  // Every column must be filled in at least half of the rows, or the "table" is probably a layout artefact.
  // From four rows on, half of the rows under the first will do: the first may be a header whose spanning
  // cells leave columns empty (two tables side by side under their titles, ADR 0368). The first column may
  // be a multirow label column (ADR 0368): filled in the first row under the header and in another, its
  // other rows empty under each label.
  const counted = grid.length >= 4 && !ocr ? grid.slice(1) : grid;
  // A label is a word: two letters or digits or more (single glyphs of a picture are no labels).
  const labelled = grid.every((r) => !r[0] || (r[0].match(/[\p{L}\p{N}]/gu) ?? []).length >= 2);
  const multirow = !ocr && labelled && grid.length >= 4 && !!grid[1]![0] && counted.filter((r) => r[0]).length >= 2;
  for (let c = (sparse && labelled) || multirow ? 1 : 0; c < cols.length; c++) {
    if (headerOnly.has(cols[c]!)) continue;
    const filled = counted.filter((r) => r[c]!.trim()).length;
    if (filled < Math.ceil(counted.length / 2)) return null;
  }
  return { lines: [...cells, ...region.flatMap((r) => [...r.more, ...(r.lead ?? [])])], rows: grid };
}

/** Short words a line may start with: not the end of a word broken at the column's edge. */
const SHORT_WORDS = new Set(['a', 'an', 'as', 'at', 'be', 'by', 'do', 'go', 'he', 'if', 'in', 'is', 'it', 'me', 'my', 'no', 'of', 'on', 'or', 'so', 'to', 'up', 'us', 'we', 'de', 'du', 'la', 'le', 'en', 'et', 'un', 'da', 'di', 'el', 'es', 'im', 'am', 'zu', 'y', 'e', 'i', 'o', 'à']);

/**
 * `b` ends the word that fills line `a` of a cell: `a` is one word (letters, three or more) as wide as its
 * column or nearly (0.85 of it), and `b` starts with one or two lower-case letters that are no word of
 * their own ("Compresso" over "r"). A word too wide for a narrow column is broken where the column ends,
 * without a hyphen, by word processors (LaTeX sets such a word overfull instead).
 */
function brokenWord(a: LayoutLine | undefined, b: LayoutLine, col: readonly [number, number]): boolean {
  if (!a || !/^\p{L}{3,}$/u.test(a.text.trim())) return false;
  const m = /^(\p{Ll}{1,2})(?:\s|$)/u.exec(b.text.trim());
  return !!m && !SHORT_WORDS.has(m[1]!) && a.x1 - a.x0 >= 0.85 * (col[1] - col[0]) && Math.abs(b.x0 - a.x0) <= 0.5 * (col[1] - col[0]);
}

/** A grid cell's first and last line. */
interface CellLines {
  first?: LayoutLine;
  last?: LayoutLine;
}

/** `a` and the next line `b` of one cell: a word broken at a hyphen is joined, other lines with a space. */
const joinLines = (a: string, b: string): string => (!a ? b : !b ? a : /\p{Ll}-$/u.test(a) && /^\p{Ll}/u.test(b) ? a.slice(0, -1) + b : `${a} ${b}`);

/**
 * Rows of a grid that are further lines of the row above (ADR 0368): a cell wrapped over two or three lines
 * made a row of each line where the lines of its row were not joined before (a picture's labels in another
 * column on the second line, a wrapped key). The row boundary is decided by the columns, not by every line:
 * a row set solid under the one above (within half a line) whose key column (the first) is empty or reads
 * on, and whose every cell under a filled cell reads on from it ({@link readsOn}), one at least, is joined
 * to it (cells in columns empty above come along: labels beside a wrapped description). A key set
 * vertically centred against a description of three lines lands on the middle line: a keyless row whose
 * cells read on into the keyed row under it is that row's first line.
 */
function mergeWrappedRows(grid: string[][], region: Row[], edges: CellLines[][], cols: readonly (readonly [number, number])[]): void {
  const right = cols.map(([, b]) => b);
  const ys = region.map((r) => ({ y0: r.y0, y1: r.y1, h: Math.max(1, Math.min(...r.cells.map((c) => c.y1 - c.y0))) }));
  const solid = (k: number): boolean => ys[k]!.y0 - ys[k - 1]!.y1 <= 0.5 * ys[k]!.h;
  // Column `c` of row `k` goes on from row `k - 1`: the text reads on and the line above was full (its next
  // line's first word would not have fitted after it: "row 1" over "row 2" in a column as wide as "column
  // 1" is two rows).
  const goesOn = (k: number, c: number): boolean => {
    const a = edges[k - 1]![c]!.last;
    const b = edges[k]![c]!.first;
    if (b && brokenWord(a, b, cols[c]!)) return true;
    // A header's cell may be one word over the rest of its text ("Number" over "of runs"), where not every
    // header cell goes on (a row of one-word names under one-word names is a row of its own).
    const header = k === 1 && grid[1]!.filter(Boolean).length < grid[0]!.filter(Boolean).length;
    if (!a || !b || !readsOn(grid[k - 1]![c]!, grid[k]![c]!, header)) return false;
    if (/\p{L}-$/u.test(a.text.trim())) return true;
    const t = b.text.trim();
    const word = t.split(/\s+/)[0]!.length * ((b.x1 - b.x0) / Math.max(1, t.length)) + 0.25 * b.size;
    return a.x1 + word > right[c]! && a.x1 - a.x0 >= 0.5 * (right[c]! - a.x0);
  };
  // Each column of row `k` under row `k - 1`: how many go on; false when one starts afresh under a filled cell.
  const readOn = (k: number, from: number): number | false => {
    let on = 0;
    for (let c = from; c < grid[k]!.length; c++) {
      if (!grid[k]![c] || !grid[k - 1]![c]) continue;
      if (!goesOn(k, c)) return false;
      on++;
    }
    return on;
  };
  const join = (k: number, key: string): void => {
    grid[k - 1] = grid[k - 1]!.map((t, c) => {
      const b = edges[k]![c]!.first;
      if (c > 0 && b && brokenWord(edges[k - 1]![c]!.last, b, cols[c]!)) return t + grid[k]![c]!;
      return c === 0 ? key : joinLines(t, grid[k]![c]!);
    });
    edges[k - 1] = edges[k - 1]!.map((e, c) => ({ first: e.first ?? edges[k]![c]!.first, last: edges[k]![c]!.last ?? e.last }));
    ys[k - 1] = { ...ys[k - 1]!, y1: Math.max(ys[k - 1]!.y1, ys[k]!.y1) };
    grid.splice(k, 1);
    edges.splice(k, 1);
    ys.splice(k, 1);
  };
  // A row of two lines or more whose one-line cells are centred on it (a word processor centres its cells
  // vertically) is whole: a line under it starts the next row, although it may read on.
  const centred = (k: number): boolean => {
    const es = edges[k]!.filter((e) => e.first && e.last);
    if (es.length < 2) return false;
    const top = Math.min(...es.map((e) => e.first!.y0));
    const bottom = Math.max(...es.map((e) => e.last!.y1));
    const mid = (top + bottom) / 2;
    const h = ys[k]!.h;
    return bottom - top >= 1.5 * h && es.some((e) => e.first === e.last && Math.abs((e.first!.y0 + e.first!.y1) / 2 - mid) <= 0.2 * h && e.first!.y0 > top + 0.3 * h);
  };
  // A key of three lines or more with the row's other cells (one line each) at its middle: the key's lines
  // above and below those cells are rows of their key alone (or its row's own further lines), set solid,
  // up to two above and two below; the other cells' centre is the centre of the key's lines. The top
  // one must not be the last line of the row above (a wrapped key of a row whose cells stand at its top),
  // unless that row is whole (centred on its lines).
  const keyOnly = (k: number): boolean => !!grid[k]?.[0] && grid[k]!.every((t, c) => c === 0 || !t);
  // A row whose one-line cells stand on its key's first line (LaTeX's rows): its key's further lines
  // follow it, so a key-only row under it is its own.
  const topAligned = (k: number): boolean => {
    const key = edges[k]![0]!.first;
    const others = edges[k]!.slice(1).filter((e) => e.first && e.first === e.last);
    return !!key && others.length > 0 && others.every((e) => Math.abs(e.first!.y0 - key.y0) <= 0.3 * ys[k]!.h);
  };
  for (let k = 0; k < grid.length; k++) {
    const others = edges[k]!.slice(1).filter((e) => e.first);
    const key = edges[k]![0]!;
    if (!grid[k]![0] || !key.first || !key.last || !others.length || others.some((e) => e.first !== e.last)) continue;
    const mid = median(others.map((e) => (e.first!.y0 + e.first!.y1) / 2));
    let up = 0;
    while (up < 2 && k - up - 1 >= 0 && keyOnly(k - up - 1) && solid(k - up)) up++;
    let down = 0;
    while (down < 2 && k + down + 1 < grid.length && keyOnly(k + down + 1) && solid(k + down + 1)) down++;
    const fit = [[2, 2], [2, 1], [1, 2], [1, 1], [2, 0], [0, 2], [1, 0], [0, 1]].find(([u, d]) => {
      if (u! > up || d! > down) return false;
      if (u! > 0 && k - u! - 1 >= 0 && solid(k - u!) && !centred(k - u! - 1) && (goesOn(k - u!, 0) || topAligned(k - u! - 1))) return false;
      const top = u! > 0 ? ys[k - u!]!.y0 : key.first!.y0;
      const bottom = d! > 0 ? ys[k + d!]!.y1 : key.last!.y1;
      return Math.abs((top + bottom) / 2 - mid) <= 0.2 * ys[k]!.h;
    });
    if (!fit) continue;
    const [u, d] = fit as [number, number];
    const keyText = grid.slice(k - u, k + d + 1).map((r) => r[0]!).reduce((a, b) => joinLines(a, b));
    const span = { y0: u > 0 ? ys[k - u]!.y0 : ys[k]!.y0, y1: d > 0 ? ys[k + d]!.y1 : ys[k]!.y1, h: ys[k]!.h };
    const keyLines = { first: u > 0 ? edges[k - u]![0]!.first : key.first, last: d > 0 ? edges[k + d]![0]!.last : key.last };
    grid.splice(k - u, u + d + 1, [keyText, ...grid[k]!.slice(1)]);
    edges.splice(k - u, u + d + 1, [keyLines, ...edges[k]!.slice(1)]);
    ys.splice(k - u, u + d + 1, span);
    k -= u;
  }
  for (let k = 1; k < grid.length; ) {
    const [p, r] = [grid[k - 1]!, grid[k]!];
    const on = solid(k) && !centred(k - 1) ? readOn(k, 0) : false;
    const b0 = edges[k]![0]!.first;
    // A key alone on its row does not go on into a row with cells of its own (a label row over a row).
    const labelOver = !!r[0] && p.every((t, c) => c === 0 || !t) && r.some((t, c) => c > 0 && !!t);
    if (on && !labelOver && (!r[0] || (p[0] && goesOn(k, 0)))) join(k, b0 && brokenWord(edges[k - 1]![0]!.last, b0, cols[0]!) ? p[0]! + r[0]! : joinLines(p[0]!, r[0]!));
    else k++;
  }
  for (let k = 1; k < grid.length; ) {
    const [p, r] = [grid[k - 1]!, grid[k]!];
    const on = !p[0] && r[0] && solid(k) ? readOn(k, 1) : false;
    if (on) join(k, r[0]!);
    else k++;
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : 0;
};

/**
 * A cell wrapped over two or more lines makes rows of one line under the cell's first line. It is joined to
 * the row above when it touches the line above it (within 0.3 em), starts at its left edge, and belongs to
 * the same source block, a block that holds only that cell's lines (LibreOffice's cells are blocks of
 * their own; a LaTeX table is one block, so a label row under a full row is not taken for a wrapped cell).
 */
function joinWrappedCells(rows: Row[], lines: readonly LayoutLine[], body: number): void {
  const byBlock = new Map<number, LayoutLine[]>();
  for (const l of lines) byBlock.set(l.block, [...(byBlock.get(l.block) ?? []), l]);
  // Lines of one cell share its left edge, or its centre in a centred column ("F11 (F6 on" over "MacOS X)").
  const lined = (a: LayoutLine, b: LayoutLine): boolean => Math.abs(a.x0 - b.x0) <= 2 || Math.abs(a.x0 + a.x1 - b.x0 - b.x1) <= 4;
  // A block that is one cell: its lines all line up with the given line.
  const cellBlock = (c: LayoutLine): boolean => (byBlock.get(c.block) ?? []).every((o) => lined(o, c));
  for (let k = 1; k < rows.length; ) {
    const r = rows[k]!;
    const prev = rows[k - 1]!;
    const c = r.cells[0]!;
    // MuPDF may also put the wrapped line in a block of its own (ADR 0369): then the line above must be a
    // cell's block too (lines of one edge or centre only), which a LaTeX table, set as one block, is not; or
    // the line, alone in its block and with a letter, wraps a cell after the row's first (a description
    // whose row MuPDF set as one block with its key).
    // Not for a code line (a listing's numbered lines beside a table in a LaTeX manual).
    const wraps = (o: LayoutLine): boolean => o.block === c.block || (!c.mono && (cellBlock(o) || (o !== prev.cells[0] && byBlock.get(c.block)?.length === 1 && /\p{L}/u.test(c.text))));
    const above = r.cells.length === 1 && prev.cells.length >= 2 ? [...prev.cells, ...prev.more].find((o) => wraps(o) && lined(o, c) && c.y0 - o.y1 <= 0.3 * body && c.y0 >= o.y0) : undefined;
    if (above && cellBlock(c)) {
      prev.more.push(c);
      prev.y1 = Math.max(prev.y1, c.y1);
      rows.splice(k, 1);
    } else k++;
  }
}

/**
 * Cells wrapped over several lines in a table without rules (LaTeX `p{}` columns: "option | a description
 * that wraps"): the lines after a cell's first come as a row with its first column empty, each of its lines
 * starting at the left edge of a cell of the row above (within 2 pt) other than that row's first, no line
 * reaching into the next cell's column, and the row above having more cells. Such a row is the row above's
 * continuation and is joined to it (its lines go into the cells they start under; ADR 0343). A row with a label, or
 * with a cell that lines up with nothing above it (a sub-header under a spanning header), stays a row.
 */
function joinContinuationRows(rows: Row[], body: number, ocr = false): void {
  for (let k = 1; k < rows.length; ) {
    const r = rows[k]!;
    const prev = rows[k - 1]!;
    const above = [...prev.cells].sort((a, b) => a.x0 - b.x0);
    const h = Math.max(1, Math.min(...r.cells.map((c) => c.y1 - c.y0)));
    const fits = above.length >= 2 && above.length > r.cells.length && r.y0 - prev.y1 <= 0.5 * h && r.cells.every((c) => {
      const i = above.findIndex((o) => Math.abs(o.x0 - c.x0) <= 2);
      const next = above[i + 1];
      return i >= 1 && (next ? c.x1 <= next.x0 - 0.3 * body : c.x1 <= Math.max(...above.map((o) => o.x1)) + body);
    });
    const next = rows[k + 1];
    if (!ocr && next && centredKeyBelow(prev, r, next, body)) {
      (next.lead ??= []).push(...r.cells, ...r.more);
      next.y0 = Math.min(next.y0, r.y0);
      rows.splice(k, 1);
    } else if (fits && (ocr || (!startsNewRow(prev, r) && !roomAbove(prev, r, rows)))) {
      prev.more.push(...r.cells, ...r.more);
      prev.y1 = Math.max(prev.y1, r.y1);
      rows.splice(k, 1);
    } else k++;
  }
}

/**
 * Rows of cells centred vertically against cells of more lines (a word processor's table: a one-line
 * "23,825,848" set half a line below "lz4 (run" and half a line above "once)", a header of two-line and
 * three-line cells): lines of neighbouring rows in different columns overlap by 40% or more of a line,
 * where rows one under the other overlap by little or not at all (LaTeX's tall boxes reach a fifth into
 * the next row; only lines of the usual height and of two characters or more are compared, so a tall
 * box or a lowered letter of the TeX logo does not count). Such rows are one row, whose lines in one
 * column (overlapping along x, or segments of one line) are one cell: its top line stays a cell and the
 * others are its further lines (ADR 0368). `tightest` holds each row's tightest line (kept in step).
 */
function mergeCentredRows(rows: Row[], tightest: LayoutLine[]): void {
  // OCR lines (sizes estimated from word heights) have padded, uneven boxes: rows of a scanned table
  // overlap without being centred against each other.
  if (rows.some((r) => r.cells.some((l) => l.sizeEstimated))) return;
  // The row's lines of the usual height (within 15% of the median of the rows' tightest lines: a row
  // whose one line has a tall box has no plain line) with two characters or more.
  const usual = median(tightest.map((l) => l.y1 - l.y0));
  const plain = (k: number): LayoutLine[] => rows[k]!.cells.filter((l) => l.y1 - l.y0 <= 1.15 * usual && l.text.trim().length >= 2);
  const merged = new Set<Row>();
  for (let k = 1; k < rows.length; ) {
    // Row k's plain lines once, not once per line of row k - 1 (ADR 0377).
    const below = plain(k);
    const overlap = plain(k - 1).some((a) => below.some((b) => (a.x1 < b.x0 || b.x1 < a.x0) && Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) >= 0.4 * Math.min(a.y1 - a.y0, b.y1 - b.y0)));
    if (overlap) {
      const [a, b] = [rows[k - 1]!, rows[k]!];
      a.cells.push(...b.cells);
      a.more.push(...b.more);
      a.y0 = Math.min(a.y0, b.y0);
      a.y1 = Math.max(a.y1, b.y1);
      if (tightest[k]!.y1 - tightest[k]!.y0 < tightest[k - 1]!.y1 - tightest[k - 1]!.y0) tightest[k - 1] = tightest[k]!;
      merged.add(a);
      rows.splice(k, 1);
      tightest.splice(k, 1);
    } else k++;
  }
  for (const r of merged) {
    // Lines of one column: overlapping along x (transitively), or segments of one text line.
    const groups: LayoutLine[][] = [];
    for (const l of [...r.cells].sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0)) {
      const parent = segmentOf.get(l);
      const hit = groups.filter((g) => g.some((o) => (Math.min(o.x1, l.x1) > Math.max(o.x0, l.x0)) || (parent !== undefined && segmentOf.get(o) === parent)));
      const into = hit[0] ?? [];
      for (const g of hit.slice(1)) {
        into.push(...g);
        groups.splice(groups.indexOf(g), 1);
      }
      into.push(l);
      if (!hit.length) groups.push(into);
    }
    r.cells = groups.map((g) => g.sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0)[0]!);
    r.more.push(...groups.flatMap((g) => g.slice(1)));
    r.more.sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
  }
}

/**
 * Whether `b`, the first line of a cell's text on the line below `a`, reads on from `a`: a word broken at a
 * hyphen ("synchro-" over "nization"), or `a` of two words or more (`oneWord`: or one) left open (no
 * closing punctuation) over `b` starting in lower case. A cell's text wrapped in a `p{}` column reads on; a new row's cells (a type
 * "{Länge}" under "{boolean}", a number under a number, "Mindestlänge ..." under a finished description)
 * start afresh.
 */
export function readsOn(a: string, b: string, oneWord = false): boolean {
  const x = a.trim();
  const y = b.trim();
  if (!x || !y || !/^\p{Ll}/u.test(y)) return false;
  // A line ending in a number ("row 1", "Vmatrix environment, 12") ends its cell.
  return /\p{L}-$/u.test(x) || ((oneWord || /\S\s+\S/.test(x)) && !/[.:;!?\d]$/.test(x));
}

/** The text of the row's lowest line starting at `x` (within 2 pt): what a wrapped cell under it continues. */
function textAbove(r: Row, x: number): string {
  const at = [...r.cells, ...r.more].filter((l) => Math.abs(l.x0 - x) <= 2).sort((p, q) => q.y0 - p.y0);
  return at[0]?.text ?? '';
}

/**
 * A row of one line set solid under the row before it (within half a line), starting at the left edge
 * (2 pt) of a cell after the first of one of the table's rows of two cells or more and ending before that
 * row's next cell, at that cell's size (a table's notes under it are set smaller) and not in a monospaced
 * font (code): a table row whose other cells are empty.
 */
function sparseRow(r: Row, prev: Row, table: readonly Row[], body: number): boolean {
  if (r.cells.length !== 1) return false;
  const c = r.cells[0]!;
  // Not a code line (a listing's lines under a table's column: "#1%", "\end{Verbatim}").
  if (c.mono || r.y0 - prev.y1 > 0.5 * Math.max(1, c.y1 - c.y0)) return false;
  return table.some((t) => {
    if (t.cells.length < 2) return false;
    const k = t.cells.findIndex((o, n) => n >= 1 && Math.abs(o.x0 - c.x0) <= 2);
    const next = t.cells[k + 1];
    return k >= 1 && c.size <= 1.2 * t.cells[k]!.size && c.size >= 0.9 * t.cells[k]!.size && (!next || c.x1 <= next.x0 - 0.3 * body);
  });
}

/**
 * A justified line alone on its row (the first line of a paragraph of several lines, {@link justifiedLine}),
 * under a cell of the row above whose last line left room for its first word: a line breaks inside a cell
 * only where the next word does not fit, so a line whose first word would have
 * fitted after the line above (with a space and an em to spare, within the widest line set at that left
 * edge in the table) and
 * that does not read on from it ({@link readsOn}) starts a new row of its own ("Fédération belge de gong"
 * under "Fbg Bgf", a row whose other cells are empty), not that cell's next line. Only for a justified
 * line: a short line under a short line may be a line break set on purpose ("UPPERCASE" / "EXCEPT FOR"
 * / ... / "Bold" in a style table's cell).
 */
function roomAbove(prev: Row, r: Row, rows: readonly Row[]): boolean {
  if (r.cells.length !== 1 || !justifiedLines.has(r.cells[0]!)) return false;
  const c = r.cells[0]!;
  const above = [...prev.cells, ...prev.more].filter((l) => Math.abs(l.x0 - c.x0) <= 2).sort((p, q) => q.y0 - p.y0)[0];
  if (!above || readsOn(above.text, c.text)) return false;
  const text = c.text.trim();
  // Words, not symbols or formulas stacked on purpose ("⟨⋅⟩" over "⟨⋅⟩" in two sizes).
  if (!/^\p{L}{2}/u.test(text) || !/\p{L}/u.test(above.text)) return false;
  const word = text.split(/\s+/)[0]!;
  // The first word's width: its own segment where the line has them (a justified line's stretched spaces
  // would make a width per character too wide), else its share of the line.
  const seg = c.segments?.[0];
  const wordWidth = seg && seg.text.trim() === word ? seg.x1 - seg.x0 : ((c.x1 - c.x0) * word.length) / text.length;
  let right = -Infinity;
  for (const o of rows) for (const l of [...o.cells, ...o.more]) if (Math.abs(l.x0 - c.x0) <= 2) right = Math.max(right, l.x1);
  // With an em to spare: a width per character is only an estimate, and TeX's line breaking may leave
  // a little room at the end of a ragged line ("dort, wo sich" over "Felder beeinflussen,").
  return above.x1 + 0.25 * c.size + wordWidth <= right - c.size;
}

/**
 * A row whose lines all start under cells of the row above is that row's wrapped cells only when its lines
 * read on ({@link readsOn}); when most of its cells (two or more) start afresh, the table's columns start a
 * new line at the row's top: a new row of a table whose first column is a multirow label (`\setuplinks`
 * beside the rows of its arguments), not a continuation (ADR 0368). A single line stays a wrapped cell (a
 * cell may wrap after a full stop; but see {@link centredKeyBelow}).
 */
function startsNewRow(prev: Row, r: Row): boolean {
  if (r.cells.length < 2) return false;
  const fresh = r.cells.filter((c) => !readsOn(textAbove(prev, c.x0), c.text)).length;
  return fresh >= 2 && 2 * fresh > r.cells.length;
}

/**
 * A line alone on its row that is the first line of the row under it: a description whose key is set
 * vertically centred against it (`m{}` cells, a label centred in a row of three lines) sits on the
 * description's middle line, so the description's first line comes as a row of its own above the key's.
 * It starts afresh (the text above it, if any, ends in closing punctuation and it starts with a capital or
 * a digit), the row under it is set solid below it, has a key left of it and a line under it that reads
 * on from it (ADR 0368).
 */
function centredKeyBelow(prev: Row, r: Row, next: Row, body: number): boolean {
  if (r.cells.length !== 1) return false;
  const c = r.cells[0]!;
  const before = textAbove(prev, c.x0).trim();
  if ((before && !/[.:;!?]$/.test(before)) || !/^[\p{Lu}\p{N}]/u.test(c.text.trim())) return false;
  const key = [...next.cells].sort((a, b) => a.x0 - b.x0)[0]!;
  const under = next.cells.find((o) => Math.abs(o.x0 - c.x0) <= 2);
  return key.x1 <= c.x0 - 0.8 * body && next.y0 - r.y1 <= 0.5 * Math.max(1, c.y1 - c.y0) && !!under && readsOn(c.text, under.text);
}

/**
 * A one-line key centred against its description of three or more lines (a word processor's table: the
 * Math Guide's "Documentation" beside the second of three lines, "International support" between the
 * second and third of four): the description's lines above the key's line (and below its row, where they
 * were not joined to it) come as rows of one line right of the key, set solid. Up to two such rows above
 * and two below are the key's row when the key's centre is the centre of the rows taken with its own
 * (within a fifth of a line); a key on the first line of its row (LaTeX's `p{}` rows) matches no such
 * choice (ADR 0368).
 */
function joinCentredKeys(rows: Row[], body: number): void {
  for (let k = 0; k < rows.length; k++) {
    const b = rows[k]!;
    const key = b.cells[0]!;
    const h = Math.max(1, key.y1 - key.y0);
    if (b.more.some((l) => Math.abs(l.x0 - key.x0) <= 2)) continue;
    const beside = (r: Row | undefined): boolean => !!r && r.cells.length === 1 && r.more.length === 0 && r.cells[0]!.x0 >= key.x1 + 0.8 * body;
    let up = 0;
    while (up < 2 && beside(rows[k - up - 1]) && rows[k - up]!.y0 - rows[k - up - 1]!.y1 <= 0.5 * h) up++;
    let down = 0;
    while (down < 2 && beside(rows[k + down + 1]) && rows[k + down + 1]!.y0 - rows[k + down]!.y1 <= 0.5 * h) down++;
    if (up + down === 0) continue;
    const mid = (key.y0 + key.y1) / 2;
    // The description's first line starts afresh: a line that reads on from the line above it is the
    // last line of the row above's description (a LaTeX key stands on its description's first line).
    const afresh = (u: number): boolean => {
      const top = rows[k - u]!.cells[0]!;
      const p = rows[k - u - 1];
      return u === 0 || !p || !readsOn(textAbove(p, top.x0), top.text);
    };
    const fit = [[2, 2], [2, 1], [1, 2], [1, 1], [2, 0], [0, 2], [1, 0], [0, 1]].find(([u, d]) => u! <= up && d! <= down && Math.abs((rows[k - u!]!.y0 + rows[k + d!]!.y1) / 2 - mid) <= 0.2 * h && afresh(u!));
    if (!fit) continue;
    const [u, d] = fit as [number, number];
    const above = rows.slice(k - u, k).flatMap((r) => r.cells);
    const under = rows.slice(k + 1, k + d + 1).flatMap((r) => r.cells);
    // The description's lines in reading order: those above first, then the row's own, then those below.
    if (above.length) {
      const own = b.cells.filter((c) => c !== key);
      b.lead = [...(b.lead ?? []), ...above];
      b.cells = [key, ...own.slice(0, 1)];
      b.more = [...own.slice(1), ...b.more];
      if (!own.length && under.length) b.cells.push(under.shift()!);
    } else if (b.cells.length === 1 && under.length) b.cells.push(under.shift()!);
    b.more.push(...under);
    b.y0 = rows[k - u]!.y0;
    b.y1 = Math.max(b.y1, rows[k + d]!.y1);
    rows.splice(k + 1, d);
    rows.splice(k - u, u);
    k -= u;
  }
}

/** Width per character of a table's one-word cells (median), to place the words of a joined line. */
function charWidth(cells: readonly LayoutLine[]): number {
  const w = cells.filter((c) => c.text.trim().length >= 2).map((c) => (c.x1 - c.x0) / c.text.trim().length);
  return median(w);
}

type Align = 'left' | 'right' | 'center';

/**
 * How each column's cells line up: the edges (left, right, centre) whose positions vary least over the
 * reference rows, all of them when the cells are as wide as each other (then any edge may be the one).
 */
function columnAlignment(rows: readonly Row[], cols: readonly [number, number][], columnOf: (c: LayoutLine) => number): Align[][] {
  return cols.map((_, k) => {
    const cs = rows.flatMap((r) => r.cells.filter((c) => columnOf(c) === k));
    if (cs.length < 2) return ['left', 'right', 'center'];
    const spread = (f: (c: LayoutLine) => number): number => Math.max(...cs.map(f)) - Math.min(...cs.map(f));
    const by: [Align, number][] = [['left', spread((c) => c.x0)], ['right', spread((c) => c.x1)], ['center', spread((c) => (c.x0 + c.x1) / 2)]];
    const least = Math.min(...by.map(([, v]) => v));
    return by.filter(([, v]) => v <= least + 1).map(([a]) => a);
  });
}

/**
 * A line that MuPDF joined over two or more columns of a table ("Grey Horn 31%", a header "Area lost
 * Thinning Aspect"): it covers most of each of those columns. Its words are cut into one run per column
 * where some character width (0.8 to 1.25 times the table's own `cw`, within 0.3 to 0.75 em) places every
 * run at its column's edge (left, right or centre, as the column's cells line up), in order and apart, with
 * the first run starting and the last ending within 0.6 em of the line's own ends. The cut that fits best
 * wins (on a tie, the one whose runs stay best inside their columns). Null when the line covers one column,
 * has too few words, or no cut fits (a group header spanning its columns is not split).
 */
function splitAcrossColumns(c: LayoutLine, cols: readonly [number, number][], align: readonly Align[][], cw: number, body: number): { col: number; text: string }[] | null {
  const covered = cols.map((_, k) => k).filter((k) => {
    const [a, b] = cols[k]!;
    return Math.min(b, c.x1) - Math.max(a, c.x0) >= 0.5 * Math.max(1, b - a);
  });
  const words = c.text.trim().split(/\s+/);
  const n = covered.length;
  if (n < 2 || words.length < n || words.length > 12 || covered[n - 1]! - covered[0]! !== n - 1) return null;
  const em = Math.max(c.size, body, 1);
  const tol = 0.6 * em;
  let best: { err: number; overflow: number; cuts: number[] } | null = null;
  // Every choice of edge for the covered columns whose alignment is open.
  let combos: Align[][] = [[]];
  for (const k of covered) combos = combos.flatMap((cmb) => align[k]!.map((a) => [...cmb, a]));
  // Placed at character width `s` with edges `als`: the runs' distance from the line's ends (`placedErr`)
  // and how far they reach out of their columns (`placedOverflow`); false when two runs collide. Tried for
  // every cut, width and choice of edges: it writes two numbers instead of making arrays and an object per
  // try (ADR 0385; the same arithmetic in the same order).
  let placedErr = 0;
  let placedOverflow = 0;
  const lengths: number[] = [];
  const place = (s: number, als: readonly Align[]): boolean => {
    let prevEnd = -Infinity;
    let overflow = 0;
    let first = 0;
    let last = 0;
    for (let i = 0; i < n; i++) {
      const [a, b] = cols[covered[i]!]!;
      const w = lengths[i]! * s;
      const al = als[i];
      const x = al === 'right' ? b - w : al === 'center' ? (a + b - w) / 2 : a;
      const e = x + w;
      if (x < prevEnd + 0.15 * em) return false;
      prevEnd = e;
      overflow += Math.max(0, a - x) + Math.max(0, e - b);
      if (i === 0) first = x;
      last = e;
    }
    placedErr = Math.max(Math.abs(first - c.x0), Math.abs(last - c.x1));
    placedOverflow = overflow;
    return true;
  };
  // Every way of cutting the words into n runs (few words: a handful of ways).
  const search = (from: number, cuts: number[]): void => {
    if (cuts.length === n - 1) {
      const bounds = [0, ...cuts, words.length];
      const pieces = bounds.slice(1).map((e, i) => words.slice(bounds[i], e).join(' '));
      for (let i = 0; i < n; i++) lengths[i] = pieces[i]!.length;
      let pick: { err: number; overflow: number } | null = null;
      const [lo, hi] = cw > 0 ? [Math.max(0.3 * em, 0.8 * cw), Math.min(0.75 * em, 1.25 * cw)] : [0.3 * em, 0.75 * em];
      for (let w = lo; w <= hi + 1e-9; w += 0.01 * em) for (const als of combos) {
        if (!place(w, als)) continue;
        const err = placedErr;
        const overflow = placedOverflow;
        if (err <= tol && (!pick || err < pick.err - 0.05 * em || (Math.abs(err - pick.err) <= 0.05 * em && overflow < pick.overflow))) pick = { err, overflow };
      }
      if (pick && (!best || pick.err < best.err - 0.05 * em || (Math.abs(pick.err - best.err) <= 0.05 * em && pick.overflow < best.overflow))) best = { ...pick, cuts: [...cuts] };
      return;
    }
    for (let k = from + 1; k <= words.length - (n - 1 - cuts.length); k++) search(k, [...cuts, k]);
  };
  search(0, []);
  if (!best) return null;
  const bounds = [0, ...(best as { cuts: number[] }).cuts, words.length];
  return bounds.slice(1).map((e, i) => ({ col: covered[i]!, text: words.slice(bounds[i], e).join(' ') }));
}
