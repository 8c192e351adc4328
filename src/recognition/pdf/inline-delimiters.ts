// Big delimiters and operators inside text lines (issue 28). TeX's extension font (CMEX and its kin) has no
// character mapping, so a `\bigl(`, a text-style `\sum` or a radical in running text reaches MuPDF's text
// layer as U+FFFD, which stayed in the text. Where the page's trace (`mutool draw -F trace`) is at hand, each
// such character is replaced by what the glyph at its place is named (`parenleftbig` -> `(`, `summationtext`
// -> `∑`), before the page's lines are built, so that the inline math and the plain text both read it.
import type { Box } from '../layout-model.js';
import { glyphTex, UNICODE_TEX, type MathGlyph } from '../structure/math-layout.js';
import type { StextPage } from './stext-parser.js';

const PLAIN: Readonly<Record<string, string>> = { '\\{': '{', '\\}': '}', '\\|': '‖', '\\backslash': '∖' };
/** LaTeX of a glyph back to one character, or null (accents, anything without a single character). */
const CHAR_OF: ReadonlyMap<string, string> = (() => {
  const m = new Map<string, string>(Object.entries(PLAIN));
  for (const [ch, tex] of Object.entries(UNICODE_TEX)) if (/^\\[A-Za-z]+$/.test(tex) && !m.has(tex) && [...ch].length === 1) m.set(tex, ch);
  return m;
})();

/** The character an unmapped glyph stands for, from its name; null when it has none. */
export function unmappedGlyphChar(g: MathGlyph): string | null {
  const t = glyphTex(g.font, g.glyph, '');
  if (!t || t.accent) return null;
  if ([...t.tex].length === 1) return t.tex;
  return CHAR_OF.get(t.tex) ?? null;
}

const unmapped = (g: MathGlyph): boolean => g.unicode === '' || g.unicode === '\uFFFD';

/**
 * The page with every U+FFFD of a text run outside `keepOut` (displays, rebuilt from the glyphs on their own)
 * replaced by the character of the traced glyph at its place. A run is changed only when its unmapped
 * glyphs and its U+FFFD characters are as many, so that each is matched in order; others stay as they were.
 */
export function mapUnmappedRuns(page: StextPage, glyphs: readonly MathGlyph[], keepOut: readonly Box[]): { page: StextPage; mapped: number; changedBlocks: number[] } {
  const pool = glyphs.filter(unmapped);
  if (!pool.length) return { page, mapped: 0, changedBlocks: [] };
  let mapped = 0;
  const changedBlocks: number[] = [];
  const blocks = (page.blocks ?? []).map((b, bi) => {
    const before = mapped;
    if (!b.lines?.some((l) => l.text?.includes('\uFFFD'))) return b;
    const lines = b.lines.map((l) => {
      const text = l.text ?? '';
      const bb = l.bbox;
      if (!bb || !text.includes('\uFFFD')) return l;
      const cx = bb.x + bb.w / 2;
      const cy = bb.y + bb.h / 2;
      if (keepOut.some((k) => cx >= k.x0 && cx <= k.x1 && cy >= k.y0 && cy <= k.y1)) return l;
      const mine = pool.filter((g) => (g.x0 + g.x1) / 2 >= bb.x - 1 && (g.x0 + g.x1) / 2 <= bb.x + bb.w + 1 && Math.min(g.y1, bb.y + bb.h) - Math.max(g.y0, bb.y) > 0).sort((a, c) => a.x0 - c.x0);
      const n = [...text].filter((c) => c === '\uFFFD').length;
      if (mine.length !== n) return l;
      let k = 0;
      let changed = 0;
      const out = [...text]
        .map((c) => {
          if (c !== '\uFFFD') return c;
          const ch = unmappedGlyphChar(mine[k++]!);
          if (ch === null) return c;
          changed++;
          return ch;
        })
        .join('');
      if (!changed) return l;
      mapped += changed;
      return { ...l, text: out };
    });
    if (mapped > before) changedBlocks.push(bi);
    return { ...b, lines };
  });
  return mapped ? { page: { ...page, blocks }, mapped, changedBlocks } : { page, mapped: 0, changedBlocks: [] };
}
