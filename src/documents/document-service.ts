// Reading documents by id or canonical URI, whole or cut by content tokens / characters, billed by
// the price table and recorded as agent reads (interface, Documents; docs/api.md).
import { parseCanonicalUri } from '../domain/canonical-uri.js';
import { codePointLength, countContentTokens, cutToCodePoints, cutToTokens } from '../domain/content-tokens.js';
import { documentContent, type StoredDocument } from '../domain/document.js';
import { AppError } from '../domain/errors.js';
import { documentCost, type PriceTable } from '../domain/prices.js';
import type { Principal } from '../domain/principal.js';
import type { BillingService } from '../billing/billing-service.js';
import type { ActivityRecorder } from '../activity/activity-buffer.js';
import type { ONCE_OPERATIONS } from '../ports/credit-ledger.js';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';
import type { ErrorReporter } from '../ports/error-reporter.js';
import type { WorkLinkedDocumentStore } from './work-links.js';

/** Optional cuts; both may be given (the shorter result wins). */
export interface ContentCut {
  /** Exactly the first N content tokens (domain/content-tokens.ts). */
  maxTokens?: number;
  /** At most the first N Unicode scalar values. */
  maxChars?: number;
}

export interface FetchedDocument {
  doc: StoredDocument;
  content: string;
  /** Full content length in Unicode scalar values. */
  contentLength: number;
  /** Content tokens in `content`. */
  contentTokens: number;
  truncated: boolean;
  /** Credits charged. */
  cost: number;
}

/** Applies a cut to `full`; pure, exported for tests. */
export function cutContent(full: string, cut: ContentCut): { text: string; tokens: number; truncated: boolean } {
  let text = full;
  if (cut.maxTokens !== undefined) text = cutToTokens(text, cut.maxTokens).text;
  if (cut.maxChars !== undefined) text = cutToCodePoints(text, cut.maxChars);
  return { text, tokens: countContentTokens(text), truncated: text.length < full.length };
}

// --- reading in the browser (issue 25; docs/web.md "Costs of a document page", ADR 0216) ---
/** The ledger operation of a document's text bought on its web page. */
export const BROWSER_READ_OPERATION = 'document_read' satisfies (typeof ONCE_OPERATIONS)[number];

/** The ledger reference of a browser read: the UTC day and the document (`2026-11-29/W123`). */
export const browserReadReference = (documentId: string, nowMs: number): string => `${new Date(nowMs).toISOString().slice(0, 10)}/${documentId}`;

/** The document a browser read's ledger reference names, or null for other references. */
export function browserReadDocument(reference: string | null): { day: string; documentId: string } | null {
  const m = reference === null ? null : /^(\d{4}-\d{2}-\d{2})\/(.+)$/s.exec(reference);
  return m ? { day: m[1]!, documentId: m[2]! } : null;
}

/** What the document page offers a signed-in person (never billed to find out). */
export interface BrowserReadOffer {
  /** Whether the record has text beyond its title and abstract (shown free to everyone). */
  readonly hasText: boolean;
  /** What reading the text costs today: the API's price of the whole document; 0 without text. */
  readonly price: number;
  /** When (Unix seconds) the account bought this text today, or null. */
  readonly paidAt: number | null;
}
// --- end reading in the browser ---

/** Which document: its id or one of its canonical URIs. */
export type DocumentRef = { documentId: string; uri?: undefined } | { uri: string; documentId?: undefined };

export class DocumentService {
  constructor(
    private readonly store: WorkLinkedDocumentStore,
    private readonly activity: ActivityRecorder,
    private readonly billing: BillingService,
    private readonly prices: PriceTable,
    private readonly clock: Clock,
    private readonly report: ErrorReporter,
  ) {}

  /** The document with this id (404 when unknown). Not billed. */
  async get(id: string): Promise<StoredDocument> {
    const doc = await this.store.get(id);
    if (!doc) throw new AppError('not_found', `No document with id ${JSON.stringify(id)}.`);
    return doc;
  }

  /**
   * The document answering for this canonical URI: 400 when the URI is invalid, 404 when unknown. Not
   * billed. Any version of a work finds it (docs/works.md): the record carrying the URI, else a record
   * of the same work (`arxiv://…v1` finds `arxiv://…`, an arXiv DOI finds the arXiv record); `uriMatch`
   * says which version the record holds.
   */
  async resolveUri(raw: string): Promise<StoredDocument> {
    const parsed = parseCanonicalUri(raw);
    if (!parsed) {
      throw new AppError('invalid_uri', `${JSON.stringify(raw.slice(0, 200))} is not a canonical URI (doi://, arxiv://, pubmed://, pmc://, isbn:// or https://), percent-encoded in the path.`);
    }
    const found = await this.store.resolveVersion(parsed.uri);
    if (!found) throw new AppError('not_found', `No document with URI ${parsed.uri}.`);
    return { ...found.doc, uriMatch: found.match };
  }

  /** The document `ref` names: get() for an id, resolveUri() for a URI. Not billed. */
  async resolve(ref: DocumentRef): Promise<StoredDocument> {
    return ref.documentId !== undefined ? this.get(ref.documentId) : this.resolveUri(ref.uri);
  }

  /** Fetches by id or URI: fetchById or fetchByUri. */
  async fetch(principal: Principal, ref: DocumentRef, cut: ContentCut, requestId: string): Promise<FetchedDocument> {
    return ref.documentId !== undefined ? this.fetchById(principal, ref.documentId, cut, requestId) : this.fetchByUri(principal, ref.uri, cut, requestId);
  }

  /** Fetches by id: billed (flat, or by returned tokens when cut) and recorded as an agent read. */
  async fetchById(principal: Principal, id: string, cut: ContentCut, requestId: string): Promise<FetchedDocument> {
    return this.#fetch(principal, await this.get(id), cut, requestId);
  }

  async fetchByUri(principal: Principal, uri: string, cut: ContentCut, requestId: string): Promise<FetchedDocument> {
    return this.#fetch(principal, await this.resolveUri(uri), cut, requestId);
  }

  async #fetch(principal: Principal, doc: StoredDocument, cut: ContentCut, requestId: string): Promise<FetchedDocument> {
    const full = documentContent(doc);
    const isCut = cut.maxTokens !== undefined || cut.maxChars !== undefined;
    const r = cutContent(full, cut);
    // Billing without holes (issue 13): a cut that returns the whole content costs what the whole does,
    // and a truncated cut carries no abstract in its record (the content is what was bought).
    const cost = documentCost(this.prices, { cut: isCut && r.truncated, returnedTokens: r.tokens });
    await this.billing.charge(principal, cost, 'document_fetch', requestId);
    await this.recordRead(principal, [doc.id]);
    const shown = isCut && r.truncated ? { ...doc, abstract: null } : doc;
    return { doc: shown, content: r.text, contentLength: codePointLength(full), contentTokens: r.tokens, truncated: r.truncated, cost };
  }

  // --- reading in the browser (issue 25, ADR 0216) ---
  readonly #buying = new Map<string, Promise<unknown>>();

  /**
   * The offer of a document's text on its web page: its price (the API's flat price for the whole
   * document, so the page never undercuts or exceeds the API) and whether this account already bought
   * it today (UTC). Not billed.
   */
  async browserReadOffer(principal: Principal, doc: StoredDocument): Promise<BrowserReadOffer> {
    const hasText = (doc.fullText ?? '').trim() !== '';
    if (!hasText) return { hasText, price: 0, paidAt: null };
    const price = documentCost(this.prices, { cut: false, returnedTokens: 0 });
    const paid = await this.billing.findCharge(principal.accountId, BROWSER_READ_OPERATION, browserReadReference(doc.id, this.clock.nowMs()));
    return { hasText, price, paidAt: paid ? paid.createdAt : null };
  }

  /**
   * Buys a document's text for today at `shownPrice`, the price the button showed: charged once per
   * account, document and UTC day (a second click, another tab or a reload the same day costs nothing),
   * captured at once (the text is then readable all day). A price that changed since the page was
   * shown is refused (409), so the charge always equals the price the person saw.
   */
  async buyBrowserRead(principal: Principal, doc: StoredDocument, shownPrice: number): Promise<{ charged: number }> {
    const offer = await this.browserReadOffer(principal, doc);
    if (!offer.hasText) return { charged: 0 };
    if (offer.price !== shownPrice) throw new AppError('conflict', `The price of this text is now ${offer.price} credits, not ${shownPrice}; look at the button again before reading.`);
    const reference = browserReadReference(doc.id, this.clock.nowMs());
    const key = `${principal.accountId} ${reference}`;
    // Concurrent clicks of one account on one document are serialized, so the second finds the first's charge.
    for (let pending = this.#buying.get(key); pending; pending = this.#buying.get(key)) await pending.catch(() => undefined);
    const run = (async () => {
      if (await this.billing.findCharge(principal.accountId, BROWSER_READ_OPERATION, reference)) return { charged: 0 };
      await this.billing.charge(principal, offer.price, BROWSER_READ_OPERATION, reference, { captureNow: true });
      return { charged: offer.price };
    })();
    this.#buying.set(key, run);
    try {
      return await run;
    } finally {
      this.#buying.delete(key);
    }
  }

  /** The text of a document bought today (browserReadOffer().paidAt set), cut for display. Not billed. */
  browserText(doc: StoredDocument, cut: ContentCut): { content: string; truncated: boolean } {
    const r = cutContent(documentContent(doc), cut);
    return { content: r.text, truncated: r.truncated };
  }
  // --- end reading in the browser ---

  /**
   * Records agent reads (API keys and OAuth tokens: programs); a person reading in the browser (a
   * session) is a page view, recorded by the page, not an agent read. A failure is reported, never thrown.
   */
  async recordRead(principal: Principal, documentIds: readonly string[]): Promise<void> {
    if (principal.credential === 'session') return;
    const at = nowSeconds(this.clock);
    try {
      await this.activity.record(documentIds.map((documentId) => ({ documentId, kind: 'agent_read' as const, accountId: principal.accountId, visitor: null, at })));
    } catch (e) {
      this.report(e, 'recording agent reads');
    }
  }
}
