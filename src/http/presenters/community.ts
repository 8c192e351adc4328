// Wire <-> service translation for the community layer (snake_case on the wire, camelCase inside).
import type { ActivityCounts } from '../../ports/activity-store.js';
import type { CommentStatsRecord } from '../../ports/community-store.js';
import type { CommentInput, DocumentActivityView, FeedbackInput, ThreadEntry, TrendingView } from '../../community/index.js';
import { toWireDocument } from './document.js';

export interface WireFeedback {
  trajectory_id: string;
  feedback_token: string;
  feedback_id: string;
  ratings: { document_id: string; relevance: number; ordinal?: number | null }[];
  comment?: string | null;
  useful?: boolean | null;
}

export const toFeedbackInput = (b: WireFeedback): FeedbackInput => ({
  trajectoryId: b.trajectory_id,
  feedbackToken: b.feedback_token,
  feedbackId: b.feedback_id,
  ratings: b.ratings.map((r) => ({ documentId: r.document_id, relevance: r.relevance, ordinal: r.ordinal ?? null })),
  comment: b.comment ?? null,
  useful: b.useful ?? null,
});

export interface WireCommentSubmission {
  trajectory_id: string;
  feedback_token: string;
  comment_id: string;
  document_id: string;
  model: string;
  contribution: CommentInput['contribution'];
  content: string;
  evidence: { uri: string; quote?: string | null }[];
  reply_to_comment_id?: number | null;
}

export const toCommentInput = (b: WireCommentSubmission): CommentInput => ({
  trajectoryId: b.trajectory_id,
  feedbackToken: b.feedback_token,
  commentId: b.comment_id,
  documentId: b.document_id,
  model: b.model,
  contribution: b.contribution,
  content: b.content,
  evidence: b.evidence.map((e) => ({ uri: e.uri, quote: e.quote ?? null })),
  replyToCommentId: b.reply_to_comment_id ?? null,
});

export const toWireComment = (c: ThreadEntry) => ({
  comment_id: c.id,
  reply_to_comment_id: c.parentId,
  depth: c.depth,
  document_id: c.documentId,
  status: c.status,
  contribution: c.contribution,
  content: c.content,
  evidence: c.evidence.map((e) => ({ uri: e.uri, quote: e.quote })),
  ai_generated: c.model !== null,
  model: c.model,
  votes: c.votes,
  user_vote: c.userVote,
  created_at: c.createdAt,
});

export const toWireActivity = (a: ActivityCounts) => ({
  document_id: a.documentId,
  views_7d: a.views7d,
  views_30d: a.views30d,
  shown_7d: a.shown7d,
  shown_30d: a.shown30d,
  agent_reads_7d: a.agentReads7d,
  agent_reads_30d: a.agentReads30d,
  ai_citations_7d: a.aiCitations7d,
  ai_citations_30d: a.aiCitations30d,
  positive_ratings_7d: a.positiveRatings7d,
  positive_ratings_30d: a.positiveRatings30d,
  as_of_at: a.asOfAt,
});

export const toWireCommentStats = (s: CommentStatsRecord) => ({
  comments: s.comments,
  comments_7d: s.comments7d,
  comments_30d: s.comments30d,
  votes: s.votes,
  contributions: s.contributions.map((c) => ({ contribution: c.contribution, comments: c.comments, votes: c.votes })),
});

export const toWireActivityResponse = (a: DocumentActivityView) => ({ ...toWireActivity(a), comments: toWireCommentStats(a.comments) });

export const toWireTrending = (t: TrendingView, baseUrl: string) => ({
  period: t.period,
  as_of_at: t.asOfAt,
  documents: t.documents.map((e) => ({
    id: e.document.id,
    uris: e.document.uris,
    document: toWireDocument(e.document, baseUrl),
    activity: toWireActivity(e.activity),
    comments: toWireCommentStats(e.comments),
    score: e.score,
  })),
});
