// Lexical score components of given documents (ranking features, ADR 0139): for each document, in one
// visit of its postings, the BM25 of the query over each field alone (field weight 1, the others 0),
// the BM25F score at the plan's field weights, the quoted phrases' bonus and the term-proximity bonus
// (weight 1). The same formulas as bm25f.ts, searcher.ts (phraseBonus) and proximity.ts, so each part
// equals what a search restricted to the document with that variant scores (up to the order of
// floating-point summation), without running one restricted search per part.
import { docFieldPositions, type PostingCursor } from './postings-cursor.js';
import { phraseTfInField } from './phrase-match.js';
import { PassageScorer } from './passages.js';
import { proximityBonus } from './proximity.js';
import type { SearchPlan } from './searcher.js';
import type { Segment } from './segment.js';
import { NF } from './segment-writer.js';

/** The lexical parts of one document's score. */
export interface DocumentScoreParts {
  /** BM25 of the query words over title, abstract, body alone (0 where no word occurs). */
  fields: [number, number, number];
  /** BM25F over all fields at the plan's weights, without bonuses. */
  plain: number;
  /** Sum of the quoted phrases' bonuses at the plan's phrase boost (0 without phrases). */
  phrase: number;
  /** Term-proximity bonus at weight 1 (0 unless the query has two or more full-weight words). */
  proximity: number;
}

/** Scores documents `docs` (ascending, live) of segment `si` of the plan's snapshot. */
export function scoreDocumentParts(seg: Segment, si: number, plan: SearchPlan, docs: readonly number[], out: (doc: number, parts: DocumentScoreParts) => void): void {
  const scorer = new PassageScorer(seg, plan, si);
  const { w, b, invAvg } = plan.norms;
  const k1 = plan.k1;
  const norm = new Float64Array(NF);
  const tfs = new Float64Array(NF);
  const useProximity = plan.clauses.filter((c) => c.weight >= 1).length >= 2;
  for (const doc of docs) {
    const at = (bytes: Uint8Array): PostingCursor | null => scorer.at(bytes, doc);
    for (let f = 0; f < NF; f++) norm[f] = 1 - b[f]! + b[f]! * seg.fieldLen[doc * NF + f]! * invAvg[f]!;
    const parts: DocumentScoreParts = { fields: [0, 0, 0], plain: 0, phrase: 0, proximity: 0 };
    for (const c of plan.clauses) {
      tfs.fill(0);
      let any = false;
      for (const bytes of c.bytes) {
        const cur = at(bytes);
        if (cur === null) continue;
        any = true;
        for (let f = 0; f < NF; f++) tfs[f]! += cur.tf(f);
      }
      if (!any) continue;
      let tfp = 0;
      for (let f = 0; f < NF; f++) {
        if (tfs[f] === 0) continue;
        const alone = tfs[f]! / norm[f]!;
        parts.fields[f as 0 | 1 | 2] += (c.mult * alone) / (k1 + alone);
        tfp += w[f]! * alone;
      }
      if (tfp > 0) parts.plain += (c.mult * tfp) / (k1 + tfp);
    }
    if (plan.phraseBoost > 0) {
      for (const p of plan.phrases) {
        const perSlot = p.slots.map((s) => docFieldPositions(s.bytes, at));
        let tfp = 0;
        for (let f = 0; f < NF; f++) {
          const tf = phraseTfInField(perSlot.map((l) => l[f]!), p.slots.map((s) => s.offset));
          if (tf > 0) tfp += (w[f]! * tf) / norm[f]!;
        }
        if (tfp > 0) parts.phrase += (plan.phraseBoost * plan.lexicalWeight * p.idfSum * tfp) / (k1 + tfp);
      }
    }
    if (useProximity) parts.proximity = proximityBonus(seg, doc, plan, at);
    out(doc, parts);
  }
}
