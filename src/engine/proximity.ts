// Term-proximity bonus for unquoted multi-word queries (in the spirit of BM25TP, Rasolofo & Savoy 2003):
// for every pair of query clauses, occurrences of the two within PROXIMITY_WINDOW positions in the same
// field contribute w_f / d^2; the accumulated pair frequency is saturated like a term frequency and
// weighted by the smaller idf of the pair:
//   bonus(d) = sum_pairs min(idf_a, idf_b) * acc / (k1 + acc)
// Applied as a re-ranking of the first `depth` hits (see search-index.ts), so pruning stays exact for the
// first stage and pages stay consistent.
import { cursorAtDoc, docFieldPositions, type PostingCursor } from './postings-cursor.js';
import type { SearchPlan } from './searcher.js';
import type { Segment } from './segment.js';
import { NF } from './segment-writer.js';

/** Maximum distance (positions) between two terms that still counts as proximity. */
export const PROXIMITY_WINDOW = 5;

/**
 * The proximity bonus of `doc` (0 for single-clause queries). `cursorAt` gives a term's cursor positioned
 * at `doc` (null when absent); by default a fresh one (re-ranking shares cursors, see PassageScorer.at).
 */
export function proximityBonus(seg: Segment, doc: number, plan: SearchPlan, cursorAt = (b: Uint8Array): PostingCursor | null => cursorAtDoc(seg, b, doc)): number {
  const clauses = plan.clauses.filter((c) => c.weight >= 1);
  if (clauses.length < 2) return 0;
  // positions per clause per field (alternatives merged)
  const per = clauses.map((c) => docFieldPositions(c.bytes, cursorAt));
  const w = plan.norms.w;
  let bonus = 0;
  for (let a = 0; a < clauses.length; a++) {
    for (let b = a + 1; b < clauses.length; b++) {
      let acc = 0;
      for (let f = 0; f < NF; f++) {
        const pa = per[a]![f]!;
        const pb = per[b]![f]!;
        if (pa.length === 0 || pb.length === 0) continue;
        let j = 0;
        for (const p of pa) {
          while (j < pb.length && pb[j]! < p - PROXIMITY_WINDOW) j++;
          for (let k = j; k < pb.length && pb[k]! <= p + PROXIMITY_WINDOW; k++) {
            const d = Math.abs(pb[k]! - p);
            if (d > 0) acc += w[f]! / (d * d);
          }
        }
      }
      if (acc > 0) bonus += (Math.min(clauses[a]!.idf, clauses[b]!.idf) * plan.lexicalWeight * acc) / (plan.k1 + acc);
    }
  }
  return bonus;
}
