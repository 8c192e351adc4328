// Chooses the OCR render resolution of a PDF page: the embedded scan's own resolution (the guide found a
// 72-ppi scan rendered at 300 dpi gave no words at all), capped by `maxOcrDpi` and by the pixel limit.
// The scan's resolution comes from `mutool draw -F trace`: each `<fill_image>` gives the image's pixel
// size and the matrix placing its unit square on the page (ISO 32000-1 8.9.5), so ppi = pixels / (length / 72).

/** Resolution (pixels per inch) of the largest image drawn on the page, or null when there is none. */
export function nativeImagePpi(trace: string): number | null {
  let best: { area: number; ppi: number } | null = null;
  for (const m of trace.matchAll(/<fill_image\b[^>]*>/g)) {
    const tag = m[0];
    const t = /transform="([^"]+)"/.exec(tag)?.[1]?.split(/\s+/).map(Number);
    const w = Number(/\bwidth="(\d+)"/.exec(tag)?.[1]);
    const h = Number(/\bheight="(\d+)"/.exec(tag)?.[1]);
    if (!t || t.length < 4 || !(w > 0) || !(h > 0)) continue;
    const [a, b, c, d] = t as [number, number, number, number];
    const lx = Math.hypot(a, b); // length of the image's x axis on the page, in points
    const ly = Math.hypot(c, d);
    if (lx < 1 || ly < 1) continue;
    const ppi = Math.min(w / (lx / 72), h / (ly / 72));
    const area = lx * ly;
    if (!best || area > best.area) best = { area, ppi };
  }
  return best ? best.ppi : null;
}

/** Result of {@link chooseDpi}. */
export interface DpiChoice {
  /** Render resolution in dots per inch. */
  readonly dpi: number;
  /** True when the pixel limit forced the resolution below 50 dpi: the page is too large to OCR. */
  readonly tooLarge: boolean;
}

/**
 * Picks the render resolution: native ppi when known (at least 72), otherwise 300; at most `maxDpi`;
 * lowered so that width x height in pixels stays within `maxPixels`.
 */
export function chooseDpi(nativePpi: number | null, widthPt: number, heightPt: number, maxDpi: number, maxPixels: number): DpiChoice {
  let dpi = nativePpi && Number.isFinite(nativePpi) ? Math.max(72, Math.round(nativePpi)) : 300;
  dpi = Math.min(dpi, maxDpi);
  const inches2 = Math.max(1e-6, (widthPt / 72) * (heightPt / 72));
  const fit = Math.floor(Math.sqrt(maxPixels / inches2));
  if (fit < dpi) dpi = fit;
  return { dpi: Math.max(1, dpi), tooLarge: dpi < 50 };
}
