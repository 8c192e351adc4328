// Feature set v1 of the ranking pipeline (docs/ranking.md, ADR 0120): what a formula (L1), a GBDT
// model (L2) and `include_candidate_scores` see of a candidate. Every feature has a name, a group (what
// it costs to compute) and a meaning; a value is raw (never normalized) and absent when the candidate
// has no data for it (a channel that did not return it, a document without an issue date), which is
// different from an observed zero. Pure: values come in from the sources the caller gives.
import type { IndexName, StoredDocument } from '../domain/document.js';
import type { EngineHit } from '../engine/index.js';
import type { FeatureDocument } from './sources.js';

/** Version of the feature set: changes whenever a feature is added, removed or changes meaning. */
export const FEATURE_VERSION = 'lectern-features-v1';

/** Retrieval channels whose scores and ranks are features (branches). */
export const BRANCHES = ['fulltext', 'sparse', 'short_document', 'binary'] as const;
export type Branch = (typeof BRANCHES)[number];

/**
 * What a feature costs: `retrieval` comes with the channels' results (free); `lexical` needs probe
 * searches over the candidates (one per feature); `document` needs the stored records; `citations`
 * one filter count per candidate; `engagement` the activity counters.
 */
export type FeatureGroup = 'retrieval' | 'lexical' | 'document' | 'citations' | 'engagement' | 'passage';

export interface FeatureSpec {
  name: string;
  group: FeatureGroup;
  /** The branch whose channel must run for the feature to exist (formula references to absent branches are refused). */
  branch?: Branch;
  description: string;
}

const branchFeatures = (b: Branch, what: string): FeatureSpec[] => [
  { name: b, group: 'retrieval', branch: b, description: `${what} score of the document (raw; absent when the channel did not return it, unless backfilled)` },
  { name: `${b}_rank`, group: 'retrieval', branch: b, description: `1-based rank of the document in the ${b} channel's list (absent when not returned; never backfilled)` },
];

const TYPE_FEATURES: [string, string[]][] = [
  ['is_journal_article', ['journal-article']],
  ['is_proceedings', ['proceedings-article']],
  ['is_preprint', ['preprint', 'posted-content']],
  ['is_book', ['book', 'book-chapter', 'monograph']],
  ['is_review', ['review']],
  ['is_dataset', ['dataset']],
  ['is_notice', ['erratum', 'retraction']],
  ['is_question', ['question']],
  ['is_answer', ['answer']],
];

/** Document features, in row order. */
export const DOCUMENT_FEATURES: readonly FeatureSpec[] = [
  { name: 'rrf', group: 'retrieval', description: 'organic fused score: the sum of weighted RRF votes weight / (rrf_k + rank) over the channels that returned the document' },
  ...branchFeatures('fulltext', 'stemmed BM25F (with phrase and proximity bonuses)'),
  ...branchFeatures('sparse', 'sparse channel (query words plus expansion terms, weighted BM25F)'),
  ...branchFeatures('short_document', 'dense title+abstract cosine similarity'),
  ...branchFeatures('binary', 'binary-code prefiltered, float-rescored cosine similarity'),
  { name: 'bm25_title', group: 'lexical', description: 'BM25 of the query words over the title alone (0 when no word matches; absent when the document has no title)' },
  { name: 'bm25_abstract', group: 'lexical', description: 'BM25 over the abstract alone (absent without an abstract)' },
  { name: 'bm25_body', group: 'lexical', description: 'BM25 over the full text alone (absent without full text)' },
  { name: 'phrase_bonus', group: 'lexical', description: 'the quoted-phrase bonus in the fulltext score (0 when the query quotes nothing)' },
  { name: 'proximity', group: 'lexical', description: 'term-proximity bonus of an unquoted multi-word query at weight 1 (0 for one-word queries)' },
  { name: 'age_days', group: 'document', description: 'days from the issue date to now (absent when the issue date is unknown)' },
  { name: 'has_abstract', group: 'document', description: '1 when the document has an abstract, else 0' },
  { name: 'has_full_text', group: 'document', description: '1 when the document has full text, else 0' },
  ...TYPE_FEATURES.map(([name, types]): FeatureSpec => ({ name, group: 'document', description: `1 when the type is ${types.join(' or ')}, else 0 (absent when the type is unknown)` })),
  { name: 'cited_by', group: 'citations', description: 'records in the same index that cite the document (by its canonical URIs)' },
  { name: 'views_30d', group: 'engagement', description: 'page views over the last 30 UTC days (absent when activity has no events for the document)' },
  { name: 'agent_reads_30d', group: 'engagement', description: 'agent reads over the last 30 days' },
  { name: 'ai_citations_30d', group: 'engagement', description: 'citations in AI answers over the last 30 days' },
  { name: 'positive_ratings_30d', group: 'engagement', description: 'positive relevance ratings over the last 30 days' },
];

/** Passage features, in row order (after the document features in an evaluation row). */
export const PASSAGE_FEATURES: readonly FeatureSpec[] = [
  { name: 'passage_score', group: 'passage', description: 'BM25 of the passage (chunk) plus its phrase bonus; 0 for a fallback passage' },
  { name: 'passage_rank', group: 'passage', description: '0-based rank of the passage among the document\'s scored passages' },
  { name: 'passage_field', group: 'passage', description: 'field of the passage: 0 title, 1 abstract, 2 body' },
  { name: 'passage_position', group: 'passage', description: 'start of the passage as a fraction of its field\'s length (0 = the start)' },
];

export const ALL_FEATURES: readonly FeatureSpec[] = [...DOCUMENT_FEATURES, ...PASSAGE_FEATURES];
export const FEATURE_NAMES: readonly string[] = ALL_FEATURES.map((f) => f.name);
export const DOCUMENT_FEATURE_COUNT = DOCUMENT_FEATURES.length;
const SLOT = new Map(FEATURE_NAMES.map((n, i) => [n, i]));
/** Row slot of a feature, or -1. */
export const featureSlot = (name: string): number => SLOT.get(name) ?? -1;
export const featureSpec = (name: string): FeatureSpec | undefined => ALL_FEATURES[featureSlot(name)];

/** The types behind each is_* feature. */
export function typeFeatures(type: string | null): [string, number][] {
  if (type === null) return [];
  return TYPE_FEATURES.map(([name, types]) => [name, types.includes(type) ? 1 : 0]);
}

/** One candidate of the pool: its retrieval evidence and, once computed, its features. */
export interface Candidate {
  id: string;
  index: IndexName;
  /** The hit that carries the matched passages (the lexical channel's when it returned the document). */
  hit: EngineHit;
  /** Organic rank (0-based) in the fused list. */
  organicRank: number;
  /** Organic score (the response score under candidate_ranking rrf). */
  organicScore: number;
  /** Document features by slot (NaN = absent). */
  doc: Float64Array;
  /** Passage features by passage: chunk id and a row of PASSAGE_FEATURES (NaN = absent). */
  passages: { ordinal: number; row: Float64Array; l1: number | null }[];
  /** Score after each stage that ran (the last one orders the results). */
  l1: number | null;
  l2: number | null;
  cross: number | null;
  /** Feature groups (and `lexical:<feature>` probes) already computed for this candidate. */
  computed: Set<string>;
  /** The stored record, once the `document` group loaded it. */
  stored: FeatureDocument | null;
}

export const FIELD_CODE: Record<string, number> = { title: 0, abstract: 1, body: 2 };

/** A candidate with only its retrieval evidence; the caller fills branch features. */
export function newCandidate(id: string, index: IndexName, hit: EngineHit, organicRank: number, organicScore: number, fused: number): Candidate {
  const doc = new Float64Array(DOCUMENT_FEATURE_COUNT).fill(NaN);
  doc[featureSlot('rrf')] = fused;
  const passages = hit.passages.map((p, rank) => {
    const row = new Float64Array(PASSAGE_FEATURES.length);
    row[0] = p.score;
    row[1] = rank;
    row[2] = FIELD_CODE[p.field] ?? 2;
    row[3] = p.fieldLength > 0 ? p.startChar / p.fieldLength : 0;
    return { ordinal: p.chunkId, row, l1: null };
  });
  return { id, index, hit, organicRank, organicScore, doc, passages, l1: null, l2: null, cross: null, computed: new Set<string>(['retrieval', 'passage']), stored: null };
}

/** Sets a document feature (observed value). */
export function setFeature(c: Candidate, name: string, value: number): void {
  const i = featureSlot(name);
  if (i < 0 || i >= DOCUMENT_FEATURE_COUNT) throw new Error(`not a document feature: ${name}`);
  c.doc[i] = value;
}

export function getFeature(c: Candidate, name: string): number {
  return c.doc[featureSlot(name)]!;
}

/** The wire's CandidateScores: observed document features and every scored passage's features. */
export function candidateScores(c: Candidate): { document: Record<string, number>; passages: { ordinal: number; scores: Record<string, number>; l1Score: number | null }[]; scoredPassages: number } {
  const document: Record<string, number> = {};
  DOCUMENT_FEATURES.forEach((f, i) => {
    const v = c.doc[i]!;
    if (!Number.isNaN(v)) document[f.name] = finite(v);
  });
  const passages = c.passages.map((p) => {
    const scores: Record<string, number> = {};
    PASSAGE_FEATURES.forEach((f, i) => {
      const v = p.row[i]!;
      if (!Number.isNaN(v)) scores[f.name] = finite(v);
    });
    return { ordinal: p.ordinal, scores, l1Score: p.l1 === null || Number.isNaN(p.l1) ? null : finite(p.l1) };
  });
  return { document, passages, scoredPassages: c.passages.filter((p) => p.row[0]! > 0).length };
}

/** JSON carries finite numbers only: infinities become the largest doubles. */
export function finite(v: number): number {
  if (v === Infinity) return Number.MAX_VALUE;
  if (v === -Infinity) return -Number.MAX_VALUE;
  return v;
}

/** A candidate's full feature row in FEATURE_NAMES order: document features, then its best passage's (NaN = absent). What L2 models are trained on. */
export function featureRow(c: Candidate): Float64Array {
  const row = new Float64Array(FEATURE_NAMES.length).fill(NaN);
  row.set(c.doc, 0);
  const best = c.passages[0]?.row;
  if (best) row.set(best, DOCUMENT_FEATURE_COUNT);
  return row;
}
