// Per-page checkpoints: after each page (PDF, DJVU) or spine item (EPUB) the converter hands the page's
// extraction to `onPage`; a later call with `resumeFrom` reuses them and extracts only the missing pages.
// The document passes (headers/footers, headings, paragraphs) run again at the end, so a resumed
// conversion yields the same Markdown as an uninterrupted one.
import type { DocumentFormat } from './format-detection.js';
import type { MarkdownUnit, PageExtraction } from './layout-model.js';

/**
 * Version of the extraction pipeline. Checkpoints from another version are ignored on resume, and
 * results should be cached under (sha256, PIPELINE_VERSION).
 * 2: pages of dot leaders (tables of contents) keep their text layer instead of going to OCR, so a page
 * checkpointed by version 1 may hold an OCR reading the current pipeline would not make.
 * 3: OCR lines are split at a column gutter only when the gap also stands out from the line's own spaces
 * (a justified narrow column kept whole), so version-2 OCR checkpoints hold other lines; and the layout
 * passes changed (furniture bands, table columns and captions, unreadable runs), so cached version-2
 * results differ from what this pipeline makes; text-layer lines carry their LaTeX form (`math`, ADR 0097).
 * 5: displayed fractions and radicals are rebuilt from the page's rules (ADR 0134), so version-4 text-layer
 * checkpoints of pages with stacked math hold other lines.
 * 6: EPUB spine entries pointing into one content document are converted once (spine positions shift),
 * reports carry `pages.billable`, and the running-line passes changed (ADR 0237).
 * 7: text-layer lines carry their `segments` (parts more than 0.8 em apart, ADR 0341), which version-6
 * checkpoints lack (tables without rules are not found on those pages), and tables changed (ADRs 0341, 0343).
 * 8: a column of math cells in a wide table is no longer rebuilt as a displayed equation (ADR 0354), so
 * version-7 text-layer checkpoints of such pages hold a display line instead of the cells' lines; table
 * rows, runs of tables and page-number rows changed too.
 * 9: a heading's or list item's number set apart from its text by a tab stays on the text's line (ADR 0363),
 * so version-8 text-layer checkpoints of word-processor pages hold the number as a line of its own.
 * 10: a small line number on its row's baseline is cut off the row's text, and the displays of pages with
 * margin line numbers are found without them (ADR 0364), so version-9 text-layer checkpoints of such pages
 * hold "5 text" lines and displays with the numbers drawn in.
 */
export const PIPELINE_VERSION = 'lectern-recognition/14';

/** One finished page; plain JSON, safe to store and send back through `resumeFrom`. */
export interface PageCheckpoint {
  readonly pipeline: string;
  /** SHA-256 of the input bytes (hex); checkpoints of other inputs are ignored. */
  readonly sha256: string;
  readonly format: DocumentFormat;
  /** 1-based page (or spine item) number. */
  readonly page: number;
  /** Pages (or spine items) in the document. */
  readonly pageCount: number;
  readonly unit: PageExtraction | MarkdownUnit;
}

/** Keeps the checkpoints that belong to this input and pipeline, by page. */
export function usableCheckpoints(all: readonly PageCheckpoint[] | undefined, sha256: string, format: DocumentFormat): Map<number, PageCheckpoint> {
  const out = new Map<number, PageCheckpoint>();
  for (const c of all ?? []) {
    if (c.pipeline !== PIPELINE_VERSION || c.sha256 !== sha256 || c.format !== format) continue;
    if (c.unit.kind === 'failed' || c.unit.kind === 'skipped') continue; // try those pages again
    out.set(c.page, c);
  }
  return out;
}
