// Shard routing (ADR 0200): stable (pinned values and MurmurHash3's published vectors), consistent (a work
// either stays or moves to the new shard when one is added), all versions of a work in one shard, and
// about uniform over the shards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { jumpHash, murmur3, routingKey, shardOfWork } from '../../src/domain/shard-routing.js';

const enc = new TextEncoder();

test('murmur3 matches the reference implementation on published vectors', () => {
  assert.equal(murmur3(enc.encode(''), 0), 0);
  assert.equal(murmur3(enc.encode(''), 1), 0x514e28b7);
  assert.equal(murmur3(enc.encode('hello'), 0), 0x248bfa47);
  assert.equal(murmur3(enc.encode('The quick brown fox jumps over the lazy dog'), 0), 0x2e4ff723);
  assert.equal(murmur3(new Uint8Array([0x21, 0x43, 0x65, 0x87]), 0), 0xf55b516b);
  assert.equal(murmur3(new Uint8Array([0x21, 0x43, 0x65]), 0), 0x7e4a8634);
});

test('jump hash matches the paper\'s C++ reference (compiled with gcc) on these keys', () => {
  const keys = [0xdeadbeefn, 1n, 0xffffffffffffffffn, 123456789012345n];
  const buckets = [2, 3, 10, 1000, 4096];
  const ref = [
    [1, 2, 5, 285, 2238],
    [0, 0, 6, 549, 2323],
    [1, 2, 9, 313, 1921],
    [0, 2, 7, 76, 76],
  ];
  assert.deepEqual(keys.map((k) => buckets.map((n) => jumpHash(k, n))), ref);
  for (const n of [1, 2, 3, 10, 100, 1000]) assert.equal(jumpHash(0n, n), 0);
});

test('routing is pinned: these keys map to these shards forever (a change would re-shard every cluster)', () => {
  const keys = ['w:10.1000/xyz123', 'doi://10.1038/nature12373', 'arxiv://2101.00001', 'work-0', 'ünïcødé-κλειδί', ''];
  const got = keys.map((k) => [2, 3, 8, 64].map((s) => shardOfWork(k, s)));
  assert.deepEqual(got, PINNED);
});

// computed once by this implementation; committed so that any change of the function fails here
const PINNED = [
  [0, 0, 6, 54],
  [0, 2, 2, 26],
  [0, 2, 2, 36],
  [1, 1, 7, 7],
  [0, 0, 4, 34],
  [0, 0, 0, 48],
];

test('every version of a work routes to the shard of its work key', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 1, maxLength: 40 }), fc.array(fc.string({ minLength: 1, maxLength: 20 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 64 }), (workKey, ids, shards) => {
      const s = new Set(ids.map((id) => shardOfWork(routingKey({ id, workKey }), shards)));
      assert.equal(s.size, 1);
      assert.equal([...s][0], shardOfWork(workKey, shards));
    }),
  );
  assert.equal(routingKey({ id: 'x', workKey: null }), 'x');
});

test('consistent: adding a shard moves a key only to the new shard', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 60 }), fc.integer({ min: 1, max: 200 }), (key, s) => {
      const a = shardOfWork(key, s);
      const b = shardOfWork(key, s + 1);
      assert.ok(a >= 0 && a < s);
      assert.ok(b === a || b === s, `${key}: ${a} -> ${b}`);
    }),
    { numRuns: 500 },
  );
});

test('about uniform: 20,000 work keys over 2, 5 and 16 shards stay within 4 standard deviations of the mean per shard', () => {
  for (const shards of [2, 5, 16]) {
    const counts = new Array<number>(shards).fill(0);
    const n = 20_000;
    for (let i = 0; i < n; i++) counts[shardOfWork(`https://openalex.org/W${1_000_000 + i * 7}`, shards)]!++;
    const mean = n / shards;
    // within 4 binomial standard deviations of the mean (deterministic inputs, so no flakiness)
    const sd = Math.sqrt(n * (1 / shards) * (1 - 1 / shards));
    for (const c of counts) assert.ok(Math.abs(c - mean) < 4 * sd, `${shards} shards: ${counts.join(',')}`);
  }
});

test('invalid shard counts are refused', () => {
  for (const s of [0, -1, 1.5, Number.NaN, 5000]) assert.throws(() => shardOfWork('k', s), RangeError);
});
