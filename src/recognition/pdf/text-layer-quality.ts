// Decides whether a page's text layer can be used or the page needs OCR: image-only pages (no text,
// an image covering much of the page) and garbled font mappings (text that is mostly replacement
// characters, private-use code points, control characters, or symbols where letters should be).
import type { Box, LayoutLine } from '../layout-model.js';
import { isLetterCode, nonSpaceLength } from '../structure/patterns.js';

/** Verdict on one page's text layer. */
export type TextLayerVerdict = 'usable' | 'image-only' | 'garbled' | 'empty';

/** Share of characters that look like a broken glyph-to-Unicode mapping. */
export function garbageShare(text: string): number {
  let n = 0;
  let bad = 0;
  for (let i = 0; i < text.length; i++) {
    const cp = text.charCodeAt(i);
    if (cp === 32 || cp === 9 || cp === 10 || cp === 13) continue;
    n++;
    if (cp === 0xfffd || (cp >= 0xe000 && cp <= 0xf8ff) || cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || (cp >= 0xdb80 && cp <= 0xdbff)) bad++;
  }
  return n ? bad / n : 0;
}

/** Share of letters (any script) among non-space characters. */
export function letterShare(text: string): number {
  let n = 0;
  let letters = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) continue;
    n++;
    if (isLetterCode(c)) letters++;
  }
  return n ? letters / n : 0;
}

/**
 * Runs of four or more leader dots (optionally spaced): "Introduction . . . . . 1"; CJK templates set
 * them as the dot operator U+22C5 ("第 1 章 模板介绍 ⋅ ⋅ ⋅ ⋅ 1", ADR 0346).
 */
const LEADERS_RE = /(?:[.·…_\u22c5]\s?){4,}/g;

/** Fewest whitespace-separated tokens on a page taken for a glyph chart. */
const CHART_MIN_TOKENS = 64;
/** Share of the tokens that must be a single character (one code point): the chart's cells. */
const CHART_SINGLE_SHARE = 0.75;
/** A column or row label may carry TeX's octal or hex mark ('0, "0) or a quote. */
const LABEL_MARK_RE = /^['"\u00b4\u2018\u2019\u201c\u201d]/;

/**
 * Whether a page is a font table or glyph chart (a font's documentation showing its glyphs in a grid, as
 * `fonttable`, `testfont` and font packages' manuals print them): nearly every token is a single glyph
 * standing alone, and the grid is labelled by a run of consecutive single digits 0 1 2 ... 7 (the
 * column heads of an octal or hex table). Its symbols, and the unmapped glyphs (U+FFFD) of fonts without a
 * Unicode mapping, are what the page shows, not a broken mapping: OCR reads such a grid as noise. A
 * broken text layer keeps the words' spaces, so its garbage comes in tokens of several characters, and
 * it has no digit header. Exported for the tests.
 */
export function isGlyphChart(text: string): boolean {
  const tokens = text.split(/\s+/).filter(Boolean);
  if (tokens.length < CHART_MIN_TOKENS) return false;
  let single = 0;
  for (const t of tokens) if (t.length === 1 || (t.length === 2 && t.codePointAt(0)! > 0xffff)) single++;
  if (single < CHART_SINGLE_SHARE * tokens.length) return false;
  // The column heads: eight consecutive tokens 0..7, each a digit with an optional label mark.
  let run = 0;
  for (const t of tokens) {
    const d = t.length === 2 && LABEL_MARK_RE.test(t) ? t[1] : t.length === 1 ? t : '';
    if (d === String(run)) {
      run++;
      if (run === 8) return true;
    } else run = d === '0' ? 1 : 0;
  }
  return false;
}

/** Classifies a page from its lines and images. */
export function judgeTextLayer(lines: readonly LayoutLine[], images: readonly Box[], width: number, height: number): TextLayerVerdict {
  const text = lines.map((l) => l.text).join(' ');
  const chars = nonSpaceLength(text);
  const pageArea = Math.max(1, width * height);
  const imageArea = images.reduce((s, b) => s + Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0), 0);
  if (chars < 20 && imageArea >= 0.3 * pageArea) return 'image-only';
  if (chars === 0) return images.length ? 'image-only' : 'empty';
  if (chars >= 40) {
    const garbled = garbageShare(text) > 0.25 || (letterShare(text.replace(LEADERS_RE, ' ')) < 0.3 && !/\d{3,}/.test(text));
    // Broken ToUnicode maps produce replacement characters, private-use code points, or strings of
    // symbols and punctuation instead of letters. Dot leaders (tables of contents, indexes) are
    // punctuation by design, and a glyph chart shows symbols and unmapped glyphs by design (ADR 0346).
    if (garbled && !isGlyphChart(text)) return 'garbled';
  }
  return 'usable';
}
