// Runs convertDocument in a worker thread (ADR 0035), so the document passes (layout, headings, Markdown,
// statistics: hundreds of milliseconds of synchronous work for a 13-page paper, seconds for a book) never
// stall the service's event loop. Threads are kept warm (ADR 0096): a thread that answered cleanly waits,
// unreferenced, for the next conversion instead of being terminated, so a conversion neither pays the
// thread start (about 50 ms of module loading) nor runs its code cold in a fresh JIT. The tools still run
// as separate processes from inside the thread. Checkpoints travel to the parent, which stores them (awaited,
// as in-process: a store failure stops the conversion); an abort is forwarded so the converter kills its
// tools and rejects with `cancelled`. `serveConversion` is the thread's side, wired by
// src/recognition-worker.ts.
import { Worker, type MessagePort, type ResourceLimits } from 'node:worker_threads';
import { convertDocument, isRecognitionError, RecognitionError, type ConversionResult, type ConvertOptions, type PageCheckpoint, type RecognitionErrorCode } from '../recognition/index.js';
import type { ProcessRunner } from '../ports/process-runner.js';
import type { ConvertFn } from './recognition-job-service.js';

/** What the thread is given (ConvertOptions without the runner, the signal and the callbacks). */
export interface ConversionRequest {
  readonly bytes: Uint8Array;
  readonly limits?: ConvertOptions['limits'];
  readonly resumeFrom?: readonly PageCheckpoint[];
  readonly ocr?: ConvertOptions['ocr'];
  readonly pageMarkers?: boolean;
  readonly pageConcurrency?: number;
  readonly sha256?: string;
}

interface WireError {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly details?: Record<string, string | number | boolean>;
  readonly stack?: string;
}

/** Messages carry the conversion's id: a late answer of an earlier conversion is never taken for this one's. */
type FromThread =
  | { type: 'page'; id: number; checkpoint: PageCheckpoint }
  | { type: 'done'; id: number; result: ConversionResult }
  | { type: 'error'; id: number; error: WireError };
type ToThread =
  | { type: 'convert'; id: number; request: ConversionRequest }
  | { type: 'ack'; id: number }
  | { type: 'nack'; id: number; message: string }
  | { type: 'abort'; id: number };

/** `workerData` of a warm thread: it waits for `convert` messages. */
export interface WarmThreadData {
  readonly warm: true;
}

/** How long an aborted thread may take to answer before it is terminated, ms. */
const ABORT_GRACE_MS = 3000;
/** An idle warm thread is terminated after this long without work, ms. */
const IDLE_MS = 60_000;
/** Idle warm threads kept per worker script and limits (a pool never runs more conversions at once than its workers). */
const MAX_IDLE = 4;
/** A thread is retired after this many conversions (bounds what a leak or heap fragmentation could cost). */
const MAX_CONVERSIONS_PER_THREAD = 200;

interface WarmThread {
  readonly worker: Worker;
  conversions: number;
  idleTimer: NodeJS.Timeout | null;
}

/**
 * Idle warm threads, process-wide, per worker script and heap limits. Threads hold no state between
 * conversions (the thread builds its process runner once, with fixed options), so every service in the
 * process (tests start many) shares them.
 */
const idleThreads = new Map<string, WarmThread[]>();

function takeThread(url: URL, limits: ResourceLimits): { thread: WarmThread; key: string } {
  const key = `${url.href} ${limits.maxOldGenerationSizeMb} ${limits.maxYoungGenerationSizeMb}`;
  const idle = idleThreads.get(key);
  const warm = idle?.pop();
  if (warm) {
    if (warm.idleTimer) clearTimeout(warm.idleTimer);
    warm.idleTimer = null;
    warm.worker.ref();
    return { thread: warm, key };
  }
  const worker = new Worker(url, { workerData: { warm: true } satisfies WarmThreadData, resourceLimits: limits });
  const thread: WarmThread = { worker, conversions: 0, idleTimer: null };
  // An idle thread that ends (it should not) leaves the idle list; errors while busy are the conversion's.
  worker.on('exit', () => dropIdle(key, thread));
  worker.on('error', () => dropIdle(key, thread));
  return { thread, key };
}

function dropIdle(key: string, thread: WarmThread): void {
  const idle = idleThreads.get(key);
  const i = idle?.indexOf(thread) ?? -1;
  if (i >= 0) idle!.splice(i, 1);
  if (thread.idleTimer) clearTimeout(thread.idleTimer);
}

/** Puts a thread that answered cleanly back to wait for work (unreferenced: it never keeps the process up). */
function giveBack(key: string, thread: WarmThread): void {
  const idle = idleThreads.get(key) ?? [];
  if (thread.conversions >= MAX_CONVERSIONS_PER_THREAD || idle.length >= MAX_IDLE) {
    void thread.worker.terminate();
    return;
  }
  thread.worker.unref();
  thread.idleTimer = setTimeout(() => {
    dropIdle(key, thread);
    void thread.worker.terminate();
  }, IDLE_MS);
  thread.idleTimer.unref();
  idle.push(thread);
  idleThreads.set(key, idle);
}

/** Terminates every idle warm thread (tests, and a process that wants its memory back). */
export async function closeWarmThreads(): Promise<void> {
  const all = [...idleThreads.values()].flat();
  idleThreads.clear();
  await Promise.all(all.map((t) => (t.idleTimer && clearTimeout(t.idleTimer), t.worker.terminate())));
}

let nextConversionId = 1;

function revive(e: WireError): Error {
  if (e.name === 'RecognitionError' && e.code) return new RecognitionError(e.code as RecognitionErrorCode, e.message, e.details ?? {});
  const err = new Error(`recognition worker: ${e.message}`);
  if (e.stack) err.stack = e.stack;
  return err;
}

/** Hard limits of a conversion thread (docs/recognition.md, "Limits"). */
export interface ThreadLimits {
  /** V8 old-generation heap of the thread, MiB (default 1536): past it the thread alone ends, as `document_too_large`. */
  maxHeapMb?: number;
  /** Wall time after which the thread is terminated, ms (default: the conversion's total time limit + 60 s). */
  maxWallMs?: number;
}

/**
 * A ConvertFn that runs each conversion in a warm worker thread loaded from `workerUrl` (a new one when none
 * is idle), under a heap limit (Node `resourceLimits`: a thread that runs out of heap is terminated with
 * ERR_WORKER_OUT_OF_MEMORY instead of aborting the whole process) and a wall-time limit. A thread that
 * answered (a result or a converter error) is kept for the next conversion; one that ran out of heap or time,
 * was aborted without answering, or failed with an unexpected error is terminated.
 */
export function threadedConvert(workerUrl: URL, threadLimits: ThreadLimits = {}): ConvertFn {
  return (bytes, options) =>
    new Promise<ConversionResult>((resolve, reject) => {
      if (options.signal?.aborted) return reject(new RecognitionError('cancelled', 'the conversion was cancelled'));
      const request: ConversionRequest = {
        bytes,
        limits: options.limits,
        resumeFrom: options.resumeFrom,
        ocr: options.ocr,
        pageMarkers: options.pageMarkers,
        pageConcurrency: options.pageConcurrency,
        sha256: options.sha256,
      };
      const maxHeapMb = threadLimits.maxHeapMb ?? 1536;
      const { thread, key } = takeThread(workerUrl, { maxOldGenerationSizeMb: maxHeapMb, maxYoungGenerationSizeMb: 64 });
      const { worker } = thread;
      thread.conversions++;
      const id = nextConversionId++;
      let settled = false;
      const wallMs = threadLimits.maxWallMs ?? (options.limits?.totalTimeoutMs ?? 30 * 60_000) + 60_000;
      const wallTimer = setTimeout(() => settle(false, () => reject(new RecognitionError('conversion_timeout', `the conversion did not finish within ${Math.round(wallMs / 1000)} s and was stopped`))), wallMs);
      wallTimer.unref();
      const send = (m: ToThread) => {
        if (!settled) worker.postMessage(m);
      };
      // The thread answers an abort once its current step yields; a long synchronous pass (the layout
      // of a book) would hold shutdown, so the thread is terminated if it has not answered in time (its
      // tools are not running then: they run between the passes, and an abort kills them at once).
      let killTimer: NodeJS.Timeout | null = null;
      const onAbort = () => {
        send({ type: 'abort', id });
        killTimer = setTimeout(() => settle(false, () => reject(new RecognitionError('cancelled', 'the conversion was cancelled'))), ABORT_GRACE_MS);
        killTimer.unref();
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const onMessage = (m: FromThread) => {
        if (m.id !== id) return;
        if (m.type === 'page') {
          Promise.resolve(options.onPage?.(m.checkpoint)).then(
            () => send({ type: 'ack', id }),
            (e: unknown) => send({ type: 'nack', id, message: e instanceof Error ? e.message : String(e) }),
          );
        } else if (m.type === 'done') settle(true, () => resolve(m.result));
        // A converter error leaves the thread as clean as a result does; anything else may not.
        else settle(m.error.name === 'RecognitionError', () => reject(revive(m.error)));
      };
      const onError = (e: Error) =>
        settle(false, () =>
          reject(
            (e as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new RecognitionError('document_too_large', `the conversion needed more than its ${maxHeapMb} MiB memory limit and was stopped`, { memoryLimitMb: maxHeapMb })
              : e,
          ),
        );
      const onExit = (code: number) => settle(false, () => reject(new Error(`recognition worker exited with code ${code} before it answered`)));
      const settle = (reuse: boolean, fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(wallTimer);
        if (killTimer) clearTimeout(killTimer);
        options.signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        fn();
        if (reuse) giveBack(key, thread);
        else void worker.terminate();
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage({ type: 'convert', id, request } satisfies ToThread);
    });
}

/**
 * The thread's side, talking to the parent over `port`: converts each `convert` request with `runner`, one
 * at a time. `initial` is the thread's `workerData`: a warm thread's marker, or (older callers) one request
 * to convert at once.
 */
export function serveConversion(port: MessagePort, initial: ConversionRequest | WarmThreadData | undefined, runner: ProcessRunner): Promise<void> {
  let active: { id: number; controller: AbortController; waiting: { resolve: () => void; reject: (e: Error) => void } | null } | null = null;
  port.on('message', (m: ToThread) => {
    if (m.type === 'convert') {
      void convertOne(m.id, m.request);
      return;
    }
    if (!active || m.id !== active.id) return;
    const waiting = active.waiting;
    active.waiting = null;
    if (m.type === 'abort') {
      active.controller.abort();
      waiting?.reject(new RecognitionError('cancelled', 'the conversion was cancelled'));
    } else if (m.type === 'ack') waiting?.resolve();
    else waiting?.reject(new Error(`storing a checkpoint failed: ${m.message}`));
  });

  async function convertOne(id: number, request: ConversionRequest): Promise<void> {
    const state = { id, controller: new AbortController(), waiting: null as { resolve: () => void; reject: (e: Error) => void } | null };
    active = state;
    const { controller } = state;
    try {
      const result = await convertDocument(request.bytes, {
        runner,
        limits: request.limits,
        resumeFrom: request.resumeFrom,
        ocr: request.ocr,
        pageMarkers: request.pageMarkers,
        pageConcurrency: request.pageConcurrency,
        sha256: request.sha256,
        signal: controller.signal,
        onPage: (checkpoint) =>
          new Promise<void>((resolve, reject) => {
            if (controller.signal.aborted) return reject(new RecognitionError('cancelled', 'the conversion was cancelled'));
            state.waiting = { resolve, reject };
            port.postMessage({ type: 'page', id, checkpoint } satisfies FromThread);
          }),
      });
      port.postMessage({ type: 'done', id, result } satisfies FromThread);
    } catch (e) {
      const err = e as Error & { code?: string; details?: Record<string, string | number | boolean> };
      const wire: WireError = isRecognitionError(e)
        ? { name: 'RecognitionError', message: err.message, code: err.code, details: { ...err.details } }
        : { name: err?.name ?? 'Error', message: err?.message ?? String(e), stack: err?.stack };
      port.postMessage({ type: 'error', id, error: wire } satisfies FromThread);
    } finally {
      if (active === state) active = null;
    }
  }

  return initial && 'bytes' in initial ? convertOne(0, initial) : Promise.resolve();
}
