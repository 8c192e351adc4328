// Phrase pair postings (ADR 0175) change which documents a phrase query visits, never its results: the same
// index searched with and without them (`phrasePairs: false`) gives the same hits, scores, passages,
// hasMore and exact totals. Random documents over a small skewed vocabulary (so pairs of common words are
// frequent, and each segment picks a different common set), with stopwords (a kept slot that is not
// indexed), hyphenated compounds and identifiers (joined forms at the first part's position), German
// documents and queries analysed as English and German (slots with two alternatives), deletions, type
// filters, work keys (collapse), segments with different common sets, and merges of them. Phrases are
// mostly cut from the documents (so they match), some with a word replaced (near misses).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MemoryIndexDirectory, SearchIndex, type EngineQuery } from '../../src/engine/index.js';

const VOCAB = ['cell', 'häuser', 'protein', 'kinder', 'heat', 'of', 'shock', 'growth', 'the', 'factor', 'cells', 'alpha', 'il-6', 'p53', 'beta', 'rare', 'kappa'];

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

test('phrase results are the same with and without pair postings (stopwords, compounds, languages, deletions, filters, collapse, merges)', () => {
  let visitedWith = 0;
  let visitedWithout = 0;
  let matched = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 2 ** 31 - 1 }),
      fc.record({ docs: fc.integer({ min: 60, max: 320 }), commits: fc.integer({ min: 1, max: 4 }), dfFraction: fc.constantFrom(0.01, 0.05, 0.2), maxTerms: fc.integer({ min: 1, max: 30 }), merge: fc.boolean(), deleteEvery: fc.integer({ min: 3, max: 20 }) }),
      (seed, opts) => {
        const rnd = rng(seed);
        const idx = SearchIndex.open(new MemoryIndexDirectory(), { pairRule: { minDocs: 1, dfFraction: opts.dfFraction, maxTerms: opts.maxTerms } });
        const per = Math.ceil(opts.docs / opts.commits);
        const fields: string[][] = [];
        for (let i = 0; i < opts.docs; i++) {
          // skewed word choice, rotated per segment, so the segments' common sets differ
          const seg = Math.floor(i / per);
          const word = () => VOCAB[(Math.floor(rnd() ** 2 * VOCAB.length) + seg * 3) % VOCAB.length]!;
          const text = (max: number) => Array.from({ length: Math.floor(rnd() * max) }, word);
          const title = text(7);
          const abstract = text(40);
          const body = rnd() < 0.6 ? text(80) : [];
          fields.push(title, abstract, body);
          const work = rnd() < 0.5 ? { workKey: `w${Math.floor(rnd() * 30)}` } : {};
          idx.add({ id: `d${String(i).padStart(4, '0')}`, title: title.join(' '), abstract: abstract.join(' ') || null, body: body.join(' ') || null, language: rnd() < 0.35 ? 'de' : 'en', type: rnd() < 0.5 ? 'preprint' : 'journal-article', ...work });
          if ((i + 1) % per === 0) idx.commit(String(i));
        }
        idx.commit('end');
        for (let i = 0; i < opts.docs; i += opts.deleteEvery) idx.delete(`d${String(i).padStart(4, '0')}`);
        idx.commit('deleted');
        if (opts.merge) idx.forceMerge(1);
        const phrase = (): string => {
          let f = fields[Math.floor(rnd() * fields.length)]!;
          while (f.length < 2) f = fields[Math.floor(rnd() * fields.length)]!;
          const n = 2 + Math.floor(rnd() * 3);
          const start = Math.floor(rnd() * Math.max(1, f.length - n + 1));
          const words = f.slice(start, start + n);
          if (rnd() < 0.25) words[Math.floor(rnd() * words.length)] = rnd() < 0.2 ? 'absent' : VOCAB[Math.floor(rnd() * VOCAB.length)]!;
          return `"${words.join(' ')}"`;
        };
        for (let qi = 0; qi < 8; qi++) {
          const phrases = rnd() < 0.25 ? [phrase(), phrase()] : [phrase()];
          const words = Array.from({ length: Math.floor(rnd() * 3) }, () => VOCAB[Math.floor(rnd() * VOCAB.length)]!);
          const q: EngineQuery = {
            text: `${phrases.join(' ')} ${words.join(' ')}`,
            limit: 1 + Math.floor(rnd() * 30),
            exactTotal: rnd() < 0.5,
            collapseByWorkKey: rnd() < 0.3,
            possibleLanguages: rnd() < 0.4 ? ['en', 'de'] : ['en'],
            ...(rnd() < 0.3 ? { filters: { types: ['preprint'] } } : {}),
            ...(rnd() < 0.2 ? { phraseBoost: 0 } : {}),
            trace: true,
          };
          const withPairs = idx.search(q);
          const without = idx.search({ ...q, phrasePairs: false });
          const view = (r: typeof withPairs) => r.hits.map((h) => ({ id: h.id, score: h.score, passages: h.passages }));
          assert.deepEqual(view(withPairs), view(without), q.text);
          assert.equal(withPairs.hasMore, without.hasMore);
          if (q.exactTotal) {
            assert.equal(withPairs.totalHits, without.totalHits, q.text);
            assert.equal(withPairs.totalHitsExact, without.totalHitsExact);
          }
          if (without.hits.length > 0) matched++;
          for (const s of withPairs.trace!.segments) visitedWith += s.candidates;
          for (const s of without.trace!.segments) visitedWithout += s.candidates;
        }
        idx.close();
      },
    ),
    { numRuns: 30 },
  );
  // the phrases matched, and the pairs were used: they pass fewer candidates to verification
  assert.ok(matched > 100, `${matched} queries matched`);
  assert.ok(visitedWith < visitedWithout, `${visitedWith} candidates with pairs, ${visitedWithout} without`);
});
