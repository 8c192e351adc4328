// The answerer port of the conversations capability: the offline extractive answerer and the
// language-model answerer both take the question and numbered passages and give back an answer with
// verified citations.
import type { CitationData } from '../domain/conversation.js';
import type { AnchorStats, Passage } from './passages.js';
import type { Verdict } from './verdict.js';

/** The searched index's terms and their rarity (the search capability's TermModel). */
export interface LexicalModel {
  /** Analysed terms of a text (stemmed, stop words dropped). */
  terms(text: string): string[];
  /** Inverse document frequency of an analysed term over the index. */
  idf(term: string): number;
  /** The largest idf (a term no document holds): the unit of evidence mass. */
  maxIdf: number;
  /** Documents in the index. */
  documents: number;
}

export interface AnswerInput {
  question: string;
  /** Earlier turns of the conversation, oldest first. */
  history: readonly { query: string; answer: string }[];
  /** Passages in priority order (pinned documents first, then by rank). */
  passages: readonly Passage[];
  /** Prompt budget in tokens, or null (the model's own window). */
  maxContextLength: number | null;
  /** The caller's provider key for this one call; never stored. */
  apiKey: string | null;
  signal: AbortSignal;
  /** Text deltas as they are produced. */
  onDelta: (text: string) => void;
  /** The words that carry the question's content (the classifier's keywords); default: its content words. */
  keywords?: readonly string[];
  /** The searched index's lexical model; default: content words, all of equal weight. */
  lexicon?: LexicalModel;
}

export interface AnswerOutput {
  answer: string;
  citations: CitationData[];
  modelName: string;
  stats: AnchorStats;
  /**
   * The evidence the best candidate sentence and its document hold for the question (the extractive
   * answerer; in rare-term equivalents: the idf of the question terms they share over the largest idf).
   * Below the calibrated threshold the answer abstains. Absent for a language model.
   */
  answerability?: number;
  /** True when the answer states that the indexed literature does not answer the question. */
  abstained?: boolean;
  /** The extractive answerer's parts of answerability per document with evidence (benchmarks recombine them; not stored). */
  answerabilityParts?: { evidence: number; matched: number; missing: number }[];
  /** For a claim, the extractive answerer's verdict on it from the cited sentences (ADR 0241). */
  verdict?: Verdict;
}

export interface Answerer {
  answer(input: AnswerInput): Promise<AnswerOutput>;
}
