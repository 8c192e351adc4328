// `lectern jobs dead | retry` (ADR 0250): on SQLite (the store's leases) nothing is dead-lettered and the
// command says so; on PostgreSQL with the pg-boss queue (DATABASE_URL; own schemas) a job whose converter
// fails on its only attempt is listed with its reason, and a retry after the cause is fixed completes it,
// billed once, through the whole app (configuration, queue selection, HTTP).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import type { ConvertFn } from '../../src/recognition-jobs/index.js';
import { testApp } from '../helpers/app.js';
import { runCliOn } from '../helpers/cli.js';
import { createTestSchema, databaseUrl, dropSchema, pgBossTestSchema, postgresSkip } from '../helpers/storage.js';
import { sampleArticle } from '../recognition/helpers/pdf-builder.js';
import { needs } from '../recognition/helpers/tools.js';
import { submit, waitFor } from './helpers.js';

test('lectern jobs on SQLite: no dead letters (failures are final), retry finds none, usage errors say what to type', async () => {
  const app = await testApp();
  try {
    const dead = await runCliOn(app, ['jobs', 'dead']);
    assert.equal(dead.code, 0);
    assert.deepEqual(dead.out, []);
    assert.equal((await runCliOn(app, ['jobs', 'retry', 'rj_00000000000000000000000000000000'])).code, 1);
    assert.equal((await runCliOn(app, ['jobs', 'retry'])).code, 2);
    assert.equal((await runCliOn(app, ['jobs'])).code, 2);
  } finally {
    await app.dispose();
  }
});

const skip = (await needs('mutool')) || (databaseUrl ? false : postgresSkip('lectern jobs on pg-boss'));

test('lectern jobs on pg-boss: a failed job is listed with its reason and completes once retried, billed once', { skip, timeout: 300_000 }, async () => {
  const schema = await createTestSchema(databaseUrl!);
  const queueSchema = pgBossTestSchema();
  let broken = true;
  const wrap = (inner: ConvertFn): ConvertFn => async (bytes, options) => {
    if (broken) throw new Error('a tool was missing');
    return inner(bytes, options);
  };
  const app = await testApp(
    { recognition: { queue: 'pg-boss', queueSchema, retryLimit: 0, retryDelaySeconds: 1, queuePollMs: 500 } } as never,
    { storage: await openPostgresStorage(schema.url, { max: 6 }), recognition: { wrapConvert: wrap, workers: 1, leaseSeconds: 2 } },
  );
  try {
    assert.equal(app.recognitions.queue.kind, 'pg-boss');
    const a = await app.account({ credits: 100 });
    const res = await submit(app, a.key, sampleArticle(2));
    assert.equal(res.statusCode, 202, res.body);
    const id = res.json().id as string;
    const failed = await waitFor(app, a.key, id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error.code, 'internal');
    const dead = await runCliOn(app, ['jobs', 'dead']);
    assert.equal(dead.code, 0);
    assert.equal(dead.out.length, 1);
    assert.equal(dead.out[0].job_id, id);
    assert.equal(dead.out[0].reason.code, 'internal');
    assert.equal(dead.out[0].attempts, 1);
    broken = false; // the operator installed the tool
    const retried = await runCliOn(app, ['jobs', 'retry', id]);
    assert.equal(retried.code, 0);
    assert.deepEqual(retried.out, { job_id: id, status: 'pending' });
    const done = await waitFor(app, a.key, id);
    assert.equal(done.status, 'completed', JSON.stringify(done.error));
    assert.equal(done.charged_credits, 2);
    assert.equal(await app.storage.ledger.balance(a.id), 98);
    assert.deepEqual((await runCliOn(app, ['jobs', 'dead'])).out, []);
  } finally {
    await app.dispose();
    await schema.drop();
    await dropSchema(databaseUrl!, queueSchema);
  }
});
