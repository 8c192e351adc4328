// Resource limits of one conversion. Every limit is configurable per call so the service (phase 2) can
// take them from its configuration; the defaults suit a 2-core machine converting one document at a time.

/** Limits applied to one conversion. */
export interface RecognitionLimits {
  /** Largest accepted input in bytes. Default 256 MiB. */
  readonly maxBytes: number;
  /** Most pages (PDF, DJVU) or spine items (EPUB) accepted; more is `too_many_pages`. Default 2000. */
  readonly maxPages: number;
  /** Largest rendered page for OCR in pixels (width x height); the render resolution is lowered to fit. Default 40 million. */
  readonly maxPagePixels: number;
  /** Highest render resolution for OCR in dots per inch (native scans above it are downsampled). Default 300. */
  readonly maxOcrDpi: number;
  /** Time limit for extracting the text layer of one page, in ms (a chunk of n pages gets n times this, at most 16 times). Default 20 000. */
  readonly pageTimeoutMs: number;
  /** Time limit for OCR of one page including rotation retries, in ms. Default 60 000. */
  readonly ocrPageTimeoutMs: number;
  /** Time limit for the whole conversion, in ms; pages not reached are reported (`TRUNCATED`). Default 30 minutes. */
  readonly totalTimeoutMs: number;
  /** Most pages sent to OCR; further image-only pages are left empty with a warning. Default 500. */
  readonly maxOcrPages: number;
  /** Largest total uncompressed size of an EPUB archive in bytes, as declared and as extracted (zip-bomb guard). Default 512 MiB. */
  readonly maxUncompressedBytes: number;
  /** Largest uncompressed size of one EPUB entry in bytes, as declared and as extracted. Default 32 MiB. */
  readonly maxEntryBytes: number;
  /** Most characters of text one conversion may produce (Markdown); more is `document_too_large`. Default 40 million. */
  readonly maxTextChars: number;
  /** Largest number of entries in an EPUB archive. Default 20 000. */
  readonly maxArchiveEntries: number;
  /** Address-space cap per external tool process in bytes. Default 4 GiB. */
  readonly maxToolMemoryBytes: number;
}

/** The defaults documented on {@link RecognitionLimits}. */
export const DEFAULT_LIMITS: RecognitionLimits = Object.freeze({
  maxBytes: 256 * 1024 * 1024,
  maxPages: 2000,
  maxPagePixels: 40_000_000,
  maxOcrDpi: 300,
  pageTimeoutMs: 20_000,
  ocrPageTimeoutMs: 60_000,
  totalTimeoutMs: 30 * 60_000,
  maxOcrPages: 500,
  maxUncompressedBytes: 512 * 1024 * 1024,
  maxEntryBytes: 32 * 1024 * 1024,
  maxTextChars: 40_000_000,
  maxArchiveEntries: 20_000,
  maxToolMemoryBytes: 4 * 1024 ** 3,
});

/** Merges partial limits over the defaults, rejecting non-positive or non-finite values. */
export function resolveLimits(partial: Partial<RecognitionLimits> = {}): RecognitionLimits {
  const out: Record<string, number> = { ...DEFAULT_LIMITS };
  for (const [k, v] of Object.entries(partial)) {
    if (v === undefined) continue;
    if (!(k in DEFAULT_LIMITS)) throw new TypeError(`unknown recognition limit: ${k}`);
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new RangeError(`limit ${k} must be a positive finite number`);
    out[k] = v;
  }
  return Object.freeze(out) as unknown as RecognitionLimits;
}
