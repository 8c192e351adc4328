// The converter's entry: detect the format, run its backend page by page (with checkpoints, limits and
// cancellation), build the document structure and Markdown, and report on the quality.
import { createHash } from 'node:crypto';
import type { ProcessRunner } from '../ports/process-runner.js';
import { REQUIRED_TOOLS } from './available-formats.js';
import { usableCheckpoints, type PageCheckpoint } from './checkpoint.js';
import { ConversionContext } from './conversion-context.js';
import { NO_METADATA, pdfMetadata } from './document-metadata.js';
import { extractDjvu } from './djvu/djvu-extractor.js';
import { RecognitionError } from './errors.js';
import { detectFormat, type DocumentFormat } from './format-detection.js';
import type { MarkdownUnit, PageExtraction } from './layout-model.js';
import { resolveLimits, type RecognitionLimits } from './limits.js';
import { renderMarkdown } from './markdown/render-markdown.js';
import { extractPdf } from './pdf/pdf-extractor.js';
import { buildReport, type InputFacts } from './report/build-report.js';
import type { DocumentMetadata, QualityReport } from './report/quality-report.js';
import { countBlocks, type DocBlock, type StructureCounts } from './structure/document-blocks.js';
import { analyzeLayout } from './structure/layout-analysis.js';

/** Options of {@link convertDocument}. */
export interface ConvertOptions {
  /** Runs the external tools (mutool, tesseract, djvulibre). */
  readonly runner: ProcessRunner;
  /** Overrides of the default limits (see limits.ts). */
  readonly limits?: Partial<RecognitionLimits>;
  /** Aborting stops the conversion (running tools are killed) with `cancelled`. */
  readonly signal?: AbortSignal;
  /** Called after each page (PDF, DJVU) or spine item (EPUB) in order; store the checkpoint to resume later. Awaited. */
  readonly onPage?: (checkpoint: PageCheckpoint) => void | Promise<void>;
  /** Checkpoints of an earlier, interrupted run of the same input; their pages are not extracted again. */
  readonly resumeFrom?: readonly PageCheckpoint[];
  /** OCR settings: enabled by default; languages are tesseract codes (default `['eng']`). */
  readonly ocr?: { readonly enabled?: boolean; readonly languages?: readonly string[] };
  /** Emit `<!-- page N -->` markers (default true). */
  readonly pageMarkers?: boolean;
  /** Monotonic clock in milliseconds (default `performance.now`). */
  readonly now?: () => number;
  /**
   * Pages processed at once (OCR runs one single-threaded tesseract per page). Default 1: a worker pool
   * already runs one document per core; raise it when converting one large scanned document alone.
   */
  readonly pageConcurrency?: number;
  /** SHA-256 of `bytes` (hex) when the caller already has it (a job keyed by content); else computed here. */
  readonly sha256?: string;
}

/** A converted document. */
export interface ConversionResult {
  readonly markdown: string;
  readonly report: QualityReport;
  /** Title, authors, language and other metadata guessed for the document model (ingest). */
  readonly metadata: DocumentMetadata;
  /** The structural blocks behind the Markdown (empty for EPUB, which is converted from its markup). */
  readonly blocks: readonly DocBlock[];
}

/**
 * Converts a PDF, EPUB or DJVU document to Markdown with a quality report.
 * Throws {@link RecognitionError} when the document cannot be read at all (nothing to charge for).
 */
export async function convertDocument(bytes: Uint8Array, options: ConvertOptions): Promise<ConversionResult> {
  const limits = resolveLimits(options.limits);
  const now = options.now ?? (() => performance.now());
  if (options.signal?.aborted) throw new RecognitionError('cancelled', 'the conversion was cancelled');
  if (bytes.length > limits.maxBytes) {
    throw new RecognitionError('document_too_large', `the document has ${bytes.length} bytes; the limit is ${limits.maxBytes}`, { bytes: bytes.length, limit: limits.maxBytes });
  }
  const format = detectFormat(bytes);
  if (!format) throw new RecognitionError('unsupported_format', 'the bytes are not a PDF, EPUB or DJVU document');
  const missing: string[] = [];
  for (const t of REQUIRED_TOOLS[format]) if (!(await options.runner.probe(t))) missing.push(t);
  if (missing.length) throw new RecognitionError('format_unavailable', `converting ${format.toUpperCase()} needs ${missing.join(', ')}, which is not installed`, { missing: missing.join(',') });
  // Hashing a large input takes milliseconds: unless checkpoints must be matched first, it is done once the
  // first tools are running (the PDF backend asks for it then; everything else on first use).
  const digest = (): string => createHash('sha256').update(bytes).digest('hex');
  const resumeFrom = options.resumeFrom ?? [];
  const sha256 = options.sha256 ?? (resumeFrom.length > 0 ? digest() : digest);
  const workspace = await options.runner.createWorkspace();
  const ctx = new ConversionContext(
    options.runner,
    workspace,
    limits,
    format,
    sha256,
    typeof sha256 === 'string' ? usableCheckpoints(resumeFrom, sha256, format) : new Map(),
    now,
    { enabled: options.ocr?.enabled ?? true, languages: (options.ocr?.languages ?? ['eng']).join('+') },
    options.signal,
    options.onPage,
    Math.max(1, Math.floor(options.pageConcurrency ?? 1)),
  );
  try {
    return await convertWith(format, bytes, ctx, options.pageMarkers ?? true);
  } finally {
    await workspace.dispose();
  }
}

async function convertWith(format: DocumentFormat, bytes: Uint8Array, ctx: ConversionContext, pageMarkers: boolean): Promise<ConversionResult> {
  const base = { sha256: ctx.sha256, format, bytes: bytes.length };
  if (format === 'epub') {
    // Loaded on demand: the HTML parser and its entity tables cost startup time PDF jobs do not need.
    const { convertEpub } = await import('./epub/epub-converter.js');
    const epub = await convertEpub(bytes, ctx);
    const counts = epub.counts;
    const facts: InputFacts = { ...base, pageCount: epub.units.length, encrypted: epub.encrypted, repaired: false, producer: epub.producer, metadata: epub.metadata };
    const report = buildReport(facts, epub.units, epub.markdown, counts, ctx);
    return { markdown: epub.markdown, report, metadata: report.input.metadata, blocks: [] };
  }
  let pages: PageExtraction[];
  let pageCount: number;
  let outline: { depth: number; title: string; page: number | null }[] = [];
  let info: Record<string, string> = {};
  let encrypted = false;
  let repaired = false;
  if (format === 'pdf') {
    const pdf = await extractPdf(bytes, ctx);
    ({ pages, pageCount, outline } = pdf);
    info = { ...pdf.info.metadata };
    encrypted = pdf.info.encrypted;
    repaired = pdf.repaired;
  } else {
    const djvu = await extractDjvu(bytes, ctx);
    ({ pages, pageCount } = djvu);
  }
  if (pages.length > 0 && pages.every((p) => p.kind === 'skipped' || (p.kind === 'failed' && p.notes.includes('PAGE_TIMEOUT')))) {
    throw new RecognitionError('conversion_timeout', 'no page could be converted within the time limits');
  }
  const t0 = ctx.now();
  const layout = analyzeLayout({ pages, outline });
  ctx.time('layout', ctx.now() - t0);
  const t1 = ctx.now();
  const markdown = renderMarkdown(layout.blocks, { pageMarkers, pageCount });
  ctx.time('render', ctx.now() - t1);
  const counts: StructureCounts = countBlocks(layout.blocks);
  const metadata = format === 'pdf' ? pdfMetadata(info, layout.blocks) : { ...NO_METADATA, title: firstHeading(layout.blocks) };
  const facts: InputFacts = { ...base, pageCount, encrypted, repaired, producer: info.Producer ?? info.Creator ?? null, metadata };
  const report = buildReport(facts, pages as (PageExtraction | MarkdownUnit)[], markdown, counts, ctx, layout);
  return { markdown, report, metadata: report.input.metadata, blocks: layout.blocks };
}

function firstHeading(blocks: readonly DocBlock[]): string | null {
  const h = blocks.find((b) => b.kind === 'heading');
  return h && h.kind === 'heading' ? h.text : null;
}
