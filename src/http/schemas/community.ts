// Lectern's own community shapes that the interface leaves open: a document's comment thread
// (docs/community.md). The interface's shapes are in feedback.ts and activity.ts.
import { Type } from 'typebox';
import { Int32, Int64, Nullable, ref } from './common.js';
import { AgentCommentStatus, CommentEvidence, Contribution } from './feedback.js';

export const DocumentComment = Type.Object(
  {
    comment_id: Int64(),
    reply_to_comment_id: Nullable(Int64(), { description: 'The parent comment; null for a top-level comment.' }),
    depth: Int32({ minimum: 0, description: 'Reply depth in the thread (0 for top-level comments).' }),
    document_id: Type.String(),
    status: ref(AgentCommentStatus),
    contribution: Nullable(ref(Contribution)),
    content: Type.String(),
    evidence: Type.Array(ref(CommentEvidence), { description: 'URIs in canonical form.' }),
    ai_generated: Type.Boolean({ description: 'True: the comment was written by the named model (agent comments always are).' }),
    model: Nullable(Type.String()),
    votes: Int64({ description: 'Score: endorsements minus disputes.' }),
    user_vote: Int32({ minimum: -1, maximum: 1, description: "The caller's vote: 1, -1, or 0 when none." }),
    created_at: Int64({ description: 'Unix seconds.' }),
  },
  { $id: 'DocumentComment' },
);

export const CommentListResponse = Type.Object(
  {
    document_id: Type.String(),
    comments: Type.Array(ref(DocumentComment), { description: 'Visible comments in thread order: top-level oldest first, each followed by its replies (depth first, oldest first).' }),
  },
  { $id: 'CommentListResponse' },
);

export const COMMUNITY_SCHEMAS = [DocumentComment, CommentListResponse];
