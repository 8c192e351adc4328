// Vectors computed outside the engine (an operator-supplied encoder, ADR 0105): segments under an
// external model wait for the host, attachVectors writes the file and commits it, merges carry the rows
// (deletions included), a reopened index (crash or restart) finds them, and another model rebuilds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryIndexDirectory, SearchIndex, SegmentVectors } from '../../src/engine/index.js';

const DIMS = 32;
/** A deterministic unit-ish vector per document id: axis (n mod 32) plus a little of axis 0. */
function vec(id: string, model = 'a'): Float32Array {
  const n = Number(id.slice(1)) + (model === 'a' ? 0 : 7);
  const v = new Float32Array(DIMS);
  v[n % DIMS] = 1;
  v[(n + 1) % DIMS] = 0.25;
  const inv = 1 / Math.hypot(...v);
  return v.map((x) => x * inv);
}

function attachAll(idx: SearchIndex, model: string, id: string): number {
  let n = 0;
  for (const s of idx.segmentsNeedingVectors()) {
    assert.ok(idx.attachVectors(s.segment, SegmentVectors.fromRows(id, DIMS, s.ids.map((x) => (x === null ? null : vec(x, model))))));
    n++;
  }
  return n;
}

test('external vectors: wait for the host, attach, search, survive merges with deletes and a reopen; another model rebuilds', () => {
  const dir = new MemoryIndexDirectory();
  let idx = SearchIndex.open(dir);
  for (let s = 0; s < 3; s++) {
    for (let i = 0; i < 10; i++) idx.add({ id: `d${s * 10 + i}`, title: `title ${s} ${i}`, abstract: 'words', language: 'en' });
    idx.commit(`c${s}`);
  }
  const A = 'a'.repeat(64);
  assert.equal(idx.setVectorModel({ id: A, model: null, dims: DIMS }), 0, 'nothing computed by the engine for an external model');
  assert.equal(idx.segmentsNeedingVectors().length, 3);
  assert.equal(idx.vectorStatus().documentsWithVectors, 0);
  // a document deleted before encoding needs no vector
  idx.delete('d3');
  idx.commit('del');
  const first = idx.segmentsNeedingVectors()[0]!;
  assert.equal(first.ids[3], null);
  // wrong model or size: refused, nothing changes
  assert.equal(idx.attachVectors(first.segment, SegmentVectors.fromRows('b'.repeat(64), DIMS, first.ids.map(() => null))), false);
  assert.equal(idx.attachVectors('seg-999999.lsg', SegmentVectors.fromRows(A, DIMS, [])), false);
  assert.equal(attachAll(idx, 'a', A), 3);
  assert.deepEqual(idx.segmentsNeedingVectors(), []);
  assert.equal(idx.vectorStatus().documentsWithVectors, 29);
  const top = idx.searchVectors({ vector: vec('d12'), method: 'exact', limit: 3 });
  assert.equal(top.hits[0]!.id, 'd12');
  assert.ok(Math.abs(top.hits[0]!.score - 1) < 1e-6);
  assert.equal(idx.searchVectors({ vector: vec('d12'), method: 'binary', limit: 1 }).hits[0]!.id, 'd12');
  // a merge carries the rows (and the deletion of d3); a document deleted during the merge stays deleted
  idx.delete('d25');
  idx.forceMerge(1);
  idx.commit('after-merge');
  assert.equal(idx.segmentsNeedingVectors().length, 0, 'merged segment carries its inputs vectors');
  assert.equal(idx.vectorStatus().documentsWithVectors, 28);
  for (const id of ['d0', 'd12', 'd29']) assert.deepEqual([...idx.documentVector(id)!], [...SegmentVectors.fromRows(A, DIMS, [vec(id)]).vecs], id);
  assert.equal(idx.documentVector('d3'), null);
  assert.equal(idx.documentVector('d25'), null);
  // a new segment after the merge waits for the host again
  idx.add({ id: 'd40', title: 'new', abstract: null, language: 'en' });
  idx.commit('new');
  assert.equal(idx.segmentsNeedingVectors().length, 1);
  attachAll(idx, 'a', A);
  idx.close();
  // reopened (restart, or a crash after the commits): the vectors are read back under the model id
  idx = SearchIndex.open(dir);
  idx.setVectorModel({ id: A, model: null, dims: DIMS });
  assert.deepEqual(idx.segmentsNeedingVectors(), []);
  assert.equal(idx.searchVectors({ vector: vec('d40'), method: 'exact', limit: 1 }).hits[0]!.id, 'd40');
  // another model: every segment needs vectors again; its own vectors are searched once attached
  const B = 'b'.repeat(64);
  idx.setVectorModel({ id: B, model: null, dims: DIMS });
  assert.equal(idx.segmentsNeedingVectors().length, 2);
  assert.equal(idx.searchVectors({ vector: vec('d40', 'b'), method: 'exact', limit: 1 }).hits.length, 0, 'vectors of model A are not searched under B');
  attachAll(idx, 'b', B);
  assert.equal(idx.searchVectors({ vector: vec('d40', 'b'), method: 'exact', limit: 1 }).hits[0]!.id, 'd40');
  idx.close();
});

test('fromRows: dims must be a multiple of 32; rows are normalized; zero rows are absent', () => {
  assert.throws(() => SegmentVectors.fromRows('m', 30, []), /multiple of 32/);
  const v = SegmentVectors.fromRows('m', 32, [Float32Array.from({ length: 32 }, (_, i) => (i === 0 ? 3 : 0)), new Float32Array(32), null]);
  assert.equal(v.vecs[0], 1);
  assert.deepEqual([...v.present], [1, 0, 0]);
  assert.equal(v.codes[0], 1);
});

test('crash while attaching: a vector file written but never named by a manifest is ignored and collected; the segment needs vectors again', () => {
  const disk = new MemoryIndexDirectory();
  let crashOnManifest = false;
  // the process "dies" at the manifest write that would name the new vector file
  const dir = {
    list: () => disk.list(),
    read: (n: string) => disk.read(n),
    delete: (n: string) => disk.delete(n),
    write: (n: string, b: Uint8Array) => {
      if (crashOnManifest && n.startsWith('manifest')) throw new Error('crash');
      disk.write(n, b);
    },
  };
  let idx = SearchIndex.open(dir);
  for (let i = 0; i < 5; i++) idx.add({ id: `d${i}`, title: `t ${i}`, abstract: null, language: 'en' });
  idx.commit('1');
  const A = 'c'.repeat(64);
  idx.setVectorModel({ id: A, model: null, dims: DIMS });
  const seg = idx.segmentsNeedingVectors()[0]!;
  crashOnManifest = true;
  assert.throws(() => idx.attachVectors(seg.segment, SegmentVectors.fromRows(A, DIMS, seg.ids.map((x) => (x === null ? null : vec(x))))), /crash/);
  assert.ok(disk.list().some((f) => f.includes('.vec-')), 'the vector file was written before the manifest');
  // restart from what is on disk
  crashOnManifest = false;
  idx = SearchIndex.open(disk);
  idx.setVectorModel({ id: A, model: null, dims: DIMS });
  assert.equal(idx.segmentsNeedingVectors().length, 1);
  assert.ok(!disk.list().some((f) => f.includes('.vec-')), 'the unnamed vector file is collected on open');
  assert.equal(idx.checkpoint, '1');
  idx.close();
});
