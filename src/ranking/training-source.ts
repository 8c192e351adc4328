// The training side of the L2 stage: a CandidateSource (train-ranker.ts) over the search service's
// candidatePool, so models are trained on exactly the candidates and feature rows the L2 stage scores
// (feature set v1, ADR 0120).
import type { IndexName } from '../domain/document.js';
import type { SearchMode } from '../search/search-types.js';
import { FEATURE_NAMES, FEATURE_VERSION } from './features.js';
import type { CandidateSource, PoolCandidate } from './train-ranker.js';

export interface CandidatePoolProvider {
  candidatePool(query: string, index: IndexName, depth: number, mode?: SearchMode): Promise<{ id: string; row: Float64Array }[]>;
  /** The channels a request of `mode` runs on `index` (the lane a model trained on its pools records). */
  plannedChannels?(mode: string, index: IndexName): string[];
}

/** `mode`: the search mode whose pools the provider gives (default hybrid, candidatePool's default). */
export function searchCandidateSource(search: CandidatePoolProvider, mode: SearchMode = 'hybrid'): CandidateSource {
  return {
    featureVersion: FEATURE_VERSION,
    featureNames: FEATURE_NAMES,
    pool: (query: string, index: IndexName, depth: number): Promise<PoolCandidate[]> => search.candidatePool(query, index, depth, mode),
    ...(search.plannedChannels ? { lane: (index: IndexName) => ({ mode, channels: search.plannedChannels!(mode, index) }) } : {}),
  };
}
