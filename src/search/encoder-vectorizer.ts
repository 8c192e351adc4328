// Document vectors from an operator-supplied encoder (ADR 0105): the committed segments of each index
// that have no vectors under the encoder are encoded in the background (or by `lectern models encode`),
// a segment at a time: its live documents' title and abstract are read from the document store, encoded
// in batches, and the vectors attached to the segment (SearchIndex.attachVectors writes the vector file,
// then commits a manifest naming it, so a crash loses at most the segment being encoded). Merges carry
// attached vectors; a segment merged away while it was being encoded is simply skipped.
import { SegmentImpacts, SegmentVectors } from '../engine/index.js';
import { INDEX_NAMES, type IndexName } from '../domain/document.js';
import type { DocumentStore } from '../ports/document-store.js';
import type { SparseTextEncoder, TextEncoder } from '../ports/text-encoder.js';
import { documentText } from './dense-model.js';
import type { IndexSet } from './index-set.js';

/** Documents read from the store and handed to the encoder at once (it batches them further). */
const READ_BATCH = 64;

export interface EncodeProgress {
  index: IndexName;
  /** Which model's vectors: the dense encoder's or the sparse (SPLADE) model's. */
  kind: 'dense' | 'sparse';
  segment: string;
  /** Documents of this segment encoded so far / to encode. */
  done: number;
  total: number;
}

export interface EncodeStepResult {
  index: IndexName;
  kind: 'dense' | 'sparse';
  segment: string;
  documents: number;
  /** False when the segment was merged away (or the model changed) while it was being encoded. */
  attached: boolean;
}

export interface PendingVectors {
  index: IndexName;
  kind: 'dense' | 'sparse';
  segments: number;
  /** Live documents of those segments. */
  documents: number;
}

export class EncoderVectorizer {
  #running: Promise<unknown> | null = null;
  #stopped = false;

  /** Stops after the batch in progress and waits for it (shutdown: the indexes and encoders close next). */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running?.catch(() => undefined);
  }

  constructor(
    private readonly indexes: IndexSet,
    private readonly store: DocumentStore,
    private readonly encoder: TextEncoder | null,
    private readonly sparseEncoder: SparseTextEncoder | null = null,
  ) {}

  /** What is left to encode, per index and model. */
  pending(): PendingVectors[] {
    const count = (segs: { ids: (string | null)[] }[]) => segs.reduce((n, s) => n + s.ids.filter((x) => x !== null).length, 0);
    const out: PendingVectors[] = [];
    for (const index of INDEX_NAMES) {
      if (this.encoder) {
        const segs = this.indexes.get(index).segmentsNeedingVectors();
        out.push({ index, kind: 'dense', segments: segs.length, documents: count(segs) });
      }
      if (this.sparseEncoder) {
        const segs = this.indexes.get(index).segmentsNeedingImpacts();
        out.push({ index, kind: 'sparse', segments: segs.length, documents: count(segs) });
      }
    }
    return out;
  }

  /** Encodes one segment that needs vectors, dense first (null: none left). */
  async step(onProgress?: (p: EncodeProgress) => void): Promise<EncodeStepResult | null> {
    if (this.#stopped) return null;
    return (await this.#denseStep(onProgress)) ?? (await this.#sparseStep(onProgress));
  }

  async #sparseStep(onProgress?: (p: EncodeProgress) => void): Promise<EncodeStepResult | null> {
    const enc = this.sparseEncoder;
    if (enc === null || this.indexes.sparseEncoder?.info.id !== enc.info.id) return null;
    for (const index of INDEX_NAMES) {
      const idx = this.indexes.get(index);
      const next = idx.segmentsNeedingImpacts()[0];
      if (next === undefined) continue;
      const modelId = enc.info.id;
      const encoded = await this.#encodeSegment(next.ids, (texts) => enc.encodeSparse(texts, 'document'), (done, total) => onProgress?.({ index, kind: 'sparse', segment: next.segment, done, total }));
      if (encoded === null) return null;
      const { rows, todo } = encoded;
      const attached = this.indexes.sparseEncoder?.info.id === modelId && idx.attachImpacts(next.segment, SegmentImpacts.fromRows(modelId, rows));
      return { index, kind: 'sparse', segment: next.segment, documents: todo.length, attached };
    }
    return null;
  }

  /**
   * Encodes the title and abstract of a segment's live documents in batches (display records: the full
   * text is never read). Rows by segment ordinal (null: deleted, or gone from the store); null when stopped.
   */
  async #encodeSegment<T>(ids: readonly (string | null)[], encode: (texts: string[]) => Promise<T[]>, progress: (done: number, total: number) => void): Promise<{ rows: (T | null)[]; todo: { id: string; d: number }[] } | null> {
    const rows: (T | null)[] = ids.map(() => null);
    const todo = ids.flatMap((id, d) => (id === null ? [] : [{ id, d }]));
    let done = 0;
    for (let i = 0; i < todo.length; i += READ_BATCH) {
      if (this.#stopped) return null;
      const part = todo.slice(i, i + READ_BATCH);
      const docs = await this.store.getDisplayMany(part.map((x) => x.id));
      const known = part.filter((x) => docs.has(x.id));
      const vecs = await encode(known.map((x) => documentText(docs.get(x.id)!.title, docs.get(x.id)!.abstract)));
      known.forEach((x, j) => (rows[x.d] = vecs[j] ?? null));
      done += part.length;
      progress(done, todo.length);
    }
    return { rows, todo };
  }

  async #denseStep(onProgress?: (p: EncodeProgress) => void): Promise<EncodeStepResult | null> {
    if (this.encoder === null || this.indexes.encoder?.info.id !== this.encoder.info.id) return null; // none, or replaced
    for (const index of INDEX_NAMES) {
      const idx = this.indexes.get(index);
      const next = idx.segmentsNeedingVectors()[0];
      if (next === undefined) continue;
      const modelId = this.encoder.info.id;
      const encoder = this.encoder;
      const encoded = await this.#encodeSegment(next.ids, (texts) => encoder.encode(texts, 'document'), (done, total) => onProgress?.({ index, kind: 'dense', segment: next.segment, done, total }));
      if (encoded === null) return null;
      const { rows, todo } = encoded;
      // the encoder may have been replaced while this segment was encoded: attach refuses other models
      const attached = this.indexes.encoder?.info.id === modelId && idx.attachVectors(next.segment, SegmentVectors.fromRows(modelId, this.encoder.info.dims, rows));
      return { index, kind: 'dense', segment: next.segment, documents: todo.length, attached };
    }
    return null;
  }

  /** Encodes every segment that needs vectors (one run at a time; a call during a run waits for it, then runs). */
  run(onProgress?: (p: EncodeProgress) => void): Promise<{ segments: number; documents: number }> {
    if (this.#running) return this.#running.then(() => this.run(onProgress));
    const go = async () => {
      let segments = 0;
      let documents = 0;
      // bounded: a segment that cannot be attached (merged away) is retried through its merged successor
      for (let guard = 0; guard < 10_000; guard++) {
        const r = await this.step(onProgress);
        if (r === null) break;
        if (r.attached) {
          segments++;
          documents += r.documents;
        }
      }
      // search threads view the new vector files only once they are published (ADR 0110)
      if (segments > 0) this.indexes.onChange?.();
      return { segments, documents };
    };
    const p = go().finally(() => {
      this.#running = null;
    });
    this.#running = p;
    return p;
  }
}
