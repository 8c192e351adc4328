// Quality of the ranking pipeline (issue 16): nDCG@10 and Recall@100 on SciFact (train judgments) and
// Cranfield, through the search service itself (SearchService.retrieve: channels, fusion and the ranking
// stages exactly as a search runs them), for
//   fulltext                 mode fulltext
//   hybrid                   mode hybrid (fulltext + sparse + dense with corpus models trained on the set)
//   hybrid + formula         candidate_ranking formula with FORMULA below (fixed, not tuned on the set)
//   hybrid + learned formula a linear formula fitted on the other folds (`lectern ranking train --formula`)
//   hybrid + L2 (CV)         l2_rerank catboost with a model trained by `lectern ranking train`'s code
//                            (src/ranking/train-ranker.ts) on the other folds' queries: k-fold
//                            cross-validation by query, each query scored by the model that never saw it
// Usage: node dist/bench/ranking/quality.js [--write] [--only scifact|cranfield] [--folds 5] [--queries N]
//          [--trees 300] [--depth 6]
// --write stores bench/results/ranking-quality.json (machine and load average noted).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { buildCore } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { parseBeir } from '../../src/ingest/formats/beir.js';
import { loadCatBoostJson } from '../../src/ranking/catboost.js';
import { bindL2Model } from '../../src/ranking/l2.js';
import { NO_RANKING, type RankingSettings } from '../../src/ranking/pipeline.js';
import { searchCandidateSource } from '../../src/ranking/training-source.js';
import { trainFormula } from '../../src/ranking/formula-fit.js';
import { assignFolds, trainRanker, type CandidateSource, type JudgedQuery, type PoolCandidate } from '../../src/ranking/train-ranker.js';
import { SearchService } from '../../src/search/search-service.js';
import { defaultSearchRequest, type SearchRequest } from '../../src/search/search-types.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { machine } from '../lib/machine.js';
import { evalDataDir } from '../quality/data-dir.js';
import { loadIrSet, ndcgAt, recallAt } from '../quality/ir-eval.js';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const FOLDS = Number(arg('folds') ?? 5);
const MAX_QUERIES = arg('queries') ? Number(arg('queries')) : Infinity;
const TREES = Number(arg('trees') ?? 300);
const DEPTH = Number(arg('depth') ?? 6);
const POOL = 100;

/**
 * The formula of "hybrid + formula", written before looking at any result: the organic fused score plus
 * small title and phrase/proximity bonuses (raw BM25 magnitudes are ~5-30, RRF votes ~0.01-0.03).
 */
const FORMULA = 'rrf + 0.0005 * bm25_title + 0.001 * (phrase_bonus + proximity)';

interface MethodAcc {
  ndcg: number;
  recall: number;
  ms: number;
  n: number;
}

async function evaluateSet(name: string, dir: string, split: string) {
  const set = loadIrSet(dir, name, split);
  const dataDir = mkdtempSync(join(tmpdir(), 'lectern-rank-bench-'));
  const config = loadConfig({}, { dataDir, loadDemoCorpus: false, logLevel: 'silent' });
  const core = await buildCore(config, { logger: pino({ level: 'silent' }) });
  try {
    const t0 = performance.now();
    // as `lectern ingest` does: a record with neither title nor text is skipped (Cranfield has a few)
    const records = set.corpus.flatMap((d) => {
      try {
        return [parseBeir({ _id: d.id, title: d.title, text: d.text }).record];
      } catch {
        return [];
      }
    });
    for (let i = 0; i < records.length; i += 500) await core.storage.documents.upsertMany(records.slice(i, i + 500), 1_700_000_000);
    const indexes = await core.openIndexes();
    const tIndexed = performance.now();
    await core.corpusModels.train('documents', {});
    core.refreshModels();
    const tModels = performance.now();
    const report = (e: unknown) => console.error(e);
    const service = (ranking: RankingSettings = NO_RANKING) =>
      new SearchService({ indexes, store: core.works, activity: core.activity, billing: core.billing, prices: config.prices, clock: core.clock, secret: core.secret, report, ranking });

    const judged: JudgedQuery[] = [];
    for (const [qid, rels] of set.qrels) {
      const text = set.queries.get(qid);
      if (text !== undefined && [...rels.values()].some((r) => r > 0)) judged.push({ id: qid, text, index: 'documents', rels });
    }
    // --queries N: about N/folds queries of each fold (a fixed subset, balanced across folds)
    const folds = assignFolds(judged.map((q) => q.id), Math.max(FOLDS, 1));
    const perFold = Math.ceil(MAX_QUERIES / Math.max(FOLDS, 1));
    const taken = new Map<number, number>();
    const queries = judged.filter((q) => {
      const f = folds.get(q.id)!;
      const n = taken.get(f) ?? 0;
      taken.set(f, n + 1);
      return n < perFold;
    });

    // the peer, measured in this run on the same queries: Xapian BM25 (python3-xapian)
    const xap = spawnSync('/usr/bin/python3', [join(repoRoot, 'bench', 'ranking', 'xapian_quality.py'), dir, split, join(dataDir, 'xapian')], { input: queries.map((q) => q.id).join('\n'), encoding: 'utf8', maxBuffer: 1 << 20 });
    const xapian = xap.status === 0 ? (JSON.parse(xap.stdout) as { engine: string; queries: number; ndcg10: number; recall100: number; queryMsMean: number }) : { error: (xap.stderr || String(xap.error)).slice(0, 500) };
    console.log(`  ${name} xapian: ${JSON.stringify(xapian)}`);

    const acc = new Map<string, MethodAcc>();
    const add = (method: string, ids: string[], rels: Map<string, number>, ms: number) => {
      let a = acc.get(method);
      if (!a) acc.set(method, (a = { ndcg: 0, recall: 0, ms: 0, n: 0 }));
      a.ndcg += ndcgAt(ids, rels, 10);
      a.recall += recallAt(ids, rels, 100);
      a.ms += ms;
      a.n += 1;
    };
    const run = async (svc: SearchService, r: SearchRequest): Promise<[string[], number]> => {
      const t = performance.now();
      const hits = await svc.retrieve(r);
      return [hits.map((h) => h.id), performance.now() - t];
    };
    const req = (query: string, over: Partial<SearchRequest>) => defaultSearchRequest({ query, limit: POOL, crossRerank: false, l2Rerank: 'off', ...over });

    const plain = service();
    const pools = new Map<string, PoolCandidate[]>();
    const live = searchCandidateSource(plain);
    let poolMs = 0;
    for (const q of queries) {
      const [ft, ftMs] = await run(plain, req(q.text, { mode: 'fulltext' }));
      add('fulltext', ft, q.rels, ftMs);
      const [hy, hyMs] = await run(plain, req(q.text, { mode: 'hybrid', candidateRanking: 'rrf' }));
      add('hybrid', hy, q.rels, hyMs);
      const [fo, foMs] = await run(plain, req(q.text, { mode: 'hybrid', candidateRanking: 'formula', l1Formula: FORMULA }));
      add('hybrid + formula', fo, q.rels, foMs);
      const t = performance.now();
      pools.set(q.text, await live.pool(q.text, 'documents', POOL));
      poolMs += performance.now() - t;
    }
    const cached: CandidateSource = { featureVersion: live.featureVersion, featureNames: live.featureNames, pool: async (text, _i, depth) => (pools.get(text) ?? []).slice(0, depth) };

    const foldReports = [];
    let trainMs = 0;
    for (let k = 0; k < FOLDS; k++) {
      const test = queries.filter((q) => folds.get(q.id) === k);
      const train = queries.filter((q) => folds.get(q.id) !== k);
      const t = performance.now();
      // as `lectern ranking train --folds 1` would: tree count chosen on held-out training queries
      const trained = await trainRanker(cached, train, { poolDepth: POOL, folds: 1, iterations: TREES, depth: DEPTH });
      trainMs += performance.now() - t;
      // a linear formula fitted on the same training queries (`lectern ranking train --formula`)
      const fitted = await trainFormula(cached, train, { poolDepth: POOL, folds: 1 });
      for (const q of test) {
        const [lf, lfMs] = await run(plain, req(q.text, { mode: 'hybrid', candidateRanking: 'formula', l1Formula: fitted.formula }));
        add('hybrid + learned formula (cross-validated)', lf, q.rels, lfMs);
      }
      const model = bindL2Model(loadCatBoostJson(JSON.stringify(trained.modelJson)), `fold ${k}`);
      const ranked = service({ ...NO_RANKING, candidateDepth: POOL, l2Auto: true, l2Models: new Map([['documents', [model]]]) });
      let n = 0;
      let organic = 0;
      for (const q of test) {
        const [l2, l2Ms] = await run(ranked, req(q.text, { mode: 'hybrid', candidateRanking: 'rrf', l2Rerank: 'catboost' }));
        add('hybrid + L2 (cross-validated)', l2, q.rels, l2Ms);
        n += ndcgAt(l2, q.rels, 10);
        organic += ndcgAt(
          (pools.get(q.text) ?? []).map((c) => c.id),
          q.rels,
          10,
        );
      }
      foldReports.push({ fold: k, trainQueries: train.length, testQueries: test.length, trees: trained.report.finalTrees, features: model.features, learnedFormula: fitted.formula, ndcg10Hybrid: organic / Math.max(1, test.length), ndcg10L2: n / Math.max(1, test.length), trainMs: Math.round(performance.now() - t) });
      console.log(`  ${name} fold ${k}: ${test.length} test queries, ${trained.report.finalTrees} trees, nDCG@10 hybrid ${(organic / test.length).toFixed(4)} -> L2 ${(n / test.length).toFixed(4)}`);
    }
    const methods = Object.fromEntries([...acc].map(([m, a]) => [m, { ndcg10: a.ndcg / a.n, recall100: a.recall / a.n, queryMsMean: a.ms / a.n, queries: a.n }]));
    return {
      set: name,
      documents: records.length,
      skippedRecords: set.corpus.length - records.length,
      judgedQueries: judged.length,
      queries: queries.length,
      methods,
      xapian,
      l2: { folds: FOLDS, trees: TREES, depth: DEPTH, poolDepth: POOL, loss: 'LambdaMart', foldReports, poolMsMean: poolMs / queries.length, trainMsTotal: Math.round(trainMs) },
      setupMs: { ingestAndIndex: Math.round(tIndexed - t0), corpusModels: Math.round(tModels - tIndexed) },
    };
  } finally {
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const only = arg('only');
const load0 = loadavg()[0];
const started = machine();
const results = [];
if (!only || only === 'scifact') results.push(await evaluateSet('scifact-train', join(evalDataDir(), 'ir', 'scifact'), 'train'));
if (!only || only === 'cranfield') results.push(await evaluateSet('cranfield', join(evalDataDir(), 'ir', 'cranfield'), 'test'));
for (const r of results) {
  const x = r.xapian as { ndcg10?: number };
  if (typeof x.ndcg10 === 'number') (r as Record<string, unknown>).ratiosToXapian = Object.fromEntries(Object.entries(r.methods).map(([m, v]) => [m, Math.round((v.ndcg10 / x.ndcg10!) * 1000) / 1000]));
  console.log(`${r.set} (${r.queries} queries, ${r.documents} documents)`);
  for (const [m, v] of Object.entries(r.methods)) console.log(`  ${m.padEnd(44)} nDCG@10 ${v.ndcg10.toFixed(4)}  R@100 ${v.recall100.toFixed(4)}  ${v.queryMsMean.toFixed(1)} ms/q`);
}
if (args.includes('--write')) {
  const out = {
    benchmark: 'ranking-quality',
    note: 'Through SearchService.retrieve (the ranking stages as a search runs them). hybrid uses corpus models trained on each collection (no judgments). The formula is fixed in advance (not tuned); the learned formula is fitted per fold on the other folds\' queries. L2: LambdaMart GBDT trained by Lectern (src/ranking/) on the pipeline\'s pools (top 100, v1 features) of the other folds\' queries; each query is scored only by a model that never saw it. R@100 of reranking methods equals hybrid\'s (the top 100 are reordered, not replaced). nDCG@10 with exponential gain (BEIR).',
    formula: FORMULA,
    peer: 'xapian (python3-xapian BM25, title + text, English stemming) on the same queries, measured in this run: results[].xapian; ratios: results[].ratiosToXapian (nDCG@10 of each method / Xapian\'s)',
    results,
    machine: { ...started, load_average_1m_at_start: load0, load_average_1m_at_end: loadavg()[0], shared: 'machine shared with other engineers; timings are indicative' },
  };
  writeFileSync(join(repoRoot, 'bench', 'results', 'ranking-quality.json'), JSON.stringify(out, null, 2) + '\n');
}
