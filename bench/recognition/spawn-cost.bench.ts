// Cost of one tool start (`mutool -v`) from a process holding N MB of resident memory, started directly
// (fork of this process) or through the tool launcher (ADR 0361), alternated round by round.
//   node dist/bench/recognition/spawn-cost.bench.js [--mb 0,250,500] [--runs 60] [--rounds 2] [--out FILE]
// Reports per start: wall time, this process's CPU (all threads) and the launcher's CPU (from /proc).
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { LocalProcessRunner } from '../../src/adapters/process/local-process-runner.js';
import { machine } from '../lib/machine.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const sizes = (opt('mb') ?? '0,250,500').split(',').map(Number);
const runs = Number(opt('runs') ?? 60);
const rounds = Number(opt('rounds') ?? 2);
const tick = 100; // USER_HZ

function procCpuMs(pid: number | undefined): number {
  if (!pid) return 0;
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / tick;
}
function rssMb(): number {
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024);
}

const hold: Buffer[] = [];
const results: Record<string, unknown>[] = [];
const meta = machine();
for (const mb of sizes) {
  while (hold.length < mb) hold.push(Buffer.alloc(1 << 20, hold.length & 255));
  const runners = { direct: new LocalProcessRunner({ launcher: false }), launcher: new LocalProcessRunner({ launcher: true }) };
  const acc: Record<string, { wall: number; cpu: number; launcherCpu: number; n: number }> = {};
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? (['launcher', 'direct'] as const) : (['direct', 'launcher'] as const);
    for (const mode of order) {
      const ws = await runners[mode].createWorkspace();
      for (let i = 0; i < 3; i++) await ws.run({ tool: 'mutool', args: ['-v'], timeoutMs: 10_000 }); // warm-up (forks the launcher)
      const launcherPid = runners[mode].launcherPid;
      const l0 = procCpuMs(launcherPid);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < runs; i++) await ws.run({ tool: 'mutool', args: ['-v'], timeoutMs: 10_000 });
      const wall = performance.now() - t0;
      const c = process.cpuUsage(c0);
      const a = (acc[mode] ??= { wall: 0, cpu: 0, launcherCpu: 0, n: 0 });
      a.wall += wall;
      a.cpu += (c.user + c.system) / 1000;
      a.launcherCpu += procCpuMs(launcherPid) - l0;
      a.n += runs;
      await ws.dispose();
    }
  }
  for (const [mode, a] of Object.entries(acc)) {
    const row = { mb_held: mb, rss_mb: rssMb(), mode, starts: a.n, wall_ms_per_start: +(a.wall / a.n).toFixed(2), service_cpu_ms_per_start: +(a.cpu / a.n).toFixed(2), launcher_cpu_ms_per_start: +(a.launcherCpu / a.n).toFixed(2), load_1m: +loadavg()[0]!.toFixed(2) };
    results.push(row);
    console.log(JSON.stringify(row));
  }
}
const out = opt('out');
if (out) writeFileSync(out, `${JSON.stringify({ bench: 'recognition-spawn-cost', machine: meta, load_average_1m_at_end: loadavg()[0], results }, null, 2)}\n`);
console.log(String(hold.length).slice(0, 0));
