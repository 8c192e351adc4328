// The glyphs a page draws, read from `mutool draw -F trace` (issue 28, ADR 0320). MuPDF's structured text
// gives runs with Unicode only: glyphs of TeX's extension fonts (CMEX's `summationdisplay`, the pieces of
// big delimiters and radicals) have no Unicode mapping and arrive as U+FFFD. The trace device writes every
// glyph with its font, glyph name, Unicode, origin and advance, which is what the positional
// reconstruction of displayed equations (structure/math-layout.ts) needs.
import type { MathGlyph } from '../structure/math-layout.js';
import { glyphExtentEm, isExtender, isExtensionFont } from '../structure/math-layout.js';

const ENTITY: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** XML attribute value with its entities decoded. */
function decode(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (m, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(Number(e.slice(1)));
    return ENTITY[e] ?? m;
  });
}

const num = (v: string | undefined): number => (v === undefined ? NaN : Number(v));
/** One compiled pattern per attribute name (building a RegExp per lookup was the trace parser's largest cost). */
const ATTR_RE = new Map<string, RegExp>();
const attr = (tag: string, name: string): string | undefined => {
  let re = ATTR_RE.get(name);
  if (!re) ATTR_RE.set(name, (re = new RegExp(`\\b${name}="([^"]*)"`)));
  return re.exec(tag)?.[1];
};

/** A glyph's attributes as MuPDF's trace device writes them (`<g unicode=".." glyph=".." x=".." y=".." adv=".."/>`). */
const G_ATTRS = /^ unicode="([^"]*)" glyph="([^"]*)" x="([^"]*)" y="([^"]*)" adv="([^"]*)"$/;

/** Glyph extents in ems per font, glyph name and Unicode (a page draws a thousand glyphs of a few hundred kinds). */
const extents = new Map<string, Map<string, Map<string, readonly [number, number]>>>();
function extentOf(font: string, glyph: string, unicode: string): readonly [number, number] {
  let byGlyph = extents.get(font);
  if (!byGlyph) {
    // Bounded: the fonts of a few documents at a time, not of every document a thread ever read.
    if (extents.size >= 256) extents.clear();
    extents.set(font, (byGlyph = new Map()));
  }
  let byUnicode = byGlyph.get(glyph);
  if (!byUnicode) byGlyph.set(glyph, (byUnicode = new Map()));
  let e = byUnicode.get(unicode);
  if (!e) byUnicode.set(unicode, (e = glyphExtentEm(font, glyph, unicode)));
  return e;
}

/**
 * Glyphs of one traced page, in page coordinates with y down (baseline `y`). Text drawn with a rotated or
 * skewed matrix, invisible text (`ignore_text`, OCR layers) and vertical writing are left out.
 */
export function parseTraceGlyphs(xml: string): MathGlyph[] {
  const out: MathGlyph[] = [];
  const blockRe = /<(fill_text|stroke_text|clip_text|clip_stroke_text)\b([^>]*)>([\s\S]*?)<\/\1>/g;
  for (let m = blockRe.exec(xml); m; m = blockRe.exec(xml)) {
    if (m[1] === 'clip_text' || m[1] === 'clip_stroke_text') continue;
    const t = (attr(m[2]!, 'transform') ?? '1 0 0 1 0 0').trim().split(/\s+/).map(Number);
    if (t.length !== 6 || t.some((v) => !Number.isFinite(v)) || Math.abs(t[1]!) > 1e-6 || Math.abs(t[2]!) > 1e-6) continue;
    const [a, , , d, e, f] = t as [number, number, number, number, number, number];
    const spanRe = /<span\b([^>]*)>([\s\S]*?)<\/span>/g;
    for (let s = spanRe.exec(m[3]!); s; s = spanRe.exec(m[3]!)) {
      const head = s[1]!;
      if (attr(head, 'wmode') === '1') continue;
      const trm = (attr(head, 'trm') ?? '').trim().split(/\s+/).map(Number);
      if (trm.length !== 4 || Math.abs(trm[1]!) > 1e-6 || Math.abs(trm[2]!) > 1e-6 || !(trm[0]! > 0)) continue;
      // A mirrored text matrix (d < 0 with a flipping page matrix) still draws upright glyphs.
      const size = Math.abs(trm[0]! * a);
      const font = decode(attr(head, 'font') ?? '');
      // Glyphs scaled unevenly are left out, except an extension font's extender pieces (a tall delimiter's
      // repeated `uni007C.x`, which STIX drawings scale vertically to fit: perfectcut's `\middle|`; ADR 0367
      // amendment c, converter): their box takes the vertical scale.
      const vsize = Math.abs(trm[3]! * d);
      const uneven = Math.abs(vsize - size) > 0.01 * size + 1e-6;
      if (!(size > 0) || (uneven && !(isExtensionFont(font) && vsize > 0.5 * size && vsize < 2 * size))) continue;
      const gRe = /<g\b([^>]*)\/>/g;
      for (let g = gRe.exec(s[2]!); g; g = gRe.exec(s[2]!)) {
        const ga = g[1]!;
        // MuPDF writes every glyph's attributes in one order: read them with one match (the values are
        // those the per-name lookups give); any other form goes through the lookups.
        const fa = G_ATTRS.exec(ga);
        const x = num(fa ? fa[3] : attr(ga, 'x'));
        const y = num(fa ? fa[4] : attr(ga, 'y'));
        if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
        const adv = num(fa ? fa[5] : attr(ga, 'adv'));
        const px = a * x + e;
        const py = d * y + f;
        const width = Number.isFinite(adv) ? adv * size : 0.5 * size;
        const glyph = decode((fa ? fa[2] : attr(ga, 'glyph')) ?? '');
        if (uneven && !isExtender(glyph)) continue;
        const unicode = decode((fa ? fa[1] : attr(ga, 'unicode')) ?? '');
        const [top, bottom] = extentOf(font, glyph, unicode);
        out.push({ font, glyph, unicode, x0: px, x1: px + Math.max(width, 0.05 * size), baseline: py, y0: py + top * vsize, y1: py + bottom * vsize, size });
      }
    }
  }
  return out;
}
