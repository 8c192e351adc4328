// Score explanations: recomputes one hit's score clause by clause as a tree (the same formulas as
// bm25f.ts and the phrase bonus of searcher.ts), for debugging relevance.
import { cursorAtDoc, docFieldPositions } from './postings-cursor.js';
import { phraseTfInField } from './phrase-match.js';
import type { SearchPlan } from './searcher.js';
import type { Segment } from './segment.js';
import { NF } from './segment-writer.js';
import { FIELDS, type Explanation } from './types.js';

function node(value: number, description: string, details: Explanation[] = []): Explanation {
  return { value, description, details };
}

/** Explains the lexical score of `doc` in `seg` under `plan`. */
export function explainDoc(seg: Segment, doc: number, plan: SearchPlan): Explanation {
  const { w, b, invAvg } = plan.norms;
  const parts: Explanation[] = [];
  let total = 0;
  const fieldNodes = (tfs: number[]): { tfp: number; nodes: Explanation[] } => {
    let tfp = 0;
    const nodes: Explanation[] = [];
    for (let f = 0; f < NF; f++) {
      const tf = tfs[f]!;
      if (tf === 0) continue;
      const len = seg.fieldLen[doc * NF + f]!;
      const norm = 1 - b[f]! + b[f]! * len * invAvg[f]!;
      const v = (w[f]! * tf) / norm;
      tfp += v;
      nodes.push(
        node(v, `${FIELDS[f]}: weight * tf / (1 - b + b * len / avgLen)`, [
          node(w[f]!, 'field weight'),
          node(tf, 'tf'),
          node(b[f]!, 'b'),
          node(len, 'field length'),
          node(invAvg[f]! > 0 ? 1 / invAvg[f]! : 0, 'average field length'),
        ]),
      );
    }
    return { tfp, nodes };
  };
  plan.clauses.forEach((c) => {
    const tfs = [0, 0, 0];
    for (const bytes of c.bytes) {
      const cur = cursorAtDoc(seg, bytes, doc);
      if (cur === null) continue;
      for (let f = 0; f < NF; f++) tfs[f]! += cur.tf(f);
    }
    const { tfp, nodes } = fieldNodes(tfs);
    if (tfp === 0) return;
    const v = (c.mult * tfp) / (plan.k1 + tfp);
    total += v;
    parts.push(
      node(v, `clause ${c.terms.join('|')}: idf * weight * tf' / (k1 + tf')`, [
        node(c.idf, `idf = ln(1 + (N - df + 0.5) / (df + 0.5)), df = ${c.df}`),
        node(c.weight * plan.lexicalWeight, 'clause weight * lexical weight'),
        node(plan.k1, 'k1'),
        node(tfp, "tf' (BM25F pseudo frequency)", nodes),
      ]),
    );
  });
  plan.phrases.forEach((p, i) => {
    const tfs = [0, 0, 0];
    const perSlot = p.slots.map((s) => docFieldPositions(s.bytes, (b) => cursorAtDoc(seg, b, doc)));
    for (let f = 0; f < NF; f++) tfs[f] = phraseTfInField(perSlot.map((l) => l[f]!), p.slots.map((s) => s.offset));
    const { tfp, nodes } = fieldNodes(tfs);
    const v = plan.phraseBoost === 0 || tfp === 0 ? 0 : (plan.phraseBoost * plan.lexicalWeight * p.idfSum * tfp) / (plan.k1 + tfp);
    total += v;
    parts.push(
      node(v, `phrase ${i + 1} bonus: phraseBoost * lexical weight * sum(idf) * tf' / (k1 + tf')`, [
        node(plan.phraseBoost, 'phraseBoost'),
        node(p.idfSum, 'sum of slot idf'),
        node(tfp, "tf' of phrase occurrences", nodes),
      ]),
    );
  });
  return node(total, 'sum of clause scores and phrase bonuses', parts);
}
