// Small documents for tests, built on the ingest defaults.
import { createHash } from 'node:crypto';
import type { DocumentRecord, OriginalFile } from '../../src/domain/document.js';
import { blankRecord } from '../../src/ingest/formats/common.js';
import type { App } from '../../src/app.js';

export function doc(id: string, fields: Partial<DocumentRecord> = {}): DocumentRecord {
  return { ...blankRecord(id, 'documents', 'test'), title: `Title of ${id}`, ...fields };
}

/** Stores `bytes` as the `format` original of a record and returns the OriginalFile. */
export async function original(app: App, format: OriginalFile['format'], bytes: Uint8Array): Promise<OriginalFile> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const key = `originals/${sha256}.${format}`;
  const stored = await app.blobs.put(key, bytes);
  const mediaType = { pdf: 'application/pdf', epub: 'application/epub+zip', djvu: 'image/vnd.djvu' }[format];
  return { format, mediaType, blobKey: key, bytes: stored.bytes, sha256, license: 'CC0', storedAt: Math.floor(stored.modifiedMs / 1000) };
}

export async function seed(app: App, records: DocumentRecord[]): Promise<void> {
  await app.storage.documents.upsertMany(records, 1_700_000_000);
}
