// The storage contract against PostgreSQL (DATABASE_URL), each test in a fresh schema; plus what only
// PostgreSQL has: concurrent openers racing to migrate, BIGINTs as numbers, capabilities' own SQL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openPostgresStorage, withTransaction } from '../../src/adapters/postgres/postgres-storage.js';
import { ALL_MIGRATIONS, type MigrationStep } from '../../src/adapters/sql/migrations.js';
import { createTestSchema, databaseUrl, openTempPostgres, postgresSkip } from '../helpers/storage.js';
import { storageContract } from './storage.contract.js';
import { ONCE_PREDICATE } from '../../src/ports/credit-ledger.js';

if (!databaseUrl) {
  test('PostgreSQL storage contract', { skip: postgresSkip() }, () => {});
} else {
  const url = databaseUrl;
  storageContract('PostgreSQL', () => openTempPostgres(url));

  describe('PostgreSQL storage', () => {
    test('concurrent openers of one empty schema apply each migration step exactly once', async () => {
      const schema = await createTestSchema(url);
      const extra: MigrationStep = {
        id: 'test/001-extra',
        sqlite: 'CREATE TABLE extra (id INTEGER)',
        postgres: 'CREATE TABLE extra (id BIGINT)',
      };
      const migrations = [...ALL_MIGRATIONS, extra];
      try {
        const stores = await Promise.all(Array.from({ length: 6 }, () => openPostgresStorage(schema.url, { migrations, max: 2 })));
        try {
          const { rows } = await stores[0]!.pool.query<{ id: string; n: number }>('SELECT id, COUNT(*) AS n FROM schema_migrations GROUP BY id ORDER BY id');
          assert.deepEqual(
            rows,
            migrations.map((m) => ({ id: m.id, n: 1 })).sort((a, b) => (a.id < b.id ? -1 : 1)),
          );
          // Reopening applies nothing new.
          const again = await openPostgresStorage(schema.url, { migrations });
          await again.close();
          const count = await stores[0]!.pool.query<{ n: number }>('SELECT COUNT(*) AS n FROM schema_migrations');
          assert.equal(count.rows[0]!.n, migrations.length);
        } finally {
          await Promise.all(stores.map((s) => s.close()));
        }
      } finally {
        await schema.drop();
      }
    });

    test('a failing migration step is rolled back, reported with its id, and not recorded', async () => {
      const schema = await createTestSchema(url);
      try {
        const broken: MigrationStep = { id: 'test/001-broken', sqlite: '', postgres: 'CREATE TABLE half (id INT); SELECT no_such_function();' };
        await assert.rejects(openPostgresStorage(schema.url, { migrations: [...ALL_MIGRATIONS, broken] }), /migration test\/001-broken failed/);
        const s = await openPostgresStorage(schema.url);
        try {
          const { rows } = await s.pool.query("SELECT to_regclass('half') AS t, (SELECT COUNT(*) FROM schema_migrations WHERE id = 'test/001-broken') AS n");
          assert.deepEqual(rows, [{ t: null, n: 0 }]);
        } finally {
          await s.close();
        }
      } finally {
        await schema.drop();
      }
    });

    test('a charge-once lookup (findEntry of a browser read) can use the partial ledger_once index', async () => {
      const fixture = await openTempPostgres(url);
      try {
        const client = await fixture.storage.pool.connect();
        try {
          await client.query('BEGIN');
          await client.query('SET LOCAL enable_seqscan = off');
          const { rows } = await client.query<{ 'QUERY PLAN': string }>(
            `EXPLAIN SELECT * FROM ledger_entries WHERE account_id = 1 AND operation = 'document_read' AND reference = 'doc:2026-11-29' AND ${ONCE_PREDICATE} ORDER BY id DESC LIMIT 1`,
          );
          await client.query('ROLLBACK');
          assert.ok(rows.some((r) => /ledger_once/.test(r['QUERY PLAN'])), JSON.stringify(rows));
        } finally {
          client.release();
        }
      } finally {
        await fixture.dispose();
      }
    });

    test('an unreachable database rejects at open', async () => {
      const bad = new URL(url);
      bad.port = '1';
      await assert.rejects(openPostgresStorage(bad.toString()));
    });

    test('capabilities run their own SQL in transactions on the pool; BIGINTs come back as numbers', async () => {
      const fixture = await openTempPostgres(url);
      try {
        const { pool } = fixture.storage;
        await pool.query('CREATE TABLE capability_rows (id BIGINT PRIMARY KEY, note TEXT)');
        await assert.rejects(
          withTransaction(pool, async (tx) => {
            await tx.query('INSERT INTO capability_rows VALUES (1, $1)', ['rolled back']);
            throw new Error('boom');
          }),
          /boom/,
        );
        await withTransaction(pool, async (tx) => {
          await tx.query('INSERT INTO capability_rows VALUES ($1, $2)', [Number.MAX_SAFE_INTEGER, 'kept']);
        });
        const { rows } = await pool.query('SELECT id, note FROM capability_rows');
        assert.deepEqual(rows, [{ id: Number.MAX_SAFE_INTEGER, note: 'kept' }]);
        // Beyond 2^53 a BIGINT cannot be a number: reading it fails loudly instead of rounding.
        await assert.rejects(pool.query('SELECT 9007199254740993::bigint AS n'), /safe integer/);
        // The pool survives a parse failure.
        assert.deepEqual((await pool.query('SELECT 1::bigint AS n')).rows, [{ n: 1 }]);
      } finally {
        await fixture.dispose();
      }
    });
  });
}
