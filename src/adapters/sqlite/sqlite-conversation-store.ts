// Conversations and steps in the embedded SQLite database (conversations/001-init).
import type Database from 'better-sqlite3';
import { AppError } from '../../domain/errors.js';
import type { ConversationRecord, ConversationStepRecord, StepData } from '../../domain/conversation.js';
import type { ConversationPatch, ConversationStore, NewConversation, RepairReport, TurnLease } from '../../ports/conversation-store.js';
import { conversationPatchColumns, rowToConversation, rowToStep, type ConversationRow, type StepRow } from '../sql/conversation-rows.js';
import { statementCache, type Statements } from './sqlite-storage.js';

export class SqliteConversationStore implements ConversationStore {
  readonly #s: Statements;
  readonly #append;
  readonly #appendTurn;
  readonly #rewrite;
  readonly #repair;
  constructor(private readonly db: Database.Database) {
    this.#s = statementCache(db);
    const next = db.prepare('SELECT COALESCE(MAX(position), -1) + 1 AS n FROM conversation_steps WHERE conversation_id = ?');
    const insert = db.prepare('INSERT INTO conversation_steps (conversation_id, position, kind, data) VALUES (?, ?, ?, ?)');
    this.#append = db.transaction((id: string, step: StepData): number => {
      const n = (next.get(id) as { n: number }).n;
      insert.run(id, n, step.kind, JSON.stringify(step.data));
      return n;
    });
    const exists = db.prepare('SELECT 1 FROM conversations WHERE id = ?');
    this.#appendTurn = db.transaction((id: string, request: StepData, response: StepData): number => {
      // Deleted while the turn was answered: the turn has nothing to go into.
      if (!exists.get(id)) throw new AppError('not_found', 'Conversation not found (deleted while this turn was answered).');
      const n = (next.get(id) as { n: number }).n;
      insert.run(id, n, request.kind, JSON.stringify(request.data));
      insert.run(id, n + 1, response.kind, JSON.stringify(response.data));
      return n + 1;
    });
    const truncate = db.prepare('DELETE FROM conversation_steps WHERE conversation_id = ? AND position >= ?');
    this.#rewrite = db.transaction((id: string, from: number, steps: readonly StepData[]) => {
      truncate.run(id, from);
      steps.forEach((st, i) => insert.run(id, from + i, st.kind, JSON.stringify(st.data)));
    });
    this.#repair = db.transaction((nowMs: number, clearLeases: boolean): RepairReport => {
      if (clearLeases) db.prepare('UPDATE conversations SET turn_token = NULL, turn_until = NULL WHERE turn_token IS NOT NULL').run();
      const free = '(c.turn_token IS NULL OR c.turn_until < ?)';
      // Trailing request steps: no response step at a later position.
      const dangling = db
        .prepare(
          `DELETE FROM conversation_steps AS s WHERE s.kind = 'request'
             AND NOT EXISTS (SELECT 1 FROM conversation_steps r WHERE r.conversation_id = s.conversation_id AND r.position > s.position AND r.kind = 'response')
             AND EXISTS (SELECT 1 FROM conversations c WHERE c.id = s.conversation_id AND ${free})`,
        )
        .run(nowMs).changes;
      const empty = db.prepare(`DELETE FROM conversations AS c WHERE ${free} AND NOT EXISTS (SELECT 1 FROM conversation_steps s WHERE s.conversation_id = c.id)`).run(nowMs).changes;
      return { danglingRequests: dangling, emptyConversations: empty };
    });
  }

  async create(c: NewConversation): Promise<ConversationRecord> {
    const row = this.#s
      .q(
        `INSERT INTO conversations (id, slug, account_id, title, preview, query, is_shared, seq, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 0, (SELECT COALESCE(MAX(seq), 0) + 1 FROM conversations), ?, ?) RETURNING *`,
      )
      .get(c.id, c.slug, c.accountId, c.title, c.preview, c.query, c.createdAt, c.createdAt) as ConversationRow;
    return rowToConversation(row);
  }

  async createWithTurn(c: NewConversation, request: StepData, response: StepData): Promise<ConversationRecord> {
    return this.db.transaction(() => {
      const row = this.#s
        .q(
          `INSERT INTO conversations (id, slug, account_id, title, preview, query, is_shared, seq, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, 0, (SELECT COALESCE(MAX(seq), 0) + 1 FROM conversations), ?, ?) RETURNING *`,
        )
        .get(c.id, c.slug, c.accountId, c.title, c.preview, c.query, c.createdAt, c.createdAt) as ConversationRow;
      this.#appendTurn(c.id, request, response);
      return rowToConversation(row);
    }).immediate();
  }

  async get(idOrSlug: string): Promise<ConversationRecord | null> {
    const r = this.#s.q('SELECT * FROM conversations WHERE id = ? OR slug = ?').get(idOrSlug, idOrSlug) as ConversationRow | undefined;
    return r ? rowToConversation(r) : null;
  }

  async listForAccount(accountId: number, limit: number, offset: number): Promise<ConversationRecord[]> {
    const rows = this.#s.q('SELECT * FROM conversations WHERE account_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?').all(accountId, limit, offset) as ConversationRow[];
    return rows.map(rowToConversation);
  }

  async update(id: string, patch: ConversationPatch): Promise<ConversationRecord | null> {
    const cols = conversationPatchColumns(patch, (b) => (b ? 1 : 0));
    const r = this.#s.q(`UPDATE conversations SET ${cols.map(([c]) => `${c} = ?`).join(', ')} WHERE id = ? RETURNING *`).get(...cols.map(([, v]) => v), id) as ConversationRow | undefined;
    return r ? rowToConversation(r) : null;
  }

  async delete(id: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.#s.q('DELETE FROM conversation_steps WHERE conversation_id = ?').run(id);
      return this.#s.q('DELETE FROM conversations WHERE id = ?').run(id).changes > 0;
    })();
  }

  async steps(id: string): Promise<ConversationStepRecord[]> {
    return (this.#s.q('SELECT position, kind, data FROM conversation_steps WHERE conversation_id = ? ORDER BY position').all(id) as StepRow[]).map(rowToStep);
  }

  async appendStep(id: string, step: StepData): Promise<number> {
    return this.#append.immediate(id, step);
  }

  async replaceStep(id: string, position: number, step: StepData): Promise<void> {
    this.#s.q('UPDATE conversation_steps SET kind = ?, data = ? WHERE conversation_id = ? AND position = ?').run(step.kind, JSON.stringify(step.data), id, position);
  }

  async truncateSteps(id: string, fromPosition: number): Promise<void> {
    this.#s.q('DELETE FROM conversation_steps WHERE conversation_id = ? AND position >= ?').run(id, fromPosition);
  }

  async appendTurn(id: string, request: StepData, response: StepData): Promise<number> {
    return this.#appendTurn.immediate(id, request, response);
  }

  async rewriteFrom(id: string, fromPosition: number, steps: readonly StepData[]): Promise<void> {
    this.#rewrite.immediate(id, fromPosition, steps);
  }

  async acquireTurn(id: string, lease: TurnLease, nowMs: number): Promise<boolean> {
    return (
      this.#s.q('UPDATE conversations SET turn_token = ?, turn_until = ? WHERE id = ? AND (turn_token IS NULL OR turn_until < ?)').run(lease.token, lease.untilMs, id, nowMs).changes > 0
    );
  }

  async renewTurn(id: string, lease: TurnLease): Promise<boolean> {
    return this.#s.q('UPDATE conversations SET turn_until = ? WHERE id = ? AND turn_token = ?').run(lease.untilMs, id, lease.token).changes > 0;
  }

  async releaseTurn(id: string, token: string): Promise<void> {
    this.#s.q('UPDATE conversations SET turn_token = NULL, turn_until = NULL WHERE id = ? AND turn_token = ?').run(id, token);
  }

  async repairInterrupted(nowMs: number, clearLeases: boolean): Promise<RepairReport> {
    return this.#repair.immediate(nowMs, clearLeases);
  }
}
