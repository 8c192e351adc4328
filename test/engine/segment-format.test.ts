// Segment format 2: per-posting position byte lengths in the posting blocks (random access to any doc's
// positions) and token offsets per document, read back exactly, through merges, and older files refused
// with IndexFormatError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SegmentWriter, BLOCK_SIZE } from '../../src/engine/segment-writer.js';
import { Segment, StringTable } from '../../src/engine/segment.js';
import { encodeSegmentFile } from '../../src/engine/segment-file.js';
import { END, PostingCursor } from '../../src/engine/postings-cursor.js';
import { ByteSink } from '../../src/engine/bit-packing.js';
import { decodeTokens, encodeTokens } from '../../src/engine/token-offsets.js';
import { IndexFormatError, MemoryIndexDirectory, SearchIndex, tokenize, type IndexDocument } from '../../src/engine/index.js';

interface Posting {
  doc: number;
  tf: [number, number, number];
  positions: number[];
}

/** A deterministic pseudo-random sequence (tests must not depend on Math.random). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomPostings(rand: () => number, docs: number, density: number): Posting[] {
  const out: Posting[] = [];
  for (let d = 0; d < docs; d++) {
    if (rand() >= density) continue;
    // mostly small tfs, some large ones (wide position-length fields), positions with large gaps (multi-byte VByte)
    const tf: [number, number, number] = [0, 0, 0];
    const positions: number[] = [];
    for (let f = 0; f < 3; f++) {
      const r = rand();
      tf[f] = r < 0.5 ? 0 : r < 0.9 ? 1 + Math.floor(rand() * 3) : Math.floor(rand() * 300);
      let p = 0;
      for (let k = 0; k < tf[f]!; k++) {
        p += rand() < 0.1 ? Math.floor(rand() * 40_000) : 1 + Math.floor(rand() * 20);
        positions.push(p);
      }
    }
    if (tf[0] + tf[1] + tf[2] === 0) {
      tf[2] = 1;
      positions.push(7);
    }
    out.push({ doc: d, tf, positions });
  }
  return out;
}

function writeSegment(docs: number, terms: Posting[][]): Segment {
  const w = new SegmentWriter({ w: [2, 1, 1], b: [0.5, 0.75, 0.75] });
  for (let d = 0; d < docs; d++) w.addDoc({ id: `d${d}`, fieldLen: [5, 50, 500], fieldCp: [30, 300, 3000], issued: NaN, type: null, language: 'en', publisher: null, workKey: null, chunks: [], keywords: [], tokens: new Uint8Array(0), tokenFieldEnds: [0, 0, 0] });
  terms.forEach((postings, t) => {
    w.beginTerm(`t${String(t).padStart(3, '0')}`, '');
    for (const p of postings) w.addPosting(p.doc, p.tf[0], p.tf[1], p.tf[2], p.positions, 0);
    w.endTerm();
  });
  return new Segment('seg', w.finish());
}

test('format 2 round trip (kept by formats 3 to 5): any doc of a block jumps straight to its positions, in any visiting order', () => {
  const rand = lcg(42);
  const docs = 3000;
  const terms = [randomPostings(rand, docs, 0.9), randomPostings(rand, docs, 0.2), randomPostings(rand, docs, 0.01), [{ doc: 5, tf: [1, 0, 0] as [number, number, number], positions: [3] }]];
  const seg = writeSegment(docs, terms);
  // format 3 = format 2 + stored fields (ADR 0280); 4 = stored fields in small blocks with a dictionary (ADR 0325);
  // 5 = champion lists (ADR 0329)
  assert.equal(new DataView(seg.file.bytes.buffer, seg.file.bytes.byteOffset).getUint32(4, true), 5);
  assert.equal(seg.file.has('blkPosSub'), false);
  const buf = new Int32Array(4096);
  terms.forEach((postings, t) => {
    // every posting in order, positions read for every other doc only (skipped docs must not shift later ones)
    const cur = new PostingCursor(seg, t);
    postings.forEach((p, i) => {
      assert.equal(cur.nextDoc(), p.doc);
      assert.deepEqual([cur.tf(0), cur.tf(1), cur.tf(2)], p.tf);
      if (i % 2 === 1 || i % 7 === 0) {
        const n = cur.positions(buf);
        assert.deepEqual(Array.from(buf.subarray(0, n)), p.positions, `term ${t} doc ${p.doc}`);
      }
    });
    assert.equal(cur.nextDoc(), END);
    // random forward jumps (into later blocks and within a block, last doc of a block included)
    const cur2 = new PostingCursor(seg, t);
    for (let i = 0; i < postings.length; i += 1 + Math.floor(rand() * (BLOCK_SIZE / 2))) {
      const p = postings[i]!;
      assert.equal(cur2.advance(p.doc), p.doc);
      const n = cur2.positions(buf);
      assert.deepEqual(Array.from(buf.subarray(0, n)), p.positions);
      // reading the same doc's positions twice gives the same answer
      assert.deepEqual(Array.from(buf.subarray(0, cur2.positions(buf))), p.positions);
      // a one-off visit (snippets) reads the same tfs and positions from the packed block
      const once = new PostingCursor(seg, t);
      assert.equal(once.advance(p.doc), p.doc);
      const tfs = new Int32Array(3);
      once.readTfs(tfs);
      assert.deepEqual(Array.from(tfs), p.tf);
      assert.deepEqual(Array.from(buf.subarray(0, once.positionsOnce(buf, tfs))), p.positions);
    }
  });
});

test('a block read without decoding it (probed docs, ADR 0379): tfs, positions and tf\' agree with the decoded block, for sparse visits past the probe limit and positions asked before tfs', () => {
  const rand = lcg(7);
  const docs = 4000;
  // dense terms (many docs per block), wide position lengths (tf up to 300, multi-byte gaps)
  const terms = [randomPostings(rand, docs, 0.95), randomPostings(rand, docs, 0.6)];
  const seg = writeSegment(docs, terms);
  const norms = new Float64Array(docs * 3);
  for (let i = 0; i < norms.length; i++) norms[i] = 0.25 + (i % 7) / 8;
  const buf = new Int32Array(4096);
  const decoded = new Int32Array(4096);
  terms.forEach((postings, t) => {
    for (const stride of [1, 2, 3, 5]) {
      // `probed` visits every stride-th posting; `full` decodes each block first (nextDoc over every doc, tfs read)
      const probed = new PostingCursor(seg, t);
      const full = new PostingCursor(seg, t);
      for (let i = 0; i < postings.length; i += stride) {
        const p = postings[i]!;
        assert.equal(probed.advance(p.doc), p.doc);
        while (full.doc < p.doc) {
          full.nextDoc();
          full.tf(0);
        }
        // some docs: positions first (their tfs unread), some: tf' first, some: tfs only (positions skipped,
        // which must not shift a later doc's)
        const mode = (i / stride + t) % 4;
        if (mode === 0) {
          const n = probed.positions(buf);
          assert.deepEqual(Array.from(buf.subarray(0, n)), p.positions, `term ${t} doc ${p.doc} stride ${stride}`);
        }
        if (mode === 1) assert.equal(probed.tfPrime(norms), full.tfPrime(norms));
        assert.deepEqual([probed.tf(0), probed.tf(1), probed.tf(2)], p.tf);
        if (mode !== 2) {
          const n = probed.positions(buf);
          assert.deepEqual(Array.from(buf.subarray(0, n)), p.positions, `term ${t} doc ${p.doc} stride ${stride}`);
          assert.deepEqual(Array.from(buf.subarray(0, n)), Array.from(decoded.subarray(0, full.positions(decoded))));
        }
        assert.equal(probed.tfPrime(norms), full.tfPrime(norms));
      }
    }
  });
});

test('string tables (ids, work keys) read back every string: ASCII of each short length through the reused code arrays, non-ASCII and long ones decoded', () => {
  const strings = ['', 'a', 'doc-1', 'x'.repeat(64), 'y'.repeat(65), 'café', 'naïve-id', 'abcé', 'abcd', 'ι', 'α'.repeat(40), 'zz-😀', 'zz-ab', 'doc-2'];
  const enc = new TextEncoder();
  const parts = strings.map((x) => enc.encode(x));
  const off = new Uint32Array(parts.length + 1);
  for (let i = 0; i < parts.length; i++) off[i + 1] = off[i]! + parts[i]!.length;
  const blob = new Uint8Array(off[parts.length]!);
  parts.forEach((b, i) => blob.set(b, off[i]!));
  const table = new StringTable(blob, off);
  // twice, in both orders: a string read after another of the same length must not keep its codes
  for (const order of [strings.map((_, i) => i), strings.map((_, i) => strings.length - 1 - i)]) for (const i of order) assert.equal(table.get(i), strings[i]);
});

test('a segment written in format 1 or 2, or lacking a section, is refused with IndexFormatError (the host rebuilds it from the store)', () => {
  const seg = writeSegment(10, [randomPostings(lcg(1), 10, 1)]);
  for (const version of [1, 2]) {
    // 2: before stored fields (ADR 0280)
    const bytes = seg.file.bytes.slice();
    new DataView(bytes.buffer).setUint32(4, version, true);
    assert.throws(() => new Segment('old', bytes), { name: 'IndexFormatError', message: `unsupported segment version ${version}` });
  }
  // a file of this version without the sections this engine reads (e.g. written by a build between format changes)
  assert.throws(() => new Segment('empty', encodeSegmentFile(seg.file.meta, { other: new Uint8Array(8) })), { name: 'IndexFormatError', message: /section missing/ });
});

const VOCAB = ['alpha', 'beta', 'gamma', 'delta', 'cell', 'heat'];
const textArb = (max: number) => fc.array(fc.integer({ min: 0, max: VOCAB.length - 1 }), { maxLength: max }).map((a) => a.map((i) => VOCAB[i]).join(' '));
// long bodies give blocks whose docs hold many positions each
const docArb = fc.record({ title: textArb(5), abstract: textArb(40), body: textArb(400) });

function naivePhraseDocs(all: IndexDocument[], phrase: string): string[] {
  const want = tokenize(phrase, 'en').map((t) => t.term!);
  return all
    .filter((d) =>
      [d.title, d.abstract ?? '', d.body ?? ''].some((text) => {
        const toks = tokenize(text, 'en').filter((t) => !t.joined);
        const at = new Map(toks.map((t) => [t.position, t.term]));
        return toks.some((t) => want.every((w, j) => at.get(t.position + j) === w));
      }),
    )
    .map((d) => d.id)
    .sort();
}

test('phrases over many segments, after merging, and pruned against exhaustive agree with a naive scan', () => {
  fc.assert(
    fc.property(fc.array(docArb, { minLength: 130, maxLength: 300 }), fc.array(fc.integer({ min: 0, max: VOCAB.length - 1 }), { minLength: 2, maxLength: 3 }), fc.integer({ min: 1, max: 10 }), (docs, slots, k) => {
      const idx = SearchIndex.open(new MemoryIndexDirectory());
      const all: IndexDocument[] = docs.map((d, i) => ({ id: `d${String(i).padStart(4, '0')}`, ...d }));
      all.forEach((d, i) => {
        idx.add(d);
        if (i % 97 === 96) idx.commit(String(i));
      });
      idx.commit('end');
      const phrase = slots.map((i) => VOCAB[i]).join(' ');
      const expected = naivePhraseDocs(all, phrase);
      const queries = [`"${phrase}"`, `"${phrase}" ${VOCAB[slots[0]!]} gamma`];
      const run = (): string[][] =>
        queries.map((text) => {
          const full = idx.search({ text, limit: 500, passagesPerHit: 0, exhaustive: true });
          assert.deepEqual(full.hits.map((h) => h.id).sort(), expected, text);
          const pruned = idx.search({ text, limit: k, passagesPerHit: 0 });
          assert.deepEqual(pruned.hits.map((h) => [h.id, h.score]), full.hits.slice(0, k).map((h) => [h.id, h.score]), text);
          return full.hits.map((h) => `${h.id}:${h.score.toFixed(9)}`);
        });
      const before = run();
      idx.forceMerge(1);
      assert.equal(idx.stats().segments, 1);
      assert.deepEqual(run(), before);
      idx.close();
    }),
    { numRuns: 12 },
  );
});

test('token offsets round trip: short tokens in one byte, long tokens and wide gaps escaped, decoding stops at a char', () => {
  const rand = lcg(9);
  const n = 2000;
  const start = new Int32Array(n);
  const end = new Int32Array(n);
  const anchor = new Uint8Array(n);
  let c = 0;
  for (let p = 0; p < n; p++) {
    const r = rand();
    c += r < 0.7 ? 1 : r < 0.8 ? 0 : r < 0.9 ? 2 : Math.floor(rand() * 100_000);
    start[p] = c;
    c += rand() < 0.9 ? 1 + Math.floor(rand() * 15) : 16 + Math.floor(rand() * 300);
    end[p] = c;
    anchor[p] = rand() < 0.05 ? 1 : 0;
  }
  const sink = new ByteSink(16);
  sink.vbyte(99); // another field's bytes before
  const from = sink.length;
  encodeTokens(sink, start, end, anchor, n);
  assert.ok(sink.length - from < n * 2, `${sink.length - from} bytes for ${n} tokens`);
  const all = decodeTokens(sink.buf, from, sink.length, Infinity, null);
  assert.equal(all.count, n);
  assert.deepEqual(Array.from(all.start.subarray(0, n)), Array.from(start));
  assert.deepEqual(Array.from(all.end.subarray(0, n)), Array.from(end));
  assert.deepEqual(Array.from(all.anchor.subarray(0, n)), Array.from(anchor));
  const stop = start[1234]!;
  const part = decodeTokens(sink.buf, from, sink.length, stop, all);
  assert.equal(part.count, start.findIndex((s) => s >= stop));
});

test('token offsets of ordinary prose take under a byte per token (pairs of short words share one)', () => {
  const text = 'Alterations of the architecture of cerebral white matter in the developing human brain can affect cortical development and result in functional disabilities. A line scan diffusion-weighted magnetic resonance imaging (MRI) sequence with diffusion tensor analysis was applied to measure the apparent diffusion coefficient, to calculate relative anisotropy, and to delineate three-dimensional fiber architecture in cerebral white matter in preterm (n = 17) and full-term infants (n = 7).';
  const toks = tokenize(text, 'en').filter((t) => !t.joined);
  const n = toks.length;
  const start = Int32Array.from(toks.map((t) => t.startCp));
  const end = Int32Array.from(toks.map((t) => t.endCp));
  const anchor = new Uint8Array(n);
  for (const t of tokenize(text, 'en')) if (t.joined && t.term !== null) anchor[t.position] = 1;
  const sink = new ByteSink(16);
  encodeTokens(sink, start, end, anchor, n);
  assert.ok(sink.length < n * 0.85, `${sink.length} bytes for ${n} tokens`);
  const d = decodeTokens(sink.buf, 0, sink.length, Infinity, null);
  assert.deepEqual(Array.from(d.start.subarray(0, d.count)), Array.from(start));
  assert.deepEqual(Array.from(d.end.subarray(0, d.count)), Array.from(end));
  assert.deepEqual(Array.from(d.anchor.subarray(0, d.count)), Array.from(anchor));
});
