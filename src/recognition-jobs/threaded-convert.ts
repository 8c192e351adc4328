// Runs convertDocument in a worker thread (ADR 0035), so the document passes (layout, headings, Markdown,
// statistics: hundreds of milliseconds of synchronous work for a 13-page paper, seconds for a book) never
// stall the service's event loop. One thread per conversion; the tools still run as separate processes
// from inside the thread. Checkpoints travel to the parent, which stores them (awaited, as in-process:
// a store failure stops the conversion); an abort is forwarded so the converter kills its tools and
// rejects with `cancelled`. `serveConversion` is the thread's side, wired by src/recognition-worker.ts.
import { Worker, type MessagePort } from 'node:worker_threads';
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

type FromThread = { type: 'page'; checkpoint: PageCheckpoint } | { type: 'done'; result: ConversionResult } | { type: 'error'; error: WireError };
type ToThread = { type: 'ack' } | { type: 'nack'; message: string } | { type: 'abort' };

/** How long an aborted thread may take to answer before it is terminated, ms. */
const ABORT_GRACE_MS = 3000;

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
 * A ConvertFn that runs each conversion in a new worker thread loaded from `workerUrl`, under a heap
 * limit (Node `resourceLimits`: a thread that runs out of heap is terminated with
 * ERR_WORKER_OUT_OF_MEMORY instead of aborting the whole process) and a wall-time limit.
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
      const worker = new Worker(workerUrl, { workerData: request, resourceLimits: { maxOldGenerationSizeMb: maxHeapMb, maxYoungGenerationSizeMb: 64 } });
      let settled = false;
      const wallMs = threadLimits.maxWallMs ?? (options.limits?.totalTimeoutMs ?? 30 * 60_000) + 60_000;
      const wallTimer = setTimeout(() => settle(() => reject(new RecognitionError('conversion_timeout', `the conversion did not finish within ${Math.round(wallMs / 1000)} s and was stopped`))), wallMs);
      wallTimer.unref();
      const send = (m: ToThread) => {
        if (!settled) worker.postMessage(m);
      };
      // The thread answers an abort once its current step yields; a long synchronous pass (the layout
      // of a book) would hold shutdown, so the thread is terminated if it has not answered in time (its
      // tools are not running then: they run between the passes, and an abort kills them at once).
      let killTimer: NodeJS.Timeout | null = null;
      const onAbort = () => {
        send({ type: 'abort' });
        killTimer = setTimeout(() => settle(() => reject(new RecognitionError('cancelled', 'the conversion was cancelled'))), ABORT_GRACE_MS);
        killTimer.unref();
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(wallTimer);
        if (killTimer) clearTimeout(killTimer);
        options.signal?.removeEventListener('abort', onAbort);
        fn();
        void worker.terminate();
      };
      worker.on('message', (m: FromThread) => {
        if (m.type === 'page') {
          Promise.resolve(options.onPage?.(m.checkpoint)).then(
            () => send({ type: 'ack' }),
            (e: unknown) => send({ type: 'nack', message: e instanceof Error ? e.message : String(e) }),
          );
        } else if (m.type === 'done') settle(() => resolve(m.result));
        else settle(() => reject(revive(m.error)));
      });
      worker.on('error', (e) =>
        settle(() =>
          reject(
            (e as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new RecognitionError('document_too_large', `the conversion needed more than its ${maxHeapMb} MiB memory limit and was stopped`, { memoryLimitMb: maxHeapMb })
              : e,
          ),
        ),
      );
      worker.on('exit', (code) => settle(() => reject(new Error(`recognition worker exited with code ${code} before it answered`))));
    });
}

/** The thread's side: converts `request` with `runner`, talking to the parent over `port`. */
export async function serveConversion(port: MessagePort, request: ConversionRequest, runner: ProcessRunner): Promise<void> {
  const controller = new AbortController();
  let waiting: { resolve: () => void; reject: (e: Error) => void } | null = null;
  port.on('message', (m: ToThread) => {
    if (m.type === 'abort') {
      controller.abort();
      waiting?.reject(new RecognitionError('cancelled', 'the conversion was cancelled'));
      waiting = null;
    } else if (m.type === 'ack') {
      waiting?.resolve();
      waiting = null;
    } else {
      waiting?.reject(new Error(`storing a checkpoint failed: ${m.message}`));
      waiting = null;
    }
  });
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
          waiting = { resolve, reject };
          port.postMessage({ type: 'page', checkpoint } satisfies FromThread);
        }),
    });
    port.postMessage({ type: 'done', result } satisfies FromThread);
  } catch (e) {
    const err = e as Error & { code?: string; details?: Record<string, string | number | boolean> };
    const wire: WireError = isRecognitionError(e)
      ? { name: 'RecognitionError', message: err.message, code: err.code, details: { ...err.details } }
      : { name: err?.name ?? 'Error', message: err?.message ?? String(e), stack: err?.stack };
    port.postMessage({ type: 'error', error: wire } satisfies FromThread);
  }
  // The parent terminates the thread once it has the answer.
}
