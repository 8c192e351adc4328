// Fairness by cost (issue 25, ADR 0212): another account's search latency while one account floods
// expensive queries within its own concurrency limit. One process, a real HTTP server on loopback, a
// synthetic corpus of common words (generated here, deterministic), the configured search threads.
//
//   node dist/bench/search/fairness-cost.bench.js [--docs 20000] [--seconds 15] [--threads 1]
//        [--flood-connections 4] [--build dist/src/app.js] [--label this] [--out bench/results/fairness-cost.json]
//
// Phases: the victim alone (sequential cheap 2-term searches, limit 10), then the same while the flooder
// runs --flood-connections (default `searchConcurrency`, 4) keep-alive loops of 23-term common-word
// queries at limit 400 (beyond 4 its searches are refused 429 search_concurrency, counted, and the loop
// asks again after Retry-After: within its limits), then /healthz under the flood. --build runs another build's app (e.g. main's dist) for a before/after in the
// same conditions. Reports p50/p90 per phase and the ratio; every response must be 200.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { machine } from '../lib/machine.js';

const { values } = parseArgs({
  options: {
    docs: { type: 'string', default: '20000' },
    seconds: { type: 'string', default: '15' },
    threads: { type: 'string', default: '1' },
    build: { type: 'string', default: 'dist/src/app.js' },
    label: { type: 'string', default: 'this branch' },
    'flood-connections': { type: 'string' },
    out: { type: 'string' },
  },
});

// Alphabetic made-up words (digits would split a token in two).
const SYL = ['ba', 'ke', 'li', 'mo', 'nu', 'ra', 'se', 'ti', 'vo', 'zu'];
const word = (i: number, n: number) => Array.from({ length: n }, (_, k) => SYL[Math.floor(i / 10 ** k) % 10]).join('');
const COMMON = Array.from({ length: 60 }, (_, i) => `${word(i, 2)}x`);
const RARE = Array.from({ length: 5000 }, (_, i) => `q${word(i, 4)}`);

async function main() {
  const build = resolve(values.build!);
  const appMod = (await import(pathToFileURL(build).href)) as typeof import('../../src/app.js');
  const cfgMod = (await import(pathToFileURL(join(build, '..', 'config', 'index.js')).href)) as typeof import('../../src/config/index.js');
  const commonMod = (await import(pathToFileURL(join(build, '..', 'ingest', 'formats', 'common.js')).href)) as typeof import('../../src/ingest/formats/common.js');
  const started = machine();
  const dir = mkdtempSync(join(tmpdir(), 'lectern-fairness-'));
  const generous = { capacity: 1_000_000, refillPerSecond: 1_000_000 };
  const config = cfgMod.loadConfig({}, { dataDir: dir, loadDemoCorpus: false, logLevel: 'silent', port: 0, searchThreads: Number(values.threads), rateLimits: { search: generous, default: generous } } as never);
  const app = await appMod.buildApp(config, { logger: pino({ level: 'silent' }) });
  try {
    const n = Number(values.docs);
    let x = 12345;
    const rnd = () => ((x = (x * 1103515245 + 12345) % 2147483648), x / 2147483648);
    const records = [];
    for (let i = 0; i < n; i++) {
      const words = Array.from({ length: 40 }, () => COMMON[Math.floor(rnd() * COMMON.length)]!);
      words.push(RARE[i % RARE.length]!, RARE[(i * 7) % RARE.length]!);
      records.push({ ...commonMod.blankRecord(`d${i}`, 'documents', 'bench'), title: `${COMMON[i % 60]} ${RARE[i % RARE.length]}`, abstract: words.join(' ') });
    }
    for (let i = 0; i < records.length; i += 2000) await app.storage.documents.upsertMany(records.slice(i, i + 2000), 1_700_000_000);
    await app.indexes!.catchUp();
    const flooder = await app.accounts.create({ email: 'flood@example.org', credits: 1e9 });
    const victim = await app.accounts.create({ email: 'victim@example.org', credits: 1e9 });
    await app.http.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.http.server.address() as { port: number };
    const base = `http://127.0.0.1:${port}`;
    let refused = 0;
    const post = async (key: string, body: object, allow429 = false) => {
      const t0 = performance.now();
      const r = await fetch(`${base}/v2/search/`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const buf = await r.arrayBuffer();
      if (r.status === 429 && allow429) {
        refused++;
        // within its limits: the flooder honours Retry-After, as the interface asks of clients
        await new Promise((ok) => setTimeout(ok, 1000 * Number(r.headers.get('retry-after') ?? 1)));
        return -1;
      }
      if (r.status !== 200) throw new Error(`search answered ${r.status}: ${new TextDecoder().decode(buf).slice(0, 300)}`);
      return performance.now() - t0;
    };
    const heavy = (i: number) => ({ query: Array.from({ length: 23 }, (_, k) => COMMON[(i * 5 + k * 11) % COMMON.length]).join(' '), limit: 400 });
    const cheap = (i: number) => ({ query: `${RARE[(i * 13) % RARE.length]} ${RARE[(i * 17 + 1) % RARE.length]}`, limit: 10 });
    const seconds = Number(values.seconds);
    const victimLoop = async (until: number) => {
      const ms: number[] = [];
      for (let i = 0; performance.now() < until; i++) ms.push(await post(victim.apiKey, cheap(i)));
      return ms;
    };
    const health = async (until: number) => {
      const ms: number[] = [];
      while (performance.now() < until) {
        const t0 = performance.now();
        const r = await fetch(`${base}/healthz`);
        await r.arrayBuffer();
        ms.push(performance.now() - t0);
      }
      return ms;
    };
    const pct = (xs: number[], p: number) => {
      const s = [...xs].sort((a, b) => a - b);
      return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 10) / 10;
    };
    // warm-up
    for (let i = 0; i < 20; i++) await post(victim.apiKey, cheap(i));
    for (let i = 0; i < 4; i++) await post(flooder.apiKey, heavy(i));
    const alone = await victimLoop(performance.now() + seconds * 1000);
    const healthAlone = await health(performance.now() + 3000);
    let stop = false;
    let floods = 0;
    const connections = Number(values['flood-connections'] ?? config.limits.searchConcurrency);
    const floodLoops = Array.from({ length: connections }, async (_, c) => {
      for (let i = c; !stop; i += connections) {
        if ((await post(flooder.apiKey, heavy(i), true)) >= 0) floods++;
      }
    });
    await new Promise((r) => setTimeout(r, 1000));
    const load = loadavg()[0];
    // the main thread's event-loop delay during the flood (HTTP, billing and this bench's own client run there)
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
    const during = await victimLoop(performance.now() + seconds * 1000);
    loopDelay.disable();
    const healthDuring = await health(performance.now() + 3000);
    stop = true;
    await Promise.all(floodLoops);
    // searches the reserved lane ran (ADR 0270; absent from builds without it)
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const lane = /^lectern_search_reserved_lane_searches (\d+)/m.exec(metrics);
    const result = {
      bench: 'fairness-cost',
      build: values.label,
      note: 'Measured on a shared 2-core machine loaded by other sessions: absolute numbers move between runs; compare builds within one run.',
      machine: { ...started, load_average_1m_during_flood: Math.round(load! * 100) / 100, load_average_1m_at_end: Math.round(loadavg()[0]! * 100) / 100 },
      config: { docs: n, search_threads: config.searchThreads, slots: Math.max(2, 2 * config.searchThreads), search_concurrency: config.limits.searchConcurrency, flood_connections: connections, seconds },
      victim_alone_ms: { n: alone.length, p50: pct(alone, 50), p90: pct(alone, 90) },
      victim_during_flood_ms: { n: during.length, p50: pct(during, 50), p90: pct(during, 90) },
      p50_ratio: Math.round((pct(during, 50) / pct(alone, 50)) * 100) / 100,
      main_thread_event_loop_delay_during_flood_ms: { p50: Math.round(loopDelay.percentile(50) / 1e5) / 10, p99: Math.round(loopDelay.percentile(99) / 1e5) / 10 },
      healthz_alone_ms: { p50: pct(healthAlone, 50) },
      healthz_during_flood_ms: { p50: pct(healthDuring, 50) },
      flooder_searches_per_second: Math.round((floods / (seconds + 4)) * 10) / 10,
      flooder_refused_429: refused,
      reserved_lane_searches: lane ? Number(lane[1]) : null,
    };
    console.log(JSON.stringify(result, null, 2));
    return result;
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const result = await main();
if (values.out) {
  const out = resolve(values.out);
  let prior: unknown[] = [];
  try {
    prior = JSON.parse((await import('node:fs')).readFileSync(out, 'utf8')).runs ?? [];
  } catch {
    prior = [];
  }
  writeFileSync(out, JSON.stringify({ runs: [...prior, result] }, null, 2) + '\n');
}
process.exit(0);
