// The auth store contract against SQLite (a database file per test).
import { sqliteAuthStore } from '../../src/adapters/sqlite/auth-store.js';
import { openTempSqlite } from '../helpers/storage.js';
import { authStoreContract } from './auth-store.contract.js';

authStoreContract('SQLite', async () => {
  const fixture = await openTempSqlite();
  return { fixture, store: sqliteAuthStore(fixture.storage.db) };
});
