// Row <-> record mapping shared by the SQLite and PostgreSQL document stores.
import { createHash } from 'node:crypto';
import type { DocumentRecord, StoredDocument } from '../../domain/document.js';
import { toDisplayRecord, type DisplayDocument, type DisplayDocumentWithText, type DisplayRecord } from '../../domain/display-document.js';
import type { WorkMember } from '../../domain/work.js';

// PostgreSQL can hold neither U+0000 (in text or JSONB) nor an unpaired surrogate escape (JSONB);
// SQLite takes both. One serializer for both stores replaces them with U+FFFD, so a record reads back
// the same from either store and a stray byte in a source file cannot fail a whole ingest batch on
// PostgreSQL only. JSON.stringify escapes exactly these as \u0000 and \udXXX, so the check is cheap.
const UNSTORABLE_ESCAPE = /\\u0000|\\ud[89a-f][0-9a-f]{2}/i;

function storableString(_key: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  // String.prototype.toWellFormed is in Node >= 20 (ES2024; our lib setting is ES2023).
  return (value.replaceAll('\0', '\uFFFD') as string & { toWellFormed(): string }).toWellFormed();
}

/**
 * JSON of the record as stored (field order fixed by the record type). U+0000 and unpaired
 * surrogates in string values become U+FFFD (see above).
 */
export function serializeRecord(doc: DocumentRecord): string {
  const json = JSON.stringify(doc);
  return UNSTORABLE_ESCAPE.test(json) ? JSON.stringify(doc, storableString) : json;
}

/** JSON of the record's display form (document_display.display; same U+FFFD rule as serializeRecord). */
export function serializeDisplay(doc: DocumentRecord): string {
  const json = JSON.stringify(toDisplayRecord(doc));
  return UNSTORABLE_ESCAPE.test(json) ? JSON.stringify(toDisplayRecord(doc), storableString) : json;
}

/** Hash used to skip writes when a re-ingested record did not change. */
export const contentHash = (json: string): string => createHash('sha256').update(json).digest('hex');

/** The columns a document read needs; `record` is TEXT in SQLite and already-parsed JSONB in PostgreSQL. */
export interface DocumentRow {
  record: string | DocumentRecord;
  seq: number | string;
  work_key: string;
  created_at: number | string;
  updated_at: number | string;
}

export function rowToStored(row: DocumentRow): StoredDocument {
  const rec = (typeof row.record === 'string' ? JSON.parse(row.record) : row.record) as DocumentRecord;
  return { ...rec, seq: Number(row.seq), workKey: row.work_key, createdAt: Number(row.created_at), updatedAt: Number(row.updated_at) };
}

/** UTC day number of a Unix-seconds time (views count once per visitor and UTC day). */
export const utcDay = (at: number): number => Math.floor(at / 86_400);

/** A work member as both stores select it: `uris` is JSON text in SQLite, parsed JSONB in PostgreSQL. */
export interface WorkMemberRow {
  id: string;
  work_key: string;
  uris: string | string[];
  type: string | null;
  issued_at: number | string | null;
  title: string;
}

/** Rows in work-key then id order, grouped by work key. */
export function groupWorkMembers(rows: readonly WorkMemberRow[]): Map<string, WorkMember[]> {
  const out = new Map<string, WorkMember[]>();
  for (const r of rows) {
    const member: WorkMember = {
      id: r.id,
      workKey: r.work_key,
      uris: typeof r.uris === 'string' ? (JSON.parse(r.uris) as string[]) : r.uris,
      type: r.type,
      issuedAt: r.issued_at === null ? null : Number(r.issued_at),
      title: r.title,
    };
    const list = out.get(r.work_key);
    if (list) list.push(member);
    else out.set(r.work_key, [member]);
  }
  return out;
}

/** The columns of a display read (document_display): `display` is JSON text in both stores. */
export interface DisplayRow {
  id: string;
  display: string;
  seq: number | string;
  work_key: string;
  created_at: number | string;
  updated_at: number | string;
}

/** A display row as a DisplayDocument (the parsed object is completed in place: no copy). */
export function rowToDisplay(row: DisplayRow): DisplayDocument {
  const doc = JSON.parse(row.display) as DisplayRecord & Partial<DisplayDocument>;
  doc.seq = Number(row.seq);
  doc.workKey = row.work_key;
  doc.createdAt = Number(row.created_at);
  doc.updatedAt = Number(row.updated_at);
  return doc as DisplayDocument;
}

/**
 * A whole document row as its display form plus its non-empty full text (hits whose snippets lie in
 * the body): the same object toDisplayDocument(rowToStored(row)) would give, with one copy instead of three.
 */
export function rowToDisplayWithText(row: DocumentRow): DisplayDocumentWithText {
  const rec = (typeof row.record === 'string' ? JSON.parse(row.record) : row.record) as DocumentRecord;
  const { fullText, references, ...rest } = rec;
  const doc = rest as DisplayDocumentWithText;
  doc.hasFullText = fullText !== null && fullText.length > 0;
  doc.referencesCount = references.length;
  doc.seq = Number(row.seq);
  doc.workKey = row.work_key;
  doc.createdAt = Number(row.created_at);
  doc.updatedAt = Number(row.updated_at);
  if (doc.hasFullText) doc.fullText = fullText!;
  return doc;
}
