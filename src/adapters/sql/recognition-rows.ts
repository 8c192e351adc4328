// Row mapping of the recognition job tables, shared by the SQLite and PostgreSQL stores.
import type { RecognitionJob, RecognitionJobPatch, RecognitionJobStatus, RecognitionResultRecord } from '../../ports/recognition-job-store.js';

export interface JobRow {
  id: string;
  account_id: number | string;
  sha256: string;
  format: string;
  bytes: number | string;
  status: string;
  pages_total: number | null;
  pages_done: number;
  error_code: string | null;
  error_message: string | null;
  charged_credits: number | string | null;
  created_at: number | string;
  updated_at: number | string;
  worker: string | null;
  lease_until: number | string | null;
}

export function rowToJob(r: JobRow): RecognitionJob {
  return {
    id: r.id,
    accountId: Number(r.account_id),
    sha256: r.sha256,
    format: r.format,
    bytes: Number(r.bytes),
    status: r.status as RecognitionJobStatus,
    pagesTotal: r.pages_total === null ? null : Number(r.pages_total),
    pagesDone: Number(r.pages_done),
    error: r.error_code === null ? null : { code: r.error_code, message: r.error_message ?? '' },
    chargedCredits: r.charged_credits === null ? null : Number(r.charged_credits),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    worker: r.worker,
    leaseUntil: r.lease_until === null ? null : Number(r.lease_until),
  };
}

export interface ResultRow {
  sha256: string;
  pipeline: string;
  markdown: string;
  report: string;
  pages: number;
  created_at: number | string;
}

export const rowToResult = (r: ResultRow): RecognitionResultRecord => ({
  sha256: r.sha256,
  pipeline: r.pipeline,
  markdown: r.markdown,
  report: r.report,
  pages: Number(r.pages),
  createdAt: Number(r.created_at),
});

/** `SET` assignments and their values for a patch, in column order; `param(i)` renders placeholder i. */
export function patchAssignments(patch: RecognitionJobPatch, param: (i: number) => string): { sql: string; values: unknown[] } {
  const cols: [string, unknown][] = [];
  if (patch.status !== undefined) cols.push(['status', patch.status]);
  if (patch.pagesTotal !== undefined) cols.push(['pages_total', patch.pagesTotal]);
  if (patch.pagesDone !== undefined) cols.push(['pages_done', patch.pagesDone]);
  if (patch.error !== undefined) {
    cols.push(['error_code', patch.error?.code ?? null]);
    cols.push(['error_message', patch.error?.message ?? null]);
  }
  if (patch.chargedCredits !== undefined) cols.push(['charged_credits', patch.chargedCredits]);
  cols.push(['updated_at', patch.updatedAt]);
  return { sql: cols.map(([c], i) => `${c} = ${param(i + 1)}`).join(', '), values: cols.map(([, v]) => v) };
}

/**
 * Statuses that hold the (account, sha256) slot in the store: createOrGet returns such a job. A completed
 * job is returned by the service instead, while its result is current (ADR 0387).
 */
export const LIVE_STATUSES: readonly RecognitionJobStatus[] = ['pending', 'processing'];
