// Conversations and steps in PostgreSQL (conversations/001-init). Appending a step takes the
// conversation row's lock, so concurrent appends get distinct positions.
import type pg from 'pg';
import { AppError } from '../../domain/errors.js';
import type { ConversationRecord, ConversationStepRecord, StepData } from '../../domain/conversation.js';
import type { ConversationPatch, ConversationStore, NewConversation, RepairReport, TurnLease } from '../../ports/conversation-store.js';
import { conversationPatchColumns, rowToConversation, rowToStep, type ConversationRow, type StepRow } from '../sql/conversation-rows.js';

export class PostgresConversationStore implements ConversationStore {
  constructor(private readonly pool: pg.Pool) {}

  async create(c: NewConversation, client: pg.Pool | pg.PoolClient = this.pool): Promise<ConversationRecord> {
    const { rows } = await client.query<ConversationRow>(
      `INSERT INTO conversations (id, slug, account_id, title, preview, query, is_shared, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, FALSE, $7, $7) RETURNING *`,
      [c.id, c.slug, c.accountId, c.title, c.preview, c.query, c.createdAt],
    );
    return rowToConversation(rows[0]!);
  }

  async createWithTurn(c: NewConversation, request: StepData, response: StepData): Promise<ConversationRecord> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const created = await this.create(c, client);
      await client.query('INSERT INTO conversation_steps (conversation_id, position, kind, data) VALUES ($1, 0, $2, $3), ($1, 1, $4, $5)', [c.id, request.kind, JSON.stringify(request.data), response.kind, JSON.stringify(response.data)]);
      await client.query('COMMIT');
      return created;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
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

  /** `work` in one transaction holding the conversation row's lock. */
  async #locked<T>(id: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const locked = await client.query('SELECT 1 FROM conversations WHERE id = $1 FOR UPDATE', [id]);
      // Deleted meanwhile (e.g. while a turn was answered): nothing to write into.
      if (locked.rowCount === 0) throw new AppError('not_found', 'Conversation not found (deleted while this turn was answered).');
      const out = await work(client);
      await client.query('COMMIT');
      return out;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  async appendStep(id: string, step: StepData): Promise<number> {
    return this.#locked(id, async (client) => {
      const { rows } = await client.query<{ n: number }>(
        `INSERT INTO conversation_steps (conversation_id, position, kind, data)
         VALUES ($1, (SELECT COALESCE(MAX(position), -1) + 1 FROM conversation_steps WHERE conversation_id = $1), $2, $3) RETURNING position AS n`,
        [id, step.kind, JSON.stringify(step.data)],
      );
      return Number(rows[0]!.n);
    });
  }

  async appendTurn(id: string, request: StepData, response: StepData): Promise<number> {
    return this.#locked(id, async (client) => {
      const { rows } = await client.query<{ n: number }>('SELECT COALESCE(MAX(position), -1) + 1 AS n FROM conversation_steps WHERE conversation_id = $1', [id]);
      const n = Number(rows[0]!.n);
      await client.query('INSERT INTO conversation_steps (conversation_id, position, kind, data) VALUES ($1, $2, $3, $4), ($1, $5, $6, $7)', [
        id,
        n,
        request.kind,
        JSON.stringify(request.data),
        n + 1,
        response.kind,
        JSON.stringify(response.data),
      ]);
      return n + 1;
    });
  }

  async rewriteFrom(id: string, fromPosition: number, steps: readonly StepData[]): Promise<void> {
    await this.#locked(id, async (client) => {
      await client.query('DELETE FROM conversation_steps WHERE conversation_id = $1 AND position >= $2', [id, fromPosition]);
      for (let i = 0; i < steps.length; i++) {
        await client.query('INSERT INTO conversation_steps (conversation_id, position, kind, data) VALUES ($1, $2, $3, $4)', [id, fromPosition + i, steps[i]!.kind, JSON.stringify(steps[i]!.data)]);
      }
    });
  }

  async acquireTurn(id: string, lease: TurnLease, nowMs: number): Promise<boolean> {
    const r = await this.pool.query('UPDATE conversations SET turn_token = $1, turn_until = $2 WHERE id = $3 AND (turn_token IS NULL OR turn_until < $4)', [lease.token, lease.untilMs, id, nowMs]);
    return (r.rowCount ?? 0) > 0;
  }

  async renewTurn(id: string, lease: TurnLease): Promise<boolean> {
    const r = await this.pool.query('UPDATE conversations SET turn_until = $1 WHERE id = $2 AND turn_token = $3', [lease.untilMs, id, lease.token]);
    return (r.rowCount ?? 0) > 0;
  }

  async releaseTurn(id: string, token: string): Promise<void> {
    await this.pool.query('UPDATE conversations SET turn_token = NULL, turn_until = NULL WHERE id = $1 AND turn_token = $2', [id, token]);
  }

  async repairInterrupted(nowMs: number, clearLeases: boolean): Promise<RepairReport> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      if (clearLeases) await client.query('UPDATE conversations SET turn_token = NULL, turn_until = NULL WHERE turn_token IS NOT NULL');
      const free = '(c.turn_token IS NULL OR c.turn_until < $1)';
      const dangling = await client.query(
        `DELETE FROM conversation_steps s USING conversations c
          WHERE c.id = s.conversation_id AND ${free} AND s.kind = 'request'
            AND NOT EXISTS (SELECT 1 FROM conversation_steps r WHERE r.conversation_id = s.conversation_id AND r.position > s.position AND r.kind = 'response')`,
        [nowMs],
      );
      const empty = await client.query(`DELETE FROM conversations c WHERE ${free} AND NOT EXISTS (SELECT 1 FROM conversation_steps s WHERE s.conversation_id = c.id)`, [nowMs]);
      await client.query('COMMIT');
      return { danglingRequests: dangling.rowCount ?? 0, emptyConversations: empty.rowCount ?? 0 };
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
