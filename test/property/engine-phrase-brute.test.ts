// Phrase queries against a brute-force check (ADR 0382): on small random corpora whose segments keep pair
// postings (ADR 0175) for most of their vocabulary, every phrase query's exact total and its hits (with a
// limit above the total) are the documents a scan of the analysed text finds, with and without the pairs.
// The scan reads each field's tokens (term and position, stopwords keep their slot) from the analyser and
// looks for every slot's term at the first slot's position plus the slot's offset. Pair-driven joins (a
// pair list that misses a document loses a match), three-word phrases (two pairs intersected before any
// position is read), stopword gaps, deletions, a type filter and merges (segments with different common
// sets) are covered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MemoryIndexDirectory, SearchIndex, type EngineQuery } from '../../src/engine/index.js';
import { tokenize } from '../../src/engine/analyzer.js';
import { parseQuery } from '../../src/engine/query-parser.js';

const VOCAB = ['cell', 'protein', 'heat', 'of', 'shock', 'growth', 'the', 'factor', 'alpha', 'beta', 'kappa', 'rare', 'gene', 'with', 'tumor', 'signal'];

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

/** Per field, position -> terms at that position (the analyser's own tokens). */
function analysed(fields: string[]): Map<number, string[]>[] {
  return fields.map((text) => {
    const m = new Map<number, string[]>();
    for (const t of tokenize(text, 'en')) {
      if (t.term === null) continue;
      const l = m.get(t.position) ?? [];
      l.push(t.term);
      m.set(t.position, l);
    }
    return m;
  });
}

function holds(doc: Map<number, string[]>[], slots: { terms: string[]; offset: number }[]): boolean {
  for (const field of doc) {
    for (const p of field.keys()) {
      if (slots.every((s) => (field.get(p + s.offset) ?? []).some((t) => s.terms.includes(t)))) return true;
    }
  }
  return false;
}

test('phrase totals and hits equal a brute-force scan of the analysed text (pair-driven joins, gaps, deletions, merges)', () => {
  let pairDriven = 0;
  let matched = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 2 ** 31 - 1 }),
      fc.record({ docs: fc.integer({ min: 40, max: 240 }), commits: fc.integer({ min: 1, max: 3 }), maxTerms: fc.integer({ min: 2, max: 16 }), merge: fc.boolean(), deleteEvery: fc.integer({ min: 3, max: 30 }) }),
      (seed, opts) => {
        const rnd = rng(seed);
        const idx = SearchIndex.open(new MemoryIndexDirectory(), { pairRule: { minDocs: 1, dfFraction: 0.02, maxTerms: opts.maxTerms } });
        const per = Math.ceil(opts.docs / opts.commits);
        const texts: string[][] = [];
        const types: string[] = [];
        for (let i = 0; i < opts.docs; i++) {
          const seg = Math.floor(i / per);
          const word = () => VOCAB[(Math.floor(rnd() ** 1.5 * VOCAB.length) + seg * 5) % VOCAB.length]!;
          const text = (max: number) => Array.from({ length: Math.floor(rnd() * max) }, word).join(' ');
          const f = [text(6), text(30), rnd() < 0.6 ? text(60) : ''];
          texts.push(f);
          types.push(rnd() < 0.5 ? 'preprint' : 'journal-article');
          idx.add({ id: `d${String(i).padStart(4, '0')}`, title: f[0]!, abstract: f[1] || null, body: f[2] || null, language: 'en', type: types[i]! });
          if ((i + 1) % per === 0) idx.commit(String(i));
        }
        idx.commit('end');
        const deleted = new Set<number>();
        for (let i = Math.floor(rnd() * opts.deleteEvery); i < opts.docs; i += opts.deleteEvery) {
          idx.delete(`d${String(i).padStart(4, '0')}`);
          deleted.add(i);
        }
        idx.commit('deleted');
        if (opts.merge) idx.forceMerge(1);
        const docs = texts.map(analysed);
        for (let qi = 0; qi < 10; qi++) {
          // a phrase cut from a document (so it mostly matches), 2 or 3 words, sometimes a word replaced
          let f = texts[Math.floor(rnd() * texts.length)]![1]!.split(' ').filter((w) => w.length > 0);
          if (f.length < 3) f = ['heat', 'shock', 'protein'];
          const n = rnd() < 0.7 ? 2 : 3;
          const start = Math.floor(rnd() * (f.length - n + 1));
          const words = f.slice(start, start + n);
          if (rnd() < 0.2) words[Math.floor(rnd() * n)] = VOCAB[Math.floor(rnd() * VOCAB.length)]!;
          const extra = rnd() < 0.4 ? ` ${VOCAB[Math.floor(rnd() * VOCAB.length)]!}` : '';
          const text = `"${words.join(' ')}"${extra}`;
          const parsed = parseQuery(text, ['en'], 'en');
          if (parsed.phrases.length === 0) continue; // stopwords only
          const filter = rnd() < 0.25 ? 'preprint' : null;
          const want: string[] = [];
          for (let i = 0; i < docs.length; i++) {
            if (deleted.has(i) || (filter !== null && types[i] !== filter)) continue;
            if (parsed.phrases.every((p) => holds(docs[i]!, p.slots))) want.push(`d${String(i).padStart(4, '0')}`);
          }
          for (const phrasePairs of [true, false]) {
            const q: EngineQuery = { text, limit: docs.length + 1, exactTotal: true, possibleLanguages: ['en'], phrasePairs, trace: true, ...(filter !== null ? { filters: { types: [filter] } } : {}) };
            const r = idx.search(q);
            assert.equal(r.totalHits, want.length, `${text} pairs=${phrasePairs}`);
            assert.deepEqual(r.hits.map((h) => h.id).sort(), want, `${text} pairs=${phrasePairs}`);
            // a pruned pass (limit 1): its hit is a match
            const one = idx.search({ ...q, limit: 1, exactTotal: false });
            for (const h of one.hits) assert.ok(want.includes(h.id), `${text} pairs=${phrasePairs} limit 1`);
            if (phrasePairs) {
              const without = idx.search({ ...q, phrasePairs: false });
              const candidates = (x: typeof r) => (x.trace?.segments ?? []).reduce((s, g) => s + g.candidates, 0);
              if (candidates(r) < candidates(without)) pairDriven++;
            }
          }
          matched += want.length > 0 ? 1 : 0;
        }
      },
    ),
    { numRuns: 40 },
  );
  // the property must exercise the pair path and matching phrases, not only empty results
  assert.ok(pairDriven > 20, `pair-driven queries: ${pairDriven}`);
  assert.ok(matched > 100, `queries with matches: ${matched}`);
});
