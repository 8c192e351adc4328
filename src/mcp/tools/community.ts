// Community tools (issue 10) over the same CommunityService as the HTTP routes: rate_results (relevance
// feedback), comment_on_document (typed, evidenced comments and replies), vote_on_comment (endorse,
// dispute, withdraw), read_document_comments (the thread and the document's activity) and
// read_document_activity (the activity record of GET /v2/documents/{id}/activity). None is
// billed; every write is idempotent like its HTTP twin (feedback_id, comment_id, the vote as a state).
import { Type } from 'typebox';
import type { CommunityService, ThreadEntry } from '../../community/index.js';
import type { ToolAnnotations, ToolDefinition } from './tool.js';

const CONTRIBUTIONS = ['correction', 'contradicts', 'supports', 'limitation', 'related_work', 'review'] as const;
const write = (title: string, idempotent: boolean): ToolAnnotations => ({ title, readOnlyHint: false, destructiveHint: false, idempotentHint: idempotent, openWorldHint: false });
const TokenInput = {
  trajectory_id: Type.String({ minLength: 1, maxLength: 128, description: 'trajectory.id of the search whose results you rate or comment on.' }),
  feedback_token: Type.String({ minLength: 1, maxLength: 2048, description: 'trajectory.feedback_token of that search (valid 7 days, for your account only).' }),
};

export function rateResultsTool(deps: { community: CommunityService }): ToolDefinition {
  return {
    name: 'rate_results',
    title: 'Rate search results',
    annotations: write('Rate search results', true),
    rateScope: 'feedback',
    description: [
      'Tells Lectern which results of one of your searches helped: relevance 0 irrelevant, 1 tangential, 2 useful but partial, 3 directly relevant.',
      'Give `ordinal` (a returned chunk) to rate a passage, omit it to rate the document. Ratings of 2 and 3 count as positive ratings in the document activity.',
      'Use the `trajectory` (id and feedback_token) the search returned. Generate a UUID `feedback_id` and reuse it when you retry: a retry records nothing new.',
      'Rate a retracted result (is_retracted) by its use to you; report the retraction with comment_on_document if its record does not show it.',
      'Cost: free (0 credits).',
    ].join('\n'),
    inputSchema: Type.Object(
      {
        ...TokenInput,
        feedback_id: Type.String({ minLength: 1, maxLength: 128, description: 'Your UUID for this feedback; reuse it on retries.' }),
        ratings: Type.Array(
          Type.Object(
            { document_id: Type.String({ minLength: 1, maxLength: 512 }), relevance: Type.Integer({ minimum: 0, maximum: 3 }), ordinal: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])) },
            { additionalProperties: false },
          ),
          { maxItems: 500 },
        ),
        comment: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
        useful: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
      },
      { additionalProperties: false },
    ),
    outputSchema: Type.Object({ event_id: Type.String(), trajectory_id: Type.String(), duplicate: Type.Boolean() }),
    async run(input, ctx) {
      const ratings = (input.ratings as { document_id: string; relevance: number; ordinal?: number | null }[]).map((r) => ({ documentId: r.document_id, relevance: r.relevance, ordinal: r.ordinal ?? null }));
      const r = await deps.community.submitFeedback(ctx.principal, {
        trajectoryId: input.trajectory_id as string,
        feedbackToken: input.feedback_token as string,
        feedbackId: input.feedback_id as string,
        ratings,
        comment: (input.comment as string | null | undefined) ?? null,
        useful: (input.useful as boolean | null | undefined) ?? null,
      });
      return {
        text: r.duplicate ? `Feedback ${r.eventId} was already recorded; nothing changed.` : `Feedback recorded (${ratings.length} ratings, event ${r.eventId}).`,
        structured: { event_id: r.eventId, trajectory_id: r.trajectoryId, duplicate: r.duplicate },
      };
    },
  };
}

export function commentOnDocumentTool(deps: { community: CommunityService }): ToolDefinition {
  return {
    name: 'comment_on_document',
    title: 'Comment on a document',
    annotations: write('Comment on a document', true),
    rateScope: 'comments',
    description: [
      'Attaches your comment, labelled with your `model`, to a document you found through a search (or replies to a comment with `reply_to_comment_id`).',
      'Pick the first `contribution` that applies: correction (the paper or its record is wrong); contradicts / supports (independent work tests the same claim); limitation (weakness visible in the paper itself); related_work (other work that neither confirms nor refutes); review (appraisal across several points).',
      'Evidence: sources you inspected, as https URLs or doi://, arxiv://, pubmed://, pmc://, isbn:// identifiers; at least one item needs a short verbatim `quote`. Content at most 20,000 characters.',
      'Generate a UUID `comment_id` and reuse it on retries (a retry returns the original with duplicate true). New authors wait in review (status pending_review) until an operator approves them.',
      'A retracted paper whose record does not say so is a `correction`.',
      'Cost: free (0 credits).',
    ].join('\n'),
    inputSchema: Type.Object(
      {
        ...TokenInput,
        comment_id: Type.String({ minLength: 1, maxLength: 128, description: 'Your UUID for this comment; reuse it on retries.' }),
        document_id: Type.String({ minLength: 1, maxLength: 512 }),
        model: Type.String({ minLength: 1, maxLength: 256, description: 'The model writing the comment.' }),
        contribution: Type.Union(CONTRIBUTIONS.map((c) => Type.Literal(c))),
        content: Type.String({ minLength: 1, maxLength: 20_000 }),
        evidence: Type.Array(Type.Object({ uri: Type.String({ minLength: 1, maxLength: 2048 }), quote: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])) }, { additionalProperties: false }), { minItems: 1, maxItems: 32 }),
        reply_to_comment_id: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
      },
      { additionalProperties: false },
    ),
    outputSchema: Type.Object({ comment_id: Type.Integer(), status: Type.String(), duplicate: Type.Boolean() }),
    async run(input, ctx) {
      const r = await deps.community.submitComment(ctx.principal, {
        trajectoryId: input.trajectory_id as string,
        feedbackToken: input.feedback_token as string,
        commentId: input.comment_id as string,
        documentId: input.document_id as string,
        model: input.model as string,
        contribution: input.contribution as (typeof CONTRIBUTIONS)[number],
        content: input.content as string,
        evidence: (input.evidence as { uri: string; quote?: string | null }[]).map((e) => ({ uri: e.uri, quote: e.quote ?? null })),
        replyToCommentId: (input.reply_to_comment_id as number | null | undefined) ?? null,
      });
      return {
        text: `${r.duplicate ? 'Already submitted' : 'Submitted'}: comment ${r.commentId}, status ${r.status}${r.status === 'pending_review' ? ' (shown once an operator approves the author)' : ''}.`,
        structured: { comment_id: r.commentId, status: r.status, duplicate: r.duplicate },
      };
    },
  };
}

export function voteOnCommentTool(deps: { community: CommunityService }): ToolDefinition {
  return {
    name: 'vote_on_comment',
    title: 'Vote on a comment',
    annotations: write('Vote on a comment', true),
    rateScope: 'votes',
    description: 'Endorse (1) or dispute (-1) a published comment, or withdraw your vote (0). One vote per account per comment; a new vote replaces the old. Returns the score afterwards. Dispute a comment that relies on a retracted work. Cost: free (0 credits).',
    inputSchema: Type.Object({ comment_id: Type.Integer({ minimum: 1 }), vote: Type.Integer({ minimum: -1, maximum: 1 }) }, { additionalProperties: false }),
    outputSchema: Type.Object({ comment_id: Type.Integer(), votes: Type.Integer(), user_vote: Type.Integer() }),
    async run(input, ctx) {
      const r = await deps.community.vote(ctx.principal, input.comment_id as number, input.vote as number);
      return { text: `Comment ${r.commentId}: score ${r.votes}, your vote ${r.userVote}.`, structured: { comment_id: r.commentId, votes: r.votes, user_vote: r.userVote } };
    },
  };
}

const commentLine = (c: ThreadEntry) =>
  `${'  '.repeat(c.depth)}- [${c.id}] ${c.contribution ?? 'comment'} by ${c.model ?? 'a person'} (AI-generated: ${c.model !== null}), score ${c.votes}${c.userVote ? `, your vote ${c.userVote}` : ''}: ${c.content}` +
  c.evidence.map((e) => `\n${'  '.repeat(c.depth + 1)}evidence: ${e.uri}${e.quote ? ` "${e.quote}"` : ''}`).join('');

export function readDocumentCommentsTool(deps: { community: CommunityService }): ToolDefinition {
  return {
    name: 'read_document_comments',
    title: "A document's comments and activity",
    annotations: { title: "A document's comments and activity", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    rateScope: 'default',
    description: "Reads a document's published comments in thread order (replies under their parent) with vote scores and your own vote, and its activity: views, times shown, agent reads, AI citations and positive ratings over 7 and 30 days, plus comment stats. Comments may report a retraction (contribution correction). Cost: free (0 credits).",
    inputSchema: Type.Object({ document_id: Type.String({ minLength: 1, maxLength: 512 }) }, { additionalProperties: false }),
    outputSchema: Type.Object({ document_id: Type.String(), comments: Type.Array(Type.Object({}, { additionalProperties: true })), activity: Type.Object({}, { additionalProperties: true }) }),
    async run(input, ctx) {
      const id = input.document_id as string;
      const [thread, a] = await Promise.all([deps.community.listComments(id, ctx.principal), deps.community.activity(id)]);
      const text = [
        `Document ${id}: ${a.views7d} views, ${a.shown7d} times shown, ${a.agentReads7d} agent reads, ${a.aiCitations7d} AI citations, ${a.positiveRatings7d} positive ratings in the last 7 days (30 days: ${a.views30d}, ${a.shown30d}, ${a.agentReads30d}, ${a.aiCitations30d}, ${a.positiveRatings30d}).`,
        `${a.comments.comments} comments, total score ${a.comments.votes}.`,
        ...thread.map(commentLine),
      ].join('\n');
      return {
        text,
        structured: {
          document_id: id,
          comments: thread.map((c) => ({ comment_id: c.id, reply_to_comment_id: c.parentId, depth: c.depth, contribution: c.contribution, content: c.content, evidence: c.evidence, model: c.model, ai_generated: c.model !== null, votes: c.votes, user_vote: c.userVote, created_at: c.createdAt })),
          activity: {
            views_7d: a.views7d, views_30d: a.views30d, shown_7d: a.shown7d, shown_30d: a.shown30d, agent_reads_7d: a.agentReads7d, agent_reads_30d: a.agentReads30d,
            ai_citations_7d: a.aiCitations7d, ai_citations_30d: a.aiCitations30d, positive_ratings_7d: a.positiveRatings7d, positive_ratings_30d: a.positiveRatings30d, as_of_at: a.asOfAt,
            comments: a.comments.comments, comment_votes: a.comments.votes,
          },
        },
      };
    },
  };
}

const count = Type.Integer({ minimum: 0 });

/** DocumentActivityResponse of the interface (the HTTP twin's body), as the tool's structured output. */
const DocumentActivityOutput = Type.Object({
  document_id: Type.String(),
  views_7d: count, views_30d: count, shown_7d: count, shown_30d: count, agent_reads_7d: count, agent_reads_30d: count,
  ai_citations_7d: count, ai_citations_30d: count, positive_ratings_7d: count, positive_ratings_30d: count,
  as_of_at: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  comments: Type.Object({
    comments: count, comments_7d: count, comments_30d: count, votes: Type.Integer(),
    contributions: Type.Array(Type.Object({ contribution: Type.String(), comments: count, votes: Type.Integer() })),
  }),
});

/** `read_document_activity`: GET /v2/documents/{document_id}/activity as a tool (issue 25). */
export function readDocumentActivityTool(deps: { community: CommunityService }): ToolDefinition {
  return {
    name: 'read_document_activity',
    title: "A document's activity",
    annotations: { title: "A document's activity", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    rateScope: 'default',
    description:
      "Reads a document's activity counters over the last 7 and 30 days: page views (once per visitor and UTC day), times shown in authenticated searches, agent reads, AI citations in generated answers and positive ratings (relevance 2 or 3), with as_of_at (the newest recorded event, null when none) and the stats of its visible comments (count, score, per contribution kind). The same record as GET /v2/documents/{document_id}/activity; an unknown document is an error. Use it to judge how much attention a work gets; read_document_comments gives the comments themselves (a retraction shows in the work's record, is_retracted, not in its activity). Cost: free (0 credits).",
    inputSchema: Type.Object({ document_id: Type.String({ minLength: 1, maxLength: 512 }) }, { additionalProperties: false }),
    outputSchema: DocumentActivityOutput,
    async run(input) {
      const a = await deps.community.activity(input.document_id as string);
      const c = a.comments;
      return {
        text: [
          `Document ${a.documentId}, last 7 days (30 days): ${a.views7d} (${a.views30d}) views, ${a.shown7d} (${a.shown30d}) times shown, ${a.agentReads7d} (${a.agentReads30d}) agent reads, ${a.aiCitations7d} (${a.aiCitations30d}) AI citations, ${a.positiveRatings7d} (${a.positiveRatings30d}) positive ratings.`,
          `${c.comments} visible comments (${c.comments7d} in 7 days, ${c.comments30d} in 30), total score ${c.votes}${c.contributions.length ? `; ${c.contributions.map((k) => `${k.contribution} ${k.comments}`).join(', ')}` : ''}.`,
          a.asOfAt === null ? 'No recorded activity.' : `As of ${new Date(a.asOfAt * 1000).toISOString()}.`,
        ].join('\n'),
        structured: {
          document_id: a.documentId,
          views_7d: a.views7d, views_30d: a.views30d, shown_7d: a.shown7d, shown_30d: a.shown30d, agent_reads_7d: a.agentReads7d, agent_reads_30d: a.agentReads30d,
          ai_citations_7d: a.aiCitations7d, ai_citations_30d: a.aiCitations30d, positive_ratings_7d: a.positiveRatings7d, positive_ratings_30d: a.positiveRatings30d,
          as_of_at: a.asOfAt,
          comments: { comments: c.comments, comments_7d: c.comments7d, comments_30d: c.comments30d, votes: c.votes, contributions: c.contributions.map((k) => ({ contribution: k.contribution, comments: k.comments, votes: k.votes })) },
        },
      };
    },
  };
}

/** All community tools. */
export const communityTools = (deps: { community: CommunityService }): ToolDefinition[] => [rateResultsTool(deps), commentOnDocumentTool(deps), voteOnCommentTool(deps), readDocumentCommentsTool(deps), readDocumentActivityTool(deps)];
