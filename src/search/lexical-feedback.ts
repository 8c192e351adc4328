// Pseudo-relevance feedback for the lexical channel (issue 27, ADR 0315): the query is run, its top
// document's title and abstract are analysed like the index analyses them, and the document's most
// distinctive terms (relative frequency in the document x ln(N / df)), other than the query's own, are
// added to the query as weighted clauses (the engine's `expansion`), the strongest at `weight` and the
// others in proportion. The second pass is an ordinary exact engine search; a query whose first pass
// finds nothing, or whose top document has no new terms, keeps its first result.
//
// Measured on seven judged sets (docs/quality.md): feedback from the top document only passes the
// landing rule in fulltext (mean +0.009 nDCG@10, no set below -0.002) and in hybrid (+0.005, no set
// worse); from the top 3-5 documents it drifts (SciFact -0.035). Off by default
// (ranking.lexicalFeedbackTerms = 0): it costs about 5x the lexical channel's CPU at 100k documents
// (the second pass's extra clauses) and is not applied across the shards of a cluster yet (ADR 0315).
import { documentTerms, type EngineHit, type EngineQuery, type EngineResult, type SearchIndex } from '../engine/index.js';

export interface LexicalFeedbackParams {
  /** Expansion terms taken from the top document (0 = off). */
  terms: number;
  /** Weight of the strongest expansion term (0 < weight <= 10); the others in proportion to their score. */
  weight: number;
}

/** The setting measured in docs/quality.md (chosen before the sweep around it, not from it). */
export const MEASURED_LEXICAL_FEEDBACK: LexicalFeedbackParams = { terms: 10, weight: 0.3 };

/** A feedback document's text (what the index analysed: title and abstract). */
export interface FeedbackDocument {
  title: string;
  abstract: string | null;
  language: string | null;
}

/**
 * The expansion clauses feedback from `doc` adds to `query`: the document's analysed terms other than the
 * query's own, by relative frequency (title terms counted twice, as the corpus model counts them) times
 * ln(N / df) over the index, the best `p.terms`, weighted `p.weight` x score / best score. Ties break by
 * term, so the result is deterministic.
 */
export function feedbackExpansion(index: Pick<SearchIndex, 'queryStats' | 'queryTerms' | 'docFreq' | 'defaultLanguage'>, query: Pick<EngineQuery, 'text' | 'possibleLanguages'>, doc: FeedbackDocument, p: LexicalFeedbackParams): { term: string; weight: number }[] {
  if (!(p.terms > 0) || !(p.weight > 0)) return [];
  const bag = documentTerms(doc.title, doc.abstract, doc.language, index.defaultLanguage);
  let len = 0;
  for (const n of bag.values()) len += n;
  if (len === 0) return [];
  const own = new Set(index.queryTerms({ text: query.text, possibleLanguages: query.possibleLanguages ?? null }));
  const candidates = [...bag.keys()].filter((t) => !own.has(t));
  if (candidates.length === 0) return [];
  // N and df as BM25 sees them (live documents; document frequencies over the segments)
  const n = index.queryStats({ text: '' }).docCount;
  const scored = candidates
    .map((t): [string, number] => [t, ((bag.get(t) ?? 0) / len) * Math.log(n / Math.max(1, index.docFreq(t)))])
    .filter(([, s]) => s > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, Math.floor(p.terms));
  const best = scored[0]?.[1] ?? 0;
  if (!(best > 0)) return [];
  const w = Math.min(10, p.weight);
  return scored.map(([term, s]) => ({ term, weight: (w * s) / best }));
}

export interface FeedbackPass {
  result: EngineResult;
  /** The document the feedback came from. */
  from: string;
  terms: { term: string; weight: number }[];
}

/**
 * Runs the feedback pass of `base`. The top document comes from `first` (the query's own full pass, when
 * the caller needs it anyway and it starts at offset 0), else from a one-hit probe without passages or
 * totals (what `fulltext` alone needs: much cheaper than the full pass). It is read through `load` and
 * its expansion searched. Null when there is nothing to feed back (no hit, no text, no new term, or the
 * query already carries an expansion).
 */
export async function lexicalFeedbackPass(
  index: Pick<SearchIndex, 'search' | 'queryStats' | 'queryTerms' | 'docFreq' | 'defaultLanguage'>,
  base: EngineQuery,
  first: EngineResult | null,
  p: LexicalFeedbackParams,
  load: (hit: EngineHit) => Promise<FeedbackDocument | null>,
): Promise<FeedbackPass | null> {
  if (!(p.terms > 0) || (base.expansion && base.expansion.length > 0) || !base.text?.trim()) return null;
  const top = first && (base.offset ?? 0) === 0 ? first.hits[0] : index.search({ ...base, offset: 0, limit: 1, passagesPerHit: 0, explain: false, trace: false, exactTotal: false }).hits[0];
  if (!top) return null;
  const doc = await load(top);
  if (!doc) return null;
  const terms = feedbackExpansion(index, base, doc, p);
  if (terms.length === 0) return null;
  return { result: index.search({ ...base, expansion: terms }), from: top.id, terms };
}
