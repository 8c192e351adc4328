// The sparse model behind `mode: sparse` and hybrid's sparse vote (docs/models.md): the corpus-trained
// term expansion (ADR 0100, channels.ts) or an operator-supplied SPLADE-style ONNX model (ADR 0106).
// Either gives a weighted sparse query vector over the index's terms, searched through the inverted
// index as weighted BM25F clauses; max_query_dims, weight_threshold, pruning and heap_factor apply the
// same way to both.
import type { SearchIndex } from '../engine/index.js';
import type { SparseTextEncoder } from '../ports/text-encoder.js';
import { DEFAULT_MAX_QUERY_DIMS, DEFAULT_PRUNING, queryBag, sparseQueryVector, type SparseDim, type SparseParams } from './channels.js';
import type { LoadedModel } from './corpus-models.js';

export interface SparseModel {
  /** SHA-256 of the model. */
  id: string;
  kind: 'corpus' | 'encoder';
  /** The query's sparse vector over index terms: its own terms (weight 1) first, then generated ones. */
  queryVector(index: SearchIndex, text: string, languages: string[] | null, p: SparseParams): Promise<SparseDim[]>;
}

export function corpusSparseModel(m: LoadedModel): SparseModel {
  return { id: m.id, kind: 'corpus', queryVector: async (index, text, languages, p) => sparseQueryVector(index, m.model, text, languages, p) };
}

/** Recent SPLADE query vectors (the same query over two indexes, repeated queries). */
const QUERY_CACHE = 256;

/**
 * A SPLADE model's query vector over index terms: each vocabulary token with a weight (max-pooled
 * log(1 + relu(logit))) is analysed like query text into the index's terms (word pieces "##..." and
 * special tokens have none); a term takes its strongest token's weight. The query's own terms are the
 * lexical base (weight 1, never dropped); the other terms are generated dimensions weighted by their
 * SPLADE weight relative to the strongest weight of the vector, then bounded by max_query_dims (0 = 24),
 * weight_threshold (absolute, on that relative weight) and pruning (relative to the strongest generated).
 */
export function encoderSparseModel(encoder: SparseTextEncoder): SparseModel {
  const cache = new Map<string, Promise<{ ids: Uint32Array; weights: Float32Array }>>();
  const terms = new WeakMap<SearchIndex, Map<string, string[]>>();
  const termsOf = (index: SearchIndex, id: number, languages: string[] | null): string[] => {
    let m = terms.get(index);
    if (!m) terms.set(index, (m = new Map()));
    const key = `${id}|${languages?.join(',') ?? ''}`;
    let t = m.get(key);
    if (t === undefined) {
      const tok = encoder.token(id);
      t = tok === null || tok.startsWith('##') || !/\p{L}|\p{N}/u.test(tok) ? [] : [...queryBag(index, tok, languages).keys()];
      m.set(key, t);
    }
    return t;
  };
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
    queryVector: async (index, text, languages, p) => {
      const bag = queryBag(index, text, languages);
      const own: SparseDim[] = [...bag.keys()].map((term) => ({ term, weight: 1, own: true }));
      const maxDims = p.maxQueryDims > 0 ? p.maxQueryDims : DEFAULT_MAX_QUERY_DIMS;
      const room = Math.max(0, maxDims - own.length);
      if (room === 0 || text.trim() === '') return own;
      const v = await encode(text.trim());
      const strongest = v.weights[0] ?? 0;
      if (!(strongest > 0)) return own;
      const gen = new Map<string, number>();
      for (let i = 0; i < v.ids.length; i++) {
        for (const term of termsOf(index, v.ids[i]!, languages)) {
          if (bag.has(term) || gen.has(term)) continue; // ids are strongest first: the first weight is the max
          gen.set(term, v.weights[i]! / strongest);
        }
        if (gen.size >= room) break;
      }
      const list = [...gen].map(([term, weight]) => ({ term, weight, own: false }));
      const top = list[0]?.weight ?? 0;
      const pruning = p.pruning ?? DEFAULT_PRUNING;
      return [...own, ...list.filter((g) => g.weight >= p.weightThreshold && g.weight >= pruning * top)];
    },
  };
}
