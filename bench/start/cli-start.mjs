#!/usr/bin/env node
// Start-up CPU of `lectern` processes, A/B alternated (ADR 0302): `--help`, `ingest` of a small JSONL
// file into a fresh data directory, and a server's start until /readyz answers 200 (a fresh data
// directory with the embedded defaults, which loads the demo corpus, and a restart on that directory).
// A and B are two checkouts' bin/lectern.mjs (each with its own dist/), run in turns within one run so
// the machine's load falls on both alike. CPU is user+system of the process (short commands: from
// /usr/bin/time; servers: /proc/PID/stat at the moment /readyz first answers 200, all threads).
// Usage: node bench/start/cli-start.mjs --a DIR --b DIR [--runs N] [--out FILE] [--file JSONL]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { a: { type: 'string' }, b: { type: 'string' }, runs: { type: 'string', default: '5' }, out: { type: 'string' }, file: { type: 'string' } } });
if (!values.a || !values.b || !values.file) throw new Error('--a DIR --b DIR --file JSONL are required');
const sides = { A: resolve(values.a), B: resolve(values.b) };
const runs = Number(values.runs);
const file = resolve(values.file);
const TICK = 100; // clock ticks per second (/proc)

const env = (dataDir, extra = {}) => {
  const e = { ...process.env, LECTERN_DATA_DIR: dataDir, LECTERN_LOG_LEVEL: 'warn', ...extra };
  delete e.DATABASE_URL;
  delete e.REDIS_URL;
  return e;
};

/** user+sys CPU seconds and wall seconds of a command, from /usr/bin/time. */
function timed(dir, args, e) {
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %U %S %e', process.execPath, join(dir, 'bin', 'lectern.mjs'), ...args], { env: e, encoding: 'utf8', maxBuffer: 64 << 20 });
  const line = r.stderr.split('\n').find((l) => l.startsWith('TIME '));
  if (r.status !== 0 || !line) throw new Error(`${dir} ${args.join(' ')}: exit ${r.status}\n${r.stderr.slice(-2000)}`);
  const [u, s, w] = line.slice(5).split(' ').map(Number);
  return { cpu_s: +(u + s).toFixed(2), wall_s: w };
}

function freePort() {
  return new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

function procCpu(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / TICK; // utime, stime (fields 14, 15)
}

/** Starts `lectern serve`, polls /readyz until 200 (ceiling 10 minutes), returns CPU and wall at that moment. */
async function serveUntilReady(dir, dataDir) {
  const port = await freePort();
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, [join(dir, 'bin', 'lectern.mjs'), 'serve'], { env: env(dataDir, { PORT: String(port) }), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  let exited = null;
  child.on('exit', (code) => (exited = code));
  try {
    for (;;) {
      if (exited !== null) throw new Error(`server exited ${exited}: ${stderr.slice(-2000)}`);
      if (Number(process.hrtime.bigint() - t0) / 1e9 > 600) throw new Error('not ready within 600 s');
      try {
        const r = await fetch(`http://127.0.0.1:${port}/readyz`);
        await r.arrayBuffer();
        if (r.status === 200) {
          const cpu = procCpu(child.pid);
          return { cpu_s: +cpu.toFixed(2), wall_s: +(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(2) };
        }
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    child.kill('SIGTERM');
    if (exited === null) await new Promise((r) => child.once('exit', r));
  }
}

const uptime = () => ({ at: new Date().toISOString(), loadavg: loadavg().map((x) => +x.toFixed(2)) });
const before = uptime();
const samples = { help: { A: [], B: [] }, ingest: { A: [], B: [] }, serve_fresh: { A: [], B: [] }, serve_restart: { A: [], B: [] } };
for (let i = 0; i < runs; i++) {
  const order = i % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
  for (const side of order) {
    const dir = sides[side];
    const tmp = mkdtempSync(join(tmpdir(), `lectern-start-${side}-`));
    try {
      samples.help[side].push(timed(dir, ['--help'], env(join(tmp, 'help'))));
      samples.ingest[side].push(timed(dir, ['ingest', file], env(join(tmp, 'ingest'))));
      samples.serve_fresh[side].push({ ...(await serveUntilReady(dir, join(tmp, 'serve'))), load1: +loadavg()[0].toFixed(2) });
      samples.serve_restart[side].push({ ...(await serveUntilReady(dir, join(tmp, 'serve'))), load1: +loadavg()[0].toFixed(2) });
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    process.stderr.write(`run ${i + 1}/${runs} ${side}: help ${samples.help[side].at(-1).cpu_s}s ingest ${samples.ingest[side].at(-1).cpu_s}s serve ${samples.serve_fresh[side].at(-1).cpu_s}s restart ${samples.serve_restart[side].at(-1).cpu_s}s cpu\n`);
  }
}
const after = uptime();
const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : +((s[s.length / 2 - 1] + s[s.length / 2]) / 2).toFixed(3);
};
const summary = Object.fromEntries(
  Object.entries(samples).map(([k, v]) => {
    const a = median(v.A.map((x) => x.cpu_s));
    const b = median(v.B.map((x) => x.cpu_s));
    const wins = v.A.filter((x, i) => v.B[i].cpu_s < x.cpu_s).length;
    return [k, { cpu_s_median: { A: a, B: b }, wall_s_median: { A: median(v.A.map((x) => x.wall_s)), B: median(v.B.map((x) => x.wall_s)) }, b_over_a_cpu: +(b / a).toFixed(3), pairs_b_lower_cpu: `${wins} of ${v.A.length}` }];
  }),
);
const result = {
  benchmark: 'cli-start',
  date: before.at,
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
  load_before: before,
  load_after: after,
  method: 'A/B alternated per run (order flips each run); CPU = user+system seconds of the process (10 ms ticks); servers: until /readyz first answers 200, SQLite, no DATABASE_URL/REDIS_URL, LECTERN_LOG_LEVEL=warn',
  sides: { A: values.a, B: values.b },
  file: values.file,
  runs,
  summary,
  samples,
};
const json = JSON.stringify(result, null, 2);
if (values.out) writeFileSync(values.out, json + '\n');
process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
