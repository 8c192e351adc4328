// Conversations and steps in PostgreSQL (conversations/001-init). Appending a step takes the
// conversation row's lock, so concurrent appends get distinct positions.
import type pg from 'pg';
import type { ConversationRecord, ConversationStepRecord, StepData } from '../../domain/conversation.js';
import type { ConversationPatch, ConversationStore, NewConversation } from '../../ports/conversation-store.js';
import { conversationPatchColumns, rowToConversation, rowToStep, type ConversationRow, type StepRow } from '../sql/conversation-rows.js';

export class PostgresConversationStore implements ConversationStore {
  constructor(private readonly pool: pg.Pool) {}

  async create(c: NewConversation): Promise<ConversationRecord> {
    const { rows } = await this.pool.query<ConversationRow>(
      `INSERT INTO conversations (id, slug, account_id, title, preview, query, is_shared, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, FALSE, $7, $7) RETURNING *`,
      [c.id, c.slug, c.accountId, c.title, c.preview, c.query, c.createdAt],
    );
    return rowToConversation(rows[0]!);
  }

  async get(idOrSlug: string): Promise<ConversationRecord | null> {
    const { rows } = await this.pool.query<ConversationRow>('SELECT * FROM conversations WHERE id = $1 OR slug = $1', [idOrSlug]);
    return rows[0] ? rowToConversation(rows[0]) : null;
  }

  async listForAccount(accountId: number, limit: number, offset: number): Promise<ConversationRecord[]> {
    const { rows } = await this.pool.query<ConversationRow>('SELECT * FROM conversations WHERE account_id = $1 ORDER BY seq DESC LIMIT $2 OFFSET $3', [accountId, limit, offset]);
    return rows.map(rowToConversation);
  }

  async update(id: string, patch: ConversationPatch): Promise<ConversationRecord | null> {
    const cols = conversationPatchColumns(patch, (b) => b);
    const { rows } = await this.pool.query<ConversationRow>(
      `UPDATE conversations SET ${cols.map(([c], i) => `${c} = $${i + 1}`).join(', ')} WHERE id = $${cols.length + 1} RETURNING *`,
      [...cols.map(([, v]) => v), id],
    );
    return rows[0] ? rowToConversation(rows[0]) : null;
  }

  async delete(id: string): Promise<boolean> {
    const r = await this.pool.query('DELETE FROM conversations WHERE id = $1', [id]);
    return (r.rowCount ?? 0) > 0;
  }

  async steps(id: string): Promise<ConversationStepRecord[]> {
    const { rows } = await this.pool.query<StepRow>('SELECT position, kind, data FROM conversation_steps WHERE conversation_id = $1 ORDER BY position', [id]);
    return rows.map(rowToStep);
  }

  async appendStep(id: string, step: StepData): Promise<number> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT 1 FROM conversations WHERE id = $1 FOR UPDATE', [id]);
      const { rows } = await client.query<{ n: number }>(
        `INSERT INTO conversation_steps (conversation_id, position, kind, data)
         VALUES ($1, (SELECT COALESCE(MAX(position), -1) + 1 FROM conversation_steps WHERE conversation_id = $1), $2, $3) RETURNING position AS n`,
        [id, step.kind, JSON.stringify(step.data)],
      );
      await client.query('COMMIT');
      return Number(rows[0]!.n);
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  async replaceStep(id: string, position: number, step: StepData): Promise<void> {
    await this.pool.query('UPDATE conversation_steps SET kind = $1, data = $2 WHERE conversation_id = $3 AND position = $4', [step.kind, JSON.stringify(step.data), id, position]);
  }

  async truncateSteps(id: string, fromPosition: number): Promise<void> {
    await this.pool.query('DELETE FROM conversation_steps WHERE conversation_id = $1 AND position >= $2', [id, fromPosition]);
  }
}
