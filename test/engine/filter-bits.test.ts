// A filter as one bitset (ADR 0190): the issued-range index (docs sorted by issue time, prefix bitsets per
// bucket) and the composed bitset of deletions, columns and range must give exactly the docs that the
// per-doc check (`allowed`) passes, whatever the segment size (one bucket or many), the duplicated or
// unknown times and the range's ends (inside a bucket, on a boundary, outside every time, inverted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SegmentWriter } from '../../src/engine/segment-writer.js';
import { Segment } from '../../src/engine/segment.js';
import { compileFilter, issuedRangeBits } from '../../src/engine/filters.js';

const TYPES = ['journal-article', 'preprint', 'book', null];

function segmentOf(issued: number[], types: (string | null)[]): Segment {
  const w = new SegmentWriter({ w: [2, 1, 1], b: [0.5, 0.75, 0.75] });
  issued.forEach((t, d) =>
    w.addDoc({ id: `d${String(d).padStart(5, '0')}`, fieldLen: [1, 0, 0], fieldCp: [5, 0, 0], issued: t, type: types[d]!, language: 'en', publisher: null, workKey: null, chunks: [], keywords: [], tokens: new Uint8Array(0), tokenFieldEnds: [0, 0, 0] }),
  );
  w.beginTerm('word', '');
  for (let d = 0; d < issued.length; d++) w.addPosting(d, 1, 0, 0, [0], 0);
  w.endTerm();
  return new Segment('seg', w.finish());
}

function bitsToDocs(bits: Int32Array, n: number): number[] {
  const out: number[] = [];
  for (let d = 0; d < bits.length * 32; d++) if ((bits[d >>> 5]! & (1 << (d & 31))) !== 0) out.push(d);
  assert.ok(out.every((d) => d < n), 'no bit past the last doc');
  return out;
}

// times drawn from a small set (many duplicates, so bucket boundaries fall inside runs of equal times),
// some unknown (NaN: never in a range)
const caseArb = fc
  .record({
    n: fc.integer({ min: 1, max: 4000 }),
    distinct: fc.integer({ min: 1, max: 400 }),
    unknownShare: fc.double({ min: 0, max: 0.5, noNaN: true }),
    seed: fc.integer({ min: 1, max: 2 ** 30 }),
    ranges: fc.array(fc.tuple(fc.integer({ min: -3, max: 404 }), fc.integer({ min: -3, max: 404 }), fc.constantFrom('both', 'lo', 'hi')), { minLength: 1, maxLength: 8 }),
    deleteShare: fc.constantFrom(0, 0.05, 0.5),
    typeFilter: fc.constantFrom<(string[] | null)[]>(null, ['preprint'], ['journal-article', 'book']),
  })
  .map((c) => {
    let s = c.seed;
    const rnd = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const issued = Array.from({ length: c.n }, () => (rnd() < c.unknownShare ? NaN : 1_000_000 + 1000 * Math.floor(rnd() * c.distinct)));
    const types = Array.from({ length: c.n }, () => TYPES[Math.floor(rnd() * TYPES.length)]!);
    const deleted = c.deleteShare === 0 ? null : new Uint32Array((c.n + 31) >>> 5);
    if (deleted !== null) for (let d = 0; d < c.n; d++) if (rnd() < c.deleteShare) deleted[d >>> 5]! |= 1 << (d & 31);
    return { ...c, issued, types, deleted };
  });

test('issuedRangeBits equals a scan of the issue times, any segment size and range', () => {
  fc.assert(
    fc.property(caseArb, (c) => {
      const seg = segmentOf(c.issued, c.types);
      for (const [x, y, ends] of c.ranges) {
        // ends on a time (x * 1000), between two, or open
        const lo = ends === 'hi' ? -Infinity : 1_000_000 + 1000 * x + (x % 2 === 0 ? 0 : 500);
        const hi = ends === 'lo' ? Infinity : 1_000_000 + 1000 * y;
        const want = c.issued.flatMap((t, d) => (t >= lo && t <= hi ? [d] : []));
        assert.deepEqual(bitsToDocs(issuedRangeBits(seg, lo, hi), c.n), want, `n ${c.n} range [${lo}, ${hi}]`);
      }
    }),
    { numRuns: 60 },
  );
});

test('a compiled filter bitset passes exactly the docs allowed() passes (deletions, types, issued range)', () => {
  fc.assert(
    fc.property(caseArb, (c) => {
      const seg = segmentOf(c.issued, c.types);
      for (const [x, y, ends] of c.ranges) {
        const filters = {
          types: c.typeFilter,
          issuedAfter: ends === 'hi' ? null : 1_000_000 + 1000 * x,
          issuedBefore: ends === 'lo' ? null : 1_000_000 + 1000 * y,
        };
        for (const f of [filters, { types: c.typeFilter }, undefined]) {
          const compiled = compileFilter(seg, f, c.deleted);
          const bits = compiled.bits();
          if (compiled.none) {
            // nothing can match: an empty bitset (callers skip such segments before asking)
            if (bits !== null) assert.deepEqual(bitsToDocs(bits, c.n), []);
            continue;
          }
          const want = c.issued.flatMap((_, d) => (compiled.allowed(d) ? [d] : []));
          if (bits === null) {
            assert.ok(compiled.trivial);
            assert.equal(want.length, c.n);
          } else {
            assert.deepEqual(bitsToDocs(bits, c.n), want);
            assert.equal(compiled.bits(), bits, 'composed once per compiled filter');
          }
        }
      }
    }),
    { numRuns: 40 },
  );
});

test('column bitsets: one cache entry per set of values (any order, repeats), least recently used dropped first', () => {
  const n = 500;
  const seg = segmentOf(Array.from({ length: n }, (_, d) => 1_000_000 + d), Array.from({ length: n }, (_, d) => TYPES[d % TYPES.length]!));
  const bitsOf = (types: string[]) => compileFilter(seg, { types }, null).bits()!;
  const kept = () => new Set(seg.filterBits.values());
  assert.deepEqual(bitsToDocs(bitsOf(['preprint', 'book']), n), Array.from({ length: n }, (_, d) => d).filter((d) => d % 4 === 1 || d % 4 === 2));
  const [a] = kept();
  assert.deepEqual(bitsToDocs(bitsOf(['book', 'preprint', 'book']), n), bitsToDocs(a!, n));
  assert.equal(seg.filterBits.size, 1, 'same set of values, same entry');
  // many other sets (unknown types: each its own entry); the first one, used again in between, stays
  for (let i = 0; i < 100; i++) {
    compileFilter(seg, { types: ['journal-article', `other-${i}`] }, null).bits();
    if (i % 10 === 0) bitsOf(['preprint', 'book']);
  }
  assert.ok(seg.filterBits.size <= 64, 'bounded');
  assert.ok(kept().has(a!), 'recently used: kept');
  compileFilter(seg, { types: ['journal-article', 'other-0'] }, null).bits();
  assert.equal(seg.filterBits.size, 64);
});
