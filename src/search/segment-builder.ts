// Segment building off the thread that answers requests (ADR 0111). A server's catch-up used to analyse
// every new document and build its segment at commit on the main thread: ~1 ms of CPU per document, a
// commit of a second's ingest holding the event loop for hundreds of milliseconds. With a builder, the
// catch-up sends each batch of new documents to a builder thread, which indexes them into an empty
// in-memory SearchIndex and returns the committed segment's bytes; the writer (main thread) only
// adopts the segment (SearchIndex.addSegment: replaces older versions of its documents), applies the
// deletions and commits, none of which analyses text. Results are the same: the same engine builds
// the same segment. `src/segment-builder-worker.ts` is the thread's entry point.
import { Worker, type MessagePort } from 'node:worker_threads';
import { MemoryIndexDirectory, SearchIndex, type IndexDocument } from '../engine/index.js';

/** Builds one segment per call from documents (unique ids); null when there are none. */
export interface SegmentBuilder {
  build(docs: IndexDocument[]): Promise<Uint8Array[]>;
  close(): Promise<void>;
}

type Req = { id: number; docs: IndexDocument[] };
type Res = { id: number; segments?: Uint8Array[]; error?: string };

/** The segments an index over an empty directory commits for `docs` (normally one). */
export function buildSegments(docs: IndexDocument[]): Uint8Array[] {
  const dir = new MemoryIndexDirectory();
  const idx = SearchIndex.open(dir, { defaultLanguage: 'en' });
  for (const d of docs) idx.add(d);
  idx.commit('built');
  idx.close();
  const manifest = JSON.parse(new TextDecoder().decode(dir.read('manifest.json')!)) as { segments: { name: string }[] };
  return manifest.segments.map((s) => dir.read(s.name)!);
}

/** The thread's side: builds what it is sent, in order. */
export function serveSegmentBuilds(port: MessagePort): void {
  port.on('message', (m: Req) => {
    try {
      const segments = buildSegments(m.docs);
      port.postMessage({ id: m.id, segments } satisfies Res, segments.map((s) => s.buffer as ArrayBuffer));
    } catch (e) {
      port.postMessage({ id: m.id, error: (e as Error).stack ?? String(e) } satisfies Res);
    }
  });
}

/** The main thread's side: one builder thread. */
export class ThreadedSegmentBuilder implements SegmentBuilder {
  readonly #entry: URL;
  #worker: Worker;
  readonly #pending = new Map<number, { resolve: (s: Uint8Array[]) => void; reject: (e: unknown) => void }>();
  #next = 1;
  #closing = false;

  constructor(entry: URL) {
    this.#entry = entry;
    this.#worker = this.#start();
  }

  #start(): Worker {
    const w = new Worker(this.#entry);
    w.on('message', (m: Res) => {
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      if (this.#pending.size === 0) w.unref();
      if (m.segments) p.resolve(m.segments);
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

  build(docs: IndexDocument[]): Promise<Uint8Array[]> {
    if (this.#closing) return Promise.reject(new Error('segment builder is closed'));
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.ref();
      this.#worker.postMessage({ id, docs } satisfies Req);
    });
  }

  async close(): Promise<void> {
    this.#closing = true;
    await this.#worker.terminate();
  }
}
