// Reads tesseract's TSV output (level, page, block, par, line, word, left, top, width, height, conf, text)
// into layout lines, and its orientation report (`--psm 0`). Tesseract 5 documents the TSV columns in
// its `tsv` config; confidence -1 marks non-word rows.
import type { LayoutLine } from '../layout-model.js';

/** Words and lines of one OCR run, in points. */
export interface OcrText {
  readonly lines: LayoutLine[];
  readonly wordConfidences: number[];
  readonly meanConfidence: number;
}

/**
 * Parses TSV. `scale` converts pixels to points (72 / dpi). Line size is estimated from the tallest word
 * (ascender to descender, about 1.1 of the font size), so sizes compare with PDF font sizes.
 */
export function parseTesseractTsv(tsv: string, scale: number): OcrText {
  interface Word {
    key: string;
    block: number;
    left: number;
    top: number;
    width: number;
    height: number;
    conf: number;
    text: string;
  }
  const words: Word[] = [];
  for (const row of tsv.split('\n').slice(1)) {
    const f = row.split('\t');
    if (f.length < 12 || f[0] !== '5') continue;
    const text = f.slice(11).join('\t').trim();
    const conf = Number(f[10]);
    if (!text || conf < 0) continue;
    words.push({
      key: `${f[2]}.${f[3]}.${f[4]}`,
      block: Number(f[2]) * 1000 + Number(f[3]),
      left: Number(f[6]),
      top: Number(f[7]),
      width: Number(f[8]),
      height: Number(f[9]),
      conf,
      text,
    });
  }
  const lines: LayoutLine[] = [];
  let group: Word[] = [];
  const flush = (): void => {
    if (!group.length) return;
    // The tallest word spans ascender to descender (about 1.1 em); the median jitters with the letters.
    // A box over 1.6 times the median height is a word grown by a speck of scanner noise and is left out.
    const heights = group.map((w) => w.height).sort((a, b) => a - b);
    const median = heights[Math.floor((heights.length - 1) / 2)]!;
    const tallest = Math.max(...heights.filter((h) => h <= 1.6 * median));
    const conf = group.reduce((s, w) => s + w.conf, 0) / group.length;
    lines.push({
      text: group.map((w) => w.text).join(' '),
      x0: Math.min(...group.map((w) => w.left)) * scale,
      y0: Math.min(...group.map((w) => w.top)) * scale,
      x1: Math.max(...group.map((w) => w.left + w.width)) * scale,
      y1: Math.max(...group.map((w) => w.top + w.height)) * scale,
      size: Math.round((tallest * scale) / 1.1),
      bold: false,
      italic: false,
      mono: false,
      sizeEstimated: true,
      block: group[0]!.block,
      confidence: Math.round(conf),
    });
    group = [];
  };
  // The tallest word of each tesseract line: words without ascenders ("cost", "of") are half an em high, so
  // their own heights would take the wide spaces of a justified narrow column for a gutter.
  // A justified line in a narrow column stretches every space alike, so a gap only counts as a gutter when
  // it is also well over the line's typical gap.
  const lineHeight = new Map<string, number>();
  const lineGaps = new Map<string, number[]>();
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    lineHeight.set(w.key, Math.max(lineHeight.get(w.key) ?? 0, w.height));
    const prev = words[i - 1];
    if (prev && prev.key === w.key) {
      const gaps = lineGaps.get(w.key) ?? [];
      gaps.push(w.left - (prev.left + prev.width));
      lineGaps.set(w.key, gaps);
    }
  }
  const medianGap = new Map<string, number>();
  for (const [k, gaps] of lineGaps) medianGap.set(k, [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)]!);
  for (const w of words) {
    const prev = group[group.length - 1];
    // Tesseract sometimes reads two text columns with a narrow gutter as one line: a gap between words of
    // over 1.5 times the line's tallest word (about 1.6 em) and 2.5 times the line's median gap, or of over
    // three times its tallest word (a table row, whose gaps are all wide), is a column or cell boundary, as
    // in the text-layer path, so the line is split there.
    const gap = prev !== undefined ? w.left - (prev.left + prev.width) : 0;
    const tall = lineHeight.get(w.key) ?? Math.max(prev?.height ?? 0, w.height);
    const wide = prev !== undefined && gap > 1.5 * tall && (gap > 2.5 * (medianGap.get(w.key) ?? 0) || gap > 3 * tall);
    if (group.length && (group[0]!.key !== w.key || wide)) flush();
    group.push(w);
  }
  flush();
  const wordConfidences = words.map((w) => Math.round(w.conf));
  const meanConfidence = wordConfidences.length ? wordConfidences.reduce((a, b) => a + b, 0) / wordConfidences.length : 0;
  return { lines, wordConfidences, meanConfidence };
}

/** Orientation from `tesseract IMAGE - --psm 0`: the clockwise rotation that makes the page upright. */
export function parseOsd(text: string): { rotate: number; confidence: number } | null {
  const r = /Rotate:\s*(\d+)/.exec(text);
  const c = /Orientation confidence:\s*([\d.]+)/.exec(text);
  if (!r) return null;
  return { rotate: Number(r[1]) % 360, confidence: c ? Number(c[1]) : 0 };
}
