// The conversations capability's pure parts: the rule-based classifier (date expressions, follow-ups,
// content types, language), citation anchoring (verified, re-anchored, removed markers) and prompt
// budgeting (pinned passages last to go).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { classify, resolveDateExpression } from '../../src/conversations/classifier.js';
import { anchorCitations, sectionOf, sentences, type Passage } from '../../src/conversations/passages.js';
import { budgetPassages } from '../../src/conversations/llm-answerer.js';
import { ABSTENTION, DEFAULT_EXTRACTIVE_OPTIONS, ExtractiveAnswerer, MIN_DOCUMENTS_FOR_ABSTENTION } from '../../src/conversations/extractive.js';
import { previewOf, slugOf, titleOf } from '../../src/conversations/conversation-service.js';
import { clauseOf, continuing, groupByTerms } from '../../src/conversations/synthesis.js';
import { claimOf, DEFAULT_VERDICT_OPTIONS, stanceOf, verdictOf } from '../../src/conversations/verdict.js';

const NOW = Date.UTC(2026, 10, 25, 12) / 1000;
const Y = (y: number) => Date.UTC(y, 0, 1) / 1000;

describe('classifier', () => {
  test('date expressions resolve at request time to [start, end)', () => {
    assert.deepEqual(resolveDateExpression('hydrogen since 2020', NOW)?.date, [Y(2020), NOW + 1]);
    assert.deepEqual(resolveDateExpression('hydrogen after 2020', NOW)?.date, [Y(2021), NOW + 1]);
    assert.deepEqual(resolveDateExpression('work before 2010', NOW)?.date, [Y(1000), Y(2010)]);
    assert.deepEqual(resolveDateExpression('studies in the last five years', NOW)?.date, [Y(2021), NOW + 1]);
    assert.deepEqual(resolveDateExpression('over the past 3 years', NOW)?.date, [Y(2023), NOW + 1]);
    assert.deepEqual(resolveDateExpression('in the last decade', NOW)?.date, [Y(2016), NOW + 1]);
    assert.deepEqual(resolveDateExpression('between 2018 and 2015', NOW)?.date, [Y(2015), Y(2019)]);
    assert.deepEqual(resolveDateExpression('papers published in 2019', NOW)?.date, [Y(2019), Y(2020)]);
    assert.equal(resolveDateExpression('methadone treatment in 2001', NOW), null);
    assert.equal(resolveDateExpression('hydrogen storage', NOW), null);
  });

  test('a year range or year inside a claim or question about events is not a publication-date filter', () => {
    for (const q of [
      'The incidence of measles increased from 2009 to 2014.',
      'Obesity rates in children rose between 2000 and 2010',
      'How has the prevalence of diabetes changed since 2020?',
      'Mortality from sepsis declined after 2005',
      'Who won the football World Cup in 2018?',
      'Hospital admissions were lower before 2010 than after',
      'Vaccination coverage has remained stable from 2015',
    ]) {
      assert.equal(resolveDateExpression(q, NOW), null, q);
      const c = classify(q, [], NOW);
      assert.equal(c.date, null, q);
      assert.ok(!c.classifiedAspects.includes('date'), q);
    }
    // The years stay in the search query: they are part of what the claim is about.
    assert.ok(classify('The incidence of measles increased from 2009 to 2014.', [], NOW).keywords.includes('2009'));
  });

  test('a year becomes a filter when the phrasing asks for publication time', () => {
    assert.deepEqual(resolveDateExpression('papers since 2020 on measles incidence', NOW)?.date, [Y(2020), NOW + 1]);
    assert.deepEqual(resolveDateExpression('What was published after 2018 about sepsis mortality?', NOW)?.date, [Y(2019), NOW + 1]);
    assert.deepEqual(resolveDateExpression('Which studies from 2009 to 2014 show that measles increased?', NOW)?.date, [Y(2009), Y(2015)]);
    assert.deepEqual(resolveDateExpression('literature on hydrogen before 2010', NOW)?.date, [Y(1000), Y(2010)]);
    assert.deepEqual(classify('Show me articles on obesity between 2000 and 2010', [], NOW).date, [Y(2000), Y(2011)]);
  });

  test('keywords drop stop words, instruction words and the date expression; phrases stay whole', () => {
    const q = classify('Show me papers about "cushion gas" in salt caverns since 2020', [], NOW);
    assert.deepEqual(q.keywords, ['"cushion gas"', 'salt', 'caverns']);
    assert.equal(q.reformulatedQuery, '"cushion gas" salt caverns');
    assert.equal(q.dateExpression, 'since 2020');
    assert.deepEqual(q.classifiedAspects.sort(), ['date', 'phrase']);
    assert.equal(q.queryLanguage, 'en');
  });

  test('recency, content types, language, events', () => {
    const r = classify('recent reviews of hydrogen embrittlement', [], NOW);
    assert.equal(r.isRecent, true);
    assert.equal(r.contentType, 'review');
    assert.deepEqual(r.date, [Y(2021), NOW + 1]);
    assert.ok(!r.keywords.includes('reviews'));
    assert.equal(classify('Welche Studien gibt es über Wasserstoff und die Speicherung?', [], NOW).queryLanguage, 'de');
    assert.equal(classify('effects of the pandemic on schooling', [], NOW).isEvent, true);
  });

  test('follow-ups add the earlier topic (without its date expression); a new full question does not', () => {
    const f = classify('what about in mice?', ['hydrogen therapy for oxidative stress since 2020'], NOW);
    assert.ok(f.classifiedAspects.includes('follow_up'));
    assert.deepEqual(f.keywords, ['mice', 'hydrogen', 'therapy', 'oxidative', 'stress']);
    assert.deepEqual(f.relatedQueries, ['mice']);
    const n = classify('how does sandstone porosity control fluid flow in aquifers', ['hydrogen therapy'], NOW);
    assert.ok(!n.classifiedAspects.includes('follow_up'));
    assert.ok(classify('are they toxic to fish?', ['microplastics in rivers'], NOW).classifiedAspects.includes('follow_up'));
    assert.ok(!classify('which methods measure porosity of sandstone cores that contain clay minerals', ['microplastics'], NOW).classifiedAspects.includes('follow_up'));
  });
});

const passage = (number: number, documentIndex: number, text: string, pinned = false, snippetIndex = 0): Passage => ({
  number, documentIndex, snippetIndex, documentId: `d${documentIndex}`, title: `T${documentIndex}`, field: 'abstract', text, fieldText: `Intro. ${text} Outro.`, pinned,
});

describe('citation anchoring', () => {
  const ps = [passage(1, 1, 'Salt caverns offer tight storage for hydrogen gas. Cushion gas keeps pressure.'), passage(2, 2, 'Microbes consume stored hydrogen in porous reservoirs.')];

  test('a supported marker is verified: excerpt is a verbatim sentence; markers become document indexes', () => {
    const r = anchorCitations('Caverns store hydrogen tightly [1].', ps);
    assert.equal(r.answer, 'Caverns store hydrogen tightly [1].');
    assert.deepEqual(r.citations, [{ citationIndex: 0, documentIndex: 1, excerpt: 'Salt caverns offer tight storage for hydrogen gas.', snippetIndex: 0 }]);
    assert.deepEqual(r.stats, { markers: 1, verified: 1, reanchored: 0, removed: 0 });
  });

  test('a wrong or unknown number is re-anchored to the supporting passage; an unsupported claim loses its marker', () => {
    const r = anchorCitations('Microbes consume hydrogen in reservoirs [1]. Bananas are yellow [2]. Porous reservoirs lose hydrogen to microbes [9].', ps);
    assert.equal(r.answer, 'Microbes consume hydrogen in reservoirs [2]. Bananas are yellow. Porous reservoirs lose hydrogen to microbes [2].', 'no space before the stop of a removed marker');
    assert.deepEqual(r.citations.map((c) => [c.citationIndex, c.documentIndex]), [[0, 2], [1, 2]]);
    assert.deepEqual(r.stats, { markers: 3, verified: 0, reanchored: 2, removed: 1 });
  });

  test('a removed marker leaves no space before punctuation or a doubled space', () => {
    assert.equal(anchorCitations('Bananas are yellow [2], and kiwis green [7]; oranges [3] are round [4].', ps).answer, 'Bananas are yellow, and kiwis green; oranges are round.');
  });

  test('several passages in one marker each get an occurrence; passage numbers map to document indexes', () => {
    const two = [passage(1, 1, 'Hydrogen is stored in caverns.'), passage(2, 1, 'Hydrogen storage in caverns is cheap.', false, 1)];
    const r = anchorCitations('Caverns store hydrogen [1, 2].', two);
    assert.equal(r.answer, 'Caverns store hydrogen [1][1].');
    assert.deepEqual(r.citations.map((c) => c.snippetIndex), [0, 1]);
  });

  test('sentences are verbatim substrings', () => {
    const t = 'First one. Second (with a dot.) ends here! Third? 4th line';
    for (const s of sentences(t)) assert.ok(t.includes(s), s);
    assert.deepEqual(sentences('A b. C d.'), ['A b.', 'C d.']);
  });
});

describe('prompt budget', () => {
  test('first passages of documents come before further ones, pinned first; pinned are the last to go; numbering is dense', () => {
    const long = 'x '.repeat(200);
    const ps = [passage(1, 1, long, true), passage(2, 2, long), passage(3, 3, long), passage(4, 2, long, false, 1)];
    const all = budgetPassages(ps, 0, 100_000);
    assert.deepEqual(all.map((p) => p.number), [1, 2, 3, 4]);
    const two = budgetPassages(ps, 0, 250);
    assert.deepEqual(two.map((p) => [p.documentIndex, p.snippetIndex, p.number]), [[1, 0, 1], [2, 0, 2]]);
    const one = budgetPassages(ps, 0, 120);
    assert.deepEqual(one.map((p) => p.documentIndex), [1]);
  });
});

describe('titles, slugs, previews', () => {
  test('readable and bounded', () => {
    assert.equal(slugOf('Wie lösen Mäuse Wasserstoff?', '3f2a1b9c-0000-4000-8000-000000000000'), 'wie-losen-mause-wasserstoff-3f2a1b9c');
    assert.equal(slugOf('???', 'abcdef12-0000'), 'conversation-abcdef12');
    assert.ok(titleOf('word '.repeat(40)).length <= 81);
    assert.equal(previewOf('A claim [1]. Another [2].'), 'A claim. Another.');
  });
});

describe('extractive relevance and abstention (ADR 0227)', () => {
  const passage = (documentIndex: number, title: string, text: string): Passage => ({ number: documentIndex, documentIndex, snippetIndex: 0, documentId: `d${documentIndex}`, title, field: 'abstract', text, fieldText: text, pinned: false });
  const passages = [
    passage(1, 'Human capital and growth', 'Human capital drives growth in regional economies. Schooling raises human capital.'),
    passage(2, 'Salt cavern hydrogen storage', 'Salt caverns store hydrogen with little leakage. Cushion gas keeps cavern pressure stable.'),
  ];
  // A corpus-sized lexicon: common words are cheap, specific ones dear; "france" occurs nowhere.
  const idf: Record<string, number> = { capital: 3, human: 2, growth: 2, france: 9.2, salt: 6, cavern: 7, caverns: 7, hydrogen: 5, storage: 4, store: 4, leakage: 6 };
  const lexicon = (documents: number) => ({ terms: (t: string) => (t.toLowerCase().match(/[a-z]+/g) ?? []).filter((w) => w.length > 2 && !['the', 'what', 'with', 'and', 'does', 'how'].includes(w)), idf: (t: string) => idf[t] ?? 1, maxIdf: 9.2, documents });
  const ask = (question: string, documents: number) =>
    new ExtractiveAnswerer().answer({ question, history: [], passages, maxContextLength: null, apiKey: null, signal: new AbortController().signal, onDelta: () => {}, lexicon: lexicon(documents) });

  test('an off-corpus question sharing one common word abstains, names the closest documents, cites nothing', async () => {
    const r = await ask('What is the capital of France?', 5000);
    assert.equal(r.abstained, true);
    assert.ok(r.answer.startsWith(ABSTENTION), r.answer);
    assert.match(r.answer, /“Human capital and growth”/);
    assert.deepEqual(r.citations, []);
    assert.doesNotMatch(r.answer, /\[\d+\]/);
  });

  test('a question the evidence answers is answered from the document that shares its specific terms', async () => {
    const r = await ask('How do salt caverns store hydrogen?', 5000);
    assert.equal(r.abstained, false);
    assert.ok(r.answerability! >= DEFAULT_EXTRACTIVE_OPTIONS.abstainBelow);
    assert.ok(r.citations.length > 0 && r.citations.every((c) => c.documentIndex === 2), JSON.stringify(r.citations));
  });

  test('answerability: question terms together in one sentence count, the lack of the most specific term counts against', async () => {
    const o = { cooccurrenceWeight: 0.5, missingWeight: 1, abstainBelow: 0 };
    const run = (question: string, options: Partial<typeof DEFAULT_EXTRACTIVE_OPTIONS>) =>
      new ExtractiveAnswerer(options).answer({ question, history: [], passages, maxContextLength: null, apiKey: null, signal: new AbortController().signal, onDelta: () => {}, lexicon: lexicon(5000) });
    const none = { abstainBelow: 0, cooccurrenceWeight: 0, missingWeight: 0 };
    const plain = await run('What is the capital of France?', none);
    const weighed = await run('What is the capital of France?', o);
    // "france" (the rarest term) is in no document: its weight over the largest idf is taken off; "capital" (one term) is added.
    assert.ok(Math.abs(weighed.answerability! - (plain.answerability! + 0.5 * 1 - 1 * (9.2 / 9.2))) < 1e-9, `${plain.answerability} ${weighed.answerability}`);
    const held = await run('How do salt caverns store hydrogen?', o);
    const heldPlain = await run('How do salt caverns store hydrogen?', none);
    assert.ok(held.answerability! > heldPlain.answerability!, 'all its terms in one document, three of them in one sentence');
    assert.ok(held.answerabilityParts!.length >= 1 && held.answerabilityParts!.every((x) => x.missing >= 0 && x.missing <= 1));
  });

  test('a further document is cited only when it covers enough of what the first covers', async () => {
    const ps = [
      passage(1, 'Salt cavern hydrogen storage', 'Salt caverns store hydrogen with little leakage.'),
      passage(2, 'Hydrogen', 'Hydrogen is stored in tanks.'),
    ];
    const run = (furtherDocumentCoverage: number) =>
      new ExtractiveAnswerer({ furtherDocumentCoverage, minRelative: 0, abstainBelow: 0 }).answer({ question: 'How do salt caverns store hydrogen?', history: [], passages: ps, maxContextLength: null, apiKey: null, signal: new AbortController().signal, onDelta: () => {}, lexicon: lexicon(5000) });
    assert.deepEqual([...new Set((await run(0)).citations.map((c) => c.documentIndex))].sort(), [1, 2]);
    assert.deepEqual([...new Set((await run(0.9)).citations.map((c) => c.documentIndex))], [1]);
  });

  test('in a small index word rarity says little: it answers whenever a sentence shares a word', async () => {
    const r = await ask('What is the capital of France?', MIN_DOCUMENTS_FOR_ABSTENTION - 1);
    assert.equal(r.abstained, false);
    assert.equal(r.citations[0]!.documentIndex, 1);
  });
});

describe('an answer, not a list of quotes (ADR 0240)', () => {
  const passage = (documentIndex: number, title: string, text: string): Passage => ({ number: documentIndex, documentIndex, snippetIndex: 0, documentId: `d${documentIndex}`, title, field: 'abstract', text, fieldText: text, pinned: false });
  const passages = [
    passage(1, 'Cushion gas', 'Background: Hydrogen is stored in salt caverns at depth. In conclusion, cushion gas in salt caverns keeps the cavern pressure above its minimum; the working gas capacity falls as cushion gas rises. Caverns are leached from rock salt.'),
    passage(2, 'Losses', 'Hydrogen losses from salt caverns were below one percent per cycle. Cushion gas pressure in the caverns was stable.'),
  ];
  const ask = (question: string, onDelta: (t: string) => void = () => {}) =>
    new ExtractiveAnswerer().answer({ question, history: [], passages, maxContextLength: null, apiKey: null, signal: new AbortController().signal, onDelta });

  test('opens with a one-sentence synthesis of the cited clauses, then the supporting sentences in paragraphs', async () => {
    const deltas: string[] = [];
    const r = await ask('What does cushion gas do in hydrogen salt caverns?', (t) => deltas.push(t));
    const [synthesis, ...support] = r.answer.split('\n\n');
    assert.ok(support.length >= 1, r.answer);
    // One sentence: clauses joined by semicolons, each with its marker, one final stop.
    assert.match(synthesis!, /^[^.!?]+\[\d+\](?:; [^.!?]+\[\d+\])*\.$/, synthesis);
    // No word the evidence does not carry: every word of the synthesis is in the sentence its marker cites.
    const synCitations = r.citations.slice(0, (synthesis!.match(/\[\d+\]/g) ?? []).length);
    const clauses = synthesis!.replace(/\.$/, '').split(/\s*\[\d+\];?\s*/).filter(Boolean);
    assert.equal(clauses.length, synCitations.length);
    clauses.forEach((clause, i) => {
      for (const w of clause.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) assert.ok(synCitations[i]!.excerpt.toLowerCase().includes(w), `"${w}" of the synthesis is in its cited sentence`);
    });
    // Citations stay verbatim and the deltas add up to the answer.
    for (const c of r.citations) assert.ok(passages[c.documentIndex - 1]!.fieldText.includes(c.excerpt));
    assert.equal(deltas.join(''), r.answer);
    assert.equal(r.stats.removed + r.stats.reanchored, 0);
  });

  test('a long sentence gives its best clause; leading discourse words go', () => {
    const weigh = (t: string) => (t.match(/cushion|gas|pressure/g) ?? []).length;
    const s = 'In conclusion, the caverns were leached from rock salt at a depth of one thousand metres over many months of work; cushion gas keeps the cavern pressure above its minimum during withdrawal.';
    assert.equal(clauseOf(s, weigh), 'cushion gas keeps the cavern pressure above its minimum during withdrawal');
    assert.equal(clauseOf('Results: Cushion gas is needed.', weigh), 'Cushion gas is needed');
    assert.equal(continuing('Cushion gas'), 'cushion gas');
    assert.equal(continuing('HIV load'), 'HIV load');
  });

  test('a clause is never cut inside parentheses or brackets (defect: a split at the ";" of "(95% CI 1.1-2.0; P < .001)")', () => {
    const weigh = (t: string) => (t.match(/statin|stroke|risk/gi) ?? []).length;
    const s = 'Among the 4,512 patients followed for a median of 6.2 years in the registry, statin use was associated with a lower risk of stroke (hazard ratio 0.71, 95% CI: 0.58-0.86; P < .001), and the association held in every age band.';
    const c = clauseOf(s, weigh);
    const depth = (t: string) => (t.match(/[([]/g) ?? []).length - (t.match(/[)\]]/g) ?? []).length;
    assert.equal(depth(c), 0, c);
    assert.ok(s.includes(c), c);
    assert.match(c, /statin use was associated with a lower risk of stroke \(hazard ratio 0\.71, 95% CI: 0\.58-0\.86; P < \.001\)/);
  });

  test('a sentence with no direction supports a directed claim only when it names what the claim says is changed (seen as a user: "supports" from a sentence about salt caverns that never mentions losses)', () => {
    const claim = 'Hydrogen storage in salt caverns reduces hydrogen losses';
    const topical = 'By integrating technological innovation, policy coordination, and cross-sector collaboration, salt cavern hydrogen storage is poised to play a pivotal role in realizing a resilient hydrogen economy.';
    assert.equal(stanceOf(claim, topical), 'neutral');
    assert.equal(stanceOf(claim, 'Hydrogen losses in salt caverns were measured over five storage cycles of hydrogen storage.'), 'supports');
    assert.equal(stanceOf(claim, 'Hydrogen storage in salt caverns increased hydrogen losses compared with aquifers.'), 'contradicts');
  });

  test('a clause is never a series cut at its last comma, nor the elaboration after a colon (seen as a user: "Accurately estimating the tension between injected hydrogen gas, cushion gas [1].")', () => {
    const weigh = (t: string) => (t.match(/cushion|gas|hydrogen|storage|role/gi) ?? []).length;
    const a = 'This study focuses on optimizing underground hydrogen storage by addressing a critical technical challenge: accurately estimating the interfacial tension (IFT) between injected hydrogen gas, cushion gas, and reservoir brines.';
    const ca = clauseOf(a, weigh);
    assert.ok(a.includes(ca), ca);
    assert.match(ca, /cushion gas, and reservoir brines$/, ca);
    assert.match(ca, /^This study focuses/, ca);
    const b = 'By integrating technological innovation, policy coordination, and cross-sector collaboration, salt cavern hydrogen storage is poised to play a pivotal role in realizing a resilient hydrogen economy, bridging the gap between renewable energy production and industrial decarbonization.';
    const cb = clauseOf(b, weigh);
    assert.ok(b.includes(cb), cb);
    assert.doesNotMatch(cb, /^cross-sector collaboration/, cb);
    // A real coordination still splits: two statements joined by ", and".
    const c = 'The caverns were leached from rock salt at a depth of one thousand metres over many months of careful work, and cushion gas keeps the cavern pressure above its minimum during every withdrawal cycle.';
    assert.equal(clauseOf(c, weigh), 'cushion gas keeps the cavern pressure above its minimum during every withdrawal cycle');
  });

  test('the synthesis does not repeat a quote: a sentence given whole in the synthesis is not quoted again below it', async () => {
    const text = 'Cushion gas keeps the cavern pressure above its minimum. The caverns were leached from rock salt at depth.';
    const ps: Passage[] = [{ number: 1, documentIndex: 1, snippetIndex: 0, documentId: 'd1', title: 'Cushion gas', field: 'abstract', text, fieldText: text, pinned: false }];
    const r = await new ExtractiveAnswerer().answer({ question: 'What does cushion gas do to cavern pressure?', history: [], passages: ps, maxContextLength: null, apiKey: null, signal: new AbortController().signal, onDelta: () => {} });
    const body = 'ushion gas keeps the cavern pressure above its minimum';
    assert.equal(r.answer.split(body).length - 1, 1, r.answer);
    assert.ok(r.citations.length >= 1 && r.citations.every((c) => text.includes(c.excerpt)));
  });

  test('sentences that address the same question terms are grouped', () => {
    const items = [{ t: ['a', 'b'] }, { t: ['c'] }, { t: ['a', 'b', 'x'] }];
    assert.deepEqual(groupByTerms(items, (i) => new Set(i.t)).map((g) => g.length), [2, 1]);
  });
});

describe('a verdict for claims (ADR 0241)', () => {
  test('a claim is a statement or "Is it true that ..."; a question that asks is not', () => {
    assert.equal(claimOf('Is it true that birth weight increases breast cancer risk?'), 'birth weight increases breast cancer risk');
    assert.equal(claimOf('Bariatric surgery increases rates of colorectal cancer.'), 'Bariatric surgery increases rates of colorectal cancer');
    assert.equal(claimOf('What is the capital of France?'), null);
    assert.equal(claimOf('papers on hydrogen storage'), null);
    assert.equal(claimOf('hydrogen'), null);
  });

  test('stance by cues: direction, negation, null results, framing sentences', () => {
    const claim = 'Bariatric surgery increases rates of colorectal cancer';
    assert.equal(stanceOf(claim, 'Bariatric surgery increased the rates of colorectal cancer in the cohort.'), 'supports');
    assert.equal(stanceOf(claim, 'Bariatric surgery reduced the rates of colorectal cancer in the cohort.'), 'contradicts');
    assert.equal(stanceOf(claim, 'Bariatric surgery did not increase rates of colorectal cancer.'), 'contradicts');
    assert.equal(stanceOf(claim, 'No association was detected between bariatric surgery and colorectal cancer rates.'), 'contradicts');
    assert.equal(stanceOf(claim, 'The objective of this study was to evaluate bariatric surgery and colorectal cancer rates.'), 'neutral');
    assert.equal(stanceOf(claim, 'Salt caverns store hydrogen.'), 'neutral');
    const nullClaim = 'Immunosuppressive therapy does not enhance cancer mortality';
    assert.equal(stanceOf(nullClaim, 'Patients on immunosuppressive therapy had cancer mortality similar to others.'), 'supports');
    assert.equal(stanceOf(nullClaim, 'Immunosuppressive therapy increased cancer mortality.'), 'contradicts');
    assert.equal(stanceOf('Birth weight is negatively associated with breast cancer', 'Birth weight was positively associated with breast cancer risk.'), 'contradicts');
  });

  test('a shared direction word agrees whatever follows it (defect: "X reduces Y" read as contradicted by "X reduces Y significantly more than placebo")', () => {
    assert.equal(stanceOf('Metformin reduces tumor growth', 'Metformin reduces tumor growth significantly more than placebo.'), 'supports');
    assert.equal(stanceOf('Vitamin D lowers fracture risk', 'Vitamin D lowered fracture risk significantly, more so in women.'), 'supports');
    // A direction word inside the claim's topic ("insulin resistance", "cell death") is topic, not the claim's direction.
    assert.equal(stanceOf('Exercise increases insulin resistance', 'Exercise increases insulin resistance significantly more than rest.'), 'supports');
    assert.equal(stanceOf('Exercise reduces insulin resistance', 'Exercise increased insulin resistance in the trained group.'), 'contradicts');
    assert.equal(stanceOf('Loss of p53 reduces cell death', 'Loss of p53 reduced cell death after irradiation.'), 'supports');
    // The shared word negated, or a null result, still contradicts.
    assert.equal(stanceOf('Metformin reduces tumor growth', 'Metformin did not reduce tumor growth.'), 'contradicts');
    assert.equal(stanceOf('Metformin reduces tumor growth', 'Metformin produced no significant reduction in tumor growth.'), 'contradicts');
  });

  test('verdicts: supports, contradicts, mixed, insufficient', () => {
    assert.equal(verdictOf(['supports', 'neutral']), 'supports');
    assert.equal(verdictOf(['contradicts']), 'contradicts');
    // Both present: by default (tuned) the sentence closest to the claim decides; counted, a tie is mixed.
    assert.equal(verdictOf(['supports', 'contradicts'], undefined, [0.4, 0.8]), 'contradicts');
    assert.equal(verdictOf(['supports', 'contradicts'], undefined, [0.9, 0.8]), 'supports');
    assert.equal(verdictOf(['supports', 'contradicts'], { ...DEFAULT_VERDICT_OPTIONS, decideBy: 'count' }), 'mixed');
    assert.equal(verdictOf(['supports', 'supports', 'contradicts'], { ...DEFAULT_VERDICT_OPTIONS, anyContradictionMixes: true }), 'mixed');
    assert.equal(verdictOf(['neutral']), 'insufficient');
    assert.equal(verdictOf([]), 'insufficient');
  });

  test('a claim is answered with the synthesis, a verdict, and the cited sentences grouped by stance with markers', async () => {
    const passage = (documentIndex: number, text: string): Passage => ({ number: documentIndex, documentIndex, snippetIndex: 0, documentId: `d${documentIndex}`, title: `T${documentIndex}`, field: 'abstract', text, fieldText: text, pinned: false });
    const passages = [passage(1, 'Birth weight was positively associated with breast cancer risk in studies based on birth records. Birth length was also positively associated with breast cancer risk.')];
    const deltas: string[] = [];
    const r = await new ExtractiveAnswerer().answer({ question: 'Is it true that birth weight is negatively associated with breast cancer?', history: [], passages, maxContextLength: null, apiKey: null, signal: new AbortController().signal, onDelta: (t) => deltas.push(t) });
    assert.equal(r.verdict, 'contradicts');
    const paras = r.answer.split('\n\n');
    assert.match(paras[0]!, /\[1\]\.$/);
    assert.equal(paras[1], 'Verdict: the cited evidence contradicts the claim.');
    assert.match(paras[0]!, /^Birth weight was positively associated with breast cancer risk in studies based on birth records \[1\]\.$/);
    // The synthesis gave the first sentence whole: only the other one is quoted under its stance.
    assert.match(paras[2]!, /^Contradicts: Birth length was also positively associated .*\[1\]/);
    for (const c of r.citations) assert.ok(passages[0]!.fieldText.includes(c.excerpt));
    assert.equal(deltas.join(''), r.answer);
    // A question that asks (not a claim) gets no verdict.
    const q = await new ExtractiveAnswerer().answer({ question: 'How is birth weight associated with breast cancer?', history: [], passages, maxContextLength: null, apiKey: null, signal: new AbortController().signal, onDelta: () => {} });
    assert.equal(q.verdict, undefined);
    assert.doesNotMatch(q.answer, /Verdict/);
  });
});

describe('full-text evidence (ADR 0242)', () => {
  test('the section of an offset is the nearest Markdown heading before it', () => {
    const text = '# Title\n\nIntro text.\n\n## 2. *Methods*\n\nWe did things.\n\n### 2.1 Sites\n\nNorth.';
    assert.equal(sectionOf(text, text.indexOf('Intro')), 'Title');
    assert.equal(sectionOf(text, text.indexOf('We did')), '2. Methods');
    assert.equal(sectionOf(text, text.indexOf('North')), '2.1 Sites');
    assert.equal(sectionOf('No headings here.', 3), null);
  });

  test('a citation of a body passage records its offset and section; an abstract citation neither', () => {
    const body = '# Report\n\n## Leaching\n\nThe boreholes were flushed with warm brine.';
    const p: Passage = { number: 1, documentIndex: 1, snippetIndex: 0, documentId: 'd1', title: 'R', field: 'body', text: 'The boreholes were flushed with warm brine.', fieldText: body, pinned: false };
    const r = anchorCitations('The boreholes were flushed with warm brine [1].', [p]);
    assert.equal(r.citations[0]!.section, 'Leaching');
    assert.equal(r.citations[0]!.offset, body.indexOf('The boreholes'));
    const a = anchorCitations('The boreholes were flushed with warm brine [1].', [{ ...p, field: 'abstract', fieldText: p.text }]);
    assert.equal(a.citations[0]!.section, undefined);
  });
});
