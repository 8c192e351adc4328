// The ranking pipeline after retrieval (docs/ranking.md, ADRs 0120-0124):
//   candidate pool (the fused list's top `depth`)
//   -> features (v1, only the groups a stage needs)
//   -> L1 formula (candidate_ranking formula / auto with a formula)
//   -> L2 GBDT per corpus (l2_rerank auto with configured models / catboost)
//   -> cross-encoder over the top cross_rerank_candidates (cross_rerank with a configured model).
// `planRanking` checks everything a request asks of it before any work or charge (422 naming what to
// fix); `runRanking` orders the pool. The response score of a hit is the last stage's score.
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { IndexName } from '../domain/document.js';
import { AppError } from '../domain/errors.js';
import type { CrossEncoder } from '../ports/cross-encoder.js';
import type { SearchRequest } from '../search/search-types.js';
import { finite, BRANCHES, DOCUMENT_FEATURE_COUNT, DOCUMENT_FEATURES, FEATURE_NAMES, FEATURE_VERSION, PASSAGE_FEATURES, featureSlot, featureSpec, setFeature, typeFeatures, type Branch, type Candidate, type FeatureGroup } from './features.js';
import { formulaVariables, parseFormula, checkFormula, compileFormula, type CompiledFormula } from './formula.js';
import { l2Row, laneMismatch, type L2Model } from './l2.js';
import type { FeatureSources } from './sources.js';
import { hasFullText } from '../domain/display-document.js';
import type { DocumentScoreParts } from '../engine/index.js';

/** Most candidates any stage ranks (the engine's page limit). */
export const MAX_CANDIDATE_DEPTH = 500;

/** The operator's ranking configuration, resolved (models loaded) by the composition root. */
export interface RankingSettings {
  /** Candidates per branch per shard that L1/L2 rank (at least offset + limit). */
  candidateDepth: number;
  /** Default formula per ranking profile (the resolved ranking mode); null: none configured. */
  formulas: { documents: string | null; passages: string | null };
  /** The search modes the profile formulas run in (ranking.formulaModes; the modes they were fitted for). */
  formulaModes: ReadonlySet<string>;
  /** Whether `l2_rerank: auto` (the default) runs the configured models. */
  l2Auto: boolean;
  /** L2 models per corpus (index), at most one per search mode (each runs only in its lane, ADR 0230). */
  l2Models: ReadonlyMap<IndexName, readonly L2Model[]>;
  crossEncoder: CrossEncoder | null;
  /** Candidates the cross-encoder reranks when the request gives 0. */
  crossCandidates: number;
  /** Cap on cross_rerank_candidates. */
  crossMax: number;
}

export const NO_RANKING: RankingSettings = {
  candidateDepth: 100,
  formulas: { documents: null, passages: null },
  formulaModes: new Set(['hybrid']),
  l2Auto: true,
  l2Models: new Map(),
  crossEncoder: null,
  crossCandidates: 32,
  crossMax: 256,
};

export interface RankingPlan {
  method: 'rrf' | 'formula';
  formula: (CompiledFormula & { origin: 'request' | 'profile' }) | null;
  backfill: boolean;
  /** Default value of each row slot (missing_values; NaN: 0). */
  missing: Float64Array;
  /** Branch score features to backfill (backfill on: the formula's branches that ran). */
  backfillBranches: Branch[];
  l2: { models: Map<IndexName, L2Model>; requested: 'auto' | 'catboost' } | null;
  /** Configured models that did not run for this request, and why (their mode or channels differ). */
  l2Skipped: L2Skip[];
  /** Candidates the cross-encoder reranks (0: off). */
  cross: number;
  includeScores: boolean;
  /** Candidates taken from the fused list (and asked of each channel). */
  depth: number;
  /** Feature groups computed over the whole pool. */
  poolGroups: Set<FeatureGroup>;
  /** The lexical features the stages read (each costs a probe search); null: all. */
  poolLexical: Set<string> | null;
  notes: string[];
  /** Whether any stage (or candidate scores) runs. */
  active: boolean;
}

/** A configured L2 model left out of a request (trace: ranking.l2_skipped). */
export interface L2Skip {
  corpus: IndexName;
  modelSha256: string;
  trainedFor: L2Model['trainedFor'];
  reason: string;
}

export interface PlanContext {
  indexNames: IndexName[];
  /** The request's search mode (models and profile formulas run only in the modes they were trained for). */
  mode: string;
  /** Branches whose channels run on every searched index for this request. */
  branches: ReadonlySet<Branch>;
  /** The ranking profile: the resolved ranking mode. */
  profile: 'documents' | 'passages';
}

const invalid = (message: string, extra: Record<string, unknown> = {}) => new AppError('validation_failed', message, { extra });
const unavailable = (what: string) => new AppError('feature_unavailable', what, { extra: { missing: what.split(':')[0] } });

/** Checks and compiles a formula against the features and the branches that run (422 naming the problems). */
export function checkedFormula(src: string, branches: ReadonlySet<Branch>, field = 'l1.formula', supplied: ReadonlyMap<string, number> = new Map()): CompiledFormula {
  const tree = parseFormula(src);
  checkFormula(tree);
  const variables = formulaVariables(tree);
  // a variable missing_values supplies is never refused: absent (or not a feature at all), it takes that value
  const unknown = variables.filter((v) => featureSlot(v) < 0 && !supplied.has(v));
  if (unknown.length > 0) {
    throw invalid(`${field}: unknown feature${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; the features (${FEATURE_VERSION}) are ${FEATURE_NAMES.join(', ')} (docs/ranking.md).`, { field, unknown });
  }
  const absent = variables.filter((v) => {
    const b = featureSpec(v)?.branch;
    return b !== undefined && !branches.has(b) && !supplied.has(v);
  });
  if (absent.length > 0) {
    throw invalid(
      `${field}: ${absent.join(', ')} refer${absent.length > 1 ? '' : 's'} to absent branch${absent.length > 1 ? 'es' : ''} (${[...new Set(absent.map((v) => featureSpec(v)!.branch))].join(', ')}): the channel does not run for this request (its mode, fulltext_weight or a missing corpus model); the branches that run are ${[...branches].join(', ') || 'none'}. Give the variable a value in l1.missing_values to keep it.`,
      { field, absent_branches: absent },
    );
  }
  return { source: src, variables, fn: compileFormula(tree, (n) => featureSlot(n), (n) => (featureSlot(n) < 0 ? supplied.get(n) : undefined)) };
}

/** Plans the stages of a request, refusing what cannot take effect. No work, no charge. */
export function planRanking(r: SearchRequest, ctx: PlanContext, s: RankingSettings): RankingPlan {
  const notes: string[] = [];
  if (r.l1Formula !== null && r.candidateRanking === 'rrf') {
    throw invalid('l1 is the formula of candidate_ranking "formula"; with candidate_ranking "rrf" it would have no effect. Send candidate_ranking "formula" or "auto", or omit l1.', { field: 'l1' });
  }
  // missing_values first: the formula check accepts the variables it supplies
  const supplied = new Map<string, number>();
  const formulaVars = new Set(r.l1Formula !== null ? formulaVariables(parseFormula(r.l1Formula)) : []);
  const usesVariable = (name: string) => formulaVars.has(name);
  for (const [name, v] of Object.entries(r.l1MissingValues ?? {})) {
    if (featureSlot(name) < 0 && !usesVariable(name)) throw invalid(`l1.missing_values: unknown feature ${name} (neither a feature nor a variable of l1.formula); the features are ${FEATURE_NAMES.join(', ')}.`, { field: 'l1.missing_values', unknown: [name] });
    if (!Number.isFinite(v)) throw invalid(`l1.missing_values.${name} must be a finite number.`, { field: 'l1.missing_values' });
    supplied.set(name, v);
  }
  let formula: RankingPlan['formula'] = null;
  if (r.l1Formula !== null) {
    formula = { ...checkedFormula(r.l1Formula, ctx.branches, 'l1.formula', supplied), origin: 'request' };
  } else if (r.candidateRanking !== 'rrf') {
    const configured = s.formulas[ctx.profile];
    const setting = `ranking.formula${ctx.profile === 'documents' ? 'Documents' : 'Passages'}`;
    if (configured && !s.formulaModes.has(ctx.mode)) {
      // a profile formula runs only in the modes it was fitted for (ranking.formulaModes, ADR 0230)
      const why = `the ${ctx.profile} profile formula runs in mode${s.formulaModes.size > 1 ? 's' : ''} ${[...s.formulaModes].join(', ') || 'none'} (ranking.formulaModes: the modes it was fitted for); this request's mode is ${ctx.mode}`;
      if (r.candidateRanking === 'formula') throw unavailable(`formula: candidate_ranking "formula" needs a formula for mode ${ctx.mode}: ${why}. Send one in l1, or use "auto" or "rrf".`);
      notes.push(`candidate_ranking auto: ${why}: skipped, rrf used`);
    } else if (configured) {
      try {
        formula = { ...checkedFormula(configured, ctx.branches, `ranking profile ${ctx.profile} formula`), origin: 'profile' };
      } catch (e) {
        if (r.candidateRanking === 'formula') throw e;
        notes.push(`candidate_ranking auto: the ${ctx.profile} profile formula cannot run for this request (${(e as Error).message}); rrf used`);
      }
    } else if (r.candidateRanking === 'formula') {
      throw unavailable(`formula: candidate_ranking "formula" needs a formula: send one in l1, or configure ${setting} for the ${ctx.profile} profile (docs/ranking.md). Use "auto" or "rrf".`);
    }
  }
  const missing = new Float64Array(FEATURE_NAMES.length).fill(NaN);
  for (const [name, v] of supplied) {
    const slot = featureSlot(name);
    if (slot >= 0) missing[slot] = v;
  }
  const backfill = r.l1Backfill && formula !== null;
  const backfillBranches = backfill ? BRANCHES.filter((b) => formula!.variables.includes(b) && ctx.branches.has(b)) : [];

  // L2: per corpus, the model trained for this request's mode and channels (ADR 0230); the others are skipped
  let l2: RankingPlan['l2'] = null;
  const l2Skipped: L2Skip[] = [];
  const chosen = new Map<IndexName, L2Model>();
  const lacking: string[] = [];
  for (const n of ctx.indexNames) {
    const list = s.l2Models.get(n) ?? [];
    if (list.length === 0) {
      lacking.push(`${n} (no model configured)`);
      continue;
    }
    const reasons = list.map((m) => ({ m, reason: laneMismatch(m.trainedFor, ctx.mode, ctx.branches) }));
    const fit = reasons.find((x) => x.reason === null);
    if (fit) chosen.set(n, fit.m);
    else {
      for (const x of reasons) l2Skipped.push({ corpus: n, modelSha256: x.m.sha256, trainedFor: x.m.trainedFor, reason: x.reason! });
      lacking.push(`${n} (${reasons.map((x) => `${x.m.source}: ${x.reason}`).join('; ')})`);
    }
  }
  if (r.l2Rerank === 'catboost') {
    if (lacking.length > 0) throw unavailable(`catboost: l2_rerank "catboost" needs a CatBoost model trained for this request's mode (${ctx.mode}) and channels for every corpus searched; none for ${lacking.join(', ')} (ranking.l2Models, docs/ranking.md). Use "auto" or "off", or the mode the model was trained for.`);
    l2 = { models: chosen, requested: 'catboost' };
  } else if (r.l2Rerank !== 'off') {
    if (!s.l2Auto) notes.push('l2_rerank auto: automatic L2 is switched off (ranking.l2Auto): no effect');
    else if (lacking.length > 0) {
      const none = ctx.indexNames.filter((n) => (s.l2Models.get(n) ?? []).length === 0);
      if (none.length === ctx.indexNames.length) notes.push(`l2_rerank auto: no L2 model configured for ${none.join(', ')}: no effect`);
      else notes.push(`l2_rerank auto: skipped, no model for this request's mode and channels: ${lacking.join(', ')}`);
    } else l2 = { models: chosen, requested: 'auto' };
  }

  let cross = 0;
  if (r.crossRerank) {
    if (s.crossEncoder === null) {
      if (r.crossRerankCandidates > 0) throw unavailable('reranker: cross_rerank_candidates asks for cross-encoder reranking, and no cross-encoder is configured (ranking.crossEncoderDir, docs/ranking.md). Send 0 or cross_rerank false.');
      notes.push('cross_rerank: no cross-encoder configured: no effect');
    } else {
      cross = Math.min(s.crossMax, r.crossRerankCandidates > 0 ? r.crossRerankCandidates : s.crossCandidates);
    }
  }
  const page = r.offset + r.limit;
  const ranks = formula !== null || l2 !== null;
  const depth = Math.min(MAX_CANDIDATE_DEPTH, Math.max(page, ranks ? s.candidateDepth : 0, cross));
  const poolGroups = new Set<FeatureGroup>();
  if (formula) for (const v of formula.variables) if (featureSpec(v)) poolGroups.add(featureSpec(v)!.group);
  if (l2) for (const m of l2.models.values()) for (const g of m.groups) poolGroups.add(g);
  if (cross > 0) poolGroups.add('document');
  const includeScores = r.includeCandidateScores;
  const lexical = (names: readonly string[]) => names.filter((n) => featureSpec(n)?.group === 'lexical');
  const poolLexical = new Set([...(formula ? lexical(formula.variables) : []), ...(l2 ? [...l2.models.values()].flatMap((m) => lexical(m.used)) : [])]);
  return { method: formula ? 'formula' : 'rrf', formula, backfill, missing, backfillBranches, l2, l2Skipped, cross, includeScores, depth, poolGroups, poolLexical, notes, active: ranks || cross > 0 || includeScores };
}

/** Trace entry of one stage. */
export interface StageTrace {
  stage: string;
  us: number;
  [k: string]: unknown;
}

export interface EngagementInfo {
  enabled: boolean;
  asOfAt: number;
  computedAt: number;
  observedDocuments: number;
  requestedDocuments: number;
  elapsedUs: number;
}

export interface RankingOutcome {
  /** The pool in its final order. */
  order: Candidate[];
  /** Final score of each candidate (the last stage's). */
  score: (c: Candidate) => number;
  stages: StageTrace[];
  engagement: EngagementInfo;
  l2: null | { elapsedUs: number; inputDocuments: number; outputDocuments: number; corpora: { corpus: IndexName; model: L2Model; inputDocuments: number }[] };
  cross: null | { encoder: CrossEncoder; reranked: Set<Candidate>; elapsedUs: number };
}

const now = () => performance.now();
const us = (t: number) => Math.round((performance.now() - t) * 1000);

/** Code-point slice (engine offsets are Unicode scalar values). */
export function cpSlice(text: string, start: number, end: number): string {
  return Array.from(text).slice(start, end).join('');
}

/** The lexical (probe) features. */
const LEXICAL = DOCUMENT_FEATURES.filter((f) => f.group === 'lexical').map((f) => f.name);

/** Computes the feature groups `groups` for the candidates that lack them (of the lexical group, only `lexicalNames` when given). */
export async function computeFeatures(cands: readonly Candidate[], groups: ReadonlySet<FeatureGroup>, src: FeatureSources, engagement: EngagementInfo, backfillBranches: readonly Branch[] = [], lexicalNames: ReadonlySet<string> | null = null, groupUs: Record<string, number> = {}): Promise<void> {
  let tg = now();
  const lap = (g: string) => {
    const t = now();
    groupUs[g] = (groupUs[g] ?? 0) + Math.round((t - tg) * 1000);
    tg = t;
  };
  const want = new Set(groups);
  if (want.has('lexical') || want.has('citations')) want.add('document');
  const lacking = (g: FeatureGroup) => cands.filter((c) => !c.computed.has(g));
  if (want.has('document')) {
    const todo = lacking('document');
    const docs = todo.length > 0 ? await src.documents(todo.map((c) => c.id)) : new Map();
    for (const c of todo) {
      c.computed.add('document');
      const d = docs.get(c.id);
      if (!d) continue;
      c.stored = d;
      if (d.issuedAt !== null) setFeature(c, 'age_days', (src.now - d.issuedAt) / 86_400);
      setFeature(c, 'has_abstract', d.abstract ? 1 : 0);
      setFeature(c, 'has_full_text', hasFullText(d) ? 1 : 0);
      for (const [name, v] of typeFeatures(d.type)) setFeature(c, name, v);
    }
    lap('document');
  }
  const byIndex = (list: Candidate[]) => {
    const m = new Map<IndexName, Candidate[]>();
    for (const c of list) m.set(c.index, [...(m.get(c.index) ?? []), c]);
    return m;
  };
  if (want.has('lexical')) {
    // one pass of the engine over each index's candidates gives every lexical part (ADR 0139)
    const names = LEXICAL.filter((n) => lexicalNames === null || lexicalNames.has(n));
    const key = (n: string) => `lexical:${n}`;
    for (const [index, list] of byIndex(cands.filter((c) => names.some((n) => !c.computed.has(key(n)))))) {
      const shape = src.queryShape(index);
      const need = names.filter((n) => list.some((c) => !c.computed.has(key(n))));
      const wants = (n: string) => need.includes(n);
      const parts = shape.empty ? new Map<string, DocumentScoreParts>() : await src.lexicalParts(index, list.map((c) => c.id));
      const phrases = shape.phrases;
      const proximity = !shape.phrases && shape.words >= 2;
      for (const c of list) {
        for (const n of need) c.computed.add(key(n));
        const d = c.stored;
        const p = parts.get(c.id);
        if (wants('bm25_title') && (!d || d.title)) setFeature(c, 'bm25_title', p?.fields[0] ?? 0);
        if (wants('bm25_abstract') && d?.abstract) setFeature(c, 'bm25_abstract', p?.fields[1] ?? 0);
        if (wants('bm25_body') && d && hasFullText(d)) setFeature(c, 'bm25_body', p?.fields[2] ?? 0);
        if (wants('phrase_bonus')) setFeature(c, 'phrase_bonus', phrases ? Math.max(0, p?.phrase ?? 0) : 0);
        if (wants('proximity')) setFeature(c, 'proximity', proximity ? Math.max(0, p?.proximity ?? 0) : 0);
      }
    }
    lap('lexical');
  }
  if (want.has('citations')) {
    const todo = lacking('citations');
    for (const c of todo) c.computed.add('citations');
    // one call per index for every candidate lacking the count (on a cluster: one scatter, ADR 0265)
    for (const [index, list] of byIndex(todo.filter((c) => c.stored))) {
      const counts = await src.citedBy(index, list.map((c) => c.stored!));
      list.forEach((c, i) => setFeature(c, 'cited_by', counts[i]!));
    }
    lap('citations');
  }
  if (want.has('engagement')) {
    const todo = lacking('engagement');
    for (const c of todo) c.computed.add('engagement');
    if (src.engagement && todo.length > 0) {
      const t = now();
      const counts = await src.engagement(todo.map((c) => c.id));
      engagement.enabled = true;
      engagement.requestedDocuments += todo.length;
      for (const c of todo) {
        const k = counts.get(c.id);
        if (!k || k.asOfAt === null) continue;
        engagement.observedDocuments++;
        engagement.asOfAt = Math.max(engagement.asOfAt, k.asOfAt);
        setFeature(c, 'views_30d', k.views30d);
        setFeature(c, 'agent_reads_30d', k.agentReads30d);
        setFeature(c, 'ai_citations_30d', k.aiCitations30d);
        setFeature(c, 'positive_ratings_30d', k.positiveRatings30d);
      }
      engagement.elapsedUs += us(t);
    }
  }
  for (const b of backfillBranches) {
    const slot = featureSlot(b);
    for (const [index, list] of byIndex(cands.filter((c) => Number.isNaN(c.doc[slot]!)))) {
      const got = await src.branch(index, b, list.map((c) => c.id));
      for (const c of list) {
        const v = got.get(c.id);
        if (v !== undefined) c.doc[slot] = v;
      }
    }
  }
}

/** Evaluates the formula on every candidate and passage (absent cells take missing_values, else 0; an observed value wins). */
export function evaluateFormula(plan: RankingPlan, cands: readonly Candidate[]): void {
  const f = plan.formula!;
  const row = new Float64Array(FEATURE_NAMES.length);
  const fill = (slot: number, v: number) => (row[slot] = Number.isNaN(v) ? (Number.isNaN(plan.missing[slot]!) ? 0 : plan.missing[slot]!) : v);
  for (const c of cands) {
    for (let i = 0; i < DOCUMENT_FEATURE_COUNT; i++) fill(i, c.doc[i]!);
    if (c.passages.length === 0) {
      for (let j = 0; j < PASSAGE_FEATURES.length; j++) fill(DOCUMENT_FEATURE_COUNT + j, NaN);
      c.l1 = f.fn(row);
      continue;
    }
    let best = -Infinity;
    for (const p of c.passages) {
      for (let j = 0; j < PASSAGE_FEATURES.length; j++) fill(DOCUMENT_FEATURE_COUNT + j, p.row[j]!);
      p.l1 = f.fn(row);
      if (p.l1 > best || Number.isNaN(best)) best = p.l1;
    }
    // the document's score is its best passage's (document_reduction: max)
    c.l1 = best;
  }
}

/** Sorts by a stage score, highest first; NaN last; ties keep the previous order. */
function sortBy(list: Candidate[], key: (c: Candidate) => number): Candidate[] {
  const k = (c: Candidate) => {
    const v = key(c);
    return Number.isNaN(v) ? -Infinity : v;
  };
  return list.map((c, i) => ({ c, i, v: k(c) })).sort((a, b) => (b.v === a.v ? a.i - b.i : b.v > a.v ? 1 : -1)).map((x) => x.c);
}

/** The text a cross-encoder reads of a candidate: its title and best passage (or the start of its abstract). */
export function crossText(c: Candidate, maxChars = 2000): string {
  const d = c.stored;
  if (!d) return '';
  const p = c.hit.passages[0];
  const field = p ? (p.field === 'title' ? d.title : p.field === 'abstract' ? (d.abstract ?? '') : (d.fullText ?? '')) : (d.abstract ?? '');
  const body = p && p.field !== 'title' ? cpSlice(field, p.startChar, p.endChar) : cpSlice(d.abstract ?? '', 0, maxChars);
  return cpSlice(`${d.title}\n${body}`.trim(), 0, maxChars);
}

/** Runs the planned stages over the pool (the fused list's top `plan.depth`, organic order). */
export async function runRanking(plan: RankingPlan, pool: Candidate[], query: string, src: FeatureSources, encoder: CrossEncoder | null): Promise<RankingOutcome> {
  const stages: StageTrace[] = [];
  const engagement: EngagementInfo = { enabled: false, asOfAt: 0, computedAt: src.now, observedDocuments: 0, requestedDocuments: 0, elapsedUs: 0 };
  let order = pool;
  if (plan.poolGroups.size > 0 || plan.backfillBranches.length > 0) {
    const t = now();
    const groupUs: Record<string, number> = {};
    await computeFeatures(pool, plan.poolGroups, src, engagement, plan.backfillBranches, plan.poolLexical, groupUs);
    stages.push({ stage: 'features', us: us(t), version: FEATURE_VERSION, groups: [...plan.poolGroups], groups_us: groupUs, ...(plan.poolGroups.has('lexical') ? { probes: [...(plan.poolLexical ?? [])] } : {}), candidates: pool.length, ...(plan.backfillBranches.length ? { backfilled: plan.backfillBranches } : {}) });
  }
  if (plan.formula) {
    const t = now();
    evaluateFormula(plan, pool);
    order = sortBy(order, (c) => c.l1!);
    stages.push({ stage: 'l1', us: us(t), formula: plan.formula.source, origin: plan.formula.origin, candidates: pool.length });
  }
  let l2: RankingOutcome['l2'] = null;
  if (plan.l2) {
    const t = now();
    const corpora: NonNullable<RankingOutcome['l2']>['corpora'] = [];
    for (const [corpus, model] of plan.l2.models) {
      const list = order.filter((c) => c.index === corpus);
      const row = new Float64Array(model.slots.length);
      for (const c of list) c.l2 = model.model.predict(l2Row(model, c, row)) * model.correctionWeight;
      corpora.push({ corpus, model, inputDocuments: list.length });
    }
    order = sortBy(order, (c) => c.l2 ?? NaN);
    const elapsedUs = us(t);
    l2 = { elapsedUs, inputDocuments: order.length, outputDocuments: order.length, corpora };
    stages.push({ stage: 'l2', us: elapsedUs, method: 'catboost', requested: plan.l2.requested, models: corpora.map((x) => ({ corpus: x.corpus, model_sha256: x.model.sha256, input_documents: x.inputDocuments })) });
  }
  let cross: RankingOutcome['cross'] = null;
  if (plan.cross > 0 && order.length > 0) {
    const t = now();
    if (encoder) {
      const top = order.slice(0, plan.cross);
      // feature reads are display records (no full text): the body text only where the pair quotes it
      const bodies = top.filter((c) => c.stored && c.hit.passages[0]?.field === 'body' && hasFullText(c.stored) && c.stored.fullText == null);
      if (bodies.length > 0) {
        const withText = await src.documents(bodies.map((c) => c.id), bodies.map((c) => c.id));
        for (const c of bodies) c.stored = withText.get(c.id) ?? c.stored;
      }
      const scores = await encoder.score(query, top.map((c) => crossText(c)));
      top.forEach((c, i) => (c.cross = scores[i]!));
      order = [...sortBy(top, (c) => c.cross!), ...order.slice(plan.cross)];
      const elapsedUs = us(t);
      cross = { encoder, reranked: new Set(top), elapsedUs };
      stages.push({ stage: 'cross_encoder', us: elapsedUs, model_id: encoder.info.id, candidates: top.length });
    }
  }
  // the wire carries finite numbers: a NaN score (ranked last) is the lowest double, infinities the extremes
  const score = (c: Candidate) => {
    const v = c.cross ?? c.l2 ?? c.l1 ?? c.organicScore;
    return Number.isNaN(v) ? -Number.MAX_VALUE : finite(v);
  };
  return { order, score, stages, engagement, l2, cross };
}

/** Combined hash of several model hashes (sorted), or the one hash. */
export function combinedSha(shas: readonly string[]): string {
  if (shas.length === 1) return shas[0]!;
  return createHash('sha256').update([...shas].sort().join('\n')).digest('hex');
}

/** The names of every v1 feature (document then passage), for the contract. */
export const CONTRACT_FEATURES: readonly string[] = [...DOCUMENT_FEATURES.map((f) => f.name), ...PASSAGE_FEATURES.map((f) => f.name)];
