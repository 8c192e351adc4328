// Stored fields (issue 29, ADR 0280): the host's record per document, kept in the segments in DEFLATE
// blocks. Records read back byte for byte across block boundaries (empty ones, one larger than a block),
// with either codec reading what the other wrote; the index follows the segment lifecycle: an update's
// record is the new one (the old one is dead with its doc), a deletion's is gone, merges (sliced, as a
// task on another thread, forced) copy the live records and drop the dead ones; a reopened index reads
// them from its files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { FFLATE_STORED_CODEC, MemoryIndexDirectory, runMerge, SearchIndex, setStoredCodec, STORED_BLOCK_BYTES, type IndexDocument, type StoredCodec } from '../../src/engine/index.js';
import { STORED_DICT_BYTES } from '../../src/engine/stored-fields.js';
import { encodeSegmentFile, SegmentFile, type SectionArray } from '../../src/engine/segment-file.js';
import { StoredFieldsReader, StoredFieldsWriter } from '../../src/engine/stored-fields.js';
import { Segment } from '../../src/engine/segment.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const ZLIB: StoredCodec = {
  deflate: (raw, dictionary) => deflateRawSync(raw, dictionary?.length ? { dictionary } : {}),
  inflate: (data, _n, dictionary) => inflateRawSync(data, dictionary?.length ? { dictionary } : {}),
};

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

/** Records of varied sizes: empty (none), small, around a block, one larger than a block; some non-ASCII. */
function records(n: number, seed: number): (Uint8Array | null)[] {
  const r = lcg(seed);
  const out: (Uint8Array | null)[] = [];
  for (let i = 0; i < n; i++) {
    const kind = r();
    if (kind < 0.1) out.push(null);
    else if (kind < 0.12) out.push(new Uint8Array(0));
    else {
      const len = kind < 0.14 ? STORED_BLOCK_BYTES + Math.floor(r() * 5000) : Math.floor(r() * 3000) + 1;
      let s = `{"id":"d${i}","t":"`;
      while (s.length < len) s += `wörd${Math.floor(r() * 500)} α `;
      out.push(enc.encode(`${s}"}`));
    }
  }
  return out;
}

function writeRead(recs: (Uint8Array | null)[], write: StoredCodec, read: StoredCodec, blockBytes?: number, dictBytes?: number): StoredFieldsReader {
  setStoredCodec(write);
  const w = new StoredFieldsWriter(blockBytes, dictBytes);
  for (const r of recs) w.add(r);
  const s = w.finish();
  setStoredCodec(read);
  return new StoredFieldsReader(s.sfData as Uint8Array, s.sfBlockOff as Uint32Array, s.sfBlockRaw as Uint32Array, s.sfBlockDoc as Uint32Array, s.sfDocStart as Uint32Array, (s.sfDictBlocks as Uint32Array)[0]);
}

test('records read back byte for byte across blocks, in any order, with either codec reading what the other wrote, with and without a dictionary (format 4 and 3)', () => {
  try {
    const recs = records(600, 7);
    const raw = recs.reduce((s, r) => s + (r?.length ?? 0), 0);
    for (const [write, read, blockBytes, dictBytes] of [
      [FFLATE_STORED_CODEC, FFLATE_STORED_CODEC, STORED_BLOCK_BYTES, STORED_DICT_BYTES],
      [FFLATE_STORED_CODEC, ZLIB, STORED_BLOCK_BYTES, STORED_DICT_BYTES],
      [ZLIB, FFLATE_STORED_CODEC, STORED_BLOCK_BYTES, STORED_DICT_BYTES],
      [ZLIB, ZLIB, STORED_BLOCK_BYTES, STORED_DICT_BYTES],
      // format 3's layout: 16 KiB blocks, no dictionary
      [ZLIB, FFLATE_STORED_CODEC, 16384, 0],
      [FFLATE_STORED_CODEC, ZLIB, 16384, 0],
      // a dictionary larger than all the records (fixed at finish)
      [ZLIB, ZLIB, 4096, 10 * 1024 * 1024],
    ] as const) {
      const reader = writeRead(recs, write, read, blockBytes, dictBytes);
      assert.equal(reader.dictBlocks, dictBytes > 0 ? 1 : 0, 'dictionary written when asked');
      if (dictBytes > 0 && reader.blocks > 1) assert.ok(reader.blockRaw[0]! >= Math.min(dictBytes, raw) && reader.dictionary()!.length <= 32768);
      assert.ok(reader.blocks > (raw - Math.min(raw, dictBytes)) / (blockBytes + 8000) && reader.blocks < raw / blockBytes + 2, `${reader.blocks} blocks for ${raw} bytes`);
      assert.ok(reader.data.length < raw * 0.6, `compressed: ${reader.data.length} of ${raw}`);
      const order = recs.map((_, i) => i);
      const r = lcg(3);
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(r() * (i + 1));
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      for (const d of [...recs.keys(), ...order]) {
        const want = recs[d];
        const got = reader.get(d);
        if (want === null || want!.length === 0) assert.equal(got, null, `doc ${d} has no record`);
        else assert.deepEqual(got === null ? null : new Uint8Array(got), want, `doc ${d}`);
      }
      assert.equal(reader.get(-1), null);
      assert.equal(reader.get(recs.length), null);
    }
  } finally {
    setStoredCodec(FFLATE_STORED_CODEC);
  }
});

test('a segment without any record and one with a single doc', () => {
  const none = writeRead([null, null], FFLATE_STORED_CODEC, FFLATE_STORED_CODEC);
  assert.equal(none.blocks, 1);
  assert.equal(none.get(0), null);
  const one = writeRead([enc.encode('x')], FFLATE_STORED_CODEC, FFLATE_STORED_CODEC);
  assert.equal(dec.decode(one.get(0)!), 'x');
  const empty = writeRead([], FFLATE_STORED_CODEC, FFLATE_STORED_CODEC);
  assert.equal(empty.blocks, 0);
  assert.equal(empty.get(0), null);
});

const rec = (id: string, v: number) => enc.encode(JSON.stringify({ id, v, pad: `${id} `.repeat(200) }));
const doc = (i: number, v = 1): IndexDocument => ({ id: `d${i}`, title: `title ${i} common`, abstract: `abstract of document ${i} with words`, stored: rec(`d${i}`, v) });
const storedOf = (idx: SearchIndex, ids: string[]) => new Map([...idx.stored(ids)].map(([id, b]) => [id, JSON.parse(dec.decode(b)) as { id: string; v: number }]));

test('the index follows the segment lifecycle: updates, deletions, merges (sliced, by task, forced), reopen', () => {
  const dir = new MemoryIndexDirectory();
  const idx = SearchIndex.open(dir, { mergePolicy: { mergeFactor: 3, floorDocs: 20 } });
  const N = 200;
  const version = new Map<string, number>();
  // many small segments
  for (let i = 0; i < N; i++) {
    idx.add(doc(i));
    version.set(`d${i}`, 1);
    if (i % 15 === 14) idx.commit(String(i));
  }
  idx.commit('a');
  const all = [...version.keys()];
  const check = (label: string) => {
    const got = storedOf(idx, [...all, 'unknown', 'd0']);
    assert.deepEqual([...got.keys()].sort(), [...version.keys()].sort(), `${label}: live ids`);
    for (const [id, v] of version) assert.deepEqual(got.get(id), { id, v, pad: `${id} `.repeat(200) }, `${label}: ${id}`);
  };
  check('committed');
  const segs0 = idx.stats().segments;
  assert.ok(segs0 > 5);
  assert.ok(idx.stats().bytes.stored > 0 && idx.stats().bytes.stored < N * 1400 * 0.5, `stored bytes ${idx.stats().bytes.stored}`);

  // updates (a new segment holds the new record) and deletions
  for (let i = 0; i < N; i += 7) {
    idx.add(doc(i, 2));
    version.set(`d${i}`, 2);
  }
  for (let i = 3; i < N; i += 11) {
    idx.delete(`d${i}`);
    version.delete(`d${i}`);
  }
  idx.commit('b');
  check('after updates and deletions');
  assert.equal(idx.stored(['d3']).size, 0, 'a deleted doc has no record');

  // a merge run as a task (the merge thread's path) copies the live records
  const task = idx.beginMerge();
  assert.ok(task, 'a merge is due');
  // a deletion and an update while the task runs are carried into the adopted output
  idx.delete('d1');
  version.delete('d1');
  idx.add(doc(2, 3));
  version.set('d2', 3);
  idx.commit('c');
  assert.equal(idx.finishMerge(task!, runMerge(task!), false), true);
  check('after a merge task');
  // sliced merges until nothing is due, then everything into one segment
  while (idx.mergeStep(50).state !== 'idle');
  check('after sliced merges');
  idx.forceMerge(1);
  assert.equal(idx.stats().segments, 1);
  assert.equal(idx.stats().deletedDocs, 0);
  check('after forceMerge');
  // the merged segment holds only live docs' records
  idx.close();

  const reopened = SearchIndex.open(dir);
  const got = storedOf(reopened, all);
  assert.deepEqual([...got.keys()].sort(), [...version.keys()].sort(), 'reopened: live ids');
  for (const [id, v] of version) assert.equal(got.get(id)!.v, v, `reopened: ${id}`);
  reopened.close();
});

test('stored records survive an index whose docs were added without them (none read back), and merged with others', () => {
  const idx = SearchIndex.open(new MemoryIndexDirectory());
  idx.add({ id: 'a', title: 'no record' });
  idx.commit('1');
  idx.add(doc(1));
  idx.commit('2');
  idx.forceMerge(1);
  assert.deepEqual([...idx.stored(['a', 'd1']).keys()], ['d1']);
  idx.close();
});

test('a merged segment inflates each input block once (docs read in order)', () => {
  const dir = new MemoryIndexDirectory();
  const idx = SearchIndex.open(dir);
  for (let i = 0; i < 300; i++) idx.add(doc(i));
  idx.commit('1');
  const name = [...dir.files.keys()].find((n) => n.startsWith('seg-'))!;
  const seg = new Segment(name, dir.files.get(name)!);
  let inflated = 0;
  setStoredCodec({ deflate: FFLATE_STORED_CODEC.deflate, inflate: (d, n, dict) => (inflated++, FFLATE_STORED_CODEC.inflate(d, n, dict)) });
  try {
    for (let d = 0; d < seg.docCount; d++) assert.ok(seg.stored.get(d));
    assert.equal(inflated, seg.stored.blocks);
  } finally {
    setStoredCodec(FFLATE_STORED_CODEC);
  }
  idx.close();
});

test('the dictionary makes small blocks smaller than 16 KiB blocks without one (records alike, as display records are)', () => {
  const r = lcg(11);
  const recs = Array.from({ length: 400 }, (_, i) => enc.encode(JSON.stringify({ id: `doc-${i}`, type: 'journal-article', language: 'en', title: `title ${Math.floor(r() * 1e6)}`, abstract: Array.from({ length: 120 }, () => `w${Math.floor(r() * 300)}`).join(' '), hasFullText: r() < 0.8, referencesCount: Math.floor(r() * 50) })));
  const withDict = writeRead(recs, ZLIB, ZLIB);
  const old = writeRead(recs, ZLIB, ZLIB, 16384, 0);
  const small = writeRead(recs, ZLIB, ZLIB, STORED_BLOCK_BYTES, 0);
  assert.ok(withDict.byteLength() < small.byteLength(), `dictionary ${withDict.byteLength()} < no dictionary ${small.byteLength()}`);
  assert.ok(withDict.byteLength() < old.byteLength(), `dictionary ${withDict.byteLength()} < 16 KiB blocks ${old.byteLength()}`);
  assert.ok(withDict.blocks > old.blocks * 2, `smaller blocks: ${withDict.blocks} against ${old.blocks}`);
  for (let d = 0; d < recs.length; d += 7) assert.deepEqual(new Uint8Array(withDict.get(d)!), recs[d]);
});

/** A format 3 segment file (16 KiB blocks, no dictionary, version 3) of the same docs as `seg`. */
function asFormat3(seg: Segment): Uint8Array {
  const f = seg.file;
  const sections: Record<string, SectionArray> = {};
  for (const n of f.sectionNames()) if (!n.startsWith('sf') && !n.startsWith('imp')) sections[n] = f.sectionBytes(n) === 0 ? new Uint8Array(0) : sectionOf(f, n);
  const w = new StoredFieldsWriter(16384, 0);
  for (let d = 0; d < seg.docCount; d++) w.add(seg.stored.get(d));
  const { sfDictBlocks: _none, ...stored } = w.finish();
  const bytes = encodeSegmentFile(f.meta, { ...sections, ...stored });
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(4, 3, true);
  return bytes;
}
function sectionOf(f: SegmentFile, n: string): SectionArray {
  // the kind is in the table of contents: try each reader whose element size divides the bytes
  const toc = JSON.parse(new TextDecoder().decode(f.bytes.subarray(16, 16 + new DataView(f.bytes.buffer, f.bytes.byteOffset).getUint32(8, true)))) as { sections: Record<string, [number, number, string]> };
  const kind = toc.sections[n]![2];
  return ({ u8: () => f.u8(n), u16: () => f.u16(n), u32: () => f.u32(n), i32: () => new Int32Array(f.u32(n).slice().buffer), f32: () => f.f32(n), f64: () => f.f64(n) } as Record<string, () => SectionArray>)[kind]!();
}

test('a format 3 segment (no dictionary) is read, searched and merged into the current format with its records', () => {
  const dir = new MemoryIndexDirectory();
  const idx = SearchIndex.open(dir);
  for (let i = 0; i < 120; i++) idx.add(doc(i));
  idx.commit('1');
  idx.close();
  const name = [...dir.files.keys()].find((n) => n.startsWith('seg-'))!;
  const v3 = asFormat3(new Segment(name, dir.files.get(name)!));
  const old = new Segment(name, v3);
  assert.equal(old.stored.dictBlocks, 0);
  assert.equal(new DataView(v3.buffer, v3.byteOffset).getUint32(4, true), 3);
  dir.files.set(name, v3);
  // the manifest checks each segment's length
  const manifest = JSON.parse(dec.decode(dir.files.get('manifest.json')!)) as { segments: { name: string; bytes: number }[] };
  manifest.segments.find((s) => s.name === name)!.bytes = v3.length;
  dir.files.set('manifest.json', enc.encode(JSON.stringify(manifest)));
  const re = SearchIndex.open(dir);
  const ids = Array.from({ length: 120 }, (_, i) => `d${i}`);
  assert.equal(re.stored(ids).size, 120, 'format 3 records read');
  assert.equal(re.search({ text: 'common', limit: 5 }).hits.length, 5);
  for (let i = 120; i < 160; i++) re.add(doc(i, 2));
  re.commit('2');
  re.forceMerge(1);
  const got = storedOf(re, [...ids, 'd150']);
  assert.equal(got.size, 121);
  assert.equal(got.get('d5')!.v, 1);
  assert.equal(got.get('d150')!.v, 2);
  const merged = [...dir.files.keys()].filter((n) => n.startsWith('seg-') && n !== name);
  const out = new Segment('m', dir.files.get(merged[merged.length - 1]!)!);
  assert.equal(new DataView(out.file.bytes.buffer, out.file.bytes.byteOffset).getUint32(4, true), 5, 'merged into the current format (5: champion lists, ADR 0329)');
  assert.equal(out.stored.dictBlocks, 1);
  re.close();
});
