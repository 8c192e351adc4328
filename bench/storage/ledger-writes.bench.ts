// Per-search ledger writes (issue 14, ADR 0136): a billed search holds its base price, extends the hold
// to its final price and captures it after delivery: three write transactions. This measures how many
// such searches per second the ledger sustains with C concurrent requests, one transaction per write
// (before) and with group commit (after, GroupCommitLedger), on a SQLite file and on PostgreSQL
// (DATABASE_URL) in the same run; plus the CPU time per search. Peer: the one-transaction-per-write
// ledger itself, measured in the same run (ratios after / before).
//
//   node dist/bench/storage/ledger-writes.bench.js [--seconds 5] [--clients 1,8,32] [--out bench/results/ledger-writes.json]
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { GroupCommitLedger } from '../../src/billing/group-commit-ledger.js';
import type { CreditLedger } from '../../src/ports/credit-ledger.js';
import type { Storage } from '../../src/ports/storage.js';
import { openTempPostgres, openTempSqlite, type StorageFixture } from '../../test/helpers/storage.js';
import { machine } from '../lib/machine.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, clients: { type: 'string', default: '1,8,32' }, out: { type: 'string' } } });
const seconds = Number(values.seconds);
const clientCounts = values.clients.split(',').map(Number);

async function run(ledger: CreditLedger, accountId: number, clients: number): Promise<{ searches_per_s: number; cpu_us_per_search: number }> {
  let done = 0;
  let n = 0;
  const until = Date.now() + seconds * 1000;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < until) {
        const ref = `req${n++}`;
        const h = await ledger.hold(accountId, 10, 'search', ref, 'bench', 1);
        if (!h.ok) throw new Error('balance ran out');
        const x = await ledger.extendHold(h.holdId, 7);
        if (!x || !x.ok) throw new Error('extend refused');
        const c = await ledger.capture(h.holdId, 17, 2);
        if (!c) throw new Error('capture lost');
        done++;
      }
    }),
  );
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  return { searches_per_s: Math.round(done / secs), cpu_us_per_search: Math.round((cpu.user + cpu.system) / done) };
}

async function measure(label: string, open: () => Promise<StorageFixture>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const clients of clientCounts) {
    const row: Record<string, unknown> = {};
    for (const mode of ['per_write', 'group_commit'] as const) {
      const f = await open();
      try {
        const s: Storage = f.storage;
        const a = await s.accounts.create({ email: 'bench@example.org' });
        await s.ledger.credit(a.id, 1_000_000_000, 'topup', null, 1);
        // othersActive as the server computes it (other requests in progress): a lone client writes at once
        // lanes as the composition root sets them: 4 on PostgreSQL (overlapping commits), 1 on SQLite
        const gc = mode === 'group_commit' ? new GroupCommitLedger(s.ledger, { maxBatch: 256, windowMs: 0, othersActive: () => clients > 1, lanes: s.kind === 'postgres' ? Number(process.env.BENCH_PG_LANES ?? 4) : 1 }) : null;
        const r = await run(gc ?? s.ledger, a.id, clients);
        await gc?.flush();
        // the books balance: every search charged once
        const sum = await s.ledger.entrySum(a.id);
        if (sum !== (await s.ledger.balance(a.id)) || (await s.ledger.held(a.id)) !== 0) throw new Error('ledger out of balance');
        row[mode] = { ...r, ...(gc ? { ops_per_commit: Math.round((gc.stats.ops / gc.stats.batches) * 10) / 10 } : {}) };
      } finally {
        await f.dispose();
      }
    }
    const per = row.per_write as { searches_per_s: number };
    const grp = row.group_commit as { searches_per_s: number };
    row.ratio_group_over_per_write = Math.round((grp.searches_per_s / per.searches_per_s) * 100) / 100;
    out[`clients_${clients}`] = row;
    console.error(label, clients, JSON.stringify(row));
  }
  return out;
}

const result: Record<string, unknown> = {
  benchmark: 'billed searches per second the ledger sustains (hold + extend + capture each): one transaction per write vs group commit (ADR 0136)',
  machine: machine(),
  seconds_per_point: seconds,
  sqlite_file: await measure('sqlite', openTempSqlite),
};
const url = process.env.DATABASE_URL;
result.postgres = url ? await measure('postgres', () => openTempPostgres(url, { max: 10 })) : 'DATABASE_URL not set: not measured';
result.load_average_at_end = loadavg().map((x) => Math.round(x * 100) / 100);
console.log(JSON.stringify(result, null, 2));
if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
