// Background work off the request thread (ADR 0180): the builder and merge threads lower their own
// scheduling priority (Linux: setpriority on the thread id), merges run whole on a thread that also
// writes the merged segment, catch-up segments are written by the builder thread, and deletions and
// updates that land while a merge runs are carried into the merged segment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FsIndexDirectory } from '../../src/adapters/fs/index-directory.js';
import { fieldTerms, SearchIndex, SegmentVectors, TrainingState } from '../../src/engine/index.js';
import { currentThreadNice, lowerThreadPriority } from '../../src/adapters/os/thread-priority.js';
import { sharedFsIndexDirectories } from '../../src/adapters/fs/shared-index-directory.js';
import { fsIndexDirectories } from '../../src/adapters/fs/index-directories.js';
import { IndexSet } from '../../src/search/index-set.js';
import { buildSegments, ThreadedSegmentBuilder } from '../../src/search/segment-builder.js';
import { doc } from '../helpers/documents.js';
import { openMemorySqlite, tempDir } from '../helpers/storage.js';
import { ceiling } from '../helpers/wait.js';

const linux = existsSync('/proc/thread-self/stat');
const entry = new URL('../../src/segment-builder-worker.js', import.meta.url);
const clock = { nowMs: () => 1_700_000_000_000 };

/** Nice values of this process's threads (Linux). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

test('lowerThreadPriority changes the calling thread only; bad values and nice 0 change nothing', { skip: !linux && 'no /proc/thread-self on this platform' }, async () => {
  const mainBefore = currentThreadNice();
  // a thread of its own: the test's own priority must not change
  const code = `
    const { parentPort } = require('node:worker_threads');
    import(${JSON.stringify(new URL('../../src/adapters/os/thread-priority.js', import.meta.url).href)}).then((m) => {
      const before = m.currentThreadNice();
      const refused = m.lowerThreadPriority(25);
      const zero = m.lowerThreadPriority(0);
      const r = m.lowerThreadPriority(17);
      parentPort.postMessage({ before, refused, zero, r, after: m.currentThreadNice() });
    });`;
  const w = new Worker(code, { eval: true });
  const msg = await new Promise<{ before: number; refused: { applied: boolean }; zero: { applied: boolean }; r: { applied: boolean; nice: number }; after: number }>((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  });
  await w.terminate();
  assert.equal(msg.refused.applied, false);
  assert.equal(msg.zero.applied, false);
  assert.equal(msg.before, mainBefore);
  assert.deepEqual([msg.r.applied, msg.r.nice, msg.after], [true, 17, 17]);
  assert.equal(currentThreadNice(), mainBefore, 'the calling process keeps its priority');
  assert.equal(lowerThreadPriority(-1).applied, false);
});

test('the builder thread runs at the configured nice value, and at normal priority with 0', { skip: !linux && 'no /proc/thread-self on this platform' }, async () => {
  const before = threadNices().filter((n) => n === 19).length;
  const nice = new ThreadedSegmentBuilder(entry, { nice: 19 });
  const normal = new ThreadedSegmentBuilder(entry, { nice: 0 });
  try {
    // a build answers only after the entry ran, so the priority is set by then
    await nice.build([{ id: 'x', title: 'one document' }]);
    await normal.build([{ id: 'y', title: 'another document' }]);
    assert.equal(threadNices().filter((n) => n === 19).length, before + 1);
    assert.equal(currentThreadNice(), 0);
  } finally {
    await nice.close();
    await normal.close();
  }
});

test('a batch posted in parts builds the same segment as in process, written by the thread under the reserved name', async () => {
  const tmp = tempDir();
  const root = join(tmp.dir, 'index');
  const builder = new ThreadedSegmentBuilder(entry, { nice: 0, indexRoot: root });
  try {
    const docs = Array.from({ length: 1_234 }, (_, i) => ({ id: `p${i}`, title: `Part ${i % 7} of a long batch`, abstract: `words ${i} and more words` }));
    const r = await builder.build(docs, { index: 'documents', name: 'seg-000042.lsg' });
    assert.equal(r.written, true);
    assert.equal(r.segments.length, 1);
    const [local] = buildSegments(docs);
    assert.deepEqual(Buffer.from(r.segments[0]!), Buffer.from(local!));
    assert.deepEqual(readFileSync(join(root, 'documents', 'seg-000042.lsg')), Buffer.from(local!));
    // without a target nothing is written
    const plain = await builder.build(docs.slice(0, 3));
    assert.equal(plain.written, false);
  } finally {
    await builder.close();
    tmp.remove();
  }
});

test('catch-up reads the store in parts and builds one segment per page of up to 5,000 changes', async () => {
  const store = await openMemorySqlite();
  const tmp = tempDir();
  const root = join(tmp.dir, 'index');
  const builder = new ThreadedSegmentBuilder(entry, { nice: 0, indexRoot: root });
  try {
    const docs = store.storage.documents;
    await docs.upsertMany(Array.from({ length: 1_234 }, (_, i) => doc(`c${i}`, { title: `Catch up ${i} ${i === 0 ? 'firstone' : i === 1_233 ? 'lastone' : ''}` })), 1_700_000_000);
    const set = IndexSet.open(sharedFsIndexDirectories(root), docs, clock);
    set.builder = builder;
    const p = await set.catchUp();
    assert.equal(p.applied, 1_234);
    const idx = set.get('documents');
    assert.equal(idx.stats().docs, 1_234);
    assert.equal(idx.stats().segments, 1);
    assert.deepEqual(idx.search({ text: 'firstone' }).hits.map((h) => h.id), ['c0']);
    assert.deepEqual(idx.search({ text: 'lastone' }).hits.map((h) => h.id), ['c1233']);
    // every document rewritten: the older versions are deleted in parts before the new segment lands
    await docs.upsertMany(Array.from({ length: 1_234 }, (_, i) => doc(`c${i}`, { title: `Rewritten ${i}` })), 1_700_000_100);
    await set.catchUp();
    assert.equal(idx.stats().docs, 1_234);
    assert.equal(idx.search({ text: 'catch', limit: 1, exactTotal: true }).totalHits, 0, 'no older version is left');
    assert.equal(idx.search({ text: 'rewritten', limit: 1, exactTotal: true }).totalHits, 1_234);
    set.close();
  } finally {
    await builder.close();
    await store.dispose();
    tmp.remove();
  }
});

test('merges on the merge thread and catch-up on the builder thread write their segments there; changes made while a merge runs are kept', async () => {
  const store = await openMemorySqlite();
  const tmp = tempDir();
  const root = join(tmp.dir, 'index');
  const builder = new ThreadedSegmentBuilder(entry, { nice: 19, indexRoot: root });
  const merger = new ThreadedSegmentBuilder(entry, { nice: 19, indexRoot: root });
  try {
    const docs = store.storage.documents;
    const set = IndexSet.open(sharedFsIndexDirectories(root), docs, clock);
    set.builder = builder;
    // nine catch-ups of 30 documents: nine segments, more than the policy's merge factor (8)
    for (let b = 0; b < 9; b++) {
      await docs.upsertMany(Array.from({ length: 30 }, (_, i) => doc(`d${b}-${i}`, { title: `Batch ${b} item ${i} about hydrogen storage`, abstract: `Common words for batch${b} and caverns.` })), 1_700_000_000 + b);
      await set.catchUp();
    }
    assert.equal(set.get('documents').stats().segments, 9);
    // the builder wrote each segment; the writer adopted it without writing
    const onDisk = () => readdirSync(join(root, 'documents')).filter((f) => /^seg-\d+\.lsg$/.test(f));
    assert.equal(onDisk().length, 9);

    // a merge on the merge thread, with an update, a delete (committed) and a delete (store only,
    // not yet caught up) landing while it runs
    const written: boolean[] = [];
    let released!: () => void;
    const gate = new Promise<void>((r) => (released = r));
    const slow = {
      build: merger.build.bind(merger),
      close: merger.close.bind(merger),
      merge: async (...a: Parameters<ThreadedSegmentBuilder['merge']>) => {
        await gate;
        const r = await merger.merge(...a);
        written.push(r.written);
        return r;
      },
    };
    const merging = set.mergeOffThread(slow);
    await docs.upsertMany([doc('d0-1', { title: 'Rewritten title about zeppelins' })], 1_700_000_100);
    await docs.delete('d0-2', 1_700_000_101);
    await set.catchUp();
    assert.equal(set.get('documents').stats().merging, true);
    released();
    assert.equal(await merging, 'merged');
    assert.deepEqual(written, [true], 'the merge thread wrote the merged segment');
    const idx = set.get('documents');
    assert.equal(idx.stats().merging, false);
    assert.ok(idx.stats().segments < 9);
    const hits = (text: string) => idx.search({ text, limit: 300, exactTotal: true });
    assert.deepEqual(hits('zeppelins').hits.map((h) => h.id), ['d0-1']);
    assert.equal(hits('hydrogen').totalHits, 270 - 2, 'd0-1 lost its old title, d0-2 was deleted');
    assert.ok(!hits('batch0').hits.some((h) => h.id === 'd0-2'));
    assert.equal(idx.stats().docs, 269);
    set.close();

    // reopened from disk (no shared memory): the same index
    const again = IndexSet.open(fsIndexDirectories(root), docs, clock);
    const r = again.get('documents');
    assert.equal(r.stats().docs, 269);
    assert.equal(r.search({ text: 'hydrogen', limit: 1, exactTotal: true }).totalHits, 268);
    assert.deepEqual(r.search({ text: 'zeppelins', limit: 5 }).hits.map((h) => h.id), ['d0-1']);
    // no file left behind beyond what the manifest names
    const manifest = JSON.parse(readFileSync(join(root, 'documents', 'manifest.json'), 'utf8')) as { segments: { name: string }[] };
    assert.deepEqual(onDisk().sort(), manifest.segments.map((s) => s.name).sort());
    again.close();
  } finally {
    await builder.close();
    await merger.close();
    await store.dispose();
    tmp.remove();
  }
});

const crashChild = new URL('./crash-merge-child.js', import.meta.url);
const BATCH = 150;

/** Runs the child until it reported `merges` started merges, kills it (-9) `extraMs` after the last one. */
function runAndKill(root: string, merges: number, extraMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [fileURLToPath(crashChild), root, String(BATCH)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let last = 0;
    let started = 0;
    let killing = false;
    let buf = '';
    p.stdout.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const line of lines) {
        const m = /committed (\d+)/.exec(line);
        if (m) last = Math.max(last, Number(m[1]));
        if (line === 'merge started') started++;
      }
      if (!killing && started >= merges) {
        killing = true;
        setTimeout(() => p.kill('SIGKILL'), extraMs);
      }
    });
    p.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(last) : reject(new Error(`child exited without SIGKILL (${signal})`))));
    setTimeout(() => p.kill('SIGKILL'), ceiling(60_000)).unref(); // only a hung child
  });
}

test('kill -9 while merges run on the merge thread leaves the last commit, whole, and no stray files', async () => {
  const tmp = tempDir();
  const root = join(tmp.dir, 'index');
  try {
    for (const [merges, extraMs] of [
      [2, 0],
      [3, 5],
      [4, 40],
    ] as const) {
      const reported = await runAndKill(root, merges, extraMs);
      const dir = join(root, 'documents');
      const idx = SearchIndex.open(new FsIndexDirectory(dir));
      const cp = Number(idx.checkpoint);
      assert.ok(cp >= reported, `checkpoint ${cp} < reported ${reported}`);
      assert.equal(idx.stats().docs, cp * BATCH);
      assert.equal(idx.search({ text: 'alpha', limit: 1, exactTotal: true }).totalHits, cp * BATCH);
      assert.equal(idx.search({ text: `"document number ${cp * BATCH - 1}"` }).hits.length, 1);
      assert.equal(idx.search({ text: `"document number ${cp * BATCH}"` }).hits.length, 0);
      // opening removed what no commit names (a merge's output written before the kill, temporaries)
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { segments: { name: string }[] };
      assert.deepEqual(readdirSync(dir).filter((f) => /^seg-\d+\.lsg$/.test(f)).sort(), manifest.segments.map((s) => s.name).sort());
      assert.ok(!readdirSync(dir).some((f) => f.endsWith('.tmp')));
      idx.close();
    }
  } finally {
    tmp.remove();
  }
});

test('document vectors of built and merged segments are computed on the threads, the same as in process', async () => {
  const store = await openMemorySqlite();
  const tmp = tempDir();
  const root = join(tmp.dir, 'index');
  const builder = new ThreadedSegmentBuilder(entry, { nice: 0, indexRoot: root });
  const merger = new ThreadedSegmentBuilder(entry, { nice: 0, indexRoot: root });
  const compute = SegmentVectors.compute;
  let computedHere = 0;
  try {
    const docs = store.storage.documents;
    const topics = ['hydrogen storage caverns salt', 'protein folding heat shock', 'galaxy cluster lensing dark', 'soil carbon tillage crops'];
    const record = (b: number, i: number) => doc(`v${b}-${i}`, { title: `${topics[(b + i) % 4]} study ${i}`, abstract: `${topics[i % 4]} and ${topics[(i + 1) % 4]} measured in batch ${b}` });
    const st = new TrainingState();
    for (let b = 0; b < 9; b++) for (let i = 0; i < 20; i++) st.set(`v${b}-${i}`, fieldTerms(record(b, i).title, record(b, i).abstract ?? '', 'en'));
    const { dense } = st.train({ dims: 32, contrastiveEpochs: 0, ivfMinDocs: Infinity });
    const models = { dense: { id: 'f'.repeat(64), model: dense }, sparse: null, manifest: null };
    const threaded = IndexSet.open(sharedFsIndexDirectories(root), docs, clock);
    threaded.builder = builder;
    threaded.setModels('documents', models);
    const local = IndexSet.open(fsIndexDirectories(join(tmp.dir, 'local')), docs, clock);
    local.setModels('documents', models);
    SegmentVectors.compute = (...a) => {
      computedHere++;
      return compute.apply(SegmentVectors, a);
    };
    for (let b = 0; b < 9; b++) {
      await docs.upsertMany(Array.from({ length: 20 }, (_, i) => record(b, i)), 1_700_000_000 + b);
      await threaded.catchUp();
    }
    assert.equal(computedHere, 0, 'the builder thread computed the vectors of its segments');
    assert.equal(await threaded.mergeOffThread(merger), 'merged');
    assert.equal(computedHere, 0, 'the merge thread computed the vectors of the merged segment');
    SegmentVectors.compute = compute;
    await local.catchUp();
    local.get('documents').forceMerge(1);
    const t = threaded.get('documents');
    const status = t.vectorStatus();
    assert.equal(status.segmentsWithVectors, status.segments);
    assert.equal(status.documentsWithVectors, 180);
    for (const id of ['v0-0', 'v4-7', 'v8-19']) assert.deepEqual(t.documentVector(id), local.get('documents').documentVector(id));
    threaded.close();
    // reopened from disk: the vector files the threads wrote are named by the manifest, nothing else is left
    const again = IndexSet.open(fsIndexDirectories(root), docs, clock);
    again.setModels('documents', models);
    assert.equal(again.get('documents').vectorStatus().documentsWithVectors, 180);
    const files = readdirSync(join(root, 'documents'));
    const manifest = JSON.parse(readFileSync(join(root, 'documents', 'manifest.json'), 'utf8')) as { segments: { name: string; vectors?: string }[] };
    assert.deepEqual(files.filter((f) => f.includes('.vec-')).sort(), manifest.segments.map((s) => s.vectors).sort());
    again.close();
    local.close();
  } finally {
    SegmentVectors.compute = compute;
    await builder.close();
    await merger.close();
    await store.dispose();
    tmp.remove();
  }
});
