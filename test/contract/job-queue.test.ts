// The JobQueue contract against the store's leases (SQLite) and pg-boss (PostgreSQL, DATABASE_URL; each
// run in its own pg-boss schema and Lectern schema, dropped afterwards, so parallel runs do not collide).
import { test } from 'node:test';
import { PgBossJobQueue } from '../../src/adapters/queue/pg-boss-job-queue.js';
import { PostgresRecognitionJobStore } from '../../src/adapters/postgres/postgres-recognition-job-store.js';
import { SqliteRecognitionJobStore } from '../../src/adapters/sqlite/sqlite-recognition-job-store.js';
import type { JobQueue } from '../../src/ports/job-queue.js';
import { LeaseJobQueue } from '../../src/recognition-jobs/lease-job-queue.js';
import { databaseUrl, dropSchema, openMemorySqlite, openTempPostgres, pgBossTestSchema, postgresSkip } from '../helpers/storage.js';
import { jobQueueContract, LEASE_SECONDS } from './job-queue.contract.js';

/** The pg-boss queue of these tests: short retries, errors thrown. */
function pgBossQueue(pool: ConstructorParameters<typeof PgBossJobQueue>[0]['pool'], leases: PostgresRecognitionJobStore, schema: string, clock: { nowMs(): number }): PgBossJobQueue {
  return new PgBossJobQueue({
    pool,
    schema,
    queue: 'recognition',
    leases,
    clock,
    leaseSeconds: LEASE_SECONDS,
    retryLimit: 1,
    retryDelaySeconds: 1,
    expireSeconds: 3600,
    maintenanceSeconds: 3600,
    pollMs: 500,
    deadRetentionDays: 1,
    report: (err) => {
      throw err;
    },
  });
}

/** A clock at real time plus an offset the test moves on. */
function offsetClock() {
  let offset = 0;
  return { clock: { nowMs: () => Date.now() + offset }, advance: (s: number) => void (offset += s * 1000) };
}

jobQueueContract('store leases (SQLite)', async () => {
  const fixture = await openMemorySqlite();
  const jobs = new SqliteRecognitionJobStore(fixture.storage.db);
  const { clock, advance } = offsetClock();
  const queues: JobQueue[] = [];
  return {
    fixture,
    jobs,
    clock,
    advance,
    async queue() {
      const q = new LeaseJobQueue(jobs, clock, LEASE_SECONDS);
      await q.start();
      queues.push(q);
      return q;
    },
    async dispose() {
      for (const q of queues) await q.close();
      await fixture.dispose();
    },
  };
});

if (!databaseUrl) {
  test('pg-boss job queue contract', { skip: postgresSkip('pg-boss job queue contract') }, () => {});
} else {
  const url = databaseUrl;
  jobQueueContract('pg-boss (PostgreSQL)', async () => {
    const fixture = await openTempPostgres(url, { max: 6 });
    const jobs = new PostgresRecognitionJobStore(fixture.storage.pool);
    const { clock, advance } = offsetClock();
    const schema = pgBossTestSchema();
    const queues: JobQueue[] = [];
    return {
      fixture,
      jobs,
      clock,
      advance,
      realTimeLeases: true,
      async queue() {
        const q = pgBossQueue(fixture.storage.pool, jobs, schema, clock);
        await q.start();
        queues.push(q);
        return q;
      },
      async dispose() {
        for (const q of queues) await q.close();
        await fixture.dispose();
        await dropSchema(url, schema);
      },
    };
  });
}

if (databaseUrl) {
  const url = databaseUrl;
  test('pg-boss: processes starting at once on a new database all start (seen: a lost race in pg-boss\'s install exited an api node of a fresh cluster)', async () => {
    const schema = pgBossTestSchema();
    // separate pools, as separate processes have
    const fixtures = await Promise.all(Array.from({ length: 4 }, () => openTempPostgres(url, { max: 3 })));
    const queues: PgBossJobQueue[] = [];
    try {
      for (const f of fixtures) {
        queues.push(pgBossQueue(f.storage.pool, new PostgresRecognitionJobStore(f.storage.pool), schema, { nowMs: () => Date.now() }));
      }
      await Promise.all(queues.map((q) => q.start()));
    } finally {
      for (const q of queues) await q.close().catch(() => undefined);
      for (const f of fixtures) await f.dispose();
      await dropSchema(url, schema);
    }
  });
}
