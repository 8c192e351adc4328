// Row mapping shared by the SQLite and PostgreSQL community stores (drivers return BIGINT as strings
// in PostgreSQL and JSON as text in SQLite).
import type { CommentRecord, CommentStatsRecord, Contribution, Evidence, ThreadComment } from '../../ports/community-store.js';

export interface CommentRow {
  id: number | string;
  account_id: number | string;
  client_id: string;
  document_id: string;
  parent_id: number | string | null;
  model: string | null;
  contribution: string | null;
  content: string;
  evidence: string | Evidence[];
  status: string;
  body_hash: string;
  created_at: number | string;
  votes?: number | string | null;
  user_vote?: number | string | null;
}

export function rowToComment(r: CommentRow): CommentRecord {
  return {
    id: Number(r.id),
    accountId: Number(r.account_id),
    clientId: r.client_id,
    documentId: r.document_id,
    parentId: r.parent_id === null ? null : Number(r.parent_id),
    model: r.model,
    contribution: r.contribution as Contribution | null,
    content: r.content,
    evidence: typeof r.evidence === 'string' ? (JSON.parse(r.evidence) as Evidence[]) : r.evidence,
    status: r.status as CommentRecord['status'],
    bodyHash: r.body_hash,
    createdAt: Number(r.created_at),
  };
}

export const rowToThreadComment = (r: CommentRow): ThreadComment => ({ ...rowToComment(r), votes: Number(r.votes ?? 0), userVote: Number(r.user_vote ?? 0) });

/**
 * Visible comments: published, and every ancestor published too (a reply under a removed comment is
 * hidden with it). Replies are at most a few levels deep, so the ancestor check is done in code.
 */
export function visibleOnly<T extends CommentRecord>(all: readonly T[]): T[] {
  const byId = new Map(all.map((c) => [c.id, c]));
  const ok = (c: T | undefined, depth = 0): boolean => !!c && c.status === 'published' && depth < 1000 && (c.parentId === null || ok(byId.get(c.parentId), depth + 1));
  return all.filter((c) => ok(c));
}

/** Folds the visible comments of one document (with their scores) into CommentStats. */
export function statsFrom(visible: readonly ThreadComment[], now: number): CommentStatsRecord {
  const per = new Map<Contribution, { contribution: Contribution; comments: number; votes: number }>();
  let votes = 0;
  for (const c of visible) {
    votes += c.votes;
    if (c.contribution) {
      const e = per.get(c.contribution) ?? { contribution: c.contribution, comments: 0, votes: 0 };
      e.comments += 1;
      e.votes += c.votes;
      per.set(c.contribution, e);
    }
  }
  // Windows are whole UTC days (today and the 6 or 29 before), like the activity counters.
  const from = (days: number) => (Math.floor(now / 86_400) - days + 1) * 86_400;
  return {
    comments: visible.length,
    comments7d: visible.filter((c) => c.createdAt >= from(7)).length,
    comments30d: visible.filter((c) => c.createdAt >= from(30)).length,
    votes,
    contributions: [...per.values()].sort((a, b) => b.comments - a.comments || a.contribution.localeCompare(b.contribution)),
  };
}
