// `lectern ingest --recognize FILES...`: a PDF, EPUB or DJVU converted to Markdown (by the recognition
// capability, handed in as `recognize`) becomes one document of the `documents` index, searchable and
// fetchable like any other. The id is derived from the file's content (`rec-` + the first 24 hex digits
// of its SHA-256), so ingesting the same file again updates the same document; the file itself is kept
// as the document's original.
import { basename, extname } from 'node:path';
import type { DocumentRecord, OriginalFormat } from '../domain/document.js';
import { ORIGINAL_MEDIA_TYPES } from '../domain/document.js';
import { blankRecord, canonicalList } from './formats/common.js';

/** What the converter gives for one file (the shape of recognition's RecognizedDocument). */
export interface ConvertedFile {
  readonly title: string | null;
  readonly authors: readonly string[];
  readonly language: string | null;
  readonly markdown: string;
  readonly sha256: string;
  readonly report: {
    readonly pipeline: string;
    readonly input: { readonly format: string; readonly pages: number; readonly metadata: { readonly identifier?: string | null; readonly publisher?: string | null } };
    readonly score: { readonly value: number; readonly grade: string };
    readonly warnings: readonly { readonly code: string }[];
  };
}

/** The document id of a converted file with this SHA-256. */
export const recognizedDocumentId = (sha256: string): string => `rec-${sha256.slice(0, 24)}`;

/** Canonical URIs from an identifier the file names (DOI or ISBN), if it parses. */
function urisFrom(identifier: string | null | undefined): string[] {
  if (!identifier) return [];
  const id = identifier.trim();
  const doi = /\b(10\.\d{4,9}\/\S+)/.exec(id)?.[1];
  const isbn = /^(?:urn:)?isbn:?\s*([0-9Xx-]{10,17})$/i.exec(id)?.[1];
  return canonicalList([doi ? `doi://${doi.replace(/[.,;]+$/, '')}` : null, isbn ? `isbn://${isbn}` : null]);
}

/**
 * The document record of a converted file. Page markers and image placeholders (HTML comments) are left
 * out of the text: they are layout, not content.
 */
export function recognizedRecord(path: string, bytes: Uint8Array, c: ConvertedFile, blobKey: string, storedAt: number): DocumentRecord {
  // The converter hashed the same bytes already (its result cache is keyed by that hash).
  const { sha256 } = c;
  const rec = blankRecord(recognizedDocumentId(sha256), 'documents', 'recognition');
  const format = c.report.input.format as OriginalFormat;
  rec.title = c.title?.trim() || basename(path, extname(path));
  rec.authors = c.authors.map((name) => ({ name, orcid: null }));
  rec.language = c.language;
  rec.fullText = c.markdown.replace(/^<!--[^\n]*?-->[ \t]*\n?/gm, '').replace(/\n{3,}/g, '\n\n').trim();
  rec.publisher = c.report.input.metadata.publisher ?? null;
  rec.uris = urisFrom(c.report.input.metadata.identifier);
  rec.originals = [{ format, mediaType: ORIGINAL_MEDIA_TYPES[format], blobKey, bytes: bytes.length, sha256, license: null, storedAt }];
  rec.extra = {
    recognition: {
      pipeline: c.report.pipeline,
      file: basename(path),
      pages: c.report.input.pages,
      score: c.report.score.value,
      grade: c.report.score.grade,
      warnings: [...new Set(c.report.warnings.map((w) => w.code))],
    },
  };
  return rec;
}
