// Models Lectern learns from its own corpus (docs/models.md, ADR 0100), so every retrieval channel works
// on a fresh install with nothing downloaded:
// - the training state: the analysed title+abstract terms of every document (a forward index keyed by
//   document id), built incrementally (add/replace/remove one document) and saved between runs, so a
//   run resumes where the last one stopped and later runs only analyse what changed;
// - `train()`: latent semantic analysis of that forward index: tf-idf rows (title terms count twice),
//   L2-normalized, and a randomized truncated SVD (lsa.ts). Term vectors are the right singular vectors
//   scaled by the singular values; a text's embedding is the idf-weighted sum of its terms' vectors,
//   L2-normalized. From one training run come two model files:
//   - the dense model (`short_document` and `binary` channels, similar documents): all term vectors;
//   - the sparse expansion model (`sparse` channel): unit term vectors of the expansion vocabulary,
//     which turn a query into a weighted sparse vector over index terms (the query's own terms plus the
//     terms nearest to the query's embedding), searched through the inverted index.
// Pure: no I/O; the host stores the bytes (serialize/parse) and records their SHA-256.
import { analyzerFor } from './analyzer.js';
import { randomizedSvd, SeededRandom, type Csr } from './lsa.js';
import { TermScan } from './term-scan.js';

/** Weight of a title token relative to an abstract token in the training rows and document vectors. */
export const TITLE_TOKEN_WEIGHT = 2;

/** A bag of index terms with raw weighted counts. */
export type TermBag = Map<string, number>;

/** The analysed terms of a document's title and abstract (title tokens weigh {@link TITLE_TOKEN_WEIGHT}). */
export function documentTerms(title: string, abstract: string | null | undefined, language: string | null | undefined, defaultLanguage = 'en'): TermBag {
  const f = fieldTerms(title, abstract, language, defaultLanguage);
  return combine(f.title, f.abstract);
}

/** The analysed terms of a title and an abstract, counted separately. */
export function fieldTerms(title: string, abstract: string | null | undefined, language: string | null | undefined, defaultLanguage = 'en'): { title: TermBag; abstract: TermBag } {
  const a = analyzerFor(language || defaultLanguage);
  const bagOf = (text: string): TermBag => {
    const bag: TermBag = new Map();
    a.analyze(text, (term) => {
      if (term !== null) bag.set(term, (bag.get(term) ?? 0) + 1);
    });
    return bag;
  };
  return { title: bagOf(title), abstract: abstract ? bagOf(abstract) : new Map() };
}

/** Title and abstract counts as one bag (title x {@link TITLE_TOKEN_WEIGHT}). */
export function combine(title: TermBag, abstract: TermBag): TermBag {
  const bag: TermBag = new Map();
  for (const [t, c] of title) bag.set(t, c * TITLE_TOKEN_WEIGHT);
  for (const [t, c] of abstract) bag.set(t, (bag.get(t) ?? 0) + c);
  return bag;
}

const MAGIC_STATE = 'lectern-training-state/2';
const MAGIC_MODEL = 'lectern-corpus-model/2';

/** The resumable, incremental training input: one term bag per document id. */
export class TrainingState {
  readonly #vocab = new Map<string, number>();
  readonly #terms: string[] = [];
  /** Per document: term ids and counts, the first `n` of them the title's, the rest the abstract's. */
  readonly #docs = new Map<string, { t: Uint32Array; w: Float32Array; n: number }>();
  /** Opaque host label of the last change folded in (the document store sequence). */
  label: string | null = null;

  get documents(): number {
    return this.#docs.size;
  }

  /** Adds or replaces a document's title and abstract terms. */
  set(id: string, fields: { title: TermBag; abstract: TermBag }): void {
    const size = fields.title.size + fields.abstract.size;
    const t = new Uint32Array(size);
    const w = new Float32Array(size);
    let i = 0;
    for (const [term, c] of [...fields.title, ...fields.abstract]) {
      let v = this.#vocab.get(term);
      if (v === undefined) {
        v = this.#terms.length;
        this.#terms.push(term);
        this.#vocab.set(term, v);
      }
      t[i] = v;
      w[i++] = c;
    }
    if (size === 0) this.#docs.delete(id);
    else this.#docs.set(id, { t, w, n: fields.title.size });
  }

  remove(id: string): void {
    this.#docs.delete(id);
  }

  /** Bytes of the state (the host writes them atomically). */
  serialize(): Uint8Array {
    let n = 0;
    for (const d of this.#docs.values()) n += d.t.length;
    const ids = [...this.#docs.keys()];
    const header = new TextEncoder().encode(JSON.stringify({ magic: MAGIC_STATE, label: this.label, terms: this.#terms.length, docs: ids.length, entries: n }));
    const termsText = new TextEncoder().encode(this.#terms.join('\n'));
    const idsText = new TextEncoder().encode(JSON.stringify(ids));
    const counts = new Uint32Array(ids.length * 2);
    const tAll = new Uint32Array(n);
    const wAll = new Float32Array(n);
    let o = 0;
    ids.forEach((id, i) => {
      const d = this.#docs.get(id)!;
      counts[2 * i] = d.t.length;
      counts[2 * i + 1] = d.n;
      tAll.set(d.t, o);
      wAll.set(d.w, o);
      o += d.t.length;
    });
    return container([header, termsText, idsText, u8(counts), u8(tAll), u8(wAll)]);
  }

  static parse(bytes: Uint8Array): TrainingState {
    const [header, termsText, idsText, counts, tAll, wAll] = uncontainer(bytes, 6);
    const h = JSON.parse(new TextDecoder().decode(header)) as { magic: string; label: string | null; terms: number };
    if (h.magic !== MAGIC_STATE) throw new Error('not a Lectern training state');
    const s = new TrainingState();
    s.label = h.label;
    const terms = h.terms === 0 ? [] : new TextDecoder().decode(termsText).split('\n');
    terms.forEach((t, i) => {
      s.#terms.push(t);
      s.#vocab.set(t, i);
    });
    const ids = JSON.parse(new TextDecoder().decode(idsText)) as string[];
    const c = asU32(counts!);
    const ta = asU32(tAll!);
    const wa = asF32(wAll!);
    let o = 0;
    ids.forEach((id, i) => {
      const len = c[2 * i]!;
      s.#docs.set(id, { t: ta.slice(o, o + len), w: wa.slice(o, o + len), n: c[2 * i + 1]! });
      o += len;
    });
    return s;
  }

  /** Trains the models from the current state. */
  train(opts: TrainOptions = {}): { dense: CorpusModel; sparse: CorpusModel; stats: TrainStats } {
    const dims = opts.dims ?? DEFAULT_DIMS;
    const minDf = opts.minDf ?? 2;
    const nDocs = this.#docs.size;
    const df = new Uint32Array(this.#terms.length);
    const merged = new Map<string, { t: Uint32Array; w: Float32Array }>();
    for (const [id, d] of this.#docs) merged.set(id, mergeFields(d));
    for (const d of merged.values()) for (const t of d.t) df[t]!++;
    // vocabulary: terms in >= minDf documents (a term of one document relates it to nothing)
    const keep: number[] = [];
    for (let t = 0; t < df.length; t++) if (df[t]! >= minDf) keep.push(t);
    keep.sort((a, b) => df[b]! - df[a]! || (this.#terms[a]! < this.#terms[b]! ? -1 : 1));
    if (opts.maxVocab !== undefined && keep.length > opts.maxVocab) keep.length = opts.maxVocab;
    const col = new Int32Array(this.#terms.length).fill(-1);
    keep.forEach((t, c) => (col[t] = c));
    const idf = new Float32Array(keep.length);
    keep.forEach((t, c) => (idf[c] = idfOf(nDocs, df[t]!)));
    // tf-idf rows, L2-normalized
    const start = new Uint32Array(nDocs + 1);
    const cols: number[] = [];
    const vals: number[] = [];
    let r = 0;
    for (const d of merged.values()) {
      const from = cols.length;
      let norm = 0;
      for (let i = 0; i < d.t.length; i++) {
        const c = col[d.t[i]!]!;
        if (c < 0) continue;
        const v = (1 + Math.log(d.w[i]!)) * idf[c]!;
        cols.push(c);
        vals.push(v);
        norm += v * v;
      }
      const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      for (let i = from; i < vals.length; i++) vals[i]! *= inv;
      start[++r] = cols.length;
    }
    const x: Csr = { rows: nDocs, cols: keep.length, start, col: Uint32Array.from(cols), val: Float32Array.from(vals) };
    const rank = Math.max(1, Math.min(dims, keep.length, nDocs));
    // progress: the SVD's passes over the rows, then the fine-tuning epochs
    const epochs = opts.contrastiveEpochs ?? DEFAULT_CONTRASTIVE_EPOCHS;
    const svdPasses = 2 + 2 * (opts.powerIterations ?? 2) + 1;
    const svd =
      keep.length === 0 || nDocs === 0
        ? null
        : randomizedSvd(x, rank, { seed: opts.seed ?? 20261125, powerIterations: opts.powerIterations ?? 2, progress: (done) => opts.progress?.(done, svdPasses + epochs) });
    const d = svd?.rank ?? 0;
    const terms = keep.map((t) => this.#terms[t]!);
    const vectors = new Float32Array(terms.length * dims);
    if (svd) {
      const scale = opts.singularValuePower ?? 0;
      for (let t = 0; t < terms.length; t++) for (let c = 0; c < d; c++) vectors[t * dims + c] = svd.right[t * d + c]! * svd.values[c]! ** scale;
    }
    if (svd && (opts.contrastiveEpochs ?? DEFAULT_CONTRASTIVE_EPOCHS) > 0) {
      // fine-tune: title -> abstract of the same document against the other documents of a batch
      const pairs: Pair[] = [];
      const side = (d: { t: Uint32Array; w: Float32Array }, from: number, to: number): { c: Int32Array; w: Float32Array } => {
        const c: number[] = [];
        const w: number[] = [];
        for (let i = from; i < to; i++) {
          const k = col[d.t[i]!]!;
          if (k < 0) continue;
          c.push(k);
          w.push((1 + Math.log(d.w[i]!)) * idf[k]!);
        }
        return { c: Int32Array.from(c), w: Float32Array.from(w) };
      };
      const abstracts: { c: Int32Array; w: Float32Array }[] = [];
      const splitRnd = new SeededRandom((opts.seed ?? 20261125) + 7);
      const splitPairs = opts.contrastiveSplitPairs ?? DEFAULT_CONTRASTIVE_SPLIT_PAIRS;
      const halves: Pair[] = [];
      for (const d of this.#docs.values()) {
        const q = side(d, 0, d.n);
        const a = side(d, d.n, d.t.length);
        if (q.c.length > 0 && a.c.length > 0) {
          pairs.push({ q: q.c, qw: q.w, d: a.c, dw: a.w });
          abstracts.push(a);
        }
        // two disjoint random halves of one abstract's terms as a second positive pair (ADR 0317)
        if (splitPairs !== false && a.c.length >= 4 && (splitPairs !== 'titled' || q.c.length > 0)) {
          const h = splitView(a, splitRnd);
          if (h) halves.push(h);
        }
      }
      // issue 27 option: each title's hardest BM25 abstract that is not its own as an extra negative
      if (opts.contrastiveHardNegatives) {
        const hard = bm25HardNegatives(pairs, abstracts, keep.length, idf);
        hard.forEach((k, i) => {
          if (k >= 0) {
            pairs[i]!.n = abstracts[k]!.c;
            pairs[i]!.nw = abstracts[k]!.w;
          }
        });
      }
      pairs.push(...halves);
      contrastiveTune(vectors, dims, pairs, {
        onEpoch: (ep) => opts.progress?.(svdPasses + ep, svdPasses + epochs),
        epochs: opts.contrastiveEpochs ?? DEFAULT_CONTRASTIVE_EPOCHS,
        batch: opts.contrastiveBatch ?? 128,
        temperature: opts.contrastiveTemperature ?? DEFAULT_CONTRASTIVE_TEMPERATURE,
        lr: opts.contrastiveLearningRate ?? 0.2,
        seed: opts.seed ?? 20261125,
      });
    }
    let centroids: Float32Array | null = null;
    if (svd && nDocs >= (opts.ivfMinDocs ?? IVF_MIN_DOCS)) {
      // coarse quantizer for the approximate (IVF) dense index: spherical k-means over document embeddings
      const probe = CorpusModel.build('dense', dims, terms, idf, vectors, nDocs);
      const lists = Math.min(1024, Math.max(16, Math.round(Math.sqrt(nDocs))));
      const rnd = new SeededRandom((opts.seed ?? 20261125) + 1);
      const all = [...merged.values()];
      const sampleSize = Math.min(all.length, lists * 48);
      const sample = new Float32Array(sampleSize * dims);
      let m = 0;
      for (let i = 0; i < all.length && m < sampleSize; i++) {
        // a seeded uniform sample without replacement (selection sampling)
        if (rnd.next() * (all.length - i) >= sampleSize - m) continue;
        const d = all[i]!;
        const e = probe.embed(Array.from(d.t, (t, j): [string, number] => [this.#terms[t]!, d.w[j]!]));
        if (e) sample.set(e, m++ * dims);
      }
      centroids = sphericalKMeans(sample.subarray(0, m * dims), dims, Math.min(lists, m), opts.ivfIterations ?? 8, rnd);
    }
    const dense = CorpusModel.build('dense', dims, terms, idf, vectors, nDocs, centroids);
    // expansion vocabulary: terms neither too rare to trust nor so common they say nothing
    const maxDf = Math.max(minDf, Math.floor(nDocs * (opts.expansionMaxDfShare ?? DEFAULT_EXPANSION_MAX_DF_SHARE)));
    const expKeep: number[] = [];
    terms.forEach((_, c) => {
      const f = df[keep[c]!]!;
      if (f >= Math.max(minDf, opts.expansionMinDf ?? 3) && f <= maxDf) expKeep.push(c);
    });
    // the most frequent first (terms are in df order): a query scans this vocabulary, so it is bounded
    if (expKeep.length > (opts.maxExpansionVocab ?? MAX_EXPANSION_VOCAB)) expKeep.length = opts.maxExpansionVocab ?? MAX_EXPANSION_VOCAB;
    const expVectors = new Float32Array(expKeep.length * dims);
    expKeep.forEach((c, i) => {
      let n = 0;
      for (let j = 0; j < dims; j++) n += vectors[c * dims + j]! ** 2;
      const inv = n > 0 ? 1 / Math.sqrt(n) : 0;
      for (let j = 0; j < dims; j++) expVectors[i * dims + j] = vectors[c * dims + j]! * inv;
    });
    const sparse = CorpusModel.build(
      'sparse',
      dims,
      expKeep.map((c) => terms[c]!),
      Float32Array.from(expKeep.map((c) => idf[c]!)),
      expVectors,
      nDocs,
    );
    return { dense, sparse, stats: { documents: nDocs, vocabulary: terms.length, expansionVocabulary: expKeep.length, dims: d, entries: cols.length } };
  }
}

export const DEFAULT_DIMS = 128;
/** Most terms in the sparse expansion vocabulary (a query's expansion scans them all). */
export const MAX_EXPANSION_VOCAB = 20_000;
/** Corpora with at least this many documents get an IVF coarse quantizer in the dense model. */
export const IVF_MIN_DOCS = 20_000;

/** Spherical k-means (cosine) of unit rows; k-means++-like seeding by a seeded random pick. Unit centroids. */
function sphericalKMeans(x: Float32Array, dims: number, k: number, iterations: number, rnd: SeededRandom): Float32Array {
  const n = x.length / dims;
  const c = new Float32Array(k * dims);
  const picked = new Set<number>();
  for (let i = 0; i < k; i++) {
    let r = Math.floor(rnd.next() * n);
    while (picked.has(r)) r = (r + 1) % n;
    picked.add(r);
    c.set(x.subarray(r * dims, (r + 1) * dims), i * dims);
  }
  const assign = new Int32Array(n);
  for (let it = 0; it < iterations; it++) {
    for (let r = 0; r < n; r++) assign[r] = nearestRow(c, k, dims, x, r * dims);
    c.fill(0);
    for (let r = 0; r < n; r++) {
      const o = assign[r]! * dims;
      for (let j = 0; j < dims; j++) c[o + j]! += x[r * dims + j]!;
    }
    for (let i = 0; i < k; i++) {
      const row = c.subarray(i * dims, (i + 1) * dims);
      if (!normalize(row)) row.set(x.subarray(((i * 7919) % n) * dims, ((i * 7919) % n + 1) * dims)); // empty cluster: reseed
    }
  }
  return c;
}

/** Index of the row of `m` (k x dims) with the largest dot product with v[off .. off+dims). */
export function nearestRow(m: Float32Array, k: number, dims: number, v: Float32Array, off: number): number {
  let best = 0;
  let bestS = -Infinity;
  for (let i = 0; i < k; i++) {
    let s = 0;
    const o = i * dims;
    for (let j = 0; j < dims; j++) s += m[o + j]! * v[off + j]!;
    if (s > bestS) {
      bestS = s;
      best = i;
    }
  }
  return best;
}
/** Expansion terms appear in at most this share of the documents (commoner terms say little). */
export const DEFAULT_EXPANSION_MAX_DF_SHARE = 0.5;
/** Epochs of contrastive title/abstract fine-tuning after the SVD (0: the LSA vectors as they are). */
export const DEFAULT_CONTRASTIVE_EPOCHS = 8;
/** Softmax temperature of the contrastive fine-tuning (0.05 before ADR 0317; 0.1 measured better on seven sets). */
export const DEFAULT_CONTRASTIVE_TEMPERATURE = 0.1;
/** Split-abstract positive pairs by default (ADR 0317): for the documents that also give a title/abstract pair. */
export const DEFAULT_CONTRASTIVE_SPLIT_PAIRS: boolean | 'titled' = 'titled';

export interface Pair {
  q: Int32Array;
  qw: Float32Array;
  d: Int32Array;
  dw: Float32Array;
  /** A hard negative (another document's abstract), or none. */
  n?: Int32Array;
  nw?: Float32Array;
}

/** Two disjoint halves of a bag of terms (each term goes to one side, a seeded shuffle), as a pair; null if a side is empty. */
export function splitView(a: { c: Int32Array; w: Float32Array }, rnd: SeededRandom): Pair | null {
  const idx = Array.from(a.c, (_, i) => i);
  for (let i = idx.length - 1; i > 0; i--) {
    const j = Math.floor(rnd.next() * (i + 1));
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  const half = idx.length >> 1;
  const pick = (ix: number[]) => ({ c: Int32Array.from(ix, (i) => a.c[i]!), w: Float32Array.from(ix, (i) => a.w[i]!) });
  const x = pick(idx.slice(0, half));
  const y = pick(idx.slice(half));
  return x.c.length > 0 && y.c.length > 0 ? { q: x.c, qw: x.w, d: y.c, dw: y.w } : null;
}

/**
 * For each title/abstract pair (the first `abstracts.length` of `pairs`), the index of the abstract that
 * BM25 (k1 1.2, b 0.75, over the abstracts' terms, the title's terms as the query) ranks first among the
 * others; -1 when none shares a term. A pair whose title is identical to another's is skipped (-1).
 */
export function bm25HardNegatives(pairs: readonly Pair[], abstracts: readonly { c: Int32Array; w: Float32Array }[], vocab: number, idf: Float32Array): Int32Array {
  const n = abstracts.length;
  const post: number[][] = Array.from({ length: vocab }, () => []);
  const tf: number[][] = Array.from({ length: vocab }, () => []);
  const len = new Float64Array(n);
  abstracts.forEach((a, k) => {
    for (let i = 0; i < a.c.length; i++) {
      post[a.c[i]!]!.push(k);
      // the pairs' weights are (1 + ln tf) x idf: recover the count
      const cnt = Math.exp(a.w[i]! / idf[a.c[i]!]! - 1);
      tf[a.c[i]!]!.push(cnt);
      len[k]! += cnt;
    }
  });
  let avg = 0;
  for (let k = 0; k < n; k++) avg += len[k]!;
  avg = avg / Math.max(1, n) || 1;
  const score = new Float64Array(n);
  const out = new Int32Array(n).fill(-1);
  const seen: number[] = [];
  for (let p = 0; p < n; p++) {
    const q = pairs[p]!;
    for (const t of q.q) {
      const ps = post[t]!;
      const fs = tf[t]!;
      for (let j = 0; j < ps.length; j++) {
        const k = ps[j]!;
        const f = fs[j]!;
        if (score[k] === 0) seen.push(k);
        score[k]! += (idf[t]! * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * len[k]!) / avg));
      }
    }
    let best = -1;
    let bestS = 0;
    for (const k of seen) {
      if (k !== p && score[k]! > bestS) {
        bestS = score[k]!;
        best = k;
      }
      score[k] = 0;
    }
    seen.length = 0;
    out[p] = best;
  }
  return out;
}

/** Merges a state entry's title and abstract counts into one bag (title x TITLE_TOKEN_WEIGHT). */
function mergeFields(d: { t: Uint32Array; w: Float32Array; n: number }): { t: Uint32Array; w: Float32Array } {
  const m = new Map<number, number>();
  for (let i = 0; i < d.t.length; i++) m.set(d.t[i]!, (m.get(d.t[i]!) ?? 0) + d.w[i]! * (i < d.n ? TITLE_TOKEN_WEIGHT : 1));
  return { t: Uint32Array.from(m.keys()), w: Float32Array.from(m.values()) };
}

/**
 * Contrastive fine-tuning of term vectors (in place), in the manner of static-embedding distillation:
 * a document's title embedding (idf-weighted sum of its term vectors, normalized) should be nearer to
 * its own abstract's embedding than to the other abstracts of the batch and vice versa (symmetric
 * in-batch softmax cross-entropy, temperature tau), optimized with per-row Adagrad.
 */
function contrastiveTune(e: Float32Array, dims: number, pairs: Pair[], o: { epochs: number; batch: number; temperature: number; lr: number; seed: number; onEpoch?: (done: number) => void }): void {
  const rows = e.length / dims;
  // start from unit-scale rows (the SVD's scale is arbitrary)
  let mean = 0;
  for (let r = 0; r < rows; r++) {
    let n = 0;
    for (let j = 0; j < dims; j++) n += e[r * dims + j]! ** 2;
    mean += Math.sqrt(n);
  }
  mean = mean / Math.max(1, rows) || 1;
  for (let i = 0; i < e.length; i++) e[i]! /= mean;
  const grad = new Float32Array(e.length);
  const gsq = new Float32Array(rows);
  const touched = new Uint8Array(rows);
  const rnd = new SeededRandom(o.seed);
  const order = pairs.map((_, i) => i);
  const B = Math.max(2, o.batch);
  // columns: the batch's positives (0..n) then its hard negatives (n..n+h)
  const T = new Float64Array(B * dims);
  const A = new Float64Array(2 * B * dims);
  const tn = new Float64Array(B);
  const an = new Float64Array(2 * B);
  const S = new Float64Array(B * 2 * B);
  const gT = new Float64Array(B * dims);
  const gA = new Float64Array(2 * B * dims);
  const negOf = new Int32Array(2 * B);
  const embed = (c: Int32Array, w: Float32Array, out: Float64Array, at: number): number => {
    out.fill(0, at, at + dims);
    for (let i = 0; i < c.length; i++) {
      const o2 = c[i]! * dims;
      const wi = w[i]!;
      for (let j = 0; j < dims; j++) out[at + j]! += wi * e[o2 + j]!;
    }
    let n = 0;
    for (let j = 0; j < dims; j++) n += out[at + j]! ** 2;
    n = Math.sqrt(n) || 1;
    for (let j = 0; j < dims; j++) out[at + j]! /= n;
    return n;
  };
  const back = (c: Int32Array, w: Float32Array, unit: Float64Array, g: Float64Array, at: number, norm: number) => {
    // d/du of u/|u|: (g - (g.t) t) / |u|
    let gt = 0;
    for (let j = 0; j < dims; j++) gt += g[at + j]! * unit[at + j]!;
    for (let i = 0; i < c.length; i++) {
      const r = c[i]!;
      touched[r] = 1;
      const s = w[i]! / norm;
      const o2 = r * dims;
      for (let j = 0; j < dims; j++) grad[o2 + j]! += s * (g[at + j]! - gt * unit[at + j]!);
    }
  };
  const inv = 1 / o.temperature;
  for (let ep = 0; ep < o.epochs; ep++) {
    if (ep > 0) o.onEpoch?.(ep);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rnd.next() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (let b0 = 0; b0 + 1 < order.length; b0 += B) {
      const n = Math.min(B, order.length - b0);
      if (n < 2) break;
      let m2 = n;
      for (let i = 0; i < n; i++) {
        const p = pairs[order[b0 + i]!]!;
        tn[i] = embed(p.q, p.qw, T, i * dims);
        an[i] = embed(p.d, p.dw, A, i * dims);
        if (p.n && p.nw && p.n.length > 0) {
          negOf[m2] = order[b0 + i]!;
          an[m2] = embed(p.n, p.nw, A, m2 * dims);
          m2++;
        }
      }
      const W = 2 * B;
      for (let i = 0; i < n; i++)
        for (let k = 0; k < m2; k++) {
          let s = 0;
          for (let j = 0; j < dims; j++) s += T[i * dims + j]! * A[k * dims + j]!;
          S[i * W + k] = s * inv;
        }
      // dL/dS = (softmax_rows - I) + (softmax_cols - I), averaged over the batch; rows (title -> abstract)
      // also see the hard negatives, columns (abstract -> title) only the batch's titles
      const dS = new Float64Array(n * m2);
      for (let i = 0; i < n; i++) {
        let m = -Infinity;
        for (let k = 0; k < m2; k++) m = Math.max(m, S[i * W + k]!);
        let z = 0;
        for (let k = 0; k < m2; k++) z += Math.exp(S[i * W + k]! - m);
        for (let k = 0; k < m2; k++) dS[i * m2 + k]! += Math.exp(S[i * W + k]! - m) / z - (i === k ? 1 : 0);
      }
      for (let k = 0; k < n; k++) {
        let m = -Infinity;
        for (let i = 0; i < n; i++) m = Math.max(m, S[i * W + k]!);
        let z = 0;
        for (let i = 0; i < n; i++) z += Math.exp(S[i * W + k]! - m);
        for (let i = 0; i < n; i++) dS[i * m2 + k]! += Math.exp(S[i * W + k]! - m) / z - (i === k ? 1 : 0);
      }
      gT.fill(0);
      gA.fill(0, 0, m2 * dims);
      const scale = inv / n;
      for (let i = 0; i < n; i++)
        for (let k = 0; k < m2; k++) {
          const g = dS[i * m2 + k]! * scale;
          if (g === 0) continue;
          for (let j = 0; j < dims; j++) {
            gT[i * dims + j]! += g * A[k * dims + j]!;
            gA[k * dims + j]! += g * T[i * dims + j]!;
          }
        }
      for (let i = 0; i < n; i++) {
        const p = pairs[order[b0 + i]!]!;
        back(p.q, p.qw, T, gT, i * dims, tn[i]!);
        back(p.d, p.dw, A, gA, i * dims, an[i]!);
      }
      for (let k = n; k < m2; k++) {
        const p = pairs[negOf[k]!]!;
        back(p.n!, p.nw!, A, gA, k * dims, an[k]!);
      }
      for (let r = 0; r < rows; r++) {
        if (touched[r] === 0) continue;
        touched[r] = 0;
        const o2 = r * dims;
        let g2 = 0;
        for (let j = 0; j < dims; j++) g2 += grad[o2 + j]! ** 2;
        gsq[r]! += g2 / dims;
        const step = o.lr / Math.sqrt(gsq[r]! + 1e-10);
        for (let j = 0; j < dims; j++) {
          e[o2 + j]! -= step * grad[o2 + j]!;
          grad[o2 + j] = 0;
        }
      }
    }
  }
  o.onEpoch?.(o.epochs);
}

export interface TrainOptions {
  /** Embedding dimensions (a multiple of 32: binary codes pack 32 signs per word), default {@link DEFAULT_DIMS}. */
  dims?: number;
  /** Minimum document frequency of a vocabulary term, default 2. */
  minDf?: number;
  maxVocab?: number;
  seed?: number;
  powerIterations?: number;
  /** Term vectors = right singular vectors x singular value ^ this (default 0: unscaled; measured best before fine-tuning). */
  singularValuePower?: number;
  /** Expansion terms: df in [expansionMinDf, expansionMaxDfShare x docs], at most maxExpansionVocab (most frequent first). */
  maxExpansionVocab?: number;
  expansionMinDf?: number;
  expansionMaxDfShare?: number;
  /** Contrastive fine-tuning (see contrastiveTune): epochs (0 = off), batch size, temperature ({@link DEFAULT_CONTRASTIVE_TEMPERATURE}), Adagrad rate. */
  contrastiveEpochs?: number;
  contrastiveBatch?: number;
  contrastiveTemperature?: number;
  contrastiveLearningRate?: number;
  /** Issue 27 attempt (off by default, docs/quality.md): each title also against its hardest BM25 abstract that is not its own. */
  contrastiveHardNegatives?: boolean;
  /**
   * Two disjoint random halves of each abstract's terms as extra positive pairs (`titled`, the default
   * {@link DEFAULT_CONTRASTIVE_SPLIT_PAIRS}: only for documents that also give a title/abstract pair;
   * `true`: every abstract; `false`: none, the trainer before ADR 0317).
   */
  contrastiveSplitPairs?: boolean | 'titled';
  /** IVF: minimum corpus size for a coarse quantizer (default {@link IVF_MIN_DOCS}); k-means iterations. */
  ivfMinDocs?: number;
  ivfIterations?: number;
  progress?: (done: number, total: number) => void;
}

export interface TrainStats {
  documents: number;
  vocabulary: number;
  expansionVocabulary: number;
  dims: number;
  entries: number;
}

/** Inverse document frequency used by the models (BM25's, floored at a small positive value). */
export function idfOf(n: number, df: number): number {
  return Math.max(0.01, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
}

/** Vocabularies from this size on scan their terms with the integer kernel (ADR 0310); below it the float scan is as fast. */
export const TERM_SCAN_MIN_TERMS = 2048;
/** Most results the kernel path selects for (larger `max`: the float scan). */
const TERM_SCAN_MAX_RESULTS = 64;

/** A trained corpus model: term vectors (row-major terms x dims) and idf per term. */
export class CorpusModel {
  readonly #index = new Map<string, number>();
  private constructor(
    readonly kind: 'dense' | 'sparse',
    readonly dims: number,
    readonly terms: readonly string[],
    readonly idf: Float32Array,
    readonly vectors: Float32Array,
    readonly trainedDocuments: number,
    /** IVF coarse quantizer: unit centroids (lists x dims), or null (exact search only). */
    readonly centroids: Float32Array | null = null,
  ) {
    terms.forEach((t, i) => this.#index.set(t, i));
  }

  static build(kind: 'dense' | 'sparse', dims: number, terms: readonly string[], idf: Float32Array, vectors: Float32Array, trainedDocuments: number, centroids: Float32Array | null = null): CorpusModel {
    if (dims % 32 !== 0 || dims <= 0) throw new RangeError('model dims must be a positive multiple of 32');
    return new CorpusModel(kind, dims, terms, idf, vectors, trainedDocuments, centroids !== null && centroids.length > 0 ? centroids : null);
  }

  /** Row of `term`, or -1. */
  row(term: string): number {
    return this.#index.get(term) ?? -1;
  }

  /**
   * The embedding of a bag of terms (raw weighted counts): sum of (1 + ln count) x idf x term vector,
   * L2-normalized. Null when no term is known to the model.
   */
  embed(bag: Iterable<[string, number]>): Float32Array | null {
    const out = new Float32Array(this.dims);
    let any = false;
    for (const [term, c] of bag) {
      const r = this.#index.get(term);
      if (r === undefined || !(c > 0)) continue;
      any = true;
      const w = (1 + Math.log(Math.max(1, c))) * this.idf[r]!;
      const o = r * this.dims;
      for (let j = 0; j < this.dims; j++) out[j]! += w * this.vectors[o + j]!;
    }
    return any && normalize(out) ? out : null;
  }

  /** The term scan's kernel copy of the vectors (ADR 0310): undefined until first needed, null where it cannot run. */
  #scan: TermScan | null | undefined;

  /**
   * Terms nearest to `query` (a unit vector) by cosine, best first (ties in vocabulary order): at most
   * `max` with similarity >= `minSimilarity`, skipping `exclude`. `method`: `auto` scans with the
   * integer kernel and scores its candidates again in floating point (the same answer as `exact`, ADR
   * 0310) when the vocabulary has at least {@link TERM_SCAN_MIN_TERMS} terms; `exact` scores every term
   * in floating point; `kernel` takes the kernel's path whatever the size (tests).
   */
  nearestTerms(query: Float32Array, max: number, minSimilarity: number, exclude: ReadonlySet<string>, method: 'auto' | 'exact' | 'kernel' = 'auto'): { term: string; similarity: number }[] {
    if (max <= 0) return [];
    const useKernel = method === 'kernel' || (method === 'auto' && this.terms.length >= TERM_SCAN_MIN_TERMS);
    if (useKernel && max <= TERM_SCAN_MAX_RESULTS) {
      if (this.#scan === undefined) this.#scan = TermScan.build(this.vectors, this.terms.length, this.dims);
      if (this.#scan !== null) {
        const excluded = new Set<number>();
        for (const t of exclude) {
          const r = this.#index.get(t);
          if (r !== undefined) excluded.add(r);
        }
        const rows = this.#scan.candidates(query, max, minSimilarity, excluded);
        if (rows !== null) return this.#nearestOf(query, max, minSimilarity, exclude, rows);
      }
    }
    return this.#nearestOf(query, max, minSimilarity, exclude, null);
  }

  /** The exact floating-point scan over `rows` (ascending; null: every term). */
  #nearestOf(query: Float32Array, max: number, minSimilarity: number, exclude: ReadonlySet<string>, rows: Uint32Array | null): { term: string; similarity: number }[] {
    const best: { term: string; similarity: number }[] = [];
    const d = this.dims;
    const v = this.vectors;
    // four accumulators let the dot product pipeline (2-3x faster than one running sum in V8)
    const d4 = d - (d % 4);
    const n = rows === null ? this.terms.length : rows.length;
    for (let k = 0; k < n; k++) {
      const r = rows === null ? k : rows[k]!;
      const o = r * d;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let j = 0; j < d4; j += 4) {
        s0 += query[j]! * v[o + j]!;
        s1 += query[j + 1]! * v[o + j + 1]!;
        s2 += query[j + 2]! * v[o + j + 2]!;
        s3 += query[j + 3]! * v[o + j + 3]!;
      }
      for (let j = d4; j < d; j++) s0 += query[j]! * v[o + j]!;
      const s = s0 + s1 + (s2 + s3);
      if (s < minSimilarity || (best.length === max && s <= best[max - 1]!.similarity)) continue;
      const term = this.terms[r]!;
      if (exclude.has(term)) continue;
      let i = best.length === max ? max - 1 : best.length;
      if (best.length < max) best.push({ term, similarity: s });
      while (i > 0 && best[i - 1]!.similarity < s) {
        best[i] = best[i - 1]!;
        i--;
      }
      best[i] = { term, similarity: s };
    }
    return best;
  }

  serialize(): Uint8Array {
    const header = new TextEncoder().encode(JSON.stringify({ magic: MAGIC_MODEL, kind: this.kind, dims: this.dims, terms: this.terms.length, trainedDocuments: this.trainedDocuments }));
    return container([header, new TextEncoder().encode(this.terms.join('\n')), u8(this.idf), u8(this.vectors), u8(this.centroids ?? new Float32Array(0))]);
  }

  static parse(bytes: Uint8Array): CorpusModel {
    const [header, termsText, idf, vectors, centroids] = uncontainer(bytes, 5);
    const h = JSON.parse(new TextDecoder().decode(header)) as { magic: string; kind: 'dense' | 'sparse'; dims: number; terms: number; trainedDocuments: number };
    if (h.magic !== MAGIC_MODEL) throw new Error('not a Lectern corpus model');
    const terms = h.terms === 0 ? [] : new TextDecoder().decode(termsText).split('\n');
    const v = asF32(vectors!);
    if (terms.length !== h.terms || v.length !== h.terms * h.dims) throw new Error('corpus model is truncated or corrupt');
    const c = asF32(centroids!);
    if (c.length % h.dims !== 0) throw new Error('corpus model is truncated or corrupt');
    return CorpusModel.build(h.kind, h.dims, terms, asF32(idf!), v, h.trainedDocuments, c.length > 0 ? c : null);
  }
}

/** Scales `v` to unit length in place; false when it is all zeros. */
export function normalize(v: Float32Array): boolean {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  if (!(n > 0)) return false;
  const inv = 1 / Math.sqrt(n);
  for (let i = 0; i < v.length; i++) v[i]! *= inv;
  return true;
}

// A container of byte sections: u32 count, u32 lengths, then each section padded to 8 bytes.
function container(parts: Uint8Array[]): Uint8Array {
  const head = 4 + 4 * parts.length;
  let size = (head + 7) & ~7;
  const offs: number[] = [];
  for (const p of parts) {
    offs.push(size);
    size += (p.byteLength + 7) & ~7;
  }
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, parts.length, true);
  parts.forEach((p, i) => {
    dv.setUint32(4 + 4 * i, p.byteLength, true);
    out.set(p, offs[i]!);
  });
  return out;
}

function uncontainer(bytes: Uint8Array, expect: number): Uint8Array[] {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = bytes.byteLength >= 4 ? dv.getUint32(0, true) : 0;
  if (n !== expect) throw new Error('unexpected model file layout');
  let o = (4 + 4 * n + 7) & ~7;
  const out: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const len = dv.getUint32(4 + 4 * i, true);
    if (o + len > bytes.byteLength) throw new Error('model file is truncated');
    out.push(bytes.subarray(o, o + len));
    o += (len + 7) & ~7;
  }
  return out;
}

const u8 = (a: Uint32Array | Float32Array): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
/** Typed views need aligned offsets: copy when the section is not 4-byte aligned in memory. */
const aligned = (b: Uint8Array): Uint8Array => ((b.byteOffset & 3) === 0 ? b : b.slice());
const asU32 = (b: Uint8Array): Uint32Array => {
  const a = aligned(b);
  return new Uint32Array(a.buffer, a.byteOffset, a.byteLength >>> 2);
};
const asF32 = (b: Uint8Array): Float32Array => {
  const a = aligned(b);
  return new Float32Array(a.buffer, a.byteOffset, a.byteLength >>> 2);
};
