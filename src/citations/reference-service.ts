// The works a document cites (its reference list), resolved through the document store: backward
// citation snowballing for agents (issue 4, MCP tool "works it cites"). The forward direction, works
// citing a work, is a search (`referenced_by_uri`) and lives with the search service.
//
// Billing (docs/mcp.md, ADR 0051): a page of references is priced like a search returning the works
// found in Lectern: prices.search + prices.searchPerHit x resolved references. References Lectern does
// not hold cost nothing; a refused or failed request charges nothing.
import type { StoredDocument } from '../domain/document.js';
import { AppError } from '../domain/errors.js';
import { searchCost, type PriceTable } from '../domain/prices.js';
import type { Principal } from '../domain/principal.js';
import type { BillingService } from '../billing/billing-service.js';
import type { DocumentRef, DocumentService } from '../documents/document-service.js';
import type { DocumentStore } from '../ports/document-store.js';

/** A page of references: `limit` 1..100 (default 20), `offset` 0..10 000. */
export interface ReferencePageRequest {
  limit?: number;
  offset?: number;
}

export interface ReferenceEntry {
  /** The cited work's canonical URI, as the citing record lists it. */
  uri: string;
  /** The work in Lectern, or null when Lectern does not hold it. */
  doc: StoredDocument | null;
}

export interface ReferencePage {
  source: StoredDocument;
  /** Distinct references of the source. */
  total: number;
  offset: number;
  entries: ReferenceEntry[];
  /** Credits charged. */
  cost: number;
}

export const REFERENCE_LIMITS = { defaultLimit: 20, maxLimit: 100, maxOffset: 10_000 } as const;

export class ReferenceService {
  constructor(
    private readonly documents: DocumentService,
    private readonly store: DocumentStore,
    private readonly billing: BillingService,
    private readonly prices: PriceTable,
  ) {}

  /** The credits a page with `resolved` works found in Lectern costs. */
  costOf(resolved: number): number {
    return searchCost(this.prices, resolved);
  }

  /** One page of the works `ref` cites, in the order of its reference list; billed after success. */
  async referencesOf(principal: Principal, ref: DocumentRef, page: ReferencePageRequest, requestId: string): Promise<ReferencePage> {
    const limit = page.limit ?? REFERENCE_LIMITS.defaultLimit;
    const offset = page.offset ?? 0;
    if (!Number.isInteger(limit) || limit < 1 || limit > REFERENCE_LIMITS.maxLimit) {
      throw new AppError('validation_failed', `limit must be an integer from 1 to ${REFERENCE_LIMITS.maxLimit}.`);
    }
    if (!Number.isInteger(offset) || offset < 0 || offset > REFERENCE_LIMITS.maxOffset) {
      throw new AppError('validation_failed', `offset must be an integer from 0 to ${REFERENCE_LIMITS.maxOffset}.`);
    }
    const source = await this.documents.resolve(ref);
    const uris = [...new Set(source.references)];
    const slice = uris.slice(offset, offset + limit);
    const docs = await this.store.getManyByUri(slice);
    const entries = slice.map((uri) => ({ uri, doc: docs.get(uri) ?? null }));
    const cost = this.costOf(entries.filter((e) => e.doc !== null).length);
    await this.billing.charge(principal, cost, 'references', requestId);
    return { source, total: uris.length, offset, entries, cost };
  }
}
