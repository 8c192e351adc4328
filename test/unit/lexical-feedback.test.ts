// Pseudo-relevance feedback of the lexical channel (issue 27, ADR 0315): the expansion from the top
// document, and the feedback pass that finds a document sharing none of the query's words.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryIndexDirectory, SearchIndex } from '../../src/engine/index.js';
import { feedbackExpansion, lexicalFeedbackPass, MEASURED_LEXICAL_FEEDBACK, type FeedbackDocument } from '../../src/search/lexical-feedback.js';

const DOCS: Record<string, FeedbackDocument> = {
  top: { title: 'Aspirin lowers the risk of stroke', abstract: 'Acetylsalicylic acid inhibits platelet aggregation and thromboxane synthesis; stroke risk fell.', language: 'en' },
  // shares no word with the query "aspirin stroke", only the top document's vocabulary
  mismatch: { title: 'Acetylsalicylic acid and platelet aggregation', abstract: 'Thromboxane synthesis in platelets is inhibited by acetylsalicylic acid.', language: 'en' },
  ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, { title: `Filler study ${i} of risk`, abstract: `Cohort ${i} followed for cardiovascular outcomes and risk factors.`, language: 'en' }])),
};

function index(): SearchIndex {
  const ix = SearchIndex.open(new MemoryIndexDirectory());
  for (const [id, d] of Object.entries(DOCS)) ix.add({ id, title: d.title, abstract: d.abstract, language: d.language });
  ix.commit('t');
  return ix;
}

describe('lexical feedback', () => {
  test('the expansion takes the top document\'s distinctive terms, not the query\'s, strongest at the weight, deterministic', () => {
    const ix = index();
    const q = { text: 'aspirin stroke' };
    const e = feedbackExpansion(ix, q, DOCS['top']!, { terms: 4, weight: 0.3 });
    assert.equal(e.length, 4);
    const own = new Set(ix.queryTerms(q));
    for (const x of e) assert.ok(!own.has(x.term), `${x.term} is a query term`);
    assert.equal(e[0]!.weight, 0.3);
    for (let i = 1; i < e.length; i++) assert.ok(e[i]!.weight <= e[i - 1]!.weight && e[i]!.weight > 0);
    // "risk" is in 41 of 42 documents: never among the best
    assert.ok(!e.some((x) => x.term === 'risk'));
    assert.deepEqual(feedbackExpansion(ix, q, DOCS['top']!, { terms: 4, weight: 0.3 }), e);
    assert.deepEqual(feedbackExpansion(ix, q, DOCS['top']!, { terms: 0, weight: 0.3 }), []);
    assert.deepEqual(feedbackExpansion(ix, q, { title: '', abstract: null, language: 'en' }, MEASURED_LEXICAL_FEEDBACK), []);
  });

  test('the feedback pass finds a document that shares no query word; the first pass keeps it out', async () => {
    const ix = index();
    const base = { text: 'aspirin stroke', limit: 10, passagesPerHit: 0 };
    const first = ix.search(base);
    assert.equal(first.hits[0]!.id, 'top');
    assert.ok(!first.hits.some((h) => h.id === 'mismatch'));
    const loaded: string[] = [];
    const pass = await lexicalFeedbackPass(ix, base, first, MEASURED_LEXICAL_FEEDBACK, async (hit) => (loaded.push(hit.id), DOCS[hit.id] ?? null));
    assert.ok(pass);
    assert.deepEqual(loaded, ['top']);
    assert.equal(pass.from, 'top');
    assert.equal(pass.result.hits[0]!.id, 'top');
    assert.equal(pass.result.hits[1]!.id, 'mismatch');
    // the same as searching the expansion directly (an ordinary exact engine search)
    assert.deepEqual(
      pass.result.hits.map((h) => [h.id, h.score]),
      ix.search({ ...base, expansion: pass.terms }).hits.map((h) => [h.id, h.score]),
    );
    // a later page feeds back from the same top document (a one-hit probe), so pages stay consistent
    const page2 = { ...base, offset: 1, limit: 1 };
    const p2 = await lexicalFeedbackPass(ix, page2, ix.search(page2), MEASURED_LEXICAL_FEEDBACK, async (hit) => DOCS[hit.id] ?? null);
    assert.equal(p2?.from, 'top');
    assert.equal(p2?.result.hits[0]!.id, 'mismatch');
  });

  test('nothing to feed back: no hit, no text, an expansion already, or terms 0', async () => {
    const ix = index();
    const load = async (hit: { id: string }) => DOCS[hit.id] ?? null;
    const none = { text: 'zzzqqq', limit: 10 };
    assert.equal(await lexicalFeedbackPass(ix, none, ix.search(none), MEASURED_LEXICAL_FEEDBACK, load), null);
    const q = { text: 'aspirin', limit: 10 };
    assert.equal(await lexicalFeedbackPass(ix, q, ix.search(q), MEASURED_LEXICAL_FEEDBACK, async () => null), null);
    const expanded = { ...q, expansion: [{ term: 'platelet', weight: 0.5 }] };
    assert.equal(await lexicalFeedbackPass(ix, expanded, ix.search(expanded), MEASURED_LEXICAL_FEEDBACK, load), null);
    assert.equal(await lexicalFeedbackPass(ix, q, ix.search(q), { terms: 0, weight: 0.3 }, load), null);
  });
});
