// In-document passages (interface: `text_filter` on GET /v2/documents/by-uri/{uri}): up to five
// passages of one document that match the filter, as a V2SearchResponse in `passages` mode, one hit per
// passage (best first). Double-quoted spans must occur verbatim in the passage: after the engine's
// phrase match (which compares analysed tokens), each span is checked against the passage text itself,
// compared after Unicode NFKC, case folding and whitespace collapsing. Billed prices.documentPassages;
// recorded as an agent read.
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { buildHitSnippet, sliceCodePoints } from '../engine/index.js';
import { AppError } from '../domain/errors.js';
import type { PriceTable } from '../domain/prices.js';
import type { Principal } from '../domain/principal.js';
import type { BillingService } from '../billing/billing-service.js';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';
import type { DocumentService } from '../documents/document-service.js';
import { FEEDBACK_TOKEN_TTL_S, signFeedbackToken } from './feedback-token.js';
import type { IndexSet } from './index-set.js';
import { fieldText, type ShardedLexicalSearch } from './search-service.js';
import { routingKey, shardOfWork } from '../domain/shard-routing.js';
import type { SearchHit, SearchResult } from './search-types.js';

/** Most passages returned (interface, Limits: in-document passages up to 5). */
export const MAX_PASSAGES = 5;

const QUOTES: [string, string][] = [
  ['"', '"'],
  ['\u201c', '\u201d'],
  ['\u00ab', '\u00bb'],
];

/** The quoted spans of a filter; throws 400 `invalid_text_filter` on an unbalanced quote. */
export function quotedSpans(filter: string): string[] {
  const spans: string[] = [];
  let i = 0;
  while (i < filter.length) {
    const pair = QUOTES.find(([open]) => filter[i] === open);
    if (!pair) {
      i++;
      continue;
    }
    const end = filter.indexOf(pair[1], i + 1);
    if (end < 0) throw new AppError('invalid_text_filter', `The text filter has an opening ${pair[0]} without its closing ${pair[1]}.`);
    const span = filter.slice(i + 1, end).trim();
    if (span) spans.push(span);
    i = end + 1;
  }
  return spans;
}

const fold = (s: string) => s.normalize('NFKC').toLocaleLowerCase('und').replace(/\s+/g, ' ').trim();

export class PassageSearch {
  constructor(
    private readonly indexes: IndexSet,
    private readonly documents: DocumentService,
    private readonly billing: BillingService,
    private readonly prices: PriceTable,
    private readonly clock: Clock,
    private readonly secret: string,
    /** The cluster's coordinator (`api` role, ADR 0247): the document's shard answers, with the corpus's statistics. */
    private readonly shards: ShardedLexicalSearch | null = null,
  ) {}

  async passages(principal: Principal, uri: string, textFilter: string, requestId: string): Promise<SearchResult> {
    const t0 = performance.now();
    const filter = textFilter.trim();
    if (filter === '') throw new AppError('invalid_text_filter', 'The text filter is empty.');
    const spans = quotedSpans(filter);
    const doc = await this.documents.resolveUri(uri);
    await this.billing.reserve(principal, this.prices.documentPassages, 'document_passages', requestId);

    const index = this.indexes.get(doc.index);
    const tSearch = performance.now();
    const q = { text: filter, rankingMode: 'passages' as const, limit: 1, passagesPerHit: 10, filters: { ids: [doc.id] } };
    let r;
    if (this.shards) {
      const shard = shardOfWork(routingKey(doc), this.shards.shards);
      const sh = await this.shards.search(doc.index, q, { onlyShard: shard });
      // the document's shard did not answer: no passages can be found, and none are charged
      if (sh.missingShards.includes(shard)) throw new AppError('service_unavailable', `No replica of shard ${shard}, which holds this document, answered; try again shortly.`);
      // another shard missed the statistics: the passages' scores would silently differ (ADR 0265)
      if (sh.missingShards.length > 0) throw new AppError('service_unavailable', `No replica of shard ${sh.missingShards.join(', ')} answered; the passages' scores need every shard's statistics. Try again shortly.`);
      r = sh.result;
    } else r = index.search(q);
    const searchUs = (performance.now() - tSearch) * 1000;
    const parsed = index.parse(filter);
    const hits: SearchHit[] = [];
    for (const p of r.hits[0]?.passages ?? []) {
      if (p.score <= 0) continue; // a fallback window, not a match
      const text = fieldText(doc, p.field);
      const passageText = fold(sliceCodePoints(text, p.startChar, p.endChar));
      if (!spans.every((s) => passageText.includes(fold(s)))) continue;
      const snippet = buildHitSnippet(r.hits[0], text, parsed, { field: p.field, passage: p, language: doc.language, maxChars: Math.max(20, Math.min(5000, p.endChar - p.startChar)) });
      hits.push({ id: doc.id, index: doc.index, score: p.score, snippets: [snippet], doc, rrf: null });
      if (hits.length === MAX_PASSAGES) break;
    }

    // No matching passage: nothing was delivered, nothing is charged (issue 13).
    if (hits.length > 0) await this.billing.charge(principal, this.prices.documentPassages, 'document_passages', requestId);
    await this.documents.recordRead(principal, [doc.id]);
    const now = nowSeconds(this.clock);
    const trajectoryId = randomUUID();
    return {
      rankingMode: 'passages',
      hits,
      totalHits: hits.length,
      hasNext: false,
      correctedQuery: null,
      embedMs: null,
      timings: { searchUs: Math.round(searchUs), loadUs: 0, totalUs: Math.round((performance.now() - t0) * 1000) },
      trajectory: { id: trajectoryId, feedbackToken: signFeedbackToken(this.secret, { trajectoryId, accountId: principal.accountId, expiresAt: now + FEEDBACK_TOKEN_TTL_S }) },
      traces: null,
      cost: hits.length > 0 ? this.prices.documentPassages : 0,
    };
  }
}
