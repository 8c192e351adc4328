// Recognition jobs on the pg-boss queue (ADR 0250), several workers over one PostgreSQL (DATABASE_URL;
// each test in its own Lectern schema and pg-boss schema, dropped afterwards): a worker that dies in the
// middle of a job loses it to another, which completes it and bills it once; a job whose workers die on
// every attempt is dead-lettered with its reason, listed, and completes once an operator retries it; a
// converter that keeps failing is retried with backoff, then dead-lettered. A worker "dies" here by
// losing the database (its claims fail, it renews nothing); test/recognition-jobs/worker-kill.test.ts
// kills a worker process with SIGKILL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PostgresBlobStore } from '../../src/adapters/postgres/postgres-blob-store.js';
import { PostgresRecognitionJobStore } from '../../src/adapters/postgres/postgres-recognition-job-store.js';
import { PgBossJobQueue } from '../../src/adapters/queue/pg-boss-job-queue.js';
import { BillingService } from '../../src/billing/billing-service.js';
import type { Principal } from '../../src/domain/principal.js';
import type { RecognitionJobStore } from '../../src/ports/recognition-job-store.js';
import { RecognitionJobService, type ConvertFn } from '../../src/recognition-jobs/index.js';
import { convertDocument } from '../../src/recognition/index.js';
import { databaseUrl, dropSchema, openTempPostgres, pgBossTestSchema, postgresSkip } from '../helpers/storage.js';
import { waitFor } from '../helpers/wait.js';
import { sampleArticle } from '../recognition/helpers/pdf-builder.js';
import { needs, runner } from '../recognition/helpers/tools.js';

const LEASE = 2;
const prices = { search: 0, searchPerHit: 0, documentFetch: 0, documentTokensPerCredit: 1, documentPassages: 0, conversationTurn: 0, conversationEdit: 0, similar: 0, recognitionPerPage: 2 };
const principal = (accountId: number): Principal => ({ accountId, credential: 'api_key', credentialId: 'k', scopes: [], clientId: null, isAgent: false, audience: null });
const clock = { nowMs: () => Date.now() };

const skip = (await needs('mutool')) || (databaseUrl ? false : postgresSkip('pg-boss recognition queue'));

/** A store whose process has "died": it claims and releases nothing from `kill()` on. */
function killable(store: RecognitionJobStore): { store: RecognitionJobStore; kill(): void } {
  let dead = false;
  const wrapped = Object.create(store) as RecognitionJobStore;
  wrapped.claim = async (...args) => (dead ? [] : store.claim(...args));
  wrapped.release = async (worker) => (dead ? undefined : store.release(worker));
  return { store: wrapped, kill: () => void (dead = true) };
}

/** A converter that says it started and then hangs until aborted and released (a worker stuck or about to be killed). */
function hanging(): { convert: ConvertFn; entered: Promise<void>; release(): void } {
  let enter: () => void = () => {};
  const entered = new Promise<void>((r) => (enter = r));
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  return {
    entered,
    release,
    convert: async (bytes, options) => {
      enter();
      await gate;
      return convertDocument(bytes, options);
    },
  };
}

async function cluster(retryLimit: number) {
  const fixture = await openTempPostgres(databaseUrl!, { max: 8 });
  const s = fixture.storage;
  const schema = pgBossTestSchema();
  const account = await s.accounts.create({ email: 'ada@example.org' });
  await s.ledger.credit(account.id, 100, 'topup', null, 1);
  const services: RecognitionJobService[] = [];
  const errors: unknown[] = [];
  const make = async (opts: { convert?: ConvertFn; store?: RecognitionJobStore; work?: boolean; uploadRetentionSeconds?: number } = {}) => {
    const store = opts.store ?? new PostgresRecognitionJobStore(s.pool);
    const service = new RecognitionJobService({
      store,
      queue: new PgBossJobQueue({
        pool: s.pool,
        schema,
        queue: 'recognition',
        leases: store,
        clock,
        leaseSeconds: LEASE,
        retryLimit,
        retryDelaySeconds: 1,
        expireSeconds: 3600,
        maintenanceSeconds: 3600,
        pollMs: 200,
        deadRetentionDays: 1,
        report: (err) => errors.push(err),
      }),
      blobs: new PostgresBlobStore(s.pool),
      runner,
      billing: new BillingService(s.ledger, clock),
      prices,
      clock,
      settings: { workers: 1, maxBytes: 1 << 20, maxPages: 100, ocrLanguages: ['eng'], pageConcurrency: 1, leaseSeconds: LEASE, work: opts.work ?? true, ...(opts.uploadRetentionSeconds !== undefined ? { uploadRetentionSeconds: opts.uploadRetentionSeconds } : {}) },
      report: (err) => errors.push(err),
      convert: opts.convert ?? convertDocument,
    });
    await service.start();
    services.push(service);
    return service;
  };
  const jobs = new PostgresRecognitionJobStore(s.pool);
  return {
    s,
    account,
    make,
    jobs,
    errors,
    /** Waits until the job reaches a final state. */
    final: async (id: string) =>
      (await waitFor(`job ${id} finished`, async () => {
        const j = await jobs.get(id);
        return j && ['completed', 'failed', 'cancelled'].includes(j.status) ? j : null;
      }, { intervalMs: 100 }))!,
    charges: async () => (await s.ledger.entries(account.id, 50)).filter((e) => e.operation === 'recognition'),
    async dispose() {
      for (const sv of services) await sv.close();
      await fixture.dispose();
      await dropSchema(databaseUrl!, schema);
    },
  };
}

test('pg-boss: an api node only queues; a worker that dies mid-job loses it to another, which completes it and bills once', { skip, timeout: 300_000 }, async () => {
  const c = await cluster(3);
  const a = hanging();
  try {
    const api = await c.make({ work: false });
    const dying = killable(new PostgresRecognitionJobStore(c.s.pool));
    await c.make({ convert: a.convert, store: dying.store });
    const { job } = await api.submit(principal(c.account.id), sampleArticle(3));
    assert.equal(api.stats().jobs, 0, 'the api node runs nothing');
    await a.entered; // worker A converts ...
    dying.kill(); // ... and dies: no renewal, no release
    const b = await c.make();
    const done = await c.final(job.id);
    assert.equal(done.status, 'completed', JSON.stringify(done.error));
    assert.equal(done.chargedCredits, 6);
    await waitFor('the worker settled the job', () => b.stats().jobs === 0);
    // A wakes up and finishes its conversion: it holds no lease any more, so it bills nothing
    a.release();
    await waitFor('the billing settled', async () => (await c.charges()).length >= 1);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await c.charges()).length, 1, 'billed once');
    assert.equal(await c.s.ledger.balance(c.account.id), 94);
    assert.deepEqual(await b.deadLetters(10), []);
  } finally {
    a.release();
    await c.dispose();
  }
});

test('pg-boss: a job whose workers die on it twice is dead-lettered as conversion_crashed; an operator retry completes it, billed once', { skip, timeout: 300_000 }, async () => {
  const c = await cluster(3);
  const a1 = hanging();
  const a2 = hanging();
  try {
    const first = killable(new PostgresRecognitionJobStore(c.s.pool));
    const w1 = await c.make({ convert: a1.convert, store: first.store });
    const { job } = await w1.submit(principal(c.account.id), sampleArticle(2));
    await a1.entered;
    first.kill();
    const second = killable(new PostgresRecognitionJobStore(c.s.pool));
    await c.make({ convert: a2.convert, store: second.store });
    await a2.entered;
    second.kill();
    const b = await c.make();
    const failed = await c.final(job.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error?.code, 'conversion_crashed');
    assert.match(failed.error!.message, /dead-lettered/);
    const letters = await b.deadLetters(10);
    assert.equal(letters.length, 1);
    assert.equal(letters[0]!.id, job.id);
    assert.equal(letters[0]!.reason.code, 'conversion_crashed');
    assert.equal(letters[0]!.attempts, 3);
    assert.deepEqual(await c.charges(), [], 'nothing charged');
    // a resubmission of the same bytes is refused at once, as on one node
    const again = await b.submit(principal(c.account.id), sampleArticle(2));
    assert.equal(again.created, false);
    assert.equal(again.job.id, job.id);
    // the operator fixed the cause: retry
    const reopened = await b.retryDeadLetter(job.id);
    assert.equal(reopened.status, 'pending');
    assert.deepEqual(await b.deadLetters(10), []);
    const done = await c.final(job.id);
    assert.equal(done.status, 'completed', JSON.stringify(done.error));
    assert.equal(done.chargedCredits, 4);
    assert.equal((await c.charges()).length, 1);
    await assert.rejects(b.retryDeadLetter(job.id), /No dead-lettered recognition job/);
  } finally {
    a1.release();
    a2.release();
    await c.dispose();
  }
});

test('pg-boss: a converter that keeps failing is retried with backoff, then dead-lettered as internal', { skip, timeout: 300_000 }, async () => {
  const c = await cluster(1);
  let calls = 0;
  try {
    const w = await c.make({
      convert: async () => {
        calls++;
        throw new Error('the converter broke');
      },
    });
    const { job } = await w.submit(principal(c.account.id), sampleArticle(1));
    const failed = await c.final(job.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error?.code, 'internal');
    assert.match(failed.error!.message, /dead-lettered/);
    assert.equal(calls, 2, 'the first attempt and one retry');
    const letters = await w.deadLetters(10);
    assert.deepEqual(letters.map((l) => [l.id, l.reason.code, l.attempts]), [[job.id, 'internal', 2]]);
    assert.deepEqual(await c.charges(), []);
  } finally {
    await c.dispose();
  }
});

test('pg-boss: a dead-lettered job keeps its upload for the retention unless retried; the sweep then deletes it, discard at once (ADR 0296)', { skip, timeout: 300_000 }, async () => {
  const c = await cluster(0);
  const blobs = new PostgresBlobStore(c.s.pool);
  const upload = async (sha256: string) => (await blobs.stat(`recognition/${sha256}`)) !== null;
  const gate = hanging();
  let broken = true;
  try {
    const w = await c.make({
      convert: async (bytes, options) => {
        if (broken) throw new Error('the converter broke');
        return gate.convert(bytes, options);
      },
    });
    // three contents whose only attempt fails (retryLimit 0): dead-lettered, uploads kept for a retry
    const [a, b, d] = await Promise.all([1, 2, 3].map(async (pages) => (await w.submit(principal(c.account.id), sampleArticle(pages))).job));
    for (const j of [a!, b!, d!]) assert.equal((await c.final(j.id)).status, 'failed');
    assert.deepEqual((await w.deadLetters(10)).map((l) => l.id).sort(), [a!.id, b!.id, d!.id].sort());
    for (const j of [a!, b!, d!]) assert.ok(await upload(j.sha256), 'a dead letter keeps its upload');
    // an upload no job refers to (a process died between steps)
    const orphan = 'ab'.repeat(32);
    await blobs.put(`recognition/${orphan}`, new Uint8Array([1, 2, 3]));

    // within the retention nothing goes
    const keeper = await c.make({ work: false, uploadRetentionSeconds: 3600 });
    assert.deepEqual(await keeper.sweepUploads(), { discarded: [], deleted: [] });
    for (const sha of [a!.sha256, b!.sha256, d!.sha256, orphan]) assert.ok(await upload(sha));

    // an operator's discard: at once, for good
    const discarded = await keeper.discardDeadLetter(d!.id);
    assert.deepEqual([discarded.job.id, discarded.uploadDeleted], [d!.id, true]);
    assert.equal(await upload(d!.sha256), false);
    await assert.rejects(keeper.retryDeadLetter(d!.id), /No dead-lettered recognition job/);
    await assert.rejects(keeper.discardDeadLetter(d!.id), /No dead-lettered recognition job/);
    await assert.rejects(keeper.discardDeadLetter('rj_nope'), /No recognition job/);

    // the converter is fixed: b is retried by the operator, a's content submitted again (a new job)
    broken = false;
    await keeper.retryDeadLetter(b!.id);
    const again = await w.submit(principal(c.account.id), sampleArticle(1));
    assert.equal(again.created, true);
    assert.equal(again.job.sha256, a!.sha256);
    await gate.entered; // one of them converts (hanging), the other waits: both unfinished
    await assert.rejects(keeper.discardDeadLetter(again.job.id), /not failed/);

    // past the retention (1 s here): a's dead letter is discarded, but its upload stays for the new job;
    // b (retried) keeps its upload; the orphan goes
    await new Promise((r) => setTimeout(r, 1_500));
    const sweeper = await c.make({ work: false, uploadRetentionSeconds: 1 });
    assert.deepEqual(await sweeper.sweepUploads(), { discarded: [a!.id], deleted: [orphan] });
    assert.deepEqual(await sweeper.deadLetters(10), []);
    assert.ok(await upload(a!.sha256), 'the upload a new job of the same content needs is kept');
    assert.ok(await upload(b!.sha256), 'a retried job keeps its upload');
    assert.equal(await upload(orphan), false);
    await assert.rejects(sweeper.retryDeadLetter(a!.id), /No dead-lettered recognition job/);

    gate.release();
    assert.equal((await c.final(again.job.id)).status, 'completed');
    assert.equal((await c.final(b!.id)).status, 'completed');
    // finished work needs no upload: with nothing left, a sweep finds nothing more to do
    assert.deepEqual(await sweeper.sweepUploads(), { discarded: [], deleted: [] });
    assert.equal(await upload(a!.sha256), false);
    assert.equal(await upload(b!.sha256), false);
  } finally {
    gate.release();
    await c.dispose();
  }
});
