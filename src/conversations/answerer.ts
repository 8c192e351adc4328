// The answerer port of the conversations capability: the offline extractive answerer and the
// language-model answerer both take the question and numbered passages and give back an answer with
// verified citations.
import type { CitationData } from '../domain/conversation.js';
import type { AnchorStats, Passage } from './passages.js';

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
}

export interface AnswerOutput {
  answer: string;
  citations: CitationData[];
  modelName: string;
  stats: AnchorStats;
}

export interface Answerer {
  answer(input: AnswerInput): Promise<AnswerOutput>;
}
