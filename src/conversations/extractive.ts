// The offline extractive answerer (`lectern-extractive`, the default model name): composes the answer
// from sentences of the retrieved passages, each followed by the marker of the passage it came from.
// Every excerpt is the sentence itself, so every citation verifies. Relevance (issue 26, ADR 0227):
// every candidate sentence is scored for how well it answers the question: the question's content terms
// (the classifier's keywords, analysed as the index analyses text) weighted by their rarity in the
// index (idf), found in the sentence and in its document, discounted by the document's retrieval rank.
// When no sentence answers well enough (answerability below a threshold calibrated on judged questions,
// bench/answers), the answer says that the indexed literature does not answer the question and names
// the closest documents, uncited.
import type { Answerer, AnswerInput, AnswerOutput, LexicalModel } from './answerer.js';
import { anchorCitations, contentWords, sentences, type Passage } from './passages.js';
import { clauseOf, continuing, groupByTerms, isWhole, opening } from './synthesis.js';
import { claimOf, claimOverlap, DEFAULT_VERDICT_OPTIONS, STANCE_LABEL, stanceOf, VERDICT_TEXT, verdictOf, type Stance, type VerdictOptions } from './verdict.js';

export const EXTRACTIVE_MODEL_NAME = 'lectern-extractive';
/** Sentences in an answer. */
const MAX_SENTENCES = 5;
/** Longest sentence taken, characters (longer ones are usually run-on abstracts). */
const MAX_SENTENCE_CHARS = 600;

/**
 * Below this many documents the rarity of words says little (every word of a small, on-topic corpus is
 * common): the answerer then abstains only when no sentence shares a word with the question.
 */
export const MIN_DOCUMENTS_FOR_ABSTENTION = 200;

/** The answerer's tunables (defaults calibrated on SciFact train questions and off-corpus questions, bench/answers). */
export interface ExtractiveOptions {
  /** Answerability (evidence, in rare-term equivalents) below this: the answer abstains. */
  abstainBelow: number;
  /** Share of the evidence that comes from the sentence's whole document (the rest: the sentence). */
  evidenceDocumentShare: number;
  /** How much each retrieval rank below the first discounts a sentence's score. */
  rankDecay: number;
  /** Share of a sentence's relevance that comes from its whole document (the rest: the sentence itself). */
  documentShare: number;
  /** Sentences scoring below this share of the best are left out. */
  minRelative: number;
  /** Most documents cited in one answer. */
  maxDocuments: number;
  /**
   * A further document is cited only when it covers at least this share of what the first cited document
   * covers of the question's terms (idf-weighted): documents agreeing on the question's specific terms.
   */
  furtherDocumentCoverage: number;
  /** Weight of the previous question's terms in a follow-up (its own terms weigh 1). */
  historyWeight: number;
  /**
   * Answerability added for each distinct question term one sentence holds (terms found together in a
   * sentence say more than terms scattered over a document: "capital" and "Canada" in one abstract).
   */
  cooccurrenceWeight: number;
  /**
   * Answerability taken off for the rarest question term the document lacks, in units of the largest idf
   * (a question's most specific term, absent from the document, says the document is about something else).
   */
  missingWeight: number;
}

/** One document's parts of answerability (the benchmark recombines them when it calibrates). */
export interface AnswerabilityParts {
  /** Best evidence of its sentences (rare-term equivalents, see `evidence`). */
  evidence: number;
  /** Most distinct question terms one of its sentences holds. */
  matched: number;
  /** The largest weight of a question term it lacks, over the largest idf (0..1). */
  missing: number;
}

/** A document's answerability from its parts. */
export function answerabilityOf(p: AnswerabilityParts, o: Pick<ExtractiveOptions, 'cooccurrenceWeight' | 'missingWeight'>): number {
  return p.evidence + o.cooccurrenceWeight * p.matched - o.missingWeight * p.missing;
}

/**
 * Calibrated with bench/answers/run.ts (ADR 0227): `--sweep` picked rankDecay, minRelative and
 * maxDocuments on the calibration part (cited-document precision and recall at equal abstention F1);
 * abstainBelow, cooccurrenceWeight and missingWeight are the weights and threshold of best abstention
 * F1 on the calibration part (ADR 0275); furtherDocumentCoverage 0: 0.9 lowered recall there and left
 * precision as it was.
 */
export const DEFAULT_EXTRACTIVE_OPTIONS: ExtractiveOptions = {
  abstainBelow: 1.84,
  evidenceDocumentShare: 0.65,
  rankDecay: 0.5,
  documentShare: 0.35,
  minRelative: 0.75,
  maxDocuments: 2,
  furtherDocumentCoverage: 0,
  historyWeight: 0.5,
  cooccurrenceWeight: 0.3,
  missingWeight: 0,
};

/** Two sentences sharing this share of words are redundant. */
const REDUNDANT = 0.6;
/** Words that frame a question or claim rather than carry its content. */
const FRAME = new Set(['true', 'false', 'correct', 'known', 'really', 'actually', 'whether', 'evidence', 'claim', 'claims', 'fact', 'indexed']);

export const ABSTENTION = 'The indexed literature does not answer this question.';

/** Content words with equal weights: the lexicon when the answerer is used without an index. */
const PLAIN_LEXICON: LexicalModel = { terms: contentWords, idf: () => 1, maxIdf: 1, documents: 0 };

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
  readonly options: ExtractiveOptions;
  readonly verdictOptions: VerdictOptions;
  constructor(options: Partial<ExtractiveOptions> = {}, verdictOptions: Partial<VerdictOptions> = {}) {
    this.options = { ...DEFAULT_EXTRACTIVE_OPTIONS, ...options };
    this.verdictOptions = { ...DEFAULT_VERDICT_OPTIONS, ...verdictOptions };
  }

  async answer(input: AnswerInput): Promise<AnswerOutput> {
    const o = this.options;
    const lex = input.lexicon ?? PLAIN_LEXICON;
    // The question's terms and their weights: its own content (rarer terms weigh more), then, for a
    // follow-up, the previous question's terms at historyWeight.
    const weights = new Map<string, number>();
    const addTerms = (text: string, factor: number) => {
      for (const t of new Set(lex.terms(text))) {
        if (FRAME.has(t)) continue;
        const w = factor * lex.idf(t);
        if (w > (weights.get(t) ?? 0)) weights.set(t, w);
      }
    };
    const own = input.keywords && input.keywords.length > 0 ? input.keywords.filter((k) => !FRAME.has(k.toLowerCase())).join(' ') : input.question;
    addTerms(own, 1);
    if (weights.size === 0) addTerms(input.question, 1);
    if (input.history.length > 0) addTerms(input.history.at(-1)!.query, o.historyWeight);
    const total = [...weights.values()].reduce((a, b) => a + b, 0);
    const mass = (terms: Iterable<string>): number => {
      let got = 0;
      for (const t of new Set(terms)) got += weights.get(t) ?? 0;
      return got;
    };
    const coverage = (terms: Iterable<string>): number => (total <= 0 ? 0 : mass(terms) / total);
    // Each document's coverage of the question: its title and the passages' whole fields.
    const docCoverage = new Map<number, number>();
    const docText = new Map<number, string[]>();
    for (const p of input.passages) {
      const parts = docText.get(p.documentIndex) ?? [p.title];
      if (!parts.includes(p.fieldText)) parts.push(p.fieldText);
      docText.set(p.documentIndex, parts);
    }
    const docMass = new Map<number, number>();
    const parts = new Map<number, AnswerabilityParts>();
    for (const [d, texts] of docText) {
      const terms = new Set(lex.terms(texts.join('\n')));
      const m = mass(terms);
      docMass.set(d, m);
      docCoverage.set(d, total <= 0 ? 0 : m / total);
      let missing = 0;
      for (const [t, w] of weights) if (!terms.has(t)) missing = Math.max(missing, w);
      parts.set(d, { evidence: 0, matched: 0, missing: lex.maxIdf > 0 ? missing / lex.maxIdf : 0 });
    }

    const candidates: { p: Passage; s: string; relevance: number; evidence: number; score: number; order: number; words: string[] }[] = [];
    let order = 0;
    for (const p of input.passages) {
      // A title states a topic, not a finding.
      if (p.field === 'title') continue;
      for (const s of sentences(p.text)) {
        order++;
        // Whole sentences only: a window's cut first or last fragment reads badly.
        if (s.length > MAX_SENTENCE_CHARS || !p.fieldText.includes(s) || !endsSentence(p.fieldText, s) || !/^[\p{Lu}\p{N}("]/u.test(s)) continue;
        const sentenceTerms = new Set(lex.terms(s));
        const sentenceMass = mass(sentenceTerms);
        if (sentenceMass <= 0) continue;
        let matched = 0;
        for (const t of sentenceTerms) if (weights.has(t)) matched++;
        const own = total <= 0 ? 0 : sentenceMass / total;
        const relevance = (1 - o.documentShare) * own + o.documentShare * (docCoverage.get(p.documentIndex) ?? 0);
        // Evidence: how much of the question's rare vocabulary the sentence and its document share, in
        // units of the rarest possible term (a question answered by a sentence sharing one common word
        // has little; one sharing its specific terms has much, however long the question).
        const evidence = ((1 - o.evidenceDocumentShare) * sentenceMass + o.evidenceDocumentShare * (docMass.get(p.documentIndex) ?? 0)) / lex.maxIdf;
        const part = parts.get(p.documentIndex)!;
        part.evidence = Math.max(part.evidence, evidence);
        part.matched = Math.max(part.matched, matched);
        // The retrieval rank counts: a sentence of the first document beats an equally matching one
        // of the fifth (rankDecay per rank), pinned documents rank first.
        const rank = p.pinned ? 1 : p.documentIndex;
        candidates.push({ p, s, relevance, evidence, score: relevance / (1 + o.rankDecay * (rank - 1)) - order * 1e-9, order, words: contentWords(s) });
      }
    }
    candidates.sort((a, b) => b.score - a.score);
    // Answerability: the best document's evidence, plus the question terms one of its sentences holds
    // together, less its lack of the question's most specific term (weights calibrated, bench/answers).
    const answerable = [...parts.values()].filter((x) => x.evidence > 0);
    const answerability = answerable.length === 0 ? 0 : Math.max(...answerable.map((x) => answerabilityOf(x, o)));
    // A small corpus: abstain only when nothing matches (see MIN_DOCUMENTS_FOR_ABSTENTION).
    const threshold = input.lexicon && input.lexicon.documents >= MIN_DOCUMENTS_FOR_ABSTENTION ? o.abstainBelow : 0;
    if (input.passages.length === 0) {
      const raw = 'No documents matched this question, so there is nothing to answer from. Try other words or remove filters.';
      input.onDelta(raw);
      return { ...anchorCitations(raw, input.passages), modelName: EXTRACTIVE_MODEL_NAME, answerability: 0, abstained: true };
    }
    if (answerability < threshold || candidates.length === 0) {
      // The closest documents, by their best sentence (or their rank), named without markers.
      const closest: number[] = [];
      for (const c of candidates) if (!closest.includes(c.p.documentIndex)) closest.push(c.p.documentIndex);
      for (const p of input.passages) if (!closest.includes(p.documentIndex)) closest.push(p.documentIndex);
      const titles = closest.slice(0, 3).map((d) => `“${input.passages.find((p) => p.documentIndex === d)!.title.replace(/\s+/g, ' ').trim()}”`);
      const raw = `${ABSTENTION} The closest documents found: ${titles.join('; ')}.`;
      input.onDelta(raw);
      return { answer: raw, citations: [], stats: { markers: 0, verified: 0, reanchored: 0, removed: 0 }, modelName: EXTRACTIVE_MODEL_NAME, answerability, answerabilityParts: answerable, abstained: true, ...(claimOf(input.question) !== null ? { verdict: 'insufficient' as const } : {}) };
    }
    const floor = (candidates[0]?.score ?? 0) * o.minRelative;
    const picked: typeof candidates = [];
    const docs = new Set<number>();
    for (const c of candidates) {
      if (input.signal.aborted) throw input.signal.reason;
      if (c.score < floor) break;
      if (!docs.has(c.p.documentIndex) && docs.size >= o.maxDocuments) continue;
      if (!docs.has(c.p.documentIndex) && picked.length > 0 && (docCoverage.get(c.p.documentIndex) ?? 0) < o.furtherDocumentCoverage * (docCoverage.get(picked[0]!.p.documentIndex) ?? 0)) continue;
      if (picked.some((x) => x.s === c.s || jaccard(x.words, c.words) >= REDUNDANT)) continue;
      picked.push(c);
      docs.add(c.p.documentIndex);
      if (picked.length === MAX_SENTENCES) break;
    }
    // The answer (ADR 0240): a one-sentence synthesis of the cited sentences' own clauses, the best
    // sentence's and, when a second document is cited, its best sentence's, each with its marker, joined
    // by a semicolon (no word the evidence does not carry); then the supporting sentences grouped by
    // what they say, one paragraph a group.
    const weigh = (text: string) => mass(lex.terms(text));
    const leads: typeof picked = [];
    for (const c of picked) if (!leads.some((x) => x.p.documentIndex === c.p.documentIndex) && leads.length < 2) leads.push(c);
    // A sentence cut by its snippet window before its final stop gets one after the marker (the
    // excerpt itself stays verbatim).
    const quoted = (c: (typeof picked)[number]) => `${c.s} [${c.p.number}]${/[.!?]["'”’)]?$/.test(c.s) ? '' : '.'}`;
    const leadClauses = leads.map((c) => clauseOf(c.s, weigh));
    const synthesis = `${leads.map((c, i) => `${i === 0 ? opening(leadClauses[i]!) : continuing(leadClauses[i]!)} [${c.p.number}]`).join('; ')}.`;
    // A sentence the synthesis gives whole is not quoted again below it (its marker is in the synthesis).
    const given = new Set(leads.filter((c, i) => isWhole(leadClauses[i]!, c.s)));
    const shown = picked.filter((c) => !given.has(c));
    const questionTerms = (c: (typeof picked)[number]) => new Set(lex.terms(c.s).filter((t) => weights.has(t)));
    // A claim (ADR 0241): the supporting sentences grouped by their stance towards it instead, each group
    // labelled, and a verdict paragraph after the synthesis.
    const claim = claimOf(input.question);
    // The claim's words weigh by their rarity in the index (a sentence bears on "ATF4 is a stress
    // marker" when it names ATF4, not when it only says "stress"); equal weights without an index.
    const wordWeights = new Map<string, number>();
    const wordWeight = (w: string): number => {
      let x = wordWeights.get(w);
      if (x === undefined) {
        const t = lex.terms(w)[0];
        x = t === undefined ? 0 : lex.idf(t);
        wordWeights.set(w, x);
      }
      return x;
    };
    const stances = claim === null ? [] : picked.map((c) => stanceOf(claim, c.s, this.verdictOptions, wordWeight));
    const verdict = claim === null ? undefined : verdictOf(stances, this.verdictOptions, picked.map((c) => claimOverlap(claim, c.s, wordWeight)));
    const stanceOrder: Stance[] = ['supports', 'contradicts', 'neutral'];
    const groups = claim === null ? groupByTerms(shown, questionTerms) : stanceOrder.map((st) => shown.filter((c) => stances[picked.indexOf(c)] === st)).filter((g) => g.length > 0);
    const labels = claim === null ? groups.map(() => '') : groups.map((g) => `${STANCE_LABEL[stances[picked.indexOf(g[0]!)]!]} `);
    const raw = [synthesis, ...groups.map((g) => g.map(quoted).join(' '))].join('\n\n');
    const anchoredText = anchorCitations(raw, input.passages);
    // Labels and the verdict carry no marker: added after anchoring, so they never count as a claim's words.
    const paras = anchoredText.answer.split('\n\n');
    const shaped = paras.length === groups.length + 1 ? [paras[0]!, ...(verdict ? [VERDICT_TEXT[verdict]] : []), ...paras.slice(1).map((x, i) => `${labels[i]}${x}`)].join('\n\n') : anchoredText.answer;
    const anchored = { ...anchoredText, answer: shaped };
    // Deltas: the final text (document-index markers) by paragraph, so the streamed text equals the answer.
    for (const piece of anchored.answer.split(/(?<=\n\n)/)) {
      if (input.signal.aborted) throw input.signal.reason;
      input.onDelta(piece);
    }
    return { ...anchored, modelName: EXTRACTIVE_MODEL_NAME, answerability, answerabilityParts: answerable, abstained: false, ...(verdict ? { verdict } : {}) };
  }
}
