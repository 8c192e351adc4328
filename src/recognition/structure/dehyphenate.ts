// Joining lines into paragraph text, with careful de-hyphenation: a line-end hyphen is removed only when
// the joined word is attested in the document (or nothing says otherwise), and kept when the hyphenated
// form is attested, the fragment is a prefix that takes a hyphen ("non-governmental", "self-attention")
// before a word the document uses on its own, or the continuation starts with a capital or digit
// ("COVID-19", "Pre-Digital").

import { collapseWhitespace } from './patterns.js';

/** Prefixes that normally keep their hyphen in English compounds. */
const HYPHEN_PREFIXES = new Set(['non', 'self', 'well', 'cross', 'half', 'ill', 'all', 'ex', 'quasi', 'semi', 'multi', 'co', 'anti', 'pre', 'post', 'state', 'end', 'real', 'long', 'short', 'high', 'low', 'fine', 'open', 'one', 'two', 'three', 'sub', 'inter', 'intra', 'meta', 'pseudo', 'over', 'under', 'first', 'second', 'third', 'top', 'in']);

const WORD_CHAR_RE = /^[\p{L}\p{N}]$/u;
const wordCache = new Map<number, boolean>();

/** Length in UTF-16 units (1 or 2) of the letter or digit at `i`, or 0 when it is neither. */
function wordCharLength(t: string, i: number): number {
  const c = t.charCodeAt(i);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) ? 1 : 0;
  const cp = c >= 0xd800 && c < 0xdc00 && i + 1 < t.length ? t.codePointAt(i)! : c;
  let yes = wordCache.get(cp);
  if (yes === undefined) {
    yes = WORD_CHAR_RE.test(String.fromCodePoint(cp));
    if (wordCache.size < 65_536) wordCache.set(cp, yes);
  }
  return yes ? (cp > 0xffff ? 2 : 1) : 0;
}

const CJK_RE = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;

/** Word forms of a document, to decide line-end hyphens. */
export class Vocabulary {
  readonly #words = new Set<string>();
  /** Adds every word (letters, digits, inner hyphens) of a text, lower-cased. */
  add(text: string): void {
    // Same words as matching /[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu over the lower-cased text, found with
    // one pass over char codes (ASCII decided inline, other code points by a cached property test): a
    // regular expression with Unicode property classes costs several times more per character.
    const t = text.toLowerCase();
    const n = t.length;
    let i = 0;
    while (i < n) {
      // Skip to the start of a word.
      let w = wordCharLength(t, i);
      if (w === 0) {
        i++;
        continue;
      }
      const start = i;
      let hyphen = false;
      for (;;) {
        i += w;
        while (i < n && (w = wordCharLength(t, i)) > 0) i += w;
        // A single hyphen followed by a word character continues the word.
        if (i + 1 < n && t.charCodeAt(i) === 45 && wordCharLength(t, i + 1) > 0) {
          hyphen = true;
          i++;
          w = wordCharLength(t, i);
          continue;
        }
        break;
      }
      const word = t.slice(start, i);
      this.#words.add(word);
      if (hyphen) for (const part of word.split('-')) this.#words.add(part);
    }
  }
  has(word: string): boolean {
    return this.#words.has(word.toLowerCase());
  }
  /** True when the hyphenated compound was seen inside a line (not only at a line break). */
  hasCompound(a: string, b: string): boolean {
    return this.#words.has(`${a}-${b}`.toLowerCase());
  }
}

/** Joins two consecutive lines of one paragraph. Only the tail of `prev` is examined (it may be long). */
export function joinLines(prev: string, next: string, vocab?: Vocabulary): string {
  let end = prev.length;
  while (end > 0 && isSpace(prev.charCodeAt(end - 1))) end--;
  const a = end === prev.length ? prev : prev.slice(0, end);
  let start = 0;
  while (start < next.length && isSpace(next.charCodeAt(start))) start++;
  const b = start === 0 ? next : next.slice(start);
  if (!a) return b;
  if (!b) return a;
  const last = a.charCodeAt(a.length - 1);
  // Soft hyphen (U+00AD) marks a discretionary break: always join.
  if (last === 0xad) return a.slice(0, -1) + b;
  if (last === 45) {
    const tail = a.slice(-80);
    const m = /([\p{L}]+)-$/u.exec(tail);
    if (m && !/[-–—]{2}$/.test(tail)) {
      const left = m[1]!;
      const rightM = /^([\p{L}]+)/u.exec(b);
      if (!rightM || !/^\p{Ll}/u.test(b)) return a + b; // "COVID-\n19", "Pre-\nDigital": keep the hyphen
      const right = rightM[1]!;
      const joined = left + right;
      if (vocab) {
        const compound = vocab.hasCompound(left, right);
        const word = vocab.has(joined);
        if (word && !compound) return a.slice(0, -1) + b;
        if (compound && !word) return a + b;
      }
      // A prefix keeps its hyphen unless the document never uses the rest as a word of its own ("inter-" over
      // "nally" is a broken "internally"; the vocabulary leaves out the first words of such lines).
      if (HYPHEN_PREFIXES.has(left.toLowerCase()) && (!vocab || vocab.has(right))) return a + b;
      return a.slice(0, -1) + b;
    }
  }
  if (CJK_RE.test(a[a.length - 1]!) && CJK_RE.test(b[0]!)) return a + b;
  return `${a} ${b}`;
}

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13 || c === 0xa0;

/**
 * Joins the lines of a paragraph: the same text as folding {@link joinLines} over them, in linear time.
 * Folding re-reads (and so flattens) the whole text joined so far at every line, which is quadratic in
 * the paragraph's length; joinLines only looks at the last 80 characters before a break once trailing
 * white space is gone, so each line's trailing white space is dropped first (the next join would drop it)
 * and older text is set aside in parts.
 */
export function joinParagraph(lines: readonly string[], vocab?: Vocabulary): string {
  const parts: string[] = [];
  let cur = '';
  for (const l of lines) {
    let end = l.length;
    while (end > 0 && isSpace(l.charCodeAt(end - 1))) end--;
    cur = joinLines(cur, end === l.length ? l : l.slice(0, end), vocab);
    if (cur.length > 1024) {
      parts.push(cur.slice(0, cur.length - 256));
      cur = cur.slice(cur.length - 256);
    }
  }
  parts.push(cur);
  return collapseWhitespace(parts.join('')).trim();
}
