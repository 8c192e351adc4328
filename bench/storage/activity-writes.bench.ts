// `shown` activity writes (issue 14, ADR 0137): how many events per second a flush writes, and the CPU
// (event-loop) time per event, on a SQLite file: the way this change writes them (no raw row for
// non-view kinds, one counter upsert per (document, day, kind) of a batch) against the way they were
// written before (a raw row per event and a counter upsert per event: the same statements, run here
// on the same database file in the same run as the peer). Batches of 1,000 events, 10 per search over
// a Zipf-like choice of 20,000 documents (popular hits repeat).
//
//   node dist/bench/storage/activity-writes.bench.js [--events 200000] [--out bench/results/activity-writes.json]
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { ActivityEvent } from '../../src/ports/activity-store.js';
import { openTempSqlite } from '../../test/helpers/storage.js';
import { machine } from '../lib/machine.js';

const { values } = parseArgs({ options: { events: { type: 'string', default: '200000' }, out: { type: 'string' } } });
const total = Number(values.events);
let x = 42;
const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
// Zipf-like: document rank ~ 20000^u - 1
const events: ActivityEvent[] = Array.from({ length: total }, (_, i) => ({
  documentId: `W${Math.floor(20_000 ** next()) - 1}`,
  kind: 'shown',
  accountId: 1 + (i % 50),
  visitor: null,
  at: 1_764_000_000 + Math.floor(i / 100),
}));
const batches: ActivityEvent[][] = [];
for (let i = 0; i < events.length; i += 1000) batches.push(events.slice(i, i + 1000));

const f = await openTempSqlite();
try {
  const db = f.storage.db;
  // the statements of the store before ADR 0137, as they were
  const insert = db.prepare('INSERT OR IGNORE INTO activity_events (document_id, kind, account_id, visitor, day, at) VALUES (?, ?, ?, ?, ?, ?)');
  const count = db.prepare(
    `INSERT INTO activity_daily (document_id, day, kind, n, last_at) VALUES (?, ?, ?, 1, ?)
     ON CONFLICT (document_id, day, kind) DO UPDATE SET n = n + 1, last_at = MAX(last_at, excluded.last_at)`,
  );
  const before = db.transaction((evs: readonly ActivityEvent[]) => {
    for (const e of evs) {
      const day = Math.floor(e.at / 86_400);
      if (insert.run(e.documentId, e.kind, e.accountId, e.kind === 'view' ? e.visitor : null, day, e.at).changes === 1) count.run(e.documentId, day, e.kind, e.at);
    }
  });
  const measure = async (write: (b: ActivityEvent[]) => unknown) => {
    db.exec('DELETE FROM activity_events; DELETE FROM activity_daily');
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    let longest = 0;
    for (const b of batches) {
      const t = process.hrtime.bigint();
      await write(b);
      longest = Math.max(longest, Number(process.hrtime.bigint() - t) / 1e6);
    }
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = process.cpuUsage(cpu0);
    const rows = db.prepare('SELECT (SELECT COUNT(*) FROM activity_events) AS raw, (SELECT SUM(n) FROM activity_daily) AS counted').get() as { raw: number; counted: number };
    if (rows.counted !== total) throw new Error(`counted ${rows.counted} of ${total}`);
    return { events_per_s: Math.round(total / secs), cpu_us_per_event: Math.round(((cpu.user + cpu.system) / total) * 100) / 100, longest_batch_ms: Math.round(longest * 10) / 10, raw_rows: rows.raw };
  };
  const old = await measure((b) => before(b));
  const now = await measure((b) => f.storage.activity.record(b));
  const old2 = await measure((b) => before(b));
  const now2 = await measure((b) => f.storage.activity.record(b));
  const result = {
    benchmark: 'shown activity writes per second, 1,000-event transactions: per-event raw row + counter (before) vs counters grouped per batch, raw rows only for views (ADR 0137)',
    machine: machine(),
    store: 'SQLite (WAL) file',
    events: total,
    before: [old, old2],
    after: [now, now2],
    ratio_after_over_before_events_per_s: Math.round(((now.events_per_s + now2.events_per_s) / (old.events_per_s + old2.events_per_s)) * 100) / 100,
    load_average_at_end: loadavg().map((v) => Math.round(v * 100) / 100),
  };
  console.log(JSON.stringify(result, null, 2));
  if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await f.dispose();
}
