// The engine indexes of the service (`documents` and `social`) and how they follow the document
// store. The store is the source of truth; each index commits the store's change sequence number as
// its checkpoint, so after a crash, a restart or an ingest by another process `catchUp()` applies
// exactly the changes it has not seen (inserts, updates, work-key relabels, deletes).
import { ANALYSIS_VERSION, IndexFormatError, SearchIndex, type IndexDocument, type IndexStats } from '../engine/index.js';
import { INDEX_NAMES, type IndexName, type StoredDocument } from '../domain/document.js';
import type { Clock } from '../ports/clock.js';
import type { DocumentChange } from '../ports/document-store.js';
import type { ChangeSource } from '../ports/shard-log.js';
import type { IndexDirectories } from '../ports/index-directories.js';
import type { IndexModels } from './corpus-models.js';
import type { SparseTextEncoder, TextEncoder } from '../ports/text-encoder.js';
import { corpusSparseModel, encoderSparseModel, type SparseModel } from './sparse-model.js';
import { corpusDenseModel, encoderDenseModel, type DenseModel } from './dense-model.js';
import type { BuiltVectors } from '../engine/index.js';
import type { MergedSegment, SegmentBuilder, WantedVectors } from './segment-builder.js';
import { encodeStoredDisplay } from './stored-display.js';


export interface CatchUpProgress {
  applied: number;
  /** Store sequence reached. */
  seq: number;
  /** Store sequence to reach. */
  target: number;
}

/** Changes applied between two commits during a long catch-up (bounds memory and crash replay). */
const COMMIT_EVERY = 20_000;
/** With `commit: 'due'`, buffered changes become searchable at least this often, ms. */
const COMMIT_INTERVAL_MS = 2_000;

export interface CatchUpOptions {
  onProgress?: (p: CatchUpProgress) => void;
  /**
   * `always` (default): commit before returning, so every change is searchable and durable.
   * `due`: commit only when COMMIT_EVERY changes or COMMIT_INTERVAL_MS have accumulated (bulk ingest:
   * fewer, larger segments). Uncommitted changes are never lost: the checkpoint stays behind them and
   * the next catch-up (or a restart) applies them again from the store.
   */
  commit?: 'always' | 'due';
}
const PAGE = 1_000;
/**
 * Changes applied between two turns of the event loop: analysing a document takes ~0.1 ms, so a
 * catch-up never holds the thread that answers requests for more than a few milliseconds at a time
 * (ADR 0111). Commits (building a segment) are still one slice each.
 */
const YIELD_EVERY = 32;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** With a segment builder: store changes read, built into one segment per index, and adopted at a time. */
const BUILD_PAGE = 5_000;
/**
 * With a segment builder: store changes read per call, with a turn of the event loop between calls, to
 * make up a BUILD_PAGE. Reading and decoding 5,000 documents at once held the main thread for tens of
 * milliseconds (ADR 0180).
 */
const READ_PAGE = 500;
/** Ids whose older versions are looked up and deleted per turn of the event loop when a page is adopted. */
const LOOKUP_PART = 500;

/**
 * The label each commit records: the store sequence and the engine's analysis version, `<seq>@a<version>`.
 * Labels of the first release were the bare sequence (analysis version 1).
 */
export function checkpointLabel(seq: number, analysis = ANALYSIS_VERSION): string {
  return `${seq}@a${analysis}`;
}

/** Reads a commit label; null for a label this code did not write. */
export function parseCheckpointLabel(label: string): { seq: number; analysis: number } | null {
  const m = /^(\d+)(?:@a(\d+))?$/.exec(label);
  return m ? { seq: Number(m[1]), analysis: m[2] === undefined ? 1 : Number(m[2]) } : null;
}

/** The engine's view of a stored document. */
export function toIndexDocument(doc: StoredDocument): IndexDocument {
  return {
    id: doc.id,
    title: doc.title,
    abstract: doc.abstract,
    body: doc.fullText,
    language: doc.language,
    type: doc.type,
    issuedAt: doc.issuedAt,
    publisher: doc.publisher,
    issns: doc.issns,
    uris: doc.uris,
    references: doc.references,
    workKey: doc.workKey,
    // what a hit shows of it, read back from the segments by the search threads (ADR 0280)
    stored: encodeStoredDisplay(doc),
  };
}

export class IndexSet {
  readonly #indexes: Map<IndexName, SearchIndex>;
  /** Catch-up runs one at a time, in call order; a run after the last change is a cheap no-op. */
  #queue: Promise<unknown> = Promise.resolve();
  /** Store sequence applied to the indexes (committed or buffered). */
  #applied = 0;
  #uncommitted = 0;
  #lastCommitMs = 0;

  private constructor(
    private readonly dirs: IndexDirectories,
    private readonly store: ChangeSource,
    private readonly clock: Clock,
    indexes: Map<IndexName, SearchIndex>,
  ) {
    this.#indexes = indexes;
    this.#applied = this.checkpoint();
    this.#lastCommitMs = clock.nowMs();
  }

  /**
   * Opens both indexes, taking their writer locks (throws when another process holds them: a running
   * server; the caller then leaves indexing to that process).
   */
  static open(dirs: IndexDirectories, store: ChangeSource, clock: Clock): IndexSet {
    const opened = new Map<IndexName, SearchIndex>();
    const stale: string[] = [];
    try {
      for (const name of INDEX_NAMES) {
        // An index in a file format this engine does not read, or built by another text analysis (its
        // tokens no longer match the queries), starts empty: the first catch-up re-indexes every
        // document from the store, the source of truth. Other failures (a held lock, I/O) propagate.
        let idx: SearchIndex | null = null;
        try {
          idx = SearchIndex.open(dirs.open(name), { defaultLanguage: 'en' });
        } catch (e) {
          if (!(e instanceof IndexFormatError)) throw e;
          stale.push(`the ${name} index is in another file format (${e.message})`);
        }
        const label = idx?.checkpoint ?? null;
        const parsed = label === null ? null : parseCheckpointLabel(label);
        if (idx && label !== null && (parsed === null || parsed.analysis !== ANALYSIS_VERSION)) {
          stale.push(`the ${name} index was built with text analysis ${parsed?.analysis ?? `'${label}'`}, this version uses ${ANALYSIS_VERSION}`);
          idx.close();
          idx = null;
        }
        if (!idx) {
          dirs.reset(name);
          idx = SearchIndex.open(dirs.open(name), { defaultLanguage: 'en' });
        }
        opened.set(name, idx);
      }
    } catch (e) {
      for (const idx of opened.values()) idx.close();
      throw e;
    }
    const set = new IndexSet(dirs, store, clock, opened);
    set.rebuildReason = stale.length > 0 ? stale.join('; ') : null;
    // One index reset means both restart from sequence 0 (the checkpoint is their minimum).
    return set;
  }

  /** Called after every change readers must see: a commit, a completed merge, new models (search threads: ADR 0110). */
  onChange: (() => void) | null = null;

  /**
   * Where catch-up builds segments (a builder thread: ADR 0111); null: documents are analysed and
   * segments built here, on the caller's thread.
   */
  builder: SegmentBuilder | null = null;

  /**
   * Where background merges run (a thread of their own: ADR 0180); null: in slices on the caller's
   * thread (mergeStep).
   */
  merger: SegmentBuilder | null = null;

  /** Why open() discarded an index to rebuild it from the store (analysis changed), else null. */
  rebuildReason: string | null = null;

  readonly #models = new Map<IndexName, IndexModels>();

  /**
   * Installs an index's corpus-trained models: the dense model gives every segment vectors (computed
   * now for committed segments that lack them, then at each flush and merge); the sparse model expands
   * queries. Returns the number of segments vectorized.
   */
  setModels(name: IndexName, models: IndexModels): number {
    this.#models.set(name, models);
    const n = this.get(name).setVectorModel(this.dense(name)?.vectorModel ?? null);
    this.onChange?.();
    return n;
  }

  #encoder: { encoder: TextEncoder; dense: DenseModel } | null = null;

  /**
   * Installs an operator-supplied encoder as the dense model of every index (null: back to the corpus
   * dense model). Segments without vectors under it wait for the vectorizer (encoder-vectorizer.ts);
   * vectors under another model stay on disk but are not searched.
   */
  setEncoder(encoder: TextEncoder | null): void {
    this.#encoder = encoder === null ? null : { encoder, dense: encoderDenseModel(encoder) };
    for (const name of INDEX_NAMES) this.get(name).setVectorModel(this.dense(name)?.vectorModel ?? null);
    this.onChange?.();
  }

  /** The operator-supplied encoder, when one is installed. */
  get encoder(): TextEncoder | null {
    return this.#encoder?.encoder ?? null;
  }

  #sparseEncoder: { encoder: SparseTextEncoder; sparse: SparseModel } | null = null;

  /** Installs an operator-supplied SPLADE-style model as the sparse model of every index (null: the corpus expansion). */
  setSparseEncoder(encoder: SparseTextEncoder | null): void {
    this.#sparseEncoder = encoder === null ? null : { encoder, sparse: encoderSparseModel(encoder) };
    // its document vectors (ADR 0109) are searched under its id; segments without them wait for the vectorizer
    for (const name of INDEX_NAMES) this.get(name).setImpactModel(encoder?.info.id ?? null);
    this.onChange?.();
  }

  /** The operator-supplied SPLADE-style encoder, when one is installed. */
  get sparseEncoder(): SparseTextEncoder | null {
    return this.#sparseEncoder?.encoder ?? null;
  }

  /** The sparse model of an index: the SPLADE encoder when configured, else the corpus expansion (or none). */
  sparse(name: IndexName): SparseModel | null {
    if (this.#sparseEncoder !== null) return this.#sparseEncoder.sparse;
    const m = this.#models.get(name)?.sparse ?? null;
    return m === null ? null : corpusSparseModel(m);
  }

  /** The dense model of an index: the encoder when configured, else the corpus-trained one (or none). */
  dense(name: IndexName): DenseModel | null {
    if (this.#encoder !== null) return this.#encoder.dense;
    const m = this.#models.get(name)?.dense ?? null;
    return m === null ? null : corpusDenseModel(m);
  }

  /** The models installed for an index (none: both null). */
  models(name: IndexName): IndexModels {
    return this.#models.get(name) ?? { dense: null, sparse: null, manifest: null };
  }

  get(name: IndexName): SearchIndex {
    const idx = this.#indexes.get(name);
    if (!idx) throw new Error(`no index ${name}`);
    return idx;
  }

  /** The lowest committed store sequence over both indexes (0 when never committed). */
  checkpoint(): number {
    let min = Infinity;
    for (const idx of this.#indexes.values()) min = Math.min(min, idx.checkpoint === null ? 0 : (parseCheckpointLabel(idx.checkpoint)?.seq ?? 0));
    return Number.isFinite(min) ? min : 0;
  }

  readonly #listeners: ((changes: readonly DocumentChange[]) => void)[] = [];

  /** Calls `listener` with every page of changes applied (the display record cache, ADR 0135). */
  onChanges(listener: (changes: readonly DocumentChange[]) => void): void {
    this.#listeners.push(listener);
  }

  /** Applies every store change newer than those applied (as of the call or later), then commits as asked. */
  catchUp(options: CatchUpOptions = {}): Promise<CatchUpProgress> {
    const run = this.#queue.then(() => this.#catchUp(options));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #catchUp({ onProgress, commit = 'always' }: CatchUpOptions): Promise<CatchUpProgress> {
    let seq = this.#applied;
    const target = await this.store.maxSeq();
    let applied = 0;
    while (seq < target) {
      const builder = this.builder;
      const page = builder ? await this.#readPage(seq, BUILD_PAGE) : await this.store.changesSince(seq, PAGE);
      if (page.length === 0) break;
      if (builder) {
        await this.#applyBuilt(page, builder);
        seq = page[page.length - 1]!.seq;
      } else for (let i = 0; i < page.length; i++) {
        const change = page[i]!;
        if (i > 0 && i % YIELD_EVERY === 0) await turn();
        if (change.deleted) {
          for (const idx of this.#indexes.values()) idx.delete(change.id);
        } else {
          for (const [name, idx] of this.#indexes) {
            if (name === change.doc.index) idx.add(toIndexDocument(change.doc));
            else idx.delete(change.doc.id);
          }
        }
        seq = change.seq;
      }
      for (const listener of this.#listeners) listener(page);
      applied += page.length;
      this.#applied = seq;
      this.#uncommitted += page.length;
      if (this.#uncommitted >= COMMIT_EVERY) this.#commit();
      onProgress?.({ applied, seq, target });
    }
    const due = this.#uncommitted >= COMMIT_EVERY || this.clock.nowMs() - this.#lastCommitMs >= COMMIT_INTERVAL_MS;
    if (this.#applied > this.checkpoint() && (commit === 'always' || due)) this.#commit();
    return { applied, seq, target };
  }

  /** Up to `max` changes after `seq`, read READ_PAGE at a time with the event loop free in between. */
  async #readPage(seq: number, max: number): Promise<DocumentChange[]> {
    const out: DocumentChange[] = [];
    while (out.length < max) {
      const want = Math.min(READ_PAGE, max - out.length);
      const part = await this.store.changesSince(seq, want);
      for (const c of part) out.push(c);
      if (part.length < want) break;
      seq = part[part.length - 1]!.seq;
      if (out.length < max) await turn();
    }
    return out;
  }

  /**
   * Applies a page of changes through the segment builder: the page's final version of each document
   * becomes one new segment per index (built on the builder's thread), deletions and moves to the other
   * index delete the older versions; the adoption itself analyses no text.
   */
  async #applyBuilt(page: readonly DocumentChange[], builder: SegmentBuilder): Promise<void> {
    const upserts = new Map<IndexName, Map<string, IndexDocument>>();
    const deletes = new Map<IndexName, Set<string>>();
    for (const name of this.#indexes.keys()) {
      upserts.set(name, new Map());
      deletes.set(name, new Set());
    }
    for (const change of page) {
      const target = change.deleted ? null : change.doc.index;
      const id = change.deleted ? change.id : change.doc.id;
      for (const name of this.#indexes.keys()) {
        if (name === target) upserts.get(name)!.set(id, toIndexDocument((change as { doc: StoredDocument }).doc));
        else {
          upserts.get(name)!.delete(id);
          deletes.get(name)!.add(id);
        }
      }
    }
    // the builder thread writes (and fsyncs) the segment under a name reserved here, so adopting it
    // does no file I/O on this thread (ADR 0180)
    const built = new Map<IndexName, { segments: Uint8Array[]; written: string | undefined; vectors?: BuiltVectors }>();
    try {
      for (const [name, docs] of upserts) {
        if (docs.size === 0) continue;
        const target = this.get(name).reserveSegmentName();
        built.set(name, { segments: [], written: target });
        const r = await builder.build([...docs.values()], { index: name, name: target }, this.#wantedVectors(name));
        built.set(name, { segments: r.segments, written: r.written ? target : undefined, ...(r.vectors ? { vectors: r.vectors } : {}) });
        if (!r.written) this.get(name).releaseSegmentName(target);
      }
    } catch (e) {
      for (const [name, b] of built) if (b.written !== undefined) this.get(name).releaseSegmentName(b.written);
      throw e;
    }
    // The older versions of the page's documents are deleted first, LOOKUP_PART ids per turn of the
    // event loop (looking an id up in the large segments costs ~5-10 us: 25-60 ms for a page at once);
    // all of it stays pending, invisible to searches, until the catch-up commits (ADR 0180).
    let n = 0;
    for (const [name, idx] of this.#indexes) {
      const ids = built.has(name) ? [...deletes.get(name)!, ...upserts.get(name)!.keys()] : [...deletes.get(name)!];
      for (const id of ids) {
        if (++n % LOOKUP_PART === 0) await turn();
        idx.delete(id);
      }
    }
    for (const [name, idx] of this.#indexes) {
      const b = built.get(name);
      if (b) for (const bytes of b.segments) idx.addSegment(bytes, b.written, b.vectors, true);
    }
  }

  /** The corpus dense model whose document vectors a thread computes with a segment (ADR 0180), if any. */
  #wantedVectors(name: IndexName): WantedVectors | undefined {
    const vm = this.dense(name)?.vectorModel ?? null;
    return vm !== null && vm.model !== null ? { id: vm.id, model: vm.model } : undefined;
  }

  #commit(): void {
    for (const idx of this.#indexes.values()) idx.commit(checkpointLabel(this.#applied));
    this.#uncommitted = 0;
    this.#lastCommitMs = this.clock.nowMs();
    this.onChange?.();
  }

  /** Drops both indexes and rebuilds them from the store. */
  async rebuild(onProgress?: (p: CatchUpProgress) => void): Promise<CatchUpProgress> {
    await this.#queue;
    for (const [name, old] of this.#indexes) {
      old.close();
      this.dirs.reset(name);
      const idx = SearchIndex.open(this.dirs.open(name), { defaultLanguage: 'en' });
      idx.setVectorModel(this.dense(name)?.vectorModel ?? null);
      idx.setImpactModel(this.#sparseEncoder?.encoder.info.id ?? null);
      this.#indexes.set(name, idx);
    }
    this.#applied = 0;
    this.#uncommitted = 0;
    return this.catchUp({ onProgress });
  }

  /**
   * Replaces both indexes by committed indexes installed from elsewhere (a peer's snapshot, ADR 0255):
   * after pending catch-ups, each index is closed, its directory emptied, `install(name)` puts the new
   * files in its place, and it is reopened. The set then continues from the installed checkpoint. An
   * installed index built by another text analysis, or one that does not open, leaves both indexes
   * empty (checkpoint 0) and rethrows.
   */
  async replace(install: (name: IndexName) => void): Promise<number> {
    await this.#queue;
    try {
      for (const [name, old] of this.#indexes) {
        old.close();
        this.dirs.reset(name);
        install(name);
        const idx = SearchIndex.open(this.dirs.open(name), { defaultLanguage: 'en' });
        this.#indexes.set(name, idx);
        idx.setVectorModel(this.dense(name)?.vectorModel ?? null);
        idx.setImpactModel(this.#sparseEncoder?.encoder.info.id ?? null);
        const label = idx.checkpoint;
        const parsed = label === null ? null : parseCheckpointLabel(label);
        if (label !== null && (parsed === null || parsed.analysis !== ANALYSIS_VERSION)) throw new IndexFormatError(`the installed ${name} index was built with text analysis ${parsed?.analysis ?? `'${label}'`}, this version uses ${ANALYSIS_VERSION}`);
      }
    } catch (e) {
      for (const [name, idx] of this.#indexes) {
        try {
          idx.close();
        } catch {
          // already closed
        }
        this.dirs.reset(name);
        this.#indexes.set(name, SearchIndex.open(this.dirs.open(name), { defaultLanguage: 'en' }));
      }
      this.#applied = 0;
      this.#uncommitted = 0;
      this.onChange?.();
      throw e;
    }
    this.#applied = this.checkpoint();
    this.#uncommitted = 0;
    this.#lastCommitMs = this.clock.nowMs();
    this.onChange?.();
    return this.#applied;
  }

  /**
   * One bounded step of background merging on each index (`maxWork` postings each; the engine's default
   * when absent): `merging` when a merge is still in progress, `merged` when one completed (another may
   * be due), `idle` when the merge policy has nothing to do.
   */
  mergeStep(maxWork?: number): 'idle' | 'merging' | 'merged' {
    let merged = false;
    let merging = false;
    for (const idx of this.#indexes.values()) {
      const r = idx.mergeStep(maxWork);
      if (r.state === 'merged') merged = true;
      if (r.state === 'merging') merging = true;
    }
    if (merged) this.onChange?.();
    return merging ? 'merging' : merged ? 'merged' : 'idle';
  }

  /**
   * Runs, on `merger`'s thread, the merge each index's policy wants now (one per index), and adopts the
   * outputs (ADR 0180): this thread only hands out the task (the inputs' bytes are shared, not copied)
   * and adopts the result, applying the deletions made meanwhile. `merged` when any merge completed
   * (another may be due), else `idle`.
   */
  async mergeOffThread(merger: SegmentBuilder): Promise<'idle' | 'merged'> {
    let merged = false;
    for (const [name, idx] of this.#indexes) {
      const task = idx.beginMerge();
      if (task === null) continue;
      let r: MergedSegment;
      try {
        r = await merger.merge(name, task, this.#wantedVectors(name));
      } catch (e) {
        idx.abandonMerge(task);
        throw e;
      }
      if (idx.finishMerge(task, r.out, r.written, r.vectors)) merged = true;
    }
    if (merged) this.onChange?.();
    return merged ? 'merged' : 'idle';
  }

  stats(): Record<IndexName, IndexStats> {
    return Object.fromEntries([...this.#indexes].map(([n, idx]) => [n, idx.stats()])) as Record<IndexName, IndexStats>;
  }

  close(): void {
    for (const idx of this.#indexes.values()) idx.close();
  }
}
