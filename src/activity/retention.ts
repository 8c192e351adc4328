// Activity retention (issue 12 "Disk that only grows"; docs/community.md "Retention"). Every recorded
// event is added to a daily counter (document, UTC day, kind) as it is written; the activity and
// trending reads use only those counters. Raw events are kept only while they de-duplicate views
// (once per visitor and UTC day) and then pruned; counters are kept while a 30-day window can see them.
import type { ActivityStore } from '../ports/activity-store.js';

/** Raw events are kept 2 days (48 h): today's views still de-duplicate, late flushes still count once. */
export const RAW_EVENT_RETENTION_SECONDS = 2 * 86_400;
/** Daily counters are kept 31 days (the 30-day window plus the day in progress). */
export const DAILY_COUNTER_RETENTION_DAYS = 31;
/** How often the composition root prunes (1 hour). */
export const ACTIVITY_PRUNE_INTERVAL_MS = 3_600_000;

/** Deletes raw events and daily counters past retention, as of `now` (Unix s). */
export function pruneActivity(store: ActivityStore, now: number): Promise<{ raw: number; daily: number }> {
  return store.prune(now - RAW_EVENT_RETENTION_SECONDS, Math.floor(now / 86_400) - DAILY_COUNTER_RETENTION_DAYS + 1);
}
