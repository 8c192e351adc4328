// The server side of bench/search/fairness-cost.bench.ts: a Lectern HTTP server in a process of its own
// (the bench's client runs in its parent), with the synthetic corpus of the bench loaded and two
// accounts made. It reports over the IPC channel: `ready` (port, keys, limits), then on request the
// main thread's event-loop delay and utilisation and the process's CPU time over a window (`window-start`
// / `window-end`), and closes on `close`. Run with --cpu-prof (the parent's --cpu-prof DIR) to profile
// the server's main thread under the flood.
//
//   (started by the bench) node dist/bench/search/fairness-server.js --build dist/src/app.js --docs N --threads T
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { monitorEventLoopDelay, performance, type EventLoopUtilization } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { COMMON, RARE } from './fairness-words.js';

const { values } = parseArgs({
  options: {
    docs: { type: 'string', default: '10000' },
    threads: { type: 'string', default: '1' },
    build: { type: 'string', default: 'dist/src/app.js' },
    // with --cpu-prof: where the windows' times go (process.hrtime in microseconds, the profile's clock)
    'windows-file': { type: 'string' },
  },
});

async function main(): Promise<void> {
  const send = (m: object) => process.send!(m);
  const build = resolve(values.build!);
  const appMod = (await import(pathToFileURL(build).href)) as typeof import('../../src/app.js');
  const cfgMod = (await import(pathToFileURL(join(build, '..', 'config', 'index.js')).href)) as typeof import('../../src/config/index.js');
  const commonMod = (await import(pathToFileURL(join(build, '..', 'ingest', 'formats', 'common.js')).href)) as typeof import('../../src/ingest/formats/common.js');
  const dir = mkdtempSync(join(tmpdir(), 'lectern-fairness-'));
  const generous = { capacity: 1_000_000, refillPerSecond: 1_000_000 };
  const config = cfgMod.loadConfig({}, { dataDir: dir, loadDemoCorpus: false, logLevel: 'silent', port: 0, searchThreads: Number(values.threads), rateLimits: { search: generous, default: generous } } as never);
  const app = await appMod.buildApp(config, { logger: pino({ level: 'silent' }) });
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

  // the main thread's own CPU time (Linux: its task's utime + stime, in clock ticks of 10 ms); null elsewhere
  const mainThreadCpuMs = (): number | null => {
    try {
      const f = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(f[11]) + Number(f[12])) * 10;
    } catch {
      return null;
    }
  };
  let mainCpu: number | null = null;
  const delay = monitorEventLoopDelay({ resolution: 5 });
  let elu: EventLoopUtilization | null = null;
  let cpu: NodeJS.CpuUsage | null = null;
  let t0 = 0;
  const windows: { start_us: number; end_us: number }[] = [];
  let hrStart = 0;
  process.on('message', (m: { kind: string }) => {
    if (m.kind === 'window-start') {
      delay.reset();
      delay.enable();
      elu = performance.eventLoopUtilization();
      cpu = process.cpuUsage();
      mainCpu = mainThreadCpuMs();
      t0 = performance.now();
      hrStart = Number(process.hrtime.bigint() / 1000n);
      send({ kind: 'window-started' });
    } else if (m.kind === 'window-end') {
      delay.disable();
      const u = performance.eventLoopUtilization(elu!);
      const c = process.cpuUsage(cpu!);
      const wall = performance.now() - t0;
      const mainNow = mainThreadCpuMs();
      windows.push({ start_us: hrStart, end_us: Number(process.hrtime.bigint() / 1000n) });
      send({
        kind: 'window',
        event_loop_delay_ms: { p50: Math.round(delay.percentile(50) / 1e5) / 10, p99: Math.round(delay.percentile(99) / 1e5) / 10 },
        // the main thread's busy share of the window, and its busy milliseconds
        main_thread_utilisation: Math.round(u.utilization * 1000) / 1000,
        main_thread_busy_ms: Math.round(u.active),
        // the main thread's CPU time (excludes waiting for a core on a loaded machine, which busy_ms includes)
        main_thread_cpu_ms: mainNow === null || mainCpu === null ? null : mainNow - mainCpu,
        // every thread of the server process (main, search threads, writer), CPU ms over the window
        process_cpu_ms: Math.round((c.user + c.system) / 1000),
        wall_ms: Math.round(wall),
      });
    } else if (m.kind === 'close') {
      if (values['windows-file']) writeFileSync(values['windows-file'], JSON.stringify(windows));
      void app.close().then(() => {
        rmSync(dir, { recursive: true, force: true });
        // a normal exit writes the --cpu-prof profile
        process.exit(0);
      });
    }
  });
  send({ kind: 'ready', port, flooderKey: flooder.apiKey, victimKey: victim.apiKey, searchThreads: config.searchThreads, searchConcurrency: config.limits.searchConcurrency });
}

if (process.send) await main();
