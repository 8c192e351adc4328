// What the report's measures read from one document's Markdown, made once while the report is built (ADR
// 0385): its blocks (split at blank lines), its GFM tables and its running text. Each measure made them
// for itself before (the blocks twice, the tables three times, over the whole Markdown each time).
// Nothing is kept after the report: outside `sharingMarkdown` every call makes its own.

/** The pieces of one Markdown made so far. */
interface Shared {
  readonly markdown: string;
  blocks?: readonly string[];
  tables?: readonly (readonly (readonly string[])[])[];
  running?: string;
}

let current: Shared | null = null;

/**
 * Runs `fn` with the pieces of `markdown` made at most once for every measure inside it that reads the same
 * Markdown. Nested calls for the same Markdown share the outer one's pieces.
 */
export function sharingMarkdown<T>(markdown: string, fn: () => T): T {
  if (current !== null && current.markdown === markdown) return fn();
  const outer = current;
  current = { markdown };
  try {
    return fn();
  } finally {
    current = outer;
  }
}

/** The piece `key` of `markdown`: the shared one while the report is built, else made by `make`. */
export function sharedPiece<K extends 'blocks' | 'tables' | 'running'>(markdown: string, key: K, make: (markdown: string) => NonNullable<Shared[K]>): NonNullable<Shared[K]> {
  const s = current;
  if (s === null || s.markdown !== markdown) return make(markdown);
  const have = s[key];
  if (have !== undefined) return have as NonNullable<Shared[K]>;
  const made = make(markdown);
  s[key] = made;
  return made;
}

/** The Markdown's blocks (separated by blank lines, trimmed), empty ones and blocks that are one comment left out. */
export const markdownBlocks = (markdown: string): readonly string[] => sharedPiece(markdown, 'blocks', splitBlocks);
const splitBlocks = (markdown: string): string[] =>
  markdown.split(/\n\s*\n/).map((b) => b.trim()).filter((b) => b && !/^<!--[\s\S]*-->$/.test(b));
