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

export const ACTIVITY_MIGRATIONS: readonly MigrationStep[] = [{ id: 'activity/001-daily-counters', sqlite: daily('MAX(at)'), postgres: daily('MAX(at)') }];
