// Removes running headers, footers and page numbers: lines in the top or bottom margin whose text (with
// digits masked) repeats on many pages, and bare page numbers anywhere in those margins.
// Repetition across pages is the signal used by most layout-analysis tools (e.g. pdfplumber/GROBID
// "header/footer" heuristics); margins alone are not enough because first lines of body text sit there too.
import type { LayoutLine, PageExtraction } from '../layout-model.js';

/** Fraction of the page height that counts as the top or bottom margin. */
const MARGIN = 0.1;
/** Bare page numbers: `12`, `- 12 -`, `Page 12`, `12 of 40`, `12 | Title`, roman numerals. */
const PAGE_NUMBER_RE = /^(?:page\s*)?[-–—(\[]?\s*(?:\d{1,4}|[ivxlcdm]{1,6})\s*[-–—)\]]?(?:\s*(?:of|\/)\s*\d{1,4})?$/i;

/** Text key for repetition: lower case, digits masked, spaces collapsed. */
export function runningKey(text: string): string {
  return text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

/** Result of {@link removeRunningLines}. */
export interface RunningLinesResult {
  readonly pages: PageExtraction[];
  /** Number of lines removed. */
  readonly removed: number;
}

/** Returns the pages without their running header/footer lines and page numbers. */
export function removeRunningLines(pages: readonly PageExtraction[]): RunningLinesResult {
  const textPages = pages.filter((p) => p.lines.length > 0);
  const inMargin = (l: LayoutLine, p: PageExtraction): 'top' | 'bottom' | null =>
    l.y1 <= p.height * MARGIN + 2 ? 'top' : l.y0 >= p.height * (1 - MARGIN) - 2 ? 'bottom' : null;
  // Count on how many pages each margin key appears (once per page).
  const counts = new Map<string, number>();
  for (const p of textPages) {
    const seen = new Set<string>();
    for (const l of p.lines) {
      const zone = inMargin(l, p);
      if (!zone) continue;
      const k = `${zone}|${runningKey(l.text)}`;
      if (!seen.has(k)) {
        seen.add(k);
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
    }
  }
  const n = textPages.length;
  // Odd/even headers alternate, so a key on 40% of the pages (and at least 2) counts as running.
  const threshold = Math.max(2, Math.ceil(n * 0.4));
  let removed = 0;
  const out = pages.map((p) => {
    if (p.lines.length === 0) return p;
    const keep = p.lines.filter((l) => {
      const zone = inMargin(l, p);
      if (!zone) return true;
      const text = l.text.trim();
      const repeated = n >= 2 && (counts.get(`${zone}|${runningKey(text)}`) ?? 0) >= threshold;
      const pageNumber = PAGE_NUMBER_RE.test(text) && text.length <= 14;
      if (repeated || pageNumber) {
        removed++;
        return false;
      }
      return true;
    });
    return keep.length === p.lines.length ? p : { ...p, lines: keep };
  });
  return { pages: out, removed };
}
