// The recognition job store contract (ports/recognition-job-store.ts): one suite run against the SQLite
// and PostgreSQL stores. Callers pass a factory that opens fresh, empty storage.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RecognitionJobStore } from '../../src/ports/recognition-job-store.js';
import type { Storage } from '../../src/ports/storage.js';
import type { StorageFixture } from '../helpers/storage.js';

export type JobStoreFactory = () => Promise<{ fixture: StorageFixture; jobs: RecognitionJobStore }>;

const SHA_A = 'a'.repeat(64);
const SHA_B = 'b'.repeat(64);

export function recognitionJobStoreContract(label: string, open: JobStoreFactory): void {
  const it = (name: string, fn: (jobs: RecognitionJobStore, s: Storage) => Promise<void>) =>
    test(name, async () => {
      const { fixture, jobs } = await open();
      try {
        await fn(jobs, fixture.storage);
      } finally {
        await fixture.dispose();
      }
    });
  const job = (id: string, accountId: number, sha256 = SHA_A, createdAt = 100) => ({ id, accountId, sha256, format: 'pdf', bytes: 1234, createdAt });

  describe(`recognition job store contract: ${label}`, () => {
    it('createOrGet inserts a pending job; get returns it with every field', async (jobs, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const r = await jobs.createOrGet(job('rj_1', a.id));
      assert.equal(r.created, true);
      const expected = {
        id: 'rj_1', accountId: a.id, sha256: SHA_A, format: 'pdf', bytes: 1234, status: 'pending', pagesTotal: null, pagesDone: 0,
        error: null, chargedCredits: null, createdAt: 100, updatedAt: 100, worker: null, leaseUntil: null,
      };
      assert.deepEqual(r.job, expected);
      assert.deepEqual(await jobs.get('rj_1'), expected);
      assert.equal(await jobs.get('rj_missing'), null);
    });

    it('the same account and content give the live job back; another account gets its own', async (jobs, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const b = await s.accounts.create({ email: 'bob@example.org' });
      await jobs.createOrGet(job('rj_1', a.id));
      const again = await jobs.createOrGet(job('rj_2', a.id));
      assert.equal(again.created, false);
      assert.equal(again.job.id, 'rj_1');
      assert.equal(await jobs.get('rj_2'), null);
      const other = await jobs.createOrGet(job('rj_3', b.id));
      assert.equal(other.created, true);
      const otherContent = await jobs.createOrGet(job('rj_4', a.id, SHA_B));
      assert.equal(otherContent.created, true);
      // Completed, failed and cancelled jobs free the slot (the service returns a completed job whose
      // result is current itself, ADR 0387); latestCompletedFor finds the newest completed one.
      assert.equal(await jobs.latestCompletedFor(a.id, SHA_A), null);
      await jobs.update('rj_1', { status: 'completed', updatedAt: 101 });
      assert.equal((await jobs.latestCompletedFor(a.id, SHA_A))!.id, 'rj_1');
      assert.equal(await jobs.latestCompletedFor(b.id, SHA_A), null);
      const upgraded = await jobs.createOrGet(job('rj_5', a.id));
      assert.equal(upgraded.created, true);
      assert.equal((await jobs.createOrGet(job('rj_7', a.id))).job.id, 'rj_5', 'the unfinished job holds the slot');
      assert.equal((await jobs.latestCompletedFor(a.id, SHA_A))!.id, 'rj_1');
      await jobs.update('rj_5', { status: 'completed', updatedAt: 104 });
      assert.equal((await jobs.latestCompletedFor(a.id, SHA_A))!.id, 'rj_5');
      await jobs.update('rj_4', { status: 'failed', error: { code: 'damaged_document', message: 'no page tree' }, updatedAt: 102 });
      const fresh = await jobs.createOrGet(job('rj_6', a.id, SHA_B, 103));
      assert.equal(fresh.created, true);
      assert.equal((await jobs.latestFor(a.id, SHA_B))!.id, 'rj_6');
      assert.equal((await jobs.latestFor(b.id, SHA_B)), null);
    });

    it('listForAccount: the account\'s jobs newest first, paged by the id of the last one seen', async (jobs, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const b = await s.accounts.create({ email: 'bob@example.org' });
      for (let i = 1; i <= 5; i++) await jobs.createOrGet(job(`rj_${i}`, a.id, String(i).repeat(64), 100 + i));
      await jobs.createOrGet(job('rj_b', b.id, SHA_A, 200));
      assert.deepEqual((await jobs.listForAccount(a.id, 3)).map((j) => j.id), ['rj_5', 'rj_4', 'rj_3']);
      assert.deepEqual((await jobs.listForAccount(a.id, 3, 'rj_3')).map((j) => j.id), ['rj_2', 'rj_1']);
      assert.deepEqual(await jobs.listForAccount(a.id, 3, 'rj_b'), [], 'another account\'s job is no cursor');
      assert.deepEqual(await jobs.listForAccount(a.id, 3, 'rj_missing'), []);
      assert.deepEqual((await jobs.listForAccount(b.id, 10)).map((j) => j.id), ['rj_b']);
    });

    it('concurrent identical submissions create exactly one job', async (jobs, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => jobs.createOrGet(job(`rj_${i}`, a.id))));
      assert.equal(results.filter((r) => r.created).length, 1);
      assert.equal(new Set(results.map((r) => r.job.id)).size, 1);
    });

    it('update applies a patch, only from the given states; unfinished lists pending and processing oldest first', async (jobs, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      await jobs.createOrGet(job('rj_1', a.id, SHA_A, 100));
      await jobs.createOrGet(job('rj_2', a.id, SHA_B, 100));
      const p = await jobs.update('rj_1', { status: 'processing', pagesTotal: 12, pagesDone: 3, updatedAt: 105 }, ['pending']);
      assert.deepEqual({ ...p!, sha256: undefined }, { ...(await jobs.get('rj_1'))!, sha256: undefined });
      assert.equal(p!.status, 'processing');
      assert.equal(p!.pagesTotal, 12);
      assert.equal(p!.pagesDone, 3);
      assert.equal(p!.updatedAt, 105);
      assert.equal(await jobs.update('rj_1', { status: 'processing', updatedAt: 106 }, ['pending']), null, 'not pending any more');
      assert.equal(await jobs.update('rj_missing', { status: 'failed', updatedAt: 106 }), null);
      assert.deepEqual((await jobs.unfinished()).map((j) => j.id), ['rj_1', 'rj_2']);
      const done = await jobs.update('rj_1', { status: 'completed', pagesDone: 12, chargedCredits: 12, error: null, updatedAt: 107 }, ['pending', 'processing']);
      assert.equal(done!.chargedCredits, 12);
      const failed = await jobs.update('rj_2', { status: 'failed', error: { code: 'encrypted_document', message: 'a password is needed' }, updatedAt: 108 });
      assert.deepEqual(failed!.error, { code: 'encrypted_document', message: 'a password is needed' });
      assert.deepEqual(await jobs.unfinished(), []);
    });

    it('claims: free, expired or own jobs are claimed; live claims of others and finished jobs are not; release frees them', async (jobs, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      await jobs.createOrGet(job('rj_1', a.id, SHA_A));
      await jobs.createOrGet(job('rj_2', a.id, SHA_B));
      await jobs.createOrGet(job('rj_3', a.id, 'c'.repeat(64)));
      await jobs.update('rj_3', { status: 'completed', updatedAt: 101 });
      assert.deepEqual(await jobs.claim(['rj_1', 'rj_2', 'rj_3', 'rj_missing'], 'w1', 100, 160), ['rj_1', 'rj_2']);
      const held = await jobs.get('rj_1');
      assert.equal(held!.worker, 'w1');
      assert.equal(held!.leaseUntil, 160);
      assert.deepEqual(await jobs.claim(['rj_1'], 'w2', 150, 210), [], 'a live claim of another worker');
      assert.deepEqual(await jobs.claim(['rj_1'], 'w1', 150, 210), ['rj_1'], 'a renewal');
      assert.equal((await jobs.get('rj_1'))!.leaseUntil, 210);
      assert.deepEqual(await jobs.claim(['rj_1', 'rj_2'], 'w2', 211, 270), ['rj_1', 'rj_2'], 'expired claims are taken over');
      assert.deepEqual(await jobs.claim([], 'w2', 211, 270), []);
      await jobs.release('w2');
      assert.equal((await jobs.get('rj_2'))!.worker, null);
      assert.deepEqual(await jobs.claim(['rj_2'], 'w3', 212, 272), ['rj_2']);
      // Concurrent claims of one free job by two workers: exactly one wins.
      await jobs.release('w3');
      const [x, y] = await Promise.all([jobs.claim(['rj_2'], 'w4', 300, 360), jobs.claim(['rj_2'], 'w5', 300, 360)]);
      assert.equal(x.length + y.length, 1);
    });

    it('checkpoints are kept per content, pipeline and page; replaced on rewrite; deleted by content', async (jobs) => {
      await jobs.putCheckpoint(SHA_A, 'p/1', 2, '{"page":2}');
      await jobs.putCheckpoint(SHA_A, 'p/1', 1, '{"page":1}');
      await jobs.putCheckpoint(SHA_A, 'p/2', 1, '{"other":1}');
      await jobs.putCheckpoint(SHA_B, 'p/1', 1, '{"b":1}');
      await jobs.putCheckpoint(SHA_A, 'p/1', 2, '{"page":2,"again":true}');
      assert.deepEqual(await jobs.checkpoints(SHA_A, 'p/1'), [
        { page: 1, data: '{"page":1}' },
        { page: 2, data: '{"page":2,"again":true}' },
      ]);
      await jobs.deleteCheckpoints(SHA_A);
      assert.deepEqual(await jobs.checkpoints(SHA_A, 'p/1'), []);
      assert.deepEqual(await jobs.checkpoints(SHA_A, 'p/2'), []);
      assert.deepEqual(await jobs.checkpoints(SHA_B, 'p/1'), [{ page: 1, data: '{"b":1}' }]);
    });

    it('results are cached by content and pipeline; the first write wins; text survives as written', async (jobs) => {
      assert.equal(await jobs.getResult(SHA_A, 'p/1'), null);
      const r = { sha256: SHA_A, pipeline: 'p/1', markdown: '# Título\n\nΑλφα — ok 😀', report: '{"score":1}', pages: 3, createdAt: 200 };
      await jobs.putResult(r);
      await jobs.putResult({ ...r, markdown: 'second', createdAt: 201 });
      assert.deepEqual(await jobs.getResult(SHA_A, 'p/1'), r);
      assert.equal(await jobs.getResult(SHA_A, 'p/2'), null);
      // Without a pipeline: the newest result of any version.
      assert.deepEqual(await jobs.getResult(SHA_A), r);
      const newer = { ...r, pipeline: 'p/2', markdown: 'v2', createdAt: 300 };
      await jobs.putResult(newer);
      assert.deepEqual(await jobs.getResult(SHA_A), newer);
      assert.equal(await jobs.getResult(SHA_B), null);
    });
  });
}
