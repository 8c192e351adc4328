// The display record a hit shows, stored with the document in the index's segments (issue 29, ADR
// 0280): what `getDisplayMany` reads from the store's display layout (every field but the full text and
// the cited works, with the store's sequence, work key and times), written when the document is indexed
// and read back by the search thread from the segment bytes, with no database call. The engine keeps
// the bytes opaque (IndexDocument.stored); this module is their only writer and reader.
//
// The store stays the system of record: a record changed there reaches the index through the change
// feed like its text (updated: a new segment holds the new record, the old one's is dead with its doc;
// merges copy the live records). Work links (versions, notices) are not stored: they depend on other
// records and are filled in when hits are loaded (documents/work-links.ts).
import { toDisplayDocument, type DisplayDocument } from '../domain/display-document.js';
import type { StoredDocument } from '../domain/document.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** The record's display form as stored in the index: JSON (UTF-8) of toDisplayDocument. */
export function encodeStoredDisplay(doc: StoredDocument): Uint8Array {
  // links filled in by a read through the work links are not the record's own: never stored
  const { versions: _v, noticeOf: _n, uriMatch: _u, ...own } = doc;
  return enc.encode(JSON.stringify(toDisplayDocument(own)));
}

/** A stored display record read back (a new object per call). */
export function decodeStoredDisplay(bytes: Uint8Array): DisplayDocument {
  return JSON.parse(dec.decode(bytes)) as DisplayDocument;
}
