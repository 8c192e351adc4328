// The glyphs a page draws, read from `mutool draw -F trace` (issue 28, ADR 0320). MuPDF's structured text
// gives runs with Unicode only: glyphs of TeX's extension fonts (CMEX's `summationdisplay`, the pieces of
// big delimiters and radicals) have no Unicode mapping and arrive as U+FFFD. The trace device writes every
// glyph with its font, glyph name, Unicode, origin and advance, which is what the positional
// reconstruction of displayed equations (structure/math-layout.ts) needs.
import type { MathGlyph } from '../structure/math-layout.js';
import { glyphExtent } from '../structure/math-layout.js';

const ENTITY: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** XML attribute value with its entities decoded. */
function decode(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (m, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(Number(e.slice(1)));
    return ENTITY[e] ?? m;
  });
}

const num = (v: string | undefined): number => (v === undefined ? NaN : Number(v));
const attr = (tag: string, name: string): string | undefined => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1];

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
      if (!(size > 0) || Math.abs(Math.abs(trm[3]! * d) - size) > 0.01 * size + 1e-6) continue;
      const font = decode(attr(head, 'font') ?? '');
      const gRe = /<g\b([^>]*)\/>/g;
      for (let g = gRe.exec(s[2]!); g; g = gRe.exec(s[2]!)) {
        const ga = g[1]!;
        const x = num(attr(ga, 'x'));
        const y = num(attr(ga, 'y'));
        if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
        const adv = num(attr(ga, 'adv'));
        const px = a * x + e;
        const py = d * y + f;
        const width = Number.isFinite(adv) ? adv * size : 0.5 * size;
        const glyph = decode(attr(ga, 'glyph') ?? '');
        const unicode = decode(attr(ga, 'unicode') ?? '');
        const ext = glyphExtent(font, glyph, size, py, unicode);
        out.push({ font, glyph, unicode, x0: px, x1: px + Math.max(width, 0.05 * size), baseline: py, y0: ext.y0, y1: ext.y1, size });
      }
    }
  }
  return out;
}
