// Issue 27, "no refusal of natural queries": with the default work budget a long natural-language query
// (a pasted abstract) is answered at any limit up to the maximum, its pruned evaluation flagged in the
// trace (ADR 0231); and no query of the judged sets (SciFact claims, Cranfield questions, over their own
// corpora) is refused at limit 100 with default settings.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { repoRoot, sharedData } from '../helpers/paths.js';

const ABSTRACT =
  'Chronic inflammation of adipose tissue in obesity is associated with insulin resistance and type 2 diabetes. ' +
  'We examined macrophage polarization in visceral fat from lean and obese mice fed a high-fat diet for sixteen weeks, ' +
  'using flow cytometry, single-cell sequencing and immunohistochemistry. Obese animals accumulated crown-like structures ' +
  'around dying adipocytes, and their macrophages expressed higher levels of tumor necrosis factor, interleukin six and ' +
  'monocyte chemoattractant protein. Genetic deletion of the toll-like receptor four adaptor reduced lipid-laden foam cells, ' +
  'restored glucose tolerance and lowered fasting serum triglycerides. Pharmacological blockade with a selective kinase inhibitor ' +
  'reproduced these effects in a second cohort, while hepatic steatosis, body weight and food intake were unchanged. ' +
  'Transcriptomic profiling revealed suppressed oxidative phosphorylation, enhanced glycolysis and altered mitochondrial ' +
  'biogenesis in stromal vascular fractions. Human biopsies from bariatric surgery patients showed a comparable signature ' +
  'that correlated with homeostasis model assessment scores. These findings identify innate immune signalling as a ' +
  'therapeutic target linking nutrient excess, metabolic dysfunction and cardiovascular risk, and suggest biomarkers for ' +
  'stratifying clinical trials of anti-inflammatory drugs in adolescents and elderly populations.';

const DOCS = [
  doc('fat', { title: 'Macrophages in obese adipose tissue drive insulin resistance', abstract: 'Adipose tissue macrophages, inflammation, tumor necrosis factor and insulin resistance in obesity and type 2 diabetes.', language: 'en' }),
  doc('tlr', { title: 'Toll-like receptor signalling in metabolic disease', abstract: 'Innate immune receptors link nutrient excess to metabolic dysfunction; kinase inhibitors restore glucose tolerance.', language: 'en' }),
  doc('liver', { title: 'Hepatic steatosis after bariatric surgery', abstract: 'Liver fat, triglycerides and body weight in patients after surgery.', language: 'en' }),
  ...Array.from({ length: 150 }, (_, i) => doc(`x${i}`, { title: `Study ${i} of cardiovascular risk`, abstract: `Clinical trial ${i} of drugs in elderly populations; glycolysis, mitochondrial biogenesis and oxidative phosphorylation.`, language: 'en' })),
];

describe('long natural queries with the default work budget', () => {
  let app: TestApp;
  let key: string;
  before(async () => {
    app = await testApp();
    key = (await app.account({ credits: 10_000_000 })).key;
    await seed(app, DOCS);
    await app.indexes!.catchUp();
  });
  after(() => app.dispose());
  const search = async (body: Record<string, unknown>) => {
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: body });
    return { status: res.statusCode, body: res.json() };
  };

  test('a 116-term abstract is answered at limit 100 (with and without documents) and 500; the pruned per-hit work is flagged', async () => {
    const terms = new Set(app.indexes!.get('documents').parse(ABSTRACT, null).words.flatMap((w) => w.terms));
    assert.ok(terms.size >= 116, `the abstract has ${terms.size} distinct terms`);
    for (const body of [{ limit: 100 }, { limit: 100, return_documents: false }, { limit: 500 }, { limit: 10, offset: 490 }]) {
      const r = await search({ query: ABSTRACT, tracing: true, ...body });
      assert.equal(r.status, 200, `${JSON.stringify(body)}: ${JSON.stringify(r.body).slice(0, 400)}`);
      assert.equal(r.body.hits.length, Math.min(body.limit, Math.max(0, DOCS.length - ((body as { offset?: number }).offset ?? 0))));
      const fusion = r.body.retrieval_traces.find((t: { branch: string }) => t.branch === 'fusion');
      // 10,000 results x terms: 100 results read the 100 weightiest words, 500 results 20
      assert.equal(fusion.pruned, true, JSON.stringify(fusion));
      assert.match(fusion.pruning[0], /passages, snippets and proximity read the (100|20) weightiest of \d+ words/);
    }
    const top = await search({ query: ABSTRACT, limit: 3 });
    assert.deepEqual(top.body.hits.map((h: { id: string }) => h.id).slice(0, 2).sort(), ['fat', 'tlr']);
  });

  test('a 16 KiB pasted text is answered, its most common words left out beyond 256 terms', async () => {
    const long = Array.from({ length: 400 }, (_, i) => `term${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}word`).join(' ');
    const q = `${ABSTRACT} ${long}`.slice(0, 16 * 1024);
    const r = await search({ query: q, limit: 100, tracing: true });
    assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 400));
    const ft = r.body.retrieval_traces.find((t: { branch: string }) => t.branch === 'fulltext');
    assert.equal(ft.pruned.terms, 256);
    assert.ok(ft.pruned.dropped_terms.length > 0);
  });
});

/** The shared evaluation data (beside the checkout, or two levels up from a worktree), or null. */
function evalData(): string | null {
  for (const c of [process.env['LECTERN_SHARED_DATA'], sharedData, join(repoRoot, '..', '..', 'shared', 'data')]) if (c && existsSync(join(c, 'ir'))) return c;
  return null;
}

const jsonl = (path: string) => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, string>);

describe('the judged sets\' queries at limit 100 with default settings', () => {
  const data = evalData();
  let app: TestApp;
  let key: string;
  before(async () => {
    if (!data) return;
    // rate limits out of the way: only the work budget (default) may refuse
    app = await testApp({ rateLimits: { search: { capacity: 1_000_000, refillPerSecond: 1_000_000 } } as never });
    key = (await app.account({ credits: 100_000_000 })).key;
    for (const set of ['scifact', 'cranfield']) {
      const docs = jsonl(join(data, 'ir', set, 'corpus.jsonl')).map((d) => doc(`${set}:${d['_id']}`, { title: d['title'] ?? '', abstract: d['text'] ?? null, language: 'en' }));
      for (let i = 0; i < docs.length; i += 1000) await seed(app, docs.slice(i, i + 1000));
    }
    await app.indexes!.catchUp();
  });
  after(() => app?.dispose());

  for (const set of ['scifact', 'cranfield']) {
    test(`${set}: every query answered (0 refusals)`, { skip: data ? false : 'shared evaluation data not found' }, async () => {
      const queries = jsonl(join(data!, 'ir', set, 'queries.jsonl'));
      const refused: string[] = [];
      for (const q of queries) {
        const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: { query: q['text'], limit: 100, return_documents: false } });
        if (res.statusCode !== 200) refused.push(`${q['_id']}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
      assert.ok(queries.length > 200);
      assert.deepEqual(refused, []);
    });
  }
});
