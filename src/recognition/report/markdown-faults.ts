// Faults the converter can read from its own Markdown (issue 28, ADR 0356): structure that should have been a
// heading or a table and is prose, and prose that became a heading or a table's cells. Inputs of the quality
// score (score.ts); they read the output only, never a source, so they apply to unseen documents.
import { gfmTableRows, gfmTables } from './text-statistics.js';
import { markdownBlocks, sharedPiece, sharingMarkdown } from './shared-markdown.js';

const round = (x: number): number => Math.round(x * 10000) / 10000;

/** The Markdown's blocks (separated by blank lines), page-marker comments left out (shared while the report is built). */
const blocksOf = markdownBlocks;

/** Blocks that are not running text: headings, tables, lists, code, quotes, comments, displays, footnotes. */
const NOT_TEXT = /^(?:#{1,6}\s|\||[-*+]\s|\d{1,3}[.)]\s|```|~~~|>|<!--|\$\$|\[\^)/;
/** What ends a sentence, a label or a parenthesis. */
const CLOSED = /[.!?:;,。！？…)\]"'”’»]$/;
/** Captions and labels, which stand alone and are not headings. */
const LABEL = /^(?:table|tab\.|figure|fig\.|listing|algorithm|source|note|example|chart|plate|exhibit|equation)\b/i;
/** A section number: "2", "2.1", "IV.1.", "A.2", optionally after a section sign. */
const SECTION_NUMBER = /^(?:\$?§\$?\s*)?(?:\d{1,2}(?:\.\d{1,2}){0,3}|[IVX]{1,5}(?:\.\d{1,2}){0,3}|[A-Z](?:\.\d{1,2}){1,3})\.?\s+(?=\S)/u;
const wordsOf = (s: string): string[] => s.split(/\s+/).filter(Boolean);
/** Length in words; Chinese and Japanese text, written without spaces, counts two characters a word. */
const lengthOf = (s: string): number => wordsOf(s).length + Math.floor((s.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu)?.length ?? 0) / 2);

/**
 * Share 0..1 of the headings the Markdown shows as paragraphs (ADR 0356): of the blocks that look like a
 * heading (a section number and a short title standing alone, "2.1 Results", "IV.1. Scope"; a numbered
 * title run into its paragraph, "1.1 Essential Commands. To begin..."; a short line beginning with a capital,
 * without closing punctuation, standing between a closed block and a paragraph of 15+ words, as
 * "INTRODUCTION" or "Custom delimiters" do) and the Markdown headings, the share that are such paragraphs.
 * Captions and labels are left out; two headings are added to the count (one such paragraph among no
 * headings is weak evidence). 0 when there is none.
 */
export function headingParagraphRatio(markdown: string): number {
  const blocks = blocksOf(markdown);
  let headings = 0;
  let paragraphs = 0;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i]!;
    if (/^#{1,6}\s/.test(b)) {
      headings++;
      continue;
    }
    if (NOT_TEXT.test(b) || LABEL.test(b) || b.includes('\n')) continue;
    const words = wordsOf(b);
    const next = blocks[i + 1];
    const prev = blocks[i - 1];
    // A heading stands between a closed block (or none) and running text of 10+ words.
    const between = !!next && !NOT_TEXT.test(next) && lengthOf(next) >= 10 && !(prev && !NOT_TEXT.test(prev) && !CLOSED.test(prev));
    const numbered = SECTION_NUMBER.exec(b);
    if (numbered) {
      const title = b.slice(numbered[0].length);
      const tw = wordsOf(title);
      // Standing alone: a short title, no sentence after it.
      if (between && tw.length <= 12 && /^\p{L}/u.test(title) && /\p{L}{3}/u.test(title) && !/[.!?;:,=]/.test(title.slice(-1))) {
        paragraphs++;
        continue;
      }
      // Run in: "1.1 Title Words. The paragraph..." with a title of up to 10 words, each long word capitalised.
      const runIn = /^([^.!?]{3,90})\.\s+\p{Lu}/u.exec(title);
      if (numbered[0].includes('.') && runIn) {
        const head = wordsOf(runIn[1]!);
        if (head.length <= 10 && /^\p{Lu}/u.test(head[0] ?? '') && head.filter((w) => w.length > 3).every((w) => /^\p{Lu}/u.test(w))) paragraphs++;
      }
      continue;
    }
    if (words.length > 8 || !/^\p{Lu}/u.test(b) || CLOSED.test(b) || /\d$/.test(b) || !/\p{L}{3}/u.test(b) || /[=$\\]/.test(b)) continue;
    if (between && lengthOf(next!) >= 15) paragraphs++;
  }
  // Two headings more in the count: one such paragraph in a document without headings is weak evidence.
  return paragraphs ? round(paragraphs / (headings + paragraphs + 2)) : 0;
}

/**
 * Share 0..1 of the Markdown headings that read as prose (ADR 0356): 11 words or more, or ending in a comma,
 * a hyphen or a lower-case function word of the line it was cut from ("... can be configured with the").
 * A line of a paragraph promoted to a heading, which also cuts the paragraph. 0 without headings.
 */
export function proseHeadingRatio(markdown: string): number {
  let headings = 0;
  let prose = 0;
  for (const m of markdown.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    headings++;
    const t = m[1]!;
    const w = wordsOf(t);
    if (w.length >= 11 || /[,\p{L}]-$|,$/u.test(t) || (w.length >= 4 && /^(?:the|a|an|of|and|or|to|in|with|for|de|da|do|la|le|el|en|und|der|die|das|com|para|que|o)$/.test(w[w.length - 1]!))) prose++;
  }
  return headings ? round(prose / headings) : 0;
}

/**
 * Share 0..1 of the tables' body rows that are prose read as a table (ADR 0356): two or more cells of 7+ words
 * each side by side (two columns of text read across), or a cell that ends in a word broken by a hyphen
 * ("pa-": a line of a column). Text columns or a page of prose taken for a table. 0 without tables.
 */
export function proseCellRatio(markdown: string): number {
  const rows = gfmTableRows(markdown);
  let prose = 0;
  for (const r of rows) {
    const long = r.filter((c) => wordsOf(c).length >= 7).length;
    if (long >= 2 || r.some((c) => wordsOf(c).length >= 3 && /\p{Ll}-$/u.test(c))) prose++;
  }
  return rows.length ? round(prose / rows.length) : 0;
}

const NUMBER = /^[(+\-\u2212]?[$\u20ac\u00a3]?\d[\d,.]*%?\)?$/u;

/**
 * Share 0..1 of the running-text blocks that are a table's row read as text (ADR 0356): 3-20 tokens, at least
 * two of them numbers and at least 40% of them, with no closing punctuation ("Run 11 12.5 103.4"). A table the
 * converter did not find. 0 without running-text blocks.
 */
export function looseRowRatio(markdown: string): number {
  let blocks = 0;
  let rows = 0;
  for (const b of blocksOf(markdown)) {
    if (NOT_TEXT.test(b)) continue;
    blocks++;
    for (const line of b.split('\n')) {
      const w = wordsOf(line);
      if (w.length < 3 || w.length > 20 || /[.!?;]$/.test(line.trim())) continue;
      const n = w.filter((x) => NUMBER.test(x)).length;
      if (n >= 2 && n >= 0.4 * w.length) {
        rows++;
        break;
      }
    }
  }
  return blocks ? round(rows / blocks) : 0;
}

/** Running text only: displays, inline mathematics, code, comments, tables, link targets and addresses left out. */
function runningText(markdown: string): string {
  return sharedPiece(markdown, 'running', stripToRunningText);
}

function stripToRunningText(markdown: string): string {
  const text = markdown
    .replace(/```[\s\S]*?```|~~~[\s\S]*?~~~/g, ' ')
    .replace(/\$\$[\s\S]*?\$\$/g, ' ')
    .replace(/(?<!\\)\$[^$\n]{1,300}?(?<!\\)\$/g, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/^\s*\|.*$/gm, ' ')
    .replace(/`[^`\n]*`/g, ' ')
    .replace(/\]\([^)\s]*\)/g, ']');
  return withoutAddresses(text);
}

/** Link targets and e-mail addresses: the last step of {@link stripToRunningText}. */
const ADDRESS = /\b(?:https?:\/\/|www\.)\S+|\S+@\S+/g;
const SPACE = /\s/;

/**
 * `text.replace(ADDRESS, ' ')`, with the pattern run only on the runs of non-space characters that hold an
 * `@`, `http` or `www.` (ADR 0385). A match never crosses white space (`\S+` does not, nor do `http://` and
 * `www.`) and needs one of those three in its run; a run's neighbours are white space, as the run's ends
 * are to a pattern run on the run alone (`\b` and `\S+` see the same). Run over the whole text, `\S+@\S+`
 * tried every position of every word, each scanning to the word's end: the report's costliest pattern.
 */
export function withoutAddresses(text: string): string {
  const runs: [number, number][] = [];
  for (const needle of ['@', 'http', 'www.']) {
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
      let start = at;
      while (start > 0 && !SPACE.test(text[start - 1]!)) start--;
      let end = at + 1;
      while (end < text.length && !SPACE.test(text[end]!)) end++;
      runs.push([start, end]);
      at = end - 1;
    }
  }
  if (runs.length === 0) return text;
  runs.sort((a, b) => a[0] - b[0]);
  let out = '';
  let last = 0;
  for (const [start, end] of runs) {
    if (start < last) continue; // the same run, found by another needle
    out += text.slice(last, start) + text.slice(start, end).replace(ADDRESS, ' ');
    last = end;
  }
  return out + text.slice(last);
}

/** Letters from which a token of letters alone is taken for words run together (German compounds stay below it). */
export const LONG_TOKEN_LETTERS = 20;

/**
 * Share 0..1 of the words of running text (code, mathematics, tables and addresses left out) that are a run of
 * LONG_TOKEN_LETTERS or more letters with a lower-case letter, or two words joined at a case change inside
 * ("SyntaxHelpers", "theTable"; identifiers in code spans are left out): spaces lost between words, which
 * a document's own vocabulary does not always show (issue 28: "a caption with every space lost"). Counted
 * once per distinct token, so that a long name used throughout counts once. 0 without words.
 */
export function longTokenRatio(markdown: string): number {
  // Words of running text: tokens with a letter, edge punctuation removed, each token's word worked out once
  // (ADR 0377). A token seen before was counted and its word judged then; only a new token can bring a new
  // word (ADR 0385: one pass, without the array of words and a second pass over it).
  const wordOf = new Map<string, string | null>();
  const seen = new Set<string>();
  let words = 0;
  let long = 0;
  for (const t of wordsOf(runningText(markdown))) {
    let w = wordOf.get(t);
    if (w === undefined) {
      const stripped = t.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
      wordOf.set(t, (w = /\p{L}/u.test(stripped) ? stripped : null));
      if (w !== null && !seen.has(w)) {
        seen.add(w);
        const letters = /^\p{L}+$/u.test(w);
        if (letters && /\p{Ll}/u.test(w) && [...w].length >= LONG_TOKEN_LETTERS) long++;
        else if (letters && /^\p{Lu}?\p{Ll}{3,}\p{Lu}\p{Ll}{3,}$/u.test(w)) long++;
      }
    }
    if (w !== null) words++;
  }
  return words ? round(long / words) : 0;
}

/**
 * Share 0..1 of the tables' body cells that are empty, in tables of two or more body rows: cells left empty
 * where a row's text went into a neighbouring cell or a spanning header's sub-columns were merged (columns
 * misaligned). Tables of the source do have empty cells; the share is what grows when columns are merged.
 * 0 without tables.
 */
export function emptyCellRatio(markdown: string): number {
  let cells = 0;
  let empty = 0;
  for (const table of gfmTables(markdown)) {
    if (table.length < 2) continue;
    for (const row of table) {
      cells += row.length;
      empty += row.filter((c) => c === '').length;
    }
  }
  return cells ? round(empty / cells) : 0;
}

/**
 * Share 0..1 of the running-text blocks that are fragments of one to three words, not a label or a caption
 * and not a closed sentence: text cut into pieces (a figure's or a table's words read as loose lines,
 * columns read across, lines never joined into paragraphs). 0 without running-text blocks.
 */
export function fragmentBlockRatio(markdown: string): number {
  let blocks = 0;
  let fragments = 0;
  for (const b of blocksOf(markdown)) {
    if (NOT_TEXT.test(b)) continue;
    blocks++;
    const n = lengthOf(b);
    if (n <= 3 && !LABEL.test(b) && !/[.!?。！？]$/.test(b)) fragments++;
  }
  return blocks ? round(fragments / blocks) : 0;
}

/**
 * A section number of the forms a numbered heading takes when it is left as text: two or more levels ("2.1",
 * "2.1.", "IV.1", "A.2") or one level closed by a dot ("3.").
 */
const DOTTED_NUMBER = /^(?:\d{1,2}(?:\.\d{1,2}){1,3}\.?|\d{1,2}\.|[IVX]{1,5}(?:\.\d{1,2}){1,3}\.?|[IVX]{1,5}\.|[A-Z](?:\.\d{1,2}){1,3}\.?)\s+(?=\S)/u;

/**
 * Share 0..1 of the numbered section titles the Markdown leaves as text (ADR 0376): single-line blocks that are
 * a dotted section number and a short title (up to 10 words, beginning with a capital, without closing
 * punctuation or a final number: "2.1 Class options", "3. Results"), whatever stands around them, of those and
 * the headings (two headings added to the count). `headingParagraphRatio` counts such a line only between a
 * closed block and running text of 10+ words; a title before a list, a table, a display or a short paragraph
 * is as much a heading missed. A block alone in Markdown's ordered-list syntax ("3. Results") is a heading the
 * converter took for a list of one item. Three or more such blocks in a row are a table of contents and do not
 * count. 0 when there is none.
 */
export function numberedLineRatio(markdown: string): number {
  let headings = 0;
  let lines = 0;
  // A run of three or more such lines in a row is a table of contents (an EPUB's has no page numbers), not
  // titles left in the text: only runs of one or two count.
  let run = 0;
  const close = (): void => {
    if (run <= 2) lines += run;
    run = 0;
  };
  for (const b of blocksOf(markdown)) {
    if (/^#{1,6}\s/.test(b)) {
      headings++;
      close();
      continue;
    }
    const m = b.includes('\n') ? null : DOTTED_NUMBER.exec(b);
    const title = m ? b.slice(m[0].length) : '';
    if (m && wordsOf(title).length <= 10 && /^\p{Lu}/u.test(title) && /\p{L}{3}/u.test(title) && !/[.!?;:,=]$/.test(title) && !/\d$/.test(title) && !LABEL.test(title)) run++;
    else close();
  }
  close();
  return lines ? round(lines / (headings + lines + 2)) : 0;
}

/** Single letters in a row from which running text is taken for letter-spaced words ("L E T T E R S"). */
export const LETTER_RUN = 4;

/**
 * Runs of LETTER_RUN or more single-letter tokens in running text (code, mathematics, tables and headings
 * left out), per 1000 words of it (ADR 0376): words set letter by letter that came out with a space between
 * every letter ("W e l c o m e", a title in spaced capitals, a caption whose glyph gaps all became spaces):
 * spurious spaces the document's own vocabulary cannot show (the word never occurs whole). Initials ("J. R. R.
 * Tolkien") carry a dot and do not count. 0 without words.
 */
export function letterRunRate(markdown: string): number {
  const text = runningText(markdown).replace(/^#{1,6}\s.*$/gm, ' ');
  const words = wordsOf(text);
  if (!words.length) return 0;
  let runs = 0;
  let run = 0;
  for (const w of words) {
    if (/^\p{L}$/u.test(w)) run++;
    else {
      if (run >= LETTER_RUN) runs++;
      run = 0;
    }
  }
  if (run >= LETTER_RUN) runs++;
  return round((1000 * runs) / words.length);
}

/** The inputs read from the Markdown at once, as the report stores them (ADRs 0356, 0366, 0376). */
export function markdownFaults(markdown: string): { headingParagraphRatio: number; proseHeadingRatio: number; proseCellRatio: number; looseRowRatio: number; longTokenRatio: number; emptyCellRatio: number; fragmentBlockRatio: number; numberedLineRatio: number; letterRunRate: number } {
  return sharingMarkdown(markdown, () => measureFaults(markdown));
}

function measureFaults(markdown: string): ReturnType<typeof markdownFaults> {
  return {
    headingParagraphRatio: headingParagraphRatio(markdown),
    proseHeadingRatio: proseHeadingRatio(markdown),
    proseCellRatio: proseCellRatio(markdown),
    looseRowRatio: looseRowRatio(markdown),
    longTokenRatio: longTokenRatio(markdown),
    emptyCellRatio: emptyCellRatio(markdown),
    fragmentBlockRatio: fragmentBlockRatio(markdown),
    numberedLineRatio: numberedLineRatio(markdown),
    letterRunRate: letterRunRate(markdown),
  };
}
