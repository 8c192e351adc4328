// Schema of the recognition jobs capability (ports/recognition-job-store.ts), both dialects. Never edit
// a released step: add `recognition/002-...`.
import type { MigrationStep } from './migrations.js';

/** Tables shared by both dialects, with `{INT}` placeholders (INTEGER / BIGINT). */
const tables = `
  CREATE TABLE recognition_jobs (
    id TEXT PRIMARY KEY,
    account_id {INT} NOT NULL REFERENCES accounts(id),
    sha256 TEXT NOT NULL,
    format TEXT NOT NULL,
    bytes {INT} NOT NULL,
    status TEXT NOT NULL,
    pages_total INTEGER,
    pages_done INTEGER NOT NULL DEFAULT 0,
    error_code TEXT,
    error_message TEXT,
    charged_credits {INT},
    seq {SERIAL},
    created_at {INT} NOT NULL,
    updated_at {INT} NOT NULL
  );
  CREATE UNIQUE INDEX recognition_jobs_live ON recognition_jobs(account_id, sha256) WHERE status IN ('pending', 'processing', 'completed');
  CREATE INDEX recognition_jobs_owner ON recognition_jobs(account_id, sha256, seq);
  CREATE INDEX recognition_jobs_unfinished ON recognition_jobs(status, seq) WHERE status IN ('pending', 'processing');
  CREATE TABLE recognition_checkpoints (
    sha256 TEXT NOT NULL,
    pipeline TEXT NOT NULL,
    page INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (sha256, pipeline, page)
  );
  CREATE TABLE recognition_results (
    sha256 TEXT NOT NULL,
    pipeline TEXT NOT NULL,
    markdown TEXT NOT NULL,
    report TEXT NOT NULL,
    pages INTEGER NOT NULL,
    created_at {INT} NOT NULL,
    PRIMARY KEY (sha256, pipeline)
  );
`;

export const RECOGNITION_MIGRATIONS: readonly MigrationStep[] = [
  {
    id: 'recognition/001-jobs',
    // SQLite: seq is filled from the rowid by the adapter (an INTEGER column; insertion order).
    sqlite: tables.replaceAll('{INT}', 'INTEGER').replaceAll('{SERIAL}', 'INTEGER'),
    postgres: tables.replaceAll('{INT}', 'BIGINT').replaceAll('{SERIAL}', 'BIGSERIAL'),
  },
  {
    // Leases (ADR 0035): the service instance converting a job, and until when its claim holds, so
    // several instances on one database never convert or bill one job twice.
    id: 'recognition/002-leases',
    sqlite: 'ALTER TABLE recognition_jobs ADD COLUMN worker TEXT; ALTER TABLE recognition_jobs ADD COLUMN lease_until INTEGER;',
    postgres: 'ALTER TABLE recognition_jobs ADD COLUMN worker TEXT; ALTER TABLE recognition_jobs ADD COLUMN lease_until BIGINT;',
  },
  {
    // ADR 0387: a completed job no longer holds its account's slot for the content, so a resubmission
    // after a pipeline upgrade can start a (free) job of its own; the service returns a completed job
    // whose result is current. Pending and processing jobs still hold it: concurrent identical
    // submissions create one job.
    id: 'recognition/003-live-jobs-unfinished-only',
    sqlite: "DROP INDEX recognition_jobs_live; CREATE UNIQUE INDEX recognition_jobs_live ON recognition_jobs(account_id, sha256) WHERE status IN ('pending', 'processing');",
    postgres: "DROP INDEX recognition_jobs_live; CREATE UNIQUE INDEX recognition_jobs_live ON recognition_jobs(account_id, sha256) WHERE status IN ('pending', 'processing');",
  },
];
