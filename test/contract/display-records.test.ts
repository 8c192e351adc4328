// The display layout contract (display-records.contract.ts) on SQLite (file and :memory:) and PostgreSQL.
import { test } from 'node:test';
import { join } from 'node:path';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import type { Storage } from '../../src/ports/storage.js';
import { createTestSchema, databaseUrl, openMemorySqlite, openTempPostgres, openTempSqlite, postgresSkip, tempDir } from '../helpers/storage.js';
import { displayRecordsContract, type LegacyFixture } from './display-records.contract.js';

const DROP_LAYOUT = ["DELETE FROM schema_migrations WHERE id = 'core/003-document-display'", 'DROP TABLE document_display'];

async function legacySqlite(): Promise<LegacyFixture> {
  const tmp = tempDir();
  const path = join(tmp.dir, 'lectern.db');
  let storage: Storage = openSqliteStorage(path);
  return {
    storage,
    async reopenAfterDroppingLayout() {
      const db = (storage as Storage & { db: { exec(sql: string): void } }).db;
      for (const sql of DROP_LAYOUT) db.exec(sql);
      await storage.close();
      storage = openSqliteStorage(path);
      return storage;
    },
    async dispose() {
      await storage.close();
      tmp.remove();
    },
  };
}

displayRecordsContract('SQLite file', openTempSqlite, legacySqlite);
displayRecordsContract('SQLite :memory:', openMemorySqlite, legacySqlite);

if (!databaseUrl) {
  test('PostgreSQL display records contract', { skip: postgresSkip() }, () => {});
} else {
  const url = databaseUrl;
  const legacyPostgres = async (): Promise<LegacyFixture> => {
    const schema = await createTestSchema(url);
    let storage = await openPostgresStorage(schema.url);
    return {
      storage,
      async reopenAfterDroppingLayout() {
        for (const sql of DROP_LAYOUT) await storage.pool.query(sql);
        await storage.close();
        storage = await openPostgresStorage(schema.url);
        return storage;
      },
      async dispose() {
        await storage.close();
        await schema.drop();
      },
    };
  };
  displayRecordsContract('PostgreSQL', () => openTempPostgres(url), legacyPostgres);
}
