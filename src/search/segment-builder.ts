// Segment building and merging off the thread that answers requests (ADRs 0111, 0180). A server's
// catch-up used to analyse every new document and build its segment at commit on the main thread: ~1 ms
// of CPU per document, a commit of a second's ingest holding the event loop for hundreds of
// milliseconds. With a builder, the catch-up sends each batch of new documents to a builder thread,
// which indexes them into an empty in-memory SearchIndex and returns the committed segment's bytes;
// the writer (main thread) only adopts the segment (SearchIndex.addSegment: replaces older versions of
// its documents), applies the deletions and commits, none of which analyses text. Results are the same:
// the same engine builds the same segment. Background merges run the same way (ADR 0180): the writer
// hands out a merge task (SearchIndex.beginMerge: the inputs' bytes, in shared memory, and their
// deletions), a thread runs it, and the writer adopts the output (SearchIndex.finishMerge).
// When the thread is given a file writer (the index directories' root), it also writes and fsyncs
// what it built under the name the writer reserved, so the writer's adoption does no file I/O of the
// segment either. `src/segment-builder-worker.ts` is the thread's entry point; it lowers the thread's
// scheduling priority (config `backgroundThreadNice`) so searches preempt it on a busy machine.
import { Worker, type MessagePort } from 'node:worker_threads';
import { computeVectorFile, CorpusModel, MemoryIndexDirectory, runMerge, SearchIndex, vectorFileName, type BuiltVectors, type IndexDocument, type MergeOutput, type MergeTask } from '../engine/index.js';
import type { IndexName } from '../domain/document.js';

/** Where a thread writes what it built: the index's directory and the file name the writer reserved. */
export interface BuildTarget {
  index: IndexName;
  name: string;
}

/**
 * A corpus model whose document vectors the thread computes for what it builds (ADR 0180): the writer
 * adopts them (SearchIndex.addSegment, finishMerge) instead of computing them on its thread.
 */
export interface WantedVectors {
  id: string;
  model: CorpusModel;
}

/**
 * Segments built from documents; `written`: the single segment was written under the target's name;
 * `vectors`: its document vectors under the wanted model (one segment only).
 */
export interface BuiltSegments {
  segments: Uint8Array[];
  written: boolean;
  vectors?: BuiltVectors;
}

/** A merge run elsewhere; `written`: its output was written under the task's output name. */
export interface MergedSegment {
  out: MergeOutput;
  written: boolean;
  vectors?: BuiltVectors;
}

/** Builds segments and runs merges off the writer's thread. */
export interface SegmentBuilder {
  /** The segments for `docs` (unique ids; one segment when `target` is given). */
  build(docs: IndexDocument[], target?: BuildTarget, vectors?: WantedVectors): Promise<BuiltSegments>;
  /** Runs a merge task of `index` (SearchIndex.beginMerge). */
  merge(index: IndexName, task: MergeTask, vectors?: WantedVectors): Promise<MergedSegment>;
  close(): Promise<void>;
}

/** Writes a finished segment file atomically and durably into an index's directory (thread side). */
export type SegmentFileWriter = (index: IndexName, name: string, bytes: Uint8Array) => void;

/** A corpus model as posted to the thread (once per model, not per request). */
type PostedModel = { id: string; kind: 'dense' | 'sparse'; dims: number; terms: readonly string[]; idf: Float32Array; vectors: Float32Array; trainedDocuments: number; centroids: Float32Array | null };
type Req =
  | { id: number; docs: IndexDocument[]; target?: BuildTarget; vectorModel?: string }
  | { id: number; append: IndexDocument[] }
  | { id: number; index: IndexName; task: MergeTask; vectorModel?: string }
  | { id: number; model: PostedModel };
/** Models a thread keeps (the current one and the one before it, while a change is under way). */
const KEPT_MODELS = 2;

/**
 * Documents posted per message: a build's documents go over in parts with a turn of the event loop
 * between them, so copying a 5,000-document batch to the thread is not one long slice (ADR 0180).
 */
const POST_PART = 500;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
type Res = { id: number; segments?: Uint8Array[]; merged?: MergeOutput; written?: boolean; vectors?: BuiltVectors; error?: string };

/**
 * The segments an index over an empty directory commits for `docs`: normally one (a batch larger than
 * the engine's flush threshold gives several; those are not written by the thread).
 */
export function buildSegments(docs: IndexDocument[]): Uint8Array[] {
  const dir = new MemoryIndexDirectory();
  const idx = SearchIndex.open(dir, { defaultLanguage: 'en' });
  for (const d of docs) idx.add(d);
  idx.commit('built');
  idx.close();
  const manifest = JSON.parse(new TextDecoder().decode(dir.read('manifest.json')!)) as { segments: { name: string }[] };
  return manifest.segments.map((s) => dir.read(s.name)!);
}

/** A copy of `bytes` in shared memory: posted to the writer without a copy, held there as the file. */
function shared(bytes: Uint8Array): Uint8Array {
  if (bytes.buffer instanceof SharedArrayBuffer) return bytes;
  const out = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  out.set(bytes);
  return out;
}

/** Transferables of a response: non-shared buffers move, shared ones are shared anyway. */
function movable(arrays: readonly ArrayBufferView[]): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const a of arrays) if (a.buffer instanceof ArrayBuffer) out.add(a.buffer);
  return [...out];
}

/** The thread's side: builds and merges what it is sent, in order, writing files when it can. */
export function serveSegmentBuilds(port: MessagePort, write: SegmentFileWriter | null = null): void {
  const parts = new Map<number, IndexDocument[]>();
  const models = new Map<string, CorpusModel>();
  /** The vectors of a finished segment under `id` (a model this thread holds), written beside it when it was. */
  const vectorsOf = (index: IndexName, name: string | null, bytes: Uint8Array, id: string | undefined): BuiltVectors | undefined => {
    const model = id === undefined ? undefined : models.get(id);
    if (model === undefined || id === undefined) return undefined;
    const file = shared(computeVectorFile(bytes, model, id));
    if (name !== null && write !== null) {
      write(index, vectorFileName(name, id), file);
      return { modelId: id, bytes: file, written: true };
    }
    return { modelId: id, bytes: file, written: false };
  };
  port.on('message', (m: Req) => {
    if ('model' in m) {
      const p = m.model;
      models.delete(p.id);
      models.set(p.id, CorpusModel.build(p.kind, p.dims, p.terms, p.idf, p.vectors, p.trainedDocuments, p.centroids));
      while (models.size > KEPT_MODELS) models.delete(models.keys().next().value!);
      return;
    }
    if ('append' in m) {
      const docs = parts.get(m.id) ?? [];
      for (const d of m.append) docs.push(d);
      parts.set(m.id, docs);
      return;
    }
    try {
      if ('task' in m) {
        const out = runMerge(m.task);
        let written = false;
        if (out.bytes !== null && write !== null) {
          out.bytes = shared(out.bytes);
          write(m.index, m.task.output, out.bytes);
          written = true;
        }
        const vectors = out.bytes === null ? undefined : vectorsOf(m.index, written ? m.task.output : null, out.bytes, m.vectorModel);
        port.postMessage({ id: m.id, merged: out, written, ...(vectors ? { vectors } : {}) } satisfies Res, movable([...(out.bytes ? [out.bytes] : []), ...out.docMaps]));
        return;
      }
      const earlier = parts.get(m.id);
      parts.delete(m.id);
      let segments = buildSegments(earlier ? earlier.concat(m.docs) : m.docs);
      let written = false;
      if (m.target !== undefined && write !== null && segments.length === 1) {
        segments = [shared(segments[0]!)];
        write(m.target.index, m.target.name, segments[0]!);
        written = true;
      }
      const vectors = segments.length === 1 && m.target !== undefined ? vectorsOf(m.target.index, written ? m.target.name : null, segments[0]!, m.vectorModel) : undefined;
      port.postMessage({ id: m.id, segments, written, ...(vectors ? { vectors } : {}) } satisfies Res, movable(segments));
    } catch (e) {
      port.postMessage({ id: m.id, error: (e as Error).stack ?? String(e) } satisfies Res);
    }
  });
}

/** The main thread's side: one thread (builds and merges queue on it in call order). */
export class ThreadedSegmentBuilder implements SegmentBuilder {
  readonly #entry: URL;
  readonly #workerData: unknown;
  #worker: Worker;
  readonly #pending = new Map<number, { resolve: (r: Res) => void; reject: (e: unknown) => void }>();
  #next = 1;
  #closing = false;

  /** `workerData` goes to the entry (the file root and the thread's nice value: segment-builder-worker.ts). */
  constructor(entry: URL, workerData: unknown = null) {
    this.#entry = entry;
    this.#workerData = workerData;
    this.#worker = this.#start();
  }

  /** The thread's id (for tests and diagnostics). */
  get threadId(): number {
    return this.#worker.threadId;
  }

  #start(): Worker {
    const w = new Worker(this.#entry, { workerData: this.#workerData });
    w.on('message', (m: Res) => {
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      if (this.#pending.size === 0) w.unref();
      if (m.error === undefined) p.resolve(m);
      else p.reject(new Error(`segment builder: ${m.error}`));
    });
    w.on('error', () => undefined);
    w.on('exit', (code) => {
      for (const [id, p] of this.#pending) {
        this.#pending.delete(id);
        p.reject(new Error(`segment builder thread exited (code ${code})`));
      }
      if (!this.#closing) this.#worker = this.#start();
    });
    w.unref();
    return w;
  }

  #send(req: Omit<Req, 'id'>, id = this.#next++): Promise<Res> {
    if (this.#closing) return Promise.reject(new Error('segment builder is closed'));
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.ref();
      this.#worker.postMessage({ id, ...req } as Req);
    });
  }

  /** Model ids the current thread holds (posted once each; a restarted thread starts without). */
  #posted = new Set<string>();
  #postedTo: Worker | null = null;

  /** Posts `v`'s model to the thread unless it has it; returns its id for the request. */
  #model(v: WantedVectors | undefined): string | undefined {
    if (v === undefined) return undefined;
    if (this.#postedTo !== this.#worker) {
      this.#posted = new Set();
      this.#postedTo = this.#worker;
    }
    if (!this.#posted.has(v.id)) {
      const m = v.model;
      this.#worker.postMessage({ id: 0, model: { id: v.id, kind: m.kind, dims: m.dims, terms: m.terms, idf: m.idf, vectors: m.vectors, trainedDocuments: m.trainedDocuments, centroids: m.centroids } } satisfies Req);
      this.#posted.add(v.id);
      while (this.#posted.size > KEPT_MODELS) this.#posted.delete(this.#posted.values().next().value!);
    }
    return v.id;
  }

  async build(docs: IndexDocument[], target?: BuildTarget, vectors?: WantedVectors): Promise<BuiltSegments> {
    if (this.#closing) throw new Error('segment builder is closed');
    const id = this.#next++;
    const worker = this.#worker;
    let at = 0;
    for (; docs.length - at > POST_PART; at += POST_PART) {
      this.#worker.postMessage({ id, append: docs.slice(at, at + POST_PART) } satisfies Req);
      await turn();
    }
    // a thread that exited meanwhile lost the parts: its replacement must not build the rest alone
    if (this.#worker !== worker) throw new Error('segment builder thread exited during the build');
    const rest = at === 0 ? docs : docs.slice(at);
    const vectorModel = target ? this.#model(vectors) : undefined;
    const r = await this.#send(target ? { docs: rest, target, ...(vectorModel ? { vectorModel } : {}) } : { docs: rest }, id);
    return { segments: r.segments!, written: r.written === true, ...(r.vectors ? { vectors: r.vectors } : {}) };
  }

  async merge(index: IndexName, task: MergeTask, vectors?: WantedVectors): Promise<MergedSegment> {
    const vectorModel = this.#model(vectors);
    const r = await this.#send({ index, task, ...(vectorModel ? { vectorModel } : {}) });
    return { out: r.merged!, written: r.written === true, ...(r.vectors ? { vectors: r.vectors } : {}) };
  }

  async close(): Promise<void> {
    this.#closing = true;
    await this.#worker.terminate();
  }
}
