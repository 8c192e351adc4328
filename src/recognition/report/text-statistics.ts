// Text statistics of the converted document (see TextStatistics in quality-report.ts for definitions).
import type { TextStatistics } from './quality-report.js';
import { guessLanguage } from './language-guess.js';
import { isLetterCode } from '../structure/patterns.js';
import { markdownBlocks, sharedPiece } from './shared-markdown.js';

/** Strips Markdown markup that is not text: page markers and other comments, heading marks, fences, table rules. */
export function plainText(markdown: string): string {
  return markdown
    // Unreadable runs folded into a comment still count as the garbage characters they were.
    .replace(/<!-- unreadable text: (\d+) characters -->/g, (_, n: string) => '\ufffd'.repeat(Math.min(Number(n), 1_000_000)))
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/^#{1,6}\s+/gm, '')
    .replace(/^(```|~~~~?).*$/gm, '')
    .replace(/^\|?(\s*:?-{3,}:?\s*\|)+\s*$/gm, '')
    .replace(/^\s*[-*+]\s+/gm, '')
    .replace(/\|/g, ' ')
    .replace(/\[\^(\w+)\]:/g, '$1');
}

const LETTER = /\p{L}/u;

const isGarbage = (cp: number): boolean =>
  cp === 0xfffd || (cp >= 0xe000 && cp <= 0xf8ff) || cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp >= 0xf0000 || (cp >= 0x25a0 && cp <= 0x25ff && cp !== 0x25cf);

/**
 * Computes the statistics of a plain text; `markdown`, the text before its markup was removed, gives the
 * paragraph structure (`brokenParagraphRatio` is 0 without it).
 */
export function textStatistics(text: string, markdown?: string): TextStatistics {
  let characters = 0;
  let garbage = 0;
  let letters = 0;
  let digits = 0;
  let rtl = 0;
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    if (cp >= 0xd800 && cp < 0xdc00 && i + 1 < text.length) {
      cp = text.codePointAt(i)!;
      i++;
    }
    if (cp === 32 || cp === 10 || cp === 9 || cp === 13 || cp === 0xa0 || cp === 0x3000 || (cp >= 0x2000 && cp <= 0x200b)) continue;
    characters++;
    if (isGarbage(cp)) garbage++;
    if (cp >= 0x30 && cp <= 0x39) digits++;
    const isLetter = isLetterCode(cp);
    if (isLetter) {
      letters++;
      if ((cp >= 0x0590 && cp <= 0x08ff) || (cp >= 0xfb1d && cp <= 0xfdff) || (cp >= 0xfe70 && cp <= 0xfeff)) rtl++;
    }
  }
  const tokens = text.split(/\s+/).filter(Boolean);
  // Lower-casing never adds or removes white space, so the lower-cased text splits into the same tokens.
  const lowered = text.toLowerCase().split(/\s+/).filter(Boolean);
  let single = 0;
  let worded = 0;
  let odd = 0;
  for (const t of tokens) {
    if ((t.length === 1 || (t.length === 2 && t.codePointAt(0)! > 0xffff)) && LETTER.test(t)) single++;
    const shape = tokenShape(t);
    if (shape !== 0) worded++;
    if (shape === 2) odd++;
  }
  return {
    characters,
    words: tokens.length,
    garbageRatio: round(characters ? garbage / characters : 0),
    letterRatio: round(characters ? letters / characters : 0),
    digitRatio: round(characters ? digits / characters : 0),
    brokenParagraphRatio: markdown === undefined ? 0 : brokenParagraphRatio(markdown),
    singleCharTokenRatio: round(tokens.length ? single / tokens.length : 0),
    oddTokenRatio: round(worded ? odd / worded : 0),
    spacingFaultRatio: round(worded ? spacingFaults(lowered) / worded : 0),
    ...(markdown === undefined ? {} : { brokenEquationRatio: brokenEquationRatio(markdown), mergedCellRatio: mergedCellRatio(markdown) }),
    longestRepeatedNgram: longestRepeat(tokens, lowered.length === tokens.length ? lowered : undefined),
    language: guessLanguage(text.length > 50_000 ? text.slice(0, 50_000) : text),
    rtlRatio: round(letters ? rtl / letters : 0),
  };
}

const round = (x: number): number => Math.round(x * 10000) / 10000;

/** LaTeX tokens of a display: control words and symbols, and single characters other than spaces and braces. */
const LATEX_TOKEN = /\\(?:[A-Za-z]+|.)|[^\s{}]/gu;
/** A placeholder or replacement character where a glyph could not be mapped. */
const PLACEHOLDER = /[\ufffd\u25a0-\u25ff\ue000-\uf8ff]/u;

/**
 * Share 0..1 of the displayed equations (`$$...$$`) that are broken (issue 28, ADR 0339): a fragment of at
 * most two LaTeX tokens (`$$\sum$$`, `$$x$$`: one equation emitted as several displays), a placeholder or
 * replacement character (a glyph that mapped to nothing), or unbalanced braces. 0 without displays.
 */
export function brokenEquationRatio(markdown: string): number {
  let displays = 0;
  let broken = 0;
  for (const m of markdown.matchAll(/\$\$([\s\S]*?)\$\$/g)) {
    const body = m[1]!;
    displays++;
    const tokens = body.match(LATEX_TOKEN)?.length ?? 0;
    let depth = 0;
    let balanced = true;
    for (const c of body.replace(/\\[{}]/g, '')) {
      if (c === '{') depth++;
      else if (c === '}' && --depth < 0) balanced = false;
    }
    if (tokens <= 2 || PLACEHOLDER.test(body) || !balanced || depth !== 0) broken++;
  }
  return round(displays ? broken / displays : 0);
}

const NUMBER = /^[(+\-\u2212]?[$\u20ac\u00a3]?\d[\d,.]*%?\)?$/u;

/**
 * Share 0..1 of the table cells holding a number that hold two or more numbers apart (issue 28, ADR 0339):
 * "12.5 13.7" in one cell is two columns merged, as sub-columns under a spanning header or an unruled table
 * read with too few columns become. Body rows of GFM tables; 0 without such cells.
 */
export function mergedCellRatio(markdown: string): number {
  let numeric = 0;
  let merged = 0;
  for (const row of gfmTableRows(markdown)) {
    for (const cell of row) {
      const n = cell.split(/\s+/).filter((w) => NUMBER.test(w)).length;
      if (n === 0) continue;
      numeric++;
      if (n >= 2) merged++;
    }
  }
  return round(numeric ? merged / numeric : 0);
}

/** Rows of the GFM tables: body rows, cells split (escaped bars kept). */
export function gfmTableRows(markdown: string): (readonly string[])[] {
  return gfmTables(markdown).flat();
}

/** The GFM tables' body rows, one array per table, cells split (escaped bars kept). */
export function gfmTables(markdown: string): readonly (readonly (readonly string[])[])[] {
  return sharedPiece(markdown, 'tables', splitTables);
}

function splitTables(markdown: string): string[][][] {
  const tables: string[][][] = [];
  let current: string[][] | null = null;
  for (const line of markdown.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('|')) {
      current = null;
      continue;
    }
    if (/^\|?(\s*:?-{3,}:?\s*\|)+\s*$/.test(t)) {
      current = [];
      tables.push(current);
      continue;
    }
    if (current) current.push(t.replace(/^\||\|$/g, '').split(/(?<!\\)\|/).map((c) => c.trim()));
  }
  return tables;
}

const WORD_ONLY = /^\p{Ll}+$/u;
const EDGE_PUNCT = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

const isAsciiAlnum = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a);

/**
 * A token without its leading and trailing punctuation and symbols (EDGE_PUNCT removed). Most tokens
 * start and end with an ASCII letter or digit and are returned as they are, without running the regex.
 */
function stripEdges(t: string): string {
  if (t.length > 0 && isAsciiAlnum(t.charCodeAt(0)) && isAsciiAlnum(t.charCodeAt(t.length - 1))) return t;
  return t.replace(EDGE_PUNCT, '');
}

/** WORD_ONLY.test(w): only lower-case letters; decided without the regex when the word is ASCII. */
function isLowerWord(w: string): boolean {
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c >= 0x80) return WORD_ONLY.test(w);
    if (c < 0x61 || c > 0x7a) return false;
  }
  return w.length > 0;
}

/**
 * Word tokens that show a lost or spurious space, judged from the document's own vocabulary (ADR 0290):
 * two neighbouring lower-case tokens, one of them seen only once, whose join is a word the document uses
 * elsewhere ("nov ember" where "november" occurs), count as a split word; a token seen once, of 10 or more
 * letters, that falls apart into three or more words the document uses at least three times each ("ofthesame"),
 * or into two of its hundred most frequent words, counts as words run together. Tokens are lower-cased.
 */
export function spacingFaults(tokens: readonly string[]): number {
  const words = tokens.map(stripEdges);
  const count = new Map<string, number>();
  for (const w of words) if (w && isLowerWord(w)) count.set(w, (count.get(w) ?? 0) + 1);
  // The hundred most frequent words are needed only for a run-together token that splits in two: sorted
  // on first use (most documents have none).
  let topSet: Set<string> | null = null;
  const top = (): Set<string> => (topSet ??= new Set([...count].sort((a, b) => b[1] - a[1]).slice(0, 100).map(([w]) => w)));
  const known = (w: string): boolean => (count.get(w) ?? 0) >= 3;
  let faults = 0;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const n = count.get(w);
    if (n === undefined) continue;
    const next = words[i + 1];
    // A split word: the token ends where the next one starts (no punctuation between them).
    if (next && count.has(next) && tokens[i] === w && (n === 1 || count.get(next) === 1) && (count.get(w + next) ?? 0) >= 1) {
      faults++;
      i++;
      continue;
    }
    if (n === 1 && w.length >= 10 && w.length <= 60) {
      const parts = segment(w, known);
      if (parts !== null && (parts >= 3 || (parts === 2 && splitsInto(w, top())))) faults++;
    }
  }
  return faults;
}

/** The fewest words (each known, 2+ letters) a string falls into; null when it does not. */
function segment(w: string, known: (s: string) => boolean): number | null {
  const best = new Array<number>(w.length + 1).fill(Infinity);
  best[0] = 0;
  for (let j = 2; j <= w.length; j++) for (let i = Math.max(0, j - 20); i <= j - 2; i++) if (best[i]! + 1 < best[j]! && known(w.slice(i, j))) best[j] = best[i]! + 1;
  return Number.isFinite(best[w.length]) ? best[w.length]! : null;
}

/** Whether a string is two words of a set. */
function splitsInto(w: string, set: ReadonlySet<string>): boolean {
  for (let i = 2; i <= w.length - 2; i++) if (set.has(w.slice(0, i)) && set.has(w.slice(i))) return true;
  return false;
}

const isUpper = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0xc0 && c <= 0xde && c !== 0xd7);
const isLower = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0xdf && c <= 0xff && c !== 0xf7);
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
/** Characters that may stand inside a word: hyphens, apostrophes, a full stop (abbreviations, numbers), a slash. */
const isJoiner = (c: number): boolean => c === 0x2d || c === 0x27 || c === 0x2019 || c === 0x2e || c === 0x2f || c === 0x2010 || c === 0x2011 || c === 0xb7;

/**
 * The shape of a whitespace-separated token: 0 without a letter (numbers, symbols), 2 for a word of an odd
 * shape that OCR noise and wrongly mapped glyphs make ("tHe", "wa,ter", "l0ng", "re|ease"): a lower-case
 * letter followed by a capital, digits between lower-case letters, or punctuation and symbols inside the
 * word (leading and trailing punctuation are ignored); 1 for any other word. Case and digits are checked in
 * Latin letters only.
 */
export function tokenShape(t: string): 0 | 1 | 2 {
  let start = 0;
  let end = t.length;
  // Strip leading and trailing punctuation, brackets, quotes and symbols.
  while (start < end && !isLetterCode(t.charCodeAt(start)) && !isDigit(t.charCodeAt(start))) start++;
  while (end > start && !isLetterCode(t.charCodeAt(end - 1)) && !isDigit(t.charCodeAt(end - 1))) end--;
  let letters = 0;
  let oddInside = false;
  let caseFlip = false;
  // Units, ordinals and identifiers mix letters and digits legitimately (10th, 5kg, H2O, COVID-19): only
  // digits between lower-case letters count ("l0ng", "wa5h").
  let mixed = false;
  let prevLower = false;
  /** 1 after a lower-case letter and digits, 0 otherwise. */
  let lowerDigits = 0;
  for (let i = start; i < end; i++) {
    const c = t.charCodeAt(i);
    if (isLetterCode(c)) {
      letters++;
      const lower = isLower(c);
      if (prevLower && isUpper(c)) caseFlip = true;
      if (lowerDigits === 1 && lower) mixed = true;
      prevLower = lower;
      lowerDigits = 0;
    } else if (isDigit(c)) {
      if (prevLower) lowerDigits = 1;
      prevLower = false;
    } else {
      if (!isJoiner(c) && !(c >= 0xd800 && c <= 0xdfff) && !(c >= 0x300 && c <= 0x36f)) oddInside = true;
      prevLower = false;
      lowerDigits = 0;
    }
  }
  if (letters === 0) return 0;
  return caseFlip || oddInside || mixed ? 2 : 1;
}

/** A paragraph's last character(s) that close a sentence (or a caption-like label's colon). */
const CLOSED_RE = /[.!?:;。！？…)\]"'”’»]$/;
/** Markdown blocks that are not running paragraphs: headings, tables, lists, code, quotes, comments, math, footnotes. */
const NOT_PARAGRAPH_RE = /^(?:#{1,6}\s|\||[-*+]\s|\d{1,3}[.)]\s|```|~~~|>|<!--|\$\$|\[\^)/;

/**
 * Share 0..1 of the Markdown's paragraphs (three words or more) that stop mid-sentence (no closing
 * punctuation) while the next block is another paragraph: text cut by page furniture left in, by columns or
 * blocks read in the wrong order, or lines that never joined into paragraphs. Well-converted prose scores
 * near 0; labels and captions without a full stop account for the rest.
 */
export function brokenParagraphRatio(markdown: string): number {
  const blocks = markdownBlocks(markdown);
  let paragraphs = 0;
  let broken = 0;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i]!;
    if (NOT_PARAGRAPH_RE.test(b) || b.split(/\s+/).length < 3) continue;
    paragraphs++;
    const next = blocks[i + 1];
    if (next && !NOT_PARAGRAPH_RE.test(next) && !CLOSED_RE.test(b)) broken++;
  }
  return paragraphs ? round(broken / paragraphs) : 0;
}

/**
 * Longest word n-gram (n <= 200) occurring at least twice, found by binary search on n (if an n-gram
 * repeats, so does an (n-1)-gram) with a rolling hash per n (Karp-Rabin): O(words x log 200).
 * `lowered` may pass the tokens already lower-cased (one `toLowerCase` of the whole text is cheaper
 * than one per token); it must align with `tokens`.
 */
export function longestRepeat(tokens: readonly string[], lowered?: readonly string[]): TextStatistics['longestRepeatedNgram'] {
  const len = tokens.length;
  // Each word is represented by a 32-bit FNV-1a hash of its lower-cased form (a loop over char codes is
  // several times cheaper than interning 10 000 fresh strings in a Map); equal hashes are confirmed on
  // the words themselves, so a hash collision never makes two different n-grams equal.
  const low = lowered ?? tokens.map((t) => t.toLowerCase());
  const seq = new Int32Array(len);
  for (let i = 0; i < len; i++) {
    const w = low[i]!;
    let h = 0x811c9dc5 | 0;
    for (let k = 0; k < w.length; k++) h = Math.imul(h ^ w.charCodeAt(k), 0x01000193);
    seq[i] = h;
  }
  const B1 = 1_000_003;
  const B2 = 998_244_353 % 65_521;
  const same = (a: number, b: number, n: number): boolean => {
    for (let k = 0; k < n; k++) if (seq[a + k] !== seq[b + k] || low[a + k] !== low[b + k]) return false;
    return true;
  };
  // Hash keys of every n-gram, rolled (Karp-Rabin with two bases packed into one 30-bit integer, a fast
  // Map key and table slot); equal keys are confirmed word by word. keys[s] is the n-gram starting at s.
  const keysOf = new Int32Array(len);
  const hashAll = (n: number): number => {
    let p1 = 1;
    let p2 = 1;
    for (let i = 0; i < n - 1; i++) {
      p1 = Math.imul(p1, B1) | 0;
      p2 = Math.imul(p2, B2) | 0;
    }
    let h1 = 0;
    let h2 = 0;
    for (let i = 0; i < len; i++) {
      if (i >= n) {
        h1 = (h1 - Math.imul(seq[i - n]!, p1)) | 0;
        h2 = (h2 - Math.imul(seq[i - n]!, p2)) | 0;
      }
      h1 = (Math.imul(h1, B1) + seq[i]!) | 0;
      h2 = (Math.imul(h2, B2) + seq[i]!) | 0;
      if (i >= n - 1) keysOf[i - n + 1] = (h1 ^ Math.imul(h2, 0x9e3779b1)) & 0x3fffffff;
    }
    return len - n + 1;
  };
  // Does some n-gram occur twice without overlap? An open-addressing table of typed arrays (first start
  // + 1 per slot) avoids Map overhead on long documents.
  const size = 1 << Math.ceil(Math.log2(Math.max(16, len * 2)));
  const mask = size - 1;
  const keys = new Int32Array(size);
  const firsts = new Int32Array(size);
  /** The slot holding `key`, or the empty slot where it goes (firsts[slot] === 0). */
  const slotOf = (key: number): number => {
    let slot = key & mask;
    while (firsts[slot] !== 0 && keys[slot] !== key) slot = (slot + 1) & mask;
    return slot;
  };
  const exists = (n: number): boolean => {
    if (n > len) return false;
    firsts.fill(0);
    const count = hashAll(n);
    for (let start = 0; start < count; start++) {
      const key = keysOf[start]!;
      const slot = slotOf(key);
      const f = firsts[slot]!;
      if (f === 0) {
        keys[slot] = key;
        firsts[slot] = start + 1;
      } else if (start >= f - 1 + n && same(f - 1, start, n)) return true;
    }
    return false;
  };
  let lo = 1;
  let hi = Math.min(200, len);
  let bestN = 0;
  // Gallop up from 16 words (documents typically repeat 5-40 words: a reference, a caption, a running
  // line) before bisecting: a pass that finds nothing reads every n-gram, a pass that finds one stops
  // early, and starting at 100 spent three full passes on 100, 50 and 25.
  let probe = Math.min(16, hi);
  while (lo <= hi) {
    if (!exists(probe)) {
      hi = probe - 1;
      break;
    }
    bestN = probe;
    lo = probe + 1;
    probe = Math.min(probe * 2, hi);
    if (probe < lo) break;
  }
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (exists(mid)) {
      bestN = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  let best: { n: number; start: number; count: number } | null = null;
  if (bestN > 0) {
    // Occurrences (without overlap) per distinct key, in the same typed table: first start + 1, count, last start.
    const counts = new Int32Array(size);
    const lasts = new Int32Array(size);
    firsts.fill(0);
    const count = hashAll(bestN);
    for (let start = 0; start < count; start++) {
      const key = keysOf[start]!;
      const slot = slotOf(key);
      const f = firsts[slot]!;
      if (f === 0) {
        keys[slot] = key;
        firsts[slot] = start + 1;
        counts[slot] = 1;
        lasts[slot] = start;
      } else if (start >= lasts[slot]! + bestN && same(f - 1, start, bestN)) {
        // Same key as the first n-gram that had it: counted when it is the same words and does not overlap.
        counts[slot] = counts[slot]! + 1;
        lasts[slot] = start;
        if (!best || counts[slot]! > best.count) best = { n: bestN, start: f - 1, count: counts[slot]! };
      }
    }
  }
  const b = best as { n: number; start: number; count: number } | null;
  if (!b) return null;
  return { words: b.n, occurrences: b.count, sample: tokens.slice(b.start, b.start + Math.min(b.n, 12)).join(' ') };
}
