// Learned sparse document vectors (ADR 0109): an impact index attached per segment under an external
// SPLADE-style model, searched by the SPLADE dot product (checked against a brute-force sum), with
// filters and deletions, carried through merges, read back after a reopen, pruned by heap_factor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryIndexDirectory, SearchIndex, SegmentImpacts, type SparseRow } from '../../src/engine/index.js';
import { SeededRandom } from '../../src/engine/lsa.js';

const VOCAB = 200;
function row(seed: number): SparseRow {
  const rnd = new SeededRandom(seed);
  const m = new Map<number, number>();
  for (let i = 0; i < 12; i++) m.set(Math.floor(rnd.next() * VOCAB), 0.1 + rnd.next() * 2);
  return { ids: Uint32Array.from(m.keys()), weights: Float32Array.from(m.values()) };
}
const dot = (a: SparseRow, b: SparseRow) => {
  let s = 0;
  for (let i = 0; i < a.ids.length; i++) for (let j = 0; j < b.ids.length; j++) if (a.ids[i] === b.ids[j]) s += a.weights[i]! * b.weights[j]!;
  return s;
};

test('impacts: attach, search = brute-force SPLADE dot product, filters, deletes, merges, reopen, heap_factor', () => {
  const dir = new MemoryIndexDirectory();
  let idx = SearchIndex.open(dir);
  const rows = new Map<string, SparseRow>();
  for (let s = 0; s < 3; s++) {
    for (let i = 0; i < 40; i++) {
      const id = `d${s * 40 + i}`;
      rows.set(id, row(s * 40 + i + 1));
      idx.add({ id, title: `t ${id}`, abstract: null, language: 'en', type: i % 2 === 0 ? 'even' : 'odd' });
    }
    idx.commit(`c${s}`);
  }
  const M = 'f'.repeat(64);
  idx.setImpactModel(M);
  idx.delete('d5');
  idx.commit('del');
  const attach = () => {
    for (const seg of idx.segmentsNeedingImpacts()) assert.ok(idx.attachImpacts(seg.segment, SegmentImpacts.fromRows(M, seg.ids.map((id) => (id === null ? null : rows.get(id)!)))));
  };
  assert.equal(idx.segmentsNeedingImpacts().length, 3);
  assert.equal(idx.attachImpacts('nope', SegmentImpacts.fromRows(M, [])), false);
  assert.equal(idx.attachImpacts(idx.segmentsNeedingImpacts()[0]!.segment, SegmentImpacts.fromRows('e'.repeat(64), [])), false);
  attach();
  assert.equal(idx.impactStatus().documentsWithImpacts, 119);
  const check = (q: SparseRow, filter?: (id: string) => boolean, filters?: { types: string[] }) => {
    const want = [...rows].filter(([id]) => id !== 'd5' && (!filter || filter(id))).map(([id, r]) => [id, dot(q, r)] as const).filter(([, s]) => s > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 10);
    const got = idx.searchImpacts({ query: q, limit: 10, ...(filters ? { filters } : {}) }).hits;
    assert.deepEqual(got.map((h) => h.id), want.map((w) => w[0]));
    got.forEach((h, i) => assert.ok(Math.abs(h.score - want[i]![1]) < 1e-4));
  };
  for (let qs = 500; qs < 510; qs++) {
    const q = row(qs);
    check(q);
    check(q, (id) => Number(id.slice(1)) % 40 % 2 === 0, { types: ['even'] });
  }
  // heap_factor < 1 may prune query tokens but returns true dot products of what it scores
  const q = row(777);
  const approx = idx.searchImpacts({ query: q, limit: 10, heapFactor: 0.5 });
  for (const h of approx.hits) assert.ok(Math.abs(h.score - dot(q, rows.get(h.id)!)) < 1e-4 || approx.tokensPruned > 0);
  // merges carry impacts (and deletions); reopen reads them
  idx.delete('d77');
  idx.forceMerge(1);
  idx.commit('merged');
  rows.delete('d77');
  assert.deepEqual(idx.segmentsNeedingImpacts(), []);
  assert.equal(idx.impactStatus().documentsWithImpacts, 118);
  check(row(501));
  idx.close();
  idx = SearchIndex.open(dir);
  idx.setImpactModel(M);
  assert.deepEqual(idx.segmentsNeedingImpacts(), []);
  check(row(502));
  // another model: nothing searched until attached
  idx.setImpactModel('a'.repeat(64));
  assert.equal(idx.searchImpacts({ query: row(502), limit: 10 }).hits.length, 0);
  assert.equal(idx.searchImpacts({ query: row(502), limit: 10 }).missingSegments, 1);
  idx.close();
});

test('crash while attaching impacts: the unnamed impact file is collected on open and the segment waits again', () => {
  const disk = new MemoryIndexDirectory();
  let crash = false;
  const dir = {
    list: () => disk.list(),
    read: (n: string) => disk.read(n),
    delete: (n: string) => disk.delete(n),
    write: (n: string, b: Uint8Array) => {
      if (crash && n.startsWith('manifest')) throw new Error('crash');
      disk.write(n, b);
    },
  };
  let idx = SearchIndex.open(dir);
  for (let i = 0; i < 4; i++) idx.add({ id: `d${i}`, title: `t ${i}`, abstract: null, language: 'en' });
  idx.commit('1');
  const M = 'b'.repeat(64);
  idx.setImpactModel(M);
  const seg = idx.segmentsNeedingImpacts()[0]!;
  crash = true;
  assert.throws(() => idx.attachImpacts(seg.segment, SegmentImpacts.fromRows(M, seg.ids.map((_, d) => row(d + 1)))), /crash/);
  assert.ok(disk.list().some((f) => f.includes('.imp-')));
  crash = false;
  idx = SearchIndex.open(disk);
  idx.setImpactModel(M);
  assert.equal(idx.segmentsNeedingImpacts().length, 1);
  assert.ok(!disk.list().some((f) => f.includes('.imp-')));
  idx.close();
});
