// The language-model answerer: builds the prompt (numbered passages budgeted to the context window,
// pinned passages the last to be dropped), calls a ChatModel of the registry, then verifies every
// marker (anchorCitations): re-anchored to the passage that best supports the sentence or removed.
// The model is asked for the extractive answer's structure (ADR 0240): a one-sentence synthesis from the
// passages' own words, then the supporting sentences grouped in paragraphs.
import type { ChatModel } from '../ports/chat-model.js';
import type { Answerer, AnswerInput, AnswerOutput } from './answerer.js';
import { anchorCitations, type Passage } from './passages.js';

/** Rough tokens of a text (4 characters per token; an over-estimate for English). */
export const estimateTokens = (s: string): number => Math.ceil(s.length / 4);
/** Tokens kept for the answer. */
export const MAX_OUTPUT_TOKENS = 1024;

export const SYSTEM_PROMPT = [
  'You answer research questions using only the numbered passages given by the user.',
  'After each sentence that uses a passage, put the passage number in square brackets, e.g. "Salt caverns are tight [2]." or "[2, 5]" for several.',
  'Cite only passages that state what the sentence says. Do not invent numbers. If the passages do not answer the question, say so.',
  'First one sentence in the passages\' own words saying what they show about the question, with markers; then, after a blank line, the supporting sentences grouped by topic into paragraphs.',
  'Answer in the language of the question, in at most six sentences.',
].join(' ');

/**
 * The passages that fit `budget` tokens besides the fixed parts, in their given order. The first
 * snippet of each document comes before further snippets; among those, pinned documents first. When the
 * budget is short, passages are dropped from the end of that priority order, so pinned ones go last.
 */
export function budgetPassages(passages: readonly Passage[], fixedTokens: number, budget: number): Passage[] {
  const priority = [...passages].sort((a, b) => Number(a.snippetIndex > 0) - Number(b.snippetIndex > 0) || Number(b.pinned) - Number(a.pinned) || a.documentIndex - b.documentIndex || a.snippetIndex - b.snippetIndex);
  let left = budget - fixedTokens;
  const kept = new Set<Passage>();
  for (const p of priority) {
    const cost = estimateTokens(renderPassage(p, 0)) + 2;
    if (cost > left) continue;
    left -= cost;
    kept.add(p);
  }
  return passages.filter((p) => kept.has(p)).map((p, i) => ({ ...p, number: i + 1 }));
}

const renderPassage = (p: Passage, n: number) => `[${n}] ${p.title}\n${p.text.replace(/\s+/g, ' ').trim()}`;

export function buildUserMessage(question: string, passages: readonly Passage[]): string {
  return `Passages:\n\n${passages.map((p) => renderPassage(p, p.number)).join('\n\n')}\n\nQuestion: ${question}`;
}

export class LlmAnswerer implements Answerer {
  constructor(
    private readonly model: ChatModel,
    private readonly providerModel: string,
    private readonly publicName: string,
    private readonly contextTokens: number,
  ) {}

  async answer(input: AnswerInput): Promise<AnswerOutput> {
    const budget = Math.min(input.maxContextLength && input.maxContextLength > 0 ? input.maxContextLength : this.contextTokens, this.contextTokens);
    const maxOut = Math.max(64, Math.min(MAX_OUTPUT_TOKENS, Math.floor(budget / 4)));
    const history = input.history.slice(-3).flatMap((t) => [
      { role: 'user' as const, content: t.query },
      { role: 'assistant' as const, content: t.answer.replace(/\[\d+\]/g, '') },
    ]);
    const fixed = estimateTokens(SYSTEM_PROMPT) + history.reduce((n, m) => n + estimateTokens(m.content), 0) + estimateTokens(buildUserMessage(input.question, [])) + maxOut;
    const passages = budgetPassages(input.passages, fixed, budget);
    const result = await this.model.complete({
      model: this.providerModel,
      system: SYSTEM_PROMPT,
      messages: [...history, { role: 'user', content: buildUserMessage(input.question, passages) }],
      maxOutputTokens: maxOut,
      apiKey: input.apiKey,
      signal: input.signal,
      onDelta: input.onDelta,
    });
    const anchored = anchorCitations(result.text, passages);
    return { ...anchored, modelName: this.publicName };
  }
}
