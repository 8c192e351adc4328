// Schema of the conversations capability (ports/conversation-store.ts), both dialects. Never edit a
// released step: add `conversations/002-...`.
import type { MigrationStep } from './migrations.js';

const tables = `
  CREATE TABLE conversations (
    id TEXT PRIMARY KEY,
    slug TEXT NOT NULL UNIQUE,
    account_id {INT} NOT NULL REFERENCES accounts(id),
    title TEXT,
    preview TEXT,
    query TEXT,
    is_shared {BOOL} NOT NULL DEFAULT {FALSE},
    seq {SERIAL},
    created_at {INT} NOT NULL,
    updated_at {INT} NOT NULL
  );
  CREATE INDEX conversations_owner ON conversations(account_id, seq);
  CREATE TABLE conversation_steps (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (conversation_id, position)
  );
`;

export const CONVERSATION_MIGRATIONS: readonly MigrationStep[] = [
  {
    id: 'conversations/001-init',
    // SQLite: seq is filled by the adapter (MAX + 1, insertion order).
    sqlite: tables.replaceAll('{INT}', 'INTEGER').replaceAll('{SERIAL}', 'INTEGER NOT NULL').replaceAll('{BOOL}', 'INTEGER').replaceAll('{FALSE}', '0'),
    postgres: tables.replaceAll('{INT}', 'BIGINT').replaceAll('{SERIAL}', 'BIGSERIAL').replaceAll('{BOOL}', 'BOOLEAN').replaceAll('{FALSE}', 'FALSE'),
  },
  {
    // Issue 26 (ADR 0225): the turn lease. One turn or edit at a time per conversation: the holder's
    // token and the time (Unix ms) until which it holds, renewed while the turn runs; a dead process's
    // lease runs out.
    id: 'conversations/002-turn-lease',
    sqlite: 'ALTER TABLE conversations ADD COLUMN turn_token TEXT; ALTER TABLE conversations ADD COLUMN turn_until INTEGER;',
    postgres: 'ALTER TABLE conversations ADD COLUMN turn_token TEXT; ALTER TABLE conversations ADD COLUMN turn_until BIGINT;',
  },
];
