import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenize, parseQuery, analyzerFor, SearchIndex, MemoryIndexDirectory } from '../../src/engine/index.js';

const terms = (text: string, lang = 'en'): (string | null)[] => tokenize(text, lang).map((t) => t.term);

test('hyphenated compounds give parts and a joined form at the first position', () => {
  const toks = tokenize('IL-6 receptor', 'en');
  assert.deepEqual(
    toks.map((t) => [t.term, t.position, t.joined]),
    [
      ['il', 0, false],
      ['6', 1, false],
      ['il6', 0, true],
      ['receptor', 2, false],
    ],
  );
});

test('Greek letters are spelled out, diacritics and case folded, NFKC applied', () => {
  assert.deepEqual(terms('TNF-α'), ['tnf', 'alpha', 'tnfalpha']);
  assert.deepEqual(terms('Café ﬁbre'), ['cafe', 'fiber']);
  // next to a digit a Greek letter is its Latin initial, as in gene symbols
  assert.deepEqual(terms('HIF-1α'), ['hif', '1', 'alpha', 'hif1a']);
  assert.deepEqual(terms('HIF1A IL-1beta'), ['hif', '1', 'a', 'hif1a', 'il', '1', 'beta', 'il1b']);
});

test('English: British spellings, irregular plurals and acronym plurals meet their usual forms', () => {
  const same = (a: string, b: string): void => assert.deepEqual(terms(a), terms(b), `${a} vs ${b}`);
  same('tumours', 'tumors');
  same('randomised', 'randomized');
  same('hospitalisation', 'hospitalization');
  same('behavioural', 'behavioral');
  same('haemoglobin', 'hemoglobin');
  same('leukaemia', 'leukemia');
  same('oestrogen', 'estrogen');
  same('diarrhoea', 'diarrhea');
  same('sulphate', 'sulfate');
  same('centres', 'center');
  same('mice', 'mouse');
  same('women', 'woman');
  same('nuclei', 'nucleus');
  same('helices', 'helix');
  same('mRNAs', 'mRNA');
  same('SNPs', 'SNP');
  same('MSCs', 'MSC');
  same('metastases', 'metastasis');
  same('analyses', 'analysis');
  same('analyzed', 'analysis');
  same('hydrolysed', 'hydrolyzed');
  // not British -ise spellings: left to Snowball
  assert.deepEqual(terms('exercise exercised promising otherwise arises'), ['exercis', 'exercis', 'promis', 'otherwis', 'aris']);
  assert.deepEqual(terms('four hours'), ['four', 'hour']);
});

test('decimals stay whole; identifiers split at letter/digit boundaries like compounds; stopwords keep their slot', () => {
  assert.deepEqual(terms('3.5 mg of CO2 in p53'), ['3.5', 'mg', null, 'co', '2', 'co2', null, 'p', '53', 'p53']);
  const shape = (text: string): [string | null, number, boolean][] => tokenize(text, 'en').map((t) => [t.term, t.position, t.joined]);
  assert.deepEqual(shape('CTLA4'), shape('CTLA-4'));
  assert.deepEqual(shape('CTLA4'), [
    ['ctla', 0, false],
    ['4', 1, false],
    ['ctla4', 0, true],
  ]);
  // more than 4 runs: the identifier stays whole
  assert.deepEqual(terms('1a2b3c4d'), ['1a2b3c4d']);
  assert.deepEqual(terms("Alzheimer's disease"), ['alzheim', 'diseas']);
});

test('language-aware Snowball stemming for the indexed languages', () => {
  assert.deepEqual(terms('Häuser', 'de'), ['haus']);
  assert.deepEqual(terms('nationales', 'fr'), ['national']);
  assert.deepEqual(terms('corriendo', 'es'), ['corr']);
  assert.deepEqual(terms('abbandonata', 'it'), ['abbandon']);
  assert.deepEqual(terms('correndo', 'pt'), ['corr']);
  assert.deepEqual(terms('красивые', 'ru'), ['красив']);
  assert.equal(terms('lichamelijke', 'nl').length, 1);
  assert.deepEqual(terms('running studies'), ['run', 'studi']);
});

test('offsets are code points with exclusive ends', () => {
  const toks = tokenize('😀 résumé x', 'en');
  assert.deepEqual(
    toks.map((t) => [t.startCp, t.endCp]),
    [
      [2, 8],
      [9, 10],
    ],
  );
});

test('quotes of every kind make phrases; query languages become alternatives', () => {
  for (const q of ['"heat shock" protein', '“heat shock” protein', '«heat shock» protein', '»heat shock« protein']) {
    const p = parseQuery(q, null, 'en');
    assert.equal(p.phrases.length, 1, q);
    assert.deepEqual(p.phrases[0]!.slots.map((s) => [s.terms, s.offset]), [
      [['heat'], 0],
      [['shock'], 1],
    ]);
    assert.equal(p.words.length, 3);
  }
  const p = parseQuery('"effect of aspirin"', null, 'en');
  assert.deepEqual(p.phrases[0]!.slots.map((s) => s.offset), [0, 2]);
  const multi = parseQuery('Häuser', ['en', 'de'], 'en');
  assert.deepEqual(multi.words[0]!.terms, ['hauser', 'haus'].sort());
  assert.equal(parseQuery('"unclosed quote', null, 'en').phrases.length, 0);
});

test('query-side stopwords drop unquoted function words, keep quoted ones, compound parts and all-stopword queries', () => {
  const words = (q: string): string[] => parseQuery(q, null, 'en').words.map((w) => w.terms.join('|'));
  assert.deepEqual(words('What can we do about aspirin?'), ['aspirin']);
  assert.deepEqual(words('ART has no effect on HIV'), ['art', 'effect', 'hiv']);
  // a quoted span keeps its words as phrase tokens (only document stopwords leave a gap)
  const p = parseQuery('"can not" reduce', null, 'en');
  assert.deepEqual(p.phrases[0]!.slots.map((s) => s.terms[0]), ['can', 'not']);
  // parts of hyphenated compounds stay
  assert.deepEqual(words('up-regulation'), ['up', 'regul', 'upregul']);
  // words of one or two letters weigh half, like joined forms; digits are not short words
  const weights = (q: string): [string, number][] => parseQuery(q, null, 'en').words.map((w) => [w.terms[0]!, w.weight]);
  assert.deepEqual(weights('UK p53 5 mice'), [['uk', 0.5], ['p', 0.5], ['53', 1], ['p53', 0.5], ['5', 1], ['mous', 1]]);
  // a query made only of query stopwords is not emptied
  assert.deepEqual(words('can not'), ['can', 'not']);
});

test('the analyzer notices every high surrogate, so the indexer can skip counting code points of texts without', () => {
  const a = analyzerFor('en');
  const saw = (text: string): boolean => {
    a.analyzeWith(text, () => 0, -1, () => {});
    return a.lastTextHadSurrogates;
  };
  assert.equal(saw('plain ASCII text, IL-6 and 3.5 mg, the cell\'s wall.'), false);
  assert.equal(saw('naïve café — α-helix'), false);
  assert.equal(saw('a 𝑥-axis'), true); // astral letter inside a word
  assert.equal(saw('emoji 😀 between words'), true); // astral separator
  assert.equal(saw('lone high surrogate at the end \ud835'), true);
  assert.equal(saw('two highs \ud835\ud835 in a row'), true);
  assert.equal(saw('after one with surrogates, plain again'), false);
  // the indexed field length in code points is what counting every code unit gave
  for (const text of ['a 𝑥-axis', 'lone \ud835', '\ud835\ud835x', 'emoji 😀']) {
    const idx = SearchIndex.open(new MemoryIndexDirectory());
    idx.add({ id: 'd', title: text });
    idx.commit('1');
    const hit = idx.search({ text: text.split(' ')[0]!, rankingMode: 'passages', limit: 1 }).hits[0];
    // as before the skip: code units less high surrogates (a lone one included)
    const highs = [...text].filter((ch) => { const c = ch.charCodeAt(0); return c >= 0xd800 && c <= 0xdbff; }).length;
    assert.equal(hit?.passages[0]?.fieldLength, text.length - highs);
    idx.close();
  }
});
