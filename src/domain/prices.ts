// What each billed operation costs, in credits (interface, "What the service does" 8). The table's
// values come from configuration (config.prices); these functions are the only place costs are computed.

/** Credits per operation (see docs/configuration.md for the defaults). */
export interface PriceTable {
  readonly search: number;
  readonly searchPerHit: number;
  readonly documentFetch: number;
  readonly documentTokensPerCredit: number;
  readonly documentPassages: number;
  readonly conversationTurn: number;
  readonly conversationEdit: number;
  readonly similar: number;
  readonly recognitionPerPage: number;
}

/**
 * A search page: a base price plus one price per returned hit. A page that returned no hit (no match,
 * or past the last result) delivered nothing and costs nothing (issue 25: nothing delivered is not
 * charged); the hold taken for it is released.
 */
export const searchCost = (p: PriceTable, returnedHits: number): number => (returnedHits <= 0 ? 0 : p.search + p.searchPerHit * returnedHits);

/**
 * A document fetch. Whole: the flat price. Cut by max_tokens/max_chars: only the returned content
 * tokens count (interface, Documents), ceil(tokens / tokensPerCredit), never more than the flat price.
 */
export function documentCost(p: PriceTable, fetch: { cut: boolean; returnedTokens: number }): number {
  if (!fetch.cut) return p.documentFetch;
  return Math.min(p.documentFetch, Math.ceil(fetch.returnedTokens / p.documentTokensPerCredit));
}

/**
 * Recognition of one document, billed once per distinct content, for its billable pages (pages whose text
 * was read; blank, failed and skipped pages are free, so a document of blank pages costs nothing, ADR 0236).
 */
export const recognitionCost = (p: PriceTable, billablePages: number): number => p.recognitionPerPage * Math.max(0, billablePages);
