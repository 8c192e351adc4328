// Champion lists (segment format 5, ADR 0329): what the writer keeps per term, and segments of format 4
// (no lists) read, searched exactly and merged into format 5 with lists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SegmentWriter } from '../../src/engine/segment-writer.js';
import { Segment } from '../../src/engine/segment.js';
import { encodeSegmentFile, type SectionArray, type SegmentFile } from '../../src/engine/segment-file.js';
import { MemoryIndexDirectory, SearchIndex } from '../../src/engine/index.js';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const W = [2, 1, 1];
const B = [0.5, 0.75, 0.75];

test('the writer keeps, for each term of df >= minDf, its perTerm postings of highest pseudo frequency (ties: lower doc), in doc order', () => {
  const rand = lcg(7);
  const docs = 900;
  const lens: [number, number, number][] = Array.from({ length: docs }, () => [1 + Math.floor(rand() * 12), Math.floor(rand() * 200), Math.floor(rand() * 900)]);
  const w = new SegmentWriter({ w: W, b: B, champions: { minDf: 40, perTerm: 9 } });
  for (let d = 0; d < docs; d++) w.addDoc({ id: `d${String(d).padStart(4, '0')}`, fieldLen: lens[d]!, fieldCp: [0, 0, 0], issued: NaN, type: null, language: 'en', publisher: null, workKey: null, chunks: [], keywords: [], tokens: new Uint8Array(0), tokenFieldEnds: [0, 0, 0] });
  const avg = [0, 1, 2].map((f) => lens.reduce((s, l) => s + l[f]!, 0) / docs);
  const terms: { doc: number; tf: [number, number, number] }[][] = [];
  for (const density of [0.9, 0.3, 0.04, 0.06, 0.5]) {
    const ps: { doc: number; tf: [number, number, number] }[] = [];
    for (let d = 0; d < docs; d++) {
      if (rand() >= density) continue;
      // many equal tfs (ties), some above 255 (clamped in the list)
      const tf: [number, number, number] = [rand() < 0.3 ? 1 : 0, Math.floor(rand() * 3), rand() < 0.02 ? 300 + Math.floor(rand() * 100) : Math.floor(rand() * 4)];
      if (lens[d]![0] === 0) tf[0] = 0;
      if (tf[0] + tf[1] + tf[2] === 0) tf[1] = 1;
      ps.push({ doc: d, tf });
    }
    terms.push(ps);
  }
  terms.forEach((ps, t) => {
    w.beginTerm(`t${t}`, '');
    for (const p of ps) w.addPosting(p.doc, p.tf[0], p.tf[1], p.tf[2], new Int32Array(p.tf[0] + p.tf[1] + p.tf[2]), 0);
    w.endTerm();
  });
  const seg = new Segment('s', w.finish());
  assert.equal(new DataView(seg.file.bytes.buffer, seg.file.bytes.byteOffset).getUint32(4, true), 5);
  const listed = terms.map((ps, t) => (ps.length >= 40 ? t : -1)).filter((t) => t >= 0);
  assert.ok(listed.length >= 2 && listed.length < terms.length, 'some terms listed, some not');
  assert.deepEqual(Array.from(seg.impTerm), listed);
  terms.forEach((ps, t) => {
    const li = seg.champions(t);
    if (ps.length < 40) return assert.equal(li, -1);
    const tfp = (p: { doc: number; tf: number[] }): number => {
      let x = 0;
      for (let f = 0; f < 3; f++) if (p.tf[f]! > 0) x += (W[f]! * p.tf[f]!) / (1 - B[f]! + (B[f]! * lens[p.doc]![f]!) / avg[f]!);
      return x;
    };
    const want = [...ps].sort((a, b) => tfp(b) - tfp(a) || a.doc - b.doc).slice(0, 9).sort((a, b) => a.doc - b.doc);
    const got = [];
    for (let j = seg.impStart[li]!; j < seg.impStart[li + 1]!; j++) got.push({ doc: seg.impDoc[j]!, tf: Array.from(seg.impTf.subarray(3 * j, 3 * j + 3)) });
    assert.deepEqual(got, want.map((p) => ({ doc: p.doc, tf: p.tf.map((x) => Math.min(255, x)) })), `term ${t}`);
  });
});

/** The same segment as format 4: version 4, no champion lists. */
function asFormat4(f: SegmentFile): Uint8Array {
  const toc = JSON.parse(new TextDecoder().decode(f.bytes.subarray(16, 16 + new DataView(f.bytes.buffer, f.bytes.byteOffset).getUint32(8, true)))) as { sections: Record<string, [number, number, string]> };
  const sections: Record<string, SectionArray> = {};
  for (const n of f.sectionNames()) {
    if (n.startsWith('imp')) continue;
    const kind = toc.sections[n]![2];
    sections[n] = ({ u8: () => f.u8(n), u16: () => f.u16(n), u32: () => f.u32(n), i32: () => new Int32Array(f.u32(n).slice().buffer), f32: () => f.f32(n), f64: () => f.f64(n) } as Record<string, () => SectionArray>)[kind]!();
  }
  const bytes = encodeSegmentFile(f.meta, sections);
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(4, 4, true);
  return bytes;
}

test('a format 4 segment (no champion lists) is read and searched exactly, and merged into format 5 with lists', () => {
  const dir = new MemoryIndexDirectory();
  const rule = { championRule: { minDf: 20, perTerm: 6 } };
  const idx = SearchIndex.open(dir, rule);
  const rand = lcg(3);
  const words = ['common', 'cell', 'heat', 'protein', 'rare'];
  const text = (n: number): string => Array.from({ length: n }, () => words[Math.floor(rand() ** 2 * words.length)]).join(' ');
  const doc = (i: number) => ({ id: `d${String(i).padStart(3, '0')}`, title: text(4), abstract: text(30), body: text(60) });
  for (let i = 0; i < 150; i++) idx.add(doc(i));
  idx.commit('1');
  idx.close();
  const name = [...dir.files.keys()].find((n) => n.startsWith('seg-'))!;
  const v4 = asFormat4(new Segment(name, dir.files.get(name)!).file);
  assert.equal(new Segment(name, v4).impTerm.length, 0);
  dir.files.set(name, v4);
  const manifest = JSON.parse(new TextDecoder().decode(dir.files.get('manifest.json')!)) as { segments: { name: string; bytes: number }[] };
  manifest.segments.find((s) => s.name === name)!.bytes = v4.length;
  dir.files.set('manifest.json', new TextEncoder().encode(JSON.stringify(manifest)));
  const re = SearchIndex.open(dir, rule);
  const key = (r: { hits: { id: string; score: number }[] }): string => JSON.stringify(r.hits.map((h) => [h.id, h.score]));
  const queries = ['common cell', 'heat protein rare', 'common'];
  for (const q of queries) {
    const r = re.search({ text: q, limit: 5, trace: true });
    assert.equal(r.trace!.championFloor, undefined, 'no lists: no seed');
    assert.equal(key(r), key(re.search({ text: q, limit: 5, exhaustive: true })));
  }
  for (let i = 150; i < 200; i++) re.add(doc(i));
  re.commit('2');
  re.forceMerge(1);
  const merged = [...dir.files.keys()].filter((n) => n.startsWith('seg-') && n !== name);
  const out = new Segment('m', dir.files.get(merged[merged.length - 1]!)!);
  assert.equal(new DataView(out.file.bytes.buffer, out.file.bytes.byteOffset).getUint32(4, true), 5, 'merged into format 5');
  assert.ok(out.impTerm.length > 0, 'the merge wrote champion lists');
  for (const q of queries) {
    const r = re.search({ text: q, limit: 5, trace: true });
    assert.notEqual(r.trace!.championFloor, undefined, `seeded: ${q}`);
    assert.equal(key(r), key(re.search({ text: q, limit: 5, exhaustive: true })));
  }
  re.close();
});
