// Skew estimation and correction of a scanned page before OCR (issue 28, ADR 0365). Tesseract's LSTM reads
// one text line at a time from a box around it: a page turned by 1-3 degrees gives boxes that cut the
// tops and bottoms of letters and lines that wander into their neighbours, and on the real set's degraded
// scans word recall fell from 90% to 81% (150 dpi, 2 degrees). The angle is found the classical way
// (Postl's projection profile, as in Leptonica's `pixFindSkew`): ink pixels are projected onto rows along
// each candidate angle, and the angle whose profile has the largest sum of squared row counts (sharp
// peaks for text lines, deep troughs for the leading between them) is the page's skew. The image is then
// turned back by that angle with bilinear interpolation on a white background, same canvas size.
import type { GrayImage } from './pgm.js';

/** Result of {@link estimateSkew}. */
export interface SkewEstimate {
  /** Skew in degrees; positive when text lines fall to the right (turned clockwise on screen). */
  readonly degrees: number;
  /** How much sharper the best profile is than the unturned one (1 = not at all); 0 without ink. */
  readonly gain: number;
  /** Ink pixels the estimate used (on the reduced copy). */
  readonly inkPixels: number;
}

/** Largest skew searched, in degrees: beyond this a page is turned by a quarter (rotation recovery's job). */
export const MAX_SKEW_DEGREES = 6;
/** Smallest skew that is corrected: below it tesseract's line finder copes and resampling only blurs. */
export const MIN_SKEW_DEGREES = 0.25;
/** Smallest profile gain over the unturned page for a correction: a page without text lines has none. */
export const MIN_SKEW_GAIN = 1.05;

/** Otsu's threshold (0..255) of an 8-bit image's histogram: the level that best separates ink and paper. */
export function otsuThreshold(data: Uint8Array): number {
  // Integer counts (a Float64Array histogram is counted at about half the speed; the sums below are the same).
  const hist = new Uint32Array(256);
  for (let i = 0; i < data.length; i++) hist[data[i]!]!++;
  const total = data.length;
  let sumAll = 0;
  for (let v = 0; v < 256; v++) sumAll += v * hist[v]!;
  let wB = 0;
  let sumB = 0;
  let best = 0;
  let bestVar = -1;
  for (let t = 0; t < 256; t++) {
    wB += hist[t]!;
    if (wB === 0) continue;
    const wF = total - wB;
    if (wF === 0) break;
    sumB += t * hist[t]!;
    const mB = sumB / wB;
    const mF = (sumAll - sumB) / wF;
    const between = wB * wF * (mB - mF) * (mB - mF);
    if (between > bestVar) {
      bestVar = between;
      best = t;
    }
  }
  return best;
}

/**
 * Mean of each `factor` x `factor` block of an image (rounded to the nearest level, halves up), the last
 * partial row and column of blocks dropped: the reduced copy {@link estimateSkew} measures. Integer sums,
 * summed a source row at a time (ADR 0365, amendment).
 */
export function reduceGray(img: GrayImage, factor: number): GrayImage {
  const f = Math.max(1, Math.floor(factor));
  const w = Math.max(1, Math.floor(img.width / f));
  const h = Math.max(1, Math.floor(img.height / f));
  const src = img.data;
  const out = new Uint8Array(w * h);
  if (f === 1) {
    for (let y = 0; y < h; y++) out.set(src.subarray(y * img.width, y * img.width + w), y * w);
    return { width: w, height: h, data: out };
  }
  const ff = f * f;
  const sums = new Uint32Array(w);
  for (let y = 0; y < h; y++) {
    sums.fill(0);
    for (let dy = 0; dy < f; dy++) {
      let p = (y * f + dy) * img.width;
      for (let x = 0; x < w; x++) {
        let s = 0;
        for (let dx = 0; dx < f; dx++) s += src[p++]!;
        sums[x] = sums[x]! + s;
      }
    }
    // floor(s / ff + 1/2), which is Math.round(s / ff) for these non-negative sums.
    for (let x = 0, o = y * w; x < w; x++) out[o + x] = Math.floor((2 * sums[x]! + ff) / (2 * ff));
  }
  return { width: w, height: h, data: out };
}

/**
 * Estimates the skew of a page of text. Works on a copy reduced to about 1,000 pixels across (the angle
 * needs lines, not letters): ink is what Otsu's threshold calls dark, and a few ink pixels of each line are
 * enough, so every ink pixel is projected at each candidate angle (0.5 degree steps over +-6, then 0.05
 * degree steps around the best). An angle's projection is a shear: each column's pixels move by the same
 * whole number of rows, so the offsets are computed once per column and each ink pixel costs an addition.
 */
export function estimateSkew(img: GrayImage): SkewEstimate {
  const small = reduceGray(img, Math.max(1, Math.ceil(img.width / 1000)));
  const { width: w, height: h } = small;
  const px = small.data;
  const t = otsuThreshold(px);
  // A blank page (one level) has no ink; nor has a page whose threshold sits in the paper's white.
  const cut = Math.min(t, 199);
  let ink = 0;
  for (let i = 0; i < px.length; i++) if (px[i]! <= cut) ink++;
  // More than half the page dark is a photograph or an inverted page, not text on paper.
  if (ink < 50 || ink > (w * h) / 2) return { degrees: 0, gain: 0, inkPixels: ink };
  const xs = new Int32Array(ink);
  const ys = new Int32Array(ink);
  for (let y = 0, k = 0; y < h; y++) {
    for (let x = 0, i = y * w; x < w; x++, i++) {
      if (px[i]! <= cut) {
        xs[k] = x;
        ys[k++] = y;
      }
    }
  }
  const cx = w / 2;
  const rows = new Int32Array(h + 2 * Math.ceil(w * Math.tan((MAX_SKEW_DEGREES * Math.PI) / 180)) + 4);
  const offset = (rows.length - h) / 2;
  const shift = new Int32Array(w);
  // Score of an angle: sum of squared row counts of the ink projected along lines at that angle.
  const score = (deg: number): number => {
    rows.fill(0);
    const tan = Math.tan((deg * Math.PI) / 180);
    for (let x = 0; x < w; x++) shift[x] = Math.round(offset - (x - cx) * tan);
    const n = rows.length;
    for (let i = 0; i < ink; i++) {
      const r = ys[i]! + shift[xs[i]!]!;
      if (r >= 0 && r < n) rows[r]!++;
    }
    let s = 0;
    for (let r = 0; r < n; r++) s += rows[r]! * rows[r]!;
    return s;
  };
  const flat = score(0);
  let best = 0;
  let bestScore = flat;
  for (let d = -MAX_SKEW_DEGREES; d <= MAX_SKEW_DEGREES + 1e-9; d += 0.5) {
    const s = score(d);
    if (s > bestScore) [best, bestScore] = [d, s];
  }
  const coarse = best;
  for (let d = coarse - 0.45; d <= coarse + 0.45 + 1e-9; d += 0.05) {
    const s = score(d);
    if (s > bestScore) [best, bestScore] = [d, s];
  }
  return { degrees: Math.round(best * 100) / 100, gain: flat > 0 ? bestScore / flat : 0, inkPixels: ink };
}

/**
 * Turns an image clockwise on screen by `degrees` (as `rotateGray` turns by quarters; a negative angle turns
 * counter-clockwise and undoes a positive skew from {@link estimateSkew}) about its centre, with bilinear
 * interpolation, on the same canvas; pixels from outside the source are paper white. The bounds are tested
 * on the source position itself, so that the interior's floor is a truncation (`| 0`), the same value as
 * `Math.floor` there: the result is bit for bit that of the first implementation at half its cost (a 16.16
 * fixed-point version was a fifth faster still but one or two grey levels off, which moved tesseract's
 * reading of two tune documents by a check each; ADR 0365, amendment).
 */
export function rotateSmall(img: GrayImage, degrees: number): GrayImage {
  const { width: w, height: h, data } = img;
  const out = new Uint8Array(w * h);
  const a = (degrees * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  const cx = (w - 1) / 2;
  const cy = (h - 1) / 2;
  const right = w - 1;
  const bottomRow = h - 1;
  for (let y = 0; y < h; y++) {
    const dy = y - cy;
    // The source of output pixel (x, y) is the output point turned back (counter-clockwise) by `degrees`:
    // sx = cx + dx cos + dy sin, sy = cy - dx sin + dy cos, stepped along the row from dx = -cx.
    let sx = cx - cx * cos + dy * sin;
    let sy = cy + cx * sin + dy * cos;
    const o = y * w;
    for (let x = 0; x < w; x++, sx += cos, sy -= sin) {
      if (sx < 0 || sy < 0 || sx >= right || sy >= bottomRow) {
        // On the last row or column the nearest pixel; outside the source, paper white.
        const nx = Math.round(sx);
        const ny = Math.round(sy);
        out[o + x] = nx >= 0 && ny >= 0 && nx < w && ny < h ? data[ny * w + nx]! : 255;
        continue;
      }
      const x0 = sx | 0;
      const y0 = sy | 0;
      const fx = sx - x0;
      const fy = sy - y0;
      const i = y0 * w + x0;
      const p00 = data[i]!;
      const p10 = data[i + w]!;
      const top = p00 + (data[i + 1]! - p00) * fx;
      const bottom = p10 + (data[i + w + 1]! - p10) * fx;
      out[o + x] = Math.round(top + (bottom - top) * fy);
    }
  }
  return { width: w, height: h, data: out };
}

/** Result of {@link deskew}. */
export interface DeskewResult {
  readonly image: GrayImage;
  /** Degrees the page was turned clockwise to straighten it (minus its skew; 0 when it was left as it was). */
  readonly degrees: number;
}

/**
 * Straightens a page whose text lines are skewed by {@link MIN_SKEW_DEGREES} to {@link MAX_SKEW_DEGREES}
 * with a clear profile ({@link MIN_SKEW_GAIN}); returns the image itself otherwise.
 */
export function deskew(img: GrayImage): DeskewResult {
  const e = estimateSkew(img);
  if (Math.abs(e.degrees) < MIN_SKEW_DEGREES || e.gain < MIN_SKEW_GAIN) return { image: img, degrees: 0 };
  return { image: rotateSmall(img, -e.degrees), degrees: -e.degrees };
}
