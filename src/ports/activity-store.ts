// Document activity events (interface, Activity and trending). Recording an event also adds it to a
// daily counter (document, UTC day, kind); counters and trending read only those, so raw events can be
// pruned after they stop de-duplicating views (retention: docs/community.md). Windows are whole UTC
// days: "7 days" is today and the 6 days before, "30 days" today and the 29 before.

export type ActivityKind = 'view' | 'shown' | 'agent_read' | 'ai_citation' | 'positive_rating';

export interface ActivityEvent {
  documentId: string;
  kind: ActivityKind;
  accountId: number | null;
  /** Views count once per visitor and UTC day; other kinds ignore it. */
  visitor: string | null;
  /** Unix seconds. */
  at: number;
}

export interface ActivityCounts {
  documentId: string;
  views7d: number;
  views30d: number;
  shown7d: number;
  shown30d: number;
  agentReads7d: number;
  agentReads30d: number;
  aiCitations7d: number;
  aiCitations30d: number;
  positiveRatings7d: number;
  positiveRatings30d: number;
  /** Time of the newest event, null when none. */
  asOfAt: number | null;
}

export interface ActivityStore {
  record(events: readonly ActivityEvent[]): Promise<void>;
  counts(documentId: string, now: number): Promise<ActivityCounts>;
  /**
   * Per-document counts over the `days` UTC days ending with the day of `now` (Unix s), for the
   * trending snapshot: the `limit` documents with the highest weighted score (views + 2 agent reads +
   * 3 AI citations + 3 positive ratings), highest first. Views count once per visitor and day; agent
   * reads, AI citations and positive ratings once per account, document and day (ADR 0211), so one
   * account's burst counts as one reader.
   */
  topOver(now: number, days: number, limit: number): Promise<ActivityTotals[]>;
  /**
   * Deletes raw events older than `rawBefore` (Unix s) and daily counters of days before `dayBefore`
   * (UTC day number); returns how many rows went.
   */
  prune(rawBefore: number, dayBefore: number): Promise<{ raw: number; daily: number }>;
}

/** Event counts of one document over a period (trending). */
export interface ActivityTotals {
  documentId: string;
  views: number;
  shown: number;
  agentReads: number;
  aiCitations: number;
  positiveRatings: number;
}
