// Schema of the community layer (feedback, comments, votes, comment authors). Never edit a released
// step: add `community/002-...`.
import type { MigrationStep } from './migrations.js';

const common = (id: string, serial: string, json: string) => `
  CREATE TABLE search_feedback (
    account_id BIGINT NOT NULL,
    feedback_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    trajectory_id TEXT NOT NULL,
    body ${json} NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, feedback_id)
  );
  CREATE TABLE comments (
    id ${serial},
    account_id BIGINT NOT NULL,
    client_id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    parent_id BIGINT REFERENCES comments(id),
    model TEXT,
    contribution TEXT,
    content TEXT NOT NULL,
    evidence ${json} NOT NULL,
    status TEXT NOT NULL,
    body_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (account_id, client_id)
  );
  CREATE INDEX comments_doc ON comments(document_id, id);
  CREATE INDEX comments_created ON comments(created_at);
  CREATE INDEX comments_status ON comments(status, id);
  CREATE TABLE comment_votes (
    comment_id BIGINT NOT NULL REFERENCES comments(id),
    account_id BIGINT NOT NULL,
    vote INTEGER NOT NULL CHECK (vote IN (-1, 1)),
    PRIMARY KEY (comment_id, account_id)
  );
  CREATE TABLE comment_authors (
    account_id BIGINT PRIMARY KEY,
    state TEXT NOT NULL,
    updated_at BIGINT NOT NULL
  );
  ${id}`;

export const COMMUNITY_MIGRATIONS: readonly MigrationStep[] = [
  {
    id: 'community/001-init',
    sqlite: common('', 'INTEGER PRIMARY KEY AUTOINCREMENT', 'TEXT'),
    postgres: common('', 'BIGSERIAL PRIMARY KEY', 'JSONB'),
  },
];
