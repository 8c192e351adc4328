// Signals for the quality score read from the final page layout (after page furniture was removed, the
// reading order repaired and tables recovered): where the output is likely still wrong, as opposed to where
// the page is merely complex (ADR 0095). A two-column page read column by column is no risk; a row read
// across two side-by-side texts is.
import type { LayoutLine, PageExtraction } from '../layout-model.js';

/** Fraction of the page height that counts as the top or bottom band for page furniture. */
export const MARGIN_BAND = 0.1;

const height = (l: LayoutLine): number => Math.max(1, l.y1 - l.y0);
const sameRow = (a: LayoutLine, b: LayoutLine): boolean => Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) > 0.5 * Math.min(height(a), height(b));
/** Horizontally apart by more than 0.8 line heights: a gutter or a form gap, not a word space. */
const sideBySide = (a: LayoutLine, b: LayoutLine): boolean => Math.max(b.x0 - a.x1, a.x0 - b.x1) > 0.8 * Math.min(height(a), height(b));
const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * Share 0..1 of text lines (table cells left out) that the reading order reaches sideways from a line beside
 * them on the same row: a form, an undetected table or two columns read row by row. Pages read column by
 * column score 0 however many columns they have.
 */
export function rowSwitchShare(pages: readonly PageExtraction[], resolved: ReadonlySet<LayoutLine> = new Set()): number {
  let total = 0;
  let switches = 0;
  for (const p of pages) {
    let prev: LayoutLine | undefined;
    for (const l of p.lines) {
      if (resolved.has(l)) continue;
      total++;
      if (prev && sameRow(prev, l) && sideBySide(prev, l)) switches++;
      prev = l;
    }
  }
  return total ? round3(switches / total) : 0;
}

/**
 * The vertical gap between `l` and the nearest line on the page-centre side of it (not on its row), in
 * points; Infinity when there is none.
 */
export function gapTowardBody(l: LayoutLine, lines: readonly LayoutLine[], top: boolean): number {
  let gap = Infinity;
  for (const m of lines) {
    if (m === l || sameRow(m, l)) continue;
    const g = top ? m.y0 - l.y1 : l.y0 - m.y1;
    if (g >= -0.5 * height(l) && g < gap) gap = Math.max(0, g);
  }
  return gap;
}

/**
 * Lines kept in the top or bottom band of a page that look like page furniture by position alone: short,
 * set no larger than the body, and separated from the rest of the page by a gap of at least 0.8 line heights.
 * Running titles, stamps and page numbers that the removal passes did not recognise end up here.
 */
export function keptMarginLines(pages: readonly PageExtraction[], bodySize: number): number {
  let kept = 0;
  for (const p of pages) {
    for (const l of p.lines) {
      const top = l.y1 <= p.height * MARGIN_BAND + 2;
      const bottom = l.y0 >= p.height * (1 - MARGIN_BAND) - 2;
      if (!top && !bottom) continue;
      if (l.text.trim().length > 100 || l.size > bodySize + 0.5) continue;
      if (gapTowardBody(l, p.lines, top) >= 0.8 * height(l)) kept++;
    }
  }
  return kept;
}
