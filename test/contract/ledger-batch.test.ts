// The ledger batch contract (ledger-batch.contract.ts) on SQLite (file and :memory:) and PostgreSQL.
import { test } from 'node:test';
import { databaseUrl, openMemorySqlite, openTempPostgres, openTempSqlite, postgresSkip } from '../helpers/storage.js';
import { ledgerBatchContract } from './ledger-batch.contract.js';

ledgerBatchContract('SQLite file', openTempSqlite);
ledgerBatchContract('SQLite :memory:', openMemorySqlite);
if (!databaseUrl) test('PostgreSQL ledger batch contract', { skip: postgresSkip() }, () => {});
else {
  const url = databaseUrl;
  ledgerBatchContract('PostgreSQL', () => openTempPostgres(url));
}
