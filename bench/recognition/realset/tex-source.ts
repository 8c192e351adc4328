// Reading LaTeX source text: balanced groups and spaces, for the checks written from a document's source
// (tables.ts: tabular cells; equations.ts: macro definitions and their arguments).

/**
 * The balanced group starting at `s[at]`, which must be `open` (`{` by default, `[` for an optional
 * argument): its content and the index after it, or null. A backslash escapes the next character.
 */
export function group(s: string, at: number, open = '{', close = '}'): { text: string; end: number } | null {
  if (s[at] !== open) return null;
  let depth = 0;
  for (let k = at; k < s.length; k++) {
    const c = s[k]!;
    if (c === '\\') {
      k++;
      continue;
    }
    if (c === open) depth++;
    else if (c === close && --depth === 0) return { text: s.slice(at + 1, k), end: k + 1 };
  }
  return null;
}

/** The first index at or after `at` that is not white space. */
export const skipSpace = (s: string, at: number): number => {
  while (at < s.length && /\s/.test(s[at]!)) at++;
  return at;
};
