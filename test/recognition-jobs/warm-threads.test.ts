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
import { closeWarmThreads, serveConversion, threadedConvert } from '../../src/recognition-jobs/index.js';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
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

/** Messages of one side of a channel, read as they come. */
function inbox(port: MessagePort): { all: { type: string; id: number; checkpoint?: PageCheckpoint; error?: { message: string } }[]; next: (n: number) => Promise<void> } {
  const all: { type: string; id: number; checkpoint?: PageCheckpoint; error?: { message: string } }[] = [];
  port.on('message', (m) => all.push(m));
  return {
    all,
    // Waits until `n` messages have arrived (or fails after 20 s).
    next: async (n) => {
      for (let i = 0; all.length < n; i++) {
        assert.ok(i < 2000, `expected ${n} messages, got ${all.length}`);
        await sleep(10);
      }
    },
  };
}

test('checkpoint window: the thread hands over pages without waiting, never more than the window unanswered; a nack stops it at its next page', { skip: await needs('mutool') }, async () => {
  const runner = new LocalProcessRunner();
  // Pipelined: with a window of 2, pages 1 and 2 go without an answer and the converter waits for one.
  {
    const { port1, port2 } = new MessageChannel();
    try {
      void serveConversion(port1, { warm: true }, runner);
      const box = inbox(port2);
      port2.postMessage({ type: 'convert', id: 7, request: { bytes: sampleArticle(5) }, window: 2 });
      await box.next(2);
      await sleep(300); // time enough to convert every page, were it not held
      assert.deepEqual(box.all.map((m) => [m.type, m.checkpoint?.page]), [['page', 1], ['page', 2]], 'two pages unanswered, the third waits');
      port2.postMessage({ type: 'ack', id: 7 });
      await box.next(3);
      await sleep(200);
      assert.equal(box.all.length, 3, 'one answer lets one more page go');
      for (let i = 0; i < 3; i++) port2.postMessage({ type: 'ack', id: 7 });
      await box.next(6);
      assert.deepEqual(box.all.map((m) => m.type), ['page', 'page', 'page', 'page', 'page', 'done']);
      assert.deepEqual(box.all.slice(0, 5).map((m) => m.checkpoint!.page), [1, 2, 3, 4, 5], 'pages in order, none twice');
    } finally {
      port1.close();
      port2.close();
    }
  }
  // A nack (the parent could not store a page) rejects the next page: the conversion fails with it.
  {
    const { port1, port2 } = new MessageChannel();
    try {
      void serveConversion(port1, { warm: true }, runner);
      const box = inbox(port2);
      port2.postMessage({ type: 'convert', id: 8, request: { bytes: sampleArticle(5) }, window: 2 });
      await box.next(2);
      port2.postMessage({ type: 'nack', id: 8, message: 'disk full' });
      await box.next(3);
      const last = box.all[box.all.length - 1]!;
      assert.equal(last.type, 'error');
      assert.match(last.error!.message, /storing a checkpoint failed: disk full/);
      assert.deepEqual(box.all.slice(0, -1).map((m) => m.checkpoint?.page), [1, 2], 'no page after the failure is handed over');
    } finally {
      port1.close();
      port2.close();
    }
  }
});

test('checkpoint window (parent side): pages reach onPage in order before the result; a failed last page fails a conversion the thread finished', { skip: await needs('mutool') }, async () => {
  try {
    const convert = threadedConvert(new URL('../../src/recognition-worker.js', import.meta.url));
    const seen: number[] = [];
    const r = await convert(sampleArticle(4), {
      runner: new LocalProcessRunner(),
      onPage: async (c) => {
        await sleep(30); // slower than the thread: the pages queue up in the parent
        seen.push(c.page);
      },
    });
    assert.ok(r.markdown.length > 0);
    assert.deepEqual(seen, [1, 2, 3, 4], 'every page stored, in order, before the conversion answers');
    // The store fails on the last page, after the thread has finished: the conversion fails all the same.
    await assert.rejects(
      convert(sampleArticle(3), {
        runner: new LocalProcessRunner(),
        onPage: async (c) => {
          await sleep(30);
          if (c.page === 3) throw new Error('disk full');
        },
      }),
      /storing a checkpoint failed: disk full/,
    );
  } finally {
    await closeWarmThreads();
  }
});
