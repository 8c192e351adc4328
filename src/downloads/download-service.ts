// Originals (PDF, EPUB, DJVU) for eligible accounts (interface, Originals). Resolves which file a
// request means and checks eligibility; the HTTP layer streams it with ranges and validators.
import type { Readable } from 'node:stream';
import type { StoredDocument, OriginalFile } from '../domain/document.js';
import { AppError } from '../domain/errors.js';
import type { Principal } from '../domain/principal.js';
import type { AccountStore } from '../ports/account-store.js';
import type { BlobInfo, BlobStore } from '../ports/blob-store.js';
import type { DocumentService } from '../documents/document-service.js';

const FORMATS = new Set(['pdf', 'epub', 'djvu']);

export interface ResolvedOriginal {
  doc: StoredDocument;
  original: OriginalFile;
  blob: BlobInfo;
}

export class DownloadService {
  constructor(
    private readonly documents: DocumentService,
    private readonly accounts: AccountStore,
    private readonly blobs: BlobStore,
  ) {}

  /** 403 unless the account may download originals. */
  async requireEligible(principal: Principal): Promise<void> {
    const account = await this.accounts.get(principal.accountId);
    if (!account?.eligibleForOriginals) {
      throw new AppError('not_eligible', 'Originals are available to eligible accounts only; ask the operator to enable originals for this account.');
    }
  }

  /** The original of `doc` in `format` (the first available when omitted); 404 when absent. */
  pick(doc: StoredDocument, format: string | undefined): OriginalFile {
    if (format !== undefined && !FORMATS.has(format.toLowerCase())) {
      throw new AppError('not_found', `Unknown format ${JSON.stringify(format)}; originals come as pdf, epub or djvu.`);
    }
    const available = doc.originals.map((o) => o.format);
    const original = format === undefined ? doc.originals[0] : doc.originals.find((o) => o.format === format.toLowerCase());
    if (!original) {
      throw new AppError('not_found', available.length
        ? `Document ${doc.id} has no ${format} original; available: ${available.join(', ')}.`
        : `Document ${doc.id} has no original file.`);
    }
    return original;
  }

  async resolveById(principal: Principal, documentId: string, format: string): Promise<ResolvedOriginal> {
    await this.requireEligible(principal);
    return this.#withBlob(await this.documents.get(documentId), format);
  }

  async resolveByUri(principal: Principal, uri: string, format: string | undefined): Promise<ResolvedOriginal> {
    await this.requireEligible(principal);
    return this.#withBlob(await this.documents.resolveUri(uri), format);
  }

  async #withBlob(doc: StoredDocument, format: string | undefined): Promise<ResolvedOriginal> {
    const original = this.pick(doc, format);
    const blob = await this.blobs.stat(original.blobKey);
    if (!blob) throw new AppError('service_unavailable', `The ${original.format} original of ${doc.id} is missing from storage.`);
    return { doc, original, blob };
  }

  open(original: OriginalFile, range?: { start: number; end: number }): Readable {
    return this.blobs.read(original.blobKey, range);
  }
}
