// `lectern ranking train` (docs/ranking.md, ADR 0127): judgments (stored relevance feedback and/or a BEIR
// qrels file) -> the pipeline's candidate pools with their v1 feature rows -> cross-validated GBDT ->
// a CatBoost JSON model written to {data_dir}/models/<index>/, which `ranking.l2Models` points at.
import type { IndexName } from '../domain/document.js';
import type { Clock } from '../ports/clock.js';
import type { CommunityStore } from '../ports/community-store.js';
import type { ModelDirectories } from '../ports/index-directories.js';
import type { SourceFiles } from '../ports/source-files.js';
import { loadCatBoostJson } from './catboost.js';
import { trainFormula, type FormulaTrainReport } from './formula-fit.js';
import { judgmentsFromBeir, judgmentsFromFeedback, readFeedback, type FeedbackJudgments } from './judgments.js';
import { trainRanker, type CandidateSource, type JudgedQuery, type RankerTrainOptions, type RankerTrainReport, type TrainProgress } from './train-ranker.js';

/** Default file name of a trained model in the index's models directory. */
export const DEFAULT_L2_FILE = 'l2-ranker.json';

export interface RankerTrainingDeps {
  files: SourceFiles;
  feedback: Pick<CommunityStore, 'feedbackSince'>;
  models: ModelDirectories;
  clock: Clock;
}

export interface RankerTrainingRequest {
  index: IndexName;
  /** BEIR judgments: queries.jsonl and a qrels TSV. */
  beir?: { queries: string; qrels: string } | undefined;
  /** Use stored relevance feedback given at or after this time (Unix s); null: no feedback. */
  feedbackSince: number | null;
  /** File name in {data_dir}/models/<index>/ (default l2-ranker.json). */
  fileName?: string | undefined;
  options: RankerTrainOptions;
}

export interface RankerTrainingResult {
  report: RankerTrainReport;
  judgments: { beir: { queries: number; unknownQueries: number } | null; feedback: Omit<FeedbackJudgments, 'queries'> & { queries: number } | null };
  file: string;
  sha256: string;
  bytes: number;
}

export class RankerTraining {
  constructor(private readonly d: RankerTrainingDeps) {}

  /** Gathers the judgments, trains, checks the export loads, writes it. Throws RangeError for unusable input. */
  async train(req: RankerTrainingRequest, source: CandidateSource, progress?: TrainProgress): Promise<RankerTrainingResult> {
    const fileName = req.fileName ?? DEFAULT_L2_FILE;
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.json$/.test(fileName)) throw new RangeError(`--name must be a plain file name ending in .json (got ${JSON.stringify(fileName)})`);
    const { judged, labels, beir, feedback } = await this.#judgments(req);
    const now = () => this.d.clock.nowMs();
    const result = await trainRanker(source, judged, { ...req.options, judgmentsLabel: labels.join(' + ') }, progress, now);
    const text = `${JSON.stringify(result.modelJson)}\n`;
    const bytes = new TextEncoder().encode(text);
    // what the server will load: the same loader, so a bad export fails here, not at start
    const sha256 = loadCatBoostJson(bytes).sha256;
    this.d.models.open(req.index).write(fileName, bytes);
    result.report.model = { sha256, bytes: bytes.length, trees: result.model.trees.length };
    return { report: result.report, judgments: { beir, feedback }, file: fileName, sha256, bytes: bytes.length };
  }

  /** Gathers the judgments, fits a linear L1 formula with cross-validation (nothing is written). */
  async trainFormula(req: Omit<RankerTrainingRequest, 'fileName'>, source: CandidateSource, progress?: TrainProgress): Promise<{ report: FormulaTrainReport; judgments: RankerTrainingResult['judgments'] }> {
    const { judged, beir, feedback } = await this.#judgments(req);
    const report = await trainFormula(source, judged, { ...(req.options.poolDepth !== undefined ? { poolDepth: req.options.poolDepth } : {}), ...(req.options.folds !== undefined ? { folds: req.options.folds } : {}) }, progress);
    return { report, judgments: { beir, feedback } };
  }

  async #judgments(req: Omit<RankerTrainingRequest, 'fileName'>) {
    if (!req.beir && req.feedbackSince === null) throw new RangeError('no judgments: give a BEIR qrels file, or use stored feedback');
    const judged: JudgedQuery[] = [];
    const labels: string[] = [];
    let beir: RankerTrainingResult['judgments']['beir'] = null;
    if (req.beir) {
      const b = await judgmentsFromBeir(this.d.files, req.beir.queries, req.beir.qrels, req.index);
      beir = { queries: b.queries.length, unknownQueries: b.unknownQueries };
      judged.push(...b.queries.map((q) => ({ ...q, id: `qrels:${q.id}` })));
      labels.push(`qrels ${req.beir.qrels}`);
    }
    let feedback: RankerTrainingResult['judgments']['feedback'] = null;
    if (req.feedbackSince !== null) {
      const f = judgmentsFromFeedback(await readFeedback(this.d.feedback, req.feedbackSince), req.index);
      const { queries, ...counts } = f;
      feedback = { ...counts, queries: queries.length };
      judged.push(...queries);
      labels.push(`feedback since ${req.feedbackSince}`);
    }
    return { judged, labels, beir, feedback };
  }
}
