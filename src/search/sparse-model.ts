// The sparse model behind `mode: sparse` and hybrid's sparse vote (docs/models.md): the corpus-trained
// term expansion (ADR 0100, channels.ts: a weighted query over the index's terms, multi-query BM25F,
// ADR 0107) or an operator-supplied SPLADE-style ONNX model (ADRs 0106, 0109: a query vector over the
// model's vocabulary, scored against the documents' SPLADE vectors in the index's impact files).
import type { SearchIndex, SparseRow } from '../engine/index.js';
import type { SparseTextEncoder } from '../ports/text-encoder.js';
import { DEFAULT_PRUNING, sparseQueryVector, type SparseDim, type SparseParams } from './channels.js';
import type { LoadedModel } from './corpus-models.js';

export interface SparseModel {
  /** SHA-256 of the model. */
  id: string;
  kind: 'corpus' | 'encoder';
  /** Corpus models: the query's sparse vector over index terms, its own terms (weight 1) first, then generated ones. */
  queryVector?(index: SearchIndex, text: string, languages: string[] | null, p: SparseParams): Promise<SparseDim[]>;
  /**
   * Encoder models (ADR 0109): the query's vector over the model's vocabulary for the impact search,
   * bounded by max_query_dims (0: {@link DEFAULT_SPLADE_QUERY_DIMS} strongest), weight_threshold
   * (absolute SPLADE weight) and pruning (share of the strongest weight); `tokens` name them for traces.
   */
  tokenVector?(text: string, p: SparseParams): Promise<{ row: SparseRow; tokens: { token: string; weight: number }[] }>;
}

/** SPLADE query dimensions kept when max_query_dims is 0. */
export const DEFAULT_SPLADE_QUERY_DIMS = 64;

export function corpusSparseModel(m: LoadedModel): SparseModel {
  return { id: m.id, kind: 'corpus', queryVector: async (index, text, languages, p) => sparseQueryVector(index, m.model, text, languages, p) };
}

/** Recent SPLADE query vectors (the same query over two indexes, repeated queries). */
const QUERY_CACHE = 256;

/** An operator-supplied SPLADE-style model: query vectors over its vocabulary for the impact search (ADR 0109). */
export function encoderSparseModel(encoder: SparseTextEncoder): SparseModel {
  const cache = new Map<string, Promise<{ ids: Uint32Array; weights: Float32Array }>>();
  const encode = (text: string) => {
    let hit = cache.get(text);
    if (hit !== undefined) return hit;
    hit = encoder.encodeSparse([text], 'query').then((v) => v[0]!);
    hit.catch(() => cache.delete(text));
    cache.set(text, hit);
    if (cache.size > QUERY_CACHE) cache.delete(cache.keys().next().value!);
    return hit;
  };
  return {
    id: encoder.info.id,
    kind: 'encoder',
    tokenVector: async (text, p) => {
      if (text.trim() === '') return { row: { ids: new Uint32Array(0), weights: new Float32Array(0) }, tokens: [] };
      const v = await encode(text.trim());
      const max = p.maxQueryDims > 0 ? p.maxQueryDims : DEFAULT_SPLADE_QUERY_DIMS;
      const strongest = v.weights[0] ?? 0;
      const pruning = p.pruning ?? DEFAULT_PRUNING;
      const keep: number[] = [];
      for (let i = 0; i < v.ids.length && keep.length < max; i++) {
        const w = v.weights[i]!;
        if (w >= p.weightThreshold && w >= pruning * strongest && encoder.token(v.ids[i]!) !== null) keep.push(i);
      }
      return {
        row: { ids: Uint32Array.from(keep, (i) => v.ids[i]!), weights: Float32Array.from(keep, (i) => v.weights[i]!) },
        tokens: keep.map((i) => ({ token: encoder.token(v.ids[i]!)!, weight: v.weights[i]! })),
      };
    },
  };
}
