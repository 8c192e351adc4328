// The L2 stage (docs/ranking.md, ADR 0122): a gradient-boosted tree model per corpus (index), evaluated
// natively from its CatBoost JSON export (catboost.ts), over the candidates' v1 features. A model names
// its features (CatBoost's `feature_id`, set from the training data's column names); every name must be
// a v1 feature, checked when the model is loaded. The prediction target is `teacher_score`.
import { BRANCHES, DOCUMENT_FEATURE_COUNT, FEATURE_NAMES, FEATURE_VERSION, featureSlot, featureSpec, type Branch, type Candidate, type FeatureGroup } from './features.js';

/** The search modes a model can be trained for (search-types.ts SearchMode; repeated here: ranking/ does not import search/ values). */
export const SEARCH_MODES = ['hybrid', 'fulltext', 'sparse', 'short_document', 'binary'] as const;
export type TrainedMode = (typeof SEARCH_MODES)[number];

/**
 * What a model was trained for (ADR 0230): the search mode whose candidate pools it learned, the channels
 * that ran for them and the feature set. A model runs only on requests of that mode whose channels are the
 * same; otherwise the L2 stage skips it and the trace says why. `lectern ranking train` records these in
 * the model's `model_info` (lectern_mode, lectern_channels, lectern_feature_version); a file without
 * them (older, or trained elsewhere) is taken as trained for `hybrid` with its channels unchecked
 * (`recorded: false`), unless the configuration entry names its mode (INDEX:MODE=PATH).
 */
export interface TrainedFor {
  mode: TrainedMode;
  /** The channels (branches) whose results formed the training pools; null: not recorded (not checked). */
  channels: Branch[] | null;
  featureVersion: string;
  /** Candidates per query in training (informational). */
  poolDepth: number | null;
  /** Whether the file recorded its mode (false: assumed or named by the configuration). */
  recorded: boolean;
}

/** Reads what a model's info map says it was trained for; `configuredMode`: the mode its configuration entry names. Throws naming a contradiction. */
export function trainedFor(info: Readonly<Record<string, string>> | undefined, source: string, configuredMode: TrainedMode | null = null): TrainedFor {
  const recordedMode = info?.lectern_mode;
  if (recordedMode !== undefined && !(SEARCH_MODES as readonly string[]).includes(recordedMode)) throw new Error(`L2 model ${source} records mode "${recordedMode}", which is not a search mode (${SEARCH_MODES.join(', ')})`);
  if (recordedMode !== undefined && configuredMode !== null && recordedMode !== configuredMode) {
    throw new Error(`L2 model ${source} was trained for mode ${recordedMode} (its lectern_mode), and the configuration serves it for mode ${configuredMode}: retrain it with lectern ranking train --mode ${configuredMode}, or configure it as ${'INDEX'}:${recordedMode}=PATH`);
  }
  const channelsText = info?.lectern_channels;
  let channels: Branch[] | null = null;
  if (channelsText !== undefined) {
    const list = channelsText.split(',').map((c) => c.trim()).filter(Boolean);
    const bad = list.filter((c) => !(BRANCHES as readonly string[]).includes(c));
    if (bad.length > 0) throw new Error(`L2 model ${source} records channels this server does not have: ${bad.join(', ')} (channels: ${BRANCHES.join(', ')})`);
    channels = [...new Set(list as Branch[])].sort();
  }
  const featureVersion = info?.lectern_feature_version ?? FEATURE_VERSION;
  if (featureVersion !== FEATURE_VERSION) throw new Error(`L2 model ${source} was trained on feature set ${featureVersion}; this server computes ${FEATURE_VERSION}: retrain it with lectern ranking train`);
  const depth = Number(info?.lectern_pool_depth);
  return {
    mode: (recordedMode ?? configuredMode ?? 'hybrid') as TrainedMode,
    channels,
    featureVersion,
    poolDepth: Number.isInteger(depth) && depth > 0 ? depth : null,
    recorded: recordedMode !== undefined,
  };
}

/** Why a model does not run for a request of `mode` with channels `branches` (null: it runs). */
export function laneMismatch(t: TrainedFor, mode: string, branches: ReadonlySet<Branch>): string | null {
  if (t.mode !== mode) return `trained for mode ${t.mode}${t.recorded ? '' : ' (assumed: the file records no mode)'}; this request's mode is ${mode}`;
  if (t.channels !== null) {
    const now = [...branches].sort();
    if (now.join(',') !== t.channels.join(',')) return `trained on the channels ${t.channels.join(', ') || 'none'}; this request runs ${now.join(', ') || 'none'} (fulltext_weight 0, or a corpus model that is missing or was added since)`;
  }
  return null;
}

/** What the L2 stage needs of a loaded model (catboost.ts's GbdtModel has this shape). */
export interface TreeModel {
  readonly sha256: string;
  readonly featureNames: readonly string[] | null;
  readonly featureCount: number;
  /** String entries of the export's model_info (what it was trained for). */
  readonly info?: Readonly<Record<string, string>>;
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
  /** The mode, channels and feature set it was trained for: it runs only where they match. */
  trainedFor: TrainedFor;
}

/**
 * Binds a loaded model to the v1 features; throws an Error naming the unknown ones. `usedFlat`: the flat
 * indexes its trees split on (default: every feature), so features no tree reads are never computed.
 */
export function bindL2Model(model: TreeModel, source: string, usedFlat: ReadonlySet<number> | null = null, configuredMode: TrainedMode | null = null): L2Model {
  const names = model.featureNames;
  if (names === null || names.length < model.featureCount || names.some((n) => !n)) {
    throw new Error(`L2 model ${source} does not name its features (CatBoost feature_id): train it on columns named after the ranking features (docs/ranking.md), e.g. with lectern ranking train`);
  }
  const used = names.slice(0, model.featureCount);
  const unknown = used.filter((n) => featureSlot(n) < 0);
  if (unknown.length > 0) throw new Error(`L2 model ${source} uses features this server does not compute: ${unknown.join(', ')} (feature set lectern-features-v1: ${FEATURE_NAMES.join(', ')})`);
  const split = usedFlat === null ? used : used.filter((_, i) => usedFlat.has(i));
  const groups = new Set<FeatureGroup>(split.map((n) => featureSpec(n)!.group));
  const lane = trainedFor(model.info, source, configuredMode);
  return { sha256: model.sha256, features: used, slots: Int32Array.from(used.map(featureSlot)), used: split, groups, model, target: 'teacher_score', correctionWeight: 1, source, trainedFor: lane };
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
