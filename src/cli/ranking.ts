// `lectern ranking train` (docs/ranking.md, ADR 0127): fits an L2 model from stored relevance feedback
// and/or BEIR judgments, reports its cross-validated effect, writes the model into the index's models
// directory and says how to point `ranking.l2Models` at it.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { INDEX_NAMES, type IndexName } from '../domain/document.js';
import type { SearchMode } from '../search/search-types.js';
import type { CliApp, CliContext } from './main.js';
import { progressBar } from './progress.js';

export const RANKING_USAGE = `  ranking train [--index NAME] [--beir DIR [--split S] | --queries F --qrels F] [--feedback [--since T]]
                                          fit an L2 ranking model from judgments (BEIR qrels, stored relevance
                                          feedback) with cross-validation; writes {data_dir}/models/NAME/l2-ranker.json`;

export const RANKING_HELP = `Usage: lectern ranking train [--index NAME] [--beir DIR [--split S] | --queries FILE --qrels FILE]
                             [--feedback [--since UNIX_SECONDS]] [--pool N] [--folds K] [--loss L]
                             [--trees N] [--depth N] [--learning-rate X] [--mode M] [--name FILE]

Fits a gradient-boosted tree ranker (the L2 stage, docs/ranking.md) that reorders the search pipeline's
candidate pool using the ranking features, from judgments:
  --beir DIR        a BEIR directory: DIR/queries.jsonl and DIR/qrels/SPLIT.tsv (documents ingested from its
                    corpus.jsonl keep their _id, so the judgments name them)
  --split S         qrels split (default test)
  --queries F --qrels F   the two files directly
  --feedback        relevance feedback stored from POST /v2/search/feedback (ratings 0-3 on searches of
                    this index alone; each search's query is signed in its feedback token)
  --since T         only feedback given at or after T (Unix seconds)
Training:
  --index NAME      ${INDEX_NAMES.join(' or ')} (default documents)
  --pool N          candidates per query, as ranking.candidateDepth (default 100, at most 500)
  --folds K         cross-validation folds by query (default 5; 1: none)
  --loss L          lambdamart (default: pairwise, nDCG-weighted) or rmse (pointwise to the grades)
  --trees N         most trees (default 300; cross-validation picks how many the model keeps)
  --depth N         splits per tree (default 6)
  --learning-rate X (default 0.1)
  --mode M          search mode whose pools are learned (default hybrid, the API's default); the model
                    records it and its channels and is served only for requests of that mode (docs/ranking.md)
  --name FILE       file name in {data_dir}/models/NAME/ (default l2-ranker.json)
  --formula         fit a linear L1 formula over the document features instead (coordinate ascent on
                    nDCG@10 from rrf, cross-validated the same way); prints it, writes nothing
Prints the cross-validation report (nDCG@10 of the organic order and of the model on held-out queries),
the model's SHA-256 and the setting that serves it: LECTERN_RANKING_L2_MODELS=NAME=PATH (restart).
Needs the search indexes: stop a running server first (it holds them).
Example: lectern ranking train --beir /data/scifact --split train`;

const LOSSES = { lambdamart: 'LambdaMart', rmse: 'RMSE' } as const;
const MODES: readonly SearchMode[] = ['hybrid', 'fulltext', 'sparse', 'short_document', 'binary'];

export class RankingUsageError extends Error {}

function num(v: string | undefined, name: string, integer: boolean): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || (integer && !Number.isSafeInteger(n))) throw new RankingUsageError(`--${name} must be ${integer ? 'an integer' : 'a number'}, got ${JSON.stringify(v)}`);
  return n;
}

export async function rankingCommand(ctx: CliContext, args: string[], withApp: <T>(ctx: CliContext, fn: (app: CliApp) => Promise<T>) => Promise<T>): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'train') throw new RankingUsageError('ranking train');
  const { values } = parseArgs({
    args: rest,
    options: {
      index: { type: 'string', default: 'documents' },
      beir: { type: 'string' },
      split: { type: 'string', default: 'test' },
      queries: { type: 'string' },
      qrels: { type: 'string' },
      feedback: { type: 'boolean', default: false },
      since: { type: 'string' },
      pool: { type: 'string' },
      folds: { type: 'string' },
      loss: { type: 'string', default: 'lambdamart' },
      trees: { type: 'string' },
      depth: { type: 'string' },
      'learning-rate': { type: 'string' },
      mode: { type: 'string', default: 'hybrid' },
      name: { type: 'string' },
      formula: { type: 'boolean', default: false },
    },
  });
  if (!(INDEX_NAMES as readonly string[]).includes(values.index)) throw new RankingUsageError(`--index must be one of ${INDEX_NAMES.join(', ')}`);
  const index = values.index as IndexName;
  if (values.beir !== undefined && (values.queries !== undefined || values.qrels !== undefined)) throw new RankingUsageError('give --beir DIR or --queries and --qrels, not both');
  if ((values.queries === undefined) !== (values.qrels === undefined)) throw new RankingUsageError('--queries and --qrels go together');
  if (!/^[A-Za-z0-9_-]+$/.test(values.split)) throw new RankingUsageError('--split must be a plain name such as train or test');
  const beir = values.beir !== undefined ? { queries: join(values.beir, 'queries.jsonl'), qrels: join(values.beir, 'qrels', `${values.split}.tsv`) } : values.qrels !== undefined ? { queries: values.queries!, qrels: values.qrels } : undefined;
  if (values.since !== undefined && !values.feedback) throw new RankingUsageError('--since needs --feedback');
  if (!beir && !values.feedback) throw new RankingUsageError('ranking train needs judgments: --beir DIR, --queries F --qrels F, or --feedback');
  const loss = LOSSES[values.loss as keyof typeof LOSSES];
  if (!loss) throw new RankingUsageError('--loss must be lambdamart or rmse');
  if (!MODES.includes(values.mode as SearchMode)) throw new RankingUsageError(`--mode must be one of ${MODES.join(', ')}`);
  const since = values.feedback ? (num(values.since, 'since', true) ?? 0) : null;
  const iterations = num(values.trees, 'trees', true);
  const options = {
    ...(num(values.pool, 'pool', true) !== undefined ? { poolDepth: num(values.pool, 'pool', true)! } : {}),
    ...(num(values.folds, 'folds', true) !== undefined ? { folds: num(values.folds, 'folds', true)! } : {}),
    ...(iterations !== undefined ? { iterations } : {}),
    ...(num(values.depth, 'depth', true) !== undefined ? { depth: num(values.depth, 'depth', true)! } : {}),
    ...(num(values['learning-rate'], 'learning-rate', false) !== undefined ? { learningRate: num(values['learning-rate'], 'learning-rate', false)! } : {}),
    loss,
  };

  return withApp(ctx, async (app) => {
    const indexes = await app.tryOpenIndexes();
    if (!indexes) {
      process.stderr.write('lectern: ranking train: a running Lectern server holds the search indexes; stop it, train, then start it with the new model\n');
      return 1;
    }
    const bar = progressBar(`ranking train ${index}`);
    const phase = (p: { phase: string; done: number; total: number }) =>
      bar.update(p.done, p.total, p.phase === 'pools' ? `candidate pools (query ${p.done}/${p.total})` : p.phase === 'cross-validation' ? `cross-validation (fold ${p.done + 1}/${p.total})` : 'final fit');
    try {
      const source = app.rankingSource(indexes, values.mode as SearchMode);
      if (values.formula) {
        // a linear L1 formula instead of a GBDT: printed, nothing written
        const f = await app.rankerTraining.trainFormula({ index, beir, feedbackSince: since, options }, source, phase);
        const cv = f.report.crossValidation;
        bar.finish(cv ? `nDCG@10 ${cv.ndcg10Organic.toFixed(4)} -> ${cv.ndcg10Formula.toFixed(4)} (held-out, ${f.report.queries.used} queries)` : `${f.report.queries.used} queries`);
        const lane = source.lane?.(index) ?? null;
        // a formula runs only in the modes it was fitted for (ranking.formulaModes, ADR 0230)
        process.stdout.write(`${JSON.stringify({ formula: f.report.formula, trained_for: lane, serve_with: `LECTERN_RANKING_FORMULA_DOCUMENTS=${JSON.stringify(f.report.formula)} LECTERN_RANKING_FORMULA_MODES=${values.mode}`, judgments: f.judgments, report: f.report }, null, 2)}\n`);
        return 0;
      }
      const r = await app.rankerTraining.train({ index, beir, feedbackSince: since, fileName: values.name, options }, source, (p) =>
        bar.update(p.done, p.total, p.phase === 'pools' ? `candidate pools (query ${p.done}/${p.total})` : p.phase === 'cross-validation' ? `cross-validation (fold ${p.done + 1}/${p.total})` : 'final model'),
      );
      const path = join(app.config.dataDir, 'models', index, r.file);
      const cv = r.report.crossValidation;
      bar.finish(cv ? `nDCG@10 ${cv.ndcg10Organic.toFixed(4)} -> ${cv.ndcg10Model.toFixed(4)} (held-out, ${r.report.queries.used} queries)` : `${r.report.queries.used} queries`);
      process.stdout.write(`${JSON.stringify({ model: { path, sha256: r.sha256, bytes: r.bytes, trees: r.report.finalTrees, trained_for: r.report.lane }, serve_with: `LECTERN_RANKING_L2_MODELS=${index}=${path}`, judgments: r.judgments, report: r.report }, null, 2)}\n`);
      return 0;
    } catch (e) {
      if (e instanceof RangeError) {
        bar.finish('failed');
        process.stderr.write(`lectern: ranking train: ${e.message}\n`);
        return 1;
      }
      throw e;
    }
  });
}
