// The job service without HTTP: a format whose tools are missing is refused before any job exists (503
// format_unavailable naming the tools), and a store failure while saving a checkpoint fails the job
// (internal, nothing charged) instead of hanging it, also across the worker thread boundary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FsBlobStore } from '../../src/adapters/fs/fs-blob-store.js';
import { SqliteRecognitionJobStore } from '../../src/adapters/sqlite/sqlite-recognition-job-store.js';
import { BillingService } from '../../src/billing/billing-service.js';
import { AppError } from '../../src/domain/errors.js';
import type { Principal } from '../../src/domain/principal.js';
import type { ProcessRunner } from '../../src/ports/process-runner.js';
import type { RecognitionJobStore } from '../../src/ports/recognition-job-store.js';
import { RecognitionJobService, threadedConvert, type ConvertFn } from '../../src/recognition-jobs/index.js';
import { convertDocument } from '../../src/recognition/index.js';
import { openMemorySqlite, tempDir } from '../helpers/storage.js';
import { sampleArticle } from '../recognition/helpers/pdf-builder.js';
import { needs, runner } from '../recognition/helpers/tools.js';

const clock = { nowMs: () => Date.UTC(2026, 10, 1) };
const prices = { search: 0, searchPerHit: 0, documentFetch: 0, documentTokensPerCredit: 1, documentPassages: 0, conversationTurn: 0, conversationEdit: 0, similar: 0, recognitionPerPage: 2 };
const principal = (accountId: number): Principal => ({ accountId, credential: 'api_key', credentialId: 'k', scopes: [], clientId: null, isAgent: false, audience: null });

async function setup(opts: { runner?: ProcessRunner; store?: (s: RecognitionJobStore) => RecognitionJobStore; convert?: ConvertFn; checkpointBatch?: { pages: number; ms: number } } = {}) {
  const fixture = await openMemorySqlite();
  const tmp = tempDir();
  const s = fixture.storage;
  const account = await s.accounts.create({ email: 'ada@example.org' });
  await s.ledger.credit(account.id, 100, 'topup', null, 1);
  const base = new SqliteRecognitionJobStore(s.db);
  const blobs = new FsBlobStore(tmp.dir);
  const service = new RecognitionJobService({
    store: opts.store ? opts.store(base) : base,
    blobs,
    runner: opts.runner ?? runner,
    billing: new BillingService(s.ledger, clock),
    prices,
    clock,
    settings: { workers: 1, maxBytes: 1 << 20, maxPages: 100, ocrLanguages: ['eng'], pageConcurrency: 1, ...(opts.checkpointBatch ? { checkpointBatch: opts.checkpointBatch } : {}) },
    report: () => {},
    convert: opts.convert ?? convertDocument,
  });
  return {
    service,
    account,
    blobs,
    storage: s,
    async dispose() {
      await service.close();
      await fixture.dispose();
      tmp.remove();
    },
  };
}

test('a format whose tools are missing: 503 format_unavailable naming them; other formats still work', async () => {
  const noMutool: ProcessRunner = { createWorkspace: () => runner.createWorkspace(), probe: async (t) => (t === 'mutool' ? null : { tool: t, version: '' }) };
  const t = await setup({ runner: noMutool });
  try {
    await assert.rejects(t.service.submit(principal(t.account.id), sampleArticle(1)), (e: unknown) => {
      assert.ok(e instanceof AppError);
      assert.equal(e.code, 'format_unavailable');
      assert.equal(e.status, 503);
      assert.deepEqual(e.extra.missing_tools, ['mutool']);
      assert.match(e.message, /PDF documents cannot be converted here: mutool is not installed/);
      return true;
    });
    const formats = await t.service.formats();
    assert.deepEqual(formats.map((f) => [f.format, f.available]), [['pdf', false], ['epub', true], ['djvu', true]]);
    assert.equal(await t.storage.ledger.balance(t.account.id), 100);
  } finally {
    await t.dispose();
  }
});

test('a checkpoint the store cannot save fails the job (internal), nothing charged (worker thread)', { skip: await needs('mutool') }, async () => {
  const t = await setup({
    convert: threadedConvert(new URL('../../src/recognition-worker.js', import.meta.url)),
    // Every page written before the next (batches would let a two-page conversion finish before its first write).
    checkpointBatch: { pages: 1, ms: 0 },
    store: (base) => ({
      createOrGet: (j) => base.createOrGet(j),
      get: (id) => base.get(id),
      latestFor: (a, h) => base.latestFor(a, h),
      latestCompletedFor: (a, h) => base.latestCompletedFor(a, h),
      listForAccount: (a, l, b) => base.listForAccount(a, l, b),
      unfinished: () => base.unfinished(),
      update: (id, p, from) => base.update(id, p, from),
      claim: (ids, w, n, u) => base.claim(ids, w, n, u),
      release: (w) => base.release(w),
      putCheckpoint: async () => {
        throw new Error('disk full');
      },
      checkpoints: (h, p) => base.checkpoints(h, p),
      deleteCheckpoints: (h) => base.deleteCheckpoints(h),
      putResult: (r) => base.putResult(r),
      getResult: (h, p) => base.getResult(h, p),
    }),
  });
  try {
    const { job } = await t.service.submit(principal(t.account.id), sampleArticle(2));
    await t.service.idle();
    const after = await t.service.get(principal(t.account.id), job.id);
    assert.equal(after.status, 'failed');
    assert.equal(after.error?.code, 'internal');
    assert.equal(await t.storage.ledger.balance(t.account.id), 100);
    // Another account's view of the job: not found.
    await assert.rejects(t.service.get(principal(t.account.id + 1), job.id), (e: unknown) => e instanceof AppError && e.code === 'not_found');
  } finally {
    await t.dispose();
  }
});

test('two instances on one database: a live claim is respected; a job whose instance stopped renewing is taken over, converted and billed once', { skip: await needs('mutool') }, async () => {
  const fixture = await openMemorySqlite();
  const tmp = tempDir();
  let now = Date.UTC(2026, 10, 1);
  const clock = { nowMs: () => now };
  const s = fixture.storage;
  const account = await s.accounts.create({ email: 'ada@example.org' });
  await s.ledger.credit(account.id, 100, 'topup', null, 1);
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const make = (convert: ConvertFn) =>
    new RecognitionJobService({
      store: new SqliteRecognitionJobStore(s.db),
      blobs: new FsBlobStore(tmp.dir),
      runner,
      billing: new BillingService(s.ledger, clock),
      prices,
      clock,
      settings: { workers: 1, maxBytes: 1 << 20, maxPages: 100, ocrLanguages: ['eng'], pageConcurrency: 1, leaseSeconds: 60 },
      report: () => {},
      convert,
    });
  const a = make(async (bytes, options) => {
    await gate; // a wedged instance: converts only when the test lets it
    return convertDocument(bytes, options);
  });
  const b = make(convertDocument);
  try {
    await a.start();
    const { job } = await a.submit(principal(account.id), sampleArticle(3));
    assert.equal(await b.start(), 0, 'A holds the job');
    await b.sweep();
    assert.equal(b.stats().jobs, 0);
    now += 61_000; // A stopped renewing: its claim runs out
    await b.sweep();
    await b.idle();
    const done = await b.get(principal(account.id), job.id);
    assert.equal(done.status, 'completed');
    assert.equal(done.chargedCredits, 6);
    release();
    await a.idle();
    await a.sweep(); // A notices it lost the job
    assert.equal(a.stats().jobs, 0);
    assert.equal(await s.ledger.balance(account.id), 94, 'billed once');
    assert.equal((await s.ledger.entries(account.id, 10)).filter((e) => e.operation === 'recognition').length, 1);
  } finally {
    release();
    await a.close();
    await b.close();
    await fixture.dispose();
    tmp.remove();
  }
});

test('a completed conversion drops its upload; later jobs of the same content complete from the cached result', { skip: await needs('mutool') }, async () => {
  const t = await setup();
  try {
    const other = await t.storage.accounts.create({ email: 'grace@example.org' });
    await t.storage.ledger.credit(other.id, 100, 'topup', null, 1);
    const bytes = sampleArticle(2);
    const first = await t.service.submit(principal(t.account.id), bytes);
    await t.service.idle();
    assert.equal((await t.service.get(principal(t.account.id), first.job.id)).status, 'completed');
    assert.equal(await t.blobs.stat(`recognition/${first.job.sha256}`), null, 'the upload is gone once the result is cached');
    const second = await t.service.submit(principal(other.id), bytes);
    await t.service.idle();
    const done = await t.service.get(principal(other.id), second.job.id);
    assert.equal(done.status, 'completed');
    assert.equal(done.chargedCredits, 4, 'billed once for this account: 2 pages at 2 credits');
    assert.equal((await t.service.result(principal(other.id), second.job.id)).markdown, (await t.service.result(principal(t.account.id), first.job.id)).markdown);
    assert.equal(await t.blobs.stat(`recognition/${first.job.sha256}`), null);
  } finally {
    await t.dispose();
  }
});

// Issue 25: a deeply nested EPUB overflowed the HTML parser's stack (job `internal`) and its upload was
// kept; uploads of jobs that failed `internal` or `conversion_timeout` were kept too.
import { buildEpub } from '../recognition/helpers/epub-builder.js';
import { RecognitionError } from '../../src/recognition/index.js';

const nested = (depth: number) => buildEpub({ title: 'Deep', chapters: [{ file: 'deep.xhtml', body: `${'<div>'.repeat(depth)}<p>deep text</p>${'</div>'.repeat(depth)}` }] });

test('a deeply nested EPUB fails with too_deeply_nested (no stack overflow), and its upload is deleted', async () => {
  const t = await setup();
  try {
    const r = await t.service.submit(principal(t.account.id), nested(50_000));
    await t.service.idle();
    const job = await t.service.get(principal(t.account.id), r.job.id);
    assert.equal(job.status, 'failed');
    assert.equal(job.error?.code, 'too_deeply_nested', JSON.stringify(job.error));
    assert.match(job.error!.message, /nest/);
    assert.equal(await t.blobs.stat(`recognition/${r.job.sha256}`), null, 'the upload is gone');
    assert.equal(await t.storage.ledger.balance(t.account.id), 100);
  } finally {
    await t.dispose();
  }
});

for (const [code, thrown] of [
  ['internal', () => new Error('a bug in the converter')],
  ['conversion_timeout', () => new RecognitionError('conversion_timeout', 'no page converted within the limits')],
] as const) {
  test(`a job that fails ${code} does not keep its upload`, async () => {
    const t = await setup({
      convert: async () => {
        throw thrown();
      },
    });
    try {
      const r = await t.service.submit(principal(t.account.id), nested(3));
      await t.service.idle();
      const job = await t.service.get(principal(t.account.id), r.job.id);
      assert.equal(job.status, 'failed');
      assert.equal(job.error?.code, code);
      assert.equal(await t.blobs.stat(`recognition/${r.job.sha256}`), null, 'the upload is gone');
    } finally {
      await t.dispose();
    }
  });
}

// ADR 0296: the upload sweep on one node (store leases, SQLite, uploads in the data directory): an upload
// no job needs, older than the retention, goes; the upload of a job still running stays, however old.
test('the upload sweep deletes uploads no job needs once past the retention, never a running job\'s (leases, files)', async () => {
  const fixture = await openMemorySqlite();
  const tmp = tempDir();
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  let entered: () => void = () => {};
  const running = new Promise<void>((r) => (entered = r));
  let skewMs = 0;
  const now = { nowMs: () => Date.now() + skewMs };
  const s = fixture.storage;
  const blobs = new FsBlobStore(tmp.dir);
  const service = new RecognitionJobService({
    store: new SqliteRecognitionJobStore(s.db),
    blobs,
    runner,
    billing: new BillingService(s.ledger, now),
    prices,
    clock: now,
    settings: { workers: 1, maxBytes: 1 << 20, maxPages: 100, ocrLanguages: ['eng'], pageConcurrency: 1, uploadRetentionSeconds: 3600, uploadSweepMs: 0 },
    report: () => {},
    convert: async () => {
      entered();
      await gate;
      throw new RecognitionError('conversion_timeout', 'stopped for the test');
    },
  });
  try {
    const account = await s.accounts.create({ email: 'ada@example.org' });
    await s.ledger.credit(account.id, 100, 'topup', null, 1);
    await service.start();
    const { job } = await service.submit(principal(account.id), sampleArticle(1));
    await running;
    const orphan = 'cd'.repeat(32);
    await blobs.put(`recognition/${orphan}`, new Uint8Array([7]));
    assert.deepEqual(await service.sweepUploads(), { discarded: [], deleted: [] }, 'within the retention nothing goes');
    skewMs = 2 * 3_600_000; // two hours later
    assert.deepEqual(await service.sweepUploads(), { discarded: [], deleted: [orphan] });
    assert.equal(await blobs.stat(`recognition/${orphan}`), null);
    assert.notEqual(await blobs.stat(`recognition/${job.sha256}`), null, 'the running job keeps its upload');
    assert.equal(service.queue.kind, 'leases');
    await assert.rejects(service.discardDeadLetter(job.id), (e: unknown) => e instanceof AppError && e.code === 'conflict');
  } finally {
    release();
    await service.close();
    await fixture.dispose();
    tmp.remove();
  }
});
