// The L2 stage (docs/ranking.md, ADR 0122): a gradient-boosted tree model per corpus (index), evaluated
// natively from its CatBoost JSON export (catboost.ts), over the candidates' v1 features. A model names
// its features (CatBoost's `feature_id`, set from the training data's column names); every name must be
// a v1 feature, checked when the model is loaded. The prediction target is `teacher_score`.
import { DOCUMENT_FEATURE_COUNT, FEATURE_NAMES, featureSlot, featureSpec, type Candidate, type FeatureGroup } from './features.js';

/** What the L2 stage needs of a loaded model (catboost.ts's GbdtModel has this shape). */
export interface TreeModel {
  readonly sha256: string;
  readonly featureNames: readonly string[] | null;
  readonly featureCount: number;
  predict(row: ArrayLike<number>): number;
}

/** A model bound to the feature set: which row slot feeds each of its features. */
export interface L2Model {
  sha256: string;
  /** The model's features, by its flat index. */
  features: string[];
  /** Row slot of each model feature. */
  slots: Int32Array;
  groups: Set<FeatureGroup>;
  model: TreeModel;
  /** Scoring (CorpusRankingInfo): what the prediction estimates and the correction weight (1: used as is). */
  target: 'teacher_score';
  correctionWeight: number;
  /** Where it was loaded from (status and errors). */
  source: string;
}

/** Binds a loaded model to the v1 features; throws an Error naming the unknown ones. */
export function bindL2Model(model: TreeModel, source: string): L2Model {
  const names = model.featureNames;
  if (names === null || names.length < model.featureCount || names.some((n) => !n)) {
    throw new Error(`L2 model ${source} does not name its features (CatBoost feature_id): train it on columns named after the ranking features (docs/ranking.md), e.g. with lectern ranking train`);
  }
  const used = names.slice(0, model.featureCount);
  const unknown = used.filter((n) => featureSlot(n) < 0);
  if (unknown.length > 0) throw new Error(`L2 model ${source} uses features this server does not compute: ${unknown.join(', ')} (feature set lectern-features-v1: ${FEATURE_NAMES.join(', ')})`);
  const groups = new Set<FeatureGroup>(used.map((n) => featureSpec(n)!.group));
  return { sha256: model.sha256, features: used, slots: Int32Array.from(used.map(featureSlot)), groups, model, target: 'teacher_score', correctionWeight: 1, source };
}

/**
 * The model's input row of a candidate: document features, and the best passage's features for
 * passage features (NaN where absent: the model's own missing-value treatment applies).
 */
export function l2Row(m: L2Model, c: Candidate, into?: Float64Array): Float64Array {
  const row = into ?? new Float64Array(m.slots.length);
  const best = c.passages[0]?.row;
  for (let i = 0; i < m.slots.length; i++) {
    const s = m.slots[i]!;
    row[i] = s < DOCUMENT_FEATURE_COUNT ? c.doc[s]! : best ? best[s - DOCUMENT_FEATURE_COUNT]! : NaN;
  }
  return row;
}
