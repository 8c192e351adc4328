// Passage (chunk) scoring for one document: query-term positions are attributed to the document's
// chunks and each chunk is scored with BM25 over the chunk (length normalised against AVG_CHUNK_LEN),
// field-weighted, plus the phrase bonus for phrase occurrences starting in the chunk.
// Used for every hit's passages (snippet anchors) and, in `passages` ranking mode, for MaxP ranking.
import { matchPhrase } from './phrase-match.js';
import { cursorAtDoc, docFieldPositions, PostingCursor, searchArena } from './postings-cursor.js';
import { termOrdinal, type SearchPlan } from './searcher.js';
import type { Segment } from './segment.js';
import { NF } from './segment-writer.js';
import { FIELDS, type PassageHit } from './types.js';

/** Typical chunk length in positions (the BM25 length normaliser of passages). */
export const AVG_CHUNK_LEN = 90;
const B = 0.75;

/**
 * Scores passages of several docs of one segment with shared cursors (docs must be requested in
 * ascending order; a smaller doc than the previous one transparently restarts the cursors).
 */
export class PassageScorer {
  readonly #seg: Segment;
  readonly #plan: SearchPlan;
  readonly #cursors = new Map<Uint8Array, PostingCursor | null>();
  readonly #si: number;
  #last = -1;
  /** `si`: the segment's index in the snapshot the plan was built on (for its planned term ordinals). */
  constructor(seg: Segment, plan: SearchPlan, si = -1) {
    this.#seg = seg;
    this.#plan = plan;
    this.#si = si;
  }
  /** Cursor of a term positioned at `doc`, or null when the term is absent from it. */
  at(bytes: Uint8Array, doc: number): PostingCursor | null {
    if (doc < this.#last) this.#cursors.clear();
    this.#last = doc;
    let c = this.#cursors.get(bytes);
    if (c === undefined) {
      const t = this.#si >= 0 ? termOrdinal(this.#plan, bytes, this.#si, this.#seg) : this.#seg.findTerm(bytes);
      c = t < 0 ? null : new PostingCursor(this.#seg, t, searchArena);
      this.#cursors.set(bytes, c);
    }
    if (c === null) return null;
    return c.advance(doc) === doc ? c : null;
  }
  score(doc: number): PassageHit[] {
    return scorePassages(this.#seg, doc, this.#plan, this);
  }
}

// Scratch space reused across calls (scoring is synchronous and never nested): allocating three typed
// arrays per hit was a visible share of a query's passages.
let scratchScores = new Float64Array(64);
let scratchTf = new Float64Array(64);
let scratchPositions = new Int32Array(256);

/** Scores every chunk of `doc` for the plan; returns chunks best first (score > 0 only), or [] if none match. */
export function scorePassages(seg: Segment, doc: number, plan: SearchPlan, scorer?: PassageScorer): PassageHit[] {
  const cursorAt = (b: Uint8Array): PostingCursor | null => {
    if (scorer) return scorer.at(b, doc);
    return cursorAtDoc(seg, b, doc);
  };
  const c0 = seg.chunkStart[doc]!;
  const c1 = seg.chunkStart[doc + 1]!;
  const nChunks = c1 - c0;
  if (nChunks === 0) return [];
  if (scratchScores.length < nChunks) {
    scratchScores = new Float64Array(nChunks * 2);
    scratchTf = new Float64Array(nChunks * 2);
  }
  const scores = scratchScores;
  const tf = scratchTf;
  scores.fill(0, 0, nChunks);
  const chunkOf = (f: number, p: number): number => {
    for (let c = c0; c < c1; c++) {
      if (seg.chunkField[c] === f && p >= seg.chunkPos[2 * c]! && p < seg.chunkPos[2 * c + 1]!) return c - c0;
    }
    return -1;
  };
  const chunkLen = (c: number): number => seg.chunkPos[2 * (c + c0) + 1]! - seg.chunkPos[2 * (c + c0)]!;
  const w = plan.norms.w;
  let buf = scratchPositions;
  const load = (cur: PostingCursor): number => {
    const n = cur.tf(0) + cur.tf(1) + cur.tf(2);
    if (buf.length < n) buf = scratchPositions = new Int32Array(n * 2);
    cur.positions(buf);
    return n;
  };
  for (const clause of plan.clauses) {
    tf.fill(0, 0, nChunks);
    for (const b of clause.bytes) {
      const cur = cursorAt(b);
      if (cur === null) continue;
      load(cur);
      let k = 0;
      for (let f = 0; f < NF; f++) {
        const n = cur.tf(f);
        // the field's positions ascend and so do its chunks: one forward walk finds each position's chunk
        // (what chunkOf finds: the chunk of field f holding it, none in a gap)
        const wf = w[f]!;
        let g = c0;
        for (let j = 0; j < n; j++) {
          const p = buf[k++]!;
          while (g < c1 && (seg.chunkField[g] !== f || seg.chunkPos[2 * g + 1]! <= p)) g++;
          if (g < c1 && seg.chunkPos[2 * g]! <= p) tf[g - c0]! += wf;
        }
      }
    }
    for (let c = 0; c < nChunks; c++) {
      const x = tf[c]!;
      if (x > 0) scores[c]! += (clause.mult * x) / (x + plan.k1 * (1 - B + (B * chunkLen(c)) / AVG_CHUNK_LEN));
    }
  }
  if (plan.phraseBoost > 0) {
    for (const p of plan.phrases) {
      tf.fill(0, 0, nChunks);
      const lists: Int32Array[][] = []; // per slot, per field
      let ok = true;
      for (const s of p.slots) {
        const per = docFieldPositions(s.bytes, cursorAt);
        if (per.every((x) => x.length === 0)) ok = false;
        lists.push(per.map((x) => Int32Array.from(x)));
      }
      if (!ok) continue;
      const offsets = p.slots.map((s) => s.offset);
      for (let f = 0; f < NF; f++) {
        let total = 0;
        for (const l of lists) total += l[f]!.length;
        const all = new Int32Array(total);
        const starts: number[] = [];
        const ends: number[] = [];
        let o = 0;
        for (const l of lists) {
          starts.push(o);
          all.set(l[f]!, o);
          o += l[f]!.length;
          ends.push(o);
        }
        matchPhrase(all, starts, ends, offsets, (pos) => {
          const c = chunkOf(f, pos);
          if (c >= 0) tf[c]! += w[f]!;
        });
      }
      for (let c = 0; c < nChunks; c++) {
        const x = tf[c]!;
        if (x > 0) scores[c]! += (plan.phraseBoost * plan.lexicalWeight * p.idfSum * x) / (x + plan.k1 * (1 - B + (B * chunkLen(c)) / AVG_CHUNK_LEN));
      }
    }
  }
  const out: PassageHit[] = [];
  for (let c = 0; c < nChunks; c++) if (scores[c]! > 0) out.push(passageAt(seg, doc, c, scores[c]!));
  out.sort((a, b) => b.score - a.score || a.chunkId - b.chunkId);
  return out;
}

/** Chunk `c` (0-based within the doc) of `doc` as a PassageHit with the given score. */
export function passageAt(seg: Segment, doc: number, c: number, score: number): PassageHit {
  const g = seg.chunkStart[doc]! + c;
  const f = seg.chunkField[g]!;
  return {
    chunkId: c,
    field: FIELDS[f]!,
    startChar: seg.chunkChar[2 * g]!,
    endChar: seg.chunkChar[2 * g + 1]!,
    fieldLength: seg.fieldCp[doc * NF + f]!,
    score,
  };
}

/** A fallback passage when nothing matched: the first abstract chunk, else the first chunk. */
export function leadPassage(seg: Segment, doc: number): PassageHit | null {
  const c0 = seg.chunkStart[doc]!;
  const c1 = seg.chunkStart[doc + 1]!;
  if (c1 === c0) return null;
  for (let c = c0; c < c1; c++) if (seg.chunkField[c] !== 0) return passageAt(seg, doc, c - c0, 0);
  return passageAt(seg, doc, 0, 0);
}
