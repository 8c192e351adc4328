// The billing work of a billed search on the main thread (issue 29, ADR 0332), as the HTTP layer and the
// search service drive it: a settlement scope, `reserve` (the base price, up to the page's most), a turn
// of the event loop (the search), `charge` (the final price), `settle` after delivery; one request in 16
// is not delivered (released). C concurrent clients over BillingService + GroupCommitLedger (as the
// composition root builds them) on a SQLite file and on PostgreSQL (DATABASE_URL). Two modes, alternated
// round by round in the same process: a hold row per request (before: hold + capture, two ledger ops)
// and standing holds (after: one draw per delivered request). Reports CPU per request
// (process.cpuUsage: on SQLite every statement runs on this thread, as on the server's main thread) and
// ledger ops per request.
// --compare key: the cost of the draw's settlement key instead (ADR 0332, amended: the draw is
// idempotent): standing holds in both modes, the draw with its key (as shipped: one indexed read and one
// unique-index entry more) against the draw without it (a ledger proxy drops the key, as before the
// amendment); bench/results/settlement-key.json.
//
//   node dist/bench/storage/billing-requests.bench.js [--compare holds|key] [--seconds 4] [--rounds 3] [--clients 1,2,16] [--out bench/results/billing-requests.json]
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { BillingService } from '../../src/billing/billing-service.js';
import { GroupCommitLedger } from '../../src/billing/group-commit-ledger.js';
import type { Principal } from '../../src/domain/principal.js';
import type { CreditLedger } from '../../src/ports/credit-ledger.js';
import { openTempPostgres, openTempSqlite, type StorageFixture } from '../../test/helpers/storage.js';
import { machine } from '../lib/machine.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '4' }, rounds: { type: 'string', default: '3' }, clients: { type: 'string', default: '1,2,16' }, compare: { type: 'string', default: 'holds' }, out: { type: 'string' } } });
if (values.compare !== 'holds' && values.compare !== 'key') throw new Error('--compare holds|key');
const byKey = values.compare === 'key';
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const clientCounts = values.clients.split(',').map(Number);
const load1 = () => Math.round(loadavg()[0]! * 100) / 100;
const MODES = byKey ? (['draw_without_key', 'draw_with_key'] as const) : (['hold_per_request', 'standing_holds'] as const);
type Mode = (typeof MODES)[number];

/** The ledger with the settlement keys dropped (the draw as before ADR 0332's amendment). */
function withoutKeys(l: CreditLedger): CreditLedger {
  return new Proxy(l, {
    get(target, prop) {
      if (prop === 'drawFromHold') return (h: number, amount: number, op: string, ref: string | null, at: number) => target.drawFromHold(h, amount, op, ref, at);
      if (prop === 'debit') return (a: number, amount: number, op: string, ref: string | null, at: number) => target.debit(a, amount, op, ref, at);
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

async function run(f: StorageFixture, mode: Mode, clients: number): Promise<{ requests: number; requests_per_s: number; cpu_us_per_request: number; ledger_ops_per_request: number; batches_per_request: number }> {
  const s = f.storage;
  const a = await s.accounts.create({ email: `bench${Date.now()}${Math.random()}@example.org` });
  await s.ledger.credit(a.id, 1_000_000_000, 'topup', null, 1);
  const who: Principal = { accountId: a.id, credential: 'api_key', credentialId: 'k', scopes: ['search'], clientId: null, isAgent: false, audience: null };
  let billing: BillingService;
  const gc = new GroupCommitLedger(mode === 'draw_without_key' ? withoutKeys(s.ledger) : s.ledger, { maxBatch: 256, windowMs: 0, othersActive: () => billing.inFlight > 1, lanes: s.kind === 'postgres' ? 4 : 1 });
  billing = new BillingService(gc, { nowMs: () => Date.now() }, { standingHolds: mode !== 'hold_per_request', standingHoldIdleMs: 1_000 });
  let n = 0;
  let done = 0;
  const request = async () => {
    const i = n++;
    const scope = billing.openScope();
    await billing.runInScope(scope, async () => {
      await billing.reserve(who, 10, 'search', `r${i}`, 20);
      await new Promise((r) => setImmediate(r)); // the search
      await billing.charge(who, 10 + (i % 11), 'search', `r${i}`);
    });
    await billing.settle(scope, i % 16 !== 15);
    done++;
  };
  // warm-up (statements prepared, the standing hold opened)
  for (let i = 0; i < 50; i++) await request();
  done = 0;
  const ops0 = gc.stats.ops;
  const batches0 = gc.stats.batches;
  const until = Date.now() + seconds * 1000;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: clients }, async () => { while (Date.now() < until) await request(); }));
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  const ops = gc.stats.ops - ops0;
  const batches = gc.stats.batches - batches0;
  await billing.idle();
  await gc.flush();
  if ((await s.ledger.held(a.id)) !== 0) throw new Error('credits left held');
  return { requests: done, requests_per_s: Math.round(done / secs), cpu_us_per_request: +((cpu.user + cpu.system) / done).toFixed(1), ledger_ops_per_request: +(ops / done).toFixed(3), batches_per_request: +(batches / done).toFixed(3) };
}

async function measure(open: () => Promise<StorageFixture>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const clients of clientCounts) {
    const per: Record<string, Record<string, number | string>[]> = Object.fromEntries(MODES.map((m) => [m, []]));
    for (let round = 0; round < rounds; round++) {
      // alternated, and the order flipped every round
      for (const mode of round % 2 === 0 ? MODES : [...MODES].reverse()) {
        const f = await open();
        try {
          const r = await run(f, mode, clients);
          per[mode]!.push({ round, ...r, load_average_1m: load1() });
          console.error(f.storage.kind, clients, mode, JSON.stringify(r), 'load', load1());
        } finally {
          await f.dispose();
        }
      }
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    const cpu = (m: string) => median(per[m]!.map((r) => r.cpu_us_per_request as number));
    out[`clients_${clients}`] = {
      rounds: per,
      median_cpu_us_per_request: Object.fromEntries(MODES.map((m) => [m, cpu(m)])),
      [byKey ? 'cpu_ratio_with_key_over_without' : 'cpu_ratio_standing_over_hold_per_request']: +(cpu(MODES[1]) / cpu(MODES[0])).toFixed(3),
    };
  }
  return out;
}

const started = machine();
const sqlite = await measure(() => openTempSqlite());
const postgres = process.env.DATABASE_URL ? await measure(() => openTempPostgres(process.env.DATABASE_URL!)) : 'not measured (DATABASE_URL not set)';
const result = {
  benchmark: byKey ? 'settlement-key' : 'billing-requests',
  what: byKey
    ? 'BillingService + GroupCommitLedger with standing holds per billed request (reserve, charge, settle; 1 in 16 not delivered): the draw with its settlement key (idempotent, ADR 0332 amended) against the draw without it, alternated in one process'
    : 'BillingService + GroupCommitLedger per billed request (reserve, charge, settle; 1 in 16 not delivered): a hold row per request (two ledger ops) against standing holds (one draw), alternated in one process',
  seconds_per_point: seconds,
  rounds,
  machine_at_start: started,
  machine_at_end: machine(),
  sqlite_file: sqlite,
  postgres,
};
const text = JSON.stringify(result, null, 2);
if (values.out) writeFileSync(values.out, text + '\n');
console.log(text);
