// Merges run elsewhere (ADR 0180): SearchIndex.beginMerge hands out a task, runMerge runs it (on any
// thread), finishMerge adopts the output. Deletions and updates made while the task runs are applied
// to the merged segment; a stale task (forceMerge took over) changes nothing; reserved names survive
// the garbage collection of commits made meanwhile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryIndexDirectory, runMerge, SearchIndex } from '../../src/engine/index.js';
import { DOCS } from './fixtures.js';
import { buildSegments } from '../../src/search/segment-builder.js';

const POLICY = { mergePolicy: { mergeFactor: 2, floorDocs: 100 } };
const ids = (idx: SearchIndex, text: string): string[] => idx.search({ text, limit: 20 }).hits.map((h) => h.id);
const scored = (idx: SearchIndex, text: string) => idx.search({ text, limit: 20 }).hits.map((h) => [h.id, h.score.toFixed(9)]);

function segmented(dir = new MemoryIndexDirectory()): SearchIndex {
  const idx = SearchIndex.open(dir, POLICY);
  DOCS.forEach((d, i) => {
    idx.add(d);
    idx.commit(String(i));
  });
  return idx;
}

/** Runs every merge the policy wants through tasks, the way the merge thread does. */
function mergeAllByTasks(idx: SearchIndex, dir: MemoryIndexDirectory, writeElsewhere: boolean): number {
  let n = 0;
  for (let task = idx.beginMerge(); task !== null; task = idx.beginMerge()) {
    const out = runMerge(task);
    if (writeElsewhere && out.bytes) dir.files.set(task.output, out.bytes.slice());
    assert.equal(idx.finishMerge(task, out, writeElsewhere), true);
    n++;
  }
  return n;
}

test('merges run as tasks give the same results as sliced merges, with or without the file written elsewhere', () => {
  const sliced = segmented();
  while (sliced.mergeStep(10).state !== 'idle');
  for (const writeElsewhere of [false, true]) {
    const dir = new MemoryIndexDirectory();
    const idx = segmented(dir);
    assert.ok(mergeAllByTasks(idx, dir, writeElsewhere) > 0);
    assert.equal(idx.stats().segments, sliced.stats().segments);
    for (const q of ['heat shock protein aspirin', 'aspirin', '"shock heats"']) assert.deepEqual(scored(idx, q), scored(sliced, q));
    const reopened = SearchIndex.open(dir);
    assert.deepEqual(scored(reopened, 'heat shock protein aspirin'), scored(sliced, 'heat shock protein aspirin'));
    assert.equal(reopened.stats().segments, idx.stats().segments);
  }
});

test('deletes and updates made while a merge task runs are applied to the merged segment', () => {
  const dir = new MemoryIndexDirectory();
  const idx = SearchIndex.open(dir, { mergePolicy: { mergeFactor: 3, floorDocs: 100 } });
  DOCS.forEach((d, i) => {
    idx.add(d);
    idx.commit(String(i));
  });
  const task = idx.beginMerge()!;
  assert.ok(task !== null);
  assert.equal(idx.beginMerge(), null, 'one merge at a time');
  assert.equal(idx.mergeStep(1).state, 'merging', 'mergeStep leaves a task to its runner');
  // the task merges the first three single-document segments: a1, a1-preprint, b2
  assert.equal(task.inputs.length, 3);
  idx.delete('a1');
  idx.add({ ...DOCS[1]!, title: 'A rewritten title about zeppelins', abstract: 'Nothing else.' });
  idx.commit('during');
  idx.delete('b2'); // not committed when the merge is adopted
  const out = runMerge(task);
  assert.equal(idx.finishMerge(task, out, false), true);
  assert.equal(idx.stats().merging, false);
  assert.deepEqual(ids(idx, 'zeppelins'), ['a1-preprint']);
  assert.ok(!ids(idx, 'tumour').includes('a1'), 'the committed delete is carried');
  assert.ok(!ids(idx, 'tumour').includes('a1-preprint'), 'the old version of the updated document is gone');
  assert.ok(idx.has('b2'), 'an uncommitted delete is not visible yet');
  idx.commit('after');
  assert.ok(!idx.has('b2'), 'the pending delete moved to the merged segment');
  assert.equal(idx.stats().docs, DOCS.length - 2);
  assert.ok(!task.inputs.some((i) => dir.files.has(i.name)), 'the inputs are gone after the merge commits');
  const reopened = SearchIndex.open(dir);
  assert.equal(reopened.stats().docs, DOCS.length - 2);
  assert.deepEqual(ids(reopened, 'zeppelins'), ['a1-preprint']);
  assert.deepEqual(ids(reopened, 'tumour'), []);
});

test('a reserved output name survives commits made while the task runs; a stale task changes nothing', () => {
  const dir = new MemoryIndexDirectory();
  const idx = segmented(dir);
  const task = idx.beginMerge()!;
  const out = runMerge(task);
  dir.files.set(task.output, out.bytes!.slice()); // written by the thread before the writer commits
  idx.add({ ...DOCS[0]!, id: 'late', title: 'late arrival' });
  idx.commit('during');
  assert.ok(dir.files.has(task.output), 'garbage collection keeps the reserved file');
  // forceMerge takes over: the task's adoption is refused and its file removed
  idx.forceMerge(1);
  const before = scored(idx, 'heat shock protein aspirin late');
  assert.equal(idx.finishMerge(task, out, true), false);
  assert.ok(!dir.files.has(task.output));
  assert.deepEqual(scored(idx, 'heat shock protein aspirin late'), before);
  assert.equal(idx.stats().segments, 1);
  assert.equal(SearchIndex.open(dir).stats().docs, DOCS.length + 1);
});

test('an abandoned task releases its name and the policy offers the merge again', () => {
  const dir = new MemoryIndexDirectory();
  const idx = segmented(dir);
  const task = idx.beginMerge()!;
  dir.files.set(task.output, new Uint8Array(8)); // a partial output left by a failed thread
  idx.abandonMerge(task);
  assert.ok(!dir.files.has(task.output));
  const again = idx.beginMerge();
  assert.ok(again !== null);
  assert.deepEqual(again.inputs.map((i) => i.name), task.inputs.map((i) => i.name));
  assert.notEqual(again.output, task.output);
  // an output that does not fit its task is refused, and the merge can start again
  const out = runMerge(again);
  assert.throws(() => idx.finishMerge(again, { bytes: out.bytes, docMaps: out.docMaps.slice(1) }, false), /does not match/);
  const third = idx.beginMerge()!;
  assert.equal(idx.finishMerge(third, runMerge(third), false), true);
});

test('a segment written elsewhere under a reserved name is adopted without writing it again', () => {
  const dir = new MemoryIndexDirectory();
  const idx = SearchIndex.open(dir);
  const [bytes] = buildSegments(DOCS.slice(0, 3));
  assert.throws(() => idx.addSegment(bytes!, 'seg-999999.lsg'), /not reserved/);
  // a directory that reads its files from storage (no adopt): a reserved name nobody wrote fails
  // loudly instead of committing a manifest that names a missing file
  const plain = new MemoryIndexDirectory();
  const onDisk = SearchIndex.open({ list: () => plain.list(), read: (n) => plain.read(n), write: (n, b) => plain.write(n, b), delete: (n) => plain.delete(n) });
  const unwritten = onDisk.reserveSegmentName();
  assert.throws(() => onDisk.addSegment(bytes!, unwritten), /not written/);
  const written = onDisk.reserveSegmentName();
  plain.files.set(written, bytes!);
  onDisk.addSegment(bytes!, written);
  onDisk.commit('1');
  assert.deepEqual(ids(onDisk, '"shock heats"'), ['b2']);
  const other = idx.reserveSegmentName();
  dir.files.set(other, bytes!); // the builder thread's write
  idx.commit('1');
  assert.ok(dir.files.has(other), 'garbage collection keeps the reserved file');
  let writes = 0;
  const write = dir.write.bind(dir);
  dir.write = (n, b) => {
    if (n === other) writes++;
    write(n, b);
  };
  idx.addSegment(bytes!, other);
  idx.commit('2');
  assert.equal(writes, 0);
  assert.deepEqual(ids(idx, 'aspirin'), []);
  assert.deepEqual(ids(idx, '"shock heats"'), ['b2']);
  assert.equal(SearchIndex.open(dir).stats().docs, 3);
});

test('a directory without adopt reads a segment written elsewhere once when it is adopted', () => {
  const plain = new MemoryIndexDirectory();
  const reads = new Map<string, number>();
  const onDisk = SearchIndex.open(
    {
      list: () => plain.list(),
      read: (n) => {
        reads.set(n, (reads.get(n) ?? 0) + 1);
        return plain.read(n);
      },
      write: (n, b) => plain.write(n, b),
      delete: (n) => plain.delete(n),
    },
    POLICY,
  );
  const [bytes] = buildSegments(DOCS.slice(0, 3));
  const name = onDisk.reserveSegmentName();
  plain.files.set(name, bytes!);
  onDisk.addSegment(bytes!, name);
  assert.equal(reads.get(name), 1, 'the check and the opened segment share one read');
  onDisk.commit('1');
  assert.deepEqual(ids(onDisk, '"shock heats"'), ['b2']);
  const [more] = buildSegments(DOCS.slice(3));
  onDisk.addSegment(more!);
  onDisk.commit('2');
  const task = onDisk.beginMerge();
  assert.ok(task !== null);
  const out = runMerge(task);
  plain.files.set(task.output, out.bytes!.slice());
  assert.equal(onDisk.finishMerge(task, out, true), true);
  assert.equal(reads.get(task.output), 1, 'a merge output written elsewhere is read once');
  assert.deepEqual(ids(onDisk, '"shock heats"'), ['b2']);
});
