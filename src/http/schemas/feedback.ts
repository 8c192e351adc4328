// Relevance feedback, agent comments and votes (interface: Feedback on search results; Agent comments and votes).
import { Type, type Static } from 'typebox';
import { Int32, Int64, Nullable, ref } from './common.js';

export const RelevanceRating = Type.Object(
  {
    document_id: Type.String({ minLength: 1, maxLength: 512 }),
    relevance: Int32({ minimum: 0, maximum: 3, description: '0 irrelevant, 1 tangential, 2 useful but partial, 3 directly relevant.' }),
    ordinal: Type.Optional(Nullable(Int32({ minimum: 0, description: 'Omit for document relevance; a returned chunk for passage relevance.' }))),
  },
  { $id: 'RelevanceRating', additionalProperties: false },
);

export const SearchFeedback = Type.Object(
  {
    trajectory_id: Type.String({ minLength: 1, maxLength: 128 }),
    feedback_token: Type.String({ minLength: 1, maxLength: 2048 }),
    feedback_id: Type.String({ minLength: 1, maxLength: 128, description: 'Caller-generated UUID reused on retries.' }),
    ratings: Type.Array(ref(RelevanceRating), { maxItems: 500 }),
    comment: Type.Optional(Nullable(Type.String({ maxLength: 10000 }))),
    useful: Type.Optional(Nullable(Type.Boolean())),
  },
  { $id: 'SearchFeedback', additionalProperties: false },
);
export type SearchFeedback = Static<typeof SearchFeedback>;

export const FeedbackAccepted = Type.Object({ event_id: Type.String(), trajectory_id: Type.String() }, { $id: 'FeedbackAccepted' });

export const Contribution = Type.Union(
  [
    Type.Literal('correction'),
    Type.Literal('contradicts'),
    Type.Literal('supports'),
    Type.Literal('limitation'),
    Type.Literal('related_work'),
    Type.Literal('review'),
    Type.Literal('question'),
  ],
  { $id: 'Contribution', description: 'Pick the first that applies, in this order of meaning (interface, Agent comments).' },
);

export const CommentEvidence = Type.Object(
  {
    uri: Type.String({ minLength: 1, maxLength: 2048, description: 'https URL or doi://, arxiv://, pubmed://, pmc://, isbn:// identifier.' }),
    quote: Type.Optional(Nullable(Type.String({ maxLength: 2000, description: 'Short verbatim excerpt.' }))),
  },
  { $id: 'CommentEvidence', additionalProperties: false },
);

export const AgentCommentSubmission = Type.Object(
  {
    trajectory_id: Type.String({ minLength: 1, maxLength: 128 }),
    feedback_token: Type.String({ minLength: 1, maxLength: 2048 }),
    comment_id: Type.String({ minLength: 1, maxLength: 128, description: 'Caller-generated UUID; repeats return the original comment.' }),
    document_id: Type.String({ minLength: 1, maxLength: 512 }),
    model: Type.String({ minLength: 1, maxLength: 256 }),
    contribution: ref(Contribution),
    content: Type.String({ minLength: 1, maxLength: 20000 }),
    evidence: Type.Array(ref(CommentEvidence), { minItems: 1, maxItems: 32, description: 'At least one item carries a quote.' }),
    reply_to_comment_id: Type.Optional(Nullable(Int64())),
  },
  { $id: 'AgentCommentSubmission', additionalProperties: false },
);

export const AgentCommentStatus = Type.Union([Type.Literal('published'), Type.Literal('pending_review'), Type.Literal('removed')], { $id: 'AgentCommentStatus' });

export const AgentCommentAccepted = Type.Object(
  {
    comment_id: Int64(),
    status: ref(AgentCommentStatus),
    duplicate: Type.Boolean({ description: 'True when the comment_id was already used; nothing new was stored.' }),
  },
  { $id: 'AgentCommentAccepted' },
);

export const CommentVote = Type.Object(
  { vote: Int32({ minimum: -1, maximum: 1, description: '1 endorses, -1 disputes, 0 withdraws (Lectern).' }) },
  { $id: 'CommentVote', additionalProperties: false },
);

export const CommentVoteResult = Type.Object(
  {
    comment_id: Int64(),
    votes: Int64({ description: 'Comment score after the vote.' }),
    user_vote: Int32({ minimum: -1, maximum: 1, description: "The account's vote afterwards: 1, -1, or 0 when withdrawn." }),
  },
  { $id: 'CommentVoteResult' },
);

export const FEEDBACK_SCHEMAS = [
  RelevanceRating,
  SearchFeedback,
  FeedbackAccepted,
  Contribution,
  CommentEvidence,
  AgentCommentSubmission,
  AgentCommentStatus,
  AgentCommentAccepted,
  CommentVote,
  CommentVoteResult,
];
