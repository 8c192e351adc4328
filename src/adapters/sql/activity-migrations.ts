// Activity retention (issue 12, docs/community.md "Retention"): raw events are rolled up, as they are
// recorded, into one counter row per document, UTC day and kind; the activity and trending reads use
// only these rows, so raw rows can be pruned once they no longer de-duplicate views (2 days). The
// step back-fills the counters from the raw events already stored. Never edit a released step.
import type { MigrationStep } from './migrations.js';

const daily = (lastAt: string) => `
  CREATE TABLE activity_daily (
    document_id TEXT NOT NULL,
    day INTEGER NOT NULL,
    kind TEXT NOT NULL,
    n BIGINT NOT NULL,
    last_at BIGINT NOT NULL,
    PRIMARY KEY (document_id, day, kind)
  );
  CREATE INDEX activity_daily_day ON activity_daily(day);
  INSERT INTO activity_daily (document_id, day, kind, n, last_at)
    SELECT document_id, day, kind, COUNT(*), ${lastAt} FROM activity_events GROUP BY document_id, day, kind;
`;

// Trending counts readers, not events (issue 25, ADR 0211): agent reads, AI citations and positive
// ratings count once per account, document and UTC day in counters of their own (`<kind>_accounts`),
// de-duplicated by raw rows under this partial unique index (pruned with the others after 2 days). The
// step seeds the new counters from the event counters, so trending does not drop on upgrade.
const byAccount = `
  CREATE UNIQUE INDEX activity_account_once ON activity_events(document_id, kind, account_id, day)
    WHERE kind IN ('agent_read', 'ai_citation', 'positive_rating') AND account_id IS NOT NULL;
  INSERT INTO activity_daily (document_id, day, kind, n, last_at)
    SELECT document_id, day, kind || '_accounts', n, last_at FROM activity_daily WHERE kind IN ('agent_read', 'ai_citation', 'positive_rating');
`;

export const ACTIVITY_MIGRATIONS: readonly MigrationStep[] = [
  { id: 'activity/001-daily-counters', sqlite: daily('MAX(at)'), postgres: daily('MAX(at)') },
  { id: 'activity/002-trending-by-account', sqlite: byAccount, postgres: byAccount },
];
