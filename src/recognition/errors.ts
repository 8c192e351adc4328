// Typed, stable failures of the converter. A RecognitionError means the document could not be read at
// all (nothing should be charged for it); problems that still leave a usable result are warnings in the
// quality report instead (see report/quality-report.ts).

/**
 * Stable error codes (lower snake_case, equal to the future wire `detail.code`). Suggested HTTP statuses
 * for phase 2 are listed in docs/recognition.md.
 */
export type RecognitionErrorCode =
  /** The bytes are not a PDF, EPUB or DJVU file (detected from content, never the name). */
  | 'unsupported_format'
  /** The format is known but the tools it needs are not installed on this machine. */
  | 'format_unavailable'
  /** The input is larger than `limits.maxBytes`. */
  | 'document_too_large'
  /** The document has more pages (or EPUB spine items) than `limits.maxPages`. */
  | 'too_many_pages'
  /** A password is required (PDF user password) or the content is DRM-encrypted (EPUB). */
  | 'encrypted_document'
  /** The file is damaged beyond repair: no page tree, no readable container, truncated archive. */
  | 'damaged_document'
  /** The document opened but has no pages (or an empty spine). */
  | 'empty_document'
  /** Markup nested deeper than the converter walks (an EPUB content document past MAX_MARKUP_DEPTH levels). */
  | 'too_deeply_nested'
  /** No page could be converted within the time limits. */
  | 'conversion_timeout'
  /** The caller aborted through the AbortSignal. */
  | 'cancelled';

/** Every code, for catalog tests and documentation. */
export const RECOGNITION_ERROR_CODES: readonly RecognitionErrorCode[] = [
  'unsupported_format',
  'format_unavailable',
  'document_too_large',
  'too_many_pages',
  'encrypted_document',
  'damaged_document',
  'empty_document',
  'too_deeply_nested',
  'conversion_timeout',
  'cancelled',
];

/** A conversion failure with a stable code; `details` holds facts safe to show the document's owner. */
export class RecognitionError extends Error {
  override readonly name = 'RecognitionError';
  constructor(
    readonly code: RecognitionErrorCode,
    message: string,
    readonly details: Readonly<Record<string, string | number | boolean>> = {},
  ) {
    super(message);
  }
}

/** True for a {@link RecognitionError} (also across module copies, by shape). */
export function isRecognitionError(e: unknown): e is RecognitionError {
  return (
    e instanceof RecognitionError ||
    (typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'RecognitionError' && typeof (e as { code?: unknown }).code === 'string')
  );
}
