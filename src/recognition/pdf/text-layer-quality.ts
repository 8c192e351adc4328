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

/** Runs of four or more leader dots (optionally spaced): "Introduction . . . . . 1". */
const LEADERS_RE = /(?:[.·…_]\s?){4,}/g;

/** Classifies a page from its lines and images. */
export function judgeTextLayer(lines: readonly LayoutLine[], images: readonly Box[], width: number, height: number): TextLayerVerdict {
  const text = lines.map((l) => l.text).join(' ');
  const chars = nonSpaceLength(text);
  const pageArea = Math.max(1, width * height);
  const imageArea = images.reduce((s, b) => s + Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0), 0);
  if (chars < 20 && imageArea >= 0.3 * pageArea) return 'image-only';
  if (chars === 0) return images.length ? 'image-only' : 'empty';
  if (chars >= 40) {
    if (garbageShare(text) > 0.25) return 'garbled';
    // Broken ToUnicode maps often produce strings of symbols and punctuation instead of letters.
    // Dot leaders (tables of contents, indexes) are punctuation by design, not a broken mapping.
    if (letterShare(text.replace(LEADERS_RE, ' ')) < 0.3 && !/\d{3,}/.test(text)) return 'garbled';
  }
  return 'usable';
}
