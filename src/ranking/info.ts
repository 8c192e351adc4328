// What a search response says of its ranking (interface: CandidateRankingInfo, FeatureContract,
// RankingInfo, CorpusRankingInfo, BatchInfo, CandidateScores, SnippetEvidence), as camelCase domain
// values; http/presenters/search.ts writes them on the wire.
import { createHash } from 'node:crypto';
import { ANALYSIS_VERSION } from '../engine/index.js';
import type { SearchRequest } from '../search/search-types.js';
import { FEATURE_VERSION } from './features.js';
import { combinedSha, CONTRACT_FEATURES, type EngagementInfo, type RankingOutcome, type RankingPlan } from './pipeline.js';

export interface CandidateScoresValue {
  document: Record<string, number>;
  passages: { ordinal: number; scores: Record<string, number>; l1Score: number | null }[];
  scoredPassages: number;
}

export interface SnippetEvidenceValue {
  text: string;
  /** Unicode scalar values, relative to the snippet text. */
  startChar: number;
  score: number;
}

export interface FeatureContractValue {
  name: string;
  features: string[];
  scorePolicy: string;
  rrfPolicy: string;
  backfill: boolean;
  candidateDepth: number;
  phrasePolicy: string;
  tokenizerPolicy: string;
  documentReduction: string;
  teacherInput: string;
  vectorCombiner: { name: string; temperature: number; topK: number; decay: number };
  sparseQuery: { maxQueryDims: number; weightThreshold: number; heapFactor: number; pruning: number };
}

/** The engagement batch's info as the pipeline records it (one shape, defined there). */
export type BatchInfoValue = EngagementInfo;

export interface RankingInfoValue {
  method: string;
  artifactSha256: string;
  modelSha256: string;
  featureVersion: string;
  corpusModels: { corpus: string; modelSha256: string; scoring: { target: 'teacher_score'; correctionWeight: number }; inputDocuments: number; inputRows: number }[];
  inputDocuments: number;
  inputRows: number;
  outputDocuments: number;
  elapsedUs: number;
  engagement: BatchInfoValue;
}

export interface CandidateRankingValue {
  method: string;
  contract: FeatureContractValue;
  l2: RankingInfoValue | null;
  modelSha256: string | null;
}

/** The feature contract of a request: which features, policies and depths produced the scores. */
export function featureContract(plan: RankingPlan, r: SearchRequest, rrfK: number, sparseDefaults: { maxQueryDims: number; pruning: number; heapFactor: number }): FeatureContractValue {
  return {
    name: FEATURE_VERSION,
    features: [...CONTRACT_FEATURES],
    scorePolicy: 'raw: channel scores as the channels compute them (BM25F sums, cosine similarities), never normalized; absent when a channel did not return the document',
    rrfPolicy: `weighted RRF over the channels that ran, vote = weight / (rrf_k + rank), rrf_k = ${rrfK}`,
    backfill: plan.backfill,
    candidateDepth: plan.depth,
    phrasePolicy: `quoted spans are required ordered-token phrases; bonus x ${r.phraseBoost ?? 1}`,
    tokenizerPolicy: `lectern analyzer v${ANALYSIS_VERSION}: per-language stemming and stopwords, Unicode word segmentation`,
    documentReduction: 'max over passages',
    teacherInput: plan.l2 ? 'teacher_score' : 'none',
    vectorCombiner: { name: r.combiner, temperature: r.combinerTemperature, topK: r.combinerTopK, decay: r.combinerDecay },
    sparseQuery: {
      maxQueryDims: r.maxQueryDims > 0 ? r.maxQueryDims : sparseDefaults.maxQueryDims,
      weightThreshold: r.weightThreshold,
      heapFactor: r.heapFactor ?? sparseDefaults.heapFactor,
      pruning: r.pruning ?? sparseDefaults.pruning,
    },
  };
}

/** CandidateRankingInfo of a request (`out` null: no stage ran, the order is the fused RRF list's). */
export function candidateRankingInfo(plan: RankingPlan, out: RankingOutcome | null, contract: FeatureContractValue): CandidateRankingValue {
  let l2: RankingInfoValue | null = null;
  let modelSha256: string | null = null;
  // no stage ran: the candidates are the fused (RRF) list itself
  if (out === null) return { method: 'rrf', contract, l2: null, modelSha256: null };
  if (out.l2) {
    const shas = out.l2.corpora.map((c) => c.model.sha256);
    modelSha256 = combinedSha(shas);
    const artifact = createHash('sha256').update(JSON.stringify({ feature_version: FEATURE_VERSION, models: out.l2.corpora.map((c) => [c.corpus, c.model.sha256]) })).digest('hex');
    l2 = {
      method: 'catboost',
      artifactSha256: artifact,
      modelSha256,
      featureVersion: FEATURE_VERSION,
      corpusModels: out.l2.corpora.map((c) => ({
        corpus: c.corpus,
        modelSha256: c.model.sha256,
        scoring: { target: c.model.target, correctionWeight: c.model.correctionWeight },
        inputDocuments: c.inputDocuments,
        inputRows: c.inputDocuments,
      })),
      inputDocuments: out.l2.inputDocuments,
      inputRows: out.l2.inputDocuments,
      outputDocuments: out.l2.outputDocuments,
      elapsedUs: out.l2.elapsedUs,
      engagement: { ...out.engagement },
    };
  }
  const method = [plan.method, ...(out.l2 ? ['catboost'] : []), ...(out.cross ? ['cross_encoder'] : [])].join('+');
  return { method, contract, l2, modelSha256 };
}
