// `lectern ranking train` end to end on a tiny corpus (issue 16, "a new user can train an L2 model on
// judgments and see it change rankings"): in every topic the judged relevant document is a review that
// the lexical ranking puts below two stronger matches. The command trains from BEIR qrels with
// cross-validation, writes the model into the index's models directory, and a server configured with it
// (ranking.l2Models) ranks the reviews first under l2_rerank catboost, reporting the model's SHA-256.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { runCliOn } from '../helpers/cli.js';
import type { DocumentRecord } from '../../src/domain/document.js';

const TOPICS = ['graphene', 'hydrogen', 'malaria', 'volcano', 'glacier', 'protein', 'quantum', 'coral', 'lithium', 'tundra'];

function corpus(): DocumentRecord[] {
  return TOPICS.flatMap((t) => [
    doc(`${t}-a`, { title: `${t} ${t} ${t} measurements`, abstract: `Measurements of ${t} in the field, ${t} again.`, type: 'journal-article' }),
    doc(`${t}-b`, { title: `${t} ${t} methods`, abstract: `Methods for ${t}.`, type: 'journal-article' }),
    doc(`${t}-c`, { title: `A survey`, abstract: `This survey covers ${t}.`, type: 'review' }),
    doc(`${t}-d`, { title: `Notes`, abstract: `Short notes mentioning ${t} once.`, type: 'posted-content' }),
  ]);
}

describe('lectern ranking train', () => {
  let app: TestApp;
  let beir: string;
  before(async () => {
    app = await testApp();
    await seed(app, corpus());
    await app.indexes!.catchUp();
    beir = join(app.dir, 'beir');
    mkdirSync(join(beir, 'qrels'), { recursive: true });
    writeFileSync(join(beir, 'queries.jsonl'), TOPICS.map((t, i) => JSON.stringify({ _id: `q${i}`, text: t })).join('\n') + '\n');
    writeFileSync(join(beir, 'qrels', 'train.tsv'), 'query-id\tcorpus-id\tscore\n' + TOPICS.map((t, i) => `q${i}\t${t}-c\t2`).join('\n') + '\n');
  });
  after(() => app.dispose());

  test('trains from BEIR qrels, reports cross-validation, writes a model a server loads and ranks with', async () => {
    const r = await runCliOn(app, ['ranking', 'train', '--beir', beir, '--split', 'train', '--folds', '2', '--trees', '30', '--depth', '2', '--learning-rate', '0.3', '--pool', '10']);
    assert.equal(r.code, 0, r.stdout);
    const out = r.out as { model: { path: string; sha256: string; bytes: number; trees: number }; serve_with: string; judgments: { beir: { queries: number; unknownQueries: number } }; report: Record<string, any> };
    assert.equal(out.model.path, join(app.config.dataDir, 'models', 'documents', 'l2-ranker.json'));
    const bytes = readFileSync(out.model.path);
    assert.equal(out.model.sha256, createHash('sha256').update(bytes).digest('hex'));
    assert.equal(out.serve_with, `LECTERN_RANKING_L2_MODELS=documents=${out.model.path}`);
    assert.deepEqual(out.judgments.beir, { queries: 10, unknownQueries: 0 });
    assert.equal(out.report.queries.used, 10);
    assert.equal(out.report.featureVersion, 'lectern-features-v1');
    assert.equal(out.report.relevantInPool, 10);
    const cv = out.report.crossValidation;
    assert.equal(cv.folds.length, 2);
    assert.equal(cv.improved + cv.worsened + cv.unchanged, 10);
    // the reviews are below two stronger lexical matches organically; the held-out model puts them first
    assert.ok(cv.ndcg10Organic < 0.75, `organic ${cv.ndcg10Organic}`);
    assert.ok(cv.ndcg10Model > cv.ndcg10Organic, `model ${cv.ndcg10Model} vs organic ${cv.ndcg10Organic}`);
    const model = JSON.parse(bytes.toString('utf8')) as { features_info: { float_features: { feature_id: string }[] }; model_info: Record<string, unknown> };
    assert.ok(model.features_info.float_features.some((f) => f.feature_id === 'is_review'), 'the model reads is_review');
    assert.equal(model.model_info.lectern_target, 'teacher_score');
    // the lane it was trained in (ADR 0230): the default mode, hybrid, which runs fulltext alone here
    assert.equal(model.model_info.lectern_mode, 'hybrid');
    assert.equal(model.model_info.lectern_channels, 'fulltext');
    assert.deepEqual((out.model as unknown as { trained_for: unknown }).trained_for, { mode: 'hybrid', channels: ['fulltext'] });

    // A server configured with the model: l2_rerank catboost ranks the review first, off is the control.
    const served = await testApp({ ranking: { l2Models: `documents=${out.model.path}` } } as never);
    try {
      await seed(served, corpus());
      await served.indexes!.catchUp();
      const { key } = await served.account({ credits: 10_000 });
      const search = async (body: object) => {
        const res = await served.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: { query: 'volcano', limit: 4, ...body } });
        assert.equal(res.statusCode, 200, res.body);
        return res.json() as { hits: { id: string }[]; candidate_ranking: { l2: { model_sha256: string } | null } | null };
      };
      const control = await search({ l2_rerank: 'off' });
      assert.notEqual(control.hits[0]!.id, 'volcano-c');
      const ranked = await search({ l2_rerank: 'catboost' });
      assert.equal(ranked.hits[0]!.id, 'volcano-c');
      assert.equal(ranked.candidate_ranking!.l2!.model_sha256, out.model.sha256);
    } finally {
      await served.dispose();
    }
  });

  test('--formula fits a linear formula that ranks the reviews first when sent as l1', async () => {
    const r = await runCliOn(app, ['ranking', 'train', '--beir', beir, '--split', 'train', '--folds', '2', '--pool', '10', '--formula']);
    assert.equal(r.code, 0, r.stdout);
    const out = r.out as { formula: string; serve_with: string; report: { crossValidation: { ndcg10Organic: number; ndcg10Formula: number }; weights: Record<string, number> } };
    assert.ok(Object.keys(out.report.weights).length > 0, out.formula);
    assert.ok(out.report.crossValidation.ndcg10Formula > out.report.crossValidation.ndcg10Organic);
    // a formula runs only in the mode it was fitted for: the setting says so (ranking.formulaModes)
    assert.equal(out.serve_with, `LECTERN_RANKING_FORMULA_DOCUMENTS=${JSON.stringify(out.formula)} LECTERN_RANKING_FORMULA_MODES=hybrid`);
    assert.deepEqual((r.out as { trained_for: unknown }).trained_for, { mode: 'hybrid', channels: ['fulltext'] });
    const { key } = await app.account({ credits: 10_000 });
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: { query: 'glacier', limit: 4, candidate_ranking: 'formula', l1: { formula: out.formula } } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((res.json() as { hits: { id: string }[] }).hits[0]!.id, 'glacier-c');
  });

  test('stored feedback trains too; unusable judgments and bad options are refused', async () => {
    const { key } = await app.account({ credits: 10_000 });
    for (const t of TOPICS.slice(0, 4)) {
      const s = (await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: { query: t, limit: 4 } })).json() as { trajectory: { id: string; feedback_token: string } };
      const fb = await app.http.inject({ method: 'POST', url: '/v2/search/feedback', headers: { 'x-api-key': key }, payload: { trajectory_id: s.trajectory.id, feedback_token: s.trajectory.feedback_token, feedback_id: `fb-${t}`, ratings: [{ document_id: `${t}-c`, relevance: 3 }, { document_id: `${t}-a`, relevance: 0 }] } });
      assert.equal(fb.statusCode, 200, fb.body);
    }
    const r = await runCliOn(app, ['ranking', 'train', '--feedback', '--folds', '2', '--trees', '10', '--depth', '2', '--pool', '10', '--name', 'from-feedback.json']);
    assert.equal(r.code, 0, r.stdout);
    assert.equal(r.out.judgments.feedback.used, 4);
    assert.equal(r.out.report.queries.used, 4);
    assert.match(r.out.model.path, /from-feedback\.json$/);

    // judgments that name no candidate: exit 1 (nothing written); usage errors: exit 2
    writeFileSync(join(beir, 'qrels', 'nowhere.tsv'), 'q0\tno-such-doc\t1\nq1\tno-such-doc\t1\n');
    assert.equal((await runCliOn(app, ['ranking', 'train', '--beir', beir, '--split', 'nowhere', '--folds', '2', '--name', 'never.json'])).code, 1);
    assert.equal((await runCliOn(app, ['ranking', 'train', '--beir', beir, '--split', 'missing'])).code, 1);
    assert.equal((await runCliOn(app, ['ranking', 'train'])).code, 2);
    assert.equal((await runCliOn(app, ['ranking', 'train', '--beir', beir, '--loss', 'hinge'])).code, 2);
    assert.equal((await runCliOn(app, ['ranking', 'train', '--beir', beir, '--name', '../escape.json'])).code, 1);
    assert.equal((await runCliOn(app, ['ranking', 'fit'])).code, 2);
    assert.equal((await runCliOn(app, ['ranking', '--help'])).code, 0);
  });
});
