// The community store in PostgreSQL (community/001-init). ON CONFLICT DO NOTHING on the unique keys
// makes concurrent retries of one feedback_id or comment_id store exactly one record.
import type pg from 'pg';
import type { AuthorState, CommentRecord, CommentStatus, CommunityStore, NewComment, NewFeedback, StoredFeedback, ThreadComment } from '../../ports/community-store.js';
import { rowToComment, rowToThreadComment, statsFrom, visibleOnly, type CommentRow } from '../sql/community-rows.js';

export class PostgresCommunityStore implements CommunityStore {
  constructor(private readonly pool: pg.Pool) {}

  async recordFeedback(f: NewFeedback) {
    const ins = await this.pool.query(
      `INSERT INTO search_feedback (account_id, feedback_id, event_id, trajectory_id, body, created_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (account_id, feedback_id) DO NOTHING`,
      [f.accountId, f.feedbackId, f.eventId, f.trajectoryId, JSON.stringify(f.body), f.at],
    );
    const { rows } = await this.pool.query<{ event_id: string; trajectory_id: string }>('SELECT event_id, trajectory_id FROM search_feedback WHERE account_id = $1 AND feedback_id = $2', [f.accountId, f.feedbackId]);
    return { eventId: rows[0]!.event_id, trajectoryId: rows[0]!.trajectory_id, duplicate: ins.rowCount === 0 };
  }

  async feedbackSince(since: number, limit: number, after?: { at: number; accountId: number; feedbackId: string }): Promise<StoredFeedback[]> {
    const { rows } = after
      ? await this.pool.query<{ account_id: string; feedback_id: string; trajectory_id: string; body: unknown; created_at: string }>(
          `SELECT account_id, feedback_id, trajectory_id, body, created_at FROM search_feedback
           WHERE created_at >= $1 AND (created_at, account_id, feedback_id) > ($2, $3, $4)
           ORDER BY created_at, account_id, feedback_id LIMIT $5`,
          [since, after.at, after.accountId, after.feedbackId, limit],
        )
      : await this.pool.query<{ account_id: string; feedback_id: string; trajectory_id: string; body: unknown; created_at: string }>(
          'SELECT account_id, feedback_id, trajectory_id, body, created_at FROM search_feedback WHERE created_at >= $1 ORDER BY created_at, account_id, feedback_id LIMIT $2',
          [since, limit],
        );
    return rows.map((r) => ({ accountId: Number(r.account_id), feedbackId: r.feedback_id, trajectoryId: r.trajectory_id, body: r.body, at: Number(r.created_at) }));
  }

  async insertComment(c: NewComment) {
    const ins = await this.pool.query(
      `INSERT INTO comments (account_id, client_id, document_id, parent_id, model, contribution, content, evidence, status, body_hash, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (account_id, client_id) DO NOTHING`,
      [c.accountId, c.clientId, c.documentId, c.parentId, c.model, c.contribution, c.content, JSON.stringify(c.evidence), c.status, c.bodyHash, c.at],
    );
    const { rows } = await this.pool.query<CommentRow>('SELECT * FROM comments WHERE account_id = $1 AND client_id = $2', [c.accountId, c.clientId]);
    return { comment: rowToComment(rows[0]!), duplicate: ins.rowCount === 0 };
  }

  async getComment(id: number): Promise<CommentRecord | null> {
    const { rows } = await this.pool.query<CommentRow>('SELECT * FROM comments WHERE id = $1', [id]);
    return rows[0] ? rowToComment(rows[0]) : null;
  }

  async setVote(commentId: number, accountId: number, vote: -1 | 0 | 1): Promise<number> {
    if (vote === 0) await this.pool.query('DELETE FROM comment_votes WHERE comment_id = $1 AND account_id = $2', [commentId, accountId]);
    else
      await this.pool.query(
        'INSERT INTO comment_votes (comment_id, account_id, vote) VALUES ($1, $2, $3) ON CONFLICT (comment_id, account_id) DO UPDATE SET vote = EXCLUDED.vote',
        [commentId, accountId, vote],
      );
    const { rows } = await this.pool.query<{ v: string }>('SELECT COALESCE(SUM(vote), 0) AS v FROM comment_votes WHERE comment_id = $1', [commentId]);
    return Number(rows[0]!.v);
  }

  async #withVotes(documentId: string, viewer: number | null): Promise<ThreadComment[]> {
    const { rows } = await this.pool.query<CommentRow>(
      `SELECT c.*, (SELECT COALESCE(SUM(vote), 0) FROM comment_votes v WHERE v.comment_id = c.id) AS votes,
              (SELECT vote FROM comment_votes v WHERE v.comment_id = c.id AND v.account_id = $1) AS user_vote
       FROM comments c WHERE c.document_id = $2 ORDER BY c.id`,
      [viewer ?? -1, documentId],
    );
    return visibleOnly(rows.map(rowToThreadComment));
  }

  visibleComments(documentId: string, viewerAccountId: number | null) {
    return this.#withVotes(documentId, viewerAccountId);
  }

  async commentStats(documentId: string, now: number) {
    return statsFrom(await this.#withVotes(documentId, null), now);
  }

  async commentsPostedSince(since: number) {
    const { rows } = await this.pool.query<{ document_id: string }>(`SELECT DISTINCT document_id FROM comments WHERE created_at > $1 AND status = 'published'`, [since]);
    const out = new Map<string, number>();
    for (const { document_id } of rows) {
      // Trending counts commenters, not comments (ADR 0211): one per account and UTC day.
      const n = new Set((await this.#withVotes(document_id, null)).filter((c) => c.createdAt > since).map((c) => `${c.accountId}:${Math.floor(c.createdAt / 86_400)}`)).size;
      if (n > 0) out.set(document_id, n);
    }
    return out;
  }

  async authorState(accountId: number): Promise<AuthorState> {
    const { rows } = await this.pool.query<{ state: AuthorState }>('SELECT state FROM comment_authors WHERE account_id = $1', [accountId]);
    return rows[0]?.state ?? 'pending';
  }

  async setAuthorState(accountId: number, state: AuthorState, at: number) {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        'INSERT INTO comment_authors (account_id, state, updated_at) VALUES ($1, $2, $3) ON CONFLICT (account_id) DO UPDATE SET state = EXCLUDED.state, updated_at = EXCLUDED.updated_at',
        [accountId, state, at],
      );
      const [from, to] = state === 'approved' ? ['pending_review', 'published'] : ['published', 'pending_review'];
      await client.query('UPDATE comments SET status = $1 WHERE account_id = $2 AND status = $3', [to, accountId, from]);
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      client.release();
    }
  }

  async setCommentStatus(id: number, status: CommentStatus) {
    return ((await this.pool.query('UPDATE comments SET status = $1 WHERE id = $2', [status, id])).rowCount ?? 0) > 0;
  }

  async pendingComments(limit: number) {
    const { rows } = await this.pool.query<CommentRow>(`SELECT * FROM comments WHERE status = 'pending_review' ORDER BY id LIMIT $1`, [limit]);
    return rows.map(rowToComment);
  }
}
