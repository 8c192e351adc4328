// Text repairs: spacing accents that TeX sets as separate glyphs are composed with their letter ("´e" ->
// "é") and a drop cap (one large capital beside the first lines of a paragraph) is joined to its word,
// both on lines before layout analysis; dot leaders (table-of-contents fillers) are reduced to one space in
// paragraph and list text after classification (the heading filter still needs to see them).
import type { LayoutLine, PageExtraction } from '../layout-model.js';

/** Spacing accent characters and the combining marks they stand for. */
const ACCENTS: Record<string, string> = {
  '\u00b4': '\u0301', // ´ acute
  '\u02ca': '\u0301',
  '\u02cb': '\u0300', // ˋ grave (the ASCII backtick is left alone: it quotes code far more often)
  '\u00a8': '\u0308', // ¨ diaeresis
  '\u02c6': '\u0302', // ˆ circumflex
  '\u02dc': '\u0303', // ˜ tilde
  '\u00b8': '\u0327', // ¸ cedilla
  '\u02c7': '\u030c', // ˇ caron
  '\u02d8': '\u0306', // ˘ breve
  '\u00af': '\u0304', // ¯ macron
  '\u02da': '\u030a', // ˚ ring
  '\u02d9': '\u0307', // ˙ dot above
};
const ACCENT_BEFORE_RE = /([´ˊˋ¨ˆ˜¸ˇ˘¯˚˙]) ?([A-Za-zıȷ])/g;
const CEDILLA_AFTER_RE = /([CcSsTt]) ?¸/g;
const ACCENT_TEST_RE = /[´ˊˋ¨ˆ˜¸ˇ˘¯˚˙]/;

/**
 * Composes a spacing accent printed before its letter (pdfTeX's `\'e` comes out as "´e" or "´ e") and a
 * cedilla after it into one precomposed letter where Unicode has one (otherwise the text stays as it
 * was); the dotless i/j take the accent as i/j.
 */
export function composeAccents(text: string): string {
  if (!ACCENT_TEST_RE.test(text)) return text;
  const compose = (letter: string, accent: string): string | null => {
    const base = letter === 'ı' ? 'i' : letter === 'ȷ' ? 'j' : letter;
    const c = (base + ACCENTS[accent]!).normalize('NFC');
    return c.length === 1 ? c : null;
  };
  return text
    .replace(ACCENT_BEFORE_RE, (m, accent: string, letter: string) => compose(letter, accent) ?? m)
    .replace(CEDILLA_AFTER_RE, (m, letter: string) => compose(letter, '\u00b8') ?? m);
}

/** Four or more dots (or middle dots, ellipses), spaced or not, between text: a leader. */
const LEADER_RE = /\s*(?:[.·․…]\s*){4,}(?=\S)/g;

/** Replaces dot leaders between text by one space ("Introduction . . . . . 1" -> "Introduction 1"). */
export function stripDotLeaders(text: string): string {
  if (!text.includes('....') && !text.includes('. . . .') && !text.includes('…') && !text.includes('·')) return text;
  return text.replace(LEADER_RE, (m, offset: number) => (offset === 0 ? '' : ' '));
}

/**
 * Joins drop caps: a line of one capital letter at least twice the size of the line right of it whose
 * vertical extent overlaps the first lines beside it; the letter is prefixed to the first of those lines
 * ("T" + "he letter arrived" -> "The letter arrived"; with a space when that line starts with a capital or
 * is a word of its own, as in "A" + "small town").
 */
function joinDropCaps(lines: readonly LayoutLine[]): readonly LayoutLine[] {
  const caps = lines.filter((l) => /^\p{Lu}$/u.test(l.text.trim()));
  if (caps.length === 0) return lines;
  const drop = new Set<LayoutLine>();
  const replaced = new Map<LayoutLine, LayoutLine>();
  for (const cap of caps) {
    const beside = lines
      .filter((l) => l !== cap && !drop.has(l) && l.x0 >= cap.x1 - 1 && l.x0 - cap.x1 <= 1.5 * l.size && l.y1 > cap.y0 && l.y0 < cap.y1 && cap.size >= 2 * l.size)
      .sort((a, b) => a.y0 - b.y0);
    const first = beside[0];
    if (!first || beside.length < 1) continue;
    const rest = (replaced.get(first) ?? first).text;
    const glue = /^\p{Ll}/u.test(rest) ? '' : ' ';
    replaced.set(first, { ...first, text: `${cap.text.trim()}${glue}${rest}`, x0: cap.x0 });
    drop.add(cap);
  }
  if (drop.size === 0) return lines;
  return lines.filter((l) => !drop.has(l)).map((l) => replaced.get(l) ?? l);
}

/** Applies the line repairs to every line of every page (monospaced lines keep their text as it is). */
export function repairText(pages: readonly PageExtraction[]): PageExtraction[] {
  return pages.map((p) => {
    let changed = false;
    let lines: readonly LayoutLine[] = p.lines.map((l) => {
      if (l.mono) return l;
      const text = composeAccents(l.text);
      if (text === l.text) return l;
      changed = true;
      // A run-in title's lead is repaired as its line is, so that the line still opens with it (ADR 0383).
      return l.lead !== undefined ? { ...l, text, lead: composeAccents(l.lead) } : { ...l, text };
    });
    const joined = joinDropCaps(lines);
    if (joined !== lines) {
      changed = true;
      lines = joined;
    }
    return changed ? { ...p, lines: [...lines] } : p;
  });
}
