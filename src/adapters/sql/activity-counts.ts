// Folding per-kind activity counts into the DocumentActivity counters, shared by the SQLite and
// PostgreSQL activity stores so both answer with the same shape from the same per-kind rows.
import type { ActivityCounts, ActivityEvent, ActivityTotals } from '../../ports/activity-store.js';
import { utcDay } from './document-row.js';

/** One row per event kind: events in the last 7 and 30 days (drivers may return counts as strings). */
export interface KindCountRow {
  kind: string;
  d7: number | string;
  d30: number | string;
}

/** Folds per-kind counts into the counters of one document; `newest` is the newest event time or null. */
export function countsFromRows(documentId: string, rows: readonly KindCountRow[], newest: number | string | null): ActivityCounts {
  const c = (kind: string, which: 'd7' | 'd30') => Number(rows.find((r) => r.kind === kind)?.[which] ?? 0);
  return {
    documentId,
    views7d: c('view', 'd7'),
    views30d: c('view', 'd30'),
    shown7d: c('shown', 'd7'),
    shown30d: c('shown', 'd30'),
    agentReads7d: c('agent_read', 'd7'),
    agentReads30d: c('agent_read', 'd30'),
    aiCitations7d: c('ai_citation', 'd7'),
    aiCitations30d: c('ai_citation', 'd30'),
    positiveRatings7d: c('positive_rating', 'd7'),
    positiveRatings30d: c('positive_rating', 'd30'),
    asOfAt: newest === null ? null : Number(newest),
  };
}

/** Seconds in the two activity windows (interface, Activity and trending: 7 and 30 days). */
export const WINDOW_7D_SECONDS = 7 * 86_400;
export const WINDOW_30D_SECONDS = 30 * 86_400;

/** SELECT list folding activity_daily rows into ActivityTotals columns, ordered by the trending weights. */
export const TOP_COLUMNS = `document_id,
  SUM(CASE WHEN kind = 'view' THEN n ELSE 0 END) AS views,
  SUM(CASE WHEN kind = 'shown' THEN n ELSE 0 END) AS shown,
  SUM(CASE WHEN kind = 'agent_read_accounts' THEN n ELSE 0 END) AS agent_reads,
  SUM(CASE WHEN kind = 'ai_citation_accounts' THEN n ELSE 0 END) AS ai_citations,
  SUM(CASE WHEN kind = 'positive_rating_accounts' THEN n ELSE 0 END) AS positive_ratings`;
export const TOP_ORDER = `SUM(CASE kind WHEN 'view' THEN n WHEN 'agent_read_accounts' THEN 2 * n WHEN 'ai_citation_accounts' THEN 3 * n WHEN 'positive_rating_accounts' THEN 3 * n ELSE 0 END) DESC, document_id`;

/**
 * Kinds that trending counts once per account, document and UTC day (ADR 0211): an event of one of
 * these with an account also stores a raw row (de-duplicated by `activity_account_once`), and when that
 * row is new it adds to the `<kind>_accounts` counter that trending reads. Without an account an event
 * counts as its own reader.
 */
export const PER_ACCOUNT_KINDS: ReadonlySet<string> = new Set(['agent_read', 'ai_citation', 'positive_rating']);
export const accountsKind = (kind: string): string => `${kind}_accounts`;

/** First UTC day inside a window of `days` days ending with the day of `now`. */
export const firstDay = (now: number, days: number): number => Math.floor(now / 86_400) - days + 1;
export interface TotalsRow {
  document_id: string;
  views: number | string;
  shown: number | string;
  agent_reads: number | string;
  ai_citations: number | string;
  positive_ratings: number | string;
}

export const rowToTotals = (r: TotalsRow): ActivityTotals => ({
  documentId: r.document_id,
  views: Number(r.views),
  shown: Number(r.shown),
  agentReads: Number(r.agent_reads),
  aiCitations: Number(r.ai_citations),
  positiveRatings: Number(r.positive_ratings),
});

/** Counted events of a batch per (document, UTC day, kind): how many, and the newest time. */
export interface DailyGroup {
  documentId: string;
  day: number;
  kind: string;
  n: number;
  lastAt: number;
}

/**
 * Groups the events that `counts` accepts (in order; it may store a raw row and say whether the event
 * counted) into one daily-counter increment per (document, day, kind): a batch of shown events over
 * the same hits becomes a few upserts (ADR 0137).
 */
export function dailyGroups(events: readonly (Omit<ActivityEvent, 'kind'> & { kind: string })[], counts: (e: Omit<ActivityEvent, 'kind'> & { kind: string }) => boolean): DailyGroup[] {
  const groups = new Map<string, DailyGroup>();
  for (const e of events) {
    if (!counts(e)) continue;
    const day = utcDay(e.at);
    const key = `${e.kind}\u0000${day}\u0000${e.documentId}`;
    const g = groups.get(key);
    if (g) {
      g.n++;
      if (e.at > g.lastAt) g.lastAt = e.at;
    } else groups.set(key, { documentId: e.documentId, day, kind: e.kind, n: 1, lastAt: e.at });
  }
  return [...groups.values()];
}
