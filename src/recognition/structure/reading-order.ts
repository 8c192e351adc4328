// Reading order by layout for pages whose text layer is not in reading order. Stream order is kept by
// default (docs/recognition.md: a global XY-cut hurt multi-page documents), and two cases are repaired:
// * an interleaved multi-column text layer (OCR layers written row by row across the columns): when the
//   stream switches between column regions on more than a third of its line transitions, the page is
//   re-read by a recursive XY-cut (columns left to right, regions top to bottom);
// * a title emitted after the lines set below it at the top of the page (an author block first): the
//   largest line of the page's top third moves before the lines above which it sits.
import type { LayoutLine, PageExtraction } from '../layout-model.js';

/** Pages with more lines than this keep their order (the cut is quadratic in the worst case). */
const MAX_LINES = 800;

/** Result of {@link orderReading}. */
export interface ReadingOrderResult {
  readonly pages: PageExtraction[];
  /** Pages re-read by XY-cut because their columns were interleaved (1-based). */
  readonly reordered: number[];
}

/** Applies both repairs to every page; pages that need neither are returned as they were. */
export function orderReading(pages: readonly PageExtraction[]): ReadingOrderResult {
  const reordered: number[] = [];
  const out = pages.map((p) => {
    if (p.lines.length < 4 || p.lines.length > MAX_LINES) return p;
    let lines = p.lines;
    if (isInterleaved(lines)) {
      lines = xyCut(lines);
      reordered.push(p.page);
    }
    lines = titleFirst(lines, p.height);
    return lines === p.lines ? p : { ...p, lines };
  });
  return { pages: out, reordered };
}

const prose = (l: LayoutLine): boolean => l.text.length >= 20 && l.text.split(/\s+/).length >= 3;
const overlapX = (a: LayoutLine, b: LayoutLine): boolean => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) > 0;

/**
 * True when consecutive stream lines jump between side-by-side prose lines (no horizontal overlap, vertical
 * overlap or a step of under two lines down) on over a third of the transitions, at least four times.
 */
export function isInterleaved(lines: readonly LayoutLine[]): boolean {
  let switches = 0;
  for (let i = 1; i < lines.length; i++) {
    const a = lines[i - 1]!;
    const b = lines[i]!;
    if (overlapX(a, b)) continue;
    // Table rows switch between cells the same way; only prose lines (20+ characters, 3+ words) count.
    if (!prose(a) || !prose(b)) continue;
    const h = Math.max(1, Math.min(a.y1 - a.y0, b.y1 - b.y0));
    // Side by side (same row) or the other column's next row: not a jump back to the top of a column.
    if (b.y0 >= a.y0 - 0.5 * h && b.y0 <= a.y1 + 2 * h) switches++;
  }
  return switches >= 4 && switches > (lines.length - 1) / 3;
}

/** Widest horizontal gaps with no line crossing them, for a vertical cut: [left edge, right edge]. */
function verticalGaps(lines: readonly LayoutLine[], minWidth: number): [number, number][] {
  const spans = lines.map((l) => [l.x0, l.x1] as [number, number]).sort((a, b) => a[0] - b[0]);
  const gaps: [number, number][] = [];
  let reach = spans[0]![1];
  for (const [x0, x1] of spans.slice(1)) {
    if (x0 - reach >= minWidth) gaps.push([reach, x0]);
    reach = Math.max(reach, x1);
  }
  return gaps;
}

function horizontalGaps(lines: readonly LayoutLine[]): { at: number; size: number }[] {
  const spans = lines.map((l) => [l.y0, l.y1] as [number, number]).sort((a, b) => a[0] - b[0]);
  const gaps: { at: number; size: number }[] = [];
  let reach = spans[0]![1];
  for (const [y0, y1] of spans.slice(1)) {
    if (y0 > reach) gaps.push({ at: (reach + y0) / 2, size: y0 - reach });
    reach = Math.max(reach, y1);
  }
  return gaps.sort((a, b) => b.size - a.size);
}

/** Splits at column gaps (each side needing two lines); null when there is no such cut. */
function columnSplit(lines: readonly LayoutLine[]): LayoutLine[][] | null {
  const sizes = lines.map((l) => l.size).sort((a, b) => a - b);
  const em = sizes[Math.floor(sizes.length / 2)] ?? 10;
  const gaps = verticalGaps(lines, Math.max(8, em));
  if (gaps.length === 0) return null;
  const parts: LayoutLine[][] = Array.from({ length: gaps.length + 1 }, () => []);
  for (const l of lines) {
    let i = 0;
    while (i < gaps.length && l.x0 >= gaps[i]![1]) i++;
    parts[i]!.push(l);
  }
  return parts.every((p) => p.length >= 2) ? parts : null;
}

/**
 * Recursive XY-cut: a region with a column gap is read column by column; otherwise it is cut at the
 * widest horizontal gap that leaves a part with columns (title above two columns); a region with neither
 * is a leaf, read in stream order. Each leaf becomes one source block so its lines can join.
 */
export function xyCut(lines: readonly LayoutLine[]): LayoutLine[] {
  const leaves: LayoutLine[][] = [];
  const visit = (region: LayoutLine[], depth: number): void => {
    if (region.length <= 1 || depth > 24) {
      leaves.push(region);
      return;
    }
    const cols = columnSplit(region);
    if (cols) {
      for (const c of cols) visit(c, depth + 1);
      return;
    }
    for (const g of horizontalGaps(region)) {
      const top = region.filter((l) => (l.y0 + l.y1) / 2 < g.at);
      const bottom = region.filter((l) => (l.y0 + l.y1) / 2 >= g.at);
      if (top.length && bottom.length && (columnSplit(top) || columnSplit(bottom))) {
        visit(top, depth + 1);
        visit(bottom, depth + 1);
        return;
      }
    }
    leaves.push(region);
  };
  visit([...lines], 0);
  const base = Math.max(0, ...lines.map((l) => l.block)) + 1;
  return leaves.flatMap((leaf, i) => leaf.map((l) => ({ ...l, block: base + i })));
}

/**
 * Moves the page's title (the largest line in its top third, at least 1.3 times the median size) before
 * the lines that come earlier in the stream but sit below it in the top third (an author block emitted
 * first). Returns the same array when nothing moves.
 */
export function titleFirst(lines: readonly LayoutLine[], pageHeight: number): readonly LayoutLine[] {
  const sizes = lines.map((l) => l.size).sort((a, b) => a - b);
  const median = sizes[Math.floor(sizes.length / 2)]!;
  let t = -1;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.y1 <= pageHeight / 3 && l.size >= 1.3 * median && (t < 0 || l.size > lines[t]!.size)) t = i;
  }
  if (t <= 0) return lines;
  const title = lines[t]!;
  let first = t;
  for (let i = t - 1; i >= 0; i--) {
    const l = lines[i]!;
    if (l.y0 >= title.y1 - 1 && l.y1 <= pageHeight / 3 && l.size < title.size) first = i;
    else break;
  }
  if (first === t) return lines;
  // The title's own continuation lines (same size, right below it) move with it.
  let end = t + 1;
  while (end < lines.length && lines[end]!.size === title.size && lines[end]!.y0 >= title.y0) end++;
  return [...lines.slice(0, first), ...lines.slice(t, end), ...lines.slice(first, t), ...lines.slice(end)];
}
