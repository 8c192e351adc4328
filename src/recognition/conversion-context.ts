// What one conversion carries through its steps: the workspace, limits, deadline, cancellation,
// checkpointing, warnings, tool versions and timings. Internal to the capability.
import type { ProcessRunner, Workspace } from '../ports/process-runner.js';
import type { PageCheckpoint } from './checkpoint.js';
import { PIPELINE_VERSION } from './checkpoint.js';
import { RecognitionError } from './errors.js';
import type { DocumentFormat } from './format-detection.js';
import type { MarkdownUnit, PageExtraction } from './layout-model.js';
import type { RecognitionLimits } from './limits.js';
import { OcrLanguageChoice, parseListLangs } from './ocr/ocr-language.js';
import type { WarningCode } from './report/quality-report.js';

/** Internal state of one conversion. */
export class ConversionContext {
  readonly warnings = new Map<WarningCode, { message: string; pages: Set<number> }>();
  readonly timings: Record<string, number> = {};
  readonly tools: Record<string, string> = {};
  readonly backends = new Set<string>();
  readonly started: number;
  ocrPages = 0;
  /** The document's OCR languages: the configured ones, plus its own when its first OCR text says (ADR 0365). */
  readonly ocrLanguage: OcrLanguageChoice;
  #sha256: string | (() => string);

  constructor(
    readonly runner: ProcessRunner,
    readonly workspace: Workspace,
    readonly limits: RecognitionLimits,
    readonly format: DocumentFormat,
    /** The input's SHA-256 (hex), or a function computing it on first use (off the path to the first tool). */
    sha256: string | (() => string),
    readonly resumed: Map<number, PageCheckpoint>,
    readonly now: () => number,
    readonly ocr: { readonly enabled: boolean; readonly languages: string },
    readonly signal: AbortSignal | undefined,
    readonly onPage: ((c: PageCheckpoint) => void | Promise<void>) | undefined,
    /** Pages processed at once within a chunk (OCR is the part that benefits). */
    readonly pageConcurrency = 1,
  ) {
    this.started = now();
    this.#sha256 = sha256;
    this.ocrLanguage = new OcrLanguageChoice(ocr.languages, async () => {
      const r = await workspace.run({ tool: 'tesseract', args: ['--list-langs'], timeoutMs: 10_000, ...(signal ? { signal } : {}) });
      return r.exitCode === 0 ? parseListLangs(`${Buffer.from(r.stdout).toString('utf8')}\n${r.stderr}`) : new Set<string>();
    });
  }

  /** The input's SHA-256 in hex. */
  get sha256(): string {
    if (typeof this.#sha256 !== 'string') this.#sha256 = this.#sha256();
    return this.#sha256;
  }

  /** Records a warning (merged by code; pages accumulate). */
  warn(code: WarningCode, message: string, page?: number): void {
    const w = this.warnings.get(code) ?? { message, pages: new Set<number>() };
    if (page !== undefined) w.pages.add(page);
    this.warnings.set(code, w);
  }

  /** Throws `cancelled` when the caller aborted. */
  checkCancelled(): void {
    if (this.signal?.aborted) throw new RecognitionError('cancelled', 'the conversion was cancelled');
  }

  /** Milliseconds left before the overall limit. */
  remainingMs(): number {
    return this.limits.totalTimeoutMs - (this.now() - this.started);
  }

  /** Adds elapsed time to a named timing bucket. */
  time(name: string, ms: number): void {
    this.timings[name] = (this.timings[name] ?? 0) + ms;
  }

  /** Records a tool's version (once). */
  async useTool(tool: string): Promise<void> {
    if (this.tools[tool] !== undefined) return;
    const p = await this.runner.probe(tool);
    this.tools[tool] = p?.version ?? 'unknown';
  }

  /** Hands a finished page to the caller's checkpoint callback. */
  async checkpoint(unit: PageExtraction | MarkdownUnit, pageCount: number): Promise<void> {
    if (!this.onPage) return;
    await this.onPage({ pipeline: PIPELINE_VERSION, sha256: this.sha256, format: this.format, page: unit.page, pageCount, unit });
  }
}
