// OCR of one rendered page with tesseract, with rotation recovery: recognise upright first; when the mean
// word confidence is below 60 (the guide's threshold), ask tesseract's orientation detection (`--psm 0`)
// and try its answer, then the remaining quarter turns while time allows, keeping the most confident
// result. Page segmentation mode 3 (automatic), not single-block: the guide measured single-block failing
// on multi-column scans. One thread per tesseract process (OMP_THREAD_LIMIT=1) so pages can run side by side.
// Each image tesseract sees is straightened first (deskew.ts, ADR 0365): a page scanned 1-3 degrees askew
// lost a fifth of its words on the real set's 150 dpi scans.
import type { Workspace } from '../../ports/process-runner.js';
import type { ConversionContext } from '../conversion-context.js';
import type { LayoutLine } from '../layout-model.js';
import { deskew } from './deskew.js';
import type { OcrLanguageChoice } from './ocr-language.js';
import { encodePgm, halveGray, parsePgm, rotateGray, type GrayImage } from './pgm.js';
import { parseOsd, parseTesseractTsv } from './tesseract-tsv.js';

/** Confidence below which rotations are tried (0..100). */
export const LOW_CONFIDENCE = 60;

/** Options of {@link recognizePage}. */
export interface OcrOptions {
  readonly workspace: Workspace;
  /** Tesseract language codes joined with `+`, e.g. `eng` (default). */
  readonly languages: string;
  /** Time budget for the page in ms, all attempts included. */
  readonly budgetMs: number;
  readonly signal?: AbortSignal;
  readonly maxMemoryBytes?: number;
  /** Monotonic milliseconds. */
  readonly now: () => number;
  /**
   * A clockwise rotation to try first when the upright result is poor, before asking orientation
   * detection (which costs about a second): for a PDF page with /Rotate r, the scan is often upright in
   * its own content and the page rotation turned it, so 360 - r undoes that.
   */
  readonly hintRotation?: number;
  /**
   * The clockwise quarter turn known to make the page upright (an earlier reading of the same page found
   * it): recognise at that turn only, without trying the others.
   */
  readonly knownRotation?: number;
}

/** Result of {@link recognizePage}; coordinates are in points of the upright page. */
export interface OcrPageResult {
  readonly lines: LayoutLine[];
  readonly wordConfidences: number[];
  readonly meanConfidence: number;
  /** Clockwise rotation applied (0, 90, 180, 270). */
  readonly rotation: number;
  /** Degrees the page was turned clockwise after that rotation to straighten its lines (0: none). */
  readonly skew: number;
  readonly timedOut: boolean;
  /** Width and height of the upright page in points. */
  readonly width: number;
  readonly height: number;
}

/** Recognises a grayscale P5 PGM rendered at `dpi`. Returns null when tesseract failed outright. */
export async function recognizePage(pgm: Uint8Array, dpi: number, name: string, options: OcrOptions): Promise<OcrPageResult | null> {
  const started = options.now();
  const remaining = (): number => options.budgetMs - (options.now() - started);
  const image = parsePgm(pgm);
  const scale = 72 / dpi;
  let timedOut = false;
  const run = async (file: string, rotation: number, w: number, h: number, skew = 0): Promise<OcrPageResult | null> => {
    const budget = remaining();
    if (budget <= 200) {
      timedOut = true;
      return null;
    }
    const r = await options.workspace.run({
      tool: 'tesseract',
      // tessedit_do_invert=0 skips tesseract 5's per-line inverted-text pass, which costs about a third of
      // the time on printed pages (tesseract 5.0 release notes; measured 5.3 s -> 3.6 s on a 300 dpi page).
      args: [file, 'stdout', '--psm', '3', '--dpi', String(Math.round(dpi)), '-l', options.languages, '-c', 'tessedit_do_invert=0', 'tsv'],
      timeoutMs: budget,
      env: { OMP_THREAD_LIMIT: '1' },
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.maxMemoryBytes ? { maxMemoryBytes: options.maxMemoryBytes } : {}),
    });
    if (r.timedOut) timedOut = true;
    if (r.exitCode !== 0) return null;
    const t = parseTesseractTsv(Buffer.from(r.stdout).toString('utf8'), scale);
    return { ...t, rotation, skew, timedOut: false, width: w * scale, height: h * scale };
  };
  const better = (a: OcrPageResult | null, b: OcrPageResult | null): OcrPageResult | null => {
    if (!a) return b;
    if (!b) return a;
    const score = (x: OcrPageResult): number => x.meanConfidence * Math.min(1, x.wordConfidences.length / 5);
    return score(b) > score(a) ? b : a;
  };
  const w0 = image?.width ?? 0;
  const h0 = image?.height ?? 0;
  // The upright attempt sees the straightened page; a PGM that does not parse goes to tesseract as it is.
  const straight = (img: GrayImage, bytes?: Uint8Array): { bytes: Uint8Array; skew: number } => {
    const d = deskew(img);
    return { bytes: d.degrees || !bytes ? encodePgm(d.image) : bytes, skew: d.degrees };
  };
  const known = (((options.knownRotation ?? 0) % 360) + 360) % 360;
  if (image && known) {
    const rotated = rotateGray(image, known);
    const s = straight(rotated);
    await options.workspace.writeFile(name, s.bytes);
    const r = await run(name, known, rotated.width, rotated.height, s.skew);
    await options.workspace.remove(name);
    return r ? { ...r, timedOut } : timedOut ? { lines: [], wordConfidences: [], meanConfidence: 0, rotation: known, skew: 0, timedOut: true, width: rotated.width * scale, height: rotated.height * scale } : null;
  }
  const upright = image ? straight(image, pgm) : { bytes: pgm, skew: 0 };
  await options.workspace.writeFile(name, upright.bytes);
  let best = await run(name, 0, w0, h0, upright.skew);
  const poor = (r: OcrPageResult | null): boolean => !r || r.meanConfidence < LOW_CONFIDENCE || r.wordConfidences.length < 3;
  if (image && poor(best) && options.knownRotation === undefined) {
    const tried = new Set([0]);
    const attempt = async (d: number): Promise<void> => {
      if (tried.has(d) || timedOut) return;
      tried.add(d);
      const rotated = rotateGray(image, d);
      const file = `${name.replace(/\.pgm$/, '')}-r${d}.pgm`;
      const s = straight(rotated);
      await options.workspace.writeFile(file, s.bytes);
      const r = await run(file, d, rotated.width, rotated.height, s.skew);
      await options.workspace.remove(file);
      best = better(best, r);
    };
    const hint = (((options.hintRotation ?? 0) % 360) + 360) % 360;
    if (hint) await attempt(hint);
    const order: number[] = [];
    const osdBudget = remaining();
    if (poor(best) && osdBudget > 500) {
      // Orientation detection needs far less resolution than recognition: run it on a half-size copy.
      const half = dpi >= 200 ? halveGray(image) : image;
      const osdFile = `${name.replace(/\.pgm$/, '')}-osd.pgm`;
      await options.workspace.writeFile(osdFile, encodePgm(half));
      const osd = await options.workspace.run({
        tool: 'tesseract',
        args: [osdFile, 'stdout', '--psm', '0', '--dpi', String(Math.round(half === image ? dpi : dpi / 2))],
        timeoutMs: Math.min(osdBudget, 20_000),
        env: { OMP_THREAD_LIMIT: '1' },
        ...(options.signal ? { signal: options.signal } : {}),
      });
      await options.workspace.remove(osdFile);
      const o = parseOsd(`${Buffer.from(osd.stdout).toString('utf8')}\n${osd.stderr}`);
      if (o && o.rotate !== 0) order.push(o.rotate);
    }
    for (const d of [90, 180, 270]) if (!order.includes(d)) order.push(d);
    for (const d of order) {
      if (!poor(best) || timedOut) break;
      await attempt(d);
    }
  }
  await options.workspace.remove(name);
  if (!best) return timedOut ? { lines: [], wordConfidences: [], meanConfidence: 0, rotation: 0, skew: 0, timedOut: true, width: w0 * scale, height: h0 * scale } : null;
  return { ...best, timedOut };
}

/**
 * {@link recognizePage} in the document's OCR language (ocr-language.ts): reads with `choice.current`; when
 * this page's text decides a language that was not given (ADR 0365), the page is read again with it, in
 * what is left of the same budget, and that reading is kept unless it found nothing.
 */
export async function recognizePageInLanguage(
  pgm: Uint8Array,
  dpi: number,
  name: string,
  options: Omit<OcrOptions, 'languages'>,
  choice: OcrLanguageChoice,
): Promise<OcrPageResult | null> {
  const started = options.now();
  const first = await recognizePage(pgm, dpi, name, { ...options, languages: choice.current });
  if (!first || first.timedOut || choice.decided) return first;
  const next = await choice.consider(first.lines.map((l) => l.text).join('\n'));
  if (!next) return first;
  const budgetMs = options.budgetMs - (options.now() - started);
  // The first reading's quarter turn stands: the language does not change which way up the page is.
  const again = await recognizePage(pgm, dpi, name, { ...options, languages: next, budgetMs, knownRotation: first.rotation });
  return again && again.lines.length && !again.timedOut ? again : first;
}

/**
 * One page of a conversion through {@link recognizePageInLanguage}: the conversion's workspace, clock, tool
 * memory cap, cancel signal and document language; `budgetMs` what is left of the page's time.
 */
export function recognizeConversionPage(
  ctx: Pick<ConversionContext, 'workspace' | 'now' | 'limits' | 'signal' | 'ocrLanguage'>,
  pgm: Uint8Array,
  dpi: number,
  name: string,
  budgetMs: number,
  hintRotation?: number,
): Promise<OcrPageResult | null> {
  return recognizePageInLanguage(
    pgm,
    dpi,
    name,
    {
      workspace: ctx.workspace,
      budgetMs: Math.max(0, budgetMs),
      now: ctx.now,
      maxMemoryBytes: ctx.limits.maxToolMemoryBytes,
      ...(hintRotation !== undefined ? { hintRotation } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    },
    ctx.ocrLanguage,
  );
}
