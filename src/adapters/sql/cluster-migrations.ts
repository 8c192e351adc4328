// The cluster's transactional outbox (issue 24, ADR 0206). PostgreSQL only: SQLite is the all-in-one
// store and has no cluster.
//
// A row-level trigger on `documents` writes one `document_outbox` row per change (insert, update,
// work-key relabel, delete: every statement that gives a record a new `seq`) in the same transaction
// as the change, with the work key before and after it: the relay needs the old one to tell the shard
// a record moved away from. The store's own change sequence (`documents.seq`) is not enough alone: it
// keeps only each record's latest state, so a record relabelled twice before the relay ran would leave
// its first shard holding a stale copy.
//
// The outbox fills only while `counters.outbox_enabled` is 1: the cluster turns it on (taking the
// document_seq lock, so no writer in flight misses it) and its relay deletes rows once JetStream has
// acknowledged them. A single PostgreSQL deployment without a cluster writes nothing here.
import type { MigrationStep } from './migrations.js';

export const CLUSTER_MIGRATIONS: readonly MigrationStep[] = [
  {
    id: 'cluster/001-document-outbox',
    sqlite: '',
    postgres: `
      CREATE TABLE document_outbox (
        seq BIGINT PRIMARY KEY,
        id TEXT NOT NULL,
        old_work_key TEXT,
        work_key TEXT NOT NULL
      );
      INSERT INTO counters (name, value) VALUES ('outbox_enabled', 0) ON CONFLICT (name) DO NOTHING;
      CREATE FUNCTION lectern_document_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND NEW.seq = OLD.seq THEN RETURN NULL; END IF;
        IF (SELECT value FROM counters WHERE name = 'outbox_enabled') = 1 THEN
          INSERT INTO document_outbox (seq, id, old_work_key, work_key)
          VALUES (NEW.seq, NEW.id, CASE WHEN TG_OP = 'UPDATE' THEN OLD.work_key END, NEW.work_key);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER documents_outbox AFTER INSERT OR UPDATE ON documents FOR EACH ROW EXECUTE FUNCTION lectern_document_outbox();
    `,
  },
  {
    // Originals and uploads every node of a cluster reaches (issue 24, docs/scale.md "Roles and
    // configuration"): a blob is a row of metadata and its bytes in 1 MiB chunks, written in one
    // transaction (readers see the old or the new blob, never a mix).
    id: 'cluster/002-blobs',
    sqlite: '',
    postgres: `
      CREATE TABLE blobs (key TEXT PRIMARY KEY, bytes BIGINT NOT NULL, modified_ms BIGINT NOT NULL);
      CREATE TABLE blob_chunks (key TEXT NOT NULL REFERENCES blobs(key) ON DELETE CASCADE ON UPDATE CASCADE, n INTEGER NOT NULL, data BYTEA NOT NULL, PRIMARY KEY (key, n));
    `,
  },
];
