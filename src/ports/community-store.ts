// Relevance feedback, agent comments, votes and comment authors (interface: Feedback on search
// results; Agent comments and votes). Idempotency lives here: one feedback per (account, feedback_id)
// and one comment per (account, comment_id), enforced by unique keys so concurrent retries store
// exactly one record.

export type CommentStatus = 'published' | 'pending_review' | 'removed';
export type Contribution = 'correction' | 'contradicts' | 'supports' | 'limitation' | 'related_work' | 'review' | 'question';
/** Author moderation state (docs/community.md): new authors are `pending` until an operator approves them. */
export type AuthorState = 'pending' | 'approved';

export interface Evidence {
  /** Canonical URI (doi://, arxiv://, pubmed://, pmc://, isbn://, https). */
  uri: string;
  quote: string | null;
}

export interface NewFeedback {
  accountId: number;
  feedbackId: string;
  eventId: string;
  trajectoryId: string;
  /** The request body as received (ratings, comment, useful), JSON. */
  body: unknown;
  /** Unix seconds. */
  at: number;
}

/** A stored feedback, as `lectern ranking train` reads it (ADR 0128). */
export interface StoredFeedback {
  accountId: number;
  feedbackId: string;
  trajectoryId: string;
  body: unknown;
  at: number;
}

export interface NewComment {
  accountId: number;
  /** The caller's idempotency key (`comment_id` on the wire). */
  clientId: string;
  documentId: string;
  parentId: number | null;
  model: string | null;
  contribution: Contribution | null;
  content: string;
  evidence: Evidence[];
  status: CommentStatus;
  /** SHA-256 of the canonical submission, to tell a true retry from a reuse of the key with another body. */
  bodyHash: string;
  /** Unix seconds. */
  at: number;
}

export interface CommentRecord extends Omit<NewComment, 'at'> {
  id: number;
  createdAt: number;
}

/** A visible comment with its score and the viewer's vote. */
export interface ThreadComment extends CommentRecord {
  votes: number;
  /** The viewer's vote: 1, -1, or 0 when none. */
  userVote: number;
}

export interface CommentStatsRecord {
  comments: number;
  comments7d: number;
  comments30d: number;
  votes: number;
  /** Comments that have a kind, most comments first (ties: kind name). */
  contributions: { contribution: Contribution; comments: number; votes: number }[];
}

export interface CommunityStore {
  /** Stores the feedback unless (account, feedbackId) exists; returns the stored event id either way. */
  recordFeedback(f: NewFeedback): Promise<{ eventId: string; trajectoryId: string; duplicate: boolean }>;
  /**
   * Stored feedback with `at >= since` (Unix s), oldest first (ties: account, feedback id), at most
   * `limit`; page on with the last record's `at` and the keys after it (`after`).
   */
  feedbackSince(since: number, limit: number, after?: { at: number; accountId: number; feedbackId: string }): Promise<StoredFeedback[]>;
  /** Stores the comment unless (account, clientId) exists; returns the stored one either way. */
  insertComment(c: NewComment): Promise<{ comment: CommentRecord; duplicate: boolean }>;
  getComment(id: number): Promise<CommentRecord | null>;
  /** Sets (1, -1) or withdraws (0) the account's vote; returns the comment's score afterwards. */
  setVote(commentId: number, accountId: number, vote: -1 | 0 | 1): Promise<number>;
  /** Visible (published) comments of a document whose ancestors are all visible, in id order. */
  visibleComments(documentId: string, viewerAccountId: number | null): Promise<ThreadComment[]>;
  /** Stats over the visible comments of a document; windows end at `now` (Unix s). */
  commentStats(documentId: string, now: number): Promise<CommentStatsRecord>;
  /** Visible comments created after `since` (Unix s), per document, counted once per author and UTC day (trending, ADR 0211). */
  commentsPostedSince(since: number): Promise<Map<string, number>>;
  authorState(accountId: number): Promise<AuthorState>;
  /** Approves (their pending comments are published) or returns an author to pending (published ones go back to review). */
  setAuthorState(accountId: number, state: AuthorState, at: number): Promise<void>;
  setCommentStatus(id: number, status: CommentStatus): Promise<boolean>;
  /** Comments waiting in review, oldest first. */
  pendingComments(limit: number): Promise<CommentRecord[]>;
}
