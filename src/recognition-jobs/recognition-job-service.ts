// Recognition jobs (interface: Recognition; docs/recognition.md "Jobs"; ADRs 0033-0035): receive an
// upload (streamed into the blob store by content), create the job, poll it, fetch its result, cancel it.
// Each content is converted once (result cache keyed by SHA-256 and pipeline version) and each account's
// job billed once, when it completes. Conversions run in a ConversionPool (a worker thread each, through
// the injected ConvertFn); per-page checkpoints make them resumable after a restart, and leases in the
// store keep several service instances from converting or billing one job twice.
import { randomBytes } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import type { Principal } from '../domain/principal.js';
import { recognitionCost, type PriceTable } from '../domain/prices.js';
import type { BillingService } from '../billing/billing-service.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';
import type { ProcessRunner } from '../ports/process-runner.js';
import type { DeadLetter, JobFailure, JobQueue, QueuedJob } from '../ports/job-queue.js';
import { FINISHED_STATUSES, type RecognitionJob, type RecognitionJobStatus, type RecognitionJobStore } from '../ports/recognition-job-store.js';
import {
  PIPELINE_VERSION,
  availableFormats,
  convertDocument,
  detectFormat,
  epubByDirectory,
  isRecognitionError,
  isZip,
  locateZipDirectory,
  zipDirectoryEntries,
  ZIP_TAIL_BYTES,
  type ConversionResult,
  type ConvertOptions,
  type DocumentFormat,
  type FormatAvailability,
  type PageCheckpoint,
  type QualityReport,
  type RecognitionLimits,
} from '../recognition/index.js';
import { CheckpointBatch } from './checkpoint-batch.js';
import { ConversionPool, type ConversionRun, type PoolStats } from './conversion-pool.js';
import { LeaseJobQueue } from './lease-job-queue.js';

/** The converter (tests inject a slower or instrumented one). */
export type ConvertFn = (bytes: Uint8Array, options: ConvertOptions) => Promise<ConversionResult>;

/** How a finished job ended, for metrics. */
export type JobOutcome = 'completed' | 'failed' | 'cancelled';

export interface RecognitionJobSettings {
  /** Conversions at once (>= 1). */
  readonly workers: number;
  /** Largest upload, bytes (413 above). */
  readonly maxBytes: number;
  /** Most pages or spine items (the job fails with too_many_pages above). */
  readonly maxPages: number;
  /** Tesseract languages. */
  readonly ocrLanguages: readonly string[];
  /** Pages of one document processed at once. */
  readonly pageConcurrency: number;
  /** Further converter limits (time limits in tests). */
  readonly limits?: Partial<RecognitionLimits>;
  /**
   * How long a claim on a job holds without renewal, seconds (default 60). Claims are renewed every
   * third of it; another instance takes over the jobs of one that stopped renewing.
   */
  readonly leaseSeconds?: number;
  /**
   * Checkpoints are written when this many pages are waiting or this long after the first of them
   * (default 16 pages, 250 ms; ADR 0096); `pages: 1` writes every page before the next is converted.
   */
  readonly checkpointBatch?: { readonly pages: number; readonly ms: number };
  /**
   * Whether this process runs jobs (default true). False: it only queues them (a cluster's api node; its
   * workers run them, ADR 0250).
   */
  readonly work?: boolean;
  /**
   * How long the upload of a dead-lettered job is kept for a retry, seconds (ADR 0296; default 30 days,
   * recognition.deadLetterDays): the workers' upload sweep then discards the dead letter and deletes the
   * upload. Stored uploads older than this that no job needs any more (their dead letter expired, a
   * process died between steps) go too.
   */
  readonly uploadRetentionSeconds?: number;
  /** How often a worker runs the upload sweep, ms (default one hour; 0: never, only `sweepUploads()`). */
  readonly uploadSweepMs?: number;
}

/** What one upload sweep did (ADR 0296). */
export interface UploadSweep {
  /** Jobs whose dead letter was discarded (older than the retention). */
  readonly discarded: readonly string[];
  /** SHA-256 of the uploads deleted. */
  readonly deleted: readonly string[];
}

export interface RecognitionJobDeps {
  readonly store: RecognitionJobStore;
  /**
   * How jobs reach a worker (ADR 0250); default: the store's own leases (ADR 0035), every failure final.
   * pg-boss in a cluster: retries with backoff, dead letters.
   */
  readonly queue?: JobQueue;
  readonly blobs: BlobStore;
  readonly runner: ProcessRunner;
  readonly billing: BillingService;
  readonly prices: PriceTable;
  readonly clock: Clock;
  readonly settings: RecognitionJobSettings;
  /** Unexpected errors (logged by the caller). */
  readonly report: (err: unknown, context: string) => void;
  readonly convert?: ConvertFn;
  /** Called once per job that reaches a final state. */
  readonly onOutcome?: (outcome: JobOutcome, reason: string | null) => void;
}

/** A submission's answer: the job, and whether it was created now (else an identical earlier one). */
export interface Submitted {
  readonly job: RecognitionJob;
  readonly created: boolean;
}

/** A completed job's result. */
export interface JobResult {
  readonly job: RecognitionJob;
  readonly markdown: string;
  readonly report: QualityReport;
}

/**
 * Pages a result is billed for (ADR 0236): the report's `pages.billable` (pages whose text was read, EPUB
 * content documents with content, each once); a result stored before that field existed bills its pages.
 */
export function billablePages(report: string, pages: number): number {
  try {
    const b = (JSON.parse(report) as { pages?: { billable?: unknown } }).pages?.billable;
    return typeof b === 'number' && Number.isInteger(b) && b >= 0 ? Math.min(b, pages) : pages;
  } catch {
    return pages;
  }
}

/** Ledger operation name of recognition charges (the reference is the job id). */
export const RECOGNITION_OPERATION = 'recognition';

/**
 * Failures that depend only on the bytes: resubmitting the same file returns the failed job instead of
 * converting again. Other failures (cancelled, insufficient_credits, time limits, missing tools,
 * internal errors) let a resubmission start a new job.
 */
export const PERMANENT_FAILURES: ReadonlySet<string> = new Set(['unsupported_format', 'document_too_large', 'too_many_pages', 'encrypted_document', 'damaged_document', 'empty_document', 'too_deeply_nested', 'conversion_crashed']);

const blobKey = (sha256: string) => `recognition/${sha256}`;
/** Conversions of a content started and not finished (a marker whose size is the count; crash-loop guard). */
const attemptsKey = (sha256: string) => `recognition-attempts/${sha256}`;
/** Contents refused for good (a JSON {code, message}): later jobs of the same bytes fail without converting. */
const refusedKey = (sha256: string) => `recognition-refused/${sha256}`;
/**
 * Conversions of one content that may end without an answer (the process died during them) before the
 * content is refused for good as `conversion_crashed`: a file that brings the process down cannot put it
 * in a crash loop across restarts.
 */
export const MAX_CONVERSION_ATTEMPTS = 2;
/** Where jobs' uploads are kept (`recognition/<sha256>`). */
const UPLOADS = 'recognition/';
/** Dead letters read at most by a discard or an upload sweep. */
const DEAD_LETTERS_READ = 100_000;
/** Where uploads wait between `stage` and `submitStaged` (random names). */
const INCOMING = 'recognition/incoming/';
/** Staged uploads and interrupted writes older than this at start-up are left-overs of dead requests. */
const STALE_UPLOAD_MS = 3_600_000;

/** An upload received into the blob store, not yet a job. */
export interface StagedUpload {
  readonly key: string;
  readonly sha256: string;
  readonly bytes: number;
  readonly format: DocumentFormat;
}
const ACTIVE: readonly RecognitionJobStatus[] = ['pending', 'processing'];

export class RecognitionJobService {
  readonly #d: RecognitionJobDeps;
  readonly #pool: ConversionPool;
  readonly #convert: ConvertFn;
  #formats: Promise<FormatAvailability[]> | null = null;
  #started = false;
  #closed = false;
  #sweepTimer: NodeJS.Timeout | null = null;
  #uploadTimer: NodeJS.Timeout | null = null;
  #uploadSweep: Promise<UploadSweep> | null = null;
  #pullTimer: NodeJS.Timeout | null = null;
  #sweeping: Promise<void> | null = null;
  /** Pulls run one after another (a pull asked for after a job was queued sees that job). */
  #pulling: Promise<number> = Promise.resolve(0);
  readonly #queue: JobQueue;
  readonly #work: boolean;
  /** This instance's name in job claims (random: a restarted process is a new instance). */
  readonly #worker: string;
  readonly #lease: number;

  constructor(deps: RecognitionJobDeps) {
    this.#d = deps;
    this.#lease = deps.settings.leaseSeconds ?? 60;
    this.#queue = deps.queue ?? new LeaseJobQueue(deps.store, deps.clock, this.#lease);
    this.#worker = this.#queue.worker;
    this.#work = deps.settings.work ?? true;
    this.#convert = deps.convert ?? convertDocument;
    this.#pool = new ConversionPool(
      deps.settings.workers,
      async (run) => {
        const handled = await this.#runConversion(run);
        // a conversion that ended makes room: the queue may have more
        if (!this.#queue.takesAll) void this.#pull();
        return handled;
      },
      (err, key) => deps.report(err, `recognition conversion of ${key} failed`),
    );
  }

  /** The job queue (`leases` or `pg-boss`). */
  get queue(): JobQueue {
    return this.#queue;
  }

  /** Workers in the pool. */
  get workers(): number {
    return this.#pool.workers;
  }

  /** Which formats this machine can convert (probed once). */
  formats(): Promise<FormatAvailability[]> {
    this.#formats ??= availableFormats(this.#d.runner);
    return this.#formats;
  }

  stats(): PoolStats {
    return this.#pool.stats();
  }

  /**
   * Opens the queue and, unless this process only queues jobs, takes the jobs a previous run left pending
   * or processing (oldest first) that no other live instance holds, then keeps claims fresh and picks up
   * jobs of instances that stopped (every third of the lease), and asks the queue for work (pollMs).
   * @returns the number of jobs taken
   */
  async start(): Promise<number> {
    if (this.#started) return 0;
    this.#started = true;
    await this.#sweepDisk();
    await this.#queue.start();
    if (!this.#work) return 0;
    const taken = await this.#recover();
    this.#sweepTimer = setInterval(() => void this.sweep(), Math.max(1, Math.floor((this.#lease * 1000) / 3)));
    this.#sweepTimer.unref();
    if (!this.#queue.takesAll) {
      this.#pullTimer = setInterval(() => void this.#pull(), this.#queue.pollMs);
      this.#pullTimer.unref();
    }
    const uploadSweepMs = this.#d.settings.uploadSweepMs ?? 3_600_000;
    if (uploadSweepMs > 0) {
      this.#uploadTimer = setInterval(() => void this.sweepUploads().catch((err: unknown) => this.#d.report(err, 'recognition: the upload sweep failed')), uploadSweepMs);
      this.#uploadTimer.unref();
    }
    return taken + (await this.#pull());
  }

  /**
   * Renews the claims on the jobs held here (dropping those another instance took or that were cancelled
   * elsewhere), then lets the queue take over jobs whose claim ran out and takes work. Runs on a timer;
   * tests call it directly.
   */
  sweep(): Promise<void> {
    if (!this.#work) return Promise.resolve();
    this.#sweeping ??= (async () => {
      try {
        const now = nowSeconds(this.#d.clock);
        const held = this.#pool.held();
        const kept = new Set(await this.#d.store.claim(held.map((h) => h.jobId), this.#worker, now, now + this.#lease));
        for (const h of held) if (!kept.has(h.jobId)) this.#pool.remove(h.key, h.jobId);
        await this.#recover();
        await this.#pull();
      } catch (err) {
        this.#d.report(err, 'recognition: renewing job claims failed');
      } finally {
        this.#sweeping = null;
      }
    })();
    return this.#sweeping;
  }

  /** The queue's sweep: jobs to run here are claimed and queued, dead-lettered jobs' rows failed. */
  async #recover(): Promise<number> {
    if (this.#closed) return 0;
    const r = await this.#queue.recover(new Set(this.#pool.held().map((h) => h.jobId)));
    for (const d of r.dead) {
      await this.#failRows([d.id], { code: d.reason.code, message: `${d.reason.message}; the job was dead-lettered after its last attempt, and nothing was charged` });
    }
    return this.#accept(r.run);
  }

  /** Takes what the queue has for this worker (as much as it can start now, or all with the store's leases). */
  #pull(): Promise<number> {
    this.#pulling = this.#pulling.then(async () => {
      if (this.#closed || !this.#work) return 0;
      const stats = this.#pool.stats();
      const room = this.#queue.takesAll ? Number.MAX_SAFE_INTEGER : this.#pool.workers - stats.running - stats.queued;
      if (room <= 0) return 0;
      try {
        return await this.#accept(await this.#queue.take(room));
      } catch (err) {
        this.#d.report(err, 'recognition: taking jobs from the queue failed');
        return 0;
      }
    });
    return this.#pulling;
  }

  /**
   * Claims the rows of jobs the queue delivered and queues those it got for conversion. A job whose row
   * is finished leaves the queue; one whose row a live worker holds is left to that worker.
   */
  async #accept(jobs: readonly QueuedJob[]): Promise<number> {
    if (jobs.length === 0 || this.#closed) return 0;
    const now = nowSeconds(this.#d.clock);
    const claimed = new Set(await this.#d.store.claim(jobs.map((j) => j.id), this.#worker, now, now + this.#lease));
    let n = 0;
    for (const j of jobs) {
      if (claimed.has(j.id)) {
        this.#pool.add(j.key, j.id);
        n++;
        continue;
      }
      const row = await this.#d.store.get(j.id);
      if (!row || FINISHED_STATUSES.includes(row.status)) await this.#done([j.id]);
    }
    return n;
  }

  /**
   * Aborts running conversions (jobs stay resumable), waits for them, gives the jobs back to the queue
   * and gives up this instance's claims.
   */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#sweepTimer) clearInterval(this.#sweepTimer);
    if (this.#pullTimer) clearInterval(this.#pullTimer);
    if (this.#uploadTimer) clearInterval(this.#uploadTimer);
    await this.#uploadSweep?.catch(() => undefined);
    await this.#sweeping;
    await this.#pulling;
    const held = this.#pool.held().map((h) => h.jobId);
    await this.#pool.close();
    try {
      await this.#queue.release(held);
    } catch (err) {
      this.#d.report(err, 'recognition: giving jobs back to the queue failed');
    }
    try {
      await this.#d.store.release(this.#worker);
    } catch (err) {
      this.#d.report(err, 'recognition: releasing job claims failed');
    }
    try {
      await this.#queue.close();
    } catch (err) {
      this.#d.report(err, 'recognition: closing the job queue failed');
    }
  }

  /** Resolves when no conversion is queued or running (tests). */
  idle(): Promise<void> {
    return this.#pool.idle();
  }

  /**
   * Receives an upload into the blob store without holding it in memory: the format is detected from
   * the first bytes (422 `unsupported_format`, 503 `format_unavailable` before anything is written), the
   * size is checked as it streams (413 `payload_too_large`), and the SHA-256 computed on the way. Hand
   * the result to `submitStaged`, or to `discard` when the request fails later.
   */
  async stage(data: Uint8Array | AsyncIterable<Uint8Array>): Promise<StagedUpload> {
    const { maxBytes } = this.#d.settings;
    const tooLarge = (n: number) => new AppError('payload_too_large', `The file has ${n > maxBytes ? `more than ${maxBytes}` : n} bytes; the limit is ${maxBytes}.`, { extra: { limit_bytes: maxBytes } });
    const source: AsyncIterator<Uint8Array> =
      data instanceof Uint8Array ? (async function* () { yield data; })() : data[Symbol.asyncIterator]();
    // Detection needs the first KiB (EPUB: the first ZIP entry, up to 64 KiB with a long extra field).
    const head: Uint8Array[] = [];
    let headBytes = 0;
    let ended = false;
    while (headBytes < 65_536) {
      const next = await source.next();
      if (next.done) {
        ended = true;
        break;
      }
      head.push(next.value);
      headBytes += next.value.byteLength;
      if (headBytes > maxBytes) throw tooLarge(headBytes);
    }
    const first = Buffer.concat(head);
    const unsupported = () =>
      new AppError('unsupported_format', 'The file is not a PDF, EPUB or DJVU document (the format is detected from the content, not the name).', {
        extra: { supported: ['pdf', 'epub', 'djvu'] },
      });
    // A ZIP whose first entry is not `mimetype` may still be an EPUB (reading systems accept any entry
    // order, ADR 0235): its central directory, at the end, decides once the upload is stored.
    const zipToCheck = !ended && isZip(first) && detectFormat(first) === null;
    const format = zipToCheck ? 'epub' : detectFormat(first);
    if (!format) throw unsupported();
    const availability = (await this.formats()).find((f) => f.format === format);
    if (availability && !availability.available) {
      throw new AppError('format_unavailable', `${format.toUpperCase()} documents cannot be converted here: ${availability.missingTools.join(', ')} is not installed.`, {
        extra: { format, missing_tools: availability.missingTools },
      });
    }
    async function* all(): AsyncGenerator<Uint8Array> {
      let total = first.byteLength;
      yield first;
      while (!ended) {
        const next = await source.next();
        if (next.done) break;
        total += next.value.byteLength;
        if (total > maxBytes) throw tooLarge(total);
        yield next.value;
      }
    }
    const key = `${INCOMING}${randomBytes(16).toString('hex')}`;
    const stored = await this.#d.blobs.put(key, all());
    if (zipToCheck && !(await this.#storedZipIsEpub(key, stored.bytes))) {
      await this.#d.blobs.delete(key);
      throw unsupported();
    }
    return { key, sha256: stored.sha256, bytes: stored.bytes, format };
  }

  /** Reads a stored ZIP's central directory (its last bytes, then the directory) to tell an EPUB. */
  async #storedZipIsEpub(key: string, size: number): Promise<boolean> {
    const range = async (start: number, end: number): Promise<Uint8Array> => {
      const chunks: Buffer[] = [];
      for await (const c of this.#d.blobs.read(key, { start, end })) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    };
    const tailStart = Math.max(0, size - ZIP_TAIL_BYTES);
    const dir = locateZipDirectory(await range(tailStart, size - 1), size);
    // A directory over 16 MiB is far past any EPUB within the entry limits.
    if (!dir || dir.size === 0 || dir.size > 16 * 1024 * 1024) return false;
    return epubByDirectory(zipDirectoryEntries(await range(dir.offset, dir.offset + dir.size - 1)));
  }

  /** Removes a staged upload that will not be submitted. */
  async discard(staged: StagedUpload): Promise<void> {
    await this.#d.blobs.delete(staged.key);
  }

  /**
   * Creates the job for a staged upload. An account's identical earlier job (pending, processing or
   * completed, or failed for a reason of the file itself) is returned with `created: false` and nothing
   * charged, except a completed job whose result an upgrade of the pipeline has made stale: then a new
   * job converts the bytes again, free, since the account has paid for them (ADR 0387). The staged blob
   * is consumed either way.
   */
  async submitStaged(principal: Principal, staged: StagedUpload): Promise<Submitted> {
    try {
      const { sha256 } = staged;
      const earlier = await this.#d.store.latestFor(principal.accountId, sha256);
      const stale = earlier?.status === 'completed' && !(await this.#d.store.getResult(sha256, PIPELINE_VERSION));
      if (earlier && !stale && (earlier.status !== 'failed' && earlier.status !== 'cancelled' ? true : earlier.status === 'failed' && PERMANENT_FAILURES.has(earlier.error?.code ?? ''))) {
        return { job: earlier, created: false };
      }
      // The cheapest possible conversion (one page) must be affordable; the real price is debited at
      // completion, when the page count is known (ADR 0034). A reconversion of paid bytes is free.
      if (!stale) await this.#d.billing.requireBalance(principal, recognitionCost(this.#d.prices, 1));
      if (!(await this.#d.blobs.stat(blobKey(sha256)))) await this.#d.blobs.move(staged.key, blobKey(sha256));
      const r = await this.#d.store.createOrGet({
        id: `rj_${randomBytes(16).toString('hex')}`,
        accountId: principal.accountId,
        sha256,
        format: staged.format,
        bytes: staged.bytes,
        createdAt: nowSeconds(this.#d.clock),
      });
      if (r.created) {
        await this.#queue.enqueue({ id: r.job.id, key: sha256 });
        if (this.#work) await this.#pull();
      }
      return r;
    } finally {
      await this.#d.blobs.delete(staged.key);
    }
  }

  /** `stage` then `submitStaged`, for an upload already in memory. */
  async submit(principal: Principal, bytes: Uint8Array): Promise<Submitted> {
    return this.submitStaged(principal, await this.stage(bytes));
  }

  /** The caller's jobs, newest first (`limit` 1..100); `before` pages on from a job id of an earlier page. */
  async list(principal: Principal, limit: number, before?: string): Promise<{ jobs: RecognitionJob[]; nextBefore: string | null }> {
    const jobs = await this.#d.store.listForAccount(principal.accountId, limit, before);
    return { jobs, nextBefore: jobs.length === limit ? jobs[jobs.length - 1]!.id : null };
  }

  /** The caller's job; another account's job is `not_found` (no existence leak). */
  async get(principal: Principal, jobId: string): Promise<RecognitionJob> {
    const job = await this.#d.store.get(jobId);
    if (!job || job.accountId !== principal.accountId) throw new AppError('not_found', `No recognition job ${jobId}.`);
    return job;
  }

  /** The result of a completed job; 409 `recognition_not_ready` before, `recognition_failed` after a failure. */
  async result(principal: Principal, jobId: string): Promise<JobResult> {
    const job = await this.get(principal, jobId);
    if (job.status === 'pending' || job.status === 'processing') {
      throw new AppError('recognition_not_ready', `Recognition job ${job.id} is ${job.status} (${job.pagesDone} of ${job.pagesTotal ?? '?'} pages); poll GET /v1/recognitions/${job.id} until it is completed.`, {
        extra: { status: job.status, pages_done: job.pagesDone, pages_total: job.pagesTotal },
      });
    }
    if (job.status !== 'completed') {
      const reason = job.error?.code ?? job.status;
      throw new AppError('recognition_failed', `Recognition job ${job.id} is ${job.status}: ${job.error?.message ?? reason}`, {
        extra: { status: job.status, reason, error: job.error },
      });
    }
    // A job completed before an upgrade of the pipeline keeps the result it was billed for.
    const cached = (await this.#d.store.getResult(job.sha256, PIPELINE_VERSION)) ?? (await this.#d.store.getResult(job.sha256));
    if (!cached) throw new AppError('internal', `the result of completed job ${job.id} is missing from the cache`);
    return { job, markdown: cached.markdown, report: JSON.parse(cached.report) as QualityReport };
  }

  /** Cancels a pending or processing job; 409 `conflict` when it has already finished. */
  async cancel(principal: Principal, jobId: string): Promise<RecognitionJob> {
    const job = await this.get(principal, jobId);
    const cancelled = await this.#d.store.update(
      job.id,
      { status: 'cancelled', error: { code: 'cancelled', message: 'Cancelled by the owner; nothing was charged.' }, updatedAt: nowSeconds(this.#d.clock) },
      ACTIVE,
    );
    if (!cancelled) {
      const now = (await this.#d.store.get(job.id))!;
      throw new AppError('conflict', `Recognition job ${job.id} is already ${now.status}; only pending or processing jobs can be cancelled.`, { extra: { status: now.status } });
    }
    this.#pool.remove(job.sha256, job.id);
    this.#d.onOutcome?.('cancelled', 'cancelled');
    // a job waiting in the queue leaves it when a worker takes it and finds it cancelled
    await this.#done([job.id]);
    // An upload no live job needs any more will never be converted: it goes, with its checkpoints.
    if (!(await this.#d.store.unfinished()).some((j) => j.sha256 === job.sha256) && !(await this.#d.store.getResult(job.sha256, PIPELINE_VERSION))) {
      await this.#d.blobs.delete(blobKey(job.sha256));
      await this.#d.store.deleteCheckpoints(job.sha256);
    }
    return cancelled;
  }

  /** The queue's dead letters, oldest first (operator: `lectern jobs dead`; none with the store's leases). */
  deadLetters(limit: number): Promise<DeadLetter[]> {
    return this.#queue.deadLetters(limit);
  }

  /**
   * An operator's retry of a dead-lettered job (`lectern jobs retry`, ADR 0250): the content's crash
   * marks are cleared, the job goes back to pending (the one way out of `failed`, and only for a job in
   * the dead letters) and is queued afresh with a new set of attempts. 404 `not_found` without such a job
   * or dead letter; 409 `conflict` when its upload is no longer stored (the owner must submit again).
   */
  async retryDeadLetter(jobId: string): Promise<RecognitionJob> {
    const job = await this.#d.store.get(jobId);
    const letter = job ? (await this.#queue.deadLetters(10_000)).find((l) => l.id === jobId) : undefined;
    if (!job || !letter) throw new AppError('not_found', `No dead-lettered recognition job ${jobId} (lectern jobs dead lists them).`);
    if (job.status !== 'failed') throw new AppError('conflict', `Recognition job ${jobId} is ${job.status}, not failed; only a failed, dead-lettered job can be retried.`, { extra: { status: job.status } });
    if (!(await this.#d.blobs.stat(blobKey(job.sha256)))) {
      throw new AppError('conflict', `The upload of recognition job ${jobId} is no longer stored; its owner must submit the file again.`, { extra: { status: job.status } });
    }
    await Promise.all([this.#d.blobs.delete(refusedKey(job.sha256)), this.#d.blobs.delete(attemptsKey(job.sha256))]);
    const reopened = await this.#d.store.update(jobId, { status: 'pending', error: null, updatedAt: nowSeconds(this.#d.clock) }, ['failed']);
    if (!reopened) throw new AppError('conflict', `Recognition job ${jobId} changed meanwhile; list the dead letters again.`);
    if (!(await this.#queue.retryDead(jobId))) {
      await this.#d.store.update(jobId, { status: 'failed', error: job.error, updatedAt: nowSeconds(this.#d.clock) }, ['pending']);
      throw new AppError('not_found', `The dead letter of recognition job ${jobId} is gone (retried by someone else?).`);
    }
    if (this.#work) await this.#pull();
    return reopened;
  }

  /**
   * An operator's discard of a dead-lettered job (`lectern jobs discard`, ADR 0296): its dead letter is
   * deleted (the job stays failed and can no longer be retried) and so are its upload and checkpoints,
   * unless another unfinished job or a kept dead letter has the same content. 404 `not_found` without
   * such a job or dead letter; 409 `conflict` when the job is not failed (a retry under way).
   */
  async discardDeadLetter(jobId: string): Promise<{ job: RecognitionJob; uploadDeleted: boolean }> {
    const job = await this.#d.store.get(jobId);
    if (!job) throw new AppError('not_found', `No recognition job ${jobId}.`);
    if (job.status !== 'failed') throw new AppError('conflict', `Recognition job ${jobId} is ${job.status}, not failed; only a failed, dead-lettered job can be discarded.`, { extra: { status: job.status } });
    if (!(await this.#queue.discardDead(jobId))) throw new AppError('not_found', `No dead-lettered recognition job ${jobId} (lectern jobs dead lists them).`);
    const kept = new Set((await this.#queue.deadLetters(DEAD_LETTERS_READ)).map((l) => l.key));
    const uploadDeleted = kept.has(job.sha256) ? false : await this.#dropUpload(job.sha256);
    return { job, uploadDeleted };
  }

  /**
   * The upload retention sweep (ADR 0296; every `uploadSweepMs` on a worker, and on demand): dead letters
   * older than `uploadRetentionSeconds` are discarded (unless their job was retried meanwhile), then every
   * stored upload is deleted, with its checkpoints, that no unfinished job and no kept dead letter needs
   * and that is either a discarded dead letter's or older than the retention (a dead letter the queue
   * expired itself, a process that died between steps). Uploads of jobs waiting or running are never
   * touched; each is checked again just before it is deleted.
   */
  sweepUploads(): Promise<UploadSweep> {
    this.#uploadSweep ??= this.#sweepUploads().finally(() => {
      this.#uploadSweep = null;
    });
    return this.#uploadSweep;
  }

  async #sweepUploads(): Promise<UploadSweep> {
    const retentionS = this.#d.settings.uploadRetentionSeconds ?? 30 * 86_400;
    const nowMs = this.#d.clock.nowMs();
    const cutoffS = nowMs / 1000 - retentionS;
    const letters = await this.#queue.deadLetters(DEAD_LETTERS_READ);
    const discarded: string[] = [];
    const discardedKeys = new Set<string>();
    for (const l of letters) {
      if (l.deadAt >= cutoffS) continue;
      const row = await this.#d.store.get(l.id);
      if (row && row.status !== 'failed') continue; // an operator's retry under way
      if (await this.#queue.discardDead(l.id)) {
        discarded.push(l.id);
        discardedKeys.add(l.key);
      }
    }
    const kept = new Set(letters.filter((l) => !discarded.includes(l.id)).map((l) => l.key));
    const deleted: string[] = [];
    for (const b of await this.#d.blobs.list(UPLOADS)) {
      if (b.key.startsWith(INCOMING)) continue;
      const sha256 = b.key.slice(UPLOADS.length);
      if (!/^[0-9a-f]{64}$/.test(sha256) || kept.has(sha256)) continue;
      if (!discardedKeys.has(sha256) && b.modifiedMs >= nowMs - retentionS * 1000) continue;
      if (await this.#dropUpload(sha256)) deleted.push(sha256);
    }
    return { discarded, deleted };
  }

  /** Deletes the upload of `sha256` and its checkpoints unless an unfinished job needs them; whether it did. */
  async #dropUpload(sha256: string): Promise<boolean> {
    if ((await this.#d.store.unfinished()).some((j) => j.sha256 === sha256)) return false;
    const existed = (await this.#d.blobs.stat(blobKey(sha256))) !== null;
    await this.#d.blobs.delete(blobKey(sha256));
    await this.#d.store.deleteCheckpoints(sha256);
    return existed;
  }

  /**
   * Start-up housekeeping (docs/recognition.md, "Disk"): uploads staged by requests that never finished
   * (older than an hour) and files of interrupted blob writes are deleted.
   */
  async #sweepDisk(): Promise<void> {
    const cutoff = this.#d.clock.nowMs() - STALE_UPLOAD_MS;
    try {
      for (const b of await this.#d.blobs.list(INCOMING)) if (b.modifiedMs < cutoff) await this.#d.blobs.delete(b.key);
      await this.#d.blobs.sweepInterrupted(cutoff);
    } catch (err) {
      this.#d.report(err, 'recognition: start-up disk sweep failed');
    }
  }

  // ------------------------------------------------------------------------------------------ worker

  /** One conversion of `run.key` (a SHA-256) for the jobs waiting for it; resolves with the jobs it finished. */
  async #runConversion(run: ConversionRun): Promise<readonly string[]> {
    const { store } = this.#d;
    const sha256 = run.key;
    let result = await store.getResult(sha256, PIPELINE_VERSION);
    if (!result) {
      if (run.jobs().length === 0) return [];
      const refused = await this.#readSmall(refusedKey(sha256));
      if (refused) {
        const r = JSON.parse(refused.toString('utf8')) as { code: string; message: string };
        return this.#failAll(run.jobs(), { code: r.code, message: `${r.message}; nothing was charged (this content was refused before).` });
      }
      const attempts = (await this.#d.blobs.stat(attemptsKey(sha256)))?.bytes ?? 0;
      if (attempts >= MAX_CONVERSION_ATTEMPTS) {
        const crashed = { code: 'conversion_crashed', message: `The conversion of this file stopped the service ${attempts} times and is not tried again` };
        // with a queue that keeps dead letters the upload stays, so an operator can retry the job (ADR 0250)
        if (this.#queue.retries) return this.#deadLetter(sha256, run.jobs(), crashed);
        return this.#refuse(sha256, run.jobs(), crashed);
      }
      // The attempt is counted before the conversion starts (read the upload and the checkpoints meanwhile).
      const [, bytes, stored] = await Promise.all([
        this.#d.blobs.put(attemptsKey(sha256), new Uint8Array(attempts + 1)),
        this.#readUpload(sha256),
        store.checkpoints(sha256, PIPELINE_VERSION),
      ]);
      if (!bytes) return this.#failAll(run.jobs(), { code: 'internal', message: 'The uploaded file is no longer stored; submit it again.' });
      const resumeFrom = stored.map((c) => JSON.parse(c.data) as PageCheckpoint);
      await this.#progress(run.jobs(), { status: 'processing', pagesDone: resumeFrom.length > 0 ? Math.max(...resumeFrom.map((c) => c.page)) : 0, pagesTotal: resumeFrom[0]?.pageCount });
      const s = this.#d.settings;
      // Checkpoints and progress are written a batch at a time; the last page of a batch is the progress.
      const batch = new CheckpointBatch(
        async (pages) => {
          for (const c of pages) await store.putCheckpoint(sha256, PIPELINE_VERSION, c.page, JSON.stringify(c));
          const last = pages[pages.length - 1]!;
          await this.#progress(run.jobs(), { status: 'processing', pagesDone: last.page, pagesTotal: last.pageCount });
        },
        s.checkpointBatch?.pages,
        s.checkpointBatch?.ms,
      );
      let converted: ConversionResult;
      try {
        converted = await this.#convert(bytes, {
          runner: this.#d.runner,
          sha256, // the job's key: the upload's hash, computed as it streamed in
          limits: { ...s.limits, maxBytes: s.maxBytes, maxPages: s.maxPages },
          signal: run.signal,
          resumeFrom,
          ocr: { enabled: true, languages: [...s.ocrLanguages] },
          pageConcurrency: s.pageConcurrency,
          onPage: (c) => batch.add(c),
        });
      } catch (e) {
        // The pages converted so far are kept for a later run (a store that fails again is no reason to fail twice).
        await batch.flush().catch(() => {});
        await this.#d.blobs.delete(attemptsKey(sha256));
        if (isRecognitionError(e) && e.code === 'cancelled') {
          // Shutdown: the jobs stay processing and resume at the next start. Cancelled by their owners:
          // they are already marked, and jobs that joined since get a new run (returned as unhandled).
          // Either way the checkpoints stay for a later run.
          return this.#pool.abortCause(sha256) === 'unwanted' ? [] : run.jobs();
        }
        if (isRecognitionError(e)) {
          // A file that cannot be read will not be converted again: it is refused for good, its upload
          // and checkpoints go (docs/recognition.md, "Limits").
          if (PERMANENT_FAILURES.has(e.code)) return this.#refuse(sha256, run.jobs(), { code: e.code, message: e.message });
          // Any other failure (conversion_timeout, ...) ends these jobs: the upload is not kept (a new
          // submission uploads again; the checkpoints stay, so it resumes where this one stopped).
          await this.#d.blobs.delete(blobKey(sha256));
          return this.#failAll(run.jobs(), { code: e.code, message: `${e.message}; nothing was charged.` });
        }
        this.#d.report(e, `recognition of ${sha256} failed unexpectedly`);
        const internal = { code: 'internal', message: 'The conversion failed unexpectedly; nothing was charged. Submit the file again, or report the job id.' };
        // a queue with retries tries again after a backoff (the upload stays for it), then dead-letters
        if (this.#queue.retries) return this.#failAttempt(run.jobs(), internal);
        await this.#d.blobs.delete(blobKey(sha256));
        return this.#failAll(run.jobs(), internal);
      }
      // Kept as written rather than read back (the Markdown of a book is megabytes). Should another
      // instance have stored this content's result first, theirs stays; it has the same page count.
      result = {
        sha256,
        pipeline: PIPELINE_VERSION,
        markdown: converted.markdown,
        report: JSON.stringify(converted.report),
        pages: converted.report.input.pages,
        createdAt: nowSeconds(this.#d.clock),
      };
      // Pages still waiting are not needed any more; a write under way finishes before the checkpoints go.
      await batch.discard();
      await store.putResult(result);
      // With the result stored, the checkpoints, the attempt marker and the upload go at once (ADR 0132).
      await Promise.all([store.deleteCheckpoints(sha256), this.#d.blobs.delete(attemptsKey(sha256)), this.#d.blobs.delete(blobKey(sha256))]);
    } else {
      // The result, not the file, is what every later job of this content needs (a job that joins now
      // finds the cached result): the upload goes, so stored uploads do not grow with completed work.
      await this.#d.blobs.delete(blobKey(sha256));
    }
    const finished = run.jobs();
    const billable = billablePages(result.report, result.pages);
    for (const id of finished) await this.#complete(id, result.pages, billable);
    return finished;
  }

  /** Bills and completes one job (or fails it with insufficient_credits). */
  async #complete(jobId: string, pages: number, billable: number): Promise<void> {
    const { store, billing } = this.#d;
    const job = await store.get(jobId);
    if (!job || !ACTIVE.includes(job.status)) return this.#done([jobId]);
    // Bill only while this instance holds the job: another one that took it over bills it instead.
    const now = nowSeconds(this.#d.clock);
    if ((await store.claim([job.id], this.#worker, now, now + this.#lease)).length === 0) return;
    try {
      await this.#bill(job, pages, billable);
    } finally {
      await this.#done([job.id]);
    }
  }

  async #bill(job: RecognitionJob, pages: number, billable: number): Promise<void> {
    const { store, billing } = this.#d;
    // An identical resubmission is free: an account that has a completed job for these bytes (converted
    // by an earlier pipeline, ADR 0387) is not charged again.
    const paid = await store.latestCompletedFor(job.accountId, job.sha256);
    const amount = paid && paid.id !== job.id ? 0 : recognitionCost(this.#d.prices, billable);
    const charge = await billing.chargeOnce(job.accountId, amount, RECOGNITION_OPERATION, job.id);
    const at = nowSeconds(this.#d.clock);
    if (!charge.ok) {
      const failed = await store.update(
        job.id,
        {
          status: 'failed',
          pagesDone: pages,
          pagesTotal: pages,
          error: { code: 'insufficient_credits', message: `The document has ${billable} billable pages (of ${pages}) and costs ${amount} credits; the balance is ${charge.balance}. Nothing was charged; top up and submit the file again (the conversion is kept, so it completes at once).` },
          updatedAt: at,
        },
        ACTIVE,
      );
      if (failed) this.#d.onOutcome?.('failed', 'insufficient_credits');
      return;
    }
    const done = await store.update(job.id, { status: 'completed', pagesDone: pages, pagesTotal: pages, error: null, chargedCredits: charge.amount, updatedAt: at }, ACTIVE);
    if (done) {
      this.#d.onOutcome?.('completed', null);
    } else if (charge.amount > 0) {
      // Cancelled between the debit and the status change: give the credits back.
      await billing.refund(job.accountId, charge.amount, RECOGNITION_OPERATION, job.id);
    }
  }

  /** Fails the jobs for good (a reason of the file, or one a retry would not change); they leave the queue. */
  async #failAll(jobIds: readonly string[], error: { code: string; message: string }): Promise<readonly string[]> {
    await this.#failRows(jobIds, error);
    await this.#done(jobIds);
    return jobIds;
  }

  async #failRows(jobIds: readonly string[], error: { code: string; message: string }): Promise<void> {
    for (const id of jobIds) {
      const failed = await this.#d.store.update(id, { status: 'failed', error, updatedAt: nowSeconds(this.#d.clock) }, ACTIVE);
      if (failed) this.#d.onOutcome?.('failed', error.code);
    }
  }

  /** The jobs left the queue (their rows are final); a queue that cannot be told now finds out when it delivers them again. */
  async #done(jobIds: readonly string[]): Promise<void> {
    for (const id of jobIds) {
      try {
        await this.#queue.done(id);
      } catch (err) {
        this.#d.report(err, `recognition: settling job ${id} in the queue failed`);
      }
    }
  }

  /**
   * An attempt failed without an answer: the queue retries each job after a backoff (its row stays as it
   * is and its claim is let go at once, so any worker can take the retry) or dead-letters it after its
   * last attempt (its row fails with the reason).
   */
  async #failAttempt(jobIds: readonly string[], error: JobFailure, final = false): Promise<readonly string[]> {
    for (const id of jobIds) {
      let outcome: 'retry' | 'dead';
      try {
        outcome = await this.#queue.fail(id, error, final);
      } catch (err) {
        // the queue is unreachable: the job stays claimed until its lease runs out, then a sweep takes it over
        this.#d.report(err, `recognition: failing an attempt of job ${id} in the queue failed`);
        continue;
      }
      if (outcome === 'dead') {
        await this.#failRows([id], { code: error.code, message: `${error.message.replace(/[.;]?\s*$/, '')}; the job was dead-lettered, and nothing was charged.` });
      } else {
        // a claim until a second ago is one that has ended: the retry may be taken by any worker
        const now = nowSeconds(this.#d.clock);
        await this.#d.store.claim([id], this.#worker, now, now - 1);
      }
    }
    return jobIds;
  }

  /**
   * A crash loop with a queue that keeps dead letters: later jobs of the content fail at once (as with
   * #refuse), but the upload and the checkpoints stay, so an operator who fixed the cause can retry.
   */
  async #deadLetter(sha256: string, jobIds: readonly string[], error: JobFailure): Promise<readonly string[]> {
    await this.#d.blobs.put(refusedKey(sha256), new TextEncoder().encode(JSON.stringify(error)));
    await this.#d.blobs.delete(attemptsKey(sha256));
    return this.#failAttempt(jobIds, error, true);
  }

  async #progress(jobIds: readonly string[], p: { status: 'processing'; pagesDone: number; pagesTotal: number | undefined }): Promise<void> {
    const at = nowSeconds(this.#d.clock);
    for (const id of jobIds) {
      await this.#d.store.update(id, { status: p.status, pagesDone: p.pagesDone, ...(p.pagesTotal !== undefined ? { pagesTotal: p.pagesTotal } : {}), updatedAt: at }, ACTIVE);
    }
  }

  /** Refuses a content for good: later jobs of it fail at once; its upload and checkpoints are deleted. */
  async #refuse(sha256: string, jobIds: readonly string[], error: { code: string; message: string }): Promise<readonly string[]> {
    await this.#d.blobs.put(refusedKey(sha256), new TextEncoder().encode(JSON.stringify(error)));
    await this.#d.store.deleteCheckpoints(sha256);
    await this.#d.blobs.delete(blobKey(sha256));
    await this.#d.blobs.delete(attemptsKey(sha256));
    return this.#failAll(jobIds, { code: error.code, message: `${error.message}; nothing was charged.` });
  }

  async #readSmall(key: string): Promise<Buffer | null> {
    if (!(await this.#d.blobs.stat(key))) return null;
    const chunks: Buffer[] = [];
    for await (const c of this.#d.blobs.read(key)) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  }

  async #readUpload(sha256: string): Promise<Uint8Array | null> {
    if (!(await this.#d.blobs.stat(blobKey(sha256)))) return null;
    const chunks: Buffer[] = [];
    for await (const c of this.#d.blobs.read(blobKey(sha256))) chunks.push(c as Buffer);
    return new Uint8Array(Buffer.concat(chunks));
  }
}
