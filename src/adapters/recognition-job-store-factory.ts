// Picks the recognition job store that lives in the same database as the rest of the storage.
import type { RecognitionJobStore } from '../ports/recognition-job-store.js';
import type { Storage } from '../ports/storage.js';
import { PostgresRecognitionJobStore } from './postgres/postgres-recognition-job-store.js';
import type { PostgresHandle } from './postgres/postgres-storage.js';
import { SqliteRecognitionJobStore } from './sqlite/sqlite-recognition-job-store.js';
import type { SqliteHandle } from './sqlite/sqlite-storage.js';

/** The recognition job store over `storage`'s own database (SQLite handle `db`, PostgreSQL handle `pool`). */
export function recognitionJobStoreFor(storage: (Storage & SqliteHandle) | (Storage & PostgresHandle)): RecognitionJobStore {
  if ('db' in storage) return new SqliteRecognitionJobStore(storage.db);
  if ('pool' in storage) return new PostgresRecognitionJobStore(storage.pool);
  throw new Error('recognition jobs need SQLite or PostgreSQL storage');
}
