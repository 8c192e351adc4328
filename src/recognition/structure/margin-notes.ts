// Margin notes inside a paragraph's block (ADR 0237): MuPDF puts a short note set in the page margin (a
// command name beside a manual's paragraph, a side note of a critical edition) into the block of the
// paragraph it sits beside, between two of its lines, which cuts the paragraph in two. Such a line, wholly
// outside the page's text column and short, becomes a block of its own after the paragraph's last line.
import type { LayoutLine, PageExtraction } from '../layout-model.js';

/** Points a note must stand clear of the text column. */
const CLEAR = 4;
/** Longest text of a margin note. */
const MAX_CHARS = 40;

/** The page with margin notes moved out of the blocks they interrupt. */
export function moveMarginNotes(p: PageExtraction): PageExtraction {
  if (p.lines.length < 6) return p;
  // The column's edges from the lines of running text (longer than any note); a page of many notes
  // would pull a quantile of all lines into the margin.
  const body = p.lines.filter((l) => l.text.trim().length > MAX_CHARS);
  if (body.length < 4) return p;
  const x0s = body.map((l) => l.x0).sort((a, b) => a - b);
  const x1s = body.map((l) => l.x1).sort((a, b) => a - b);
  const left = x0s[Math.floor(x0s.length * 0.1)]!;
  const right = x1s[Math.ceil(x1s.length * 0.9) - 1]!;
  const outside = (l: LayoutLine) => l.text.trim().length <= MAX_CHARS && (l.x1 < left - CLEAR || l.x0 > right + CLEAR);
  const byBlock = new Map<number, LayoutLine[]>();
  for (const l of p.lines) {
    let b = byBlock.get(l.block);
    if (!b) byBlock.set(l.block, (b = []));
    b.push(l);
  }
  const notes = new Set<LayoutLine>();
  for (const lines of byBlock.values()) {
    const inColumn = lines.filter((l) => !outside(l));
    if (inColumn.length < 2) continue;
    // Only a note with column lines of its block above and below it interrupts the paragraph.
    for (const l of lines) if (outside(l) && inColumn.some((c) => c.y1 <= l.y1) && inColumn.some((c) => c.y0 >= l.y0)) notes.add(l);
  }
  if (notes.size === 0) return p;
  let next = Math.max(...p.lines.map((l) => l.block)) + 1;
  const out: LayoutLine[] = [];
  const pending = new Map<number, LayoutLine[]>();
  const lastOf = new Map<number, LayoutLine>();
  for (const l of p.lines) if (!notes.has(l)) lastOf.set(l.block, l);
  for (const l of p.lines) {
    if (notes.has(l)) {
      const list = pending.get(l.block) ?? [];
      list.push({ ...l, block: next++ });
      pending.set(l.block, list);
      continue;
    }
    out.push(l);
    if (lastOf.get(l.block) === l) {
      out.push(...(pending.get(l.block) ?? []));
      pending.delete(l.block);
    }
  }
  for (const rest of pending.values()) out.push(...rest);
  return { ...p, lines: out };
}
