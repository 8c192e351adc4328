// Runs convertDocument in a worker thread (ADR 0035), so the document passes (layout, headings, Markdown,
// statistics: hundreds of milliseconds of synchronous work for a 13-page paper, seconds for a book) never
// stall the service's event loop. Threads are kept warm (ADR 0096): a thread that answered cleanly waits,
// unreferenced, for the next conversion instead of being terminated, so a conversion neither pays the
// thread start (about 50 ms of module loading) nor runs its code cold in a fresh JIT. The tools still run
// as separate processes from inside the thread. Checkpoints travel to the parent, which stores them in page
// order; the thread goes on without waiting for each answer, with at most `checkpointWindow` pages unanswered
// (ADR 0132): a store failure (nack) stops the conversion at its next page, and a conversion whose last pages
// failed to store fails with that error even when the thread finished. An abort is forwarded so the converter
// kills its tools and rejects with `cancelled`. `serveConversion` is the thread's side, wired by
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
  | { type: 'convert'; id: number; request: ConversionRequest; window?: number }
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
/** Pages a thread may hand over before the parent answered them (the checkpoint batch size, ADR 0132). */
export const DEFAULT_CHECKPOINT_WINDOW = 16;

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
  /**
   * Pages the thread hands over without the parent's answer before it waits (default 16, the checkpoint
   * batch size; 1: every page waits for its answer, as before ADR 0132).
   */
  checkpointWindow?: number;
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
      // Pages are handed to onPage one at a time, in the order the thread sent them; the thread does not wait
      // for them (up to its window), so the answer of a conversion waits for the pages before it.
      let pages: Promise<void> = Promise.resolve();
      let pageFailure: { error: unknown } | null = null;
      const failureError = (): Error => {
        const e = pageFailure!.error;
        // The error the thread raises on a nack: the job fails the same whichever side noticed first.
        return isRecognitionError(e) ? e : new Error(`recognition worker: storing a checkpoint failed: ${e instanceof Error ? e.message : String(e)}`);
      };
      const onMessage = (m: FromThread) => {
        if (m.id !== id) return;
        if (m.type === 'page') {
          const checkpoint = m.checkpoint;
          pages = pages.then(async () => {
            // After a failure, or once the conversion was answered, later pages are not stored.
            if (settled || pageFailure) return send({ type: 'nack', id, message: 'an earlier checkpoint was not stored' });
            try {
              await options.onPage?.(checkpoint);
              send({ type: 'ack', id });
            } catch (e) {
              pageFailure = { error: e };
              send({ type: 'nack', id, message: e instanceof Error ? e.message : String(e) });
            }
          });
        } else if (m.type === 'done') void pages.then(() => settle(true, () => (pageFailure ? reject(failureError()) : resolve(m.result))));
        // A converter error leaves the thread as clean as a result does; anything else may not. A checkpoint
        // failure is what stopped the conversion when there was one (the thread rejects at its next page).
        else void pages.then(() => settle(m.error.name === 'RecognitionError' || pageFailure !== null, () => reject(pageFailure ? failureError() : revive(m.error))));
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
      const window = Math.max(1, Math.floor(threadLimits.checkpointWindow ?? DEFAULT_CHECKPOINT_WINDOW));
      worker.postMessage({ type: 'convert', id, request, window } satisfies ToThread);
    });
}

/**
 * The thread's side, talking to the parent over `port`: converts each `convert` request with `runner`, one
 * at a time. `initial` is the thread's `workerData`: a warm thread's marker, or (older callers) one request
 * to convert at once.
 */
export function serveConversion(port: MessagePort, initial: ConversionRequest | WarmThreadData | undefined, runner: ProcessRunner): Promise<void> {
  interface Active {
    readonly id: number;
    readonly controller: AbortController;
    /** Pages handed over and not yet answered. */
    unanswered: number;
    /** The first nack (or the abort): every later page rejects with it. */
    failure: Error | null;
    /** Pages waiting for room in the window. */
    readonly waiting: { resolve: () => void; reject: (e: Error) => void }[];
  }
  let active: Active | null = null;
  port.on('message', (m: ToThread) => {
    if (m.type === 'convert') {
      void convertOne(m.id, m.request, m.window ?? 1);
      return;
    }
    const state = active;
    if (!state || m.id !== state.id) return;
    if (m.type === 'abort') {
      state.controller.abort();
      state.failure ??= new RecognitionError('cancelled', 'the conversion was cancelled');
    } else {
      state.unanswered = Math.max(0, state.unanswered - 1);
      if (m.type === 'nack') state.failure ??= new Error(`storing a checkpoint failed: ${m.message}`);
    }
    if (state.failure) for (const w of state.waiting.splice(0)) w.reject(state.failure);
    else if (m.type === 'ack') state.waiting.shift()?.resolve();
  });

  async function convertOne(id: number, request: ConversionRequest, window: number): Promise<void> {
    const state: Active = { id, controller: new AbortController(), unanswered: 0, failure: null, waiting: [] };
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
        // The page goes to the parent at once; the converter waits only while `window` pages are unanswered,
        // and learns of a failed store (a nack) at its next page.
        onPage: (checkpoint) => {
          if (controller.signal.aborted) return Promise.reject(new RecognitionError('cancelled', 'the conversion was cancelled'));
          if (state.failure) return Promise.reject(state.failure);
          port.postMessage({ type: 'page', id, checkpoint } satisfies FromThread);
          state.unanswered++;
          if (state.unanswered <= Math.max(0, window - 1)) return Promise.resolve();
          return new Promise<void>((resolve, reject) => state.waiting.push({ resolve, reject }));
        },
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

  return initial && 'bytes' in initial ? convertOne(0, initial, 1) : Promise.resolve();
}
