// The main thread's per-search store work (issue 14, ADR 0185), A/B between two builds in one process:
// the API key's check (ApiKeyService.verify of a valid key: the lookup, SHA-256, constant-time compare)
// and a billed search's ledger writes through the BillingService as a served search makes them (a
// scope, reserve of the base price (with the page's largest price as `upTo` where the build has it),
// charge of the final price, settle as delivered) over the group-commit ledger, with 1 and C concurrent
// searches; on a SQLite file, CPU time per search (process.cpuUsage). The builds alternate round by round.
//
//   node dist/bench/storage/main-thread-writes.bench.js --builds base=/work/main/dist,new=dist [--rounds 3] [--seconds 2]
//        [--clients 1,16] [--out bench/results/main-thread-writes.json]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { machine } from '../lib/machine.js';

const { values } = parseArgs({
  options: {
    builds: { type: 'string', default: `current=${join(process.cwd(), 'dist')}` },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '2' },
    clients: { type: 'string', default: '1,16' },
    out: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const clientCounts = values.clients.split(',').map(Number);
const PRICE = 10;
const PER_HIT = 1;
const LIMIT = 10;

interface Build {
  label: string;
  sqlite: { openSqliteStorage(path: string): any };
  keys: { ApiKeyService: new (...a: any[]) => any };
  billing: { BillingService: new (...a: any[]) => any };
  group: { GroupCommitLedger: new (...a: any[]) => any };
}

async function load(label: string, dist: string): Promise<Build> {
  const im = (p: string) => import(pathToFileURL(resolve(dist, p)).href);
  return { label, sqlite: await im('src/adapters/sqlite/sqlite-storage.js'), keys: await im('src/accounts/api-keys.js'), billing: await im('src/billing/billing-service.js'), group: await im('src/billing/group-commit-ledger.js') };
}

const clock = { nowMs: () => Date.now() };
const cpuUs = (c: NodeJS.CpuUsage) => c.user + c.system;

async function verifyRun(b: Build, storage: any, key: string): Promise<number> {
  const svc = new b.keys.ApiKeyService(storage.apiKeys, storage.accounts, clock);
  let n = 0;
  const until = Date.now() + seconds * 1000;
  const c0 = process.cpuUsage();
  while (Date.now() < until) {
    for (let i = 0; i < 100; i++) if (!(await svc.verify(key))) throw new Error('key refused');
    n += 100;
  }
  return cpuUs(process.cpuUsage(c0)) / n;
}

async function billingRun(b: Build, storage: any, accountId: number, clients: number): Promise<number> {
  let billing: any;
  const ledger = new b.group.GroupCommitLedger(storage.ledger, { maxBatch: 256, windowMs: 0, othersActive: () => billing.inFlight > 1, lanes: 1 });
  billing = new b.billing.BillingService(ledger, clock);
  const principal = { accountId, credential: 'api_key', credentialId: 'x', scopes: ['search'], clientId: null, isAgent: false, audience: null };
  let n = 0;
  const until = Date.now() + seconds * 1000;
  const c0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < until) {
        const ref = `r${n}`;
        const scope = billing.openScope();
        await billing.runInScope(scope, async () => {
          await billing.reserve(principal, PRICE, 'search', ref, PRICE + PER_HIT * LIMIT);
          await billing.charge(principal, PRICE + PER_HIT * 7, 'search', ref);
        });
        await billing.settle(scope, true);
        n++;
      }
    }),
  );
  await billing.idle();
  await ledger.flush();
  return cpuUs(process.cpuUsage(c0)) / n;
}

const builds = await Promise.all(values.builds.split(',').map((s) => s.split('=') as [string, string]).map(([l, d]) => load(l, d)));
const dir = mkdtempSync(join(tmpdir(), 'lectern-mt-writes-'));
const results: Record<string, Record<string, number[]>> = {};
try {
  for (const b of builds) results[b.label] = {};
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const b of builds) {
      // a fresh database file per build and round (each build's own schema steps)
      const storage = b.sqlite.openSqliteStorage(join(dir, `${b.label}-${round}.db`));
      try {
        const svc = new b.keys.ApiKeyService(storage.apiKeys, storage.accounts, clock);
        const account = await storage.accounts.create({ email: `bench-${round}@example.org` });
        await storage.ledger.credit(account.id, 1_000_000_000, 'topup', null, 1);
        const { key } = await svc.create(account.id);
        const row = results[b.label]!;
        (row.verify_us ??= []).push(Math.round((await verifyRun(b, storage, key)) * 10) / 10);
        for (const c of clientCounts) (row[`billing_${c}_clients_us`] ??= []).push(Math.round((await billingRun(b, storage, account.id, c)) * 10) / 10);
      } finally {
        await storage.close();
      }
      console.error(b.label, round, JSON.stringify(results[b.label]), 'load', loadavg()[0]!.toFixed(2));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const out = {
  benchmark: 'main-thread-writes',
  note: 'CPU us per operation on the calling thread (process.cpuUsage), SQLite file; verify: ApiKeyService.verify of a valid key; billing: reserve + charge + settle of one search (final price 17 of at most 20) through BillingService over the group-commit ledger. Builds alternate round by round; medians of the rounds.',
  machine: machine(),
  load_average_1m_at_end: Math.round(loadavg()[0]! * 100) / 100,
  seconds_per_measurement: seconds,
  rounds: results,
  medians: Object.fromEntries(Object.entries(results).map(([l, r]) => [l, Object.fromEntries(Object.entries(r).map(([k, xs]) => [k, median(xs)]))])),
};
console.log(JSON.stringify(out.medians, null, 2));
if (values.out) writeFileSync(values.out, JSON.stringify(out, null, 2) + '\n');
