// Durable state of recognition jobs (docs/recognition.md, "Jobs"; ADR 0033): the jobs themselves, the
// per-page checkpoints of conversions in progress, and the result cache. Checkpoints and results are
// keyed by content (SHA-256 of the upload) and pipeline version, not by job: two jobs with the same bytes
// share one conversion. Jobs belong to one account; the store does not enforce who may read them.

/** Job states: pending -> processing -> completed | failed; pending/processing -> cancelled. */
export type RecognitionJobStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled';

/** States a job never leaves. */
export const FINISHED_STATUSES: readonly RecognitionJobStatus[] = ['completed', 'failed', 'cancelled'];

export interface RecognitionJobError {
  /** Stable lower snake_case code (a RecognitionError code, `insufficient_credits`, `internal`, ...). */
  readonly code: string;
  /** Safe to show the job's owner. */
  readonly message: string;
}

export interface RecognitionJob {
  /** `rj_` + 32 hex characters. */
  readonly id: string;
  readonly accountId: number;
  /** SHA-256 of the uploaded bytes, hex. */
  readonly sha256: string;
  /** `pdf`, `epub` or `djvu` (detected from the bytes). */
  readonly format: string;
  /** Upload size in bytes. */
  readonly bytes: number;
  readonly status: RecognitionJobStatus;
  /** Pages (or EPUB spine items) once known, else null. */
  readonly pagesTotal: number | null;
  /** Pages converted so far. */
  readonly pagesDone: number;
  /** Set when failed or cancelled. */
  readonly error: RecognitionJobError | null;
  /** Credits debited for this job (set when completed; 0 when free). */
  readonly chargedCredits: number | null;
  /** Unix seconds. */
  readonly createdAt: number;
  readonly updatedAt: number;
  /** The service instance that holds the job (converting or queued there), or null. */
  readonly worker: string | null;
  /** Unix seconds until which `worker`'s claim holds, or null. */
  readonly leaseUntil: number | null;
}

export interface NewRecognitionJob {
  readonly id: string;
  readonly accountId: number;
  readonly sha256: string;
  readonly format: string;
  readonly bytes: number;
  readonly createdAt: number;
}

/** Fields a transition may set (others stay as they are). */
export interface RecognitionJobPatch {
  readonly status?: RecognitionJobStatus;
  readonly pagesTotal?: number | null;
  readonly pagesDone?: number;
  readonly error?: RecognitionJobError | null;
  readonly chargedCredits?: number | null;
  readonly updatedAt: number;
}

/** A cached conversion result. */
export interface RecognitionResultRecord {
  readonly sha256: string;
  readonly pipeline: string;
  readonly markdown: string;
  /** The quality report as JSON text. */
  readonly report: string;
  /** Pages (or spine items) of the document: what billing counts. */
  readonly pages: number;
  readonly createdAt: number;
}

/** One stored page checkpoint (the converter's PageCheckpoint as JSON text). */
export interface StoredCheckpoint {
  readonly page: number;
  readonly data: string;
}

export interface RecognitionJobStore {
  /**
   * Inserts a pending job unless the account already has an unfinished job (pending or processing) for
   * the same SHA-256; then that job is returned with `created: false`. Atomic: concurrent identical
   * submissions create one job. A completed job does not hold the slot (the service returns it while its
   * result is current, ADR 0387).
   */
  createOrGet(job: NewRecognitionJob): Promise<{ job: RecognitionJob; created: boolean }>;
  get(id: string): Promise<RecognitionJob | null>;
  /** The account's newest job for this content in any state, or null. */
  latestFor(accountId: number, sha256: string): Promise<RecognitionJob | null>;
  /** The account's newest completed job for this content, or null (an identical resubmission is free). */
  latestCompletedFor(accountId: number, sha256: string): Promise<RecognitionJob | null>;
  /**
   * The account's jobs, newest first, at most `limit`; with `beforeId`, those submitted before that job
   * of the account (none when it is not the account's).
   */
  listForAccount(accountId: number, limit: number, beforeId?: string): Promise<RecognitionJob[]>;
  /** Jobs still pending or processing, oldest first (restart resume, FIFO). */
  unfinished(): Promise<RecognitionJob[]>;
  /**
   * Applies `patch` when the job's status is one of `from` (all statuses when omitted); returns the
   * updated job, or null when the job is missing or in another state (the transition lost a race).
   */
  update(id: string, patch: RecognitionJobPatch, from?: readonly RecognitionJobStatus[]): Promise<RecognitionJob | null>;
  /**
   * Claims pending or processing jobs for `worker` until `until` (Unix seconds): those nobody holds,
   * whose lease ended before `now`, or already held by `worker` (a renewal). Returns the ids claimed.
   */
  claim(ids: readonly string[], worker: string, now: number, until: number): Promise<string[]>;
  /** Gives up every claim of `worker` (graceful shutdown): other instances may take the jobs at once. */
  release(worker: string): Promise<void>;

  /** Stores (or replaces) the checkpoint of one page of (sha256, pipeline). */
  putCheckpoint(sha256: string, pipeline: string, page: number, data: string): Promise<void>;
  /** Checkpoints of (sha256, pipeline) by page. */
  checkpoints(sha256: string, pipeline: string): Promise<StoredCheckpoint[]>;
  /** Removes the checkpoints of `sha256` (every pipeline), e.g. once its result is cached. */
  deleteCheckpoints(sha256: string): Promise<void>;

  /** Caches a result; an existing one for (sha256, pipeline) is kept (first write wins). */
  putResult(result: RecognitionResultRecord): Promise<void>;
  /** The result of (sha256, pipeline); without `pipeline`, the newest result of any pipeline version. */
  getResult(sha256: string, pipeline?: string): Promise<RecognitionResultRecord | null>;
}
