// The community store in the embedded SQLite database (community/001-init). Writes are single
// statements or one transaction; the unique keys make concurrent retries store one record.
import type Database from 'better-sqlite3';
import type { AuthorState, CommentRecord, CommentStatus, CommunityStore, NewComment, NewFeedback, StoredFeedback, ThreadComment } from '../../ports/community-store.js';
import { rowToComment, rowToThreadComment, statsFrom, visibleOnly, type CommentRow } from '../sql/community-rows.js';
import { statementCache, type Statements } from './sqlite-storage.js';

export class SqliteCommunityStore implements CommunityStore {
  readonly #s: Statements;
  constructor(private readonly db: Database.Database) {
    this.#s = statementCache(db);
  }

  async recordFeedback(f: NewFeedback) {
    const r = this.#s
      .q('INSERT OR IGNORE INTO search_feedback (account_id, feedback_id, event_id, trajectory_id, body, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(f.accountId, f.feedbackId, f.eventId, f.trajectoryId, JSON.stringify(f.body), f.at);
    const row = this.#s.q('SELECT event_id, trajectory_id FROM search_feedback WHERE account_id = ? AND feedback_id = ?').get(f.accountId, f.feedbackId) as { event_id: string; trajectory_id: string };
    return { eventId: row.event_id, trajectoryId: row.trajectory_id, duplicate: r.changes === 0 };
  }

  async feedbackSince(since: number, limit: number, after?: { at: number; accountId: number; feedbackId: string }): Promise<StoredFeedback[]> {
    const rows = (
      after
        ? this.#s
            .q(
              `SELECT account_id, feedback_id, trajectory_id, body, created_at FROM search_feedback
               WHERE created_at >= ? AND (created_at > ? OR (created_at = ? AND (account_id > ? OR (account_id = ? AND feedback_id > ?))))
               ORDER BY created_at, account_id, feedback_id LIMIT ?`,
            )
            .all(since, after.at, after.at, after.accountId, after.accountId, after.feedbackId, limit)
        : this.#s.q('SELECT account_id, feedback_id, trajectory_id, body, created_at FROM search_feedback WHERE created_at >= ? ORDER BY created_at, account_id, feedback_id LIMIT ?').all(since, limit)
    ) as { account_id: number; feedback_id: string; trajectory_id: string; body: string; created_at: number }[];
    return rows.map((r) => ({ accountId: Number(r.account_id), feedbackId: r.feedback_id, trajectoryId: r.trajectory_id, body: JSON.parse(r.body) as unknown, at: Number(r.created_at) }));
  }

  async insertComment(c: NewComment) {
    const r = this.#s
      .q(
        `INSERT OR IGNORE INTO comments (account_id, client_id, document_id, parent_id, model, contribution, content, evidence, status, body_hash, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(c.accountId, c.clientId, c.documentId, c.parentId, c.model, c.contribution, c.content, JSON.stringify(c.evidence), c.status, c.bodyHash, c.at);
    const row = this.#s.q('SELECT * FROM comments WHERE account_id = ? AND client_id = ?').get(c.accountId, c.clientId) as CommentRow;
    return { comment: rowToComment(row), duplicate: r.changes === 0 };
  }

  async getComment(id: number): Promise<CommentRecord | null> {
    const row = this.#s.q('SELECT * FROM comments WHERE id = ?').get(id) as CommentRow | undefined;
    return row ? rowToComment(row) : null;
  }

  async setVote(commentId: number, accountId: number, vote: -1 | 0 | 1): Promise<number> {
    if (vote === 0) this.#s.q('DELETE FROM comment_votes WHERE comment_id = ? AND account_id = ?').run(commentId, accountId);
    else this.#s.q('INSERT INTO comment_votes (comment_id, account_id, vote) VALUES (?, ?, ?) ON CONFLICT (comment_id, account_id) DO UPDATE SET vote = excluded.vote').run(commentId, accountId, vote);
    return (this.#s.q('SELECT COALESCE(SUM(vote), 0) AS v FROM comment_votes WHERE comment_id = ?').get(commentId) as { v: number }).v;
  }

  #withVotes(documentId: string, viewer: number | null): ThreadComment[] {
    const rows = this.#s
      .q(
        `SELECT c.*, (SELECT COALESCE(SUM(vote), 0) FROM comment_votes v WHERE v.comment_id = c.id) AS votes,
                (SELECT vote FROM comment_votes v WHERE v.comment_id = c.id AND v.account_id = ?) AS user_vote
         FROM comments c WHERE c.document_id = ? ORDER BY c.id`,
      )
      .all(viewer ?? -1, documentId) as CommentRow[];
    return visibleOnly(rows.map(rowToThreadComment));
  }

  async visibleComments(documentId: string, viewerAccountId: number | null) {
    return this.#withVotes(documentId, viewerAccountId);
  }

  async commentStats(documentId: string, now: number) {
    return statsFrom(this.#withVotes(documentId, null), now);
  }

  async commentsPostedSince(since: number) {
    const docs = this.#s.q(`SELECT DISTINCT document_id FROM comments WHERE created_at > ? AND status = 'published'`).all(since) as { document_id: string }[];
    const out = new Map<string, number>();
    for (const { document_id } of docs) {
      // Trending counts commenters, not comments (ADR 0211): one per account and UTC day.
      const n = new Set(this.#withVotes(document_id, null).filter((c) => c.createdAt > since).map((c) => `${c.accountId}:${Math.floor(c.createdAt / 86_400)}`)).size;
      if (n > 0) out.set(document_id, n);
    }
    return out;
  }

  async authorState(accountId: number): Promise<AuthorState> {
    const row = this.#s.q('SELECT state FROM comment_authors WHERE account_id = ?').get(accountId) as { state: AuthorState } | undefined;
    return row?.state ?? 'pending';
  }

  async setAuthorState(accountId: number, state: AuthorState, at: number) {
    this.db.transaction(() => {
      this.#s.q('INSERT INTO comment_authors (account_id, state, updated_at) VALUES (?, ?, ?) ON CONFLICT (account_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at').run(accountId, state, at);
      const [from, to] = state === 'approved' ? ['pending_review', 'published'] : ['published', 'pending_review'];
      this.#s.q('UPDATE comments SET status = ? WHERE account_id = ? AND status = ?').run(to, accountId, from);
    })();
  }

  async setCommentStatus(id: number, status: CommentStatus) {
    return this.#s.q('UPDATE comments SET status = ? WHERE id = ?').run(status, id).changes > 0;
  }

  async pendingComments(limit: number) {
    return (this.#s.q(`SELECT * FROM comments WHERE status = 'pending_review' ORDER BY id LIMIT ?`).all(limit) as CommentRow[]).map(rowToComment);
  }
}
