// The storage contract against SQLite (a database file in a temp directory, and `:memory:`), plus
// what only the file store has: several processes or threads opening one fresh file at once.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { openSqliteStorage, WORK_MEMBERS_SQL } from '../../src/adapters/sqlite/sqlite-storage.js';
import { ALL_MIGRATIONS, type MigrationStep } from '../../src/adapters/sql/migrations.js';
import { openMemorySqlite, openTempSqlite, tempDir } from '../helpers/storage.js';
import type { OpenWorkerInput } from './sqlite-open-worker.js';
import { storageContract } from './storage.contract.js';
import { ONCE_PREDICATE } from '../../src/ports/credit-ledger.js';
import { waitFor } from '../helpers/wait.js';

storageContract('SQLite file', openTempSqlite);
storageContract('SQLite :memory:', openMemorySqlite);

test('SQLite: threads opening one fresh database file at once apply each migration step exactly once', async () => {
  const tmp = tempDir();
  try {
    const path = join(tmp.dir, 'fresh.db');
    // A slow first step holds the write lock long enough for the other threads to read
    // schema_migrations (WAL readers do not wait) and find it not yet applied.
    const slow: MigrationStep = {
      id: 'test/000-slow',
      sqlite: 'CREATE TABLE slow AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT COUNT(*) AS n FROM c',
      postgres: '',
    };
    const migrations = [slow, ...ALL_MIGRATIONS];
    // [0]: the gate; [1]: how many workers wait at it
    const gate = new SharedArrayBuffer(8);
    const results = Array.from({ length: 6 }, () => {
      const input: OpenWorkerInput = { path, migrations, gate };
      const w = new Worker(new URL('./sqlite-open-worker.js', import.meta.url), { workerData: input });
      return new Promise<string>((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
      });
    });
    await waitFor('every worker waits at the gate', () => Atomics.load(new Int32Array(gate), 1) === 6);
    Atomics.store(new Int32Array(gate), 0, 1);
    Atomics.notify(new Int32Array(gate), 0);
    assert.deepEqual(await Promise.all(results), Array(6).fill('ok'));
    const s = openSqliteStorage(path, migrations);
    try {
      const rows = s.db.prepare('SELECT id, COUNT(*) AS n FROM schema_migrations GROUP BY id ORDER BY id').all();
      assert.deepEqual(rows, migrations.map((m) => ({ id: m.id, n: 1 })).sort((a, b) => (a.id < b.id ? -1 : 1)));
    } finally {
      await s.close();
    }
  } finally {
    tmp.remove();
  }
});

test('SQLite: two migration steps with one id are refused', () => {
  const step: MigrationStep = { id: 'test/001-twice', sqlite: 'SELECT 1', postgres: 'SELECT 1' };
  assert.throws(() => openSqliteStorage(':memory:', [...ALL_MIGRATIONS, step, step]), /duplicate migration id test\/001-twice/);
});

test('SQLite: a charge-once lookup (findEntry of a browser read) reads the partial ledger_once index, not the account ledger', async () => {
  const { storage, dispose } = await openMemorySqlite();
  try {
    const plan = storage.db
      .prepare(`EXPLAIN QUERY PLAN SELECT * FROM ledger_entries WHERE account_id = ? AND operation = ? AND reference = ? AND ${ONCE_PREDICATE} ORDER BY id DESC LIMIT 1`)
      .all(1, 'document_read', 'doc:2026-11-29') as Array<{ detail: string }>;
    assert.ok(plan.some((r) => /USING (COVERING )?INDEX ledger_once/.test(r.detail)), JSON.stringify(plan));
  } finally {
    await dispose();
  }
});

test('SQLite: a page\'s work links pick the works with two or more live records from the documents_work_live index alone (no record read)', async () => {
  const { storage, dispose } = await openMemorySqlite();
  try {
    const plan = storage.db.prepare(`EXPLAIN QUERY PLAN ${WORK_MEMBERS_SQL}`).all('["a","b"]', 6) as Array<{ detail: string }>;
    // the GROUP BY of the `multi` step is answered from the index: `deleted`, behind the record's overflow
    // pages in the table row, is not read (ADR 0336)
    assert.ok(plan.some((r) => /USING COVERING INDEX documents_work_live/.test(r.detail)), JSON.stringify(plan));
  } finally {
    await dispose();
  }
});
