// Pair postings (ADR 0175): each segment's common-term set follows the rule from its own document
// frequencies; a pair's list holds exactly the docs where its two terms are adjacent (positions p, p + 1 of
// one field: stopword slots and joined forms included) by brute force over the analysed text, as built and
// after merges of segments with different sets; segments written without pairs still open and search; and
// the pairs are invisible to everything but the phrase driver (dictionary, dfs, suggestions, explain,
// word queries, stats other than postings).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Segment } from '../../src/engine/segment.js';
import { commonTerms, DEFAULT_PAIR_RULE, pairDocs, type PairRule } from '../../src/engine/pair-postings.js';
import { MemoryIndexDirectory, SearchIndex, tokenize } from '../../src/engine/index.js';

const VOCAB = ['cell', 'protein', 'heat', 'shock', 'of', 'the', 'growth', 'factor', 'il-6', 'p53', 'alpha', 'beta', 'kappa', 'rare'];

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

interface Doc {
  id: string;
  title: string;
  abstract: string;
}

function docs(n: number, seed: number, skew: number): Doc[] {
  const r = lcg(seed);
  const word = () => VOCAB[(Math.floor(r() ** 2 * VOCAB.length) + skew) % VOCAB.length]!;
  return Array.from({ length: n }, (_, i) => ({
    id: `s${seed}-${i}`,
    title: Array.from({ length: 1 + Math.floor(r() * 5) }, word).join(' '),
    abstract: Array.from({ length: Math.floor(r() * 30) }, word).join(' '),
  }));
}

function segments(dir: MemoryIndexDirectory): Segment[] {
  const m = JSON.parse(new TextDecoder().decode(dir.read('manifest.json')!)) as { segments: { name: string }[] };
  return m.segments.map((s) => new Segment(s.name, dir.read(s.name)!));
}

/** Docs (segment-local) where term b is right after term a in one field, from the analysed text. */
function bruteForce(seg: Segment, text: Map<string, Doc>, a: string, b: string): number[] {
  const out: number[] = [];
  for (let d = 0; d < seg.docCount; d++) {
    const doc = text.get(seg.id(d))!;
    const holds = [doc.title, doc.abstract].some((f) => {
      const at = new Map<number, Set<string>>();
      for (const t of tokenize(f, 'en')) if (t.term !== null) (at.get(t.position) ?? at.set(t.position, new Set()).get(t.position)!).add(t.term);
      for (const [p, terms] of at) if (terms.has(a) && at.get(p + 1)?.has(b)) return true;
      return false;
    });
    if (holds) out.push(d);
  }
  return out;
}

function checkSegment(seg: Segment, text: Map<string, Doc>, rule: PairRule): number {
  const want = commonTerms(seg.termDf, seg.terms.size, seg.docCount, rule);
  const p = seg.pairs;
  if (want.length === 0) {
    assert.equal(p, null);
    return 0;
  }
  assert.ok(p !== null);
  assert.deepEqual([...p.set], want);
  // the rule: every kept term has df >= the fraction (and 2), none left out has a higher df than one kept
  const minDf = Math.max(2, Math.ceil(rule.dfFraction * seg.docCount));
  for (const t of want) assert.ok(seg.termDf[t]! >= minDf);
  assert.ok(want.length <= rule.maxTerms);
  let nonEmpty = 0;
  for (let i = 0; i < want.length; i++) {
    for (let j = 0; j < want.length; j++) {
      const a = seg.terms.get(want[i]!);
      const b = seg.terms.get(want[j]!);
      const expected = bruteForce(seg, text, a, b);
      const pair: number = p.find(i, j);
      assert.deepEqual(pair < 0 ? [] : pairDocs(p, pair), expected, `${a} ${b}`);
      if (expected.length > 0) nonEmpty++;
    }
  }
  return nonEmpty;
}

test('pair lists hold exactly the docs with the two common terms adjacent, as built and after merging segments with different sets', () => {
  const rule: PairRule = { minDocs: 50, dfFraction: 0.08, maxTerms: 7 };
  const dir = new MemoryIndexDirectory();
  const idx = SearchIndex.open(dir, { pairRule: rule });
  const text = new Map<string, Doc>();
  // three segments, each skewed towards other words (so their sets differ), the last below minDocs
  for (const [seed, n, skew] of [[1, 400, 0], [2, 300, 5], [3, 30, 9]] as const) {
    for (const d of docs(n, seed, skew)) {
      idx.add(d);
      text.set(d.id, d);
    }
    idx.commit(String(seed));
  }
  // deleted docs stay in the built segments (and in `text`); the merge drops them
  const deleted = [...text.keys()].filter((_, i) => i % 7 === 0);
  for (const id of deleted) idx.delete(id);
  idx.commit('deleted');
  const built = segments(dir);
  assert.equal(built.length, 3);
  assert.equal(built[2]!.pairs, null); // below minDocs
  const sets = built.slice(0, 2).map((s) => [...s.pairs!.set].map((t) => s.terms.get(t)).join(' '));
  assert.notEqual(sets[0], sets[1]);
  let pairs = 0;
  for (const s of built) pairs += checkSegment(s, text, rule);
  idx.forceMerge(1);
  const [merged] = segments(dir);
  assert.equal(merged!.docCount, text.size - deleted.length);
  pairs += checkSegment(merged!, text, rule);
  assert.ok(pairs > 40, `${pairs} non-empty pairs checked`);
  idx.close();
});

test('pair postings are invisible outside the phrase driver, and segments without them still search the same', () => {
  const all = [...docs(300, 5, 0), ...docs(300, 6, 4)];
  const build = (rule: Partial<PairRule>, split: boolean): { idx: SearchIndex; dir: MemoryIndexDirectory } => {
    const dir = new MemoryIndexDirectory();
    let idx = SearchIndex.open(dir, { pairRule: rule });
    all.slice(0, 300).forEach((d) => idx.add(d));
    idx.commit('a');
    if (split) {
      // the older segment was written without pairs (an index from before them); the newer one with
      idx.close();
      idx = SearchIndex.open(dir, { pairRule: { minDocs: 1, dfFraction: 0.05, maxTerms: 10 } });
    }
    all.slice(300).forEach((d) => idx.add(d));
    idx.commit('b');
    return { idx, dir };
  };
  const withPairs = build({ minDocs: 1, dfFraction: 0.05, maxTerms: 10 }, false);
  const without = build({ minDocs: Number.MAX_SAFE_INTEGER }, false);
  const mixed = build({ minDocs: Number.MAX_SAFE_INTEGER }, true);
  assert.ok(segments(withPairs.dir).every((s) => s.pairs !== null));
  assert.ok(segments(without.dir).every((s) => s.pairs === null));
  assert.deepEqual(segments(mixed.dir).map((s) => s.pairs !== null), [false, true]);
  const a = withPairs.idx;
  const b = without.idx;
  for (const t of ['cell', 'protein', 'il6', 'p53', 'heat']) assert.equal(a.docFreq(t), b.docFreq(t));
  for (const w of ['cel', 'protien', 'shok', 'grwth']) assert.deepEqual(a.suggest(w), b.suggest(w));
  assert.equal(a.correctQuery('protien cel'), b.correctQuery('protien cel'));
  const sa = a.stats().bytes;
  const sb = b.stats().bytes;
  assert.ok(sa.postings > sb.postings);
  // columns are the rest of the file: the section table names the pair sections (and pads them)
  assert.deepEqual({ ...sa, postings: 0, columns: 0, total: 0 }, { ...sb, postings: 0, columns: 0, total: 0 });
  assert.ok(Math.abs(sa.columns - sb.columns) < 1024);
  for (const text of ['cell protein', 'heat shock factor', '"heat shock" protein', '"cell of protein"', '"il-6 growth" beta', '"p53 cell" "the alpha"']) {
    for (const exactTotal of [false, true]) {
      const q = { text, limit: 20, exactTotal, explain: true };
      // a total that is not exact is a lower bound from the docs the pruned pass reached, which pairs change
      const strip = (r: ReturnType<SearchIndex['search']>) => (exactTotal ? r : { ...r, totalHits: 0 });
      const ra = strip(a.search(q));
      assert.deepEqual(ra, strip(b.search(q)), text);
      assert.deepEqual(ra, strip(mixed.idx.search(q)), text);
    }
  }
  for (const x of [withPairs, without, mixed]) x.idx.close();
});

test('the default rule (ADR 0382) keeps the 1,000 most frequent terms with df >= 5% of a segment of >= 2,000 docs', () => {
  // 25,000 docs (a flushed segment of the 100k benchmark); term t has df 20,000 - 10 t: the 1,000 most
  // frequent all have df >= 10,010 (40%); with 2,000 terms the cap binds, and with df below 5% it is the floor
  const n = 25_000;
  const df = Array.from({ length: 2_000 }, (_, t) => 20_000 - 10 * t);
  const set = commonTerms(df, df.length, n, DEFAULT_PAIR_RULE);
  assert.equal(set.length, 1_000);
  assert.deepEqual(set, Array.from({ length: 1_000 }, (_, t) => t));
  const low = Array.from({ length: 2_000 }, (_, t) => (t < 600 ? 1_300 : 1_240)); // 5.2% and 4.96%
  assert.equal(commonTerms(low, low.length, n, DEFAULT_PAIR_RULE).length, 600);
  assert.equal(commonTerms(df, df.length, 1_999, DEFAULT_PAIR_RULE).length, 0);
});
