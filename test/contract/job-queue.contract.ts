// The JobQueue contract (ports/job-queue.ts): one suite run against the store's leases (SQLite, the
// all-in-one default) and pg-boss (PostgreSQL). The fixture gives fresh storage, the job rows' store, and
// queues for workers of one cluster; the suite plays the service's part (claims rows, finishes them).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Clock } from '../../src/ports/clock.js';
import type { JobQueue, QueuedJob } from '../../src/ports/job-queue.js';
import type { RecognitionJobStore } from '../../src/ports/recognition-job-store.js';
import type { Storage } from '../../src/ports/storage.js';
import type { StorageFixture } from '../helpers/storage.js';
import { waitFor } from '../helpers/wait.js';

export const LEASE_SECONDS = 2;

export interface QueueFixture {
  fixture: StorageFixture;
  jobs: RecognitionJobStore;
  /** A worker's queue (each call: another worker), started. */
  queue(): Promise<JobQueue>;
  /** Moves the clock of the row leases on (seconds). */
  advance(seconds: number): void;
  /**
   * The queue's own leases run on a clock the fixture cannot move (pg-boss: the database's): a lease runs
   * out only in real time. Without it, moving the fixture's clock is enough and nothing sleeps.
   */
  realTimeLeases?: boolean;
  clock: Clock;
  dispose(): Promise<void>;
}

const SHA = (c: string) => c.repeat(64);

export function jobQueueContract(label: string, open: () => Promise<QueueFixture>): void {
  const it = (name: string, fn: (f: QueueFixture, s: Storage) => Promise<void>) =>
    test(name, { timeout: 120_000 }, async () => {
      const f = await open();
      try {
        await fn(f, f.fixture.storage);
      } finally {
        await f.dispose();
      }
    });
  const now = (f: QueueFixture) => Math.floor(f.clock.nowMs() / 1000);
  /** A lease (and, for pg-boss, an attempt) runs out: the clock moves on, and real time too where it must. */
  const leaseRunsOut = async (f: QueueFixture): Promise<void> => {
    f.advance(LEASE_SECONDS + 1);
    if (f.realTimeLeases) await new Promise((r) => setTimeout(r, (LEASE_SECONDS + 1) * 1000));
  };
  /** Creates the job row and queues it. */
  const submit = async (f: QueueFixture, q: JobQueue, id: string, accountId: number, sha: string): Promise<QueuedJob> => {
    await f.jobs.createOrGet({ id, accountId, sha256: sha, format: 'pdf', bytes: 10, createdAt: now(f) });
    const job = { id, key: sha };
    await q.enqueue(job);
    return job;
  };
  /** What a worker gets to run now: its sweep's jobs and the queue's, rows claimed as the service does. */
  const work = async (f: QueueFixture, q: JobQueue, held: ReadonlySet<string> = new Set()): Promise<string[]> => {
    const r = await q.recover(held);
    const got = [...r.run, ...(await q.take(10))];
    const claimed = await f.jobs.claim(got.map((j) => j.id), q.worker, now(f), now(f) + LEASE_SECONDS);
    return [...new Set(claimed)].sort();
  };
  /** Waits (generously) until the worker gets `id` to run. */
  const eventually = async (f: QueueFixture, q: JobQueue, id: string, what: string): Promise<void> => {
    await waitFor(what, async () => (await work(f, q)).includes(id), { ceilingMs: 60_000, intervalMs: 200 });
  };

  describe(`job queue contract: ${label}`, () => {
    it('a queued job is delivered to one worker once, even when queued twice', async (f, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const w1 = await f.queue();
      const w2 = await f.queue();
      const job = await submit(f, w1, 'rj_one', a.id, SHA('a'));
      await w1.enqueue(job);
      const first = await work(f, w1);
      assert.deepEqual(first, ['rj_one']);
      assert.deepEqual(await work(f, w2), [], 'a job held by a live worker is not delivered to another');
      assert.deepEqual(await work(f, w1, new Set(first)), [], 'nor again to the same worker');
    });

    it('a finished job leaves the queue: nobody gets it again', async (f, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const w1 = await f.queue();
      const w2 = await f.queue();
      await submit(f, w1, 'rj_done', a.id, SHA('b'));
      assert.deepEqual(await work(f, w1), ['rj_done']);
      await f.jobs.update('rj_done', { status: 'completed', updatedAt: now(f) }, ['pending', 'processing']);
      await w1.done('rj_done');
      await f.jobs.release(w1.worker);
      await leaseRunsOut(f);
      assert.deepEqual(await work(f, w2), []);
      assert.deepEqual(await w2.deadLetters(10), []);
    });

    it("a worker that stops renewing its lease (killed) loses the job to another worker", async (f, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const w1 = await f.queue();
      const w2 = await f.queue();
      await submit(f, w1, 'rj_lost', a.id, SHA('c'));
      assert.deepEqual(await work(f, w1), ['rj_lost']);
      // w1 dies: no renewal, no release. Its lease runs out (and, for pg-boss, the attempt is a lease old).
      await leaseRunsOut(f);
      await eventually(f, w2, 'rj_lost', 'the job of the dead worker reached the other worker');
      assert.deepEqual(await work(f, w1), [], 'and only that one');
    });

    it('a job whose worker dies on every attempt is dead-lettered after the last (without retries: taken over each time)', async (f, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const first = await f.queue();
      await submit(f, first, 'rj_reaper', a.id, SHA('9'));
      assert.deepEqual(await work(f, first), ['rj_reaper']);
      // the fixture's pg-boss queue allows 1 retry: two attempts, each worker killed in turn
      const second = await f.queue();
      await leaseRunsOut(f);
      await eventually(f, second, 'rj_reaper', 'the second attempt reached the second worker');
      await leaseRunsOut(f);
      const third = await f.queue();
      const r = await third.recover(new Set());
      if (!third.retries) {
        assert.deepEqual(r.run.map((j) => j.id), ['rj_reaper']);
        assert.deepEqual(r.dead, []);
        return;
      }
      assert.deepEqual(r.dead.map((d) => [d.id, d.reason.code]), [['rj_reaper', 'worker_lost']]);
      assert.deepEqual(await work(f, third), [], 'a dead-lettered job is not delivered');
      const letters = await third.deadLetters(10);
      assert.deepEqual(letters.map((l) => [l.id, l.reason.code, l.attempts]), [['rj_reaper', 'worker_lost', 2]]);
    });

    it('a graceful release gives the job to another worker at once', async (f, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const w1 = await f.queue();
      const w2 = await f.queue();
      await submit(f, w1, 'rj_rel', a.id, SHA('d'));
      assert.deepEqual(await work(f, w1), ['rj_rel']);
      await w1.release(['rj_rel']);
      await f.jobs.release(w1.worker);
      await eventually(f, w2, 'rj_rel', 'the released job reached the other worker');
    });

    it('a final failure is dead (retries: kept in the dead letters with its reason, and retried on demand)', async (f, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const w1 = await f.queue();
      await submit(f, w1, 'rj_poison', a.id, SHA('e'));
      assert.deepEqual(await work(f, w1), ['rj_poison']);
      assert.equal(await w1.fail('rj_poison', { code: 'conversion_crashed', message: 'stopped the service 2 times' }, true), 'dead');
      await f.jobs.update('rj_poison', { status: 'failed', error: { code: 'conversion_crashed', message: 'x' }, updatedAt: now(f) }, ['pending', 'processing']);
      const letters = await w1.deadLetters(10);
      if (!w1.retries) {
        assert.deepEqual(letters, []);
        assert.equal(await w1.retryDead('rj_poison'), false);
        return;
      }
      assert.equal(letters.length, 1);
      assert.equal(letters[0]!.id, 'rj_poison');
      assert.equal(letters[0]!.key, SHA('e'));
      assert.deepEqual(letters[0]!.reason, { code: 'conversion_crashed', message: 'stopped the service 2 times' });
      assert.equal(letters[0]!.attempts, 1);
      // the operator retries: the row back to pending, the job on the queue with fresh attempts
      await f.jobs.update('rj_poison', { status: 'pending', error: null, updatedAt: now(f) }, ['failed']);
      assert.equal(await w1.retryDead('rj_poison'), true);
      assert.deepEqual(await w1.deadLetters(10), []);
      const w2 = await f.queue();
      await f.jobs.release(w1.worker);
      await eventually(f, w2, 'rj_poison', 'the retried job is delivered again');
      assert.equal(await w1.retryDead('rj_poison'), false, 'a dead letter is retried once');
    });

    it('a failed attempt is retried until the limit, then dead-lettered (without retries: dead at once)', async (f, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const w = await f.queue();
      await submit(f, w, 'rj_flaky', a.id, SHA('f'));
      assert.deepEqual(await work(f, w), ['rj_flaky']);
      const reason = { code: 'internal', message: 'the converter threw' };
      if (!w.retries) {
        assert.equal(await w.fail('rj_flaky', reason), 'dead');
        return;
      }
      // the fixture's pg-boss queue allows 1 retry
      assert.equal(await w.fail('rj_flaky', reason), 'retry');
      await f.jobs.claim(['rj_flaky'], w.worker, now(f), now(f) - 1); // the service lets its claim go
      await eventually(f, w, 'rj_flaky', 'the retry is delivered after its backoff');
      assert.equal(await w.fail('rj_flaky', reason), 'dead');
      const letters = await w.deadLetters(10);
      assert.deepEqual(letters.map((l) => [l.id, l.reason, l.attempts]), [['rj_flaky', reason, 2]]);
    });

    it('a dead letter discarded is gone for good: neither listed nor retried (ADR 0296)', async (f, s) => {
      const a = await s.accounts.create({ email: 'ada@example.org' });
      const w = await f.queue();
      await submit(f, w, 'rj_gone', a.id, SHA('9'));
      assert.deepEqual(await work(f, w), ['rj_gone']);
      assert.equal(await w.fail('rj_gone', { code: 'internal', message: 'broke' }, true), 'dead');
      if (!w.retries) {
        assert.equal(await w.discardDead('rj_gone'), false, 'no dead letters are kept');
        return;
      }
      assert.equal((await w.deadLetters(10)).length, 1);
      assert.equal(await w.discardDead('rj_gone'), true);
      assert.deepEqual(await w.deadLetters(10), []);
      assert.equal(await w.retryDead('rj_gone'), false);
      assert.equal(await w.discardDead('rj_gone'), false);
    });
  });
}
