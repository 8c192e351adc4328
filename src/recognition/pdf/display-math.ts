// Displayed equations found on a page and rebuilt whole from its glyphs (issue 28, ADR 0320). MuPDF gives a
// displayed equation as several lines and blocks (a big operator, its limits, a fraction's parts, the
// equation number each on a line of their own), which became separate `$$...$$` displays; equations in
// non-TeX fonts became scrambled text. Here the lines of one equation are grouped into a region (lines that
// read as math, set close together, with the smaller lines and the equation number around them), the
// page's traced glyphs inside the region are rebuilt positionally (structure/math-layout.ts), and the
// region's lines are replaced by one line carrying the display's LaTeX.
import type { Box, LayoutLine } from '../layout-model.js';
import { displayLatex, isDate } from '../structure/math-latex.js';
import { rebuildEquation, type MathGlyph, type MathRule } from '../structure/math-layout.js';
import { looksLikeEquation } from '../structure/patterns.js';
import { marginLineNumbers } from '../structure/running-lines.js';

const EQNUM_LINE_RE = /^\(\s*(?:\d+(?:\.\d+)*[a-z]?|[A-Z]\.?\d+(?:\.\d+)*[a-z]?|[ivx]+|\*+)\s*\)$/;
/** Words of three letters or more: prose, not a formula. */
const WORDS_RE = /\p{L}{3,}/gu;

/**
 * Operator names and short words of formulas that are not prose: the connectives a display sets between its
 * parts (`\text{where}`, `\text{and}`, `\text{or}` after a formula, ADR 0367 amendment c, converter).
 */
const MATH_WORDS = new Set(['sin', 'cos', 'tan', 'cot', 'sec', 'csc', 'log', 'exp', 'lim', 'sup', 'inf', 'max', 'min', 'det', 'dim', 'ker', 'deg', 'gcd', 'hom', 'mod', 'arg', 'sinh', 'cosh', 'tanh', 'for', 'and', 'if', 'where']);
/** A relation between a formula's sides: a line holding one reads `X ~ Gamma(a, b)`, not a sentence. */
const RELATION_RE = /[=<>≤≥≈≠≡∼≃≅∝∈∉⊂⊆⊃⊇→←⇒⇔↦~]/;
/**
 * Words of a line set as a function's name, right before its argument list (`Gamma (`, `Pareto(`, `Bin [`),
 * on a line that relates two sides: a named distribution or function in upright text letters
 * (`X \sim \mathrm{Gamma}(\alpha, \beta)`), not prose (ADR 0367 amendment c, converter).
 */
function functionNames(t: string): ReadonlySet<string> {
  if (!RELATION_RE.test(t)) return new Set();
  return new Set([...t.matchAll(/(\p{L}{3,})\s?[([]/gu)].map((m) => m[1]!));
}
/** Words of three letters or more that are not operator names (nor, in `names`, function names): prose. */
const proseIn = (t: string, names: ReadonlySet<string> = new Set()): number => (t.match(WORDS_RE) ?? []).filter((w) => !MATH_WORDS.has(w) && !names.has(w)).length;
/** Prose words of a line: outside its math-font runs when it has them (`tdim` in `t^{dim}` is no word). */
const wordsOf = (l: LayoutLine): number => proseIn(l.math !== undefined ? l.math.replace(/\$[^$]*\$/g, ' ') : l.text, functionNames(l.text));

/** Glyphs of a big delimiter as the text layer gives them: unmapped (CMEX) or Adobe Symbol's private-use pieces. */
const BIG_DELIM_RE = /[\uFFFD\uF8E5-\uF8FE]/;

const FORMULA_RE = /[=<>≤≥≈≠≡∼≃≅∝∈∉⊂⊆⊃⊇→←⇒⇔↦+−×÷±∑∏∫∮√∂∇⋃⋂\uFFFD]|\S\s*[/|]\s*\S/;

/** A line that reads as a formula on its own: all math, unmapped glyphs of a math font, or an equation in text fonts. */
function seed(l: LayoutLine, words: number): boolean {
  const t = l.text.trim();
  if (!t || t.length > 200 || l.mono) return false;
  // A formula relates or combines something: a lone symbol or number (a table cell) is not one.
  if (!FORMULA_RE.test(t) || !/[\p{L}\p{N}]/u.test(t.replace(/\uFFFD/g, ''))) return false;
  // A date under a title ("2022/04/13", ltxdoc's \date) divides nothing.
  if (isDate(t)) return false;
  if (l.math !== undefined && displayLatex(l.math) !== null && words === 0) return true;
  if (/\uFFFD/.test(t) && t.length <= 80 && words === 0) return true;
  // Any short line relating letters or digits with no prose word (a formula whose math-font runs were
  // left plain, or one set in text fonts).
  return words === 0 && (looksLikeEquation(t) || t.length <= 60);
}

/** A single math letter (or two), possibly with a prime: `$x$`, `$\alpha$`, `$x'$`. */
const LONE_SYMBOL_RE = /^\$\s*(?:\p{L}|\\[a-zA-Z]+)(?:\s*(?:\p{L}|\\[a-zA-Z]+))?\s*'?\s*\$$/u;

/**
 * A display of one symbol (`\[ \underline{x} \]`): no relation, so no seed by the rules above. Taken only
 * where it is set as a display is: a line that is only a math-font letter or two, alone on its row, centred
 * (within an em) where two or more of the page's formula lines (`centres`: the seeds' centres) are centred,
 * indented three ems or more from the left edge of the prose around it (three or more words, within 15 ems
 * above or below), with a prose line right above it and a line right below it (gaps under 2.5 ems). A
 * figure's axis label has tick labels or a plot around it, not prose (ADR 0367 session d).
 */
function loneSymbol(lines: readonly LayoutLine[], k: number, words: readonly number[], centres: readonly number[]): boolean {
  const l = lines[k]!;
  if (l.mono || l.math === undefined || !LONE_SYMBOL_RE.test(l.math.trim()) || l.text.trim().length > 4) return false;
  const em = l.size;
  const cx = (l.x0 + l.x1) / 2;
  if (centres.filter((c) => Math.abs(c - cx) <= em).length < 2) return false;
  if (lines.some((m, j) => j !== k && Math.min(m.y1, l.y1) - Math.max(m.y0, l.y0) > 0)) return false;
  const cy = (l.y0 + l.y1) / 2;
  const prose = lines.filter((m, j) => words[j]! >= 3 && Math.abs((m.y0 + m.y1) / 2 - cy) < 15 * em);
  if (!prose.length || l.x0 < Math.min(...prose.map((m) => m.x0)) + 3 * em) return false;
  const above = lines.filter((m) => m.y1 <= l.y0 + 0.1 * em).sort((a, b) => b.y1 - a.y1)[0];
  const below = lines.filter((m) => m.y0 >= l.y1 - 0.1 * em).sort((a, b) => a.y0 - b.y0)[0];
  if (!above || !below || l.y0 - above.y1 > 2.5 * em || below.y0 - l.y1 > 2.5 * em) return false;
  return words[lines.indexOf(above)]! >= 3;
}

/** A line that may belong to a formula beside a seed: limits, scripts, parts, an equation number. */
function attachable(l: LayoutLine, words: number): boolean {
  const t = l.text.trim();
  if (!t || t.length > 120 || l.mono) return false;
  if (EQNUM_LINE_RE.test(t)) return true;
  return words === 0;
}

const gapY = (a: Box, b: Box): number => Math.max(a.y0 - b.y1, b.y0 - a.y1);
const overlapX = (a: Box, b: Box): number => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
const unionBox = (ls: readonly Box[]): Box => ({ x0: Math.min(...ls.map((l) => l.x0)), y0: Math.min(...ls.map((l) => l.y0)), x1: Math.max(...ls.map((l) => l.x1)), y1: Math.max(...ls.map((l) => l.y1)) });

/**
 * Regions of displayed math: groups of lines (indices into `lines`) around seed lines, grown by lines that
 * may belong to a formula and sit within 0.6 of a line height above or below, overlapping horizontally (an
 * equation number on the same rows joins from anywhere on the row). A region with any other line beside
 * it on its rows within three ems (inline math in a paragraph, a table's column) is no display; a column
 * of a two-column page further away does not count.
 */
export function displayRegions(lines: readonly LayoutLine[]): number[][] {
  // Margin line numbers (`lineno`, review drafts) sit on the rows of a display: read as its parts they
  // joined it (the column of numbers drawn into its LaTeX), and beside a one-row display they made it a
  // table's column. The regions are found without them (ADR 0364); the running-lines pass removes them.
  const margin = marginLineNumbers(lines);
  if (margin.size) {
    const keep = lines.flatMap((l, k) => (margin.has(l) ? [] : [k]));
    return displayRegions(keep.map((k) => lines[k]!)).map((r) => r.map((i) => keep[i]!));
  }
  const regions: number[][] = [];
  const taken = new Set<number>();
  // Each line's prose words, counted once (seed, attachable and wordy all ask; ADR 0357); none of them
  // asks for a monospaced line or one of over 200 characters.
  const words = lines.map((l) => (l.mono || l.text.trim().length > 200 ? -1 : wordsOf(l)));
  const seeds = lines.map((l, k) => seed(l, words[k]!));
  // Displays of one symbol, centred where the page's other displays are (ADR 0367 session d).
  const centres = lines.flatMap((l, k) => (seeds[k]! ? [(l.x0 + l.x1) / 2] : []));
  if (centres.length >= 2) lines.forEach((l, k) => {
    if (!seeds[k] && loneSymbol(lines, k, words, centres)) seeds[k] = true;
  });
  const ok = lines.map((l, k) => seeds[k]! || attachable(l, words[k]!));
  // A short line with a word or two (`otherwise`, `if x > 0` beside a brace) belongs to a display only when
  // it starts inside the display's extent, right of its left edge (a prose line starts at the column's
  // margin), on a row of the display.
  const wordy = lines.map((l, k) => !ok[k] && !l.mono && l.text.trim().length <= 40 && words[k]! <= 2);
  for (let s = 0; s < lines.length; s++) {
    if (taken.has(s) || !seeds[s]) continue;
    const region = [s];
    taken.add(s);
    let changed = true;
    while (changed) {
      changed = false;
      const box = unionBox(region.map((i) => lines[i]!));
      const em = Math.max(...region.map((i) => lines[i]!.size));
      // A region holding a big delimiter drawn in pieces or unmapped (a brace of `cases`, a matrix's
      // parentheses) reaches further sideways: its columns are an em or more apart.
      const reach = region.some((i) => BIG_DELIM_RE.test(lines[i]!.text)) ? 4 : 1;
      for (let k = 0; k < lines.length; k++) {
        if (taken.has(k) || !(ok[k] || wordy[k])) continue;
        const l = lines[k]!;
        // A line neither close enough above or below nor on the region's rows can join in no way below:
        // skipped before the costlier tests (ADR 0357; the same lines join).
        const g = gapY(l, box);
        if (!(g <= 0.6 * Math.max(em, l.size)) && !(g < -0.3 * l.size)) continue;
        // It must share its row with a line of the display (a condition beside its value): the end of a prose
        // line above or below a display starts inside its extent too.
        if (!ok[k] && !(l.x0 >= box.x0 + 0.5 * em && l.x0 <= box.x1 + reach * em && region.some((i) => Math.min(lines[i]!.y1, l.y1) - Math.max(lines[i]!.y0, l.y0) > 0.5 * Math.min(lines[i]!.y1 - lines[i]!.y0, l.y1 - l.y0)))) continue;
        const rowShared = gapY(l, box) < -0.3 * l.size;
        const close = gapY(l, box) <= 0.6 * Math.max(em, l.size) && overlapX(l, { ...box, x0: box.x0 - em, x1: box.x1 + reach * em }) > 0;
        const number = !close && rowShared && EQNUM_LINE_RE.test(l.text.trim());
        if (!close && !number) continue;
        // A prose line between the region and the candidate (a sentence between two displays) separates them.
        const cyl = (l.y0 + l.y1) / 2;
        const nearest = region.map((i) => (lines[i]!.y0 + lines[i]!.y1) / 2).reduce((a, b) => (Math.abs(b - cyl) < Math.abs(a - cyl) ? b : a));
        const blocked = lines.some((p, j) => !ok[j] && overlapX(p, l) > 0 && (p.y0 + p.y1) / 2 > Math.min(nearest, cyl) && (p.y0 + p.y1) / 2 < Math.max(nearest, cyl) && !region.includes(j));
        if (!blocked) {
          region.push(k);
          taken.add(k);
          changed = true;
        }
      }
    }
    regions.push(region.sort((a, b) => a - b));
  }
  // A region sharing its rows with prose beside it (not above or below: MuPDF's boxes of big operators are
  // tall) is math inside running text, or a table row.
  return regions.filter((r) => {
    const box = unionBox(r.map((i) => lines[i]!));
    const cy = (box.y0 + box.y1) / 2;
    if (lines.some((l, k) => !r.includes(k) && Math.abs((l.y0 + l.y1) / 2 - cy) < 0.3 * (box.y1 - box.y0) && overlapX(l, box) < 0 && overlapX(l, box) > -3 * l.size && (l.text.match(WORDS_RE) ?? []).length >= 3)) return false;
    // A column of a table: several of the region's lines have a cell beside them on their row.
    const beside = (m: LayoutLine, em: number) => lines.some((l, k) => !r.includes(k) && Math.abs((l.y0 + l.y1) / 2 - (m.y0 + m.y1) / 2) < 0.35 * (m.y1 - m.y0) && overlapX(l, m) < 0 && overlapX(l, m) > -em * m.size);
    const rows = r.map((i) => lines[i]!).filter((m) => !EQNUM_LINE_RE.test(m.text.trim()));
    // Columns spread over the width (`tabular*` with `\extracolsep{\fill}`, centred columns of a wide
    // table) stand further apart: two or more of the region's rows with a table cell (short, two words at
    // most, no formula, no math-font run) two to ten ems beside them make it a column of math cells, not a
    // display (the parts of a formula set around it, a limit or a fraction's part, stand closer), when the
    // row has cells on both sides of it or two on one side, or one with a digit within six ems (the other
    // column of a two-column page has one line on the row: the short end of a paragraph beside a display
    // is no cell).
    const cell = (l: LayoutLine, k: number): boolean => l.math === undefined && l.text.trim().length <= 30 && (l.text.match(WORDS_RE) ?? []).length <= 2 && !seeds[k]! && !EQNUM_LINE_RE.test(l.text.trim());
    const cellBeside = (m: LayoutLine): boolean => {
      const row = lines.filter((l, k) => !r.includes(k) && Math.abs((l.y0 + l.y1) / 2 - (m.y0 + m.y1) / 2) < 0.35 * (m.y1 - m.y0) && overlapX(l, m) < -2 * m.size && cell(l, k));
      const left = row.filter((l) => l.x1 <= m.x0).length;
      const right = row.filter((l) => l.x0 >= m.x1).length;
      return row.some((l) => overlapX(l, m) > -10 * m.size) && ((left >= 1 && right >= 1) || left >= 2 || right >= 2 || row.some((l) => /\d/.test(l.text) && overlapX(l, m) > -6 * m.size));
    };
    return rows.filter((m) => beside(m, 3)).length < 2 && !(rows.length === 1 && beside(rows[0]!, 1.5)) && rows.filter(cellBeside).length < 2;
  });
}

/**
 * Each glyph's line: the shortest of the page's line boxes holding its centre (with a point of slack), so
 * that the tall boxes MuPDF gives big operators do not take the prose glyphs above and below them.
 */
function glyphLines(glyphs: readonly MathGlyph[], lines: readonly Box[]): number[] {
  // Lines by bands of 8 points of their (slackened) height, so that a glyph is tested against the lines of
  // its band only (a page has thousands of glyphs and hundreds of lines); each band lists its lines in
  // page order, so the first of the shortest wins as in a scan of all lines. Lines spanning many bands
  // (or with no finite box) are tested for every glyph.
  const BAND = 8;
  const bands = new Map<number, number[]>();
  const wide: number[] = [];
  lines.forEach((b, k) => {
    const lo = Math.floor((b.y0 - 1) / BAND);
    const hi = Math.floor((b.y1 + 1) / BAND);
    if (!Number.isFinite(lo) || !Number.isFinite(hi) || hi - lo > 64) {
      wide.push(k);
      return;
    }
    for (let i = lo; i <= hi; i++) {
      const list = bands.get(i);
      if (list) list.push(k);
      else bands.set(i, [k]);
    }
  });
  // No closure or iterator per glyph (ADR 0357): the band's lines, then the wide ones, tested in a loop,
  // on the boxes copied into flat arrays (lines come in many object shapes, which made every read slow).
  const none: number[] = [];
  const n = lines.length;
  const bx0 = new Float64Array(n);
  const bx1 = new Float64Array(n);
  const by0 = new Float64Array(n);
  const by1 = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const b = lines[k]!;
    bx0[k] = b.x0;
    bx1[k] = b.x1;
    by0[k] = b.y0;
    by1[k] = b.y1;
  }
  const owner = new Array<number>(glyphs.length);
  for (let gi = 0; gi < glyphs.length; gi++) {
    const g = glyphs[gi]!;
    const x = (g.x0 + g.x1) / 2;
    const y = (g.y0 + g.y1) / 2;
    let best = -1;
    let bh = 0;
    const band = bands.get(Math.floor(y / BAND)) ?? none;
    for (let pass = 0; pass < 2; pass++) {
      const list = pass === 0 ? band : wide;
      for (let j = 0; j < list.length; j++) {
        const k = list[j]!;
        if (x >= bx0[k]! - 1 && x <= bx1[k]! + 1 && y >= by0[k]! - 1 && y <= by1[k]! + 1) {
          const h = by1[k]! - by0[k]!;
          if (best < 0 || h < bh || (h === bh && k < best)) {
            best = k;
            bh = h;
          }
        }
      }
    }
    owner[gi] = best;
  }
  return owner;
}

/** Characters of a string (code points). */
function codePoints(t: string): number {
  let n = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}

/** The LaTeX of a display with its number: `a = b \tag{3}`. */
const withTag = (latex: string, tag: string | null): string => (tag ? `${latex} \\tag{${tag}}` : latex);

/**
 * The page's lines with every displayed equation that could be rebuilt from the glyphs replaced by one
 * line (`display` set: its LaTeX, `\tag{n}` for its number); block numbers of new lines are unique on the page.
 * `regions` are {@link displayRegions} of `lines` when the caller has them already.
 */
export function applyDisplayMath(lines: readonly LayoutLine[], glyphs: readonly MathGlyph[], rules: readonly MathRule[], regions: number[][] = displayRegions(lines)): { lines: LayoutLine[]; rebuilt: number } {
  if (!regions.length || !glyphs.length) return { lines: [...lines], rebuilt: 0 };
  const replace = new Map<number, LayoutLine[]>();
  const drop = new Set<number>();
  let nextBlock = Math.max(0, ...lines.map((l) => l.block)) + 1000;
  let rebuilt = 0;
  const owner = glyphLines(glyphs, lines);
  for (const region of regions) {
    const ls = region.map((i) => lines[i]!);
    const set = new Set(region);
    // The glyphs of the region's lines, and glyphs of no line close to the region (a line box rebuilt from
    // a stack, ADR 0134, covers the formula's row, not its fraction parts).
    const em0 = Math.max(...ls.map((l) => l.size));
    const near = unionBox(ls);
    const mine = glyphs.filter((g, k) => {
      if (set.has(owner[k]!)) return true;
      if (owner[k] !== -1) return false;
      const x = (g.x0 + g.x1) / 2;
      const y = (g.y0 + g.y1) / 2;
      return x >= near.x0 - 1 && x <= near.x1 + 1 && y >= near.y0 - 0.6 * em0 && y <= near.y1 + 0.6 * em0;
    });
    // Characters, not UTF-16 code units: a Unicode math font's letters (U+1D44E 𝑎 ...) are two units each, and
    // counted so they made a display of them look like twice the glyphs the trace found (ADR 0367 session d).
    const chars = ls.reduce((n, l) => n + codePoints(l.text.replace(/\s/g, '')), 0);
    // The trace and the text layer must agree on what is there.
    if (mine.length < 0.6 * chars || mine.length > 1.5 * chars + 4) continue;
    const eq = rebuildEquation(mine, rules);
    // A display that rebuilds to nothing (its glyphs all unmapped or rules only) keeps its lines.
    if (!eq || eq.displays.every((d) => !d.latex.trim())) continue;
    const box = unionBox(ls);
    const size = Math.max(...ls.map((l) => l.size));
    const text = ls.map((l) => l.text).join(' ');
    const out: LayoutLine[] = eq.displays.filter((d) => d.latex.trim()).map((d, k) => ({
      text: k === 0 ? text : '',
      ...box,
      size,
      bold: false,
      italic: false,
      mono: false,
      block: nextBlock++,
      math: `$${d.latex}$`,
      display: withTag(d.latex, d.tag),
    }));
    replace.set(region[0]!, out.map((l, k) => (k === 0 ? l : { ...l, text: l.display ?? '' })));
    for (const i of region.slice(1)) drop.add(i);
    rebuilt += out.length;
  }
  const result: LayoutLine[] = [];
  lines.forEach((l, i) => {
    const r = replace.get(i);
    if (r) result.push(...r);
    else if (!drop.has(i)) result.push(l);
  });
  return { lines: result, rebuilt };
}
