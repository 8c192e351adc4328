// The dense model behind the `short_document` and `binary` channels, hybrid's dense vote and similar
// documents (docs/models.md): either the corpus-trained static embedding (ADR 0100; document vectors
// computed by the engine from postings) or an operator-supplied ONNX encoder (ADR 0105; document
// vectors computed from the documents' text by the background vectorizer and attached to segments).
// Query embedding is asynchronous: an encoder runs in the runtime's threads while the event loop serves.
import type { SearchIndex, VectorModel } from '../engine/index.js';
import type { TextEncoder } from '../ports/text-encoder.js';
import { queryBag } from './channels.js';
import type { LoadedModel } from './corpus-models.js';
import { documentTerms } from '../engine/index.js';

export interface DenseModel {
  /** SHA-256 recorded with the vectors. */
  id: string;
  dims: number;
  kind: 'corpus' | 'encoder';
  /** Where it comes from (the encoder's directory; `corpus` for the trained model). */
  source: string;
  /** The engine's view of the model (vectors computed by the engine, or attached by the host). */
  vectorModel: VectorModel;
  /** The query's unit vector (null: nothing in the query the model knows). */
  queryVector(index: SearchIndex, text: string, languages: string[] | null): Promise<Float32Array | null>;
  /** A document's unit vector from its title and abstract (documents not yet vectorized). */
  documentVector(title: string, abstract: string | null, language: string | null): Promise<Float32Array | null>;
}

/** The text an encoder embeds for a document: its title and abstract. */
export function documentText(title: string, abstract: string | null): string {
  return abstract ? `${title}\n${abstract}` : title;
}

export function corpusDenseModel(m: LoadedModel): DenseModel {
  return {
    id: m.id,
    dims: m.model.dims,
    kind: 'corpus',
    source: 'corpus',
    vectorModel: { id: m.id, model: m.model },
    queryVector: async (index, text, languages) => m.model.embed(queryBag(index, text, languages)),
    documentVector: async (title, abstract, language) => m.model.embed(documentTerms(title, abstract, language)),
  };
}

/** Recent query vectors an encoder computed (the same query over two indexes, repeated queries). */
const QUERY_CACHE = 256;

export function encoderDenseModel(encoder: TextEncoder): DenseModel {
  const { id, dims, source } = encoder.info;
  const cache = new Map<string, Promise<Float32Array | null>>();
  return {
    id,
    dims,
    kind: 'encoder',
    source,
    vectorModel: { id, model: null, dims },
    queryVector: (_index, text) => {
      const key = text.trim();
      if (key === '') return Promise.resolve(null);
      let hit = cache.get(key);
      if (hit !== undefined) {
        cache.delete(key);
        cache.set(key, hit);
        return hit;
      }
      hit = encoder.encode([key], 'query').then((v) => v[0] ?? null);
      hit.catch(() => cache.delete(key));
      cache.set(key, hit);
      if (cache.size > QUERY_CACHE) cache.delete(cache.keys().next().value!);
      return hit;
    },
    documentVector: async (title, abstract) => (await encoder.encode([documentText(title, abstract)], 'document'))[0] ?? null,
  };
}
