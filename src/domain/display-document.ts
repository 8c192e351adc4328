// What a search hit shows of a document (issue 14, ADR 0135): every field of the stored document
// except the full text and the list of cited works, which hits never return (the wire shows
// `has_full_text` and `references_count`). The stores keep this form in its own compact layout
// (`document_display`), written with the record, so loading a page of hits never reads full texts.
import type { DocumentRecord, StoredDocument } from './document.js';

/** The record without its full text and references, with what the wire says of them. */
export type DisplayRecord = Omit<DocumentRecord, 'fullText' | 'references'> & {
  /** The record has a non-empty full text. */
  hasFullText: boolean;
  /** How many cited works the record lists. */
  referencesCount: number;
};

/** A display record with what the store maintains (and, when read as a work, its links). */
export type DisplayDocument = Omit<StoredDocument, 'fullText' | 'references'> & {
  hasFullText: boolean;
  referencesCount: number;
};

/** The display form of a record (what the stores write next to it). */
export function toDisplayRecord(doc: DocumentRecord): DisplayRecord {
  const { fullText, references, ...rest } = doc;
  return { ...rest, hasFullText: fullText !== null && fullText.length > 0, referencesCount: references.length };
}

/** The display form of a stored document (the same fields a display read returns). */
export function toDisplayDocument(doc: StoredDocument): DisplayDocument {
  const { fullText, references, ...rest } = doc;
  return { ...rest, hasFullText: fullText !== null && fullText.length > 0, referencesCount: references.length };
}

/** Whether a stored or display document has full text. */
export function hasFullText(doc: StoredDocument | DisplayDocument): boolean {
  return 'hasFullText' in doc ? doc.hasFullText : doc.fullText !== null && doc.fullText.length > 0;
}

/** How many cited works a stored or display document lists. */
export function referencesCount(doc: StoredDocument | DisplayDocument): number {
  return 'referencesCount' in doc ? doc.referencesCount : doc.references.length;
}

/** A display document that also carries its full text (asked for: the snippets of a hit lie in the body). */
export type DisplayDocumentWithText = DisplayDocument & { fullText?: string };
