import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryIndexDirectory, SearchIndex } from '../../src/engine/index.js';
import { DEFAULT_BITSET_BUDGET, setTermBitsetBudget, termBitsetBytes, termBitsetStats } from '../../src/engine/term-bitsets.js';

// Seeded corpus whose words span both sides of the dense threshold (df >= docCount/32): a word's share of
// docs differs by segment, so one term is dense in some segments and sparse in others, and segments hold
// several posting blocks (128 docs each). Docs carry no key, a unique key or a key shared by 2-3 docs across
// segments; some are deleted. Every total is checked against a brute-force count of the live docs.
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'kappa', 'sigma', 'theta', 'zeta'];
// per segment: probability of each word in a doc (dense ~ >= 1/32 = 0.031)
const RATES = [
  [0.6, 0.3, 0.1, 0.04, 0.02, 0.005, 0.002, 0.3, 0.05],
  [0.5, 0.01, 0.2, 0.004, 0.08, 0.03, 0.0, 0.02, 0.4],
  [0.2, 0.5, 0.005, 0.1, 0.01, 0.06, 0.001, 0.3, 0.02],
  [0.7, 0.05, 0.02, 0.3, 0.003, 0.01, 0.04, 0.0, 0.25],
];

interface LiveDoc {
  words: Set<string>;
  key: string | null;
  type: string;
  issued: number;
}

function corpus(): { idx: SearchIndex; live: Map<string, LiveDoc> } {
  let seed = 11;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const idx = SearchIndex.open(new MemoryIndexDirectory());
  const live = new Map<string, LiveDoc>();
  for (let c = 0; c < RATES.length; c++) {
    const n = 300 + c * 170;
    for (let i = 0; i < n; i++) {
      const id = `d${c}-${i}`;
      const r = rnd();
      const key = r < 0.3 ? null : r < 0.6 ? `u-${id}` : `s-${Math.floor(rnd() * 300)}`;
      const words = WORDS.filter((_, w) => rnd() < RATES[c]![w]!);
      const text = words.join(' ') || 'filler';
      const type = rnd() < 0.5 ? 'journal-article' : 'preprint';
      const issued = 1_600_000_000 + i;
      idx.add({ id, title: text, abstract: null, type, issuedAt: issued, language: 'en', uris: [], ...(key ? { workKey: key } : {}) });
      live.set(id, { words: new Set(words), key, type, issued });
    }
    idx.commit(String(c));
    // deletions in the first segments (the last ones stay whole and take the solo path when collapsing)
    if (c < 2)
      for (const id of [...live.keys()].filter(() => rnd() < 0.07)) {
        idx.delete(id);
        live.delete(id);
      }
    idx.commit(`${c}d`);
  }
  return { idx, live };
}

const QUERIES = [['alpha'], ['beta', 'gamma'], ['delta', 'omega', 'alpha'], ['omega'], ['kappa', 'sigma'], ['theta', 'zeta', 'beta'], ['sigma'], ['alpha', 'alpha beta']];

function check(idx: SearchIndex, live: Map<string, LiveDoc>, label: string): void {
  for (const q of QUERIES) {
    const terms = q.flatMap((t) => t.split(' '));
    // issued ranges (ADR 0190: the filter as one bitset) open or closed, inside and across segments' times
    for (const [type, after, before] of [[null, null, null], ['preprint', null, null], [null, 1_600_000_100, 1_600_000_400], ['preprint', null, 1_600_000_250], ['journal-article', 1_600_000_555, null]] as const) {
      let docs = 0;
      const works = new Set<string>();
      for (const [id, d] of live) {
        if (!terms.some((t) => d.words.has(t)) || (type !== null && d.type !== type)) continue;
        if ((after !== null && d.issued < after) || (before !== null && d.issued > before)) continue;
        docs++;
        works.add(d.key ?? `own:${id}`);
      }
      const f = { types: type === null ? null : [type], issuedAfter: after, issuedBefore: before };
      const filters = type !== null || after !== null || before !== null ? { filters: f } : {};
      const text = q.join(' ');
      const what = `${text} ${JSON.stringify(f)}`;
      const plain = idx.search({ text, limit: 3, exactTotal: true, ...filters });
      assert.equal(plain.totalHits, docs, `${label}: docs of ${what}`);
      assert.equal(plain.totalHitsExact, true);
      const collapsed = idx.search({ text, limit: 3, exactTotal: true, collapseByWorkKey: true, ...filters });
      assert.equal(collapsed.totalHits, works.size, `${label}: works of ${what}`);
    }
  }
}

test('exact totals from dense-term bitsets equal brute force: deletions, filters, shared keys, segments (ADR 0165)', () => {
  const { idx, live } = corpus();
  try {
    const before = { ...termBitsetStats };
    check(idx, live, 'first pass (bitsets built)');
    assert.ok(termBitsetStats.built > before.built, 'dense terms built bitsets');
    const built = termBitsetStats.built;
    check(idx, live, 'second pass (bitsets kept)');
    assert.equal(termBitsetStats.built, built, 'kept bitsets are reused, not rebuilt');
    assert.ok(termBitsetStats.used > before.used, 'the union read kept bitsets');
    assert.ok(termBitsetBytes() > 0);
    // the decode path alone (bitsets off) gives the same totals
    setTermBitsetBudget(0);
    check(idx, live, 'decode path');
  } finally {
    setTermBitsetBudget(DEFAULT_BITSET_BUDGET);
    idx.close();
  }
});

test('a spent bitset budget leaves terms on the decode path, totals unchanged', () => {
  const { idx, live } = corpus();
  try {
    const start = termBitsetBytes();
    // room for about one more bitset of the largest segment
    setTermBitsetBudget(start + 300);
    check(idx, live, 'tight budget');
    assert.ok(termBitsetBytes() <= start + 300);
  } finally {
    setTermBitsetBudget(DEFAULT_BITSET_BUDGET);
    idx.close();
  }
});
