// Versioned schema migrations for both SQL dialects. Each capability owns a named list of steps
// (`core`, `auth`, `recognition`, ...); a step's id is `<component>/<nnn>-<name>`. Steps are applied
// at open, in list order, once, each in its own transaction, and recorded in `schema_migrations`
// (PostgreSQL migrators hold an advisory lock, so concurrent openers never apply a step twice).
// Never edit a released step: add a new one. How a capability adds its own: docs/storage.md.
import { AUTH_MIGRATIONS } from './auth-migrations.js';
import { RECOGNITION_MIGRATIONS } from './recognition-migrations.js';
import { CONVERSATION_MIGRATIONS } from './conversation-migrations.js';
import { COMMUNITY_MIGRATIONS } from './community-migrations.js';
import { ACTIVITY_MIGRATIONS } from './activity-migrations.js';
import { BILLING_MIGRATIONS } from './billing-migrations.js';
import { LIMITS_MIGRATIONS } from './limits-migrations.js';
import { CLUSTER_MIGRATIONS } from './cluster-migrations.js';

export interface MigrationStep {
  /** Unique id, e.g. `core/001-init`. */
  id: string;
  sqlite: string;
  postgres: string;
}

/** core/002: the same DDL in both dialects. */
const DOCUMENT_LINKS = `
  CREATE TABLE document_links (
    target TEXT NOT NULL,
    document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    PRIMARY KEY (target, document_id, kind)
  );
  CREATE INDEX document_links_doc ON document_links(document_id);
`;

/**
 * core/003: the display layout (issue 14, ADR 0135): what a search hit shows of a record (every field
 * but the full text and the cited works, with `hasFullText` and `referencesCount` instead) as compact
 * JSON text, with the columns a read needs, one row per live record. Back-filled here from the stored
 * records; written with each record from then on.
 */
const DOCUMENT_DISPLAY_TABLE = (int: string) => `
  CREATE TABLE document_display (
    id TEXT PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    seq ${int} NOT NULL,
    work_key TEXT NOT NULL,
    created_at ${int} NOT NULL,
    updated_at ${int} NOT NULL,
    display TEXT NOT NULL
  );
`;

export const CORE_MIGRATIONS: readonly MigrationStep[] = [
  {
    id: 'core/001-init',
    sqlite: `
      CREATE TABLE accounts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        email TEXT NOT NULL UNIQUE,
        email_verified INTEGER NOT NULL DEFAULT 0,
        eligible_for_originals INTEGER NOT NULL DEFAULT 0,
        balance INTEGER NOT NULL DEFAULT 0 CHECK (balance >= 0),
        created_at INTEGER NOT NULL
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        hash TEXT NOT NULL,
        label TEXT,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      );
      CREATE INDEX api_keys_account ON api_keys(account_id);
      CREATE TABLE ledger_entries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        amount INTEGER NOT NULL,
        balance_after INTEGER NOT NULL,
        operation TEXT NOT NULL,
        reference TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX ledger_account ON ledger_entries(account_id, id);
      CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
      INSERT INTO counters (name, value) VALUES ('document_seq', 0);
      CREATE TABLE documents (
        id TEXT PRIMARY KEY,
        idx TEXT NOT NULL,
        seq INTEGER NOT NULL UNIQUE,
        work_key TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        record TEXT,
        deleted INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX documents_work ON documents(work_key);
      CREATE INDEX documents_idx ON documents(idx, deleted);
      CREATE TABLE document_uris (
        uri TEXT NOT NULL,
        document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        PRIMARY KEY (uri, document_id)
      );
      CREATE INDEX document_uris_doc ON document_uris(document_id);
      CREATE TABLE document_identity (
        key TEXT NOT NULL,
        document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        PRIMARY KEY (key, document_id)
      );
      CREATE INDEX document_identity_doc ON document_identity(document_id);
      CREATE TABLE activity_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        document_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        account_id INTEGER,
        visitor TEXT,
        day INTEGER NOT NULL,
        at INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX activity_view_once ON activity_events(document_id, visitor, day) WHERE kind = 'view' AND visitor IS NOT NULL;
      CREATE INDEX activity_doc_at ON activity_events(document_id, at);
      CREATE INDEX activity_at ON activity_events(at);
    `,
    postgres: `
      CREATE TABLE accounts (
        id BIGSERIAL PRIMARY KEY,
        email TEXT NOT NULL UNIQUE,
        email_verified BOOLEAN NOT NULL DEFAULT FALSE,
        eligible_for_originals BOOLEAN NOT NULL DEFAULT FALSE,
        balance BIGINT NOT NULL DEFAULT 0 CHECK (balance >= 0),
        created_at BIGINT NOT NULL
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id BIGINT NOT NULL REFERENCES accounts(id),
        hash TEXT NOT NULL,
        label TEXT,
        created_at BIGINT NOT NULL,
        revoked_at BIGINT
      );
      CREATE INDEX api_keys_account ON api_keys(account_id);
      CREATE TABLE ledger_entries (
        id BIGSERIAL PRIMARY KEY,
        account_id BIGINT NOT NULL REFERENCES accounts(id),
        amount BIGINT NOT NULL,
        balance_after BIGINT NOT NULL,
        operation TEXT NOT NULL,
        reference TEXT,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX ledger_account ON ledger_entries(account_id, id);
      CREATE TABLE counters (name TEXT PRIMARY KEY, value BIGINT NOT NULL);
      INSERT INTO counters (name, value) VALUES ('document_seq', 0);
      CREATE TABLE documents (
        id TEXT PRIMARY KEY,
        idx TEXT NOT NULL,
        seq BIGINT NOT NULL UNIQUE,
        work_key TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        record JSONB,
        deleted BOOLEAN NOT NULL DEFAULT FALSE,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX documents_work ON documents(work_key);
      CREATE INDEX documents_idx ON documents(idx, deleted);
      CREATE TABLE document_uris (
        uri TEXT NOT NULL,
        document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        PRIMARY KEY (uri, document_id)
      );
      CREATE INDEX document_uris_doc ON document_uris(document_id);
      CREATE TABLE document_identity (
        key TEXT NOT NULL,
        document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        PRIMARY KEY (key, document_id)
      );
      CREATE INDEX document_identity_doc ON document_identity(document_id);
      CREATE TABLE activity_events (
        id BIGSERIAL PRIMARY KEY,
        document_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        account_id BIGINT,
        visitor TEXT,
        day INTEGER NOT NULL,
        at BIGINT NOT NULL
      );
      CREATE UNIQUE INDEX activity_view_once ON activity_events(document_id, visitor, day) WHERE kind = 'view' AND visitor IS NOT NULL;
      CREATE INDEX activity_doc_at ON activity_events(document_id, at);
      CREATE INDEX activity_at ON activity_events(at);
    `,
  },
  {
    // Work links (docs/works.md, ADR 0085): the relations a record names (a notice to the work it
    // concerns, a version to its other version), by target URI, so a work finds its notices. Filled as
    // records are written: records stored before this step get their rows when they are re-ingested.
    id: 'core/002-document-links',
    sqlite: DOCUMENT_LINKS,
    postgres: DOCUMENT_LINKS,
  },
  {
    id: 'core/003-document-display',
    sqlite: `${DOCUMENT_DISPLAY_TABLE('INTEGER')}
      INSERT INTO document_display (id, seq, work_key, created_at, updated_at, display)
      SELECT id, seq, work_key, created_at, updated_at,
        json_set(json_remove(record, '$.fullText', '$.references'),
          '$.hasFullText', json(CASE WHEN length(COALESCE(json_extract(record, '$.fullText'), '')) > 0 THEN 'true' ELSE 'false' END),
          '$.referencesCount', COALESCE(json_array_length(record, '$.references'), 0))
      FROM documents WHERE deleted = 0 AND record IS NOT NULL;
    `,
    postgres: `${DOCUMENT_DISPLAY_TABLE('BIGINT')}
      INSERT INTO document_display (id, seq, work_key, created_at, updated_at, display)
      SELECT id, seq, work_key, created_at, updated_at,
        ((record - 'fullText' - 'references') || jsonb_build_object(
          'hasFullText', COALESCE(length(record->>'fullText'), 0) > 0,
          'referencesCount', COALESCE(jsonb_array_length(record->'references'), 0)))::text
      FROM documents WHERE NOT deleted AND record IS NOT NULL;
    `,
  },
  {
    // API-key cache invalidation (ADR 0185): every change to a key row, whoever makes it (a server,
    // `lectern keys revoke`, an operator's SQL), notifies channel `lectern_api_keys` with the key id at
    // commit, so every serving process drops its cached record. SQLite needs nothing: a connection sees
    // other connections' commits through PRAGMA data_version.
    id: 'core/004-api-key-notify',
    sqlite: '',
    postgres: `
      CREATE FUNCTION lectern_api_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('lectern_api_keys', OLD.id);
        RETURN NULL;
      END $$;
      CREATE TRIGGER api_keys_changed AFTER UPDATE OR DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION lectern_api_key_changed();
    `,
  },
  {
    // The live records of a work by an index alone (issue 29, ADR 0336): a page's work links ask which
    // of its works have two or more live records, and SQLite read `deleted` from the table row, which
    // lies after `record` and so behind the record's overflow pages (a full text is several pages long).
    // PostgreSQL keeps a large record out of line (TOAST): its rows are read without it; nothing to do.
    id: 'core/005-documents-work-live',
    sqlite: 'CREATE INDEX documents_work_live ON documents(work_key) WHERE deleted = 0;',
    postgres: '',
  },
];

/** Every migration list, in application order. Capabilities append their lists here. */
export const ALL_MIGRATIONS: readonly MigrationStep[] = [...CORE_MIGRATIONS, ...AUTH_MIGRATIONS, ...RECOGNITION_MIGRATIONS, ...CONVERSATION_MIGRATIONS, ...COMMUNITY_MIGRATIONS, ...ACTIVITY_MIGRATIONS, ...BILLING_MIGRATIONS, ...LIMITS_MIGRATIONS, ...CLUSTER_MIGRATIONS];
