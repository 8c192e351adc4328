// Row <-> record mapping shared by the SQLite and PostgreSQL document stores.
import { createHash } from 'node:crypto';
import type { DocumentRecord, StoredDocument } from '../../domain/document.js';

/** JSON of the record as stored (field order fixed by the record type). */
export const serializeRecord = (doc: DocumentRecord): string => JSON.stringify(doc);

/** Hash used to skip writes when a re-ingested record did not change. */
export const contentHash = (json: string): string => createHash('sha256').update(json).digest('hex');

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
