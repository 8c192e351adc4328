// Document activity events (interface, Activity and trending). Counters are derived from events.

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
   * Per-document event counts since `since` (Unix s, exclusive) for the trending snapshot: the
   * `limit` documents with the highest weighted score (views + 2 agent reads + 3 AI citations +
   * 3 positive ratings), highest first.
   */
  topSince(since: number, limit: number): Promise<ActivityTotals[]>;
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
