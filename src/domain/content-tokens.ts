// Content tokens: the unit of `max_tokens` cuts and of document billing (interface, Documents:
// "returns exactly the first N content tokens"; "billing counts only the returned tokens").
//
// A content token is either a maximal run of letters, combining marks and digits (Unicode \p{L},
// \p{M}, \p{N}) or any single other non-whitespace character (punctuation, symbols). Whitespace is
// never a token. "Léa's 2.5-mm" has 8 tokens: Léa | ' | s | 2 | . | 5 | - | mm.
// The rule is language-independent and stable, so a cut is reproducible and billing is checkable.
//
// Characters (`max_chars`, `content_length`) are Unicode scalar values (code points), as in
// SnippetSource; a cut never splits a surrogate pair.

const TOKEN_RE = /[\p{L}\p{M}\p{N}]+|[^\s\p{L}\p{M}\p{N}]/gu;

/** Number of content tokens in `text`. */
export function countContentTokens(text: string): number {
  let n = 0;
  TOKEN_RE.lastIndex = 0;
  while (TOKEN_RE.exec(text) !== null) n++;
  return n;
}

/** The prefix of `text` that ends with its `n`-th content token (all of it when shorter). */
export function cutToTokens(text: string, n: number): { text: string; tokens: number } {
  if (n <= 0) return { text: '', tokens: 0 };
  TOKEN_RE.lastIndex = 0;
  let count = 0;
  let end = 0;
  let m: RegExpExecArray | null;
  while ((m = TOKEN_RE.exec(text)) !== null) {
    count++;
    end = m.index + m[0].length;
    if (count === n) return { text: text.slice(0, end), tokens: count };
  }
  return { text, tokens: count };
}

/** Length of `text` in Unicode scalar values. */
export function codePointLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** The first `n` Unicode scalar values of `text`. */
export function cutToCodePoints(text: string, n: number): string {
  if (n <= 0) return '';
  let count = 0;
  let i = 0;
  while (i < text.length && count < n) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
    count++;
  }
  return text.slice(0, i);
}
