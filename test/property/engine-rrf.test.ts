import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fuseRrf } from '../../src/engine/index.js';

const listArb = fc.uniqueArray(fc.integer({ min: 0, max: 40 }).map((i) => `doc${i}`), { maxLength: 25 });

test('RRF ignores the order of its input lists and counts every vote exactly', () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.constantFrom('fulltext', 'sparse', 'dense', 'binary', 'short'), { minLength: 1, maxLength: 5 }), fc.array(listArb, { minLength: 5, maxLength: 5 }), fc.integer({ min: 1, max: 100 }), fc.context(), (channels, lists, k, ctx) => {
      const input = channels.map((c, i) => ({ channel: c, ids: lists[i]! }));
      const a = fuseRrf(input, { k });
      const shuffled = [...input].reverse();
      shuffled.push(shuffled.shift()!);
      const b = fuseRrf(shuffled, { k });
      ctx.log(JSON.stringify(input));
      assert.deepEqual(a, b);
      for (const h of a) {
        const expect = input.flatMap((l) => (l.ids.includes(h.id) ? [1 / (k + l.ids.indexOf(h.id) + 1)] : []));
        assert.ok(Math.abs(h.score - expect.reduce((s, x) => s + x, 0)) < 1e-15);
        assert.equal(h.votes.length, expect.length);
      }
    }),
    { numRuns: 200 },
  );
});
