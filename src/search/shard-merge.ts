// Merging shards' rankings into the corpus's (ADR 0201). Every shard scored with the same global
// statistics, so a document's score is the one a single index gives it; the engine orders by score
// descending, then external id ascending (filter-only listings: issue time descending, unknown last, then
// id), so merging the shards' top k in that order gives the single index's top k. Works never span shards
// (routing by work key), so collapsing by work key stays exact per shard, and match counts add up.
import type { EngineHit, EngineResult, EngineTrace } from '../engine/index.js';

interface Entry {
  hit: EngineHit;
  issued: number | null;
}

const byId = (a: Entry, b: Entry) => (a.hit.id < b.hit.id ? -1 : a.hit.id > b.hit.id ? 1 : 0);

/** The engine's order of hits: score desc, then id asc. */
function byScore(a: Entry, b: Entry): number {
  return b.hit.score - a.hit.score || byId(a, b);
}

/** A filter-only listing's order: issued desc (unknown last), then id asc. */
function byIssued(a: Entry, b: Entry): number {
  const x = a.issued ?? -Infinity;
  const y = b.issued ?? -Infinity;
  return x !== y ? (x < y ? 1 : -1) : byId(a, b);
}

/**
 * The merged page `offset .. offset+limit-1` of shards' results, each the shard's ranking from offset 0
 * at least `offset + limit` deep. Totals add up; `totalHitsExact` holds when every shard's does.
 */
export function mergeShardResults(results: readonly EngineResult[], offset: number, limit: number): EngineResult {
  const listing = results.length > 0 && results.every((r) => r.issued !== undefined);
  const all: Entry[] = [];
  for (const r of results) r.hits.forEach((hit, i) => all.push({ hit, issued: listing ? (r.issued![i] ?? null) : null }));
  all.sort(listing ? byIssued : byScore);
  const page = all.slice(offset, offset + limit);
  const hasMore = all.length > offset + limit || results.some((r) => r.hasMore);
  const out: EngineResult = {
    hits: page.map((e) => e.hit),
    // as the engine does: never fewer than what is paged (collapse counts works, matches count documents)
    totalHits: Math.max(results.reduce((n, r) => n + r.totalHits, 0), offset + page.length + (hasMore ? 1 : 0)),
    totalHitsExact: results.every((r) => r.totalHitsExact),
    hasMore,
    rankingMode: results[0]?.rankingMode ?? 'documents',
  };
  if (listing) out.issued = page.map((e) => e.issued);
  const traces = results.map((r) => r.trace).filter((t): t is EngineTrace => t !== undefined);
  if (traces.length > 0) {
    out.trace = {
      segments: traces.flatMap((t) => t.segments).slice(0, 64),
      // every shard reports the same global document frequencies
      terms: traces[0]!.terms,
      notes: [...new Set(traces.flatMap((t) => t.notes))],
    };
  }
  return out;
}
