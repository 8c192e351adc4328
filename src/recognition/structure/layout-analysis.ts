// From extracted pages to structural blocks: running lines removed, lines grouped into raw blocks (the
// source block, split further at vertical gaps, style changes, indents and list markers), each raw block
// classified (heading, caption, list item, code, footnote, equation, reference, paragraph), then
// neighbouring blocks merged (paragraphs continued across blocks and pages, list items into lists).
// Stream order is kept: the guide measured XY-cut reordering hurting multi-page documents (0.39 vs 0.07).
import type { Box, LayoutLine, PageExtraction } from '../layout-model.js';
import type { DocBlock, HeadingSource } from './document-blocks.js';
import { Vocabulary, joinLines, joinParagraph } from './dehyphenate.js';
import { removeRunningLines } from './running-lines.js';
import { moveMarginNotes } from './margin-notes.js';
import { orderReading } from './reading-order.js';
import { repairText, stripDotLeaders } from './text-repairs.js';
import { CAPTION_RE, LIST_MARKER_RE, ORDERED_MARKER_RE, REFERENCES_HEADING_RE, SECTION_NUMBER_RE, SENTENCE_END_RE, looksLikeEquation, nonSpaceLength } from './patterns.js';
import { bulletItemTextStart, detectTables, joinBullets, type TableRegion } from './tables.js';
import { displayParts, escapeDollars } from './math-latex.js';
import { keptMarginLines, rowSwitchShare } from './layout-risk.js';

/** An outline entry usable for headings (PDF bookmarks). */
export interface OutlineHint {
  readonly depth: number;
  readonly title: string;
  readonly page: number | null;
}

/** Input of {@link analyzeLayout}. */
export interface LayoutInput {
  readonly pages: readonly PageExtraction[];
  readonly outline?: readonly OutlineHint[];
}

/** Output of {@link analyzeLayout}. */
export interface LayoutResult {
  readonly blocks: DocBlock[];
  /** Running header/footer and page-number lines removed. */
  readonly removedLines: number;
  /** Dominant body font size in points. */
  readonly bodySize: number;
  /** Share 0..1 of text lines that share their row with another, separate line (columns, tables, forms). */
  readonly layoutComplexity: number;
  /** Share 0..1 of text lines (table cells left out) reached sideways from a line beside them on the same row. */
  readonly rowSwitches: number;
  /** Lines kept in the top or bottom band that look like page furniture by position (short, small, set apart). */
  readonly marginLinesKept: number;
}

/**
 * Share of lines whose vertical band overlaps another line that is horizontally apart on the same page;
 * lines in `resolved` (table cells already recovered) are left out of both counts.
 */
export function layoutComplexity(pages: readonly PageExtraction[], resolved: ReadonlySet<LayoutLine> = new Set()): number {
  let total = 0;
  let shared = 0;
  for (const p of pages) {
    // Lines already recovered as table cells share their rows by design: their structure is not at risk.
    const lines = (resolved.size ? p.lines.filter((l) => !resolved.has(l)) : [...p.lines]).sort((a, b) => a.y0 - b.y0);
    total += lines.length;
    for (let i = 0; i < lines.length; i++) {
      const a = lines[i]!;
      for (let j = i - 1; j >= 0 && j >= i - 12; j--) {
        const b = lines[j]!;
        const overlap = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
        if (overlap > 0.5 * Math.min(a.y1 - a.y0, b.y1 - b.y0) && (b.x1 < a.x0 || a.x1 < b.x0)) {
          shared++;
          break;
        }
      }
    }
  }
  return total ? Math.round((shared / total) * 1000) / 1000 : 0;
}

/**
 * The stream position right after the "Table N" caption set just above `table` (its first line within three
 * body sizes of its top, overlapping it horizontally; after the caption's further lines), or null when there
 * is none.
 */
function captionAbove(table: TableRegion, lines: readonly LayoutLine[], tableLines: ReadonlySet<LayoutLine>, body: number): number | null {
  let top = Infinity;
  let x0 = Infinity;
  let x1 = -Infinity;
  for (const l of table.lines) {
    top = Math.min(top, l.y0);
    x0 = Math.min(x0, l.x0);
    x1 = Math.max(x1, l.x1);
  }
  let best: number | null = null;
  let bestGap = Infinity;
  lines.forEach((l, i) => {
    if (tableLines.has(l) || l.y1 > top + 1 || top - l.y1 > 3 * body || l.x1 < x0 || l.x0 > x1) return;
    const cap = CAPTION_RE.exec(l.text.trim());
    if (!cap || !cap[1]!.toLowerCase().startsWith('tab')) return;
    if (top - l.y1 < bestGap) {
      bestGap = top - l.y1;
      best = i + 1;
    }
  });
  // A caption set over two lines or more ("TABLE II. COMPARISON OF ..." over "HEXADECIMAL, AND ..."): the
  // table goes after its last line, the lines that follow it in the stream above the table, touching the
  // line before and set in its size (ADR 0369).
  while (best !== null && best < lines.length) {
    const l = lines[best]!;
    const prev = lines[best - 1]!;
    if (tableLines.has(l) || l.y1 > top + 1 || l.y0 - prev.y1 > 0.5 * body || l.y0 < prev.y0 || Math.abs(l.size - prev.size) > 0.5) break;
    best++;
  }
  return best;
}

/** A section number after the section sign: "§1.", "§ 2.3". */
const SECTION_SIGN_RE = /^§\s*(\d{1,2}(?:\.\d{1,2}){0,4}\.?)\s+(?=\p{L})/u;

interface RawBlock {
  readonly page: number;
  readonly lines: LayoutLine[];
  readonly pageHeight: number;
  readonly pageWidth: number;
}

type Classified =
  | { kind: 'heading'; page: number; text: string; level: number; source: HeadingSource; size: number }
  | { kind: 'paragraph'; page: number; text: string; size: number; lines: LayoutLine[]; last: string }
  | { kind: 'item'; page: number; text: string; ordered: boolean; x0: number; size: number }
  | { kind: 'caption'; page: number; text: string; target: 'figure' | 'table' | 'other' }
  | { kind: 'code'; page: number; text: string }
  | { kind: 'equation'; page: number; text: string; latex?: string }
  | { kind: 'footnote'; page: number; label: string; text: string }
  | { kind: 'reference'; page: number; text: string }
  | { kind: 'table'; page: number; rows: string[][] }
  | { kind: 'figure'; page: number };

/** A bare web address ("ibm.com/redbooks", "www.example.org"): cover and running text, not a heading. */
const WEB_ADDRESS_RE = /^(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|edu|gov|io|int|info)(?:\/\S*)?$/i;

/** Dot leaders before an optional page number at the end of a line: a table-of-contents entry. */
const TOC_LEADER_RE = /(?:[.·…_]\s?){4,}\s*(?:\d+|[ivxlc]+)?$/i;

/** Four letters anywhere in a text (as `(t.match(/\p{L}/gu) ?? []).length >= 4`, without the array). */
const AT_LEAST_4_LETTERS_RE = /(?:\p{L}[^\p{L}]*){4}/su;

const norm = (s: string): string => s.toLowerCase().normalize('NFKC').replace(/[^\p{L}\p{N}]+/gu, '');

/** Character-weighted dominant line size over all pages, rounded to 0.5 pt. */
export function dominantSize(pages: readonly PageExtraction[]): number {
  const w = new Map<number, number>();
  for (const p of pages)
    for (const l of p.lines) {
      const s = Math.round(l.size * 2) / 2;
      w.set(s, (w.get(s) ?? 0) + l.text.length);
    }
  let best = 10;
  let bestW = -1;
  for (const [s, n] of w)
    if (n > bestW) {
      best = s;
      bestW = n;
    }
  return best;
}

/** A lower-case outline label opening a heading: "a) ", "ii. ", "(b) ". */
const LOWER_LABEL_RE = /^(?:[a-z]|[ivx]{1,4})[.)]\s|^\((?:[a-z]|[ivx]{1,4})\)\s/;
const LEADING_WORD_RE = /^\s*\p{L}+/u;
const LETTER_RE = /\p{L}/u;
/** Whether a line ends in a letter and a hyphen (a word broken at the line end, or a compound's prefix). */
function endsInBrokenWord(t: string): boolean {
  let i = t.length - 1;
  while (i >= 0 && t.charCodeAt(i) <= 32) i--;
  return i > 0 && t.charCodeAt(i) === 45 && LETTER_RE.test(t[i - 1]!);
}

/** Runs the layout passes over extracted pages. */
export function analyzeLayout(input: LayoutInput): LayoutResult {
  const { pages: unordered, removed } = removeRunningLines(repairText(input.pages));
  const { pages: ordered } = orderReading(unordered);
  const pages = ordered.map(moveMarginNotes);
  const body = dominantSize(pages);
  const vocab = new Vocabulary();
  // The first word of a line after a line-end hyphen is the rest of a broken word ("nally" of "inter-nally"),
  // not a word of the document: left out, so that it does not vouch for a hyphenating prefix (dehyphenate.ts).
  let broken = false;
  for (const p of pages)
    for (const l of p.lines) {
      vocab.add(broken ? l.text.replace(LEADING_WORD_RE, '') : l.text);
      broken = endsInBrokenWord(l.text);
    }

  const outline = (input.outline ?? []).filter((o) => norm(o.title).length > 0);
  const useOutline = outline.length >= 2;
  const outlineKeys = outline.map((o) => ({ ...o, key: norm(o.title) }));
  const usedOutline = new Set<number>();

  const classified: Classified[] = [];
  let inReferences = false;
  let titleDone = false;
  // Between the title and the first running text or other heading: the author block, whose names and
  // affiliations are often set larger than the body but are not headings.
  let underTitle = false;
  const maxFirstPageSize = Math.max(0, ...(pages[0]?.lines ?? []).filter((l) => l.y0 < (pages[0]?.height ?? 0) * 0.45).map((l) => l.size));

  const allTableLines = new Set<LayoutLine>();
  for (const source of pages) {
    if (source !== pages[0]) underTitle = false;
    // Bullet lists read as tables (the bullets set apart from their text) are lists: each bullet is joined
    // to its text line, and the lines go back to the text flow as list items (ADR 0368 amendment).
    const found = detectTables(source.lines, body);
    const lists = found.filter((t) => t.list);
    const tables = lists.length ? found.filter((t) => !t.list) : found;
    const tableLines = new Set<LayoutLine>(tables.flatMap((t) => t.lines));
    const page = { ...source, lines: joinItemMarks(lists.length ? joinBullets(source.lines, lists) : source.lines, tableLines) };
    for (const l of tableLines) allTableLines.add(l);
    const pending = new Map<TableRegion, boolean>();
    const raws = segmentPage(page, tableLines);
    const pageBlocks: Classified[] = [];
    // The left edge and bottom of the page's last block read as references (a hanging indent under it goes on with its last entry).
    let refBlock: { left: number; bottom: number; hangs: number[] } | null = null;
    // Tables are placed where their first line sat in the stream (found once per table, not once per block),
    // or right after their caption when a "Table N" caption sits just above them (the stream often writes
    // a table's cells after the text that follows it on the page).
    const tableStarts = tables.length ? tables.map((t) => captionAbove(t, page.lines, tableLines, body) ?? Math.min(...t.lines.map((l) => page.lines.indexOf(l)))) : [];
    const emitTablesBefore = (line: LayoutLine | undefined): void => {
      if (tables.length === 0) return;
      const at = line ? page.lines.indexOf(line) : 0;
      tables.forEach((t, k) => {
        if (pending.get(t)) return;
        if (!line || tableStarts[k]! <= at) {
          pending.set(t, true);
          pageBlocks.push({ kind: 'table', page: page.page, rows: t.rows });
        }
      });
    };
    for (let i = 0; i < raws.length; i++) {
      const raw = raws[i]!;
      emitTablesBefore(raw.lines[0]);
      const next = raws[i + 1];
      const cs = classify(raw, next);
      if (Array.isArray(cs)) {
        pageBlocks.push(...cs);
        continue;
      }
      const c = cs;
      if (underTitle && ((c.kind === 'heading' && c.source !== 'title') || (c.kind === 'paragraph' && (raw.lines.length >= 2 || c.text.length >= 100)))) underTitle = false;
      // The references section runs from its heading to the next top-level heading (an appendix, say).
      if (c.kind === 'heading') inReferences = REFERENCES_HEADING_RE.test(c.text.trim()) || (inReferences && c.level > 2);
      if (inReferences && c.kind === 'paragraph' && !(c.size < body - 0.6 && raw.lines[0]!.y0 > page.height * 0.72)) {
        const entries = splitReferences(raw.lines, vocab);
        // A block that starts on a hanging indent right under the page's last entry (the text layer broke
        // the block before an entry's last line: "... pavements.” Journal" / "of Cleaner Production, 17,
        // 283–296.") goes on with that entry, not a new one.
        const last = pageBlocks[pageBlocks.length - 1];
        const first = raw.lines[0]!;
        // Only on the indent the block above hangs its own entries' lines at (a paragraph's first-line indent
        // under prose in a references section is no continuation), not for a numbered entry ("[1] ...") and
        // not after an entry that ends a sentence.
        if (
          last?.kind === 'reference' && refBlock && entries.length && first.x0 > refBlock.left + 4 && first.y0 - refBlock.bottom <= 1.5 * Math.max(1, first.y1 - first.y0) &&
          refBlock.hangs.some((x) => Math.abs(x - first.x0) <= 1.5) && !/^(\[\d{1,4}\]|\d{1,4}\.\s)/.test(first.text) && !/^[•◦▪‣∙·–-]\s/u.test(first.text) && !/[.!?]["”’)]?$/.test(last.text)
        ) {
          last.text = joinParagraph([last.text, entries.shift()!], vocab);
        }
        for (const entry of entries) pageBlocks.push({ kind: 'reference', page: page.page, text: entry });
        const left = Math.min(...raw.lines.map((l) => l.x0));
        // Hanging: a block's first line at its left edge, later lines set in (their left edges), gathered
        // over the page's reference blocks (an entry of one line and a line has none of its own).
        const hangs: number[] = [...(refBlock?.hangs ?? []), ...(raw.lines[0]!.x0 <= left + 1.5 ? raw.lines.slice(1).filter((l) => l.x0 > left + 4).map((l) => l.x0) : [])];
        refBlock = { left, bottom: Math.max(...raw.lines.map((l) => l.y1)), hangs };
        continue;
      }
      pageBlocks.push(c);
    }
    emitTablesBefore(undefined);
    // Figures: large image areas, placed after a figure caption on the page when there is one.
    const figures = mergeImages(page.images, page.width, page.height);
    for (let f = 0; f < figures.length; f++) {
      const capIdx = pageBlocks.findIndex((b, idx) => b.kind === 'caption' && b.target === 'figure' && !pageBlocks.slice(idx + 1, idx + 2).some((x) => x.kind === 'figure'));
      const fig: Classified = { kind: 'figure', page: page.page };
      if (capIdx >= 0 && f === 0) pageBlocks.splice(capIdx + 1, 0, fig);
      else pageBlocks.push(fig);
    }
    classified.push(...pageBlocks);
  }
  return {
    blocks: mergeBlocks(classified, vocab),
    removedLines: removed,
    bodySize: body,
    layoutComplexity: layoutComplexity(pages, allTableLines),
    rowSwitches: rowSwitchShare(pages, allTableLines),
    marginLinesKept: keptMarginLines(pages, body),
  };

  function classify(raw: RawBlock, next: RawBlock | undefined): Classified | Classified[] {
    const lines = raw.lines;
    const text = joinParagraph(lines.map((l) => l.text), vocab);
    const chars = lines.reduce((s, l) => s + l.text.length, 0) || 1;
    const size = lines.reduce((s, l) => s + l.size * l.text.length, 0) / chars;
    const bold = lines.every((l) => l.bold);
    const mono = lines.filter((l) => l.mono).length > lines.length / 2;
    const first = lines[0]!;
    const page = raw.page;

    // A displayed equation rebuilt whole from the page's glyphs (ADR 0320).
    if (lines.length === 1 && first.display !== undefined) return { kind: 'equation', page, text, latex: first.display };
    if (mono && text.length > 0 && looksLikeCode(lines)) return { kind: 'code', page, text: codeText(lines) };
    const cap = CAPTION_RE.exec(text);
    if (cap && text.length < 1200) {
      const w = cap[1]!.toLowerCase();
      return { kind: 'caption', page, text, target: w.startsWith('tab') ? 'table' : w.startsWith('fig') || w === 'chart' || w === 'graph' || w === 'plate' ? 'figure' : 'other' };
    }
    // A run-in title ("1.1 Essential Initial Commands. To begin"): the heading, then its paragraph (ADR 0383).
    const runIn = inReferences ? null : runInTitle(raw);
    if (runIn) {
      const rest = classify(runIn.rest, next);
      return [runIn.heading, ...(Array.isArray(rest) ? rest : [rest])];
    }
    // OCR reads bullets as e, ¢, ©, « or °: at the start of an estimated-size line before a capital, a bullet.
    const marker = listMarker(first);
    const heading = headingOf(raw, text, size, bold, next);
    if (heading) return heading;
    // An equation number left of its formula (`leqno`) is no list marker: a line that is all math after
    // a parenthesised number is a display numbered on the left (ADR 0367).
    const leqnoParts = marker !== null && /^\(\d/.test(marker.text) && lines.length <= 3 && lines.every((l) => l.math) ? displayParts(first.math!) : null;
    const leqno = !!leqnoParts?.tag && !!leqnoParts.latex;
    if (marker && !inReferences && !leqno) {
      const ordered = ORDERED_MARKER_RE.test(marker.symbol);
      const body2 = joinParagraph([first.text.slice(marker.text.length), ...lines.slice(1).map((l) => l.text)], vocab);
      const itemText = stripDotLeaders(body2);
      // An item's text is Markdown (its dollars escaped, ADR 0355): a paragraph that continues it may hold math.
      return { kind: 'item', page, text: ordered ? `${marker.symbol.replace(/^\(/, '').replace(/\)$/, '.')} ${escapeDollars(itemText)}` : escapeDollars(itemText), ordered, x0: first.x0, size };
    }
    // The label is a whole number (not the first digits of a longer one: "07233 Seoul" is a postal code).
    const fm = /^([1-9]\d{0,2}(?!\d)|[*†‡§¶]+)\s*(?=\S)/.exec(text);
    if (fm && first.y0 > raw.pageHeight * 0.72 && size < body - 0.6) {
      return { kind: 'footnote', page, label: fm[1]!, text: text.slice(fm[0].length) };
    }
    // A displayed equation: lines all math (rebuilt as LaTeX), or lines that read as a formula in text.
    // A display needs something to show (a letter, a digit, a command): a lone delimiter, punctuation or a
    // run of a brace's macrons is a fragment (ADR 0355).
    const display = lines.length <= 3 && lines.every((l) => l.math) ? lines.map((l) => displayParts(l.math!)) : null;
    if (display && display.every((d) => d !== null) && display.some((d) => /[\p{Lu}\p{Ll}\p{Lo}\p{N}\\]/u.test(d!.latex))) return equations(display as { latex: string; tag: string | null }[], lines, page);
    if (lines.length <= 3 && looksLikeEquation(text)) return { kind: 'equation', page, text };
    // Running text with math in it: the math as inline `$...$` (the plain text decided everything above).
    // A paragraph's text is Markdown (ADR 0355): a dollar of the text escaped (`\$`), so that every bare `$`
    // is a formula's delimiter; two delimiters that touch (a formula closed and the next opened at once, or
    // an empty one) would read as `$$` and pair with the next display: the formulas run on as one.
    const shown = lines.some((l) => l.math) ? joinParagraph(lines.map((l) => l.math ?? escapeDollars(l.text)), vocab).replace(/(?<!\\)\$\$/g, ' ') : escapeDollars(text);
    return { kind: 'paragraph', page, text: stripDotLeaders(shown), size, lines, last: lines[lines.length - 1]!.text };
  }

  /**
   * The equations of a block whose lines are all math. Several lines are gathered, so that they render as
   * rows (a bare \\\\ at the top of a display does not); a number is the display's `\\tag`, and each
   * line with a number of its own ends an equation (ADR 0355: one display per equation): two numbered
   * equations that MuPDF gives as one block are two displays.
   */
  function equations(parts: readonly { latex: string; tag: string | null }[], lines: readonly LayoutLine[], page: number): Classified[] {
    const out: Classified[] = [];
    const numbered = parts.filter((p) => p.tag !== null).length;
    let rows: string[] = [];
    let texts: string[] = [];
    let tag: string | null = null;
    const flush = (): void => {
      if (!rows.length) return;
      const latex = rows.length > 1 ? `\\begin{gathered} ${rows.join(' \\\\ ')} \\end{gathered}` : rows[0]!;
      out.push({ kind: 'equation', page, text: joinParagraph(texts, vocab), latex: tag !== null ? `${latex} \\tag{${tag}}` : latex });
      rows = [];
      texts = [];
      tag = null;
    };
    parts.forEach((p, k) => {
      if (p.latex) rows.push(p.latex);
      texts.push(lines[k]!.text);
      if (p.tag !== null) tag = p.tag;
      if (numbered > 1 && p.tag !== null) flush();
    });
    flush();
    return out;
  }

  function headingOf(raw: RawBlock, text: string, size: number, bold: boolean, next: RawBlock | undefined): Classified | null {
    const t = text.trim();
    if (t.length === 0 || t.length > 160 || raw.lines.length > 3 || !/\p{L}/u.test(t)) return null;
    // Table cells and marks ("X X", "*JOBCTL") are not headings: ask for a word of two letters and four letters in all.
    if (!/\p{L}{2}/u.test(t) || !AT_LEAST_4_LETTERS_RE.test(t) || /[<>{}=]/.test(t)) return null;
    const page = raw.page;
    const ratio = size / body;
    // "§1. Introduction" (Progress of Theoretical Physics and other journals number sections with the sign).
    const numbered = SECTION_NUMBER_RE.exec(t) ?? SECTION_SIGN_RE.exec(t);
    const words = t.split(/\s+/).length;
    const endsSentence = /[.!?]$/.test(t) && !/^\S+\.$/.test(t);
    // OCR sizes come from word heights and wobble from line to line: a long line of nine words or more
    // spanning most of the page is a wrapped paragraph line, whatever its estimated size.
    if (words >= 9 && raw.lines.some((l) => l.sizeEstimated && l.x1 - l.x0 >= 0.55 * raw.pageWidth)) return null;
    // The document title: the largest type in the top of the first page (before the author-line filters:
    // titles have commas too).
    if (!titleDone && page === (pages[0]?.page ?? 1) && ratio >= 1.3 && size >= maxFirstPageSize - 0.5 && raw.lines[0]!.y0 < raw.pageHeight * 0.45 && words <= 30) {
      titleDone = true;
      underTitle = true;
      return { kind: 'heading', page, text: t, level: 1, source: 'title', size };
    }
    if (/[,;]$/.test(t) || /@|https?:\/\//.test(t) || WEB_ADDRESS_RE.test(t)) return null;
    // Table-of-contents entries ("1 Introduction . . . . 1") name headings but are not ones.
    if (TOC_LEADER_RE.test(t)) return null;
    // Author lines: several commas, affiliation marks, or Greek/star marks glued to names ("Loα∗").
    // A bold numbered title may list things ("2. REFERRING TO CITATIONS, FIGURES, AND EQUATIONS"), and so
    // may a bold title in capitals below the author block (ADR 0383).
    const listingTitle = bold && raw.lines.length === 1 && ((numbered !== null && ratio >= 0.85) || (!underTitle && !/\p{Ll}/u.test(t) && ratio >= 0.93));
    if (((t.match(/,/g) ?? []).length >= 2 && !listingTitle) || /[†‡∗⋄□]/.test(t) || /[a-z][α-ω∗*]/.test(t)) return null;
    // Run-in headings ("Protocols and Utilities. To instantiate a"): a sentence end followed by more text.
    if (!numbered && /[.:]\s+\p{Lu}\p{Ll}/u.test(t)) return null;
    // Inside the references, bold or italic venue names are not headings; only larger or numbered ones are.
    if (inReferences && !numbered && ratio < 1.15) return null;

    // Outline entries name the real headings.
    if (useOutline) {
      const key = norm(t);
      // Bookmarks often leave out the section number the page prints ("Mathematical elements" for "1.1
      // Mathematical elements", hyperref's default): the title without its number matches too (ADR 0383).
      const bare = numbered ? norm(t.slice(numbered[0].length)) : '';
      for (let i = 0; i < outlineKeys.length; i++) {
        const o = outlineKeys[i]!;
        if (usedOutline.has(i)) continue;
        if (o.page !== null && Math.abs(o.page - page) > 1) continue;
        if (key === o.key || (bare.length >= 4 && bare === o.key) || (key.length >= 4 && o.key.startsWith(key) && key.length >= o.key.length * 0.6) || (o.key.length >= 4 && key.startsWith(o.key) && o.key.length >= key.length * 0.7)) {
          usedOutline.add(i);
          // Matched without its number: the level follows the number, as a numbered title's does (an
          // outline with the document's title at its root would put every section a level down).
          const num = key !== o.key && bare === o.key ? numbered![1]!.replace(/\.$/, '') : null;
          const level = num !== null ? (/^[IVX]+$/.test(num) ? 1 : num.split('.').length) + 1 : o.depth + 1;
          return { kind: 'heading', page, text: t, level: Math.min(6, level), source: 'outline', size };
        }
      }
    }
    const estimated = raw.lines.some((l) => l.sizeEstimated);
    const strongSize = estimated ? ratio >= 1.3 && words >= 2 : ratio >= 1.15 && size - body >= 1;
    if (useOutline && !(ratio >= 1.3 || (numbered && (bold || strongSize)))) return null;
    if (endsSentence && !(numbered && t.length < 80)) return null;
    if (words > 20) return null;
    const nextStartsLower = next ? /^\p{Ll}/u.test(next.lines[0]!.text) : false;
    // A two-level number ("2.1 Class options") on a short line of its own, set like the body (journal
    // classes that mark subsections by number alone), above running text: lists are not numbered so.
    const subNumbered = numbered !== null && /^\d{1,2}\.\d{1,2}(?:\.\d{1,2}){0,2}\.?$/.test(numbered[1]!) && raw.lines.length === 1 && words <= 10 && !/[.:;,]$/.test(t) && ratio >= 0.93 && next !== undefined && !nextStartsLower && (next.lines.length >= 2 || next.lines[0]!.text.length >= Math.max(60, 2 * t.length));
    // A numbered title centred over the paragraph below it, set like the body (AMS classes centre their
    // section titles in small capitals at the body's size: "1. Introduction"): a number of digits (or a Roman
    // one), one short line, its centre within 3% of the paragraph's width from the paragraph's and itself
    // under 70% of that width, above two or more lines of running text (ADR 0380).
    const centredNumbered =
      numbered !== null &&
      /^(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[IVX]{1,5}\.)$/.test(numbered[1]!) &&
      raw.lines.length === 1 &&
      words <= 10 &&
      !/[.:;,]$/.test(t) &&
      ratio >= 0.93 &&
      next !== undefined &&
      !nextStartsLower &&
      next.lines.length >= 2 &&
      (() => {
        const l = raw.lines[0]!;
        const x0 = Math.min(...next.lines.map((m) => m.x0));
        const x1 = Math.max(...next.lines.map((m) => m.x1));
        const w = x1 - x0;
        return w > 0 && l.x1 - l.x0 <= 0.7 * w && l.x0 > x0 + 0.1 * w && Math.abs((l.x0 + l.x1) / 2 - (x0 + x1) / 2) <= 0.03 * w;
      })();
    if (numbered && (bold || strongSize || subNumbered || centredNumbered)) {
      const num = numbered[1]!.replace(/\.$/, '');
      const depth = /^[IVX]+$/.test(num) ? 1 : num.split('.').length;
      if (/^\d+$/.test(num) && Number(num) > 40) return null;
      return { kind: 'heading', page, text: t, level: Math.min(6, depth + 1), source: 'numbering', size };
    }
    if (strongSize && !nextStartsLower) {
      // Larger than the body but neither bold nor numbered, right under the title: an author or affiliation line.
      if (underTitle && !bold && raw.lines[0]!.y0 < raw.pageHeight * 0.45) return null;
      return { kind: 'heading', page, text: t, level: 0, source: 'font-size', size };
    }
    if (bold && ratio >= 0.93 && !/:$/.test(t) && !nextStartsLower && words <= 14) {
      return { kind: 'heading', page, text: t, level: 0, source: 'bold', size };
    }
    // Without fonts (OCR, DJVU): a lone short line without end punctuation, starting with a capital, above a
    // longer paragraph, reads as a heading. A numbered one ("1 Introduction", "2Method" where OCR lost the
    // space) may come out smaller than the body: sizes are estimated from the tallest word, and a heading's
    // words often lack descenders.
    // Unnumbered, a line without descender letters ("Measurements") is measured from its ascenders alone,
    // about 0.8 of the height a body line with descenders gets: its size is compared as if it had them.
    const numberedLike = numbered !== null || /^\d{1,2}(?:\.\d{1,2}){0,3}\.?\s*\p{Lu}\p{Ll}/u.test(t);
    const noDescenders = !/[gjpqy(),;[\]{}|]/.test(t);
    const estimatedRatio = noDescenders ? ratio / 0.8 : ratio;
    // Tesseract cuts a heading's line at the wide gap after its number ("2.2   Dados para documento"): lines
    // of a numbered block side by side on one row count as one (ADR 0372). Unnumbered, such a row is
    // formula text beside its equation number ("No Warning   (1)" read as "qQ)") and stays as it was.
    if (estimated && (numberedLike ? rowsOf(raw.lines) : raw.lines.length) === 1 && words <= 12 && (numberedLike ? ratio >= 0.7 : estimatedRatio >= 0.95) && /^[\p{Lu}\d]/u.test(t) && !/[.,;:!?]$/.test(t) && next && !nextStartsLower) {
      const nextChars = next.lines.reduce((n, l) => n + l.text.length, 0);
      const nextRows = rowsOf(next.lines);
      if (nextRows >= 2 && nextChars > t.length * 2 && !listMarker(next.lines[0]!)) return { kind: 'heading', page, text: t, level: 0, source: 'layout', size };
      // A numbered line above a one-line paragraph ("2 Downloads" / "Download the package and install it.")
      // or above its own first subsection ("4. Instructions" / "4.1 Formatting your paper") (ADR 0372).
      if (numberedLike && nextRows === 1) {
        const first = next.lines[0]!.text.trim();
        const num = /^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s*\p{L}/u.exec(t)?.[1];
        const subsection = num !== undefined && new RegExp(`^${num.replace(/\./g, '\\.')}\\.\\d{1,2}\\.?\\s+\\p{Lu}`, 'u').test(first);
        const sentence = /^\p{Lu}\p{Ll}/u.test(first) && nextChars >= Math.max(40, 2 * t.length) && !listMarker(next.lines[0]!);
        if (subsection || sentence) return { kind: 'heading', page, text: t, level: 0, source: 'layout', size };
      }
    }
    // Italic run-in headings (technical manuals): a short title-case italic line above roman body text.
    const italic = raw.lines.every((l) => l.italic);
    const titleCase = t.split(/\s+/).filter((w) => /^\p{Lu}/u.test(w)).length >= Math.ceil(words * 0.6);
    const nextRoman = next ? !next.lines[0]!.italic : false;
    if (italic && titleCase && words <= 8 && nextRoman && !nextStartsLower && !/[.:]$/.test(t) && ratio >= 0.93 && raw.lines.length === 1) {
      return { kind: 'heading', page, text: t, level: 0, source: 'emphasis', size };
    }
    return null;
  }
}

/** A run-in title's number and words: "1.1", "A.2.", "3." (one level only with a title in capitals). */
const RUN_IN_RE = /^((?:\d{1,2}|[A-Z])(?:\.\d{1,2}){1,3}\.?|\d{1,2}\.)\s+(\p{Lu}.*)$/u;
/** Theorem-like heads numbered first (amsart's \swapnumbers: "2.1. Theorem. Let ..."): not sectioning. */
const THEOREM_HEAD_RE = /^(?:theorem|lemma|proposition|corollary|definition|remark|example|exercise|proof|note|notation|conjecture|claim|problem|question|assumption|hypothesis|case|step|fact|observation|algorithm|axiom|property|solution)\b/i;

/**
 * A run-in title at the start of a block (AMS classes' \subsection, ASME's and aomart's subsections: "1.1
 * **Essential Initial Commands.** To begin, fill in ..."): a section number of two levels or more, then
 * words set in bold, italic or small capitals up to a full stop (the stop may be in the body's face),
 * then the paragraph in another face on the same line. A one-level number ("2. INTRODUCTION Citations
 * are") counts when the title is in capitals. Bold lead words without a section number before them
 * ("Proof.", "Note.", "Example 1.", "Theorem 2.1.") are not titles; neither are numbered theorem heads.
 * Returns the heading and the block without the title, or null (ADR 0383).
 */
function runInTitle(raw: RawBlock): { heading: Classified; rest: RawBlock } | null {
  const first = raw.lines[0]!;
  const lead = first.lead;
  if (!lead || first.sizeEstimated || first.display !== undefined || !first.text.startsWith(lead)) return null;
  const m = RUN_IN_RE.exec(lead);
  if (!m) return null;
  const num = m[1]!;
  let title = m[2]!.trim();
  let rest = first.text.slice(lead.length);
  let cut = lead.length;
  const stop = /^\s*[.:]/.exec(rest);
  if (!/[.:]$/.test(title) && stop) {
    title += '.';
    rest = rest.slice(stop[0].length);
    cut += stop[0].length;
  }
  rest = rest.trim();
  const inCapitals = !/\p{Ll}/u.test(title) && /\p{Lu}{2}/u.test(title);
  const oneLevel = /^\d{1,2}\.$/.test(num);
  if (!(inCapitals || (!oneLevel && /\.$/.test(title)))) return null;
  const words = title.split(/\s+/).length;
  if (words > 12 || title.length > 100 || THEOREM_HEAD_RE.test(title) || !/^[\p{Lu}\p{N}(“"'‘\\$]/u.test(rest)) return null;
  // The math form of the line opens with the same title (it is set in a text face).
  let math: string | undefined;
  if (first.math !== undefined) {
    if (!first.math.startsWith(first.text.slice(0, cut))) return null;
    math = first.math.slice(cut).trim();
  }
  const depth = num.replace(/\.$/, '').split('.').length;
  const { lead: _lead, segments: _segments, math: _math, ...line } = first;
  const rested: LayoutLine = { ...line, text: rest, ...(math !== undefined && math !== rest ? { math } : {}) };
  const size = first.size;
  return {
    heading: { kind: 'heading', page: raw.page, text: `${num} ${title.replace(/[.:]$/, '')}`, level: Math.min(6, depth + 1), source: 'numbering', size },
    rest: { ...raw, lines: [rested, ...raw.lines.slice(1)] },
  };
}

/**
 * Rows of a block's lines: a line that overlaps the one before it by over half the lower line's height is on
 * the same row (OCR lines cut at a wide gap, ADR 0372).
 */
export function rowsOf(lines: readonly LayoutLine[]): number {
  let rows = 0;
  for (let i = 0; i < lines.length; i++) {
    const a = lines[i - 1];
    const b = lines[i]!;
    const overlap = a ? Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) : 0;
    if (!a || overlap <= 0.5 * Math.min(a.y1 - a.y0, b.y1 - b.y0)) rows++;
  }
  return rows;
}

/**
 * The list marker at the start of a line: the matched text and the marker symbol. OCR reads bullets as
 * e, ¢, ©, « or °; on lines with estimated sizes (OCR, DJVU) those before a capital count as bullets.
 */
function listMarker(line: LayoutLine): { text: string; symbol: string } | null {
  if (line.sizeEstimated) {
    const m = /^[e¢©«°]\s+(?=\p{Lu})/u.exec(line.text);
    if (m) return { text: m[0], symbol: '•' };
  }
  const m = LIST_MARKER_RE.exec(line.text);
  return m ? { text: m[0], symbol: m[1]! } : null;
}

/** Splits a page's lines into raw blocks. Lines in `skip` (tables) are left out. */
/**
 * Bounds of the lines of one source block set in one style (size to the point, weight): a heading that
 * MuPDF put in the same block as the paragraph below it, wider than the paragraph's column, must not make
 * every full line of the paragraph look short (LibreOffice writes such blocks).
 */
const styleKey = (l: LayoutLine): string => `${l.block}|${Math.round(l.size)}|${l.bold ? 1 : 0}`;

function segmentPage(page: PageExtraction, skip: Set<LayoutLine>): RawBlock[] {
  const blockBounds = new Map<string, Box>();
  for (const l of page.lines) {
    const k = styleKey(l);
    const b = blockBounds.get(k);
    blockBounds.set(k, b ? { x0: Math.min(b.x0, l.x0), y0: Math.min(b.y0, l.y0), x1: Math.max(b.x1, l.x1), y1: Math.max(b.y1, l.y1) } : { x0: l.x0, y0: l.y0, x1: l.x1, y1: l.y1 });
  }
  const out: RawBlock[] = [];
  let cur: LayoutLine[] = [];
  const flush = (): void => {
    if (cur.length) out.push({ page: page.page, lines: cur, pageHeight: page.height, pageWidth: page.width });
    cur = [];
  };
  for (const l of page.lines) {
    if (skip.has(l)) {
      flush();
      continue;
    }
    const a = cur[cur.length - 1];
    if (a && startsNewBlock(a, l, cur, blockBounds.get(styleKey(l))!)) flush();
    cur.push(l);
  }
  flush();
  return out;
}

/**
 * Whether `b`, an OCR line, continues the sentence of `a` in one of tesseract's blocks: `a` does not end a
 * sentence and `b` starts with a lower-case letter right below it. Then neither a paragraph break tesseract
 * put between them (its paragraph detection breaks on skewed or noisy scans, mid-sentence or mid-word) nor
 * a change of the estimated size (a line of x-height letters, or one whose box a skew made taller, comes
 * out two points off) starts a new block: a heading does not start in lower case.
 */
function ocrContinues(a: LayoutLine, b: LayoutLine): boolean {
  if (a.confidence === undefined || b.confidence === undefined || Math.floor(a.block / 1000) !== Math.floor(b.block / 1000)) return false;
  if (b.y0 <= a.y0 || b.y0 - a.y1 > 0.9 * Math.min(a.size, b.size)) return false;
  return !/[.!?:;。！？]["'”’)\]]?$/.test(a.text.trim()) && /^\p{Ll}/u.test(b.text.trim());
}

function startsNewBlock(a: LayoutLine, b: LayoutLine, cur: LayoutLine[], bounds: Box): boolean {
  const continues = ocrContinues(a, b);
  if (b.block !== a.block && !continues) return true;
  // Estimated sizes (OCR, DJVU) jitter with the letters of a line: ask for a larger change there.
  const sizeStep = a.sizeEstimated ? Math.max(2, 0.3 * Math.min(a.size, b.size)) : 1.5;
  if (Math.abs(a.size - b.size) >= sizeStep && !continues) return true;
  if (a.bold !== b.bold) return true;
  if (a.mono !== b.mono) return true;
  // A whole italic line above roman text (or the reverse) is a run-in heading or a quotation boundary.
  if (a.italic !== b.italic && (a.text.length < 80 || b.text.length < 80)) return true;
  const minSize = Math.min(a.size, b.size);
  if (b.y0 - a.y1 > 0.9 * minSize) return true;
  if (b.y1 <= a.y0) return true;
  if (listMarker(b) && !a.mono) return true;
  const inItem = listMarker(cur[0]!) !== null;
  // Under an item whose bullet was set apart from its text (joined by joinBullets), a line starting left
  // of the item's text (at the bullet or the margin) is not the item's: the paragraph after the list.
  const hang = bulletItemTextStart(cur[0]!);
  if (hang !== undefined && b.x0 < hang - 0.5 * b.size) return true;
  const left = bounds.x0;
  const right = bounds.x1;
  // A short line ending a sentence closes the paragraph.
  if (!inItem && a.x1 < right - 4 * a.size && /[.!?。！？]["'”’)\]]?$/.test(a.text.trim())) return true;
  // First-line indent: b starts indented, reaches the right margin, and a was flush left. LaTeX indents by
  // 1em in two columns (1.5em in one), so 0.75 of the size is enough on exact text-layer positions; OCR and
  // DJVU positions jitter, so they need more.
  const indent = b.sizeEstimated ? 1.2 : 0.75;
  if (!inItem && b.x0 > left + indent * b.size && b.x1 >= right - 2 * b.size && a.x0 <= left + 1.5 && a.x1 < right - 0.5 * a.size) return true;
  return false;
}

/** Program punctuation, by code unit (all ASCII): `{}()[];=<>+*\|&#$@\`"'^~!`. */
const CODE_SYMBOL = new Uint8Array(128);
for (const ch of '{}()[];=<>+*\\|&#$@`"\'^~!') CODE_SYMBOL[ch.charCodeAt(0)] = 1;
/** Program punctuation characters in `t`, counted without a regular expression's array of matches (ADR 0357). */
function codeSymbols(t: string): number {
  let n = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c < 128 && CODE_SYMBOL[c] === 1) n++;
  }
  return n;
}
const CODE_KEYWORD_RE = /(?:^|\s)(?:def|class|return|import|from|function|const|let|var|if|else|elif|for|while|public|private|static|void|int|char|print|printf|include|#include|#define|fn|pub|use|package|func|begin|end|SELECT|FROM|WHERE|echo|sudo|npm|git|cd|ls)(?=[\s(:{;]|$)/;
const URL_RE = /\b(?:https?:\/\/|www\.|doi:)\S+/gi;

/**
 * Whether a block of monospaced lines is code rather than body text set in a typewriter face (an OCR
 * layer in Courier, a typewritten report, URLs in references). A monospaced font alone is not enough:
 * code has program punctuation (braces, brackets, semicolons, operators; over 4% of its visible
 * characters once web addresses are taken out), keywords, or indentation that varies between short
 * lines; prose has long lines of words that end in sentence punctuation or hyphens. Exported for tests.
 */
export function looksLikeCode(lines: readonly LayoutLine[]): boolean {
  let visible = 0;
  let symbols = 0;
  let keywordLines = 0;
  let proseLines = 0;
  let words = 0;
  for (const l of lines) {
    const t = l.text.replace(URL_RE, ' ').trim();
    visible += nonSpaceLength(t);
    symbols += codeSymbols(t);
    if (CODE_KEYWORD_RE.test(t)) keywordLines++;
    const w = (t.match(/\p{L}{2,}/gu) ?? []).length;
    words += w;
    if (w >= 6 && /[.,;:!?\-]$|\p{Ll}$/u.test(t)) proseLines++;
  }
  if (visible === 0) return false;
  const symbolShare = symbols / visible;
  const left = Math.min(...lines.map((l) => l.x0));
  const charW = Math.max(1, lines[0]!.size * 0.6);
  const indents = new Set(lines.map((l) => Math.round((l.x0 - left) / charW)));
  const meanLen = lines.reduce((s, l) => s + l.text.length, 0) / lines.length;
  // Mostly prose-shaped lines with little program punctuation: body text in a typewriter face.
  if (proseLines >= Math.max(1, lines.length * 0.5) && symbolShare < 0.04) return false;
  if (symbolShare >= 0.04) return true;
  if (keywordLines >= Math.max(1, lines.length * 0.3)) return true;
  return lines.length >= 3 && indents.size >= 2 && meanLen < 50 && words / lines.length < 6;
}

function codeText(lines: LayoutLine[]): string {
  const left = Math.min(...lines.map((l) => l.x0));
  return lines
    .map((l) => {
      const charW = Math.max(1, l.size * 0.6);
      const indent = Math.max(0, Math.round((l.x0 - left) / charW));
      return ' '.repeat(Math.min(indent, 40)) + l.text;
    })
    .join('\n');
}

/** Splits a references block into entries at `[n]`, `n.` markers or hanging indents. */
function splitReferences(lines: LayoutLine[], vocab: Vocabulary): string[] {
  const left = Math.min(...lines.map((l) => l.x0));
  // Hanging indents: lines after the first set in from the entries' left edge. A first line set in alone
  // is a paragraph's indent (a template's "References" section telling how to cite, in prose): read as
  // hanging, every line of it became an entry (ADR 0364).
  const hanging = lines.some((l, i) => i > 0 && l.x0 > left + 4);
  const entries: string[][] = [];
  for (const l of lines) {
    const marker = /^(\[\d{1,4}\]|\d{1,4}\.\s)/.test(l.text);
    const atLeft = l.x0 <= left + 1.5;
    const start = entries.length === 0 || marker || (hanging && atLeft && !/^\[/.test(lines[0]!.text) && !/^\d{1,4}\.\s/.test(lines[0]!.text));
    if (start) entries.push([l.text]);
    else entries[entries.length - 1]!.push(l.text);
  }
  return entries.map((e) => joinParagraph(e, vocab)).filter((e) => e.length > 0);
}

/** An example or item number alone on its line: "(2)", "(12a)", "a.", "iv)", "3.". */
const LONE_MARK_RE = /^(?:\(\d{1,3}[a-z]?\)|\(?(?:[a-z]|[ivx]{1,4})[.)]|\d{1,3}[.)])$/u;

/**
 * A page's lines with an item or example number that the text layer set apart from its text ("(2)" some
 * ems left of "* Here another is.", gb4e's numbered examples; "a." left of its sentence) joined to that
 * text: the number's line and the next line of the stream become one line ("(2) * Here another is.") when
 * the next line is in the same block, on the same row, to the right within five ems, and no math (an
 * equation numbered on the left stays a display, ADR 0367). Otherwise the number is a paragraph of its own
 * and a judgement mark ("*") after it reads as a bullet (ADR 0374). Table lines are left as they are.
 */
export function joinItemMarks(lines: readonly LayoutLine[], tableLines: ReadonlySet<LayoutLine>): LayoutLine[] {
  let out: LayoutLine[] | null = null;
  for (let i = 0; i + 1 < lines.length; i++) {
    const m = lines[i]!;
    const t = lines[i + 1]!;
    if (!LONE_MARK_RE.test(m.text.trim()) || tableLines.has(m) || tableLines.has(t)) continue;
    const mid = (m.y0 + m.y1) / 2;
    if (t.block !== m.block || t.math !== undefined || t.display !== undefined || mid < t.y0 || mid > t.y1 || t.x0 < m.x1 || t.x0 - m.x1 > 5 * Math.max(m.size, t.size) || !t.text.trim()) continue;
    out ??= [...lines];
    const line: LayoutLine = { ...t, text: `${m.text.trim()} ${t.text}`, x0: m.x0, y0: Math.min(m.y0, t.y0), y1: Math.max(m.y1, t.y1), segments: undefined };
    out[i] = line;
    out[i + 1] = line;
    i++;
  }
  return out ? out.filter((l, i) => i === 0 || l !== out![i - 1]) : [...lines];
}

/** Unions overlapping image boxes and keeps the ones large enough to be figures (>= 2% of the page). */
function mergeImages(images: readonly Box[], width: number, height: number): Box[] {
  const boxes = images.filter((b) => b.x1 - b.x0 >= 20 && b.y1 - b.y0 >= 20).map((b) => ({ ...b }));
  let changed = true;
  while (changed) {
    changed = false;
    outer: for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i]!;
        const b = boxes[j]!;
        if (a.x0 <= b.x1 + 5 && b.x0 <= a.x1 + 5 && a.y0 <= b.y1 + 5 && b.y0 <= a.y1 + 5) {
          boxes[i] = { x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0), x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1) };
          boxes.splice(j, 1);
          changed = true;
          break outer;
        }
      }
  }
  const area = Math.max(1, width * height);
  // A page-sized image is a scan or background, not a figure.
  return boxes.filter((b) => {
    const a = (b.x1 - b.x0) * (b.y1 - b.y0);
    return a >= 0.02 * area && a < 0.9 * area;
  });
}

/** Merges continued paragraphs and list items into the final blocks, assigning heading levels. */
function mergeBlocks(items: Classified[], vocab: Vocabulary): DocBlock[] {
  // Levels of font-based headings: distinct sizes, largest first, from level 2.
  const sizes = [...new Set(items.filter((c) => c.kind === 'heading' && c.source === 'font-size').map((c) => Math.round((c as { size: number }).size)))].sort((a, b) => b - a);
  const levelOf = (c: Extract<Classified, { kind: 'heading' }>): number => {
    if (c.level > 0) return c.level;
    if (c.source === 'font-size') return Math.min(4, 2 + sizes.indexOf(Math.round(c.size)));
    return Math.min(5, 2 + sizes.length);
  };
  const out: DocBlock[] = [];
  let lastPara: { index: number; size: number; last: string; text: string } | null = null;
  for (const c of items) {
    const prev = out[out.length - 1];
    switch (c.kind) {
      case 'heading':
        // A heading wrapped onto a second line that the source split off continues in lower case; one that
        // starts with a lower-case outline label ("a) Purpose", "ii. Install the plugins") is a heading of
        // its own (ADR 0369).
        if (prev && prev.kind === 'heading' && prev.page === c.page && /^\p{Ll}/u.test(c.text) && !LOWER_LABEL_RE.test(c.text) && !/[.:!?]$/.test(prev.text)) {
          out[out.length - 1] = { ...prev, text: joinLines(prev.text, c.text, vocab) };
          break;
        }
        out.push({ kind: 'heading', page: c.page, level: levelOf(c), text: c.text, source: c.source });
        lastPara = null;
        break;
      case 'paragraph': {
        // A paragraph cut by a column or page break continues in lower case without a sentence end, after
        // footnotes and figures, or after a float set at the top of the next page (a table or figure with
        // its caption, "Table 3 - continued", ADR 0374): the paragraph reads on and the float follows it.
        const cutPage = lastPara ? out[lastPara.index]!.page : 0;
        if (lastPara && out.slice(lastPara.index + 1).every((b) => b.kind === 'footnote' || b.kind === 'figure' || ((b.kind === 'caption' || b.kind === 'table') && b.page === c.page && c.page > cutPage)) && Math.abs(lastPara.size - c.size) < 1.5 && !SENTENCE_END_RE.test(lastPara.text) && /^\p{Ll}/u.test(c.text)) {
          const merged = joinLines(lastPara.text, c.text, vocab);
          const p = out[lastPara.index] as Extract<DocBlock, { kind: 'paragraph' }>;
          out[lastPara.index] = { ...p, text: merged };
          lastPara = { index: lastPara.index, size: lastPara.size, text: merged, last: c.last };
          break;
        }
        // A paragraph right after a list item, indented past the marker, continues that item; so does one
        // that goes on in lower case after an item cut mid-sentence or mid-word ("... automati-" / "cally
        // loads"), on the same or the next page: a numbered line ("3. Package The ...") wrapped flush left.
        const lastItem = prev && prev.kind === 'list' ? prev.items[prev.items.length - 1]! : '';
        const cutItem = prev?.kind === 'list' && (c.page === prev.page || c.page === prev.page + 1) && /^\p{Ll}/u.test(c.text) && (/\p{L}-$/u.test(lastItem) || (!SENTENCE_END_RE.test(lastItem) && /\p{Ll}$/u.test(lastItem) && lastItem.split(/\s+/).length >= 8));
        if (prev && prev.kind === 'list' && c.lines[0] && ((c.lines[0].x0 > (itemX0.get(prev) ?? Infinity) + 2 && c.page === prev.page) || cutItem)) {
          const items2 = [...prev.items];
          items2[items2.length - 1] = joinLines(items2[items2.length - 1]!, c.text, vocab);
          out[out.length - 1] = { ...prev, items: items2 };
          itemX0.set(out[out.length - 1] as Extract<DocBlock, { kind: 'list' }>, itemX0.get(prev)!);
          break;
        }
        out.push({ kind: 'paragraph', page: c.page, text: c.text });
        lastPara = { index: out.length - 1, size: c.size, last: c.last, text: c.text };
        break;
      }
      case 'item': {
        if (prev && prev.kind === 'list' && prev.ordered === c.ordered) {
          const merged = { ...prev, items: [...prev.items, c.text] };
          out[out.length - 1] = merged;
          itemX0.set(merged, Math.min(itemX0.get(prev) ?? c.x0, c.x0));
        } else {
          const list: Extract<DocBlock, { kind: 'list' }> = { kind: 'list', page: c.page, ordered: c.ordered, items: [c.text] };
          out.push(list);
          itemX0.set(list, c.x0);
        }
        lastPara = null;
        break;
      }
      case 'table': {
        const cont = continuedTable(out, c);
        if (cont) out[cont.index] = { ...cont.table, rows: [...cont.table.rows, ...(sameRow(cont.table.rows[0], c.rows[0]) ? c.rows.slice(1) : c.rows)] };
        else out.push({ kind: 'table', page: c.page, rows: c.rows });
        break;
      }
      case 'figure':
        out.push({ kind: 'figure', page: c.page });
        break;
      case 'caption':
        // A caption ends the paragraph before it except as part of a float between a paragraph and its
        // continuation on the next page (decided when the continuation comes).
        out.push({ kind: 'caption', page: c.page, text: c.text, target: c.target });
        break;
      case 'code':
        if (prev && prev.kind === 'code') out[out.length - 1] = { ...prev, text: `${prev.text}\n${c.text}` };
        else out.push({ kind: 'code', page: c.page, text: c.text });
        lastPara = null;
        break;
      case 'equation':
        out.push({ kind: 'equation', page: c.page, text: c.text, ...(c.latex !== undefined ? { latex: c.latex } : {}) });
        break;
      case 'footnote':
        out.push({ kind: 'footnote', page: c.page, label: c.label, text: c.text });
        break;
      case 'reference':
        out.push({ kind: 'reference', page: c.page, text: c.text });
        lastPara = null;
        break;
    }
  }
  return out;
}

const itemX0 = new WeakMap<object, number>();

const sameRow = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean => !!a && !!b && a.length === b.length && a.every((x, i) => x.trim() === b[i]!.trim());

/**
 * A table continued from the previous page (ADR 0343): the last blocks before it are a table on the page
 * before with as many columns, with nothing but footnotes, a figure or a "(continued)" caption between
 * them. The continuation's first row is dropped when it repeats the header (longtable's \endhead).
 */
function continuedTable(out: readonly DocBlock[], c: { page: number; rows: readonly (readonly string[])[] }): { index: number; table: Extract<DocBlock, { kind: 'table' }> } | null {
  for (let i = out.length - 1; i >= 0; i--) {
    const b = out[i]!;
    if (b.kind === 'table') {
      return b.page === c.page - 1 && b.rows[0]?.length === c.rows[0]?.length ? { index: i, table: b } : null;
    }
    if (b.kind === 'footnote' || b.kind === 'figure' || (b.kind === 'caption' && /\bcontinued\b|\(cont(?:'d|\.)\)|fortsetzung|suite/i.test(b.text))) continue;
    return null;
  }
  return null;
}
