import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fuseRrf } from '../../src/engine/index.js';

test('RRF sums 1/(k+rank) with exact votes and deterministic ties', () => {
  const fused = fuseRrf([
    { channel: 'fulltext', ids: ['a', 'b', 'c'] },
    { channel: 'sparse', ids: ['b', 'd'] },
  ]);
  assert.deepEqual(fused.map((h) => h.id), ['b', 'a', 'd', 'c']);
  const b = fused[0]!;
  assert.equal(b.score, 1 / 62 + 1 / 61);
  assert.deepEqual(b.votes, [
    { channel: 'fulltext', rank: 2, contribution: 1 / 62 },
    { channel: 'sparse', rank: 1, contribution: 1 / 61 },
  ]);
  // a and d tie on score? a: 1/61, d: 1/62 -> a first; with k option
  assert.equal(fuseRrf([{ channel: 'x', ids: ['a'] }], { k: 1 })[0]!.score, 0.5);
  assert.throws(() => fuseRrf([], { k: 0 }));
});
