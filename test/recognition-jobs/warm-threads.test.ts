// Warm conversion threads and batched checkpoints (ADR 0096): a thread that answered is used again, one that
// failed unexpectedly is not; checkpoints are written a batch at a time, and a failed write stops the
// conversion at its next page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { convertDocument, isRecognitionError, type PageCheckpoint } from '../../src/recognition/index.js';
import { closeWarmThreads, threadedConvert } from '../../src/recognition-jobs/index.js';
import { CheckpointBatch } from '../../src/recognition-jobs/checkpoint-batch.js';
import { sampleArticle } from '../recognition/helpers/pdf-builder.js';
import { needs } from '../recognition/helpers/tools.js';
import { LocalProcessRunner } from '../../src/adapters/process/local-process-runner.js';

// A thread speaking the conversion protocol: answers with its thread id; byte 0 is a converter error,
// byte 2 an unexpected one.
const ECHO = `import { parentPort, threadId } from 'node:worker_threads';
parentPort.on('message', (m) => {
  if (m.type !== 'convert') return;
  const b = m.request.bytes[0];
  if (b === 0) parentPort.postMessage({ type: 'error', id: m.id, error: { name: 'RecognitionError', code: 'damaged_document', message: 'unreadable' } });
  else if (b === 2) parentPort.postMessage({ type: 'error', id: m.id, error: { name: 'TypeError', message: 'a bug' } });
  else setTimeout(() => parentPort.postMessage({ type: 'done', id: m.id, result: { markdown: String(threadId) } }), 20);
});
`;

test('warm threads: a thread that answered converts the next document; one that failed unexpectedly is replaced', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-warm-'));
  try {
    writeFileSync(join(dir, 'echo.mjs'), ECHO);
    const convert = threadedConvert(pathToFileURL(join(dir, 'echo.mjs')));
    const run = async (b: number): Promise<string> => (await convert(new Uint8Array([b]), {} as Parameters<typeof convert>[1])).markdown;
    const first = await run(1);
    assert.equal(await run(1), first, 'the same thread converts the second document');
    const err = await run(0).then(() => null, (e: unknown) => e);
    assert.ok(isRecognitionError(err) && err.code === 'damaged_document');
    assert.equal(await run(1), first, 'a converter error leaves the thread in use');
    await assert.rejects(run(2), /a bug/);
    const next = await run(1);
    assert.notEqual(next, first, 'after an unexpected error the thread is terminated and a new one starts');
    // Two conversions at once run on two threads.
    const both = await Promise.all([run(1), run(1)]);
    assert.notEqual(both[0], both[1]);
  } finally {
    await closeWarmThreads();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('warm threads: consecutive real conversions give the in-process result', { skip: await needs('mutool') }, async () => {
  try {
    const convert = threadedConvert(new URL('../../src/recognition-worker.js', import.meta.url));
    const expected = (await convertDocument(sampleArticle(3), { runner: new LocalProcessRunner() })).markdown;
    for (let i = 0; i < 2; i++) {
      const pages: number[] = [];
      const r = await convert(sampleArticle(3), { runner: new LocalProcessRunner(), onPage: (c) => void pages.push(c.page) });
      assert.equal(r.markdown, expected);
      assert.deepEqual(pages, [1, 2, 3]);
    }
  } finally {
    await closeWarmThreads();
  }
});

const cp = (page: number): PageCheckpoint => ({ page, pageCount: 10 }) as unknown as PageCheckpoint;

test('checkpoint batches: written when full or after the delay; a failed write stops the next page; discard drops the rest', async () => {
  const writes: number[][] = [];
  const batch = new CheckpointBatch(async (b) => void writes.push(b.map((c) => c.page)), 3, 40);
  await batch.add(cp(1));
  await batch.add(cp(2));
  assert.deepEqual(writes, [], 'nothing is written before the batch is due');
  await batch.add(cp(3));
  assert.deepEqual(writes, [[1, 2, 3]], 'a full batch is written before the converter goes on');
  await batch.add(cp(4));
  await sleep(120);
  assert.deepEqual(writes, [[1, 2, 3], [4]], 'a partial batch is written after the delay');
  await batch.add(cp(5));
  await batch.discard();
  await sleep(80);
  assert.deepEqual(writes, [[1, 2, 3], [4]], 'discarded pages are never written');

  let fail = true;
  const failing = new CheckpointBatch(async () => {
    if (fail) throw new Error('disk full');
  }, 2, 1000);
  await failing.add(cp(1));
  await assert.rejects(failing.add(cp(2)), /disk full/);
  fail = false;
  await assert.rejects(failing.add(cp(3)), /disk full/, 'after a failed write every later page is refused');
  // Every page at once (pages: 1): each add waits for its own write.
  const each: number[] = [];
  const single = new CheckpointBatch(async (b) => {
    await sleep(5);
    each.push(b[0]!.page);
  }, 1, 0);
  await single.add(cp(7));
  assert.deepEqual(each, [7]);
});
