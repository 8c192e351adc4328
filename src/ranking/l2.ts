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
  /** The features its trees split on (only these are computed for it). */
  used: string[];
  groups: Set<FeatureGroup>;
  model: TreeModel;
  /** Scoring (CorpusRankingInfo): what the prediction estimates and the correction weight (1: used as is). */
  target: 'teacher_score';
  correctionWeight: number;
  /** Where it was loaded from (status and errors). */
  source: string;
}

/**
 * Binds a loaded model to the v1 features; throws an Error naming the unknown ones. `usedFlat`: the flat
 * indexes its trees split on (default: every feature), so features no tree reads are never computed.
 */
export function bindL2Model(model: TreeModel, source: string, usedFlat: ReadonlySet<number> | null = null): L2Model {
  const names = model.featureNames;
  if (names === null || names.length < model.featureCount || names.some((n) => !n)) {
    throw new Error(`L2 model ${source} does not name its features (CatBoost feature_id): train it on columns named after the ranking features (docs/ranking.md), e.g. with lectern ranking train`);
  }
  const used = names.slice(0, model.featureCount);
  const unknown = used.filter((n) => featureSlot(n) < 0);
  if (unknown.length > 0) throw new Error(`L2 model ${source} uses features this server does not compute: ${unknown.join(', ')} (feature set lectern-features-v1: ${FEATURE_NAMES.join(', ')})`);
  const split = usedFlat === null ? used : used.filter((_, i) => usedFlat.has(i));
  const groups = new Set<FeatureGroup>(split.map((n) => featureSpec(n)!.group));
  return { sha256: model.sha256, features: used, slots: Int32Array.from(used.map(featureSlot)), used: split, groups, model, target: 'teacher_score', correctionWeight: 1, source };
}

/** The flat feature indexes the oblivious trees of a CatBoost JSON export split on (null when it cannot tell). */
export function splitFeatures(json: unknown): Set<number> | null {
  try {
    const root = json as { features_info?: { float_features?: { feature_index?: number; flat_feature_index?: number }[] }; oblivious_trees?: { splits?: { float_feature_index?: number }[] }[] };
    const flatOf = new Map<number, number>();
    for (const f of root.features_info?.float_features ?? []) if (typeof f.feature_index === 'number') flatOf.set(f.feature_index, f.flat_feature_index ?? f.feature_index);
    const out = new Set<number>();
    for (const t of root.oblivious_trees ?? []) for (const sp of t.splits ?? []) if (typeof sp.float_feature_index === 'number') out.add(flatOf.get(sp.float_feature_index) ?? sp.float_feature_index);
    return out;
  } catch {
    return null;
  }
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
