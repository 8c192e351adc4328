// Word spaces of left-to-right text judged from the glyphs' own advances (ADR 0290). MuPDF's JSON writer
// decides spaces with one fixed rule (a gap of more than 0.15 em after the previous glyph's advance), which
// splits letter-spaced or glyph-by-glyph positioned text into "W e w r o t e" and drops every space of a
// caption whose words are placed one by one with gaps under 0.15 em ("Figure2:resultsofthecaption").
// Pages that show either symptom are read again from MuPDF's XML, whose character quads are as wide as
// each glyph's advance in its font (the font's /Widths), and each line's spaces are decided here from the
// gaps between those advances, relative to the font's space width and the line's own letter spacing.
import type { LayoutLine } from '../layout-model.js';

/** One glyph of a font run, in visual order: its advance box and the characters it maps to. */
export interface Glyph {
  readonly x0: number;
  readonly x1: number;
  readonly c: string;
}

/** Unicode ligature presentation forms (ff, fi, fl, ffi, ffl, long st, st). */
const LIGATURE_RE = /[\ufb00-\ufb06]/;
/** Quads narrower than this (points) are the extra characters of a glyph that maps to several (a ligature). */
const ZERO = 0.01;

/**
 * The width of a space in a font, in ems: the median advance of the font's space characters on the page
 * when it draws any of plausible width (0.2-0.6 em; MuPDF's own inserted spaces are as wide as the gap
 * they fill and are mostly narrower), else half its mean glyph advance (a font with no space glyph, as
 * in text positioned word by word, whose spaces stext-xml.ts leaves out when the font's /Widths show it
 * has none), bounded to 0.2-0.4 em.
 */
export function spaceWidthEm(spaceEms: readonly number[], advanceEms: readonly number[]): number {
  const plausible = spaceEms.filter((w) => w >= 0.2 && w <= 0.6).sort((a, b) => a - b);
  if (plausible.length) return plausible[plausible.length >> 1]!;
  const mean = advanceEms.length ? advanceEms.reduce((a, b) => a + b, 0) / advanceEms.length : 0.5;
  return Math.min(0.4, Math.max(0.2, mean / 2));
}

/**
 * The text of one left-to-right font run with its word spaces decided from the glyph gaps. The space
 * characters the extractor wrote are dropped (their width counts as gap); between two glyphs the gap is
 * the next glyph's start minus the previous glyph's advance end. The line's letter spacing is the median
 * gap (0 for ordinary text, the tracking for letter-spaced text), left out the gaps that hold a space glyph
 * of the font's own width (ADR 0374: in a row of letters set apart by spaces every gap is one); a gap is a word space when it exceeds
 * that by more than 0.1 em and 35% of the font's space width. A negative or kerning-sized gap (a kerned
 * pair) is never a space; after a ligature glyph (whose advance may not match its drawn width) the gap
 * must exceed 80% of a space. `ownEm` is the advance of the font's space glyph from its /Widths (ADR 0374
 * amendment): null when the font has none, so that every space MuPDF wrote is one it inserted into a gap
 * and none sets its gap apart (letter-spaced small capitals in such a font read "Introduction", not
 * "I n t r o d u c t i o n"); a number when known, and a gap that holds a space glyph of that advance
 * (within 5%) is a word space; undefined when unknown, then the page's space width `spaceEm` stands in.
 */
export function spacedText(glyphs: readonly Glyph[], size: number, spaceEm: number, ownEm?: number | null): string {
  const gaps: number[] = [];
  // Gaps that hold a space glyph as wide as the font's own space (within 15%): word gaps whatever their
  // number. A row of letters set apart by spaces ("A B C D ...", a type specimen) has nothing but such gaps,
  // and their median is no letter spacing (ADR 0374).
  const spaced: number[] = [];
  const own = ownEm === null ? Number.NaN : (ownEm ?? spaceEm) * size;
  // Glyphs after a space glyph of the advance the font's /Widths give it: the PDF drew a space there, a
  // word space whatever the line's letter spacing (dot leaders' wide gaps make its median no letter gap).
  const drawn = new Set<Glyph>();
  let end = Number.NaN;
  let space = false;
  for (const g of glyphs) {
    if (g.c.trim() === '') {
      // A space glyph's box is its advance; from the /Widths that is exact (5%), from the page's spaces a median (15%).
      if (Math.abs(g.x1 - g.x0 - own) <= (ownEm === undefined ? 0.15 : 0.05) * own) space = true;
      continue;
    }
    if (g.x1 - g.x0 < ZERO) continue;
    if (!Number.isNaN(end)) (space ? spaced : gaps).push(g.x0 - end);
    if (space && typeof ownEm === 'number') drawn.add(g);
    end = g.x1;
    space = false;
  }
  const sorted = [...gaps].sort((a, b) => a - b);
  // Too few gaps say nothing about letter spacing (the median of "a b" would be its word gap); with the
  // word gaps told by their space glyphs, the gaps left are letter gaps, however few.
  const letter = sorted.length >= 5 || (spaced.length > 0 && sorted.length > 0) ? Math.max(0, sorted[(sorted.length - 1) >> 1]!) : 0;
  const ink = glyphs.filter((g) => g.c.trim() !== '');
  const word = letter + Math.max(0.1 * size, 0.35 * spaceEm * size);
  const afterLigature = letter + 0.8 * spaceEm * size;
  // A space at either end of the run stays: it separates this run from the next font's run, whose gap
  // the line builder judges from boxes that include it.
  let text = glyphs.length && glyphs[0]!.c.trim() === '' ? ' ' : '';
  end = Number.NaN;
  let ligature = false;
  for (const g of ink) {
    if (g.x1 - g.x0 < ZERO) {
      // A further character of the previous glyph (a ligature mapped to several characters).
      text += g.c;
      ligature = true;
      continue;
    }
    if (!Number.isNaN(end)) {
      const gap = g.x0 - end;
      if (drawn.has(g) || gap > (ligature ? afterLigature : word)) text += ' ';
    }
    text += g.c;
    end = g.x1;
    ligature = LIGATURE_RE.test(g.c);
  }
  return glyphs.length > 1 && glyphs[glyphs.length - 1]!.c.trim() === '' && text.trim() ? `${text} ` : text;
}

/**
 * Accent glyphs as fonts map them, ASCII look-alikes included (OT1 TeX fonts map the grave accent to "`",
 * the circumflex to "^", the tilde to "~"), and the combining marks they stand for.
 */
const ACCENT_MARKS: Record<string, string> = {
  '`': '\u0300', '\u02cb': '\u0300', '\u00b4': '\u0301', '\u02ca': '\u0301',
  '^': '\u0302', '\u02c6': '\u0302', '~': '\u0303', '\u02dc': '\u0303', '\u00a8': '\u0308',
  '\u02c7': '\u030c', '\u02d8': '\u0306', '\u00af': '\u0304', '\u02da': '\u030a', '\u02d9': '\u0307',
};
const ACCENTABLE = /^[A-Za-z\u0131\u0237]$/;

/** Whether a glyph is an accent drawn on its own: one of ACCENT_MARKS', or a cedilla or double acute. */
export function isAccentGlyph(c: string): boolean {
  return ACCENT_MARKS[c] !== undefined || c === '\u00b8' || c === '\u02dd';
}

/**
 * Where an accent glyph is set over a letter rather than beside it (ADR 0374, accents): TeX's `\accent`
 * draws the accent of an OT1 font as a glyph of its own, moved back over its letter by a kern, so its
 * advance box covers at least half of the letter's, where a backtick or caret of running text (code,
 * quotes) has its own advance and the next glyph starts at its end. Returns, for each index of
 * `glyphs` (ink glyphs in visual order) that is such an accent, the index of its letter and the composed
 * letter (NFC; none when Unicode has no precomposed form).
 */
export function accentsOverLetters(glyphs: readonly Glyph[]): Map<number, { letter: number; composed: string }> {
  const out = new Map<number, { letter: number; composed: string }>();
  const used = new Set<number>();
  for (let i = 0; i < glyphs.length; i++) {
    const a = glyphs[i]!;
    const mark = ACCENT_MARKS[a.c];
    if (!mark || a.x1 - a.x0 < ZERO) continue;
    let best = -1;
    let bestOverlap = 0;
    for (const j of [i + 1, i - 1]) {
      const l = glyphs[j];
      if (!l || used.has(j) || out.has(j) || !ACCENTABLE.test(l.c) || l.x1 - l.x0 < ZERO) continue;
      const overlap = Math.min(a.x1, l.x1) - Math.max(a.x0, l.x0);
      if (overlap >= 0.5 * Math.min(a.x1 - a.x0, l.x1 - l.x0) && overlap > bestOverlap) {
        best = j;
        bestOverlap = overlap;
      }
    }
    if (best < 0) continue;
    const l = glyphs[best]!;
    const base = l.c === '\u0131' ? 'i' : l.c === '\u0237' ? 'j' : l.c;
    const composed = (base + mark).normalize('NFC');
    if (composed.length !== 1) continue;
    out.set(i, { letter: best, composed });
    used.add(best);
  }
  return out;
}

/** The glyphs with each accent set over its letter composed into that letter (the accent's glyph dropped). */
export function composeOverlaidAccents<G extends Glyph>(glyphs: readonly G[]): G[] {
  const ink = glyphs.map((g, k) => ({ g, k })).filter((e) => e.g.c.trim() !== '' && e.g.x1 - e.g.x0 >= ZERO);
  const found = accentsOverLetters(ink.map((e) => e.g));
  if (found.size === 0) return [...glyphs];
  const drop = new Set<number>();
  const replace = new Map<number, string>();
  for (const [i, { letter, composed }] of found) {
    drop.add(ink[i]!.k);
    replace.set(ink[letter]!.k, composed);
  }
  return glyphs.flatMap((g, k) => (drop.has(k) ? [] : replace.has(k) ? [{ ...g, c: replace.get(k)! }] : [g]));
}

const SINGLE_LETTER = /^[\p{L}]$/u;
const URLISH = /[/\\_@#=~]|\.\p{L}+\./u;
/**
 * Inside a long token, what words run together show and a long compound word ("Dokumentklassenbeschreibung")
 * does not: punctuation followed by a letter, a lower-case letter followed by a capital, or a digit
 * between letters.
 */
const RUN_TOGETHER = /\p{Ll}{3}.*(?:[.,:;!?)][\p{L}\p{N}]|\p{Ll}\p{Lu}|\p{L}\p{N}+\p{L})|(?:[.,:;!?)][\p{L}\p{N}]|\p{Ll}\p{Lu}|\p{L}\p{N}+\p{L}).*\p{Ll}{3}/u;

/**
 * A token of this many letters is words run together even without punctuation or a case change inside: the
 * longest words of running text are compounds of some 30-40 letters, while a tightly justified line whose
 * word gaps fell under MuPDF's 0.15 em reads as one token of 50-70 ("Tambémhácomoalteraroespaçovertical...").
 */
const LONG_RUN = 44;
const LETTERS_ONLY = /^\p{L}+[.,:;!?]?$/u;

/**
 * Whether a page's lines (from MuPDF's JSON) show the spacing faults that a re-read from glyph advances
 * repairs: a line of six or more words at least half of which are single letters other than "a" and "I"
 * (letter-spaced text split at every glyph), or a token of 24 or more characters that is not a URL, path
 * or identifier and has punctuation, a case change or a digit inside it (a line whose spaces were all
 * lost; a long compound word is not one), or a token of LONG_RUN letters. Math and monospaced lines are left out.
 */
export function spacingSuspect(lines: readonly LayoutLine[]): boolean {
  for (const l of lines) {
    if (l.math !== undefined || l.mono) continue;
    const toks = l.text.split(' ');
    if (toks.length >= 6) {
      let single = 0;
      for (const t of toks) if (SINGLE_LETTER.test(t) && t !== 'a' && t !== 'A' && t !== 'I') single++;
      if (single * 2 >= toks.length) return true;
    }
    for (const t of toks) if (t.length >= 24 && (RUN_TOGETHER.test(t) || (t.length >= LONG_RUN && LETTERS_ONLY.test(t))) && !URLISH.test(t)) return true;
  }
  return false;
}
