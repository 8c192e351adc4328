// The offline extractive answerer (`lectern-extractive`, the default model name): composes the answer
// from sentences of the retrieved passages, ranked by their overlap with the question (pinned documents
// and higher-ranked passages win ties), redundant sentences removed, each followed by the marker of the
// passage it came from. Every excerpt is the sentence itself, so every citation verifies.
import type { Answerer, AnswerInput, AnswerOutput } from './answerer.js';
import { anchorCitations, contentWords, overlap, sentences, type Passage } from './passages.js';

export const EXTRACTIVE_MODEL_NAME = 'lectern-extractive';
/** Sentences in an answer. */
const MAX_SENTENCES = 5;
/** Longest sentence taken, characters (longer ones are usually run-on abstracts). */
const MAX_SENTENCE_CHARS = 600;
/** How much each retrieval rank below the first discounts a sentence's overlap score. */
const RANK_DECAY = 0.5;
/** Sentences scoring below this share of the best are left out (tuned on the first 300 SciFact train claims, ADR 0063) (a weak sentence dilutes the answer). */
const MIN_RELATIVE = 0.5;
/** Two sentences sharing this share of words are redundant. */
const REDUNDANT = 0.6;

/** `s` ends a sentence: with its own final punctuation, or the field continues with it right after (a snippet window ends on a word). */
function endsSentence(field: string, s: string): boolean {
  if (/[.!?]$/.test(s)) return true;
  for (let i = field.indexOf(s); i >= 0; i = field.indexOf(s, i + 1)) if (/^[.!?](\s|$)/.test(field.slice(i + s.length, i + s.length + 2))) return true;
  return false;
}

function jaccard(a: readonly string[], b: readonly string[]): number {
  const A = new Set(a);
  const B = new Set(b);
  let n = 0;
  for (const w of A) if (B.has(w)) n++;
  return n / Math.max(1, A.size + B.size - n);
}

export class ExtractiveAnswerer implements Answerer {
  async answer(input: AnswerInput): Promise<AnswerOutput> {
    const q = contentWords(input.history.length > 0 ? `${input.question} ${input.history.at(-1)!.query}` : input.question);
    const candidates: { p: Passage; s: string; score: number; order: number; words: string[] }[] = [];
    let order = 0;
    for (const p of input.passages) {
      // A title states a topic, not a finding.
      if (p.field === 'title') continue;
      for (const s of sentences(p.text)) {
        order++;
        // Whole sentences only: a window's cut first or last fragment reads badly.
        if (s.length > MAX_SENTENCE_CHARS || !p.fieldText.includes(s) || !endsSentence(p.fieldText, s) || !/^[\p{Lu}\p{N}("]/u.test(s)) continue;
        const score = overlap(q, s);
        if (score <= 0) continue;
        // The retrieval rank counts: a sentence of the first document beats an equally matching one
        // of the fifth (RANK_DECAY per rank), pinned documents rank first.
        const rank = p.pinned ? 1 : p.documentIndex;
        candidates.push({ p, s, score: score / (1 + RANK_DECAY * (rank - 1)) - order * 1e-6, order, words: contentWords(s) });
      }
    }
    candidates.sort((a, b) => b.score - a.score);
    const floor = (candidates[0]?.score ?? 0) * MIN_RELATIVE;
    const picked: typeof candidates = [];
    for (const c of candidates) {
      if (input.signal.aborted) throw input.signal.reason;
      if (c.score < floor) break;
      if (picked.some((x) => x.s === c.s || jaccard(x.words, c.words) >= REDUNDANT)) continue;
      picked.push(c);
      if (picked.length === MAX_SENTENCES) break;
    }
    // Grouped by document in answer order (first appearance), so related sentences read together.
    const docOrder = [...new Set(picked.map((c) => c.p.documentIndex))];
    picked.sort((a, b) => docOrder.indexOf(a.p.documentIndex) - docOrder.indexOf(b.p.documentIndex) || a.order - b.order);
    let raw: string;
    if (picked.length === 0) {
      raw = input.passages.length === 0 ? 'No documents matched this question, so there is nothing to answer from. Try other words or remove filters.' : 'The retrieved passages do not contain sentences about this question.';
      input.onDelta(raw);
    } else {
      const parts: string[] = [];
      for (const c of picked) {
        // Deltas carry the final marker (the document index): every extractive marker verifies, so the
        // streamed text equals the final answer.
        // A sentence cut by its snippet window before its final stop gets one after the marker (the
        // excerpt itself stays verbatim).
        const stop = /[.!?]["'”’)]?$/.test(c.s) ? '' : '.';
        input.onDelta(`${parts.length > 0 ? ' ' : ''}${c.s} [${c.p.documentIndex}]${stop}`);
        parts.push(`${c.s} [${c.p.number}]${stop}`);
      }
      raw = parts.join(' ');
    }
    const anchored = anchorCitations(raw, input.passages);
    return { ...anchored, modelName: EXTRACTIVE_MODEL_NAME };
  }
}
