// Row mapping of conversations and steps, shared by the SQLite and PostgreSQL stores.
import type { ConversationRecord, ConversationStepRecord } from '../../domain/conversation.js';

export interface ConversationRow {
  id: string;
  slug: string;
  account_id: number | string;
  title: string | null;
  preview: string | null;
  query: string | null;
  is_shared: number | boolean;
  created_at: number | string;
  updated_at: number | string;
}

export interface StepRow {
  position: number;
  kind: string;
  data: string;
}

export const rowToConversation = (r: ConversationRow): ConversationRecord => ({
  id: r.id,
  slug: r.slug,
  accountId: Number(r.account_id),
  title: r.title,
  preview: r.preview,
  query: r.query,
  isShared: r.is_shared === true || r.is_shared === 1,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export const rowToStep = (r: StepRow): ConversationStepRecord => ({ position: Number(r.position), kind: r.kind, data: JSON.parse(r.data) }) as ConversationStepRecord;

/** SET clause pieces of a patch, in a fixed order: [column, value][]. */
export function conversationPatchColumns(p: { isShared?: boolean; title?: string | null; preview?: string | null; query?: string | null; updatedAt: number }, bool: (b: boolean) => unknown): [string, unknown][] {
  const out: [string, unknown][] = [];
  if (p.isShared !== undefined) out.push(['is_shared', bool(p.isShared)]);
  if (p.title !== undefined) out.push(['title', p.title]);
  if (p.preview !== undefined) out.push(['preview', p.preview]);
  if (p.query !== undefined) out.push(['query', p.query]);
  out.push(['updated_at', p.updatedAt]);
  return out;
}
