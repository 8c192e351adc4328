// Which formats this machine can convert, from the installed tools, so the service can report missing
// ones instead of failing jobs. EPUB needs no external tool.
import type { ProcessRunner } from '../ports/process-runner.js';
import type { DocumentFormat } from './format-detection.js';

/** Availability of one format. */
export interface FormatAvailability {
  readonly format: DocumentFormat;
  /** True when documents of this format can be converted. */
  readonly available: boolean;
  /** True when image-only pages can be recognised (tesseract with the OCR language installed). */
  readonly ocr: boolean;
  /** Tools that are missing, `tesseract` included when OCR is unavailable (empty when all are present). */
  readonly missingTools: readonly string[];
}

/** Tools each format needs; OCR additionally needs `tesseract`. */
export const REQUIRED_TOOLS: Readonly<Record<DocumentFormat, readonly string[]>> = {
  pdf: ['mutool'],
  epub: [],
  djvu: ['djvused', 'djvudump', 'ddjvu'],
};

/** Probes the runner for the tools of every format. */
export async function availableFormats(runner: ProcessRunner): Promise<FormatAvailability[]> {
  const tools = ['mutool', 'djvused', 'djvudump', 'ddjvu', 'tesseract'];
  const probes = await Promise.all(tools.map(async (t) => [t, await runner.probe(t)] as const));
  const has = new Map(probes.map(([t, p]) => [t, p !== null]));
  const ocr = has.get('tesseract') ?? false;
  return (Object.keys(REQUIRED_TOOLS) as DocumentFormat[]).map((format) => {
    const missing = REQUIRED_TOOLS[format].filter((t) => !has.get(t));
    const needsOcr = format !== 'epub';
    return {
      format,
      available: missing.length === 0,
      ocr: needsOcr && ocr && missing.length === 0,
      missingTools: needsOcr && !ocr ? [...missing, 'tesseract'] : missing,
    };
  });
}
