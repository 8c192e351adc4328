// Learned sparse document vectors (ADR 0109): an impact index attached per segment under an external
// SPLADE-style model, searched by the SPLADE dot product (checked against a brute-force sum, within the
// quantization bound of ADR 0145), with filters and deletions, carried through merges, read back after a
// reopen, pruned by heap_factor; version 1 (float) files still read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IMPACT_LEVELS, impactExponent, MemoryIndexDirectory, SearchIndex, SegmentImpacts, type SparseRow } from '../../src/engine/index.js';
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
// weights are in 0.1..2.1: every token's step is at most 2^impactExponent(2.1) (power of two >= 2.1 / 255)
const MAX_STEP = 2 ** impactExponent(2.1);
const bound = (q: SparseRow) => q.weights.reduce((s, w) => s + w * MAX_STEP, 0);

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
    assert.equal(got.length, want.length);
    // each score is its document's float dot product within the bound, and (order statistics moving by no
    // more than the largest perturbation) the i-th score is the i-th float score within the bound
    const eps = bound(q) + 1e-4;
    got.forEach((h, i) => {
      assert.ok(Math.abs(h.score - dot(q, rows.get(h.id)!)) <= eps, `${h.id}: ${h.score} vs ${dot(q, rows.get(h.id)!)} (bound ${eps})`);
      assert.ok(Math.abs(h.score - want[i]![1]) <= eps);
    });
    // documents the float ranking puts clearly inside the top 10 are returned
    for (const [id, sc] of want) if (sc > (want[want.length - 1]?.[1] ?? 0) + 2 * eps) assert.ok(got.some((h) => h.id === id), id);
  };
  for (let qs = 500; qs < 510; qs++) {
    const q = row(qs);
    check(q);
    check(q, (id) => Number(id.slice(1)) % 40 % 2 === 0, { types: ['even'] });
  }
  // heap_factor < 1 may prune query tokens but returns true dot products of what it scores
  const q = row(777);
  const approx = idx.searchImpacts({ query: q, limit: 10, heapFactor: 0.5 });
  for (const h of approx.hits) assert.ok(Math.abs(h.score - dot(q, rows.get(h.id)!)) <= bound(q) + 1e-4 || approx.tokensPruned > 0);
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

test('quantized impacts: 5 bytes per posting, error <= one step per posting after repeated merges, version 1 files read', () => {
  const M = 'c'.repeat(64);
  const rows = Array.from({ length: 300 }, (_, d) => row(d + 1000));
  const imp = SegmentImpacts.fromRows(M, rows);
  const postings = imp.postDocs.length;
  assert.ok(imp.serialize().byteLength <= 96 + 9 * imp.tokens.length + 4 + 5 * postings + 6 + 300);
  const maxErr = (x: SegmentImpacts, rs: readonly SparseRow[]) => {
    let worst = 0;
    rs.forEach((r, d) => {
      for (let i = 0; i < r.ids.length; i++) {
        const ti = x.tokens.indexOf(r.ids[i]!);
        worst = Math.max(worst, Math.abs(x.weight(d, r.ids[i]!) - r.weights[i]!) / x.steps[ti]!);
      }
    });
    return worst;
  };
  assert.ok(maxErr(imp, rows) <= 0.5 + 1e-9, 'first quantization: half a step');
  for (let t = 0; t < imp.tokens.length; t++) {
    assert.ok(imp.maxWeights[t]! / imp.steps[t]! <= IMPACT_LEVELS && imp.maxWeights[t]! / imp.steps[t]! > IMPACT_LEVELS / 2);
  }
  // merges whose inputs have growing maxima (scaled rows) re-quantize onto coarser grids: still <= one step
  let cur = SegmentImpacts.fromRows(M, rows.slice(0, 10));
  let curRows = rows.slice(0, 10);
  for (let k = 1; k < 12; k++) {
    const more = rows.slice(10 * k, 10 * k + 10).map((r) => ({ ids: r.ids, weights: r.weights.map((w) => w * 1.37 ** k) }));
    const next = SegmentImpacts.fromRows(M, more);
    const id = (n: number) => Int32Array.from({ length: n }, (_, i) => i);
    const shifted = Int32Array.from({ length: 10 }, (_, i) => curRows.length + i);
    cur = SegmentImpacts.merged(M, curRows.length + 10, [cur, next], [id(curRows.length), shifted]);
    curRows = [...curRows, ...more];
    cur = SegmentImpacts.parse(cur.serialize());
  }
  assert.ok(maxErr(cur, curRows) <= 1 + 1e-9, `after merges: ${maxErr(cur, curRows)} steps`);
  // a version 1 file (float32 weights) opens, quantized as it is read: same scores as version 2
  const v1 = serializeV1(M, rows);
  const old = SegmentImpacts.parse(v1);
  assert.deepEqual(old.postImpacts, imp.postImpacts);
  assert.deepEqual(old.exps, imp.exps);
  assert.deepEqual(SegmentImpacts.parse(old.serialize()).postImpacts, imp.postImpacts);
  assert.throws(() => SegmentImpacts.parse(v1.subarray(0, v1.byteLength - 400)), /truncated/);
});

/** The version 1 layout (ADR 0109): header, tokens, starts, docs u32, weights f32, present. */
function serializeV1(modelId: string, rows: readonly SparseRow[]): Uint8Array {
  const byToken = new Map<number, [number, number][]>();
  rows.forEach((r, d) => r.ids.forEach((t, i) => byToken.set(t, [...(byToken.get(t) ?? []), [d, r.weights[i]!]])));
  const tokens = Uint32Array.from([...byToken.keys()].sort((a, b) => a - b));
  const starts = new Uint32Array(tokens.length + 1);
  const docs: number[] = [];
  const ws: number[] = [];
  tokens.forEach((t, i) => {
    for (const [d, w] of byToken.get(t)!) {
      docs.push(d);
      ws.push(w);
    }
    starts[i + 1] = docs.length;
  });
  const parts = [tokens, starts, Uint32Array.from(docs), Float32Array.from(ws)];
  const out = new Uint8Array(96 + parts.reduce((s, a) => s + a.byteLength, 0) + ((rows.length + 3) & ~3));
  const dv = new DataView(out.buffer);
  dv.setUint32(0, 0x504d494c, true);
  dv.setUint32(4, 1, true);
  dv.setUint32(8, rows.length, true);
  dv.setUint32(12, tokens.length, true);
  dv.setUint32(80, docs.length, true);
  out.set(new TextEncoder().encode(modelId), 16);
  let o = 96;
  for (const a of parts) {
    out.set(new Uint8Array(a.buffer), o);
    o += a.byteLength;
  }
  out.fill(1, o, o + rows.length);
  return out;
}
