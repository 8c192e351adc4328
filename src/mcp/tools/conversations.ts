// ask and read_conversation: the MCP twins of POST /v2/conversations/ and GET /v2/conversations/{slug}
// (same service; a turn is billed prices.conversationTurn once after success, reading is free; the
// `conversations` and `default` rate limits). Answers carry markers [n] that point at the numbered
// sources listed under them, each with its verbatim excerpt.
import { Type } from 'typebox';
import type { ConversationService, ConversationView } from '../../conversations/index.js';
import { EXTRACTIVE_MODEL_NAME } from '../../conversations/index.js';
import type { ResponseStepData } from '../../domain/conversation.js';
import type { StoredDocument } from '../../domain/document.js';
import type { PriceTable } from '../../domain/prices.js';
import { ToolInputError, readOnly, type ToolDefinition } from './tool.js';

const Citation = Type.Object({ citation_index: Type.Integer(), document_index: Type.Integer(), document_id: Type.String(), excerpt: Type.String(), snippet_index: Type.Union([Type.Integer(), Type.Null()]) });
const Source = Type.Object({ document_index: Type.Integer(), document_id: Type.String(), title: Type.String(), uris: Type.Array(Type.String()) });
const Answer = Type.Object({ answer: Type.String(), model_name: Type.String(), citations: Type.Array(Citation), sources: Type.Array(Source) });

function presentAnswer(r: ResponseStepData, docs: Map<string, StoredDocument>) {
  const sources = r.documents.map((d, i) => ({ document_index: i + 1, document_id: d.documentId, title: docs.get(d.documentId)?.title ?? '(deleted)', uris: docs.get(d.documentId)?.uris ?? [] }));
  const citations = r.citations.map((c) => ({ citation_index: c.citationIndex, document_index: c.documentIndex, document_id: r.documents[c.documentIndex - 1]?.documentId ?? '', excerpt: c.excerpt, snippet_index: c.snippetIndex }));
  return { answer: r.answer, model_name: r.modelName, citations, sources };
}

/**
 * The answer, then its sources: the cited ones under "Sources:", the others retrieved under a label that
 * says they are not cited (an abstaining answer cites nothing: its documents are only the closest ones).
 */
function answerText(a: ReturnType<typeof presentAnswer>): string[] {
  const lines = [a.answer];
  const cited = new Set(a.citations.map((c) => c.document_index));
  const line = (s: (typeof a.sources)[number]) => `[${s.document_index}] ${s.title} (id ${s.document_id}${s.uris[0] ? `, ${s.uris[0]}` : ''})`;
  const citedSources = a.sources.filter((s) => cited.has(s.document_index));
  const others = a.sources.filter((s) => !cited.has(s.document_index));
  if (citedSources.length > 0) lines.push('', 'Sources:', ...citedSources.map(line));
  if (others.length > 0) lines.push('', citedSources.length > 0 ? 'Also retrieved (not cited):' : 'Closest documents (not cited):', ...others.map(line));
  if (a.citations.length > 0) {
    lines.push('', 'Excerpts (verbatim):');
    for (const c of a.citations) lines.push(`${c.citation_index + 1}. [${c.document_index}] "${c.excerpt}"`);
  }
  return lines;
}

export function askTool(deps: { conversations: ConversationService; prices: PriceTable }): ToolDefinition {
  return {
    name: 'ask',
    title: 'Ask the literature',
    annotations: { title: 'Ask the literature', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    rateScope: 'conversations',
    description: [
      'Answers a research question from Lectern’s corpus with inline citations [n] to numbered sources; every cited excerpt occurs verbatim in the source document.',
      'Give `conversation_id` (from an earlier answer) to continue a conversation: a follow-up such as "what about in mice?" searches with the earlier topic.',
      'Date expressions in the question ("since 2020", "in the last five years", "before 2010") filter by publication date. `document_ids` pins documents into the sources.',
      `\`model_name\` defaults to ${EXTRACTIVE_MODEL_NAME} (extractive: sentences of the sources, offline).`,
      `Cost: ${deps.prices.conversationTurn} credits per answer; nothing is charged when the call fails.`,
      'A source flagged as retracted in the corpus must not be cited as support; check it with fetch_document when in doubt.',
    ].join('\n'),
    inputSchema: Type.Object(
      {
        question: Type.String({ minLength: 1, maxLength: 16_384 }),
        conversation_id: Type.Optional(Type.String({ maxLength: 200, description: 'Continue this conversation (id or slug).' })),
        document_ids: Type.Optional(Type.Array(Type.String({ maxLength: 512 }), { maxItems: 100 })),
        model_name: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Documents retrieved (default 10).' })),
      },
      { additionalProperties: false },
    ),
    outputSchema: Type.Object({
      conversation_id: Type.String(),
      ...Answer.properties,
      trajectory: Type.Union([Type.Object({ id: Type.String(), feedback_token: Type.String() }), Type.Null()], { description: 'Identifies the retrieval behind this answer: rate its sources with rate_results.' }),
      credits_charged: Type.Integer(),
    }),
    async run(input, ctx) {
      const r = await deps.conversations.turn(
        ctx.principal,
        {
          query: input.question as string,
          modelName: (input.model_name as string | undefined) ?? EXTRACTIVE_MODEL_NAME,
          apiKey: null,
          maxContextLength: null,
          conversationId: (input.conversation_id as string | undefined) ?? null,
          documentIds: [...new Set((input.document_ids as string[] | undefined) ?? [])],
          limit: (input.limit as number | undefined) ?? null,
          maxModelDocuments: null,
          sourcesFilters: null,
          sourcesLiteralFilters: null,
          resolvedSourcesLiteralFilters: null,
        },
        { requestId: ctx.requestId },
      );
      const a = presentAnswer(r.response, r.documents);
      const lines = answerText(a);
      const trajectory = r.response.trajectoryId && r.feedbackToken ? { id: r.response.trajectoryId, feedback_token: r.feedbackToken } : null;
      lines.push('', `Conversation: ${r.conversation.id} (slug ${r.conversation.slug}); pass it as conversation_id to ask a follow-up.`);
      if (trajectory) lines.push(`Trajectory: ${trajectory.id} (rate the sources with rate_results using trajectory_id and feedback_token from the structured result).`);
      lines.push(`[${r.cost} credits charged]`);
      return { text: lines.join('\n'), structured: { conversation_id: r.conversation.id, ...a, trajectory, credits_charged: r.cost } };
    },
  };
}

export function readConversationTool(deps: { conversations: ConversationService }): ToolDefinition {
  return {
    name: 'read_conversation',
    title: 'Read a conversation',
    annotations: readOnly('Read a conversation'),
    rateScope: 'default',
    description: 'Reads a conversation (yours, or one shared with you) by id or slug: every question and answer with its sources and verbatim excerpts. Cost: none (0 credits). Sources later retracted are not re-checked here: use fetch_document before citing them.',
    inputSchema: Type.Object({ conversation_id: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
    outputSchema: Type.Object({
      conversation_id: Type.String(),
      slug: Type.String(),
      title: Type.Union([Type.String(), Type.Null()]),
      is_shared: Type.Boolean(),
      turns: Type.Array(Type.Object({ step_id: Type.Integer(), question: Type.String(), answer: Type.Union([Answer, Type.Null()]) })),
    }),
    async run(input, ctx) {
      let v: ConversationView;
      try {
        v = await deps.conversations.get(ctx.principal, input.conversation_id as string);
      } catch (e) {
        if ((e as { code?: string }).code === 'not_found') throw new ToolInputError(`No conversation ${JSON.stringify(input.conversation_id)} is readable by this account.`);
        throw e;
      }
      const turns: { step_id: number; question: string; answer: ReturnType<typeof presentAnswer> | null }[] = [];
      for (const s of v.steps) {
        if (s.kind === 'request') turns.push({ step_id: s.position, question: s.data.query, answer: null });
        else if (turns.length > 0) turns[turns.length - 1]!.answer = presentAnswer(s.data, v.documents);
      }
      const lines = [`# ${v.conversation.title ?? v.conversation.slug}`, `id ${v.conversation.id}, slug ${v.conversation.slug}, ${v.conversation.isShared ? 'shared' : 'private'}`];
      for (const t of turns) {
        lines.push('', `## Q (step ${t.step_id}): ${t.question}`);
        lines.push(...(t.answer ? answerText(t.answer) : ['(no answer: the turn did not complete)']));
      }
      return { text: lines.join('\n'), structured: { conversation_id: v.conversation.id, slug: v.conversation.slug, title: v.conversation.title, is_shared: v.conversation.isShared, turns } };
    },
  };
}
