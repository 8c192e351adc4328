// Text patterns shared by the structure passes (lists, captions, numbering, references, equations).

/**
 * A bullet or enumerator at the start of a list item; group 1 is the marker. A glyph without a character
 * mapping (one or two U+FFFD) before the text is a dingbat bullet.
 */
export const LIST_MARKER_RE = /^([•◦▪▫●○■□☐☑☒❏❑‣⁃∙·►▶✓✔❖➢➤\-–—*\ue000-\uf8ff]|\ufffd{1,2}|\(?\d{1,3}[.)](?!\d)|\(?[a-z][.)]|\([ivx]{1,5}\)|[ivx]{1,5}\.)\s+(?=\S)/;

/** Markers that make a list ordered. */
export const ORDERED_MARKER_RE = /^\(?(\d{1,3}|[a-z]|[ivx]{1,5})[.)]/;

/** Figure/table captions: "Figure 3.", "Fig. 2:", "Table 1", "Listing 2", "Algorithm 1". */
export const CAPTION_RE = /^(fig(?:ure)?\.?|table|tab\.|listing|algorithm|chart|scheme|plate|exhibit|graph)\s*(?:[A-Z]?\d+(?:[.-]\d+)*|[IVX]+)\s*[.:|—–-]?(\s|$)/i;

/** Section numbering: "1", "1.2", "1.2.3", "A.1", "IV." followed by a title. Group 1 is the number. */
export const SECTION_NUMBER_RE = /^((?:\d{1,2}|[A-Z])(?:\.\d{1,2}){0,4}\.?|[IVX]{1,5}\.)\s+(?=\p{L})/u;

/** Headings that open the references section. */
export const REFERENCES_HEADING_RE = /^(?:\d+\.?\s*)?(references|bibliography|works cited|literature cited|literatur(?:verzeichnis)?|références|referencias|cited works)$/i;

/** Characters typical of mathematics set as text. */
const MATH_CHARS = /[=+−×÷±∑∏∫√∂∇∞≈≠≤≥∈∉⊂⊆∪∩∀∃→←↔⇒⇔αβγδεζηθικλμνξπρστυφχψωΓΔΘΛΞΠΣΦΨΩ^_|]/g;

/** True when a short text reads like a displayed equation rather than prose. */
export function looksLikeEquation(text: string): boolean {
  const t = text.trim();
  if (t.length < 3 || t.length > 300) return false;
  const math = (t.match(MATH_CHARS) ?? []).length;
  const words = (t.match(/\p{L}{4,}/gu) ?? []).length;
  const tokens = t.split(/\s+/).length;
  return math >= 2 && words <= Math.max(1, tokens * 0.2) && /=|≤|≥|≈|∑|∫/.test(t);
}

/** Terminal punctuation that ends a sentence (or a heading that is really a sentence). */
export const SENTENCE_END_RE = /[.!?:;。！？]["'”’)\]]?$/;

const WHITESPACE_TO_COLLAPSE = /\s\s|[^\S ]/;
const WHITESPACE_RUNS = /\s{2,}|[^\S ]/g;

/**
 * `s.replace(/\s+/g, ' ')` without replacing every single space by a space: only runs of two or more
 * white-space characters and single ones other than U+0020 are rewritten (about three times faster on
 * line and paragraph text, which is mostly single spaces).
 */
export function collapseWhitespace(s: string): string {
  return WHITESPACE_TO_COLLAPSE.test(s) ? s.replace(WHITESPACE_RUNS, ' ') : s;
}

const LETTER_RE = /^\p{L}$/u;
/** \p{L} per UTF-16 code unit, filled on first use: 0 unknown, 1 not a letter, 2 a letter. */
const bmpLetters = new Uint8Array(0x10000);
const astralLetters = new Map<number, boolean>();

/**
 * Whether a code point is a letter (\p{L}), cached: the statistics passes test every non-ASCII character of
 * a document, and a regular expression test per character (with a string made for it) dominates them on
 * non-Latin text. A lone surrogate (a code unit tested alone) is not a letter, as with the expression.
 */
export function isLetterCode(cp: number): boolean {
  if (cp < 128) return (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122);
  if (cp < 0x10000) {
    let v = bmpLetters[cp]!;
    if (v === 0) {
      v = LETTER_RE.test(String.fromCharCode(cp)) ? 2 : 1;
      bmpLetters[cp] = v;
    }
    return v === 2;
  }
  let yes = astralLetters.get(cp);
  if (yes === undefined) {
    yes = LETTER_RE.test(String.fromCodePoint(cp));
    astralLetters.set(cp, yes);
  }
  return yes;
}

/** True for the characters `\s` matches (ECMA-262 WhiteSpace and LineTerminator). */
export function isSpaceCode(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** Number of UTF-16 code units of `text` that are not white space (as `text.replace(/\s/g, '').length`). */
export function nonSpaceLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (!isSpaceCode(text.charCodeAt(i))) n++;
  return n;
}
