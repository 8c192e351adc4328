// Spelling correction: the bounded distance agrees with a plain optimal-string-alignment oracle, and the
// dictionary scan (ASCII byte fast path with a letter-count bound, decoded strings otherwise) finds
// exactly the terms the oracle accepts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MemoryIndexDirectory, SearchIndex } from '../../src/engine/index.js';
import { editDistance } from '../../src/engine/spelling.js';

function osa(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', 'é'), minLength: 0, maxLength: 9 });

test('bounded edit distance equals the oracle up to the bound', () => {
  fc.assert(
    fc.property(word, word, fc.integer({ min: 0, max: 3 }), (a, b, max) => {
      const want = osa(a, b);
      assert.equal(editDistance(a, b, max), want <= max ? want : max + 1);
    }),
    { numRuns: 2000 },
  );
});

test('corrections come from the dictionary: nearest term, ASCII and accented alike', () => {
  const index = SearchIndex.open(new MemoryIndexDirectory());
  const titles = ['mitochondrial membrane potential', 'protéine kinase activity', 'hydrogen storage in aquifers', 'membranes and channels'];
  titles.forEach((title, i) => index.add({ id: `d${i}`, title, language: 'en' }));
  index.commit('1');
  assert.equal(index.correctQuery('mitochondral membrane'), 'mitochondrial membrane');
  assert.equal(index.correctQuery('hydrgen storage'), 'hydrogen storage');
  assert.equal(index.correctQuery('protéin kinase'), null, 'a known stem needs no correction');
  assert.equal(index.correctQuery('protaine kinase'), 'protéine kinase');
  assert.equal(index.correctQuery('aquifers'), null);
  assert.equal(index.correctQuery('zzzzzzzz'), null);
  index.close();
});
