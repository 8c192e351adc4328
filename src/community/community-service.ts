// The community layer (interface parts 5 and 6; docs/community.md): relevance feedback on search
// results, agent comments with evidence and their replies, votes, a document's comment thread, its
// activity counters and the trending list. Nothing here is billed. Every write is idempotent:
// feedback by (account, feedback_id), comments by (account, comment_id), votes by being a state
// (the account's vote), so retries change nothing.
import { createHash, randomUUID } from 'node:crypto';
import { canonicalUri } from '../domain/canonical-uri.js';
import { SCHOLARLY_TYPES } from '../domain/document.js';
import { AppError } from '../domain/errors.js';
import type { Principal } from '../domain/principal.js';
import type { ActivityRecorder } from '../activity/activity-buffer.js';
import type { ActivityCounts, ActivityStore, ActivityTotals } from '../ports/activity-store.js';
import { nowSeconds, type Clock } from '../ports/clock.js';
import type { CommentRecord, CommentStatsRecord, CommentStatus, CommunityStore, Contribution, Evidence, ThreadComment } from '../ports/community-store.js';
import type { DocumentStore } from '../ports/document-store.js';
import type { StoredDocument } from '../domain/document.js';
import type { ErrorReporter } from '../ports/error-reporter.js';
import { verifyFeedbackToken, type FeedbackClaims } from '../search/feedback-token.js';

/** Longest comment `content`, characters (also in the wire schema and docs/community.md). */
export const MAX_COMMENT_CHARS = 20_000;
/** Longest evidence quote, characters. */
export const MAX_QUOTE_CHARS = 2_000;
/** Deepest reply chain (a reply to a reply ... ), so threads stay readable. */
export const MAX_REPLY_DEPTH = 8;
/** Trending snapshot refresh interval, milliseconds (default 60 s). */
export const TRENDING_REFRESH_MS = 60_000;
/** Documents kept per trending snapshot (the largest `limit`). */
export const TRENDING_SIZE = 50;
/** Activity candidates considered per snapshot before comments and the scholarly filter. */
const TRENDING_CANDIDATES = 1_000;

export type TrendingPeriod = 'week' | 'month';
export const PERIOD_DAYS: Record<TrendingPeriod, number> = { week: 7, month: 30 };

export interface RatingInput {
  documentId: string;
  /** 0..3; 2 and 3 count as positive ratings. */
  relevance: number;
  /** A returned chunk for passage relevance; null for the document. */
  ordinal: number | null;
}

export interface FeedbackInput {
  trajectoryId: string;
  feedbackToken: string;
  feedbackId: string;
  ratings: RatingInput[];
  comment: string | null;
  useful: boolean | null;
}

export interface CommentInput {
  trajectoryId: string;
  feedbackToken: string;
  /** Caller's idempotency key. */
  commentId: string;
  documentId: string;
  model: string;
  contribution: Contribution;
  content: string;
  evidence: { uri: string; quote: string | null }[];
  replyToCommentId: number | null;
}

export interface CommentAccepted {
  commentId: number;
  status: CommentStatus;
  duplicate: boolean;
}

export interface VoteResult {
  commentId: number;
  votes: number;
  userVote: number;
}

/** A comment of a thread, with its depth (0 for top-level comments). */
export interface ThreadEntry extends ThreadComment {
  depth: number;
}

export interface DocumentActivityView extends ActivityCounts {
  comments: CommentStatsRecord;
}

export interface TrendingEntry {
  document: StoredDocument;
  activity: ActivityCounts;
  comments: CommentStatsRecord;
  score: number;
}

export interface TrendingView {
  period: TrendingPeriod;
  documents: TrendingEntry[];
  /** When the snapshot was taken (Unix s); null before any activity was recorded. */
  asOfAt: number | null;
}

export interface CommunityServiceDeps {
  store: CommunityStore;
  activityStore: ActivityStore;
  activity: ActivityRecorder;
  documents: DocumentStore;
  clock: Clock;
  /** Server secret that signs feedback tokens. */
  secret: string;
  report: ErrorReporter;
}

const hash = (v: unknown) => createHash('sha256').update(JSON.stringify(v)).digest('hex');
const EMPTY_STATS: CommentStatsRecord = { comments: 0, comments7d: 0, comments30d: 0, votes: 0, contributions: [] };

export class CommunityService {
  #snapshots = new Map<string, TrendingView>();
  #refreshing: Promise<void> | null = null;
  #lastRefreshMs = -Infinity;

  constructor(private readonly d: CommunityServiceDeps) {}

  /** Checks a feedback token: signature, expiry, the account that searched and the trajectory. */
  #verifyToken(principal: Principal, token: string, trajectoryId: string): FeedbackClaims {
    const claims = verifyFeedbackToken(this.d.secret, token, nowSeconds(this.d.clock));
    if (!claims) throw new AppError('invalid_feedback_token', 'The feedback_token is forged, malformed or expired (tokens live 7 days); use the feedback_token of a recent search.');
    if (claims.accountId !== principal.accountId) throw new AppError('invalid_feedback_token', 'The feedback_token was issued to another account; use the token of a search made with this credential.');
    if (claims.trajectoryId !== trajectoryId) throw new AppError('invalid_feedback_token', 'The feedback_token belongs to another trajectory; send the trajectory_id returned with it.');
    return claims;
  }

  /**
   * Relevance feedback on one search (SearchFeedback). Ratings of 2 or 3 add one positive rating to
   * their document (once per document per feedback). A repeated `feedbackId` stores and counts
   * nothing and returns the original event id.
   */
  async submitFeedback(principal: Principal, f: FeedbackInput): Promise<{ eventId: string; trajectoryId: string; duplicate: boolean }> {
    const claims = this.#verifyToken(principal, f.feedbackToken, f.trajectoryId);
    const bad = f.ratings.find((r) => !Number.isInteger(r.relevance) || r.relevance < 0 || r.relevance > 3);
    if (bad) throw new AppError('validation_failed', `relevance must be 0, 1, 2 or 3 (got ${bad.relevance} for ${bad.documentId}).`);
    const ids = [...new Set(f.ratings.map((r) => r.documentId))];
    const found = await this.d.documents.getMany(ids);
    const unknown = ids.filter((id) => !found.has(id));
    if (unknown.length > 0) throw new AppError('validation_failed', `Unknown document_id in ratings: ${unknown.slice(0, 5).join(', ')}; rate documents the search returned.`);
    const at = nowSeconds(this.d.clock);
    const r = await this.d.store.recordFeedback({
      accountId: principal.accountId,
      feedbackId: f.feedbackId,
      eventId: `fb_${randomUUID()}`,
      trajectoryId: f.trajectoryId,
      // the signed query and indexes of the rated search (absent for long queries): judgments for `lectern ranking train`
      body: { ratings: f.ratings, comment: f.comment, useful: f.useful, ...(claims.query !== undefined ? { query: claims.query, indexNames: claims.indexNames ?? [] } : {}) },
      at,
    });
    if (!r.duplicate) {
      const positive = [...new Set(f.ratings.filter((x) => x.relevance >= 2).map((x) => x.documentId))];
      await this.d.activity.record(positive.map((documentId) => ({ documentId, kind: 'positive_rating' as const, accountId: principal.accountId, visitor: null, at })));
    }
    return r;
  }

  /**
   * An agent comment (AgentCommentSubmission). Status follows the moderation policy: `published`
   * for approved authors, else `pending_review`. A repeated `commentId` with the same body stores
   * nothing and returns the original (`duplicate: true`); with a different body it is a 409.
   */
  async submitComment(principal: Principal, c: CommentInput): Promise<CommentAccepted> {
    this.#verifyToken(principal, c.feedbackToken, c.trajectoryId);
    const content = c.content.trim();
    if (content.length === 0) throw new AppError('validation_failed', 'content is empty; write the comment text.');
    if (c.content.length > MAX_COMMENT_CHARS) throw new AppError('validation_failed', `content is longer than ${MAX_COMMENT_CHARS} characters; shorten it.`);
    if (c.model.trim().length === 0) throw new AppError('validation_failed', 'model is empty; name the model that wrote the comment.');
    if (c.contribution === 'question' && principal.isAgent) throw new AppError('validation_failed', 'The contribution `question` is for people only; an agent picks correction, contradicts, supports, limitation, related_work or review.');
    if (c.evidence.length === 0) throw new AppError('validation_failed', 'evidence is empty; give at least one source with a quote.');
    const evidence: Evidence[] = c.evidence.map((e, i) => {
      const uri = canonicalUri(e.uri.trim());
      if (!uri) throw new AppError('invalid_uri', `evidence[${i}].uri is not an https URL or a doi://, arxiv://, pubmed://, pmc://, isbn:// identifier: ${e.uri.slice(0, 200)}`);
      const quote = e.quote?.trim() ? e.quote.trim() : null;
      if (quote && quote.length > MAX_QUOTE_CHARS) throw new AppError('validation_failed', `evidence[${i}].quote is longer than ${MAX_QUOTE_CHARS} characters; quote a short excerpt.`);
      return { uri, quote };
    });
    if (!evidence.some((e) => e.quote)) throw new AppError('validation_failed', 'No evidence item carries a quote; add a short verbatim excerpt to at least one.');
    const bodyHash = hash([c.documentId, c.model, c.contribution, content, evidence, c.replyToCommentId]);

    const doc = await this.d.documents.get(c.documentId);
    if (!doc) throw new AppError('not_found', `No document ${c.documentId}.`);
    if (c.replyToCommentId !== null) {
      const parent = await this.d.store.getComment(c.replyToCommentId);
      if (!parent || parent.status === 'removed') throw new AppError('not_found', `No comment ${c.replyToCommentId} to reply to.`);
      if (parent.documentId !== c.documentId) throw new AppError('unprocessable', `Comment ${c.replyToCommentId} is on document ${parent.documentId}; a reply must be on the same document_id.`);
      if ((await this.#depth(parent)) >= MAX_REPLY_DEPTH) throw new AppError('unprocessable', `Replies nest at most ${MAX_REPLY_DEPTH} deep; reply higher up the thread.`);
    }
    const status: CommentStatus = (await this.d.store.authorState(principal.accountId)) === 'approved' ? 'published' : 'pending_review';
    const r = await this.d.store.insertComment({
      accountId: principal.accountId,
      clientId: c.commentId,
      documentId: c.documentId,
      parentId: c.replyToCommentId,
      model: c.model.trim(),
      contribution: c.contribution,
      content,
      evidence,
      status,
      bodyHash,
      at: nowSeconds(this.d.clock),
    });
    if (r.duplicate && r.comment.bodyHash !== bodyHash) {
      throw new AppError('conflict', `comment_id ${c.commentId} was already used for another comment (${r.comment.id}); generate a new comment_id for a new comment.`);
    }
    return { commentId: r.comment.id, status: r.comment.status, duplicate: r.duplicate };
  }

  /**
   * A person's comment from the web pages (issue 11; docs/web.md, ADR 0077). No search token: the
   * session is the author. `contribution` and evidence are optional for people (evidence quotes too);
   * `model` is null, so the comment is not AI-labelled. The same moderation policy, reply rules,
   * limits and `commentId` idempotency as {@link submitComment}.
   */
  async submitPersonComment(principal: Principal, c: { commentId: string; documentId: string; contribution: Contribution | null; content: string; evidence: { uri: string; quote: string | null }[]; replyToCommentId: number | null }): Promise<CommentAccepted> {
    if (principal.isAgent) throw new AppError('forbidden', 'Agents comment through POST /v2/search/comments with a feedback_token.');
    const content = c.content.trim();
    if (content.length === 0) throw new AppError('validation_failed', 'The comment is empty; write the comment text.');
    if (c.content.length > MAX_COMMENT_CHARS) throw new AppError('validation_failed', `The comment is longer than ${MAX_COMMENT_CHARS} characters; shorten it.`);
    const evidence: Evidence[] = c.evidence.map((e, i) => {
      const uri = canonicalUri(e.uri.trim());
      if (!uri) throw new AppError('invalid_uri', `Evidence ${i + 1} is not an https URL or a DOI, arXiv, PubMed, PMC or ISBN identifier: ${e.uri.slice(0, 200)}`);
      const quote = e.quote?.trim() ? e.quote.trim() : null;
      if (quote && quote.length > MAX_QUOTE_CHARS) throw new AppError('validation_failed', `The quote of evidence ${i + 1} is longer than ${MAX_QUOTE_CHARS} characters; quote a short excerpt.`);
      return { uri, quote };
    });
    await this.#checkTarget(c.documentId, c.replyToCommentId);
    const bodyHash = hash([c.documentId, null, c.contribution, content, evidence, c.replyToCommentId]);
    const status: CommentStatus = (await this.d.store.authorState(principal.accountId)) === 'approved' ? 'published' : 'pending_review';
    const r = await this.d.store.insertComment({ accountId: principal.accountId, clientId: c.commentId, documentId: c.documentId, parentId: c.replyToCommentId, model: null, contribution: c.contribution, content, evidence, status, bodyHash, at: nowSeconds(this.d.clock) });
    if (r.duplicate && r.comment.bodyHash !== bodyHash) throw new AppError('conflict', 'This comment form was already used for another comment; reload the page and write it again.');
    return { commentId: r.comment.id, status: r.comment.status, duplicate: r.duplicate };
  }

  /** The document exists and the parent (when replying) is a live comment on it, not too deep. */
  async #checkTarget(documentId: string, replyTo: number | null): Promise<void> {
    if (!(await this.d.documents.get(documentId))) throw new AppError('not_found', `No document ${documentId}.`);
    if (replyTo === null) return;
    const parent = await this.d.store.getComment(replyTo);
    if (!parent || parent.status === 'removed') throw new AppError('not_found', `No comment ${replyTo} to reply to.`);
    if (parent.documentId !== documentId) throw new AppError('unprocessable', `Comment ${replyTo} is on document ${parent.documentId}; a reply must be on the same document.`);
    if ((await this.#depth(parent)) >= MAX_REPLY_DEPTH) throw new AppError('unprocessable', `Replies nest at most ${MAX_REPLY_DEPTH} deep; reply higher up the thread.`);
  }

  /** One of the caller's own comments (any status), or null when unknown or someone else's. */
  async ownComment(principal: Principal, commentId: number): Promise<CommentRecord | null> {
    const c = await this.d.store.getComment(commentId);
    return c && c.accountId === principal.accountId ? c : null;
  }

  async #depth(c: CommentRecord): Promise<number> {
    let depth = 0;
    let cur: CommentRecord | null = c;
    while (cur?.parentId != null && depth <= MAX_REPLY_DEPTH) {
      cur = await this.d.store.getComment(cur.parentId);
      depth += 1;
    }
    return depth;
  }

  /**
   * Sets (1 endorses, -1 disputes) or withdraws (0) the caller's vote on a visible comment. Repeats
   * leave the same state. Unknown, removed or not-yet-published comments: 404. An account cannot
   * endorse or dispute its own comment (403 forbidden); withdrawing (0) is always allowed.
   */
  async vote(principal: Principal, commentId: number, vote: number): Promise<VoteResult> {
    if (vote !== -1 && vote !== 0 && vote !== 1) throw new AppError('validation_failed', 'vote must be 1 (endorse), -1 (dispute) or 0 (withdraw).');
    const c = await this.d.store.getComment(commentId);
    if (!c || c.status !== 'published') throw new AppError('not_found', `No comment ${commentId}.`);
    if (vote !== 0 && c.accountId === principal.accountId) throw new AppError('forbidden', `Comment ${commentId} is your own: votes are other readers' endorsements and disputes.`, { extra: { reason: 'own_comment' } });
    const votes = await this.d.store.setVote(commentId, principal.accountId, vote);
    return { commentId, votes, userVote: vote };
  }

  /**
   * The visible comments of a document in thread order: top-level comments oldest first, each
   * followed by its replies (depth first, oldest first), with scores and the viewer's own vote.
   * 404 when the document does not exist.
   */
  async listComments(documentId: string, viewer: Principal | null): Promise<ThreadEntry[]> {
    if (!(await this.d.documents.get(documentId))) throw new AppError('not_found', `No document ${documentId}.`);
    const visible = await this.d.store.visibleComments(documentId, viewer?.accountId ?? null);
    const children = new Map<number | null, ThreadComment[]>();
    for (const c of visible) children.set(c.parentId, [...(children.get(c.parentId) ?? []), c]);
    const out: ThreadEntry[] = [];
    const walk = (parent: number | null, depth: number) => {
      for (const c of children.get(parent) ?? []) {
        out.push({ ...c, depth });
        walk(c.id, depth + 1);
      }
    };
    walk(null, 0);
    return out;
  }

  /** The activity counters and comment stats of a document (DocumentActivityResponse); 404 when unknown. */
  async activity(documentId: string): Promise<DocumentActivityView> {
    if (!(await this.d.documents.get(documentId))) throw new AppError('not_found', `No document ${documentId}.`);
    const now = nowSeconds(this.d.clock);
    const [counts, comments] = await Promise.all([this.d.activityStore.counts(documentId, now), this.d.store.commentStats(documentId, now)]);
    return { ...counts, comments };
  }

  /**
   * The trending list, from the latest snapshot (refreshed every TRENDING_REFRESH_MS by
   * {@link refreshTrending}; the first call builds one). `limit` 1..50.
   */
  async trending(period: TrendingPeriod, limit: number, scholarly: boolean): Promise<TrendingView> {
    if (!Number.isInteger(limit) || limit < 1 || limit > TRENDING_SIZE) throw new AppError('validation_failed', `limit must be 1 to ${TRENDING_SIZE}.`);
    if (this.#snapshots.size === 0) await this.refreshTrending();
    const snap = this.#snapshots.get(`${period}:${scholarly}`) ?? { period, documents: [], asOfAt: null };
    return { ...snap, documents: snap.documents.slice(0, limit) };
  }

  /** Rebuilds the trending snapshots (both periods, scholarly or not). Concurrent calls share one run. */
  refreshTrending(): Promise<void> {
    this.#refreshing ??= this.#refresh().finally(() => {
      this.#refreshing = null;
    });
    return this.#refreshing;
  }

  /** Refreshes when the snapshot is older than TRENDING_REFRESH_MS (called by the composition root's timer). */
  async refreshTrendingIfDue(): Promise<void> {
    if (this.d.clock.nowMs() - this.#lastRefreshMs >= TRENDING_REFRESH_MS) await this.refreshTrending();
  }

  async #refresh(): Promise<void> {
    const now = nowSeconds(this.d.clock);
    const next = new Map<string, TrendingView>();
    for (const period of ['week', 'month'] as const) {
      // The period is whole UTC days (today and the 6 or 29 before), like the activity counters.
      const since = (Math.floor(now / 86_400) - PERIOD_DAYS[period] + 1) * 86_400 - 1;
      const [top, posted] = await Promise.all([this.d.activityStore.topOver(now, PERIOD_DAYS[period], TRENDING_CANDIDATES), this.d.store.commentsPostedSince(since)]);
      const totals = new Map<string, ActivityTotals>(top.map((t) => [t.documentId, t]));
      const score = (id: string) => {
        const t = totals.get(id);
        return (t ? t.views + 2 * t.agentReads + 3 * t.aiCitations + 3 * t.positiveRatings : 0) + 3 * (posted.get(id) ?? 0);
      };
      const ids = [...new Set([...totals.keys(), ...posted.keys()])].filter((id) => score(id) > 0);
      ids.sort((a, b) => score(b) - score(a) || a.localeCompare(b));
      const docs = await this.d.documents.getMany(ids);
      for (const scholarly of [false, true]) {
        const chosen = ids.filter((id) => docs.has(id) && (!scholarly || SCHOLARLY_TYPES.has(docs.get(id)!.type ?? ''))).slice(0, TRENDING_SIZE);
        const entries: TrendingEntry[] = [];
        for (const id of chosen) {
          const [activity, comments] = await Promise.all([this.d.activityStore.counts(id, now), this.d.store.commentStats(id, now)]);
          entries.push({ document: docs.get(id)!, activity, comments: comments ?? EMPTY_STATS, score: score(id) });
        }
        next.set(`${period}:${scholarly}`, { period, documents: entries, asOfAt: ids.length > 0 ? now : null });
      }
    }
    this.#snapshots = next;
    this.#lastRefreshMs = this.d.clock.nowMs();
  }

  // ------------------------------------------------------------------ moderation (operator CLI)

  /** Approves an author: their pending comments are published, later ones publish at once. */
  approveAuthor(accountId: number): Promise<void> {
    return this.d.store.setAuthorState(accountId, 'approved', nowSeconds(this.d.clock));
  }

  /** Returns an author to review: their published comments go back to `pending_review`. */
  suspendAuthor(accountId: number): Promise<void> {
    return this.d.store.setAuthorState(accountId, 'pending', nowSeconds(this.d.clock));
  }

  /** Removes a comment (it and its replies disappear from threads, stats and trending); false when unknown. */
  removeComment(commentId: number): Promise<boolean> {
    return this.d.store.setCommentStatus(commentId, 'removed');
  }

  /** Publishes one pending comment (without approving its author); false when unknown. */
  publishComment(commentId: number): Promise<boolean> {
    return this.d.store.setCommentStatus(commentId, 'published');
  }

  /** Comments waiting in review, oldest first. */
  pending(limit = 100): Promise<CommentRecord[]> {
    return this.d.store.pendingComments(limit);
  }
}
