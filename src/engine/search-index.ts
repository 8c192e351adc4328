// The index object the host opens over an IndexDirectory: buffering adds and deletes, committing
// (segments + deletion files + manifest with the caller's checkpoint), searching a committed snapshot,
// incremental merging, stats and vocabulary services.
//
// Visibility: a search sees the state of the last commit (or completed merge), never buffered or
// flushed-but-uncommitted documents. Durability: see manifest handling in #commitManifest; after a
// crash, open() returns the last committed state and its checkpoint, and deletes leftover files.
import { IndexFormatError } from './index-format-error.js';
import { analyzerFor } from './analyzer.js';
import { DEFAULT_SCORING, makeNorms, type ScoringParams } from './bm25f.js';
import { explainDoc } from './explain.js';
import { scoreDocumentParts, type DocumentScoreParts } from './doc-scores.js';
import type { IndexDirectory, DirectoryLock } from './index-directory.js';
import { DEFAULT_PAIR_RULE, type PairRule } from './pair-postings.js';
import { DEFAULT_MERGE_POLICY, mergeSegments, selectMerge, type MergeOutput, type MergePolicy, type MergeTask } from './merge.js';
import { registerHit } from './hit-snippets.js';
import { leadPassage, PassageScorer, type scorePassages } from './passages.js';
import { parseQuery, type ParsedQuery } from './query-parser.js';
import { pruneQuery, type PrunedQuery } from './query-budget.js';
import { searchArena } from './postings-cursor.js';
import { proximityBonus } from './proximity.js';
import { buildPlan, countMatches, countWorks, rankDocuments, workCounter, type GlobalStats, type RawHit, type SnapshotSegment, type SearchPlan } from './searcher.js';
import { Segment, utf8 } from './segment.js';
import type { CorpusModel } from './corpus-model.js';
import { EXACT_MAX_VECTORS, searchVectors, SegmentVectors, type VectorSegment } from './doc-vectors.js';
import { searchImpacts, SegmentImpacts, type ImpactSegment, type SparseRow } from './doc-impacts.js';
import { DEFAULT_FLUSH_OCCURRENCES, SegmentBuffer } from './segment-buffer.js';
import { DEFAULT_CHAMPION_RULE, NF, type ChampionRule } from './segment-writer.js';
import { correctQuery, suggestTerm, type Suggestion } from './spelling.js';
import { normalizeLanguage } from './stemmers.js';
import type { CorpusStats, EngineHit, EngineQuery, EngineResult, EngineTrace, IndexDocument, RankingMode } from './types.js';

/** Options of {@link SearchIndex.open}. */
export interface SearchIndexOptions {
  /** Language for documents without one and queries without hints (ISO 639-1), default 'en'. */
  defaultLanguage?: string;
  /** BM25F parameters; default {@link DEFAULT_SCORING}. */
  scoring?: Partial<ScoringParams>;
  /** Buffered token occurrences that trigger a flush to a new segment, default 12,000,000 (~20k docs, ~300 MB). */
  flushOccurrences?: number;
  /** Merge policy overrides. */
  mergePolicy?: Partial<MergePolicy>;
  /** Default proximity bonus weight for queries (0..10), default {@link DEFAULT_PROXIMITY_WEIGHT}. */
  proximityWeight?: number;
  /** Which terms new segments (flushes and merges) keep pair postings for; default {@link DEFAULT_PAIR_RULE} (ADR 0175). */
  pairRule?: Partial<PairRule>;
  /** Which terms new segments keep champion lists for, and how long (ADR 0329); default DEFAULT_CHAMPION_RULE. */
  championRule?: Partial<ChampionRule>;
}

/** Default weight of the term-proximity re-ranking (see proximity.ts and docs/engine.md). */
export const DEFAULT_PROXIMITY_WEIGHT = 0;
/** Queries whose spelling corrections a SearchIndex keeps for its current snapshot. */
export const CORRECTIONS_KEPT = 4096;
/** Documents re-ranked by the proximity bonus (at least; more when offset + limit + 1 is larger). */
export const PROXIMITY_DEPTH = 100;

/** Index statistics. Byte counts cover the index files (stored records included: ADR 0280). */
export interface IndexStats {
  /** Live committed documents. */
  docs: number;
  /** Deleted documents still occupying committed segments (reclaimed by merges). */
  deletedDocs: number;
  segments: number;
  /** Documents added since the last commit (not yet searchable). */
  pendingDocs: number;
  checkpoint: string | null;
  generation: number;
  /** Bytes of committed segments by component. */
  /** `stored`: the stored fields (ADR 0280). */
  bytes: { postings: number; positions: number; dictionary: number; columns: number; passages: number; stored: number; deletions: number; total: number };
  merging: boolean;
}

/** Result of one {@link SearchIndex.mergeStep}. */
export interface MergeStepResult {
  /** `idle`: nothing to merge; `merging`: work remains; `merged`: a merge completed and was committed. */
  state: 'idle' | 'merging' | 'merged';
  /** Postings (and docs) processed in this step. */
  work: number;
}

interface SegEntry {
  name: string;
  seg: Segment;
  deleted: Uint32Array | null;
  deletedCount: number;
  delGen: number;
  /** Document vectors under the current vector model (null: none yet). */
  vectors: SegmentVectors | null;
  /** File holding `vectors`. */
  vecFile: string | null;
  /** Learned sparse document vectors under the current impact model (doc-impacts.ts), and their file. */
  impacts?: SegmentImpacts | null;
  impFile?: string | null;
}

interface ManifestSegment {
  name: string;
  docs: number;
  bytes: number;
  delGen: number;
  deleted: number;
  /** The segment's vector file (doc-vectors.ts), when vectors were computed. */
  vectors?: string;
  /** The segment's impact file (doc-impacts.ts), when a sparse model's vectors were attached. */
  impacts?: string;
}

/**
 * A model that gives documents dense vectors, with the host's id for it (its SHA-256): a corpus model
 * (vectors computed here from a segment's postings), or an external encoder (`model: null`, e.g. an
 * ONNX bi-encoder run by the host) whose vectors the host computes from the documents' text and
 * attaches per segment ({@link SearchIndex.attachVectors}); merges carry them.
 */
export type VectorModel = { id: string; model: CorpusModel } | { id: string; model: null; dims: number };

/**
 * Vectors of a segment computed elsewhere (a builder or merge thread: ADR 0180) under a corpus model:
 * the serialized vector file, and whether it was already written (atomically, durably) as
 * {@link vectorFileName} of the segment's reserved name.
 */
export interface BuiltVectors {
  modelId: string;
  bytes: Uint8Array;
  written: boolean;
}

/** The vector file (serialized) of a segment's documents under a corpus model, computed from its postings. */
export function computeVectorFile(segmentBytes: Uint8Array, model: CorpusModel, modelId: string): Uint8Array {
  return SegmentVectors.compute(new Segment('vectors', segmentBytes), model, modelId).serialize();
}

/** The file holding a segment's vectors under a model. */
export function vectorFileName(segment: string, modelId: string): string {
  return `${segment}.vec-${modelId.slice(0, 16)}`;
}

/** A committed segment whose live documents have no vectors under the current (external) model. */
export interface SegmentNeedingVectors {
  segment: string;
  /** Document number -> external id (null: deleted, needs no vector). */
  ids: (string | null)[];
}

/** Options of {@link SearchIndex.searchVectors}. */
export interface VectorQuery {
  /** Unit query vector (model dims). */
  vector: Float32Array;
  /**
   * `ivf` falls back to `exact` when the model has no coarse quantizer; `auto` is `exact` up to
   * EXACT_MAX_VECTORS eligible documents, else `binary` with a larger rescoring pool (ADR 0103).
   */
  method: 'exact' | 'binary' | 'ivf' | 'auto';
  /** IVF lists probed. */
  nprobe?: number;
  limit?: number;
  offset?: number;
  filters?: EngineQuery['filters'];
  collapseByWorkKey?: boolean;
  /** Passages per hit as snippet anchors (the lead passage), 0..10, default 3. */
  passagesPerHit?: number;
  /** Binary / auto at scale: candidates rescored with float vectors. */
  rescore?: number;
  /** `auto` at scale: the grading kernel (default `wasm` where it runs, ADR 0140; `js` for comparisons). */
  kernel?: 'wasm' | 'js';
  /** `auto`: the exact scan's limit (default EXACT_MAX_VECTORS; tests and benchmarks lower it). */
  exactMaxVectors?: number;
}

interface Manifest {
  format: 1;
  generation: number;
  checkpoint: string | null;
  nextSegment: number;
  segments: ManifestSegment[];
}

const MANIFEST = 'manifest.json';
const MAX_K = 500;
/** Most terms docFreq remembers per snapshot (~1 MiB at worst); beyond it the map starts afresh. */
const DF_CACHE_TERMS = 16_384;

interface MergeState {
  /** The sliced merge run by mergeStep; null: the merge runs elsewhere (beginMerge, ADR 0180). */
  gen: Generator<number, MergeOutput, void> | null;
  inputs: SegEntry[];
  /** The task handed out by beginMerge (null for mergeStep's merges). */
  task: MergeTask | null;
}

/**
 * Resolves `auto`: `passages` when the query restricts to explicit ids (in-document passage search),
 * otherwise `documents`.
 */
export function resolveRankingMode(q: Pick<EngineQuery, 'rankingMode' | 'filters'>): RankingMode {
  if (q.rankingMode === 'documents' || q.rankingMode === 'passages') return q.rankingMode;
  return q.filters?.ids != null && q.filters.ids.length > 0 ? 'passages' : 'documents';
}

function clampInt(v: number | undefined, lo: number, hi: number, dflt: number): number {
  if (v === undefined || v === null || !Number.isFinite(v)) return dflt;
  return Math.min(hi, Math.max(lo, Math.floor(v)));
}
function clampNum(v: number | undefined | null, lo: number, hi: number, dflt: number): number {
  if (v === undefined || v === null || !Number.isFinite(v)) return dflt;
  return Math.min(hi, Math.max(lo, v));
}

/** A full-text index over one directory. Not thread-safe; one writer per directory. */
export class SearchIndex {
  readonly #dir: IndexDirectory;
  readonly #lock: DirectoryLock | null;
  readonly #defaultLanguage: string;
  /** How many snapshots this index has published (snapshotGeneration). */
  #published = 0;
  readonly #params: ScoringParams;
  readonly #pairRule: PairRule;
  readonly #championRule: ChampionRule;
  readonly #flushOcc: number;
  readonly #policy: MergePolicy;
  readonly #proximity: number;
  #generation = 0;
  #checkpoint: string | null = null;
  #nextSegment = 1;
  #committed: SegEntry[] = [];
  #pendingSegs: SegEntry[] = [];
  readonly #pendingDeletes = new Map<string, Set<number>>();
  #buffer: SegmentBuffer;
  #snapshot: (VectorSegment & ImpactSegment)[] = [];
  /** docFreq's answers for the snapshot `#dfOf` (emptied when the snapshot changes or it fills up). */
  readonly #dfCache = new Map<string, number>();
  #dfOf: readonly unknown[] | null = null;
  /** Id of the external sparse (SPLADE) model whose document vectors are searched (null: none). */
  #impactModel: string | null = null;
  #vectorModel: VectorModel | null = null;
  #stats: GlobalStats = { docCount: 0, avgLen: [0, 0, 0] };
  #merge: MergeState | null = null;
  /**
   * Segment file names handed out for files another writer of this directory writes (a builder or
   * merge thread: ADR 0180): kept from garbage collection until adopted or released.
   */
  readonly #reserved = new Set<string>();
  #closed = false;

  private constructor(dir: IndexDirectory, options: SearchIndexOptions) {
    this.#dir = dir;
    this.#defaultLanguage = normalizeLanguage(options.defaultLanguage ?? 'en');
    const s = options.scoring ?? {};
    this.#params = {
      k1: s.k1 ?? DEFAULT_SCORING.k1,
      b: s.b ?? DEFAULT_SCORING.b,
      weights: s.weights ?? DEFAULT_SCORING.weights,
    };
    this.#flushOcc = options.flushOccurrences ?? DEFAULT_FLUSH_OCCURRENCES;
    this.#policy = { ...DEFAULT_MERGE_POLICY, ...(options.mergePolicy ?? {}) };
    this.#proximity = clampNum(options.proximityWeight, 0, 10, DEFAULT_PROXIMITY_WEIGHT);
    this.#pairRule = { ...DEFAULT_PAIR_RULE, ...(options.pairRule ?? {}) };
    this.#championRule = { ...DEFAULT_CHAMPION_RULE, ...(options.championRule ?? {}) };
    this.#buffer = new SegmentBuffer(this.#defaultLanguage);
    this.#lock = dir.lock ? dir.lock() : null;
  }

  /**
   * The checkpoint of the last commit in `dir` as its manifest says, read without opening the index or
   * taking its lock (another process may be its writer: `lectern ingest --wait`); null before the first
   * commit. The manifest is replaced atomically, so this sees one commit or the next.
   */
  static readCheckpoint(dir: IndexDirectory): string | null {
    const raw = dir.read(MANIFEST);
    return raw === null ? null : (JSON.parse(new TextDecoder().decode(raw)) as Manifest).checkpoint;
  }

  /**
   * Opens (or creates) the index in `dir`: reads the manifest, maps the committed segments and their
   * deletions, and removes files no commit references (leftovers of a crash).
   */
  static open(dir: IndexDirectory, options: SearchIndexOptions = {}): SearchIndex {
    const idx = new SearchIndex(dir, options);
    try {
      idx.#load();
    } catch (e) {
      idx.#lock?.release();
      throw e;
    }
    return idx;
  }

  #load(): void {
    const raw = this.#dir.read(MANIFEST);
    if (raw !== null) {
      const m = JSON.parse(new TextDecoder().decode(raw)) as Manifest;
      if (m.format !== 1) throw new IndexFormatError(`unsupported index manifest format ${String(m.format)}`);
      this.#generation = m.generation;
      this.#checkpoint = m.checkpoint;
      this.#nextSegment = m.nextSegment;
      for (const s of m.segments) {
        const bytes = this.#dir.read(s.name);
        if (bytes === null) throw new Error(`index corrupt: segment ${s.name} is missing`);
        if (bytes.byteLength !== s.bytes) throw new Error(`index corrupt: segment ${s.name} has ${bytes.byteLength} bytes, expected ${s.bytes}`);
        const seg = new Segment(s.name, bytes);
        let deleted: Uint32Array | null = null;
        if (s.delGen > 0) {
          const d = this.#dir.read(`${s.name}.del-${s.delGen}`);
          if (d === null) throw new Error(`index corrupt: deletions of ${s.name} are missing`);
          deleted = new Uint32Array(Math.ceil(seg.docCount / 32));
          new Uint8Array(deleted.buffer).set(d.subarray(0, deleted.byteLength));
        }
        let vectors: SegmentVectors | null = null;
        if (s.vectors !== undefined) {
          const v = this.#dir.read(s.vectors);
          if (v === null) throw new Error(`index corrupt: vectors of ${s.name} are missing`);
          vectors = SegmentVectors.parse(v);
        }
        let impacts: SegmentImpacts | null = null;
        if (s.impacts !== undefined) {
          const b = this.#dir.read(s.impacts);
          if (b === null) throw new Error(`index corrupt: impacts of ${s.name} are missing`);
          impacts = SegmentImpacts.parse(b);
        }
        this.#committed.push({ name: s.name, seg, deleted, deletedCount: s.deleted, delGen: s.delGen, vectors, vecFile: vectors ? s.vectors! : null, impacts, impFile: impacts ? s.impacts! : null });
      }
    }
    this.#publish();
    this.#collectGarbage();
  }

  #referenced(): Set<string> {
    const keep = new Set<string>([MANIFEST]);
    for (const e of this.#committed) {
      keep.add(e.name);
      if (e.delGen > 0) keep.add(`${e.name}.del-${e.delGen}`);
      if (e.vecFile !== null) keep.add(e.vecFile);
      if (e.impFile) keep.add(e.impFile);
    }
    for (const e of this.#pendingSegs) {
      keep.add(e.name);
      if (e.vecFile !== null) keep.add(e.vecFile);
      if (e.impFile) keep.add(e.impFile);
    }
    for (const name of this.#reserved) keep.add(name);
    return keep;
  }

  #collectGarbage(): void {
    const keep = this.#referenced();
    for (const f of this.#dir.list()) {
      if (keep.has(f)) continue;
      // a reserved segment's vector file, written by its thread before the segment is adopted
      if (this.#reserved.size > 0 && [...this.#reserved].some((r) => f.startsWith(`${r}.`))) continue;
      if (f.startsWith('seg-') || f.startsWith(MANIFEST)) this.#dir.delete(f);
    }
  }

  #publish(): void {
    // a new snapshot: statistics a coordinator took from the previous one no longer hold (ADR 0260)
    this.#published++;
    const modelId = this.#vectorModel?.id ?? null;
    this.#snapshot = this.#committed.map((e) => ({ seg: e.seg, deleted: e.deleted, deletedCount: e.deletedCount, vectors: e.vectors !== null && e.vectors.modelId === modelId ? e.vectors : null, impacts: e.impacts && e.impacts.modelId === this.#impactModel ? e.impacts : null }));
    let docs = 0;
    let all = 0;
    const totals = [0, 0, 0];
    for (const e of this.#committed) {
      docs += e.seg.docCount - e.deletedCount;
      all += e.seg.docCount;
      for (let f = 0; f < NF; f++) totals[f]! += e.seg.fieldTotals[f]!;
    }
    this.#stats = { docCount: docs, avgLen: totals.map((t) => (all > 0 ? t / all : 0)) };
    // the dense quantized path's fast-scan blocks (ADR 0140), once the vectors are more than the exact
    // scan takes: built here, when a snapshot gets the segment, not by the first search that needs them
    // (kept per segment: only new segments build)
    let vectorDocs = 0;
    for (const s of this.#snapshot) vectorDocs += s.vectors?.docs ?? 0;
    if (vectorDocs > EXACT_MAX_VECTORS) for (const s of this.#snapshot) s.vectors?.fastScan();
  }

  #check(): void {
    if (this.#closed) throw new Error('index is closed');
  }

  /** The checkpoint string of the last commit (null before the first). */
  get checkpoint(): string | null {
    return this.#checkpoint;
  }

  /** Adds a document, replacing any document with the same id (visible after the next commit). */
  add(doc: IndexDocument): void {
    this.#check();
    if (typeof doc.id !== 'string' || doc.id.length === 0) throw new TypeError('document id must be a non-empty string');
    this.#deleteInSegments(doc.id);
    this.#buffer.add(doc);
    if (this.#buffer.occurrences >= this.#flushOcc) this.#flush(true);
  }

  /**
   * Adds a segment built elsewhere (the single segment another SearchIndex over an empty directory
   * committed, e.g. on a builder thread: ADR 0111), replacing the documents with the same ids, as if
   * each had been add()ed. Visible after the next commit. The segment must come from this engine
   * version with this index's scoring parameters. `written`: a name from {@link reserveSegmentName} under
   * which the bytes were already written; `vectors`: its document vectors, computed elsewhere;
   * `idsDeleted`: the caller has already {@link delete}d every id of the segment (the host spreads those
   * lookups over several turns of its event loop: ADR 0180), so they are not looked up again.
   */
  addSegment(bytes: Uint8Array, written?: string, vectors?: BuiltVectors, idsDeleted = false): void {
    this.#check();
    // the file another writer wrote, read once: checked here (before any deletion) and opened below
    let file: Uint8Array | null = null;
    if (written !== undefined) {
      if (!this.#reserved.has(written)) throw new Error(`segment name ${written} was not reserved`);
      if (!this.#dir.adopt && (file = this.#dir.read(written)) === null) throw new Error(`segment ${written} was not written`);
    }
    if (!idsDeleted) {
      const incoming = new Segment('incoming', bytes);
      for (let d = 0; d < incoming.docCount; d++) {
        const id = incoming.ids.get(d);
        this.#buffer.remove(id);
        this.#deleteInSegments(id);
      }
    }
    let name: string;
    if (written === undefined) {
      name = this.#newSegmentName();
      this.#dir.write(name, bytes);
    } else {
      name = written;
      file = this.#adopt(name, bytes, file);
    }
    this.#pendingSegs.push(this.#withVectors({ name, seg: new Segment(name, file ?? this.#dir.read(name) ?? bytes), deleted: null, deletedCount: 0, delGen: 0, vectors: null, vecFile: null }, vectors));
  }

  /**
   * Reserves the file name of a new segment that another writer of this directory writes (a builder
   * thread writes and fsyncs the segment it built, so the writer does not: ADR 0180). The name is kept
   * from garbage collection until {@link addSegment} adopts the file or {@link releaseSegmentName}.
   */
  reserveSegmentName(): string {
    this.#check();
    const name = this.#newSegmentName();
    this.#reserved.add(name);
    return name;
  }

  /** Gives up a reserved name (the build failed or was not adopted) and deletes its file if written. */
  releaseSegmentName(name: string): void {
    if (!this.#reserved.delete(name) || this.#closed) return;
    this.#dir.delete(name);
    for (const f of this.#dir.list()) if (f.startsWith(`${name}.vec-`)) this.#dir.delete(f);
  }

  /**
   * Takes over a reserved file another writer wrote with `bytes` (atomic and durable). Returns the file as
   * read back from a directory without `adopt` (`file`: already read by the caller), so a segment is opened
   * on it without reading it again; null for a directory with `adopt`.
   */
  #adopt(name: string, bytes: Uint8Array, file: Uint8Array | null = null): Uint8Array | null {
    this.#reserved.delete(name);
    // (a vector file is kept by its segment's reservation, which the caller releases with it)
    if (this.#dir.adopt) {
      this.#dir.adopt(name, bytes);
      return null;
    }
    const read = file ?? this.#dir.read(name);
    if (read === null) throw new Error(`segment ${name} was not written`);
    return read;
  }

  /** Deletes a document by external id (effective at the next commit). Returns whether it existed. */
  delete(id: string): boolean {
    this.#check();
    const a = this.#buffer.remove(id);
    const b = this.#deleteInSegments(id);
    return a || b;
  }

  #deleteInSegments(id: string): boolean {
    if (this.#committed.length === 0 && this.#pendingSegs.length === 0) return false;
    const bytes = utf8(id);
    let found = false;
    for (const e of [...this.#committed, ...this.#pendingSegs]) {
      const d = e.seg.findId(bytes);
      if (d < 0) continue;
      if (e.deleted !== null && (e.deleted[d >>> 5]! & (1 << (d & 31))) !== 0) continue;
      let s = this.#pendingDeletes.get(e.name);
      if (!s) this.#pendingDeletes.set(e.name, (s = new Set()));
      if (!s.has(d)) {
        s.add(d);
        found = true;
      }
    }
    return found;
  }

  #newSegmentName(): string {
    return `seg-${String(this.#nextSegment++).padStart(6, '0')}.lsg`;
  }

  /**
   * Writes the buffer as a pending segment. `recycle` (a flush in the middle of an ingest) hands the
   * buffer's occurrence arrays (up to ~8 bytes per flushed occurrence) to the next buffer instead of
   * regrowing them; a commit's flush releases them, so an idle index does not keep them.
   */
  #flush(recycle = false): void {
    const bytes = this.#buffer.build({ w: this.#params.weights, b: this.#params.b, champions: this.#championRule }, this.#pairRule);
    this.#buffer = new SegmentBuffer(this.#defaultLanguage, recycle ? this.#buffer : undefined);
    if (bytes === null) return;
    const name = this.#newSegmentName();
    this.#dir.write(name, bytes);
    // the directory's copy (shared with search threads by some hosts: ADR 0110), so the bytes are held once
    this.#pendingSegs.push(this.#withVectors({ name, seg: new Segment(name, this.#dir.read(name) ?? bytes), deleted: null, deletedCount: 0, delGen: 0, vectors: null, vecFile: null }));
  }

  /**
   * Makes everything added or deleted so far durable and searchable, recording `checkpoint` (an opaque
   * caller string, e.g. the document store's sequence number). After a crash, `checkpoint` is the last
   * committed one. Returns the new generation.
   */
  commit(checkpoint: string): number {
    this.#check();
    this.#flush();
    const next: SegEntry[] = [];
    for (const e of [...this.#committed, ...this.#pendingSegs]) next.push(this.#applyDeletes(e, this.#generation + 1));
    this.#pendingDeletes.clear();
    this.#pendingSegs = [];
    this.#committed = next.filter((e) => e.deletedCount < e.seg.docCount);
    this.#checkpoint = checkpoint;
    this.#commitManifest();
    return this.#generation;
  }

  #applyDeletes(e: SegEntry, gen: number): SegEntry {
    const dels = this.#pendingDeletes.get(e.name);
    if (!dels || dels.size === 0) return e;
    const bitmap = new Uint32Array(Math.ceil(e.seg.docCount / 32));
    if (e.deleted) bitmap.set(e.deleted);
    let count = e.deletedCount;
    for (const d of dels) {
      const m = 1 << (d & 31);
      if ((bitmap[d >>> 5]! & m) === 0) {
        bitmap[d >>> 5]! |= m;
        count++;
      }
    }
    if (count < e.seg.docCount) this.#dir.write(`${e.name}.del-${gen}`, new Uint8Array(bitmap.buffer));
    return { ...e, deleted: bitmap, deletedCount: count, delGen: gen };
  }

  #commitManifest(): void {
    this.#generation++;
    const m: Manifest = {
      format: 1,
      generation: this.#generation,
      checkpoint: this.#checkpoint,
      nextSegment: this.#nextSegment,
      segments: this.#committed.map((e) => ({
        name: e.name,
        docs: e.seg.docCount,
        bytes: e.seg.file.bytes.byteLength,
        delGen: e.delGen,
        deleted: e.deletedCount,
        ...(e.vecFile !== null ? { vectors: e.vecFile } : {}),
        ...(e.impFile ? { impacts: e.impFile } : {}),
      })),
    };
    this.#dir.write(MANIFEST, new TextEncoder().encode(JSON.stringify(m)));
    this.#publish();
    this.#collectGarbage();
  }

  /**
   * Runs a bounded slice of background merging (call from a timer). Picks a merge by the tiered policy
   * when none runs; each call processes about `maxWork` postings (default 500,000, ~50-100 ms), and the
   * call that finishes a merge writes the new segment and commits it (same checkpoint).
   */
  mergeStep(maxWork = 500_000): MergeStepResult {
    this.#check();
    if (this.#merge === null) {
      const inputs = this.#pickMerge();
      if (inputs === null) return { state: 'idle', work: 0 };
      this.#startMerge(inputs, Math.max(1, Math.min(50_000, maxWork)));
    }
    let work = 0;
    const m = this.#merge!;
    // a merge handed out by beginMerge runs elsewhere: finishMerge adopts it
    if (m.gen === null) return { state: 'merging', work: 0 };
    while (work < maxWork) {
      const r = m.gen.next();
      if (r.done) {
        this.#finishMerge(m, r.value);
        return { state: 'merged', work };
      }
      work += r.value;
    }
    return { state: 'merging', work };
  }

  /** The committed segments the tiered policy wants merged now (mergeStep and beginMerge), or null. */
  #pickMerge(): SegEntry[] | null {
    const pick = selectMerge(
      this.#committed.map((e) => ({ docs: e.seg.docCount, deleted: e.deletedCount })),
      this.#policy,
    );
    return pick === null ? null : pick.map((i) => this.#committed[i]!);
  }

  #startMerge(inputs: SegEntry[], unit = 50_000): void {
    this.#merge = { gen: mergeSegments(inputs.map((e) => ({ seg: e.seg, deleted: e.deleted })), unit, { w: this.#params.weights, b: this.#params.b, champions: this.#championRule }, this.#pairRule), inputs, task: null };
  }

  /**
   * Starts the merge the policy wants now, to be run elsewhere (a merge thread: ADR 0180), or null when
   * there is nothing to merge or a merge is already in progress. The task holds the inputs' segment
   * bytes and their deletions now, and a reserved output name; run it with `runMerge` (on any thread),
   * write its bytes under `task.output` there (or not), and hand the output to {@link finishMerge}, or
   * call {@link abandonMerge} when it failed. Deletions and updates made while it runs are applied to
   * the merged segment when it is adopted, as with mergeStep.
   */
  beginMerge(): MergeTask | null {
    this.#check();
    if (this.#merge !== null) return null;
    const inputs = this.#pickMerge();
    if (inputs === null) return null;
    const task: MergeTask = {
      output: this.reserveSegmentName(),
      inputs: inputs.map((e) => ({ name: e.name, bytes: e.seg.file.bytes, deleted: e.deleted })),
      bound: { w: this.#params.weights, b: this.#params.b, champions: this.#championRule },
      pairs: this.#pairRule,
    };
    this.#merge = { gen: null, inputs, task };
    return task;
  }

  /**
   * Adopts the output of a task from {@link beginMerge}: `written` says its bytes were already written
   * (atomically, durably) under `task.output` by the thread that ran it; otherwise they are written
   * here. Carries the deletions made since the task began, commits (same checkpoint) and returns true;
   * returns false, changing nothing but deleting the task's file, when the task is no longer the merge
   * in progress (forceMerge took over, or the index was reopened).
   */
  finishMerge(task: MergeTask, out: MergeOutput, written: boolean, vectors?: BuiltVectors): boolean {
    if (this.#closed || this.#merge === null || this.#merge.task !== task) {
      this.releaseSegmentName(task.output);
      return false;
    }
    if (out.docMaps.length !== task.inputs.length || out.docMaps.some((m, i) => m.length !== this.#merge!.inputs[i]!.seg.docCount)) {
      this.abandonMerge(task);
      throw new Error('merge output does not match its task');
    }
    this.#finishMerge(this.#merge, out, task.output, written, vectors);
    return true;
  }

  /** Gives up a task from {@link beginMerge} (it failed): the policy may start it again later. */
  abandonMerge(task: MergeTask): void {
    if (this.#merge !== null && this.#merge.task === task) this.#merge = null;
    this.releaseSegmentName(task.output);
  }

  /** Merges all committed segments down to at most `maxSegments` (default 1), synchronously. */
  forceMerge(maxSegments = 1): void {
    this.#check();
    // a merge running elsewhere is left to finish in vain (finishMerge then returns false)
    if (this.#merge !== null && this.#merge.gen === null) this.#merge = null;
    if (this.#merge !== null) {
      for (;;) if (this.mergeStep(1e12).state !== 'merging') break;
    }
    while (this.#committed.length > Math.max(1, maxSegments)) {
      const order = this.#committed.map((e, i) => [e.seg.docCount, i] as const).sort((a, b) => a[0] - b[0]);
      const take = order.slice(0, this.#committed.length - Math.max(1, maxSegments) + 1).map((x) => x[1]).sort((a, b) => a - b);
      this.#startMerge(take.map((i) => this.#committed[i]!));
      for (;;) if (this.mergeStep(1e12).state !== 'merging') break;
    }
  }

  #finishMerge(m: MergeState, out: MergeOutput, reserved: string | null = null, written = false, vectors?: BuiltVectors): void {
    this.#merge = null;
    let entry: SegEntry | null = null;
    if (out.bytes === null && reserved !== null) this.releaseSegmentName(reserved);
    if (out.bytes !== null) {
      const name = reserved ?? this.#newSegmentName();
      let file: Uint8Array | null = null;
      if (written) file = this.#adopt(name, out.bytes);
      else {
        this.#dir.write(name, out.bytes);
        this.#reserved.delete(name);
      }
      entry = this.#withVectors({ name, seg: new Segment(name, file ?? this.#dir.read(name) ?? out.bytes), deleted: null, deletedCount: 0, delGen: 0, vectors: null, vecFile: null }, vectors);
      entry = this.#carryVectors(entry, m.inputs, out.docMaps);
      entry = this.#carryImpacts(entry, m.inputs, out.docMaps);
    }
    // carry deletions that happened to the inputs while merging (committed and pending)
    const carried: number[] = [];
    const pending = new Set<number>();
    m.inputs.forEach((input, s) => {
      const map = out.docMaps[s]!;
      const now = this.#committed.find((e) => e.name === input.name);
      for (let d = 0; d < map.length; d++) {
        const nd = map[d]!;
        if (nd < 0) continue;
        const deletedNow = now === undefined || (now.deleted !== null && (now.deleted[d >>> 5]! & (1 << (d & 31))) !== 0);
        if (deletedNow) carried.push(nd);
      }
      const p = this.#pendingDeletes.get(input.name);
      if (p) for (const d of p) if (map[d]! >= 0) pending.add(map[d]!);
      this.#pendingDeletes.delete(input.name);
    });
    const inputNames = new Set(m.inputs.map((e) => e.name));
    const firstIdx = this.#committed.findIndex((e) => inputNames.has(e.name));
    const rest = this.#committed.filter((e) => !inputNames.has(e.name));
    if (entry !== null) {
      if (carried.length > 0) {
        this.#pendingDeletes.set(entry.name, new Set(carried));
        entry = this.#applyDeletes(entry, this.#generation + 1);
        this.#pendingDeletes.delete(entry.name);
      }
      if (pending.size > 0) this.#pendingDeletes.set(entry.name, pending);
      const at = firstIdx < 0 ? rest.length : Math.min(firstIdx, rest.length);
      rest.splice(at, 0, entry);
    }
    this.#committed = rest.filter((e) => e.deletedCount < e.seg.docCount);
    this.#commitManifest();
  }

  /**
   * The entry with vectors under the current model: reused when it has them, else computed from the
   * segment's postings and written (before any manifest names the file). Unchanged without a model.
   */
  #withVectors(e: SegEntry, built?: BuiltVectors): SegEntry {
    const vm = this.#vectorModel;
    if (vm === null || vm.model === null || (e.vectors !== null && e.vectors.modelId === vm.id)) {
      if (built?.written) this.#dir.delete(vectorFileName(e.name, built.modelId));
      return e;
    }
    // computed elsewhere (a builder or merge thread: ADR 0180) under the current model: adopted as is
    if (built !== undefined && built.modelId === vm.id) {
      const vectors = SegmentVectors.parse(built.bytes);
      if (vectors.modelId === vm.id && vectors.docs === e.seg.docCount && vectors.dims === vm.model.dims) {
        const vecFile = vectorFileName(e.name, vm.id);
        if (built.written) this.#adopt(vecFile, built.bytes);
        else this.#dir.write(vecFile, built.bytes);
        return { ...e, vectors, vecFile };
      }
    }
    if (built?.written) this.#dir.delete(vectorFileName(e.name, built.modelId));
    return this.#writeVectors(e, SegmentVectors.compute(e.seg, vm.model, vm.id));
  }

  /** Writes `vectors` as the entry's vector file (before any manifest names it). */
  #writeVectors(e: SegEntry, vectors: SegmentVectors): SegEntry {
    const vecFile = vectorFileName(e.name, vectors.modelId);
    this.#dir.write(vecFile, vectors.serialize());
    return { ...e, vectors, vecFile };
  }

  /**
   * External model: the merged segment's impacts re-mapped from its inputs' (current) impacts, when
   * every input has them under the model; otherwise it waits for the host.
   */
  #carryImpacts(e: SegEntry, inputs: readonly SegEntry[], docMaps: readonly Int32Array[]): SegEntry {
    const id = this.#impactModel;
    if (id === null) return e;
    const current = inputs.map((x) => this.#committed.find((c) => c.name === x.name)?.impacts ?? x.impacts ?? null);
    if (current.some((v) => v === null || v.modelId !== id)) return e;
    return this.#writeImpacts(e, SegmentImpacts.merged(id, e.seg.docCount, current as SegmentImpacts[], docMaps));
  }

  #writeImpacts(e: SegEntry, impacts: SegmentImpacts): SegEntry {
    const impFile = `${e.name}.imp-${impacts.modelId.slice(0, 16)}`;
    this.#dir.write(impFile, impacts.serialize());
    return { ...e, impacts, impFile };
  }

  /**
   * Sets the external sparse (SPLADE-style) model whose document vectors are searched by
   * {@link searchImpacts} (null: none). Impacts under another model stay on disk but are not searched.
   */
  setImpactModel(id: string | null): void {
    this.#check();
    this.#impactModel = id;
    this.#publish();
  }

  /** Committed segments whose live documents have no impacts under the current sparse model. */
  segmentsNeedingImpacts(): SegmentNeedingVectors[] {
    const id = this.#impactModel;
    if (id === null) return [];
    const out: SegmentNeedingVectors[] = [];
    for (const e of this.#committed) {
      if (e.impacts && e.impacts.modelId === id) continue;
      const ids: (string | null)[] = [];
      for (let d = 0; d < e.seg.docCount; d++) ids.push(e.deleted !== null && (e.deleted[d >>> 5]! & (1 << (d & 31))) !== 0 ? null : e.seg.id(d));
      out.push({ segment: e.name, ids });
    }
    return out;
  }

  /** Attaches a sparse model's document vectors to a committed segment (like {@link attachVectors}). */
  attachImpacts(segment: string, impacts: SegmentImpacts): boolean {
    this.#check();
    const id = this.#impactModel;
    if (id === null || impacts.modelId !== id) return false;
    const i = this.#committed.findIndex((e) => e.name === segment);
    if (i < 0) return false;
    const e = this.#committed[i]!;
    if (impacts.docs !== e.seg.docCount || (e.impacts && e.impacts.modelId === id)) return false;
    this.#committed = this.#committed.map((x, j) => (j === i ? this.#writeImpacts(x, impacts) : x));
    this.#commitManifest();
    return true;
  }

  /** How many committed segments/documents have impacts under the current sparse model. */
  impactStatus(): { modelId: string | null; segments: number; segmentsWithImpacts: number; documentsWithImpacts: number } {
    let withI = 0;
    let docs = 0;
    for (const s of this.#snapshot) {
      if (s.impacts === null) continue;
      withI++;
      for (let d = 0; d < s.impacts.docs; d++) if (s.impacts.present[d] === 1 && !(s.deleted !== null && (s.deleted[d >>> 5]! & (1 << (d & 31))) !== 0)) docs++;
    }
    return { modelId: this.#impactModel, segments: this.#snapshot.length, segmentsWithImpacts: withI, documentsWithImpacts: docs };
  }

  /**
   * Learned sparse retrieval over the committed documents' impacts (doc-impacts.ts): the SPLADE dot
   * product with `query` (token ids and weights of the current sparse model). Segments without impacts
   * are counted, not searched.
   */
  searchImpacts(q: { query: SparseRow; limit?: number; filters?: EngineQuery['filters']; collapseByWorkKey?: boolean; passagesPerHit?: number; heapFactor?: number }): EngineResult & { scored: number; missingSegments: number; tokensRead: number; tokensPruned: number } {
    this.#check();
    const limit = clampInt(q.limit, 1, MAX_K, 10);
    const segments = this.#snapshot;
    let k = limit + 1;
    const run = () => searchImpacts(segments, q.query, { k, filters: q.filters ?? undefined, ...(q.heapFactor !== undefined ? { heapFactor: q.heapFactor } : {}) });
    let outcome = run();
    let ranked = outcome.hits;
    if (q.collapseByWorkKey) {
      ranked = collapse(segments, ranked);
      while (ranked.length < limit + 1 && outcome.hits.length >= k && k < 100_000) {
        k *= 4;
        outcome = run();
        ranked = collapse(segments, outcome.hits);
      }
    }
    const perHit = clampInt(q.passagesPerHit, 0, 10, 3);
    const hits: EngineHit[] = ranked.slice(0, limit).map((h) => {
      const seg = segments[h.si]!.seg;
      const lead = perHit > 0 ? leadPassage(seg, h.doc) : null;
      return { id: h.id, score: h.score, passages: lead ? [lead] : [], workKey: seg.workKey(h.doc) };
    });
    return { hits, totalHits: Math.max(outcome.scored, hits.length), totalHitsExact: q.heapFactor === undefined || q.heapFactor >= 1, hasMore: ranked.length > limit, rankingMode: 'documents', scored: outcome.scored, missingSegments: outcome.missingSegments, tokensRead: outcome.tokensRead, tokensPruned: outcome.tokensPruned };
  }

  /**
   * This thread's dense kernel memory over the current snapshot (benchmarks): the fast-scan memories
   * (codes, grades and the 8-bit rows of ADR 0314) and, of them, the 8-bit rows with their scales.
   */
  snapshotVectorMemory(): { docs: number; fast_scan_bytes: number; int8_bytes: number } {
    let docs = 0;
    let fast = 0;
    let int8 = 0;
    for (const s of this.#snapshot) {
      const f = s.vectors?.fastScan() ?? null;
      if (f === null) continue;
      docs += f.docs;
      fast += f.memoryBytes;
      int8 += f.int8Bytes;
    }
    return { docs, fast_scan_bytes: fast, int8_bytes: int8 };
  }

  #vectorDims(): number {
    const vm = this.#vectorModel;
    return vm === null ? 0 : vm.model === null ? vm.dims : vm.model.dims;
  }

  /**
   * External model: the committed segments whose live documents have no vectors under it yet (the
   * host encodes their documents' text and calls {@link attachVectors}). Empty for a corpus model.
   */
  segmentsNeedingVectors(): SegmentNeedingVectors[] {
    const vm = this.#vectorModel;
    if (vm === null || vm.model !== null) return [];
    const out: SegmentNeedingVectors[] = [];
    for (const e of this.#committed) {
      if (e.vectors !== null && e.vectors.modelId === vm.id) continue;
      const ids: (string | null)[] = [];
      for (let d = 0; d < e.seg.docCount; d++) ids.push(e.deleted !== null && (e.deleted[d >>> 5]! & (1 << (d & 31))) !== 0 ? null : e.seg.id(d));
      out.push({ segment: e.name, ids });
    }
    return out;
  }

  /**
   * Attaches vectors computed by the host under the current external model to a committed segment:
   * writes the vector file (atomic, durable), then commits a manifest generation naming it (same
   * checkpoint). Returns false, changing nothing, when the segment is gone (merged away), already has
   * vectors under this model, or the vectors are for another model or size.
   */
  attachVectors(segment: string, vectors: SegmentVectors): boolean {
    this.#check();
    const vm = this.#vectorModel;
    if (vm === null || vm.model !== null || vectors.modelId !== vm.id || vectors.dims !== vm.dims) return false;
    const i = this.#committed.findIndex((e) => e.name === segment);
    if (i < 0) return false;
    const e = this.#committed[i]!;
    if (vectors.docs !== e.seg.docCount || (e.vectors !== null && e.vectors.modelId === vm.id)) return false;
    this.#committed = this.#committed.map((x, j) => (j === i ? this.#writeVectors(x, vectors) : x));
    this.#commitManifest();
    return true;
  }

  /**
   * External model: the merged segment's vectors copied row by row from its inputs' (current) vectors,
   * when every input has them under the model; otherwise the entry stays without (the host re-encodes).
   */
  #carryVectors(e: SegEntry, inputs: readonly SegEntry[], docMaps: readonly Int32Array[]): SegEntry {
    const vm = this.#vectorModel;
    if (vm === null || vm.model !== null) return e;
    const current = inputs.map((x) => this.#committed.find((c) => c.name === x.name)?.vectors ?? x.vectors);
    if (current.some((v) => v === null || v.modelId !== vm.id || v.dims !== vm.dims)) return e;
    const n = e.seg.docCount;
    const dims = vm.dims;
    const words = dims >>> 5;
    const vecs = new Float32Array(n * dims);
    const codes = new Uint32Array(n * words);
    const present = new Uint8Array(n);
    current.forEach((v, s) => {
      const map = docMaps[s]!;
      for (let d = 0; d < map.length; d++) {
        const nd = map[d]!;
        if (nd < 0 || v!.present[d] === 0) continue;
        vecs.set(v!.vecs.subarray(d * dims, (d + 1) * dims), nd * dims);
        codes.set(v!.codes.subarray(d * words, (d + 1) * words), nd * words);
        present[nd] = 1;
      }
    });
    return this.#writeVectors(e, new SegmentVectors(vm.id, dims, n, vecs, codes, present));
  }

  /**
   * Sets the model that gives documents vectors (null: none). An external model (`model: null`) computes
   * nothing here: its segments wait for {@link attachVectors}. Under a corpus model, committed segments
   * without vectors under this model get them now (computed from their postings, written, and committed with a new manifest
   * generation and the same checkpoint); later flushes and merges compute them as they write segments.
   * Returns the number of segments vectorized.
   */
  setVectorModel(vm: VectorModel | null): number {
    this.#check();
    this.#vectorModel = vm;
    let computed = 0;
    if (vm !== null) {
      const before = this.#committed;
      this.#committed = before.map((e) => this.#withVectors(e));
      this.#pendingSegs = this.#pendingSegs.map((e) => this.#withVectors(e));
      computed = this.#committed.filter((e, i) => e !== before[i]).length;
      // a merge in flight started from the old entries: its output is vectorized when it finishes
      if (computed > 0) {
        this.#commitManifest();
        return computed;
      }
    }
    this.#publish();
    return computed;
  }

  /** The current vector model's id and how many committed segments/documents have vectors under it. */
  vectorStatus(): { modelId: string | null; dims: number; segments: number; segmentsWithVectors: number; documents: number; documentsWithVectors: number } {
    let withV = 0;
    let docs = 0;
    let live = 0;
    for (const s of this.#snapshot) live += s.seg.docCount - s.deletedCount;
    for (const s of this.#snapshot) {
      if (s.vectors === null) continue;
      withV++;
      for (let d = 0; d < s.vectors.docs; d++) if (s.vectors.present[d] === 1 && !(s.deleted !== null && (s.deleted[d >>> 5]! & (1 << (d & 31))) !== 0)) docs++;
    }
    return { modelId: this.#vectorModel?.id ?? null, dims: this.#vectorDims(), segments: this.#snapshot.length, segmentsWithVectors: withV, documents: live, documentsWithVectors: docs };
  }

  /** The stored vector of a live document (a copy), or null (unknown id, no model, or no known terms). */
  documentVector(id: string): Float32Array | null {
    const bytes = utf8(id);
    for (const s of this.#snapshot) {
      const d = s.seg.findId(bytes);
      if (d < 0 || (s.deleted !== null && (s.deleted[d >>> 5]! & (1 << (d & 31))) !== 0)) continue;
      if (s.vectors === null || s.vectors.present[d] === 0) return null;
      return s.vectors.vecs.slice(d * s.vectors.dims, (d + 1) * s.vectors.dims);
    }
    return null;
  }

  /**
   * The stored records (IndexDocument.stored, ADR 0280) of the committed live documents among `ids`,
   * each a copy: ids unknown, deleted or stored without a record are absent. Reads only the segments'
   * bytes (one block inflated per record at most).
   */
  stored(ids: readonly string[]): Map<string, Uint8Array> {
    const out = new Map<string, Uint8Array>();
    const snapshot = this.#snapshot;
    for (const id of ids) {
      if (out.has(id)) continue;
      const bytes = utf8(id);
      for (const s of snapshot) {
        const d = s.seg.findId(bytes);
        if (d < 0 || (s.deleted !== null && (s.deleted[d >>> 5]! & (1 << (d & 31))) !== 0)) continue;
        const r = s.seg.stored.get(d);
        if (r !== null) out.set(id, r.slice());
        break;
      }
    }
    return out;
  }

  /** Whether a live document with this id is committed. */
  has(id: string): boolean {
    const bytes = utf8(id);
    return this.#snapshot.some((s) => {
      const d = s.seg.findId(bytes);
      return d >= 0 && !(s.deleted !== null && (s.deleted[d >>> 5]! & (1 << (d & 31))) !== 0);
    });
  }

  /**
   * Dense retrieval over the committed documents' vectors (see doc-vectors.ts): `exact` (float scan) or
   * `binary` (Hamming over sign codes, float rescoring). Scores are cosine similarities. Segments without
   * vectors under the current model are counted in the trace notes.
   */
  searchVectors(q: VectorQuery): EngineResult & { scanned: number; missingSegments: number; method: 'exact' | 'binary' | 'ivf' | 'quantized'; rescored: number; kernel?: 'wasm' | 'js'; floatRescored?: number } {
    this.#check();
    const limit = clampInt(q.limit, 1, MAX_K, 10);
    const offset = clampInt(q.offset, 0, MAX_K - 1, 0);
    if (offset + limit > MAX_K) throw new RangeError('offset + limit must not exceed 500');
    const dims = this.#vectorDims();
    if (q.vector.length !== dims) throw new RangeError(`query vector has ${q.vector.length} dimensions; the index's vectors have ${dims}`);
    const segments = this.#snapshot;
    const need = offset + limit + 1;
    let k = need;
    const centroids = this.#vectorModel?.model?.centroids ?? null;
    const method = q.method === 'ivf' && centroids === null ? 'exact' : q.method;
    const vopts = { filters: q.filters ?? undefined, method, centroids, ...(q.nprobe !== undefined ? { nprobe: q.nprobe } : {}), ...(q.rescore !== undefined ? { rescore: q.rescore } : {}), ...(q.exactMaxVectors !== undefined ? { exactMaxVectors: q.exactMaxVectors } : {}), ...(q.kernel !== undefined ? { kernel: q.kernel } : {}) };
    let outcome = searchVectors(segments, q.vector, { k, ...vopts });
    let ranked = outcome.hits;
    if (q.collapseByWorkKey) {
      ranked = collapse(segments, ranked);
      while (ranked.length < need && outcome.hits.length >= k && k < 100_000) {
        k *= 4;
        outcome = searchVectors(segments, q.vector, { k, ...vopts });
        ranked = collapse(segments, outcome.hits);
      }
    }
    const perHit = clampInt(q.passagesPerHit, 0, 10, 3);
    const page = ranked.slice(offset, offset + limit);
    const hits: EngineHit[] = page.map((h) => {
      const seg = segments[h.si]!.seg;
      const lead = perHit > 0 ? leadPassage(seg, h.doc) : null;
      const hit: EngineHit = { id: h.id, score: h.score, passages: lead ? [lead] : [], workKey: seg.workKey(h.doc) };
      registerHit(hit, seg, h.doc, this.#docLanguage(seg, h.doc));
      return hit;
    });
    const hasMore = ranked.length > offset + limit;
    return {
      hits,
      totalHits: Math.max(outcome.scanned, offset + hits.length + (hasMore ? 1 : 0)),
      totalHitsExact: true,
      hasMore,
      rankingMode: 'documents',
      scanned: outcome.scanned,
      missingSegments: outcome.missingSegments,
      method: outcome.method,
      rescored: outcome.rescored,
      ...(outcome.kernel !== undefined ? { kernel: outcome.kernel } : {}),
      ...(outcome.floatRescored !== undefined ? { floatRescored: outcome.floatRescored } : {}),
    };
  }

  /** The analysis language of doc `d` of `seg` (the index default when the document named none). */
  #docLanguage(seg: Segment, d: number): string {
    const l = seg.langOrd[d]!;
    return l === 0 ? this.#defaultLanguage : seg.langDict.get(l - 1);
  }

  /** Index-wide document frequency of an index term. */
  docFreq(term: string): number {
    // per snapshot (a snapshot's segments never change): the work budget looks up every query term on
    // the main thread before the search (issue 29, ADR 0371); common words repeat across queries
    if (this.#dfOf !== this.#snapshot) {
      this.#dfOf = this.#snapshot;
      this.#dfCache.clear();
    }
    const known = this.#dfCache.get(term);
    if (known !== undefined) return known;
    const b = utf8(term);
    let df = 0;
    for (const s of this.#snapshot) {
      const t = s.seg.findTerm(b);
      if (t >= 0) df += s.seg.df(t);
    }
    if (this.#dfCache.size >= DF_CACHE_TERMS) this.#dfCache.clear();
    this.#dfCache.set(term, df);
    return df;
  }

  /** Parses query text the way search does (for snippets: pass the result to buildSnippet). */
  parse(text: string, possibleLanguages?: string[] | null): ParsedQuery {
    return parseQuery(text, possibleLanguages, this.#defaultLanguage);
  }

  /**
   * The lexical parts of the scores of documents `ids` for a query (ranking features, ADR 0139): per-field
   * BM25, BM25F at the index's field weights, phrase bonus (at `phraseBoost`, default 1) and proximity
   * bonus (weight 1), in one visit of each document's postings. Unknown and deleted ids are absent.
   */
  scoreParts(q: Pick<EngineQuery, 'text' | 'possibleLanguages' | 'phraseBoost' | 'globalStats'>, ids: readonly string[]): Map<string, DocumentScoreParts> {
    this.#check();
    const out = new Map<string, DocumentScoreParts>();
    const parsed = parseQuery(q.text ?? '', q.possibleLanguages, this.#defaultLanguage);
    if (ids.length === 0 || (parsed.words.length === 0 && parsed.phrases.length === 0)) return out;
    searchArena.reset();
    const segments = this.#snapshot;
    // a shard scores its candidates with the corpus's statistics (ranking features on a cluster, ADR 0248)
    const stats = q.globalStats ? statsOf(q.globalStats) : this.#stats;
    const norms = makeNorms(this.#params, undefined, stats.avgLen);
    const plan = buildPlan(segments, stats, parsed, this.#params, norms, { phraseBoost: clampNum(q.phraseBoost, 0, 10, 1), lexicalWeight: 1, filters: undefined, ...(q.globalStats ? { df: q.globalStats.df } : {}) });
    const keys = ids.map((id) => utf8(id));
    segments.forEach((e, si) => {
      const docs: number[] = [];
      const idOf = new Map<number, string>();
      keys.forEach((k, i) => {
        const d = e.seg.findId(k);
        if (d < 0 || (e.deleted !== null && (e.deleted[d >>> 5]! & (1 << (d & 31))) !== 0)) return;
        docs.push(d);
        idOf.set(d, ids[i]!);
      });
      if (docs.length === 0) return;
      docs.sort((a, b) => a - b);
      scoreDocumentParts(e.seg, si, plan, docs, (d, parts) => out.set(idOf.get(d)!, parts));
    });
    return out;
  }

  /**
   * This index's share of the statistics a query is scored with (the DFS phase of a sharded search,
   * ADR 0201): live and segment document counts, field token totals, and the document frequency of every
   * index term the query analyses to (with `expansion`'s terms). Summed over shards (`sumCorpusStats`)
   * and passed back as `globalStats`, they make every shard score as one index over the union would.
   */
  queryStats(q: Pick<EngineQuery, 'text' | 'possibleLanguages' | 'expansion'>): CorpusStats {
    this.#check();
    const df: Record<string, number> = Object.create(null) as Record<string, number>;
    for (const t of queryStatsTerms(q, this.#defaultLanguage)) df[t] = this.docFreq(t);
    let segmentDocs = 0;
    const totals: [number, number, number] = [0, 0, 0];
    for (const e of this.#snapshot) {
      segmentDocs += e.seg.docCount;
      for (let f = 0; f < NF; f++) totals[f]! += e.seg.fieldTotals[f]!;
    }
    return { docCount: this.#stats.docCount, segmentDocs, fieldTotals: totals, df };
  }

  /** Runs a search over the last committed state. Synchronous. */
  search(q: EngineQuery): EngineResult {
    this.#check();
    const now = typeof q.trace === 'object' && q.trace !== null ? q.trace.now : undefined;
    const tStart = now?.();
    const limit = clampInt(q.limit, 1, MAX_K, 10);
    const offset = clampInt(q.offset, 0, MAX_K - 1, 0);
    if (offset + limit > MAX_K) throw new RangeError('offset + limit must not exceed 500');
    const mode = resolveRankingMode(q);
    let ownWords = parseQuery(q.text ?? '', q.possibleLanguages, this.#defaultLanguage);
    // a long query is evaluated pruned, never refused (ADR 0231): its most common words are left out
    let pruning: PrunedQuery | null = null;
    if (q.budget) {
      // a shard prunes by the corpus's document frequencies (the DFS phase), so every shard leaves out the same words
      const p = pruneQuery(ownWords, (t) => (q.globalStats ? (q.globalStats.df[t] ?? 0) : this.docFreq(t)), q.budget);
      if (p.dropped.length > 0) {
        pruning = p;
        ownWords = p.parsed;
      }
    }
    const parsed = withExpansion(ownWords, q.expansion);
    const tParsed = now?.();
    searchArena.reset(); // cursors of earlier searches are dead; reuse their buffers
    const segments = this.#snapshot;
    const stats = q.globalStats ? statsOf(q.globalStats) : this.#stats;
    const norms = makeNorms(this.#params, q.fieldWeights, stats.avgLen);
    const plan = buildPlan(segments, stats, parsed, this.#params, norms, {
      phraseBoost: clampNum(q.phraseBoost, 0, 10, 1),
      lexicalWeight: clampNum(q.lexicalWeight, 0, 10, 1),
      filters: q.filters ?? undefined,
      pairs: q.phrasePairs !== false,
      champions: q.champions !== false,
      ...(q.globalStats ? { df: q.globalStats.df } : {}),
    });
    const heapFactor = clampNum(q.heapFactor, 0.05, 1, 1);
    if (heapFactor < 1) plan.thetaScale = 1 / heapFactor;
    // the per-hit work (passages, MaxP, proximity) reads at most maxPassageTerms clauses, the weightiest
    const passageCap = q.maxPassageTerms !== undefined && Number.isFinite(q.maxPassageTerms) ? Math.max(1, Math.floor(q.maxPassageTerms)) : Infinity;
    const hitPlan: SearchPlan = plan.clauses.length > passageCap ? { ...plan, clauses: [...plan.clauses].sort((a, b) => b.mult - a.mult).slice(0, passageCap) } : plan;
    const need = offset + limit + 1;
    const filterOnly = plan.clauses.length === 0 && plan.phrases.length === 0;
    const proximity = clampNum(q.proximityWeight, 0, 10, this.#proximity);
    const useProximity = proximity > 0 && mode === 'documents' && plan.clauses.filter((c) => c.weight >= 1).length >= 2;
    const rankDepth = mode === 'passages' && !filterOnly ? Math.max(200, need) : useProximity ? Math.max(PROXIMITY_DEPTH, need) : need;
    const segmentUs: number[] = [];
    // An exact total of a phrase query needs every candidate's positions verified, and pruning saves the
    // ranking pass little there (the phrase, not the score bound, is the selective part): one exhaustive
    // pass ranks and counts (and feeds the work counter when collapsing) instead of a pruned ranking pass
    // followed by a counting pass that verifies every candidate again (ADR 0170).
    const fused = q.exactTotal === true && plan.phrases.length > 0;
    let works: ReturnType<typeof workCounter> | null = null;
    const rankOpts: Parameters<typeof rankDocuments>[3] = { exhaustive: q.exhaustive === true || fused, ...(now ? { now, segmentUs } : {}) };
    if (fused && q.collapseByWorkKey) {
      works = workCounter(segments);
      rankOpts.visit = works.visit;
    }
    let k = rankDepth;
    let outcome = rankDocuments(segments, plan, k, rankOpts);
    let ranked = outcome.hits;
    const passagesOf = new Map<RawHit, ReturnType<typeof scorePassages>>();
    // per-hit work over many hits: one scorer (shared cursors) per segment, docs visited in ascending order
    const perHitShared = <T>(hits: RawHit[], fn: (scorer: PassageScorer, h: RawHit) => T): Map<RawHit, T> => {
      const out = new Map<RawHit, T>();
      const bySeg = new Map<number, RawHit[]>();
      for (const h of hits) {
        let l = bySeg.get(h.si);
        if (!l) bySeg.set(h.si, (l = []));
        l.push(h);
      }
      for (const [si, l] of bySeg) {
        const scorer = new PassageScorer(segments[si]!.seg, hitPlan, si);
        for (const h of l.sort((a, b) => a.doc - b.doc)) out.set(h, fn(scorer, h));
      }
      return out;
    };
    const passagesFor = (hits: RawHit[]): Map<RawHit, ReturnType<typeof scorePassages>> => perHitShared(hits, (scorer, h) => scorer.score(h.doc));
    const rerank = (hits: RawHit[]): RawHit[] => {
      if (useProximity) {
        // re-rank the first stage's top documents; the rest keeps its order (its scores cannot exceed them)
        const bonus = perHitShared(hits, (scorer, h) => proximityBonus(segments[h.si]!.seg, h.doc, hitPlan, (b) => scorer.at(b, h.doc)));
        const out = hits.map((h) => ({ ...h, score: h.score + proximity * bonus.get(h)! }));
        out.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        return out;
      }
      if (mode !== 'passages' || filterOnly) return hits;
      const all = passagesFor(hits);
      const out = hits.map((h) => {
        const ps = all.get(h)!;
        const best = ps.length ? ps[0]!.score : 0;
        const nh: RawHit = { ...h, score: best };
        passagesOf.set(nh, ps);
        return nh;
      });
      out.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return out;
    };
    // a shard of a sharded search re-ranks only what is in the corpus's first stage (ADR 0202)
    const cut = mode === 'passages' && !filterOnly ? q.firstStageCutoff : undefined;
    const firstStage = (hits: RawHit[]): RawHit[] => (cut ? hits.filter((h) => h.score > cut.score || (h.score === cut.score && h.id <= cut.id)) : hits);
    ranked = rerank(firstStage(ranked));
    if (q.collapseByWorkKey) {
      let collapsed = collapse(segments, ranked);
      while (collapsed.length < need && outcome.hits.length >= k && k < 1_000_000) {
        k *= 4;
        // a second pass would visit every match again: the works are counted apart
        works = null;
        delete rankOpts.visit;
        outcome = rankDocuments(segments, plan, k, rankOpts);
        ranked = rerank(firstStage(outcome.hits));
        collapsed = collapse(segments, ranked);
      }
      ranked = collapsed;
    }
    const hasMore = ranked.length > offset + limit;
    const page = ranked.slice(offset, offset + limit);
    const tRanked = now?.();
    const perHit = clampInt(q.passagesPerHit, 0, 10, 3);
    const pagePassages = perHit === 0 || filterOnly ? new Map<RawHit, ReturnType<typeof scorePassages>>() : passagesFor(page.filter((h) => !passagesOf.has(h)));
    const hits: EngineHit[] = page.map((h) => {
      const seg = segments[h.si]!.seg;
      let passages = perHit === 0 ? [] : (passagesOf.get(h) ?? pagePassages.get(h) ?? []);
      if (passages.length === 0 && perHit > 0) {
        const lead = leadPassage(seg, h.doc);
        passages = lead ? [lead] : [];
      }
      const hit: EngineHit = { id: h.id, score: h.score, passages: passages.slice(0, perHit), workKey: seg.workKey(h.doc) };
      registerHit(hit, seg, h.doc, this.#docLanguage(seg, h.doc));
      if (q.explain) hit.explanation = filterOnly ? { value: 0, description: 'filter-only listing (newest first): no score', details: [] } : explainDoc(seg, h.doc, plan);
      return hit;
    });
    // totals
    let totalHits: number;
    let exact: boolean;
    // a counting pass is cheap for word queries over rare terms; phrase verification never is
    const cheap = plan.phrases.length === 0 && plan.clauses.reduce((s, c) => s + c.df, 0) <= 10_000;
    if (q.collapseByWorkKey && works !== null && outcome.exact) {
      // the exhaustive ranking pass visited every match
      totalHits = works.total();
      exact = true;
    } else if (q.collapseByWorkKey && (q.exactTotal === true || cheap || outcome.exact)) {
      // collapsed: the total counts works, not the records that share one
      totalHits = countWorks(segments, plan);
      exact = true;
    } else if (outcome.exact) {
      totalHits = outcome.matches;
      exact = true;
    } else if (q.exactTotal === true || cheap) {
      totalHits = countMatches(segments, plan);
      exact = true;
    } else {
      totalHits = Math.max(outcome.matches, outcome.dfLowerBound);
      exact = false;
    }
    const floor = offset + page.length + (hasMore ? 1 : 0);
    if (totalHits < floor) {
      // collapse counts works, matches count documents: never report fewer than what is paged
      totalHits = floor;
    }
    const result: EngineResult = { hits, totalHits, totalHitsExact: exact, hasMore, rankingMode: mode };
    if (filterOnly) result.issued = page.map((h) => (Number.isNaN(h.issued) ? null : h.issued));
    if (pruning !== null || hitPlan !== plan) {
      result.pruned = { droppedTerms: pruning?.dropped ?? [], terms: pruning?.terms ?? plan.clauses.length, postings: pruning?.postings ?? 0, passageTerms: hitPlan !== plan ? hitPlan.clauses.length : null, clauses: plan.clauses.length };
    }
    if (q.trace) {
      const trace: EngineTrace = {
        segments: outcome.counters.slice(0, 64).map((c, i) => ({
          docs: c.docs,
          scored: c.scored,
          candidates: c.candidates,
          skippedBlocks: c.skippedBlocks,
          ...(segmentUs[i] !== undefined ? { us: segmentUs[i] } : {}),
        })),
        terms: plan.clauses.slice(0, 64).flatMap((c) => c.terms.map((t) => ({ term: t, df: q.globalStats ? (q.globalStats.df[t] ?? 0) : this.docFreq(t) }))),
        notes: [],
      };
      if (outcome.floor !== -Infinity) trace.championFloor = outcome.floor;
      if (mode === 'passages') trace.notes.push(`passages: top ${rankDepth} documents re-ranked by best passage (MaxP)`);
      if (plan.emptyAfterAnalysis) trace.notes.push('query has only stopwords: no matches');
      if (filterOnly) trace.notes.push('no query terms: filter-only listing, newest first');
      if (now && tStart !== undefined && tParsed !== undefined && tRanked !== undefined) {
        const tEnd = now();
        trace.parseUs = tParsed - tStart;
        trace.passagesUs = tEnd - tRanked;
        trace.totalUs = tEnd - tStart;
      }
      result.trace = trace;
    }
    return result;
  }

  /** Dictionary candidates of index terms (the spelling call of a shard, ADR 0247): each term's best `limit`. */
  suggestTerms(terms: readonly string[], limit: number): Record<string, Suggestion[]> {
    this.#check();
    const segs = this.#snapshot.map((s) => s.seg);
    const out: Record<string, Suggestion[]> = Object.create(null) as Record<string, Suggestion[]>;
    for (const t of terms) if (!Object.hasOwn(out, t)) out[t] = suggestTerm(segs, t, limit);
    return out;
  }

  /** Spelling suggestions for one word (analysed with the given or default language), best first. */
  suggest(word: string, possibleLanguages?: string[] | null, limit = 5): Suggestion[] {
    const parsed = parseQuery(word, possibleLanguages, this.#defaultLanguage);
    const w = parsed.words[0];
    if (!w) return [];
    return suggestTerm(this.#snapshot.map((s) => s.seg), w.terms[0]!, limit);
  }

  /**
   * A corrected query (words unknown to the index replaced by close, frequent ones), or null.
   * A pure function of the text, the languages and the committed segments (document frequencies count
   * deleted documents until a merge, so deletions alone change nothing): the answers of the last
   * {@link CORRECTIONS_KEPT} queries are kept for the published snapshot, so a repeated query skips the
   * parse, the frequency lookups and the dictionary scans of its unknown words (ADR 0195).
   */
  correctQuery(text: string, possibleLanguages?: string[] | null): string | null {
    if (this.#correctionsOf !== this.#snapshot) {
      this.#corrections.clear();
      this.#correctionsOf = this.#snapshot;
    }
    // JSON text never holds a raw NUL, so the key cannot be ambiguous
    const key = JSON.stringify(possibleLanguages ?? null) + '\u0000' + text;
    const known = this.#corrections.get(key);
    if (known !== undefined) {
      this.#corrections.delete(key);
      this.#corrections.set(key, known);
      return known;
    }
    const parsed = parseQuery(text, possibleLanguages, this.#defaultLanguage);
    const corrected = correctQuery(this.#snapshot.map((s) => s.seg), parsed, (t) => this.docFreq(t));
    if (this.#corrections.size >= CORRECTIONS_KEPT) this.#corrections.delete(this.#corrections.keys().next().value!);
    this.#corrections.set(key, corrected);
    return corrected;
  }
  /** Answers of {@link correctQuery} for {@link #correctionsOf} (least recently used first). */
  readonly #corrections = new Map<string, string | null>();
  #correctionsOf: readonly unknown[] | null = null;

  /** Statistics of the committed index. */
  stats(): IndexStats {
    const bytes = { postings: 0, positions: 0, dictionary: 0, columns: 0, passages: 0, stored: 0, deletions: 0, total: 0 };
    let deleted = 0;
    let docs = 0;
    for (const e of this.#committed) {
      const b = e.seg.bytesByComponent();
      bytes.postings += b.postings;
      bytes.positions += b.positions;
      bytes.dictionary += b.dictionary;
      bytes.columns += b.columns;
      bytes.passages += b.passages;
      bytes.stored += b.stored;
      bytes.total += b.total;
      if (e.deleted) {
        bytes.deletions += e.deleted.byteLength;
        bytes.total += e.deleted.byteLength;
      }
      deleted += e.deletedCount;
      docs += e.seg.docCount - e.deletedCount;
    }
    return {
      docs,
      deletedDocs: deleted,
      segments: this.#committed.length,
      pendingDocs: this.#buffer.size + this.#pendingSegs.reduce((s, e) => s + e.seg.docCount, 0),
      checkpoint: this.#checkpoint,
      generation: this.#generation,
      bytes,
      merging: this.#merge !== null,
    };
  }

  /** Releases the directory lock. Uncommitted adds and deletes are discarded. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#merge = null;
    this.#lock?.release();
  }

  /** The analyzer language used for documents without one. */
  /**
   * The number of the published snapshot (it grows with every publish of this index object): every
   * statistic {@link queryStats} answers (document count, field totals, document frequencies) is a
   * function of the snapshot, so statistics taken under one number hold exactly while it stays (ADR 0260:
   * the coordinator's cache of DFS statistics; the shard side adds what tells index objects and processes
   * apart).
   */
  get snapshotGeneration(): number {
    return this.#published;
  }

  /** The index terms whose document frequencies {@link queryStats} answers for `q` (ADR 0260). */
  queryTerms(q: Pick<EngineQuery, 'text' | 'possibleLanguages' | 'expansion'>): string[] {
    return queryStatsTerms(q, this.#defaultLanguage);
  }

  get defaultLanguage(): string {
    return this.#defaultLanguage;
  }
}

/** The parsed query with expansion terms appended as weighted clauses (terms already present are skipped). */
/** The scoring statistics of corpus counts (the same arithmetic as #publish, so one index and its shards agree bit for bit). */
function statsOf(c: CorpusStats): GlobalStats {
  return { docCount: c.docCount, avgLen: c.fieldTotals.map((t) => (c.segmentDocs > 0 ? t / c.segmentDocs : 0)) };
}

/** Sums shards' statistics of one query into the corpus's (DFS phase; integer sums, exact). */
export function sumCorpusStats(parts: readonly CorpusStats[]): CorpusStats {
  const out: CorpusStats = { docCount: 0, segmentDocs: 0, fieldTotals: [0, 0, 0], df: Object.create(null) as Record<string, number> };
  for (const p of parts) {
    out.docCount += p.docCount;
    out.segmentDocs += p.segmentDocs;
    for (let f = 0; f < 3; f++) out.fieldTotals[f as 0 | 1 | 2] += p.fieldTotals[f as 0 | 1 | 2];
    for (const [t, n] of Object.entries(p.df)) out.df[t] = (Object.hasOwn(out.df, t) ? out.df[t]! : 0) + n;
  }
  return out;
}

/**
 * The terms of a query whose document frequencies the DFS phase gathers (each once, in query order): its
 * words' and phrases' analysed terms and its expansion terms. A coordinator computes the same list as a
 * shard (same analysers, same default language) to look cached frequencies up (ADR 0260); a shard checks
 * that the statistics it is given cover it, so a coordinator that analyses differently is never wrong.
 */
export function queryStatsTerms(q: Pick<EngineQuery, 'text' | 'possibleLanguages' | 'expansion'>, defaultLanguage = 'en'): string[] {
  const parsed = withExpansion(parseQuery(q.text ?? '', q.possibleLanguages, normalizeLanguage(defaultLanguage)), q.expansion);
  return [...new Set([...parsed.words.flatMap((w) => w.terms), ...parsed.phrases.flatMap((p) => p.slots.flatMap((s) => s.terms))])];
}

function withExpansion(parsed: ParsedQuery, expansion: EngineQuery['expansion']): ParsedQuery {
  if (!expansion || expansion.length === 0) return parsed;
  const present = new Set(parsed.words.flatMap((w) => w.terms));
  const words = [...parsed.words];
  for (const e of expansion) {
    if (present.has(e.term) || !(e.weight > 0) || !Number.isFinite(e.weight)) continue;
    present.add(e.term);
    words.push({ terms: [e.term], weight: Math.min(10, e.weight), surface: e.term, start: -1, end: -1, quoted: false });
  }
  return { ...parsed, words };
}

function collapse(segments: readonly SnapshotSegment[], hits: RawHit[]): RawHit[] {
  const seen = new Set<string>();
  const out: RawHit[] = [];
  for (const h of hits) {
    const key = segments[h.si]!.seg.workKey(h.doc);
    if (key !== null) {
      if (seen.has(key)) continue;
      seen.add(key);
    }
    out.push(h);
  }
  return out;
}

/** Analyzer access for hosts that need the index's tokenization (e.g. to pre-check queries). */
export { analyzerFor };
