// DJVU page extraction: page facts from `djvudump`, the hidden text layer from `djvused print-txt`
// (several pages per call), and OCR for pages without one (rendered by `ddjvu` at the page's own
// resolution, capped by the limits, and turned as the page's INFO rotation says: ADR 0373). DJVU has no
// fonts: line sizes come from word heights.
import { RecognitionError } from '../errors.js';
import type { ConversionContext } from '../conversion-context.js';
import type { PageExtraction } from '../layout-model.js';
import { mapLimit } from '../map-limit.js';
import { recognizeConversionPage } from '../ocr/ocr-engine.js';
import { chooseDpi } from '../pdf/render-resolution.js';
import { djvuTextLines, parseDjvudump, parseSExprs, type DjvuPageInfo } from './djvu-text.js';

/** What {@link extractDjvu} found. */
export interface DjvuExtraction {
  readonly pageCount: number;
  readonly pages: PageExtraction[];
}

const INPUT = 'input.djvu';
const CHUNK = 20;
const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');

/** Extracts every page of a DJVU document, checkpointing each new page in order. */
export async function extractDjvu(bytes: Uint8Array, ctx: ConversionContext): Promise<DjvuExtraction> {
  const ws = ctx.workspace;
  await ws.writeFile(INPUT, bytes);
  await Promise.all([ctx.useTool('djvused'), ctx.useTool('djvudump')]);
  ctx.backends.add('djvused');
  const sig = ctx.signal ? { signal: ctx.signal } : {};
  const t0 = ctx.now();
  const [dump, count] = await Promise.all([
    ws.run({ tool: 'djvudump', args: [INPUT], timeoutMs: 60_000, maxMemoryBytes: ctx.limits.maxToolMemoryBytes, ...sig }),
    ws.run({ tool: 'djvused', args: [INPUT, '-e', 'n'], timeoutMs: 60_000, maxMemoryBytes: ctx.limits.maxToolMemoryBytes, ...sig }),
  ]);
  ctx.checkCancelled();
  ctx.time('inspect', ctx.now() - t0);
  const n = Number(text(count.stdout).trim());
  if (count.exitCode !== 0 || !Number.isInteger(n)) {
    throw new RecognitionError('damaged_document', 'the DJVU file is damaged (its page directory cannot be read)');
  }
  if (n === 0) throw new RecognitionError('empty_document', 'the DJVU document has no pages');
  if (n > ctx.limits.maxPages) throw new RecognitionError('too_many_pages', `the DJVU document has ${n} pages; the limit is ${ctx.limits.maxPages}`, { pages: n, limit: ctx.limits.maxPages });
  const infos = parseDjvudump(text(dump.stdout));
  const infoOf = (p: number): DjvuPageInfo => infos[p - 1] ?? { width: 0, height: 0, dpi: 300, hasText: true };

  const results = new Map<number, PageExtraction>();
  for (const [p, c] of ctx.resumed) if (p <= n && 'lines' in c.unit) results.set(p, c.unit);
  let next = 1;
  // Serialised: concurrent pages finish out of order, checkpoints must not (nor twice).
  let reporting: Promise<void> = Promise.resolve();
  const report = (): Promise<void> =>
    (reporting = reporting.then(async () => {
      while (results.has(next)) {
        if (!ctx.resumed.has(next)) await ctx.checkpoint(results.get(next)!, n);
        next++;
      }
    }));
  await report();
  let truncated = false;
  for (let start = 1; start <= n; start += CHUNK) {
    const pages = [];
    for (let p = start; p < start + CHUNK && p <= n; p++) if (!results.has(p)) pages.push(p);
    if (!pages.length) continue;
    ctx.checkCancelled();
    if (truncated || ctx.remainingMs() <= 0) {
      truncated = true;
      for (const p of pages) results.set(p, { page: p, kind: 'skipped', width: 0, height: 0, lines: [], images: [], notes: ['TRUNCATED'], ms: 0 });
      continue;
    }
    // `size` before each page's text delimits pages: a page without hidden text prints only its size.
    const script = pages.map((p) => `select ${p}; size; print-txt`).join('; ');
    const t1 = ctx.now();
    const r = await ws.run({
      tool: 'djvused',
      args: [INPUT, '-e', script],
      timeoutMs: Math.max(1000, Math.min(ctx.limits.pageTimeoutMs * pages.length, ctx.remainingMs())),
      maxMemoryBytes: ctx.limits.maxToolMemoryBytes,
      ...sig,
    });
    const chunkMs = ctx.now() - t1;
    ctx.time('extract', chunkMs);
    ctx.checkCancelled();
    const texts = splitBySize(text(r.stdout));
    await mapLimit(pages, ctx.pageConcurrency, async (p, k) => {
      const info = infoOf(p);
      const sized = texts[k];
      const w = sized?.width || info.width;
      const h = sized?.height || info.height;
      const base = { page: p, width: (w * 72) / info.dpi, height: (h * 72) / info.dpi, images: [] as never[], ms: chunkMs / pages.length };
      let page: PageExtraction;
      const exprs = sized ? parseSExprs(sized.text) : [];
      const lines = exprs.length ? djvuTextLines(exprs[0]!, h, info.dpi) : [];
      if (lines.length) page = { ...base, kind: 'text-layer', lines, notes: [] };
      else if (!sized && r.exitCode !== 0) page = { ...base, kind: 'failed', lines: [], notes: [r.timedOut ? 'PAGE_TIMEOUT' : 'PAGE_FAILED'] };
      // OCR reads the page as ddjvu shows it, turned by its rotation (the hidden text keeps the stored frame).
      else page = await ocrDjvuPage(p, info, (sized?.rotation ?? 0) % 2 ? { ...base, width: base.height, height: base.width } : base, ctx);
      results.set(p, page);
      await report();
    });
    if (ctx.remainingMs() <= 0) truncated = true;
  }
  if (truncated) ctx.warn('TRUNCATED', 'the overall time limit was reached; later pages were not converted');
  return { pageCount: n, pages: [...results.values()].sort((a, b) => a.page - b.page) };
}

/**
 * Splits djvused output at `width=W height=H [rotation=R]` lines into per-page texts. R (1-3, quarter turns
 * counter-clockwise, djvused(1) `set-rotation`) is printed only for a page whose INFO chunk turns it.
 */
export function splitBySize(out: string): { width: number; height: number; rotation: number; text: string }[] {
  const res: { width: number; height: number; rotation: number; text: string }[] = [];
  for (const line of out.split('\n')) {
    const m = /^width=(\d+) height=(\d+)(?: rotation=(\d))?/.exec(line);
    if (m) res.push({ width: Number(m[1]), height: Number(m[2]), rotation: Number(m[3] ?? 0), text: '' });
    else if (res.length) res[res.length - 1]!.text += `${line}\n`;
  }
  return res;
}

async function ocrDjvuPage(
  p: number,
  info: DjvuPageInfo,
  base: { page: number; width: number; height: number; images: never[]; ms: number },
  ctx: ConversionContext,
): Promise<PageExtraction> {
  const note = 'DJVU_NO_TEXT_LAYER';
  if (!ctx.ocr.enabled || !(await ctx.runner.probe('tesseract')) || !(await ctx.runner.probe('ddjvu'))) {
    return { ...base, kind: 'empty', lines: [], notes: [note, 'OCR_UNAVAILABLE'] };
  }
  if (ctx.ocrPages >= ctx.limits.maxOcrPages) {
    ctx.warn('OCR_PAGE_LIMIT', `more than ${ctx.limits.maxOcrPages} pages needed OCR; the rest were left empty`, p);
    return { ...base, kind: 'empty', lines: [], notes: [note] };
  }
  ctx.ocrPages++;
  await Promise.all([ctx.useTool('ddjvu'), ctx.useTool('tesseract')]);
  ctx.backends.add('tesseract');
  const t0 = ctx.now();
  const budget = Math.min(ctx.limits.ocrPageTimeoutMs, Math.max(0, ctx.remainingMs()));
  const { dpi, tooLarge } = chooseDpi(info.dpi, base.width, base.height, ctx.limits.maxOcrDpi, ctx.limits.maxPagePixels);
  if (tooLarge) return { ...base, kind: 'failed', lines: [], notes: [note, 'PAGE_TOO_LARGE'] };
  const file = `page-${p}.pgm`;
  // `-scale` is the output resolution in dpi relative to the page's own (ddjvu(1)); it applies the page's
  // rotation. `-size=WxH` from the unturned INFO size shrank a turned page to fit the box (ADR 0373).
  const r = await ctx.workspace.run({
    tool: 'ddjvu',
    args: ['-format=pgm', `-page=${p}`, `-scale=${dpi}`, INPUT, file],
    timeoutMs: Math.max(1000, budget),
    maxMemoryBytes: ctx.limits.maxToolMemoryBytes,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  ctx.checkCancelled();
  const pgm = await ctx.workspace.readFile(file, ctx.limits.maxPagePixels + 1024);
  await ctx.workspace.remove(file);
  if (r.exitCode !== 0 || !pgm) return { ...base, kind: 'failed', lines: [], notes: [note, r.timedOut ? 'PAGE_TIMEOUT' : 'PAGE_FAILED'] };
  const res = await recognizeConversionPage(ctx, pgm, dpi, `ocr-${p}.pgm`, budget - (ctx.now() - t0));
  ctx.checkCancelled();
  const ms = ctx.now() - t0;
  ctx.time('ocr', ms);
  if (!res) return { ...base, kind: 'failed', lines: [], notes: [note, 'PAGE_FAILED'], ms };
  const notes = [note, ...(res.rotation ? ['ROTATED_PAGES_CORRECTED'] : []), ...(res.timedOut ? ['PAGE_TIMEOUT'] : [])];
  return {
    ...base,
    width: res.width,
    height: res.height,
    kind: res.lines.length ? 'ocr' : 'empty',
    lines: res.lines,
    ocr: { wordConfidences: res.wordConfidences, rotation: res.rotation, dpi, meanConfidence: res.meanConfidence },
    notes,
    ms: base.ms + ms,
  };
}
