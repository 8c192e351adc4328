// PDF page extraction: document facts (`mutool pages`, `mutool info`, `mutool show outline`), then the
// text layer in chunks of pages (`mutool convert -F stext.json`), each page judged usable or sent to OCR
// (rendered with `mutool draw` at the scan's native resolution, recognised with tesseract).
// A chunk that fails or times out is retried page by page, so one bad page costs only itself.
import type { ToolResult } from '../../ports/process-runner.js';
import { RecognitionError } from '../errors.js';
import type { ConversionContext } from '../conversion-context.js';
import type { LayoutLine, PageExtraction } from '../layout-model.js';
import { mapLimit } from '../map-limit.js';
import { recognizeConversionPage } from '../ocr/ocr-engine.js';
import { SHOW_PATHS, SHOW_PATHS_WITH_BOXES, parsePagesXml, parseShowOutput, parseShowWithBoxes, type PdfDocumentInfo, type PdfOutlineEntry, type PdfPageBox } from './pdf-info.js';
import { START_SCRIPT, START_SCRIPT_NAME, TEXT_SCRIPT, TEXT_SCRIPT_NAME } from './mutool-script.js';
import { chooseDpi, nativeImagePpi } from './render-resolution.js';
import { parseStextJson, parseStextPage, rtlShare, type StextPage, type StextPageContent } from './stext-parser.js';
import { parseTraceRules, rebuildStacks } from './math-stacks.js';
import { applyDisplayMath, displayRegions } from './display-math.js';
import { parseTraceGlyphs } from './trace-glyphs.js';
import { mapUnmappedRuns } from './inline-delimiters.js';
import type { MathGlyph } from '../structure/math-layout.js';
import { isMathFont } from '../structure/math-latex.js';
import { accentSuspect, applyOverlaidAccents, fontSpaceAdvances, overlaidAccents, parseStextXml, strayAccentSuspect } from './stext-xml.js';
import { spacingSuspect } from './glyph-spacing.js';
import { judgeTextLayer } from './text-layer-quality.js';

/** What {@link extractPdf} found. */
export interface PdfExtraction {
  readonly pageCount: number;
  readonly pages: PageExtraction[];
  readonly outline: PdfOutlineEntry[];
  readonly info: PdfDocumentInfo;
  readonly repaired: boolean;
}

const INPUT = 'input.pdf';
/**
 * Pages per text-layer process (the start script, then `mutool convert` calls). Each process re-opens the
 * file and reloads its fonts: 32-page chunks took 18-21% less CPU than 16-page ones on 20-100 page
 * documents. Checkpoints still go out page by page.
 */
const CHUNK = 32;

// A view on the same memory, not a copy (Buffer.from(view) would copy the bytes first).
const text = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');

/** Extracts every page of a PDF (reusing checkpointed pages), checkpointing each new page in order. */
export async function extractPdf(bytes: Uint8Array, ctx: ConversionContext): Promise<PdfExtraction> {
  const ws = ctx.workspace;
  const resumed = ctx.resumed.size > 0;
  await Promise.all([
    ws.writeFile(INPUT, bytes),
    resumed ? null : ws.writeFile(START_SCRIPT_NAME, new TextEncoder().encode(START_SCRIPT)),
    ws.writeFile(TEXT_SCRIPT_NAME, new TextEncoder().encode(TEXT_SCRIPT)),
  ]);
  await ctx.useTool('mutool');
  ctx.backends.add('mutool-stext');
  const t0 = ctx.now();
  const mem = { maxMemoryBytes: ctx.limits.maxToolMemoryBytes };
  const sig = ctx.signal ? { signal: ctx.signal } : {};
  const firstRange = Array.from({ length: CHUNK }, (_, i) => i + 1);
  // One `mutool run` process prints the document facts and page boxes (as `mutool show` would) and
  // extracts the first chunk's text layer speculatively (clamped to the page count; discarded if the
  // document turns out unreadable). When its output is not clean (a password, a damaged page tree, a
  // failing page) the separate calls below run instead, so their error handling sees what it always did.
  let speculative: Promise<StextRun | null> | null = null;
  let factsRun: ToolResult | null = null;
  let fast: ReturnType<typeof parseShowWithBoxes> = null;
  if (!resumed && startScriptUsable(ctx)) {
    const started = runStart(firstRange.length, ctx);
    // Awaited below; a rejection before then (a disposed workspace) must not count as unhandled.
    started.catch(() => undefined);
    // The input's hash is computed while the tool runs, not before it starts (the spawn is done by now).
    await new Promise<void>((resolve) => setImmediate(resolve));
    void ctx.sha256;
    const start = await started;
    noteStartScript(ctx, start.run);
    ctx.checkCancelled();
    // The text layer is used whenever the run completed (as a speculative `mutool convert` was), even
    // when its facts are not clean and come from the separate calls below.
    if (start.stext.contents) speculative = Promise.resolve(start.stext);
    if (start.stext.contents && isClean(start.run)) {
      fast = parseShowWithBoxes(text(start.run.stdout));
      if (fast) factsRun = start.run;
    }
  }
  const showRun = (paths: readonly string[]): Promise<ToolResult> =>
    ws.run({ tool: 'mutool', args: ['show', INPUT, ...paths], timeoutMs: 60_000, maxStdoutBytes: 16 * 1024 * 1024, ...mem, ...sig });
  if (!fast) {
    // Document facts and page boxes from one `mutool show` process; `mutool pages` and the plain
    // `mutool show` are asked only when that output is not clean either.
    factsRun = await showRun(SHOW_PATHS_WITH_BOXES);
    void ctx.sha256;
    ctx.checkCancelled();
    fast = isClean(factsRun) ? parseShowWithBoxes(text(factsRun.stdout)) : null;
  }
  const [pagesRun, infoRun] = fast && factsRun
    ? [factsRun, factsRun]
    : await Promise.all([ws.run({ tool: 'mutool', args: ['pages', INPUT], timeoutMs: 60_000, ...mem, ...sig }), showRun(SHOW_PATHS)]);
  ctx.checkCancelled();
  const stderr = fast ? pagesRun.stderr : pagesRun.stderr + infoRun.stderr;
  if (/cannot authenticate password|needs a password|password/i.test(stderr) && pagesRun.exitCode !== 0) {
    throw new RecognitionError('encrypted_document', 'the PDF is protected by a password');
  }
  const parsed = fast ? fast.boxes : parsePagesXml(text(pagesRun.stdout));
  const shown = fast ?? parseShowOutput(text(infoRun.stdout));
  const info: PdfDocumentInfo = shown;
  if (pagesRun.timedOut || infoRun.timedOut) throw new RecognitionError('damaged_document', 'reading the page tree timed out');
  // mutool info's page count is authoritative; `mutool pages` may list phantom or missing pages.
  const count = info.pageCount ?? (parsed.length ? Math.max(...parsed.map((b) => b.page)) : 0);
  if (count === 0) {
    if (info.pageCount === 0 && !/cannot find page tree|cannot load/i.test(stderr)) throw new RecognitionError('empty_document', 'the PDF has no pages');
    if (/error|cannot|syntax|broken|repair/i.test(stderr) || pagesRun.exitCode !== 0 || infoRun.exitCode !== 0) {
      throw new RecognitionError('damaged_document', 'the PDF is damaged beyond repair (no readable page tree)', { detail: firstError(stderr) });
    }
    throw new RecognitionError('empty_document', 'the PDF has no pages');
  }
  if (count > ctx.limits.maxPages) {
    throw new RecognitionError('too_many_pages', `the PDF has ${count} pages; the limit is ${ctx.limits.maxPages}`, { pages: count, limit: ctx.limits.maxPages });
  }
  const known = new Map(parsed.map((b) => [b.page, b]));
  const boxes: PdfPageBox[] = [];
  for (let p = 1; p <= count; p++) boxes.push(known.get(p) ?? { page: p, width: 612, height: 792, rotate: 0 });
  const outline = infoRun.exitCode === 0 ? shown.outline : [];
  let repaired = /repair/i.test(stderr);
  ctx.time('inspect', ctx.now() - t0);
  if (info.encrypted) ctx.warn('ENCRYPTED', 'the PDF is encrypted with an empty user password; it was read, but its permissions may restrict reuse');

  const pageCount = boxes.length;
  const byPage = new Map<number, PdfPageBox>(boxes.map((b) => [b.page, b]));
  const results = new Map<number, PageExtraction>();
  for (const [n, c] of ctx.resumed) if (n <= pageCount && 'lines' in c.unit) results.set(n, c.unit);

  const todo: number[] = [];
  for (let p = 1; p <= pageCount; p++) if (!results.has(p)) todo.push(p);
  // Pages checkpointed strictly in order: a resumed job continues after the last contiguous page.
  let nextToReport = 1;
  // Serialised: concurrent pages finish out of order, checkpoints must not (nor twice).
  let reporting: Promise<void> = Promise.resolve();
  const report = (): Promise<void> =>
    (reporting = reporting.then(async () => {
      while (results.has(nextToReport)) {
        const r = results.get(nextToReport)!;
        if (!ctx.resumed.has(nextToReport)) await ctx.checkpoint(r, pageCount);
        nextToReport++;
      }
    }));
  await report();

  const chunks: number[][] = [];
  for (let i = 0; i < todo.length; ) {
    // Chunks are runs of consecutive pages so one mutool call covers a page range.
    const chunk = [todo[i]!];
    i++;
    while (i < todo.length && chunk.length < CHUNK && todo[i] === chunk[chunk.length - 1]! + 1) chunk.push(todo[i++]!);
    chunks.push(chunk);
  }

  let truncated = false;
  // The next chunk's text layer is extracted while this chunk's pages are judged and OCRed (two cores).
  const first = chunks[0];
  let pending: Promise<ChunkResult> | null = first
    ? (async (): Promise<ChunkResult> => {
        const spec = first[0] === 1 ? await speculative : null;
        if (spec?.contents && spec.contents.length >= first.length) {
          return { pages: spec.contents.slice(0, first.length), timedOut: first.map(() => false), repaired: spec.repaired, msPerPage: spec.ms / spec.contents.length };
        }
        return extractChunk(first, ctx);
      })()
    : null;
  for (let ci = 0; ci < chunks.length; ci++) {
    const chunk = chunks[ci]!;
    ctx.checkCancelled();
    if (truncated || ctx.remainingMs() <= 0 || !pending) {
      truncated = true;
      await pending?.catch(() => undefined);
      pending = null;
      for (const p of chunk) results.set(p, skipped(p, byPage.get(p)!));
      continue;
    }
    const contents = await pending;
    const next = chunks[ci + 1];
    pending = next && ctx.remainingMs() > 0 ? extractChunk(next, ctx) : null;
    // A rejected prefetch (cancellation) surfaces when awaited; keep it from being reported as unhandled.
    pending?.catch(() => undefined);
    if (contents.repaired) repaired = true;
    // The chunk's pages with math are traced by one process (ADR 0344) rather than one process each.
    const traces = traceBatch(chunk.filter((p, k) => needsTrace(contents.pages[k])), ctx);
    // Pages of a chunk are judged (and OCRed when needed) up to `pageConcurrency` at a time; checkpoints
    // still go out in page order.
    await mapLimit(chunk, ctx.pageConcurrency, async (p, k) => {
      const box = byPage.get(p)!;
      const started = ctx.now();
      const content = contents.pages[k];
      let page: PageExtraction;
      if (!content) {
        page = { page: p, kind: 'failed', width: box.width, height: box.height, lines: [], images: [], notes: [contents.timedOut[k] ? 'PAGE_TIMEOUT' : 'PAGE_FAILED'], ms: 0 };
      } else {
        page = await pageFromContent(p, box, content, ctx, traces.get(p));
      }
      results.set(p, { ...page, ms: page.ms + (ctx.now() - started) + contents.msPerPage });
      ctx.checkCancelled();
      await report();
    });
    if (ctx.remainingMs() <= 0) truncated = true;
  }
  if (truncated) ctx.warn('TRUNCATED', 'the overall time limit was reached; later pages were not converted');
  const pages = [...results.values()].sort((a, b) => a.page - b.page);
  return { pageCount, pages, outline, info, repaired };
}

function skipped(p: number, box: PdfPageBox): PageExtraction {
  return { page: p, kind: 'skipped', width: box.width, height: box.height, lines: [], images: [], notes: ['TRUNCATED'], ms: 0 };
}

function firstError(stderr: string): string {
  return (stderr.split('\n').find((l) => /error/i.test(l)) ?? '').replace(/input\.pdf/g, 'document').slice(0, 200);
}

interface ChunkResult {
  pages: (StextPageContent | undefined)[];
  timedOut: boolean[];
  repaired: boolean;
  msPerPage: number;
}

/** A text-layer extraction: the pages' contents (null when the run failed), whether it timed out, whether MuPDF repaired the file. */
interface StextRun {
  contents: StextPageContent[] | null;
  timedOut: boolean;
  repaired: boolean;
  ms: number;
}

/**
 * Time limit of one text-layer process: the per-page limit for each page, for at most 16 pages, so a
 * hanging page holds a 32-page chunk no longer than it held a 16-page one before its pages are retried
 * one by one.
 */
function chunkTimeoutMs(pages: number, ctx: ConversionContext): number {
  return ctx.limits.pageTimeoutMs * Math.min(pages, 16);
}

/**
 * Start-script outcomes per mutool version: a mutool whose MuJS API differs from 1.21's fails the script on
 * every document with a ReferenceError or TypeError (MuPDF's own errors are plain `Error`s). After three
 * such failures and no success the script is no longer tried with that version in this process.
 */
const API_ERROR_RE = /^(?:ReferenceError|TypeError|SyntaxError)\b/m;
const startScriptOutcomes = new Map<string, { apiFailures: number; successes: number }>();

function startScriptUsable(ctx: ConversionContext): boolean {
  const o = startScriptOutcomes.get(ctx.tools.mutool ?? '');
  return !o || o.successes > 0 || o.apiFailures < 3;
}

function noteStartScript(ctx: ConversionContext, run: ToolResult): void {
  const key = ctx.tools.mutool ?? '';
  const o = startScriptOutcomes.get(key) ?? { apiFailures: 0, successes: 0 };
  if (run.exitCode === 0) o.successes++;
  else if (API_ERROR_RE.test(run.stderr)) o.apiFailures++;
  startScriptOutcomes.set(key, o);
}

/** Whether a facts run's output can be trusted as is (no failure, no password or error message). */
function isClean(r: ToolResult): boolean {
  return r.exitCode === 0 && !r.timedOut && !r.outputLimitExceeded && !/error|password/i.test(r.stderr);
}

/** Runs the start script (see mutool-script.ts): the facts on stdout, the first `pages` pages' text layer. */
async function runStart(pages: number, ctx: ConversionContext): Promise<{ run: ToolResult; stext: StextRun }> {
  const out = 'stext-1-spec.json';
  const timeout = Math.max(1000, Math.min(chunkTimeoutMs(pages, ctx), ctx.remainingMs()));
  const t0 = ctx.now();
  const run = await ctx.workspace.run({
    tool: 'mutool',
    args: ['run', START_SCRIPT_NAME, INPUT, out, String(pages)],
    timeoutMs: timeout,
    maxStdoutBytes: 16 * 1024 * 1024,
    maxMemoryBytes: ctx.limits.maxToolMemoryBytes,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  const ms = ctx.now() - t0;
  ctx.time('extract', ms);
  return { run, stext: await readStext(out, pages, run, ms, ctx, true) };
}

/** Reads and parses a text-layer JSON file a mutool run wrote (and removes it). */
async function readStext(out: string, pages: number, r: ToolResult, ms: number, ctx: ConversionContext, clamped: boolean): Promise<StextRun> {
  ctx.checkCancelled();
  // A pathological page (millions of glyphs) must not exhaust memory: 64 MiB of JSON per page at most.
  const bytes = await ctx.workspace.readFile(out, 64 * 1024 * 1024 * pages);
  await ctx.workspace.remove(out);
  const repaired = /repair/i.test(r.stderr);
  if (r.timedOut || r.exitCode !== 0 || !bytes) return { contents: null, timedOut: r.timedOut, repaired, ms };
  try {
    const contents = parseStextJson(text(bytes));
    const ok = clamped ? contents.length > 0 && contents.length <= pages : contents.length === pages;
    return { contents: ok ? contents : null, timedOut: false, repaired, ms };
  } catch {
    return { contents: null, timedOut: false, repaired, ms };
  }
}

/**
 * The text layer of a page range in MuPDF's `stext.json` or `stext` (XML) format: by the text script (the
 * ligature names mapped first, see mutool-script.ts), or by `mutool convert` where this mutool's script API
 * differs (the start script's record, kept by the start script alone) or the script fails on it with an API error.
 */
async function textLayerRun(format: 'stext.json' | 'stext', out: string, range: string, timeoutMs: number, ctx: ConversionContext): Promise<ToolResult> {
  const base = { tool: 'mutool', timeoutMs, maxMemoryBytes: ctx.limits.maxToolMemoryBytes, ...(ctx.signal ? { signal: ctx.signal } : {}) };
  if (startScriptUsable(ctx)) {
    const r = await ctx.workspace.run({ ...base, args: ['run', TEXT_SCRIPT_NAME, INPUT, out, format, range] });
    if (r.exitCode === 0 || !API_ERROR_RE.test(r.stderr)) return r;
  }
  return ctx.workspace.run({ ...base, args: ['convert', '-F', format, '-O', 'preserve-images', '-o', out, INPUT, range] });
}

async function runStext(pages: number[], ctx: ConversionContext, clamped = false): Promise<StextRun> {
  const out = `stext-${pages[0]}${clamped ? '-spec' : ''}.json`;
  const range = pages.length === 1 ? String(pages[0]) : `${pages[0]}-${pages[pages.length - 1]}`;
  const timeout = Math.max(1000, Math.min(chunkTimeoutMs(pages.length, ctx), ctx.remainingMs()));
  const t0 = ctx.now();
  const r = await textLayerRun('stext.json', out, range, timeout, ctx);
  const ms = ctx.now() - t0;
  ctx.time('extract', ms);
  return readStext(out, pages.length, r, ms, ctx, clamped);
}

async function extractChunk(pages: number[], ctx: ConversionContext): Promise<ChunkResult> {
  const whole = await runStext(pages, ctx);
  if (whole.contents) return { pages: whole.contents, timedOut: pages.map(() => false), repaired: whole.repaired, msPerPage: whole.ms / pages.length };
  if (pages.length === 1) return { pages: [undefined], timedOut: [whole.timedOut], repaired: whole.repaired, msPerPage: whole.ms };
  // Isolate the failing page(s).
  const res: ChunkResult = { pages: [], timedOut: [], repaired: whole.repaired, msPerPage: 0 };
  for (const p of pages) {
    if (ctx.remainingMs() <= 0) {
      res.pages.push(undefined);
      res.timedOut.push(true);
      continue;
    }
    const one = await runStext([p], ctx);
    res.pages.push(one.contents?.[0]);
    res.timedOut.push(one.timedOut);
    res.repaired ||= one.repaired;
  }
  return res;
}

/**
 * Whether a page will be traced by {@link pageFromContent}: stacked math (ADR 0134) or a displayed equation
 * (ADR 0320), or an extension-font glyph (U+FFFD) in a text line outside the displays (ADR 0348). A stacked
 * page is traced whether or not its rebuilt lines hold a display; any other page
 * keeps its lines, so the display test here is the one pageFromContent makes.
 */
function needsTrace(content: StextPageContent | undefined): boolean {
  return !!content && (!!content.stacked || hasDisplay(content.lines) || (!!content.unmapped && unmappedOutside(content.lines, displayBoxes(content.lines))));
}

/** A page's display regions, remembered per lines array (asked again for the same page, then applied). */
const displayFound = new WeakMap<readonly LayoutLine[], number[][]>();
function regionsOf(lines: readonly LayoutLine[]): number[][] {
  let found = displayFound.get(lines);
  if (found === undefined) displayFound.set(lines, (found = displayRegions(lines)));
  return found;
}
const hasDisplay = (lines: readonly LayoutLine[]): boolean => regionsOf(lines).length > 0;

/**
 * The traces of several pages from one `mutool draw -F trace` process (`trace-%d.xml`, one file per page,
 * byte for byte what a process per page writes): each process re-opens the file, reloads the fonts and costs
 * a spawn, which made the per-page traces the largest cost of papers with displayed math (ADR 0344). A page
 * whose trace the batch did not give (the process failed or timed out) is traced on its own as before.
 */
function traceBatch(pages: readonly number[], ctx: ConversionContext): Map<number, Promise<string | null>> {
  const out = new Map<number, Promise<string | null>>();
  if (pages.length < 2 || ctx.remainingMs() <= 0) return out;
  const t0 = ctx.now();
  const run = (async (): Promise<ToolResult | null> => {
    try {
      return await ctx.workspace.run({
        tool: 'mutool',
        args: ['draw', '-F', 'trace', '-o', 'trace-%d.xml', INPUT, pages.join(',')],
        timeoutMs: Math.max(1000, Math.min(ctx.limits.pageTimeoutMs * Math.min(pages.length, 16), ctx.remainingMs())),
        maxMemoryBytes: ctx.limits.maxToolMemoryBytes,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
    } catch {
      return null;
    } finally {
      ctx.time('extract', ctx.now() - t0);
    }
  })();
  // Every page's file is read (and removed) once the process has ended; a failed run leaves them all to
  // the per-page path.
  const files = run.then(async (r) => {
    const ok = !!r && !r.timedOut && r.exitCode === 0;
    const got = new Map<number, string | null>();
    for (const p of pages) {
      const name = `trace-${p}.xml`;
      const bytes = await ctx.workspace.readFile(name, 64 * 1024 * 1024).catch(() => null);
      if (bytes) await ctx.workspace.remove(name).catch(() => undefined);
      got.set(p, ok && bytes ? text(bytes) : null);
    }
    return got;
  });
  files.catch(() => undefined);
  for (const p of pages) out.set(p, files.then((m) => m.get(p) ?? null, () => null));
  return out;
}

async function pageFromContent(p: number, box: PdfPageBox, content000: StextPageContent, ctx: ConversionContext, batched?: Promise<string | null>): Promise<PageExtraction> {
  // Pages with math are traced once (`mutool draw -F trace`): for the rules of stacked fractions and
  // radicals (ADR 0134), and for the glyphs of displayed equations (ADR 0320). A trace from the chunk's
  // batch is used when it came; otherwise the page is traced on its own.
  let traced: Promise<string | null> | undefined;
  const trace = (): Promise<string | null> => (traced ??= batched ? batched.then((xml) => xml ?? traceXml(p, ctx)) : traceXml(p, ctx));
  // The trace's glyphs, parsed once for the inline delimiters and the displays of the page.
  let glyphs: MathGlyph[] | undefined;
  const traceGlyphs = (xml: string): MathGlyph[] => (glyphs ??= parseTraceGlyphs(xml));
  // Big delimiters and operators of the extension font inside text lines (U+FFFD) are named from the trace.
  const content00 = content000.unmapped ? await inlineDelimiters(content000, ctx, trace, traceGlyphs) : content000;
  const content1 = content00.stacked ? await stackedContent(p, content00, ctx, trace) : content00;
  const content0 = hasDisplay(content1.lines) ? await displayContent(content1, ctx, trace, traceGlyphs) : content1;
  // Right-to-left pages are read again from the XML, whose character boxes reveal ligatures; so are pages
  // whose words look split at every glyph or run together, whose spaces are decided again from the
  // glyphs' advances (ADR 0290). Stacked-math pages keep their rebuilt stacks.
  const respace = !content00.stacked && spacingSuspect(content0.lines);
  // So are pages with a spacing accent standing apart from its letter (drawn after the word and moved back
  // over its letter: the XML's glyph boxes put it in place and compose it, ADR 0380).
  const reread = rtlShare(content0.lines) > 0.2 || respace || (!content00.stacked && strayAccentSuspect(content0.lines));
  // On a stacked-math page only the letter-split or run-together lines take the XML's text (ADR 0374
  // amendment: Elsevier's letter-spaced "A R T I C L E I N F O" beside a fraction).
  // The page's XML is read at most once, whichever of the passes below asks for it.
  let xmlRead: Promise<XmlPage | null> | undefined;
  const readXml = (): Promise<XmlPage | null> => (xmlRead ??= xmlPage(p, ctx));
  const content0r = !reread && content00.stacked && spacingSuspect(content0.lines) ? await respacedLines(content0, readXml) : content0;
  // A page whose running text has an ASCII grave, circumflex or tilde right before a letter is read from the XML
  // too: where the glyph boxes show the accent set over its letter (an OT1 TeX accent) it is composed
  // with it, where it has its own advance (a backtick of code) it stays (ADR 0374, accents).
  const accented = !reread && accentSuspect(content0r.lines) ? await readXml() : null;
  const content = reread
    ? ((await xmlContent(readXml)) ?? content0)
    : accented
      ? { ...content0r, lines: applyOverlaidAccents(content0r.lines, overlaidAccents(accented.xml)) }
      : content0r;
  const verdict = judgeTextLayer(content.lines, content.images, box.width, box.height);
  const base = { page: p, width: box.width, height: box.height, images: content.images, ms: 0 };
  if (verdict === 'usable') return { ...base, kind: 'text-layer', lines: content.lines, notes: content.unresolvedStacks ? ['EQUATIONS_AS_TEXT'] : [] };
  if (verdict === 'empty') return { ...base, kind: 'empty', lines: [], notes: ['EMPTY_PAGES'] };
  const note = verdict === 'garbled' ? 'GARBLED_TEXT_LAYER' : 'IMAGE_ONLY_PAGES';
  const ocr = await ocrPdfPage(p, box, ctx);
  if (ocr) return { ...ocr, images: content.images, notes: [note, ...ocr.notes] };
  // Without OCR a garbled text layer is still better than nothing; an image-only page stays empty.
  if (verdict === 'garbled') return { ...base, kind: 'text-layer', lines: content.lines, notes: [note, 'OCR_UNAVAILABLE'] };
  return { ...base, kind: 'empty', lines: [], notes: [note, 'OCR_UNAVAILABLE'] };
}

/**
 * A page with stacked math parsed again with its fractions and radicals rebuilt from the page's horizontal
 * rules (`mutool draw -F trace`, one process for the page); the page as it was when the trace fails or no
 * stack has clear evidence.
 */
async function stackedContent(p: number, content: StextPageContent, ctx: ConversionContext, trace: () => Promise<string | null>): Promise<StextPageContent> {
  const plain: StextPageContent = { lines: content.lines, images: content.images };
  if (!content.stacked || ctx.remainingMs() <= 0) return plain;
  const xml = await trace();
  if (xml === null) return plain;
  try {
    const rebuilt = rebuildStacks(content.stacked, parseTraceRules(xml), isMathFont);
    if (rebuilt.rebuilt === 0 && rebuilt.unresolved === 0) return plain;
    const again = parseStextPage(rebuilt.page as StextPage);
    return { lines: again.lines, images: again.images, ...(rebuilt.unresolved > 0 ? { unresolvedStacks: rebuilt.unresolved } : {}) };
  } catch {
    return plain;
  }
}

/** The boxes of a page's display regions (their glyphs are rebuilt with the displays, not mapped inline). */
function displayBoxes(lines: readonly LayoutLine[]): { x0: number; y0: number; x1: number; y1: number }[] {
  return regionsOf(lines).map((r) => {
    const ls = r.map((i) => lines[i]!);
    return { x0: Math.min(...ls.map((l) => l.x0)), y0: Math.min(...ls.map((l) => l.y0)), x1: Math.max(...ls.map((l) => l.x1)), y1: Math.max(...ls.map((l) => l.y1)) };
  });
}

/** Whether a line outside the displays holds an unmapped glyph (U+FFFD): only those call for the trace. */
function unmappedOutside(lines: readonly LayoutLine[], keepOut: readonly { x0: number; y0: number; x1: number; y1: number }[]): boolean {
  const inside = (l: { x0: number; y0: number; x1: number; y1: number }) => keepOut.some((k) => (l.x0 + l.x1) / 2 >= k.x0 && (l.x0 + l.x1) / 2 <= k.x1 && (l.y0 + l.y1) / 2 >= k.y0 && (l.y0 + l.y1) / 2 <= k.y1);
  return lines.some((l) => l.text.includes('\uFFFD') && !inside(l));
}

/**
 * A page whose text runs hold extension-font glyphs (U+FFFD) outside its displays, parsed again with each
 * such glyph replaced by the character its traced glyph name gives (pdf/inline-delimiters.ts); the page as
 * it was when the trace fails or nothing maps. Displays keep theirs: they are rebuilt from the glyphs.
 */
async function inlineDelimiters(content: StextPageContent, ctx: ConversionContext, trace: () => Promise<string | null>, glyphsOf: (xml: string) => MathGlyph[]): Promise<StextPageContent> {
  const { unmapped: raw, ...plain } = content;
  if (!raw || ctx.remainingMs() <= 0) return plain;
  const keepOut = displayBoxes(content.lines);
  if (!unmappedOutside(content.lines, keepOut)) return plain;
  const xml = await trace();
  if (xml === null) return plain;
  const t0 = ctx.now();
  try {
    const done = mapUnmappedRuns(raw, glyphsOf(xml), keepOut);
    if (!done.mapped) return plain;
    // Only the changed blocks are parsed again; their lines replace the old ones (a line's block is the
    // index of its block among the page's text blocks).
    let lines = content.lines;
    const all = done.page.blocks ?? [];
    for (const bi of done.changedBlocks) {
      const index = all.slice(0, bi).filter((b) => b.type !== 'image').length;
      const fresh = parseStextPage({ blocks: [all[bi]!] }).lines.map((l) => ({ ...l, block: index }));
      const at = lines.findIndex((l) => l.block === index);
      if (at < 0) continue;
      lines = [...lines.slice(0, at), ...fresh, ...lines.slice(at).filter((l) => l.block !== index)];
    }
    return { ...plain, lines, ...(plain.stacked ? { stacked: done.page } : {}) };
  } finally {
    ctx.time('layout', ctx.now() - t0);
  }
}

/** The page's trace (`mutool draw -F trace`, one process), or null when it fails. */
async function traceXml(p: number, ctx: ConversionContext): Promise<string | null> {
  if (ctx.remainingMs() <= 0) return null;
  const out = `trace-${p}.xml`;
  const t0 = ctx.now();
  try {
    const r = await ctx.workspace.run({
      tool: 'mutool',
      args: ['draw', '-F', 'trace', '-o', out, INPUT, String(p)],
      timeoutMs: Math.max(1000, Math.min(ctx.limits.pageTimeoutMs, ctx.remainingMs())),
      maxMemoryBytes: ctx.limits.maxToolMemoryBytes,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    const bytes = await ctx.workspace.readFile(out, 64 * 1024 * 1024);
    await ctx.workspace.remove(out);
    if (r.timedOut || r.exitCode !== 0 || !bytes) return null;
    return text(bytes);
  } catch {
    ctx.checkCancelled();
    return null;
  } finally {
    ctx.time('extract', ctx.now() - t0);
  }
}

/**
 * A page with displayed equations: each rebuilt whole from the page's traced glyphs and rules (ADR 0320);
 * the page as it was when the trace fails or nothing could be rebuilt.
 */
async function displayContent(content: StextPageContent, ctx: ConversionContext, trace: () => Promise<string | null>, glyphsOf: (xml: string) => MathGlyph[]): Promise<StextPageContent> {
  const xml = await trace();
  if (xml === null) return content;
  const t0 = ctx.now();
  try {
    const done = applyDisplayMath(content.lines, glyphsOf(xml), parseTraceRules(xml), regionsOf(content.lines));
    if (done.rebuilt === 0) return content;
    // Stacks the run-level pass left as text (ADR 0134) are counted as such only while some line of a
    // plain block remains outside the rebuilt displays.
    const before = content.unresolvedStacks ? new Set(content.lines) : null;
    const left = before && done.lines.some((l) => l.display === undefined && before.has(l) && l.math === undefined && /[=+−]/.test(l.text)) ? content.unresolvedStacks : 0;
    const { unresolvedStacks: _u, ...rest } = content;
    return { ...rest, lines: done.lines, ...(left ? { unresolvedStacks: left } : {}) };
  } finally {
    ctx.time('layout', ctx.now() - t0);
  }
}

/** A page of MuPDF's XML structured text and its fonts' space advances (see xmlPage). */
interface XmlPage {
  readonly xml: string;
  readonly spaces: Map<string, number>;
}

/**
 * One page of MuPDF's XML structured text (images reduced to their boxes) and, when the text script wrote
 * it, the space advance of each of the page's simple fonts from their /Widths (fontSpaceAdvances); null
 * when mutool fails.
 */
async function xmlPage(p: number, ctx: ConversionContext): Promise<XmlPage | null> {
  const out = `stext-${p}.xml`;
  const r = await textLayerRun('stext', out, String(p), Math.max(1000, Math.min(ctx.limits.pageTimeoutMs, ctx.remainingMs())), ctx);
  const bytes = await ctx.workspace.readFile(out, 128 * 1024 * 1024);
  await ctx.workspace.remove(out);
  if (r.exitCode !== 0 || !bytes) return null;
  // The XML writer base64-encodes images with preserve-images; drop them before parsing.
  return { xml: text(bytes).replace(/<image bbox="([^"]+)"[^>]*>[\s\S]*?<\/image>/g, '<image bbox="$1"/>'), spaces: fontSpaceAdvances(text(r.stdout)) };
}

async function xmlContent(readXml: () => Promise<XmlPage | null>): Promise<StextPageContent | null> {
  const read = await readXml();
  if (read === null) return null;
  const [page] = parseStextXml(read.xml, read.spaces);
  return page ? parseStextPage(page as Parameters<typeof parseStextPage>[0]) : null;
}

/**
 * A page's lines with those that look letter-split or run together (spacingSuspect; no math, no segments)
 * given the text of the XML line in the same place with the same characters, its spaces decided from the
 * glyph advances (glyph-spacing.ts). Every other line stays as it is (a stacked-math page keeps its stacks).
 */
async function respacedLines(content: StextPageContent, readXml: () => Promise<XmlPage | null>): Promise<StextPageContent> {
  const again = await xmlContent(readXml);
  if (!again) return content;
  const bare = (s: string): string => s.replace(/\s+/g, '');
  let changed = false;
  const lines = content.lines.map((l) => {
    if (l.math !== undefined || l.segments || !spacingSuspect([l])) return l;
    // The JSON writer rounds boxes to whole points; the XML box ends at the last glyph's advance.
    const m = again.lines.find((x) => Math.abs(x.x0 - l.x0) < 2 && Math.abs(x.y0 - l.y0) < 2 && bare(x.text) === bare(l.text));
    if (!m || m.text === l.text) return l;
    changed = true;
    return { ...l, text: m.text };
  });
  return changed ? { ...content, lines } : content;
}

/** Renders and recognises one page; null when OCR is unavailable, disabled or over its page budget. */
async function ocrPdfPage(p: number, box: PdfPageBox, ctx: ConversionContext): Promise<PageExtraction | null> {
  if (!ctx.ocr.enabled || !(await ctx.runner.probe('tesseract'))) return null;
  if (ctx.ocrPages >= ctx.limits.maxOcrPages) {
    ctx.warn('OCR_PAGE_LIMIT', `more than ${ctx.limits.maxOcrPages} pages needed OCR; the rest were left empty`, p);
    return null;
  }
  ctx.ocrPages++;
  await ctx.useTool('tesseract');
  ctx.backends.add('tesseract');
  const t0 = ctx.now();
  const budget = Math.min(ctx.limits.ocrPageTimeoutMs, Math.max(0, ctx.remainingMs()));
  const base = { page: p, width: box.width, height: box.height, images: [], lines: [] };
  const sig = ctx.signal ? { signal: ctx.signal } : {};
  const trace = await ctx.workspace.run({
    tool: 'mutool',
    args: ['draw', '-q', '-K', '-F', 'trace', '-o', '-', INPUT, String(p)],
    timeoutMs: Math.max(1000, Math.min(budget, ctx.limits.pageTimeoutMs)),
    maxStdoutBytes: 32 * 1024 * 1024,
    maxMemoryBytes: ctx.limits.maxToolMemoryBytes,
    ...sig,
  });
  ctx.checkCancelled();
  const ppi = trace.exitCode === 0 ? nativeImagePpi(text(trace.stdout)) : null;
  const { dpi, tooLarge } = chooseDpi(ppi, box.width, box.height, ctx.limits.maxOcrDpi, ctx.limits.maxPagePixels);
  if (tooLarge) return { ...base, kind: 'failed', notes: ['PAGE_TOO_LARGE'], ms: ctx.now() - t0 };
  const file = `page-${p}.pgm`;
  const render = await ctx.workspace.run({
    tool: 'mutool',
    args: ['draw', '-q', '-r', String(dpi), '-c', 'gray', '-F', 'pnm', '-o', file, INPUT, String(p)],
    timeoutMs: Math.max(1000, budget - (ctx.now() - t0)),
    maxMemoryBytes: ctx.limits.maxToolMemoryBytes,
    ...sig,
  });
  ctx.checkCancelled();
  const pgm = await ctx.workspace.readFile(file, ctx.limits.maxPagePixels + 1024);
  await ctx.workspace.remove(file);
  if (render.exitCode !== 0 || !pgm) return { ...base, kind: 'failed', notes: [render.timedOut ? 'PAGE_TIMEOUT' : 'PAGE_FAILED'], ms: ctx.now() - t0 };
  const result = await recognizeConversionPage(ctx, pgm, dpi, `ocr-${p}.pgm`, budget - (ctx.now() - t0), box.rotate ? 360 - box.rotate : 0);
  ctx.checkCancelled();
  const ms = ctx.now() - t0;
  ctx.time('ocr', ms);
  if (!result) return { ...base, kind: 'failed', notes: ['PAGE_FAILED'], ms };
  const notes: string[] = [];
  if (result.rotation) notes.push('ROTATED_PAGES_CORRECTED');
  if (result.timedOut) notes.push('PAGE_TIMEOUT');
  return {
    page: p,
    kind: result.lines.length ? 'ocr' : result.timedOut ? 'failed' : 'empty',
    width: result.width,
    height: result.height,
    lines: result.lines,
    images: [],
    ocr: { wordConfidences: result.wordConfidences, rotation: result.rotation, dpi, meanConfidence: result.meanConfidence },
    notes,
    ms,
  };
}

