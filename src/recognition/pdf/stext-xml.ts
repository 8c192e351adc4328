// Reads MuPDF's XML structured text (`mutool convert -F stext`) into the JSON page shape that
// stext-parser.ts consumes. Used for pages with right-to-left text and for pages whose word spacing looks
// wrong (glyph-spacing.ts decides left-to-right spaces from the quads): the XML has per-character
// quads, and MuPDF emits a lam-alef ligature as a lam followed by a zero-width alef in logical order while
// the rest of the line is in visual order. Putting the zero-width character first makes the later
// visual-to-logical reversal come out right ("الإنتاجية", not "اإلنتاجية").

import { accentsOverLetters, composeOverlaidAccents, isAccentGlyph, spaceWidthEm, spacedText } from './glyph-spacing.js';

interface JsonLine {
  bbox: { x: number; y: number; w: number; h: number };
  font: { name: string; family: string; weight: string; style: string; size: number };
  /** The first glyph's origin; left out for a rotated run (its characters are sorted across its baseline). */
  x?: number;
  y?: number;
  text: string;
  wmode: number;
}

const decode = (s: string): string =>
  s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, e: string) =>
    e[0] === '#' ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[e.toLowerCase()]!,
  );

const RTL_CHAR = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/;
const CHAR_RE = /<char quad="([^"]+)" x="([^"]+)" y="([^"]+)"[^>]*? c="([^"]*)"/g;

/**
 * The space advance of each simple font of a page, in ems, from the text script's `S<TAB>name<TAB>width`
 * lines (mutool-script.ts: the /Widths entry of the font's space glyph in thousandths of an em; 0 when it
 * has none). A name that two fonts of different space advances share is left out (it says nothing).
 */
export function fontSpaceAdvances(stdout: string): Map<string, number> {
  const out = new Map<string, number>();
  const mixed = new Set<string>();
  for (const m of stdout.matchAll(/^S\t([^\t\n]*)\t(-?[\d.]+)\s*$/gm)) {
    const w = Number(m[2]) / 1000;
    if (!Number.isFinite(w)) continue;
    const had = out.get(m[1]!);
    if (had !== undefined && Math.abs(had - w) > 0.01) mixed.add(m[1]!);
    else out.set(m[1]!, w);
  }
  for (const name of mixed) out.delete(name);
  return out;
}

/** A font's space on a page (glyph-spacing.ts): its width for the word-gap rule and its own space glyph's advance. */
interface FontSpace {
  /** The space width in ems that word gaps are measured against (spaceWidthEm). */
  readonly em: number;
  /** The advance of the font's space glyph in ems from its /Widths, null when it has none, undefined when unknown. */
  readonly own: number | null | undefined;
}

/**
 * Each font's space on a page, from its space characters and glyph advances (glyph-spacing.ts) and, where
 * the text script read them, the fonts' own space advances (ADR 0374 amendment): a font with no space
 * glyph has only MuPDF's inserted spaces, which are as wide as the gaps they fill (in a row of letters set
 * apart, the letter gap), so none of them marks a word gap. The word-gap width stays the page's median
 * space (taking half the mean advance for such fonts instead split "else" in a code listing and joined
 * contents entries on the tune part).
 */
function fontSpaceWidths(page: string, advances: ReadonlyMap<string, number>): Map<string, FontSpace> {
  const stats = new Map<string, { spaces: number[]; advances: number[] }>();
  for (const fm of page.matchAll(/<font name="([^"]*)" size="([^"]+)">([\s\S]*?)<\/font>/g)) {
    const size = Number(fm[2]) || 10;
    let s = stats.get(fm[1]!);
    if (!s) stats.set(fm[1]!, (s = { spaces: [], advances: [] }));
    for (const c of fm[3]!.matchAll(CHAR_RE)) {
      const q = c[1]!.split(/\s+/).map(Number);
      const w = (Math.max(q[2]!, q[6]!) - Math.min(q[0]!, q[4]!)) / size;
      if (c[4] === ' ') s.spaces.push(w);
      else if (w > 0.01 && s.advances.length < 2000) s.advances.push(w);
    }
  }
  return new Map(
    [...stats].map(([name, s]) => {
      const adv = advances.get(name);
      const own = adv === undefined ? undefined : adv > 0 ? adv : null;
      return [name, { em: spaceWidthEm(s.spaces, s.advances), own }];
    }),
  );
}

/**
 * Right-to-left run text: a zero-width character after a glyph belongs to that glyph's ligature and is put
 * first. Word spaces come from the glyphs' own advances (ADR 0239): MuPDF writes no space character
 * between right-to-left words set by glue (XeTeX, LuaTeX), so a gap of more than 0.15 em between two
 * glyphs' quads (each as wide as the font's advance) is one.
 */
function rtlText(chars: readonly { x0: number; x1: number; c: string }[], size: number): string {
  const text: string[] = [];
  let prevEnd = Number.NaN;
  for (let i = 0; i < chars.length; i++) {
    const cur = chars[i]!;
    const nxt = chars[i + 1];
    if (cur.x1 - cur.x0 >= 0.01 && cur.c.trim() && cur.x0 - prevEnd > 0.15 * size && text.length && text[text.length - 1]!.trim()) text.push(' ');
    if (cur.x1 - cur.x0 >= 0.01) prevEnd = cur.c.trim() ? cur.x1 : Number.NaN;
    if (nxt && nxt.x1 - nxt.x0 < 0.01 && cur.x1 - cur.x0 >= 0.01 && nxt.c.trim()) {
      text.push(nxt.c, cur.c);
      i++;
    } else text.push(cur.c);
  }
  return text.join('');
}

/**
 * An accent glyph set over a letter of another span of the same font (its size a hair off the letters', so
 * MuPDF opens a new font span: a LaTeX class setting Portuguese in NimbusSanL, "agr" + "ˆ" + "onomo", or
 * "produc¸ ˜" + "ao") moves into that span, so that it is composed with its letter there (ADR 0380).
 */
function joinAccentSpans(spans: { fm: RegExpMatchArray; chars: { x0: number; x1: number; y0: number; y1: number; c: string }[] }[]): void {
  if (spans.length < 2) return;
  for (const a of spans) {
    // accent glyphs (OT1's ASCII look-alikes too: they move only when set over a letter)
    for (const acc of a.chars.filter((c) => isAccentGlyph(c.c))) {
      const mid = (acc.x0 + acc.x1) / 2;
      const under = (c: { x0: number; x1: number; c: string }): boolean => c !== acc && c.x0 <= mid && mid <= c.x1 && /\p{L}/u.test(c.c);
      // Over a letter of its own span, it is composed there.
      if (a.chars.some(under)) continue;
      const host = spans.find((b) => b !== a && b.fm[1] === a.fm[1] && b.chars.some(under));
      if (!host) continue;
      host.chars.push(acc as (typeof host.chars)[number]);
      a.chars.splice(a.chars.indexOf(acc), 1);
      // The space MuPDF put between the glyph before the accent and the accent ("c¸ " + "˜ao") goes with it
      // when that glyph and the accented letter touch: no word space there ("apresentada ` a" keeps its own).
      const gap = a.chars.findIndex((c) => c.c === ' ' && Math.abs(c.x1 - acc.x0) <= 0.5);
      if (gap >= 0) {
        const sp = a.chars[gap]!;
        const before = Math.max(...a.chars.filter((c) => c.c.trim() !== '' && c.x1 <= sp.x1 + 0.5).map((c) => c.x1));
        const letter = host.chars.find(under)!;
        if (letter.x0 - before < 0.1 * (letter.y1 - letter.y0)) a.chars.splice(gap, 1);
      }
    }
  }
}

/**
 * Parses the XML of one or more pages into `{ blocks }` objects like the JSON writer's; `spaceAdvances`, the
 * fonts' own space advances in ems (fontSpaceAdvances), where known.
 */
export function parseStextXml(xml: string, spaceAdvances: ReadonlyMap<string, number> = new Map()): { blocks: unknown[] }[] {
  const pages: { blocks: unknown[] }[] = [];
  for (const pm of xml.matchAll(/<page\b[^>]*>([\s\S]*?)<\/page>/g)) {
    const blocks: unknown[] = [];
    const spaceEm = fontSpaceWidths(pm[1]!, spaceAdvances);
    for (const bm of pm[1]!.matchAll(/<block bbox="([^"]+)">([\s\S]*?)<\/block>|<image bbox="([^"]+)"/g)) {
      if (bm[3]) {
        const [x0, y0, x1, y1] = bm[3].split(/\s+/).map(Number) as [number, number, number, number];
        blocks.push({ type: 'image', bbox: { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } });
        continue;
      }
      const lines: JsonLine[] = [];
      for (const lm of bm[2]!.matchAll(/<line bbox="([^"]+)" wmode="(\d)"[^>]*>([\s\S]*?)<\/line>/g)) {
        const spans = [...lm[3]!.matchAll(/<font name="([^"]*)" size="([^"]+)">([\s\S]*?)<\/font>/g)].map((fm) => ({
          fm,
          chars: [...fm[3]!.matchAll(/<char quad="([^"]+)" x="([^"]+)" y="([^"]+)"[^>]*? c="([^"]*)"/g)].map((c) => {
            const q = c[1]!.split(/\s+/).map(Number);
            // `upright`: the quad's top edge (upper left to upper right) runs across the page, not down it.
            return { x0: Math.min(q[0]!, q[4]!), x1: Math.max(q[2]!, q[6]!), y0: Math.min(q[1]!, q[3]!), y1: Math.max(q[5]!, q[7]!), baseline: Number(c[3]), c: decode(c[4]!), upright: Math.abs(q[2]! - q[0]!) >= Math.abs(q[3]! - q[1]!) };
          }),
        }));
        joinAccentSpans(spans);
        for (const { fm, chars } of spans) {
          if (!chars.length) continue;
          // Visual order, left to right by glyph centre (the writer keeps drawing order, which may interleave
          // segments; a ligature's zero-width part sits at its glyph's right edge, so centres keep it after the glyph).
          chars.sort((a, b) => a.x0 + a.x1 - (b.x0 + b.x1));
          const size = Number(fm[2]) || 10;
          const text = RTL_CHAR.test(fm[3]!) ? rtlText(chars, size) : spacedText(composeOverlaidAccents(chars), size, spaceEm.get(fm[1]!)?.em ?? 0.25, spaceEm.get(fm[1]!)?.own);
          const x0 = Math.min(...chars.map((c) => c.x0));
          const x1 = Math.max(...chars.map((c) => c.x1));
          const y0 = Math.min(...chars.map((c) => c.y0));
          const y1 = Math.max(...chars.map((c) => c.y1));
          // A tall narrow run is rotated text: no origin, so stext-parser.ts keeps treating it as a stamp
          // (this path reads glyphs in left-to-right order; turned body text is read from the JSON, ADR 0362).
          // Upright glyphs in a font whose boxes are several ems tall (STIX Two Math) make a tall narrow run too:
          // their quads say they are upright (ADR 0367 session d).
          const rotated = y1 - y0 > 3 * (x1 - x0) && !chars.every((c) => c.upright);
          lines.push({
            bbox: { x: x0, y: y0, w: x1 - x0, h: y1 - y0 },
            font: { name: fm[1]!, family: '', weight: /bold|black|heavy/i.test(fm[1]!) ? 'bold' : 'normal', style: /italic|oblique/i.test(fm[1]!) ? 'italic' : 'normal', size: Number(fm[2]) },
            ...(rotated ? {} : { x: x0, y: chars[0]!.baseline }),
            text,
            wmode: Number(lm[2]),
          });
        }
      }
      const [x0, y0, x1, y1] = bm[1]!.split(/\s+/).map(Number) as [number, number, number, number];
      blocks.push({ type: 'text', bbox: { x: x0, y: y0, w: x1 - x0, h: y1 - y0 }, lines });
    }
    pages.push({ blocks });
  }
  return pages;
}

/** An accent glyph set over its letter (glyph-spacing.ts) on a page of MuPDF's XML: the letter's box and the text. */
export interface OverlaidAccent {
  readonly x0: number;
  readonly x1: number;
  readonly y0: number;
  readonly y1: number;
  /** The accent character followed by its letter, as the JSON writer's line text has them. */
  readonly raw: string;
  readonly composed: string;
}

/** The accents set over their letters on the first page of MuPDF's XML (ADR 0374, accents). */
export function overlaidAccents(xml: string): OverlaidAccent[] {
  const out: OverlaidAccent[] = [];
  const page = /<page\b[^>]*>([\s\S]*?)<\/page>/.exec(xml)?.[1] ?? '';
  for (const fm of page.matchAll(/<font name="([^"]*)" size="([^"]+)">([\s\S]*?)<\/font>/g)) {
    if (!/[`^~\u02cb\u02c6\u02dc]/.test(fm[3]!)) continue;
    const chars = [...fm[3]!.matchAll(CHAR_RE)]
      .map((c) => {
        const q = c[1]!.split(/\s+/).map(Number);
        return { x0: Math.min(q[0]!, q[4]!), x1: Math.max(q[2]!, q[6]!), y0: Math.min(q[1]!, q[3]!), y1: Math.max(q[5]!, q[7]!), c: decode(c[4]!) };
      })
      .filter((c) => c.c.trim() !== '' && c.x1 - c.x0 >= 0.01)
      .sort((a, b) => a.x0 + a.x1 - (b.x0 + b.x1));
    for (const [i, { letter, composed }] of accentsOverLetters(chars)) {
      const l = chars[letter]!;
      out.push({ x0: l.x0, x1: l.x1, y0: l.y0, y1: l.y1, raw: chars[i]!.c + l.c, composed });
    }
  }
  return out;
}

/** A line whose text has an ASCII (or spacing) grave, circumflex or tilde right before a letter. */
const ACCENT_BEFORE = /[`^~\u02cb\u02c6\u02dc][A-Za-z\u0131\u0237]/g;

/**
 * An ASCII grave, circumflex or tilde right before a letter: what OT1 accents look like in MuPDF's JSON. The
 * spacing forms (ˋ ˆ ˜) are composed with the letter after them wherever they stand (text-repairs.ts), so they
 * are no reason to read the page's XML as well.
 */
const ASCII_ACCENT_BEFORE = /[`^~][A-Za-z\u0131\u0237]/;

/**
 * A spacing accent standing apart from its letter: after a letter at a word's end or before a space
 * ("agronomoˆ", "Veterin´ arias", "PRODUÇ ÃO" has none but comes with them). Fonts that draw an accent as a
 * glyph of its own after the word and move it back over its letter (T1-less Type 1 fonts such as
 * NimbusSanL in a LaTeX class) leave it there in MuPDF's JSON, whose text keeps drawing order; the XML's
 * glyph boxes put it over its letter.
 */
const STRAY_ACCENT = /\p{L}[\u02c6\u02dc\u02cb\u02ca\u00b4\u00a8\u00b8\u02c7\u02d8\u02d9\u02da\u02dd](?=\s|$)|(?:^|\s)[\u02c6\u02dc\u02cb\u02ca\u00b4\u00a8\u00b8\u02c7\u02d8\u02d9\u02da\u02dd]\s\p{L}/u;

/** Whether a running-text line (not monospaced, not math) has a spacing accent apart from any letter. */
export function strayAccentSuspect(lines: readonly { text: string; mono: boolean; math?: string; display?: string }[]): boolean {
  return lines.some((l) => !l.mono && l.math === undefined && l.display === undefined && STRAY_ACCENT.test(l.text));
}

/** Whether any running-text line (not monospaced, not math) has an ASCII accent character right before a letter. */
export function accentSuspect(lines: readonly { text: string; mono: boolean; math?: string; display?: string }[]): boolean {
  return lines.some((l) => !l.mono && l.math === undefined && l.display === undefined && ASCII_ACCENT_BEFORE.test(l.text));
}

/**
 * Composes, in lines from MuPDF's JSON (whose text has no glyph positions), the accent-letter pairs that the
 * page's XML shows set one over the other: in each line, a pair is composed when the XML has exactly as many
 * overlaid accents of that pair, with their letters inside the line's box, as the line's text has of that
 * pair; otherwise the line is left as it is (a backtick of code keeps its place).
 */
export function applyOverlaidAccents<L extends { text: string; mono: boolean; x0: number; x1: number; y0: number; y1: number; math?: string; display?: string }>(
  lines: readonly L[],
  accents: readonly OverlaidAccent[],
): L[] {
  if (accents.length === 0) return [...lines];
  return lines.map((l) => {
    if (l.mono || l.math !== undefined || l.display !== undefined) return l;
    const pairs = l.text.match(ACCENT_BEFORE);
    if (!pairs) return l;
    const inLine = accents.filter((a) => (a.x0 + a.x1) / 2 >= l.x0 - 1 && (a.x0 + a.x1) / 2 <= l.x1 + 1 && (a.y0 + a.y1) / 2 >= l.y0 - 1 && (a.y0 + a.y1) / 2 <= l.y1 + 1);
    let text = l.text;
    for (const raw of new Set(pairs)) {
      const n = pairs.filter((p) => p === raw).length;
      const found = inLine.filter((a) => a.raw === raw);
      if (found.length === n) text = text.split(raw).join(found[0]!.composed);
    }
    return text === l.text ? l : { ...l, text };
  });
}
