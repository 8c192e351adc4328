// The corpus-trained models of each index (docs/models.md, ADR 0100): `lectern models train` folds the
// document store's changes into a saved training state (resumable: the state and the store sequence it
// reached are saved every CHECKPOINT_EVERY changes; incremental: a later run reads only newer changes),
// then trains the dense and sparse models and writes them with their SHA-256 into a manifest, which is
// written last (the switch to the new models is atomic). A server loads the manifest's models, checks
// their hashes, and picks up new ones while it runs (IndexSet.setModels).
import { createHash } from 'node:crypto';
import { CorpusModel, TrainingState, fieldTerms, type IndexDirectory, type TrainStats } from '../engine/index.js';
import { INDEX_NAMES, type IndexName } from '../domain/document.js';
import type { Clock } from '../ports/clock.js';
import type { DocumentStore } from '../ports/document-store.js';
import type { ModelDirectories } from '../ports/index-directories.js';

const MANIFEST = 'manifest.json';
const STATE = 'training-state.bin';
const PAGE = 1_000;
/** Store changes folded in between two saves of the training state (what an interruption can lose). */
const CHECKPOINT_EVERY = 20_000;

/** One model file as the manifest records it. */
export interface ModelFileInfo {
  file: string;
  sha256: string;
  bytes: number;
  dims: number;
  terms: number;
}

export interface ModelManifest {
  format: 1;
  index: IndexName;
  /** Store sequence the models were trained up to. */
  seq: number;
  trainedAt: number;
  documents: number;
  dense: ModelFileInfo;
  sparse: ModelFileInfo;
  stats: TrainStats;
  trainMs: number;
}

/** A model loaded for searching: its id is its SHA-256. */
export interface LoadedModel {
  id: string;
  model: CorpusModel;
}

export interface IndexModels {
  dense: LoadedModel | null;
  sparse: LoadedModel | null;
  manifest: ModelManifest | null;
}

export interface TrainProgress {
  index: IndexName;
  phase: 'reading' | 'training';
  done: number;
  total: number;
}

export interface TrainReport {
  index: IndexName;
  /** Store changes folded in by this run. */
  changes: number;
  /** True when the run started from a saved state (resumed or incremental). */
  resumed: boolean;
  documents: number;
  readMs: number;
  trainMs: number;
  manifest: ModelManifest | null;
  /** Why no model was written (no documents). */
  skipped?: string;
}

export const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

export class CorpusModels {
  constructor(
    private readonly dirs: ModelDirectories,
    private readonly store: DocumentStore,
    private readonly clock: Clock,
  ) {}

  /** The manifest of an index's models, or null when none were trained. */
  manifest(name: IndexName): ModelManifest | null {
    const raw = this.dirs.open(name).read(MANIFEST);
    return raw === null ? null : (JSON.parse(new TextDecoder().decode(raw)) as ModelManifest);
  }

  /** Loads the trained models of an index (checking each file against its recorded SHA-256). */
  load(name: IndexName): IndexModels {
    const dir = this.dirs.open(name);
    const m = this.manifest(name);
    if (m === null) return { dense: null, sparse: null, manifest: null };
    const one = (info: ModelFileInfo): LoadedModel => {
      const bytes = dir.read(info.file);
      if (bytes === null) throw new Error(`model file ${info.file} of the ${name} index is missing; run \`lectern models train\``);
      const id = sha256(bytes);
      if (id !== info.sha256) throw new Error(`model file ${info.file} of the ${name} index does not match its recorded SHA-256; run \`lectern models train --full\``);
      try {
        return { id, model: CorpusModel.parse(bytes) };
      } catch (e) {
        throw new Error(`model file ${info.file} of the ${name} index cannot be read (${(e as Error).message}; written by another version?); run \`lectern models train --index ${name} --full\``);
      }
    };
    return { dense: one(m.dense), sparse: one(m.sparse), manifest: m };
  }

  /** The manifest and model files of an index as trained here (to publish them; ADR 0267), or null. */
  files(name: IndexName): { manifest: ModelManifest; files: Map<string, Uint8Array> } | null {
    const m = this.manifest(name);
    if (m === null) return null;
    const dir = this.dirs.open(name);
    const files = new Map<string, Uint8Array>();
    for (const info of [m.dense, m.sparse]) {
      const bytes = dir.read(info.file);
      if (bytes === null || sha256(bytes) !== info.sha256) throw new Error(`model file ${info.file} of the ${name} index is missing or does not match its SHA-256; run \`lectern models train --index ${name} --full\``);
      files.set(info.file, bytes);
    }
    return { manifest: m, files };
  }

  /**
   * Installs models trained elsewhere (a cluster's published models, ADR 0267): each file checked against
   * the manifest's SHA-256 and written, then the manifest, last (the switch is atomic, as after training);
   * files no longer referenced are removed. The training state is left alone.
   */
  install(name: IndexName, manifest: ModelManifest, files: ReadonlyMap<string, Uint8Array>): void {
    if (manifest.format !== 1 || manifest.index !== name) throw new Error(`the published manifest is not a format-1 manifest of the ${name} index`);
    const dir = this.dirs.open(name);
    for (const info of [manifest.dense, manifest.sparse]) {
      if (!/^[a-z]+-[0-9a-f]{16}\.lcm$/.test(info.file)) throw new Error(`the published manifest names an unexpected model file ${JSON.stringify(info.file)}`);
      const bytes = files.get(info.file);
      if (bytes === undefined || sha256(bytes) !== info.sha256) throw new Error(`the published model file ${info.file} of the ${name} index is missing or does not match its SHA-256`);
      dir.write(info.file, bytes);
    }
    dir.write(MANIFEST, new TextEncoder().encode(JSON.stringify(manifest, null, 2)));
    removeUnreferenced(dir, manifest);
  }

  /**
   * Folds the store's changes into the training state of `name` and trains its models. `full` starts
   * from an empty state (re-reads every document).
   */
  async train(name: IndexName, opts: { full?: boolean; onProgress?: (p: TrainProgress) => void; dims?: number } = {}): Promise<TrainReport> {
    const dir = this.dirs.open(name);
    const t0 = this.clock.nowMs();
    let state = new TrainingState();
    let resumed = false;
    if (!opts.full) {
      const raw = dir.read(STATE);
      if (raw !== null) {
        try {
          state = TrainingState.parse(raw);
          resumed = true;
        } catch {
          // a state written by another version of Lectern: start over from the store (the source of truth)
          state = new TrainingState();
        }
      }
    }
    let seq = state.label === null ? 0 : Number(state.label);
    const target = await this.store.maxSeq();
    let changes = 0;
    let sinceSave = 0;
    while (seq < target) {
      const page = await this.store.changesSince(seq, PAGE);
      if (page.length === 0) break;
      for (const c of page) {
        if (c.deleted) state.remove(c.id);
        else if (c.doc.index === name) state.set(c.doc.id, fieldTerms(c.doc.title, c.doc.abstract, c.doc.language));
        else state.remove(c.doc.id);
        seq = c.seq;
      }
      changes += page.length;
      sinceSave += page.length;
      if (sinceSave >= CHECKPOINT_EVERY) {
        state.label = String(seq);
        dir.write(STATE, state.serialize());
        sinceSave = 0;
      }
      opts.onProgress?.({ index: name, phase: 'reading', done: seq, total: target });
    }
    state.label = String(seq);
    dir.write(STATE, state.serialize());
    const t1 = this.clock.nowMs();
    const current = this.manifest(name);
    if (state.documents === 0) return { index: name, changes, resumed, documents: 0, readMs: t1 - t0, trainMs: 0, manifest: current, skipped: 'no documents in this index' };
    if (current !== null && current.seq === seq && changes === 0 && !opts.full && (opts.dims === undefined || opts.dims === current.dense.dims)) {
      return { index: name, changes, resumed, documents: state.documents, readMs: t1 - t0, trainMs: 0, manifest: current, skipped: 'models are up to date' };
    }
    const { dense, sparse, stats } = state.train({ ...(opts.dims !== undefined ? { dims: opts.dims } : {}), progress: (done, total) => opts.onProgress?.({ index: name, phase: 'training', done, total }) });
    const t2 = this.clock.nowMs();
    const write = (kind: 'dense' | 'sparse', m: CorpusModel): ModelFileInfo => {
      const bytes = m.serialize();
      const hash = sha256(bytes);
      const file = `${kind}-${hash.slice(0, 16)}.lcm`;
      dir.write(file, bytes);
      return { file, sha256: hash, bytes: bytes.byteLength, dims: m.dims, terms: m.terms.length };
    };
    const manifest: ModelManifest = {
      format: 1,
      index: name,
      seq,
      trainedAt: Math.floor(this.clock.nowMs() / 1000),
      documents: state.documents,
      dense: write('dense', dense),
      sparse: write('sparse', sparse),
      stats,
      trainMs: t2 - t1,
    };
    dir.write(MANIFEST, new TextEncoder().encode(JSON.stringify(manifest, null, 2)));
    removeUnreferenced(dir, manifest);
    return { index: name, changes, resumed, documents: state.documents, readMs: t1 - t0, trainMs: t2 - t1, manifest };
  }

  /** Trains every index in turn. */
  async trainAll(opts: { full?: boolean; onProgress?: (p: TrainProgress) => void; dims?: number } = {}): Promise<TrainReport[]> {
    const out: TrainReport[] = [];
    for (const name of INDEX_NAMES) out.push(await this.train(name, opts));
    return out;
  }
}

function removeUnreferenced(dir: IndexDirectory, m: ModelManifest): void {
  for (const f of dir.list()) if (f.endsWith('.lcm') && f !== m.dense.file && f !== m.sparse.file) dir.delete(f);
}
