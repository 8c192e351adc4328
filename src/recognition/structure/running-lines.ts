// Removes running headers, footers and page numbers: lines in the top or bottom margin whose text (with
// digits masked) repeats on many pages, and bare page numbers anywhere in those margins.
// Repetition across pages is the signal used by most layout-analysis tools (e.g. pdfplumber/GROBID
// "header/footer" heuristics); margins alone are not enough because first lines of body text sit there too.
// On every page (one-page documents included) a margin line that is no larger than the body and reads as
// page furniture by its pattern alone (a download or access stamp, "Page n of m", a bare URL or DOI, a bare
// date, a revision/version stamp, a confidentiality notice; and, when set smaller than the body, a journal
// running title with volume/issue/pages, an arXiv stamp or a copyright line) goes too: no repetition needed;
// so does a short top line above the page's title. Repetition counts across the whole document (40% of the
// pages) and within runs of nearby pages at one height (a chapter's running head, ADR 0237).
import type { LayoutLine, PageExtraction } from '../layout-model.js';
import { collapseWhitespace } from './patterns.js';
import { gapTowardBody } from './layout-risk.js';

/** Fraction of the page height that counts as the top or bottom margin. */
const MARGIN = 0.1;
/** Page numbers sit a little further in on some layouts (Springer LNCS headers at 12-13% of the height). */
const NUMBER_MARGIN = 0.135;
/** Bare page numbers: `12`, `- 12 -`, `Page 12`, `12 of 40`, `12 | Title`, roman numerals. */
const PAGE_NUMBER_RE = /^(?:page\s*)?[-–—(\[]?\s*(?:\d{1,4}|[ivxlcdm]{1,6})\s*[-–—)\]]?(?:\s*(?:of|\/)\s*\d{1,4})?$/i;

/**
 * Page furniture recognisable on a single page: download/access/printing stamps, "Page n of m", a line that
 * is only a web address or DOI, a bare date, revision or version stamps, copyright-free boilerplate such as
 * "Confidential" or "Preprint". Matched against the trimmed line, case-insensitively.
 */
export const FURNITURE_RE = new RegExp(
  [
    // Download, access and print stamps: "Downloaded from ...", "Download date: 12/03/2024", "Date accessed:
    // ...", "Last accessed 3 May 2021", "Retrieved on ...", "This content downloaded from 1.2.3.4 on ...".
    String.raw`^(?:(?:last\s+)?(?:downloaded|download(?:ed)?\s+(?:date|on|at|from|by|time)|retrieved|accessed|printed|generated)|date\s+(?:of\s+)?(?:download(?:ed)?|access(?:ed)?|retriev(?:ed|al)|printed)|(?:this|the)\s+(?:content|article|document|item|pdf|file)\s+(?:was\s+)?(?:downloaded|retrieved|accessed|generated|printed))\b.{0,160}$`,
    // The same stamp after other text ("J. Example 7 (2019). Downloaded from https://... on 12 May 2024"):
    // the stamp word, then a date, a year or an address.
    String.raw`^.{1,100}\b(?:downloaded|download\s+date|date\s+downloaded|accessed|retrieved)\b\s*(?:from|on|at|by|:)?\s.{0,120}(?:\b(?:19|20)\d{2}\b|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|https?://|\b\d{1,3}(?:\.\d{1,3}){3}\b).{0,80}$`,
    String.raw`^page\s+\d{1,4}\s*(?:of|/)\s*\d{1,4}\b.{0,80}$`,
    String.raw`^.{0,80}\bpage\s+\d{1,4}\s*(?:of|/)\s*\d{1,4}$`,
    String.raw`^(?:https?://|www\.|doi:\s*|https?://doi\.org/)\S+$`,
    String.raw`^(?:\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}-\d{2}-\d{2}|(?:\d{1,2}\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?:\d{1,2},?\s+)?\d{4})(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?$`,
    // Revision and version lines: "Rev. 2.4", "Revision: 2.4", "Document revision 3", "Version 1.0 (draft)",
    // "Last revised: 2024-03-01".
    String.raw`^(?:(?:document|doc\.?|manual|spec(?:ification)?)\s+)?(?:rev(?:ision)?\.?|version|ver\.|v)\s*(?:[:#]|no\.)?\s*\d[\d.]*[a-z]?\b.{0,60}$`,
    String.raw`^(?:last\s+)?(?:revised|updated|modified)\s*(?:on|:)?\s*(?=.{0,40}\d).{1,60}$`,
    String.raw`^(?:confidential|preprint|draft|not for distribution|accepted manuscript|author manuscript)\b.{0,80}$`,
  ].join('|'),
  'i',
);

/**
 * Weaker furniture patterns, removed only when the line is set smaller than the page's median size: a
 * journal running title with its volume/issue/pages ("J. Synth. Ex. 7(2), pp. 12-30", "Vol. 7, No. 2"),
 * an arXiv identifier stamp, a copyright or licence line.
 */
export const SMALL_FURNITURE_RE = /\b(?:vol(?:ume)?\.?\s*\d+|no\.\s*\d+|pp\.\s*\d+|\d+\s*\(\d+\)\s*[:,]\s*\d+)|\barxiv:\s*\d{4}\.\d{4,5}|^(?:©|\(c\)|copyright\b)|\b(?:licen[cs]ed under|all rights reserved)\b/i;

/** How far into the page the margin bands reach for lines set apart from the text (fractions of the height). */
const WIDE_TOP = 0.16;
const WIDE_BOTTOM = 0.2;
/** "Set apart": a gap of this many of the line's own heights toward the body. */
const SET_APART = 0.8;

/** No line of the page lies beyond `l` toward the page edge except on its own row (it is the first or last text). */
function nothingBeyond(l: LayoutLine, p: PageExtraction, top: boolean): boolean {
  const h = Math.max(1, l.y1 - l.y0);
  for (const m of p.lines) {
    if (m === l) continue;
    const sameRow = Math.min(l.y1, m.y1) - Math.max(l.y0, m.y0) > 0.5 * Math.min(h, Math.max(1, m.y1 - m.y0));
    if (!sameRow && (top ? m.y1 <= l.y0 + 0.5 * h : m.y0 >= l.y1 - 0.5 * h)) return false;
  }
  return true;
}

/** Text key for repetition: lower case, digits masked, spaces collapsed. */
export function runningKey(text: string): string {
  return collapseWhitespace(text.toLowerCase().replace(/\d+/g, '#')).trim();
}

/** Four letters or more in a key: a running line of words, not a brace of code or a bare number. */
const FOUR_LETTERS_RE = /(?:\p{L}[^\p{L}]*){4}/u;

/** Consecutive occurrences of a running line at most this many text pages apart belong to one run. */
const RUN_GAP = 3;
/** Occurrences at one position that make a run: a chapter's running head on three nearby pages. */
const RUN_MIN = 3;
/** Points a running line may move between pages and still be "at the same place". */
const RUN_Y_TOLERANCE = 3;

/**
 * Running lines found within runs of pages (ADR 0237): a per-chapter running head in a long manual is on
 * every page of its chapter but on far fewer than 40% of the document's pages. A margin key seen on at
 * least three pages, each within three text pages of the next (odd/even heads and chapter openings leave
 * gaps), at the same height within 3 pt, with four letters or more (not a brace of code), is running on
 * those pages. Returns, per key, the text-page indices where it is running.
 */
function runningInRuns(seenAt: ReadonlyMap<string, readonly { page: number; y0: number }[]>): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const [key, at] of seenAt) {
    if (at.length < RUN_MIN || !FOUR_LETTERS_RE.test(key)) continue;
    let start = 0;
    for (let i = 1; i <= at.length; i++) {
      if (i < at.length && at[i]!.page - at[i - 1]!.page <= RUN_GAP) continue;
      const run = at.slice(start, i);
      start = i;
      if (run.length < RUN_MIN) continue;
      const ys = run.map((o) => o.y0).sort((a, b) => a - b);
      const mid = ys[Math.floor(ys.length / 2)]!;
      const placed = run.filter((o) => Math.abs(o.y0 - mid) <= RUN_Y_TOLERANCE);
      if (placed.length < RUN_MIN) continue;
      let set = out.get(key);
      if (!set) out.set(key, (set = new Set()));
      for (const o of placed) set.add(o.page);
    }
  }
  return out;
}

/** Result of {@link removeRunningLines}. */
export interface RunningLinesResult {
  readonly pages: PageExtraction[];
  /** Number of lines removed. */
  readonly removed: number;
}

/** A line number: one to four digits and nothing else. */
const LINE_NUMBER_RE = /^\d{1,4}$/;

/**
 * Line numbers in the margin (the `lineno` package, review manuscripts, legal drafts, ADR 0237): bare
 * numbers in a column outside the text block (left of three in four of its lines, or right of them), at one edge (within
 * 3 pt), four or more on the page, mostly rising by 1 to 10 down the page (on the right, where contents
 * pages set page numbers, also smaller than the text). A table's numbered first column sits inside the
 * text block and stays. Returns the page without them and how many went.
 */
export function removeLineNumbers(p: PageExtraction): { page: PageExtraction; removed: number } {
  const out = marginLineNumbers(p.lines);
  return out.size ? { page: { ...p, lines: p.lines.filter((l) => !out.has(l)) }, removed: out.size } : { page: p, removed: 0 };
}

/**
 * The margin line numbers of a page's lines (see {@link removeLineNumbers}); empty when it has none. The
 * display-math pass asks too, before the running lines are removed: a column of line numbers beside a
 * display is no part of it (ADR 0364).
 */
export function marginLineNumbers(lines: readonly LayoutLine[]): ReadonlySet<LayoutLine> {
  let found = marginFound.get(lines);
  if (found === undefined) marginFound.set(lines, (found = findMarginLineNumbers(lines)));
  return found;
}

/**
 * The answer of {@link marginLineNumbers} per lines array: the display-math pass asks for a page's lines and
 * the running-lines pass asks again for the same array when the page kept its lines (no display rebuilt, no
 * text repaired), which is most pages (ADR 0377). Keyed by the array, which nothing changes after it is made;
 * a new document's pages are new arrays, and the entries go with them.
 */
const marginFound = new WeakMap<readonly LayoutLine[], ReadonlySet<LayoutLine>>();
const NO_LINES: ReadonlySet<LayoutLine> = new Set<LayoutLine>();

function findMarginLineNumbers(lines: readonly LayoutLine[]): ReadonlySet<LayoutLine> {
  // Most pages have no bare number but their page number: one pass sorts them out before anything else.
  const nums: LayoutLine[] = [];
  const text: LayoutLine[] = [];
  for (const l of lines) (LINE_NUMBER_RE.test(l.text.trim()) ? nums : text).push(l);
  if (text.length < 4 || nums.length === 0) return NO_LINES;
  if (nums.length < 4) return sparseLineNumbers(nums, text);
  // The text block's edges, robust to a title or a figure label set further out.
  const x0s = text.map((l) => l.x0).sort((a, b) => a - b);
  const x1s = text.map((l) => l.x1).sort((a, b) => a - b);
  const left = x0s[Math.floor(x0s.length * 0.25)]!;
  const right = x1s[Math.ceil(x1s.length * 0.75) - 1]!;
  const out = new Set<LayoutLine>();
  for (const side of ['left', 'right'] as const) {
    const col = nums.filter((l) => (side === 'left' ? l.x1 <= left - 2 : l.x0 >= right + 2));
    if (col.length < 4) continue;
    // One edge: right-aligned numbers share x1, left-aligned ones x0 (`lineno` sets them right-aligned on
    // the left by default; some classes left-align them, "9" then ends 4 pt before "10"): the edge that
    // more of the column shares.
    const alignedOn = (edge: (l: LayoutLine) => number): LayoutLine[] => {
      const edges = col.map(edge).sort((a, b) => a - b);
      const mid = edges[Math.floor(edges.length / 2)]!;
      return col.filter((l) => Math.abs(edge(l) - mid) <= 3);
    };
    const byX1 = alignedOn((l) => l.x1);
    const byX0 = alignedOn((l) => l.x0);
    const aligned = (byX0.length > byX1.length ? byX0 : byX1).sort((a, b) => a.y0 - b.y0);
    if (aligned.length < 4) continue;
    // Counting lines: each a little more than the one above (every line, or every fifth), not page
    // numbers of a table of contents, which jump.
    let rising = 0;
    for (let i = 1; i < aligned.length; i++) {
      const step = Number(aligned[i]!.text.trim()) - Number(aligned[i - 1]!.text.trim());
      if (step > 0 && step <= 10) rising++;
    }
    if (rising < 0.8 * (aligned.length - 1)) continue;
    // On the right, where a contents page sets its page numbers, only numbers smaller than the text.
    const sizes = text.map((l) => l.size).sort((a, b) => a - b);
    if (side === 'right' && aligned.some((l) => l.size > 0.85 * sizes[Math.floor(sizes.length / 2)]!)) continue;
    for (const l of aligned) out.add(l);
  }
  // Numbers set smaller than the text right before a column's lines, on their rows (a worksheet's columns
  // numbered every fifth line, the count running on from column to column): read column by column they
  // rise as above. A table's row numbers are set like its cells and stay.
  if (out.size === 0) {
    const rowOf = (n: LayoutLine, t: LayoutLine) => Math.min(n.y1, t.y1) - Math.max(n.y0, t.y0) > 0.5 * Math.max(1, n.y1 - n.y0);
    const beside = nums.filter((n) => {
      const row = text.filter((t) => rowOf(n, t));
      return row.some((t) => t.x0 >= n.x1 + 1 && t.x0 <= n.x1 + 25 && n.size <= 0.85 * t.size) && !row.some((t) => t.x0 < n.x1 && t.x1 > n.x0);
    });
    if (beside.length >= 4) {
      const ordered = [...beside].sort((a, b) => Math.round((a.x1 - b.x1) / 10) || a.y0 - b.y0);
      let rising = 0;
      for (let i = 1; i < ordered.length; i++) {
        const step = Number(ordered[i]!.text.trim()) - Number(ordered[i - 1]!.text.trim());
        if (step > 0 && step <= 10) rising++;
      }
      if (rising >= 0.8 * (ordered.length - 1)) for (const l of ordered) out.add(l);
    }
  }
  return out;
}

/**
 * One to three line numbers on a page (numbered every fifth line, on a short page): each a multiple of
 * five, set smaller than the text line on its row, left of it by more than half an em and outside the
 * text block, that line starting at the block's left edge; rising down the page (ADR 0364). Other bare
 * numbers of the page (its page number) are no part of it.
 */
function sparseLineNumbers(nums: readonly LayoutLine[], text: readonly LayoutLine[]): ReadonlySet<LayoutLine> {
  const x0s = text.map((l) => l.x0).sort((a, b) => a - b);
  const left = x0s[Math.floor(x0s.length * 0.25)]!;
  const rowOf = (n: LayoutLine, t: LayoutLine) => Math.min(n.y1, t.y1) - Math.max(n.y0, t.y0) > 0.5 * Math.max(1, n.y1 - n.y0);
  const ok = nums.filter((n) => {
    const v = Number(n.text.trim());
    if (v === 0 || v % 5 !== 0 || n.x1 > left - 2) return false;
    const row = text.filter((t) => rowOf(n, t));
    const first = row.sort((a, b) => a.x0 - b.x0)[0];
    return !!first && first.x0 <= left + 2 && first.x0 - n.x1 >= 0.5 * first.size && n.size <= 0.85 * first.size;
  });
  const ordered = [...ok].sort((a, b) => a.y0 - b.y0);
  for (let i = 1; i < ordered.length; i++) if (Number(ordered[i]!.text.trim()) <= Number(ordered[i - 1]!.text.trim())) return new Set();
  return new Set(ok);
}

/** Returns the pages without their running header/footer lines, page numbers and margin line numbers. */
export function removeRunningLines(input: readonly PageExtraction[]): RunningLinesResult {
  let lineNumbers = 0;
  const pages = input.map((p) => {
    const r = removeLineNumbers(p);
    lineNumbers += r.removed;
    return r.page;
  });
  const textPages = pages.filter((p) => p.lines.length > 0);
  // The margin bands, widened for lines set apart from the text (LaTeX's default layout on A4 puts the
  // running head at 10.5% of the height and the page number at 82.6%).
  // Each line's zone is asked up to three times (the count, the page-number zone, the removal); the gap
  // tests of the widened bands scan the whole page, so the answer is kept per page and line (ADR 0357).
  const zones = new Map<PageExtraction, Map<LayoutLine, 'top' | 'bottom' | null>>();
  const inMargin = (l: LayoutLine, p: PageExtraction): 'top' | 'bottom' | null => {
    let known = zones.get(p);
    if (!known) zones.set(p, (known = new Map()));
    let zone = known.get(l);
    if (zone === undefined) known.set(l, (zone = zoneOf(l, p)));
    return zone;
  };
  const zoneOf = (l: LayoutLine, p: PageExtraction): 'top' | 'bottom' | null => {
    if (l.y1 <= p.height * MARGIN + 2) return 'top';
    if (l.y0 >= p.height * (1 - MARGIN) - 2) return 'bottom';
    const h = Math.max(1, l.y1 - l.y0);
    if (l.y1 <= p.height * WIDE_TOP && gapTowardBody(l, p.lines, true) >= SET_APART * h && nothingBeyond(l, p, true)) return 'top';
    if (l.y0 >= p.height * (1 - WIDE_BOTTOM) && gapTowardBody(l, p.lines, false) >= SET_APART * h && nothingBeyond(l, p, false)) return 'bottom';
    return null;
  };
  // Count on how many pages each margin key appears (once per page), and where.
  const counts = new Map<string, number>();
  const seenAt = new Map<string, { page: number; y0: number }[]>();
  textPages.forEach((p, index) => {
    const seen = new Set<string>();
    for (const l of p.lines) {
      const zone = inMargin(l, p);
      if (!zone) continue;
      const k = `${zone}|${runningKey(l.text)}`;
      if (!seen.has(k)) {
        seen.add(k);
        counts.set(k, (counts.get(k) ?? 0) + 1);
        let at = seenAt.get(k);
        if (!at) seenAt.set(k, (at = []));
        at.push({ page: index, y0: l.y0 });
      }
    }
  });
  const n = textPages.length;
  // Odd/even headers alternate, so a key on 40% of the pages (and at least 2) counts as running.
  const threshold = Math.max(2, Math.ceil(n * 0.4));
  const runs = runningInRuns(seenAt);
  const textIndex = new Map(textPages.map((p, i) => [p, i] as const));
  // A running line where the margin test fails on a page (the text comes closer than the set-apart gap, a
  // code listing running into the footer): in the widened band, the page's outermost text, at the height
  // (within 3 pt) where the same text runs on the other pages. A one-off line there stays, and so does a
  // title block's line under a letterhead that reads like the running head of the later pages.
  const atRunningPlace = (l: LayoutLine, p: PageExtraction): boolean => {
    const zone = l.y1 <= p.height * WIDE_TOP ? 'top' : l.y0 >= p.height * (1 - WIDE_BOTTOM) ? 'bottom' : null;
    if (!zone) return false;
    const key = `${zone}|${runningKey(l.text)}`;
    if ((counts.get(key) ?? 0) < threshold || !nothingBeyond(l, p, zone === 'top')) return false;
    // A bare number at a page number's height is a table's cell when its row holds other text.
    if (!FOUR_LETTERS_RE.test(key) && p.lines.some((m) => m !== l && Math.min(l.y1, m.y1) - Math.max(l.y0, m.y0) > 0.5 * Math.min(l.y1 - l.y0, m.y1 - m.y0))) return false;
    return seenAt.get(key)!.some((o) => Math.abs(o.y0 - l.y0) <= RUN_Y_TOLERANCE);
  };
  let removed = lineNumbers;
  const out = pages.map((p) => {
    if (p.lines.length === 0) return p;
    // Below the top margin band the number must be the page's first text (on its row): a table's row with a
    // bare number cell ("Run 12 | 24 | 68.3") set near the top of a page is no page number row.
    const inNumberZone = (l: LayoutLine): boolean => (l.y1 <= p.height * NUMBER_MARGIN + 2 && (l.y1 <= p.height * MARGIN + 2 || nothingBeyond(l, p, true))) || inMargin(l, p) !== null;
    // Page numbers and header text are set no larger than the body; a big "2" beside a heading is a section number.
    const sizes = p.lines.map((l) => l.size).sort((a, b) => a - b);
    const median = sizes[Math.floor(sizes.length / 2)]!;
    const isNumber = (l: LayoutLine): boolean => PAGE_NUMBER_RE.test(l.text.trim()) && l.text.trim().length <= 14 && l.size <= median + 0.5;
    // A header row that carries the page number ("Title of the paper    9") goes with it.
    const numberRows = p.lines.filter((l) => inNumberZone(l) && isNumber(l));
    const sameRow = (a: LayoutLine, b: LayoutLine): boolean => Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) > 0.5 * Math.min(a.y1 - a.y0, b.y1 - b.y0);
    const keep = p.lines.filter((l) => {
      const text = l.text.trim();
      if (inNumberZone(l) && (isNumber(l) || (text.length <= 120 && l.size <= median + 0.5 && numberRows.some((n) => n !== l && sameRow(n, l))))) {
        removed++;
        return false;
      }
      const zone = inMargin(l, p);
      if (!zone) {
        if (n >= 2 && atRunningPlace(l, p)) {
          removed++;
          return false;
        }
        return true;
      }
      if (text.length <= 200 && l.size <= median + 0.5 && (FURNITURE_RE.test(text) || (l.size < median - 0.5 && SMALL_FURNITURE_RE.test(text)))) {
        removed++;
        return false;
      }
      // The first text of a page, set smaller than its body and apart from it, short and not a sentence: a
      // running title or letterhead line ("Town Newsletter, summer issue"), one-page documents included.
      // Set at the body's size (fancyhdr's default), it needs a much wider gap, three of its heights (a
      // running head above a title block), and a page of text below it: a memo's first line ("To all staff")
      // two heights above the text, or the only line above a near-empty page, stays.
      const h = Math.max(1, l.y1 - l.y0);
      const apart = l.size <= median - 1 ? SET_APART * h : l.size <= median + 0.5 && p.lines.length >= 6 ? 3 * h : Infinity;
      if (zone === 'top' && !l.bold && !l.italic && text.length <= 80 && !/[.!?:]$/.test(text) && gapTowardBody(l, p.lines, true) >= apart && nothingBeyond(l, p, true)) {
        removed++;
        return false;
      }
      // A short line at the very top of a page, no larger than the body, above the page's title (type at
      // least 1.3 times the body and the line's own size, in the top 45% of the page): a running head or
      // journal line, even bold or italic and with no other page to repeat on; never the title's own part
      // ("Chapter 3" above the chapter title). On the document's first text page only, or where the line
      // recurs in a margin of another page: a one-off line at the top of a later page, above a heading, is
      // the document's own text (a word processor's link line under a logo, spilled onto the contents
      // page), since a running head in a document of several pages repeats.
      const key = `${zone}|${runningKey(text)}`;
      if (
        zone === 'top' &&
        (textIndex.get(p) === 0 || (counts.get(key) ?? 0) >= 2) &&
        text.length <= 100 &&
        l.size <= median + 0.5 &&
        !/^(?:chapter|part|section|appendix|lecture|unit|book)\b/i.test(text) &&
        nothingBeyond(l, p, true) &&
        p.lines.some((t) => t !== l && t.y0 >= l.y1 && t.y0 < p.height * 0.45 && t.size >= 1.3 * Math.max(median, l.size) && /\p{L}{3}/u.test(t.text))
      ) {
        removed++;
        return false;
      }
      const repeated = n >= 2 && ((counts.get(key) ?? 0) >= threshold || (runs.get(key)?.has(textIndex.get(p) ?? -1) ?? false));
      if (repeated) {
        removed++;
        return false;
      }
      return true;
    });
    return keep.length === p.lines.length ? p : { ...p, lines: keep };
  });
  return { pages: out, removed };
}
