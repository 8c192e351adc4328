import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryIndexDirectory, SearchIndex, buildSnippet, codePointLength } from '../../src/engine/index.js';
import { DOCS } from './fixtures.js';

function build(dir = new MemoryIndexDirectory()): SearchIndex {
  const idx = SearchIndex.open(dir);
  for (const d of DOCS) idx.add(d);
  idx.commit('7');
  return idx;
}
const ids = (idx: SearchIndex, q: Parameters<SearchIndex['search']>[0]): string[] => idx.search(q).hits.map((h) => h.id);

test('word queries rank by BM25F; searches see only committed state', () => {
  const dir = new MemoryIndexDirectory();
  const idx = SearchIndex.open(dir);
  idx.add(DOCS[0]!);
  assert.equal(idx.search({ text: 'heat' }).hits.length, 0);
  idx.commit('1');
  assert.deepEqual(ids(idx, { text: 'heat' }), ['a1']);
  for (const d of DOCS.slice(1)) idx.add(d);
  idx.commit('2');
  const r = idx.search({ text: 'heat shock', limit: 2 });
  assert.equal(r.hits.length, 2);
  assert.equal(r.totalHits, 3);
  assert.equal(r.totalHitsExact, true);
  assert.equal(r.hasMore, true);
  assert.equal(r.rankingMode, 'documents');
  assert.ok(r.hits[0]!.score >= r.hits[1]!.score);
  idx.close();
});

test('phrases are required, ordered, respect stopword gaps; phraseBoost 0 keeps the constraint', () => {
  const idx = build();
  assert.deepEqual(ids(idx, { text: '"transfer heat"' }), []);
  assert.deepEqual(ids(idx, { text: '"shock heats"' }), ['b2']);
  assert.deepEqual(ids(idx, { text: '"heat shock"' }).sort(), ['a1', 'a1-preprint']);
  assert.deepEqual(ids(idx, { text: '“effect of aspirin”' }), ['e5']);
  assert.deepEqual(ids(idx, { text: '«aspirin effect»' }), ['e5']);
  const boosted = idx.search({ text: '"heat shock" protein' }).hits[0]!.score;
  const flat = idx.search({ text: '"heat shock" protein', phraseBoost: 0 });
  assert.deepEqual(flat.hits.map((h) => h.id).sort(), ['a1', 'a1-preprint']);
  assert.ok(flat.hits[0]!.score < boosted);
  assert.deepEqual(ids(idx, { text: '"IL-6 receptor"' }), ['c3']);
  assert.deepEqual(ids(idx, { text: 'IL6' }), ['c3']);
  assert.deepEqual(ids(idx, { text: 'TNF-alpha' }), ['c3']);
});

test('filters: types, languages, publisher, time, ISSNs, URI prefixes, citing, ids', () => {
  const idx = build();
  assert.deepEqual(ids(idx, { text: 'heat', filters: { types: ['preprint'] } }), ['a1-preprint']);
  assert.deepEqual(ids(idx, { text: '', filters: { languages: ['DE'] } }), ['d4']);
  assert.deepEqual(ids(idx, { text: 'heat', filters: { publisher: 'aiaa' } }), ['b2']);
  assert.deepEqual(ids(idx, { text: 'heat', filters: { issuedAfter: 1_550_000_000, issuedBefore: 1_600_000_000 } }).sort(), ['a1', 'a1-preprint']);
  assert.deepEqual(ids(idx, { text: 'heat', filters: { issns: ['1234-5678'] } }), ['a1']);
  assert.deepEqual(ids(idx, { text: 'heat', filters: { uriPrefixes: ['arxiv://'] } }), ['a1-preprint']);
  assert.deepEqual(ids(idx, { text: '', filters: { citing: ['doi://10.1/b2'] } }), ['a1', 'a1-preprint', 'c3']);
  assert.deepEqual(ids(idx, { text: 'heat', filters: { citing: ['doi://10.1/b2'] } }).sort(), ['a1', 'a1-preprint']);
  assert.deepEqual(ids(idx, { text: 'receptor', filters: { ids: ['c3', 'nope'] } }), ['c3']);
  assert.deepEqual(ids(idx, { text: 'heat', filters: { types: ['nonexistent'] } }), []);
});

test('empty query with filters lists newest first, unknown dates last; stopword-only query matches nothing', () => {
  const idx = build();
  const r = idx.search({ text: '', filters: { types: ['journal-article'] } });
  assert.deepEqual(r.hits.map((h) => h.id), ['e5', 'a1', 'b2', 'c3']);
  assert.equal(r.totalHits, 4);
  assert.equal(idx.search({ text: 'the of' }).hits.length, 0);
});

test('updates and deletes by id; checkpoint survives reopen', () => {
  const dir = new MemoryIndexDirectory();
  const idx = build(dir);
  idx.add({ ...DOCS[2]!, title: 'Completely different topic', abstract: 'Nothing about it.' });
  idx.delete('e5');
  assert.deepEqual(ids(idx, { text: 'aspirin' }), ['e5']);
  idx.commit('8');
  assert.deepEqual(ids(idx, { text: 'aspirin' }), []);
  assert.deepEqual(ids(idx, { text: '"normal shock wave"' }), []);
  assert.deepEqual(ids(idx, { text: 'different topic' }), ['b2']);
  idx.close();
  const again = SearchIndex.open(dir);
  assert.equal(again.checkpoint, '8');
  assert.equal(again.stats().docs, DOCS.length - 1);
  assert.deepEqual(ids(again, { text: 'different topic' }), ['b2']);
});

test('collapseByWorkKey keeps the best record of a work and pages stay consistent', () => {
  const idx = build();
  const all = ids(idx, { text: 'heat shock protein' });
  const collapsed = ids(idx, { text: 'heat shock protein', collapseByWorkKey: true });
  assert.ok(all.includes('a1') && all.includes('a1-preprint'));
  assert.equal(collapsed.filter((x) => x.startsWith('a1')).length, 1);
  const p1 = ids(idx, { text: 'heat shock protein', collapseByWorkKey: true, limit: 1 });
  const p2 = ids(idx, { text: 'heat shock protein', collapseByWorkKey: true, limit: 1, offset: 1 });
  assert.deepEqual([...p1, ...p2], collapsed.slice(0, 2));
});

test('passages carry code point offsets; snippets highlight matches', () => {
  const idx = build();
  const r = idx.search({ text: 'receptor signalling', rankingMode: 'passages' });
  assert.equal(r.rankingMode, 'passages');
  const h = r.hits[0]!;
  assert.equal(h.id, 'c3');
  assert.ok(h.passages.length > 0);
  const p = h.passages[0]!;
  const text = (DOCS[3] as unknown as Record<string, string>)[p.field]!;
  assert.equal(p.fieldLength, codePointLength(text));
  assert.ok(p.endChar <= p.fieldLength && p.startChar < p.endChar);
  const snip = buildSnippet(text, idx.parse('receptor signalling'), { field: p.field, passage: p, maxChars: 60 });
  assert.ok(snip.highlights.length > 0);
  for (const hl of snip.highlights) assert.match(snip.text.slice(hl.start, hl.end), /receptor|signal/i);
  assert.equal(snip.source.fieldLength, codePointLength(text));
  assert.equal(text.slice(snip.source.startChar, snip.source.endChar), snip.text);
});

test('explanations add up to the score; traces are bounded', () => {
  const idx = build();
  const r = idx.search({ text: '"heat shock" protein', explain: true, trace: { now: () => 0 } });
  for (const h of r.hits) assert.ok(Math.abs(h.explanation!.value - h.score) < 1e-9 * Math.max(1, h.score));
  assert.ok(r.trace && r.trace.segments.length === 1);
});

test('spelling: corrected query from the vocabulary, null when fine', () => {
  const idx = build();
  assert.equal(idx.correctQuery('aspirin platelets'), null);
  assert.equal(idx.correctQuery('asprin platelets'), 'aspirin platelets');
});

test('spelling: kept answers follow the snapshot, the text and the languages', () => {
  const idx = build();
  assert.equal(idx.correctQuery('asprin platelets'), 'aspirin platelets');
  assert.equal(idx.correctQuery('asprin platelets'), 'aspirin platelets');
  assert.equal(idx.correctQuery('Asprin platelets'), 'Aspirin platelets');
  assert.equal(idx.correctQuery('asprin platelets', ['en']), 'aspirin platelets');
  // a commit that makes the word known publishes a new snapshot: the kept answer is not reused
  idx.add({ id: 'z9', title: 'Asprin as a family name', abstract: null, type: 'journal-article', issuedAt: 1_650_000_000, language: 'en' });
  idx.add({ id: 'z10', title: 'Platelts', abstract: null, type: 'journal-article', issuedAt: 1_650_000_000, language: 'en' });
  assert.equal(idx.correctQuery('asprin platelets'), 'aspirin platelets', 'uncommitted documents change nothing');
  idx.commit('8');
  assert.equal(idx.correctQuery('asprin platelets'), null);
  assert.equal(idx.correctQuery('asprin platelets', ['en']), null);
  // many distinct queries: the oldest answers make room, every answer stays right
  for (let i = 0; i < 5000; i++) assert.equal(idx.correctQuery(`aspirin q${i}`), null);
  assert.equal(idx.correctQuery('aspirin plateletz'), 'aspirin platelets');
});

test('merges keep results identical and reclaim deletes', () => {
  const dir = new MemoryIndexDirectory();
  const idx = SearchIndex.open(dir, { mergePolicy: { mergeFactor: 2, floorDocs: 100 } });
  DOCS.forEach((d, i) => {
    idx.add(d);
    idx.commit(String(i));
  });
  idx.delete('b2');
  idx.commit('x');
  const before = idx.search({ text: 'heat shock protein aspirin', limit: 10 });
  let steps = 0;
  while (idx.mergeStep(10).state !== 'idle' && steps < 10_000) steps++;
  assert.ok(idx.stats().segments < DOCS.length);
  const after = idx.search({ text: 'heat shock protein aspirin', limit: 10 });
  assert.deepEqual(after.hits.map((h) => [h.id, h.score.toFixed(9)]), before.hits.map((h) => [h.id, h.score.toFixed(9)]));
  idx.forceMerge(1);
  assert.equal(idx.stats().segments, 1);
  assert.equal(idx.stats().deletedDocs, 0);
  assert.equal(idx.checkpoint, 'x');
  const reopened = SearchIndex.open(dir);
  assert.deepEqual(ids(reopened, { text: 'heat shock protein aspirin' }), after.hits.map((h) => h.id));
});

test('multilingual: document language picks the stemmer, possibleLanguages the query stemmers', () => {
  const idx = build();
  assert.deepEqual(ids(idx, { text: 'Häuser' }), []);
  assert.deepEqual(ids(idx, { text: 'Häuser', possibleLanguages: ['en', 'de'] }), ['d4']);
  assert.deepEqual(ids(idx, { text: 'Haus', possibleLanguages: ['de'] }), ['d4']);
});

test('deletes that land while a merge runs are carried into the merged segment', () => {
  const idx = SearchIndex.open(new MemoryIndexDirectory(), { mergePolicy: { mergeFactor: 2, floorDocs: 100 } });
  DOCS.forEach((d, i) => {
    idx.add(d);
    idx.commit(String(i));
  });
  assert.equal(idx.mergeStep(1).state, 'merging');
  idx.delete('e5');
  idx.commit('during');
  idx.delete('b2'); // pending, not yet committed when the merge finishes
  let guard = 0;
  while (idx.mergeStep(1).state === 'merging' && guard++ < 10_000);
  assert.deepEqual(ids(idx, { text: 'aspirin' }), []);
  assert.deepEqual(ids(idx, { text: '"shock heats"' }), ['b2']);
  idx.commit('after');
  assert.deepEqual(ids(idx, { text: '"shock heats"' }), []);
  assert.equal(idx.stats().docs, DOCS.length - 2);
});

test('limits: offset + limit above 500 is refused; values are clamped', () => {
  const idx = build();
  assert.throws(() => idx.search({ text: 'heat', offset: 499, limit: 2 }), RangeError);
  assert.equal(idx.search({ text: 'heat', limit: 0 }).hits.length, 1);
});

test('exact totals of collapsed searches count works exactly: solo docs, keys shared across segments, deletions, filters (ADR 0151)', () => {
  // seeded: docs with no key, unique keys and keys shared by 2-3 docs, spread over several commits
  // (segments), some deleted; the total of every query must be the number of distinct works of the
  // matching live docs, counted here by brute force
  let seed = 7;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const words = ['alpha', 'beta', 'gamma', 'delta', 'omega'];
  const idx = SearchIndex.open(new MemoryIndexDirectory());
  const live = new Map<string, { text: string; key: string | null; type: string }>();
  for (let c = 0; c < 4; c++) {
    for (let i = 0; i < 60; i++) {
      const id = `d${c}-${i}`;
      const r = rnd();
      const key = r < 0.25 ? null : r < 0.6 ? `u-${id}` : `s-${Math.floor(rnd() * 25)}`;
      const text = words.filter(() => rnd() < 0.4).join(' ') || 'alpha';
      const type = rnd() < 0.5 ? 'journal-article' : 'preprint';
      idx.add({ id, title: text, abstract: null, type, issuedAt: 1_600_000_000, language: 'en', uris: [], ...(key ? { workKey: key } : {}) });
      live.set(id, { text, key, type });
    }
    idx.commit(String(c));
    // delete a few docs of the first segments (a shared key's mate may go); the last ones stay whole,
    // so their counts take the solo path
    if (c < 2) for (const id of [...live.keys()].filter(() => rnd() < 0.08)) {
      idx.delete(id);
      live.delete(id);
    }
    idx.commit(`${c}d`);
  }
  const expected = (terms: string[], type: string | null) => {
    const works = new Set<string>();
    for (const [id, d] of live) if (terms.some((t) => d.text.split(' ').includes(t)) && (type === null || d.type === type)) works.add(d.key ?? `own:${id}`);
    return works.size;
  };
  for (const q of [['alpha'], ['beta', 'gamma'], ['delta', 'omega', 'alpha'], ['omega']]) {
    for (const type of [null, 'preprint']) {
      const r = idx.search({ text: q.join(' '), limit: 5, collapseByWorkKey: true, exactTotal: true, ...(type ? { filters: { types: [type] } } : {}) });
      assert.equal(r.totalHits, expected(q, type), `${q.join(' ')} ${type ?? ''}`);
      assert.equal(r.totalHitsExact, true);
    }
  }
  idx.close();
});

test('docFreq answers for the committed snapshot: remembered per snapshot, new after a commit or a merge (issue 29)', () => {
  const dir = new MemoryIndexDirectory();
  const idx = SearchIndex.open(dir);
  const term = idx.parse('heat').words[0]!.terms[0]!;
  assert.equal(idx.docFreq(term), 0);
  idx.add(DOCS[0]!);
  assert.equal(idx.docFreq(term), 0, 'uncommitted documents are not counted');
  idx.commit('1');
  const one = idx.docFreq(term);
  assert.ok(one >= 1);
  assert.equal(idx.docFreq(term), one, 'asked again: the same answer');
  for (const d of DOCS.slice(1)) idx.add(d);
  idx.commit('2');
  const all = idx.docFreq(term);
  assert.ok(all > one, `a commit adding documents with the term raises it (${one} -> ${all})`);
  // what a fresh index over the same directory says is the truth
  const fresh = SearchIndex.open(dir);
  assert.equal(fresh.docFreq(term), all);
  fresh.close();
  idx.delete(DOCS[0]!.id);
  idx.commit('3');
  idx.forceMerge(1);
  const merged = SearchIndex.open(dir);
  assert.equal(idx.docFreq(term), merged.docFreq(term), 'after a merge: as a fresh reader counts');
  merged.close();
  idx.close();
});
