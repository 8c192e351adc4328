// ranking.lexicalFeedbackTerms (issue 27, ADR 0315): off by default; when set, the fulltext channel feeds
// its top document's terms back (the trace names the document and terms) and finds a document that shares
// none of the query's words, in `fulltext` and in `hybrid` (which, with no corpus model, equals fulltext).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigInput } from '../../src/config/index.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';

const DOCS = [
  doc('top', { title: 'Aspirin lowers the risk of stroke', abstract: 'Acetylsalicylic acid inhibits platelet aggregation and thromboxane synthesis; stroke risk fell.', language: 'en' }),
  doc('mismatch', { title: 'Acetylsalicylic acid and platelet aggregation', abstract: 'Thromboxane synthesis in platelets is inhibited by acetylsalicylic acid.', language: 'en' }),
  ...Array.from({ length: 30 }, (_, i) => doc(`f${i}`, { title: `Filler study ${i} of risk`, abstract: `Cohort ${i} followed for cardiovascular outcomes and risk factors.`, language: 'en' })),
];

describe('lexical feedback in the search service', () => {
  const apps: TestApp[] = [];
  const keys: string[] = [];
  before(async () => {
    for (const config of [{}, { ranking: { lexicalFeedbackTerms: 10 } as ConfigInput['ranking'] }]) {
      const app = await testApp(config);
      keys.push((await app.account({ credits: 10_000_000 })).key);
      await seed(app, DOCS);
      await app.indexes!.catchUp();
      apps.push(app);
    }
  });
  after(async () => {
    for (const a of apps) await a.dispose();
  });
  const search = async (i: number, body: Record<string, unknown>) => {
    const res = await apps[i]!.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': keys[i]! }, payload: { tracing: true, limit: 10, ...body } });
    assert.equal(res.statusCode, 200, res.body);
    const json = res.json();
    const ids = (json.hits as { id: string }[]).map((h) => h.id);
    const fulltext = (json.retrieval_traces as { branch: string; feedback?: { from: string; terms: string[] } }[]).find((t) => t.branch === 'fulltext');
    return { ids, feedback: fulltext?.feedback };
  };

  test('off by default: fulltext does not find the document without the query words', async () => {
    const r = await search(0, { query: 'aspirin stroke', mode: 'fulltext' });
    assert.equal(r.ids[0], 'top');
    assert.ok(!r.ids.includes('mismatch'));
    assert.equal(r.feedback, undefined);
  });

  test('on: the fulltext channel feeds back its top document and finds it, in fulltext and hybrid alike', async () => {
    const r = await search(1, { query: 'aspirin stroke', mode: 'fulltext' });
    assert.equal(r.ids[0], 'top');
    assert.equal(r.ids[1], 'mismatch');
    assert.equal(r.feedback?.from, 'top');
    assert.ok(r.feedback.terms.length > 0 && r.feedback.terms.length <= 10);
    const h = await search(1, { query: 'aspirin stroke', mode: 'hybrid' });
    assert.deepEqual(h.feedback, r.feedback);
    assert.deepEqual(h.ids, r.ids);
    // a later page feeds back from the same top document
    const p2 = await search(1, { query: 'aspirin stroke', mode: 'fulltext', offset: 1, limit: 1 });
    assert.deepEqual(p2.ids, ['mismatch']);
    assert.equal(p2.feedback?.from, 'top');
  });
});
