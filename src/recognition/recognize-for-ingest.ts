// What `lectern ingest --recognize FILES...` needs from a converted file: Markdown plus the document
// model's title, authors and language, and the quality grade to show beside it.
import { convertDocument, type ConvertOptions } from './convert-document.js';
import type { QualityReport } from './report/quality-report.js';

/** A converted file ready for the document model. */
export interface RecognizedDocument {
  /** Title from the document's metadata or its title heading; null when none was found. */
  readonly title: string | null;
  readonly authors: readonly string[];
  /** ISO 639-1 language (metadata first, else the text's guess); null when unknown. */
  readonly language: string | null;
  readonly markdown: string;
  /** SHA-256 of the input bytes: the key to deduplicate and cache results. */
  readonly sha256: string;
  readonly report: QualityReport;
}

/** Converts a file for ingest. Same options and errors as convertDocument. */
export async function recognizeForIngest(bytes: Uint8Array, options: ConvertOptions): Promise<RecognizedDocument> {
  const r = await convertDocument(bytes, options);
  return {
    title: r.metadata.title,
    authors: r.metadata.authors,
    language: r.metadata.language,
    markdown: r.markdown,
    sha256: r.report.input.sha256,
    report: r.report,
  };
}
