import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryIndexDirectory, SearchIndex } from '../../src/engine/index.js';

// Exact totals of phrase queries (ADR 0170) against a brute-force count over the live docs' words. A small
// vocabulary makes phrases frequent and near misses (the words present, not adjacent) more frequent still;
// several segments of several posting blocks (128 docs each), deletions, a type filter and work keys shared
// by up to a few dozen docs (so a collapsed page of 60 needs the ranking pass re-run, whose total comes from
// the separate counting pass) cover both ways a phrase total is counted.
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'kappa'];

interface LiveDoc {
  fields: string[][];
  key: string | null;
  type: string;
}

function corpus(): { idx: SearchIndex; live: Map<string, LiveDoc> } {
  let seed = 29;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  // per segment, a skewed word distribution (alpha common, kappa rare), different per segment
  const pick = (c: number): string => {
    const r = rnd() ** (1 + c * 0.5);
    return WORDS[Math.min(WORDS.length - 1, Math.floor(r * WORDS.length))]!;
  };
  const idx = SearchIndex.open(new MemoryIndexDirectory());
  const live = new Map<string, LiveDoc>();
  for (let c = 0; c < 3; c++) {
    const n = 280 + c * 150;
    for (let i = 0; i < n; i++) {
      const id = `d${c}-${i}`;
      const title = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => pick(c));
      const abstract = Array.from({ length: Math.floor(rnd() * 30) }, () => pick(c));
      const r = rnd();
      const key = r < 0.3 ? null : r < 0.5 ? `u-${id}` : `s-${Math.floor(rnd() * 40)}`;
      const type = rnd() < 0.5 ? 'journal-article' : 'preprint';
      idx.add({ id, title: title.join(' '), abstract: abstract.length ? abstract.join(' ') : null, type, issuedAt: 1_600_000_000 + i, language: 'en', uris: [], ...(key ? { workKey: key } : {}) });
      live.set(id, { fields: [title, abstract], key, type });
    }
    idx.commit(String(c));
    if (c < 2)
      for (const id of [...live.keys()].filter(() => rnd() < 0.08)) {
        idx.delete(id);
        live.delete(id);
      }
    idx.commit(`${c}d`);
  }
  return { idx, live };
}

/** Whether the words occur consecutively in one field (a phrase never spans fields). */
function holds(fields: string[][], phrase: string[]): boolean {
  return fields.some((f) => {
    for (let i = 0; i + phrase.length <= f.length; i++) if (phrase.every((w, j) => f[i + j] === w)) return true;
    return false;
  });
}

// [query text, its phrases]: the words outside quotes are optional (they rank, they do not filter)
const QUERIES: [string, string[][]][] = [
  ['"alpha beta"', [['alpha', 'beta']]],
  ['"beta alpha"', [['beta', 'alpha']]],
  ['"alpha alpha"', [['alpha', 'alpha']]],
  ['"gamma gamma gamma"', [['gamma', 'gamma', 'gamma']]],
  ['"alpha beta gamma"', [['alpha', 'beta', 'gamma']]],
  ['"delta alpha" omega', [['delta', 'alpha']]],
  ['kappa "beta beta" gamma', [['beta', 'beta']]],
  ['"alpha beta" "gamma delta"', [['alpha', 'beta'], ['gamma', 'delta']]],
  ['"alpha gamma" "gamma alpha"', [['alpha', 'gamma'], ['gamma', 'alpha']]],
  ['"kappa omega"', [['kappa', 'omega']]],
  ['"omega kappa alpha beta"', [['omega', 'kappa', 'alpha', 'beta']]],
];

test('exact totals of phrase queries equal brute force: repeated words, several phrases, words, filters, deletions, segments, works (ADR 0170)', () => {
  const { idx, live } = corpus();
  try {
    let nonZero = 0;
    for (const [text, phrases] of QUERIES) {
      for (const type of [null, 'preprint']) {
        let docs = 0;
        const works = new Set<string>();
        for (const [id, d] of live) {
          if ((type !== null && d.type !== type) || !phrases.every((p) => holds(d.fields, p))) continue;
          docs++;
          works.add(d.key ?? `own:${id}`);
        }
        if (docs > 0) nonZero++;
        const filters = type ? { filters: { types: [type] } } : {};
        const label = `${text} ${type ?? ''}`;
        const plain = idx.search({ text, limit: 3, exactTotal: true, ...filters });
        assert.equal(plain.totalHits, docs, `docs of ${label}`);
        assert.equal(plain.totalHitsExact, true);
        // the top hits of the counting (exhaustive) pass are those of the pruned pass
        const pruned = idx.search({ text, limit: 3, ...filters });
        assert.deepEqual(plain.hits.map((h) => [h.id, h.score]), pruned.hits.map((h) => [h.id, h.score]), `top hits of ${label}`);
        for (const limit of [3, 60]) {
          const collapsed = idx.search({ text, limit, exactTotal: true, collapseByWorkKey: true, ...filters });
          assert.equal(collapsed.totalHits, works.size, `works of ${label} (page of ${limit})`);
        }
      }
    }
    assert.ok(nonZero >= 12, `most queries match something (${nonZero})`);
  } finally {
    idx.close();
  }
});

test('exact totals of phrases whose slots have alternatives (query languages) equal brute force', () => {
  // "Häuser" with languages en+de is the slot {hauser (en), haus (de)}: English docs holding both words put
  // two alternatives' positions into one slot, merged per field
  const words = ['alt', 'hauser', 'haus', 'blau'];
  let seed = 5;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const idx = SearchIndex.open(new MemoryIndexDirectory());
  const live = new Map<string, string[][]>();
  try {
    for (let c = 0; c < 2; c++) {
      for (let i = 0; i < 400; i++) {
        const id = `d${c}-${i}`;
        const title = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => words[Math.floor(rnd() * words.length)]!);
        const abstract = Array.from({ length: Math.floor(rnd() * 25) }, () => words[Math.floor(rnd() * words.length)]!);
        idx.add({ id, title: title.join(' '), abstract: abstract.length ? abstract.join(' ') : null, type: 'journal-article', issuedAt: 1_600_000_000 + i, language: 'en', uris: [] });
        live.set(id, [title, abstract]);
      }
      idx.commit(String(c));
      for (const id of [...live.keys()].filter(() => rnd() < 0.05)) {
        idx.delete(id);
        live.delete(id);
      }
      idx.commit(`${c}d`);
    }
    const H = ['hauser', 'haus'];
    const cases: [string, string[][]][] = [
      ['"alt häuser"', [['alt'], H]],
      ['"häuser alt"', [H, ['alt']]],
      ['"häuser häuser"', [H, H]],
      ['"blau häuser alt"', [['blau'], H, ['alt']]],
    ];
    for (const [text, slots] of cases) {
      let docs = 0;
      for (const fields of live.values())
        if (fields.some((f) => f.some((_, i) => i + slots.length <= f.length && slots.every((alts, j) => alts.includes(f[i + j]!))))) docs++;
      assert.ok(docs > 0, text);
      const r = idx.search({ text, limit: 3, exactTotal: true, possibleLanguages: ['en', 'de'] });
      assert.equal(r.totalHits, docs, text);
    }
  } finally {
    idx.close();
  }
});
