// The conversion pool alone: FIFO order, the worker limit, jobs joining a conversion of the same content,
// removal of queued and running work, and close() aborting what runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { ConversionPool, type ConversionRun } from '../../src/recognition-jobs/index.js';

/** A run function whose conversions finish when the test says so. */
function controllable() {
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const seen = new Map<string, readonly string[]>();
  const run = (r: ConversionRun) =>
    new Promise<readonly string[]>((resolve, reject) => {
      started.push(r.key);
      r.signal.addEventListener('abort', () => reject(new Error(`aborted ${r.key}`)), { once: true });
      finish.set(r.key, () => {
        seen.set(r.key, r.jobs());
        resolve(r.jobs());
      });
    });
  return { started, finish, seen, run };
}

test('conversions start in FIFO order, at most `workers` at once; a job for content already queued or running joins it', async () => {
  const c = controllable();
  const errors: unknown[] = [];
  const pool = new ConversionPool(2, c.run, (e) => errors.push(e));
  pool.add('A', 'j1');
  pool.add('B', 'j2');
  pool.add('C', 'j3');
  pool.add('A', 'j4'); // joins the running A
  pool.add('C', 'j5'); // joins the queued C
  await tick();
  assert.deepEqual(c.started, ['A', 'B']);
  assert.deepEqual(pool.stats(), { queued: 1, running: 2, jobs: 5 });
  c.finish.get('B')!();
  await tick();
  await tick();
  assert.deepEqual(c.started, ['A', 'B', 'C']);
  c.finish.get('A')!();
  c.finish.get('C')!();
  await pool.idle();
  assert.deepEqual(c.seen.get('A'), ['j1', 'j4']);
  assert.deepEqual(c.seen.get('C'), ['j3', 'j5']);
  assert.deepEqual(pool.stats(), { queued: 0, running: 0, jobs: 0 });
  assert.deepEqual(errors, []);
});

test('a job the conversion did not report as finished gets another run; removing the last job aborts or unqueues', async () => {
  const c = controllable();
  const errors: unknown[] = [];
  const pool = new ConversionPool(1, c.run, (e) => errors.push(e));
  pool.add('A', 'j1');
  pool.add('B', 'j2');
  await tick();
  pool.remove('B', 'j2'); // queued: leaves the queue
  assert.deepEqual(pool.stats(), { queued: 0, running: 1, jobs: 1 });
  pool.remove('A', 'j1'); // running: aborted
  assert.equal(pool.abortCause('A'), 'unwanted');
  await pool.idle();
  assert.equal(errors.length, 1);
  assert.deepEqual(c.started, ['A']);
  // A run that resolves with fewer jobs than were waiting (b joined after a's run began and the run
  // reported only a): the rest run again.
  const runs: string[][] = [];
  const spy = new ConversionPool(1, async (r) => {
    runs.push([...r.jobs()]);
    return runs.length === 1 ? r.jobs().slice(0, 1) : r.jobs();
  }, () => {});
  spy.add('X', 'a');
  spy.add('X', 'b');
  await spy.idle();
  assert.deepEqual(runs, [['a'], ['b']]);
});

test('close aborts running conversions (cause shutdown), drops the queue and takes no more work', async () => {
  const c = controllable();
  const pool = new ConversionPool(1, c.run, () => {});
  pool.add('A', 'j1');
  pool.add('B', 'j2');
  await tick();
  const causes: (string | null)[] = [];
  const closing = pool.close();
  causes.push(pool.abortCause('A'));
  await closing;
  assert.deepEqual(causes, ['shutdown']);
  assert.deepEqual(c.started, ['A']);
  pool.add('C', 'j3');
  await tick();
  assert.deepEqual(c.started, ['A']);
  assert.throws(() => new ConversionPool(0, c.run, () => {}), RangeError);
});
