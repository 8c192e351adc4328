// Pruned evaluation of long queries (issue 27, ADR 0231): a query's work is bounded by pruning, not by
// refusing it, as Lucene's max clause count and Elasticsearch's timeouts bound theirs. When a query has
// more distinct index terms than `maxTerms`, or its terms' postings (document frequencies) sum to more
// than `maxPostings`, its most common unquoted words are left out, most common first, until it fits;
// quoted phrases are required and never pruned, and one word always stays. What is left out is
// reported so the caller can flag it. A query that still does not fit (its quoted phrases alone, or its
// one remaining word, are over the budget) is the caller's to refuse. Pure.
import type { ParsedQuery } from './query-parser.js';

export interface QueryBudget {
  /** Most distinct index terms evaluated. */
  maxTerms: number;
  /** Most postings (sum of the evaluated terms' document frequencies). */
  maxPostings: number;
}

export interface PrunedQuery {
  parsed: ParsedQuery;
  /** Index terms left out (most common first); empty when the query fit. */
  dropped: string[];
  /** Distinct terms and postings of the query as evaluated. */
  terms: number;
  postings: number;
  /** The budget the evaluated query is still over (null: it fits). */
  over: null | 'terms' | 'postings';
}

/** Distinct index terms of a parsed query (words and phrase slots). */
export function queryTerms(parsed: ParsedQuery): Set<string> {
  const out = new Set<string>();
  for (const w of parsed.words) for (const t of w.terms) out.add(t);
  for (const p of parsed.phrases) for (const s of p.slots) for (const t of s.terms) out.add(t);
  return out;
}

/** Prunes `parsed` to the budget; `df` gives a term's document frequency (summed over what is searched). */
export function pruneQuery(parsed: ParsedQuery, df: (term: string) => number, budget: QueryBudget): PrunedQuery {
  const dfOf = new Map<string, number>();
  const dfTerm = (t: string) => {
    let v = dfOf.get(t);
    if (v === undefined) dfOf.set(t, (v = df(t)));
    return v;
  };
  const count = (terms: Set<string>) => {
    let p = 0;
    for (const t of terms) p += dfTerm(t);
    return p;
  };
  const all = queryTerms(parsed);
  let postings = count(all);
  if (all.size <= budget.maxTerms && postings <= budget.maxPostings) return { parsed, dropped: [], terms: all.size, postings, over: null };
  // terms a phrase needs stay whatever happens to the word
  const required = new Set<string>();
  for (const p of parsed.phrases) for (const s of p.slots) for (const t of s.terms) required.add(t);
  const wordDf = (w: ParsedQuery['words'][number]) => Math.max(0, ...w.terms.map(dfTerm));
  // most common first; ties: the later word first (earlier words of a pasted text are kept)
  const order = parsed.words
    .map((w, i) => ({ w, i }))
    .filter((x) => !x.w.quoted)
    .sort((a, b) => wordDf(b.w) - wordDf(a.w) || b.i - a.i);
  const dropped = new Set<ParsedQuery['words'][number]>();
  const keepOne = parsed.phrases.length === 0;
  const live = new Set(all);
  const refCount = new Map<string, number>();
  for (const w of parsed.words) for (const t of w.terms) refCount.set(t, (refCount.get(t) ?? 0) + 1);
  const droppedTerms: string[] = [];
  for (const { w } of order) {
    if (live.size <= budget.maxTerms && postings <= budget.maxPostings) break;
    if (keepOne && parsed.words.length - dropped.size <= 1) break;
    dropped.add(w);
    for (const t of w.terms) {
      const n = (refCount.get(t) ?? 1) - 1;
      refCount.set(t, n);
      if (n === 0 && !required.has(t) && live.delete(t)) {
        postings -= dfTerm(t);
        droppedTerms.push(t);
      }
    }
  }
  const over = live.size > budget.maxTerms ? 'terms' : postings > budget.maxPostings ? 'postings' : null;
  const words = parsed.words.filter((w) => !dropped.has(w));
  const highlightTerms = new Set([...parsed.highlightTerms].filter((t) => live.has(t)));
  return { parsed: { ...parsed, words, highlightTerms }, dropped: droppedTerms, terms: live.size, postings, over };
}
