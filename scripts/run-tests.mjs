#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js) with node:test, each file in its own process.
// Arguments narrow the run to files whose path contains one of them: `npm test -- storage search`.
// Environment: DATABASE_URL / REDIS_URL enable the PostgreSQL and Redis suites (they say when skipped).
//
// Scheduling (issue 25, ADR 0300; docs/operations.md "Tests"):
//   - the longest files start first (their last measured wall time, scripts/test-schedule.json; a file
//     not listed there counts as 20 s), so no long file starts near the end and holds the run alone;
//   - TEST_CONCURRENCY files run at once (default 2); while the machine's CPUs stay idle (files waiting
//     on a server, a kill -9, a cluster), more are started, one at a time, up to TEST_MAX_CONCURRENCY
//     (default twice TEST_CONCURRENCY; Linux, read from /proc/stat; set it to TEST_CONCURRENCY to turn
//     this off). On a busy machine the CPUs are never idle and the run keeps to TEST_CONCURRENCY.
// Each file's output is printed whole when it ends (spec reporter); failures are listed again at the end.
// TEST_TIMINGS=<path> writes per-file wall times (and the CPU time of each file's process and the
// processes it waited for: `<path>.cpu`); `node scripts/test-timings.mjs <path>` prints the table.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { idleShare, mayStart, startOrder } from './test-scheduling.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const testRoot = join(root, 'dist', 'test');
// TEST_TIMINGS as given from where this was started; test files run from the repository root
if (process.env.TEST_TIMINGS) process.env.TEST_TIMINGS = resolve(process.env.TEST_TIMINGS);
process.chdir(root);

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const positive = (name, fallback) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`${name} must be a whole number of at least 1 (got ${JSON.stringify(raw)})`);
    process.exit(2);
  }
  return n;
};

const filters = process.argv.slice(2);
const files = walk(testRoot, []).filter((f) => filters.length === 0 || filters.some((x) => relative(root, f).includes(x)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

// --- order: the longest first ---
const short = (f) => relative(testRoot, f).replace(/\.test\.js$/, '');
const schedulePath = join(root, 'scripts', 'test-schedule.json');
const measured = existsSync(schedulePath) ? JSON.parse(readFileSync(schedulePath, 'utf8')).files ?? {} : {};
const ordered = startOrder(files, measured, short);

// --- how many at once ---
const base = positive('TEST_CONCURRENCY', 2);
// TEST_PROC_STAT: another file in /proc/stat's format (to check the idle rule without an idle machine)
const procStat = process.env.TEST_PROC_STAT ?? '/proc/stat';
const canSample = existsSync(procStat);
const most = Math.max(base, positive('TEST_MAX_CONCURRENCY', canSample ? 2 * base : base));

/** Idle share of all CPUs over the last two seconds (null until there are samples that long apart). */
const cpuIdle = (() => {
  const samples = [];
  const read = () => readFileSync(procStat, 'utf8').split('\n', 1)[0];
  let timer = null;
  return {
    start() {
      if (!canSample || most === base) return;
      samples.push(read());
      timer = setInterval(() => {
        samples.push(read());
        if (samples.length > 5) samples.shift();
      }, 500);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
    },
    /** Over the last two seconds. */
    share() {
      return samples.length < 5 ? null : idleShare(samples[0], samples[samples.length - 1]);
    },
  };
})();

// --- timings ---
const timingsPath = process.env.TEST_TIMINGS;
if (timingsPath) {
  writeFileSync(timingsPath, '');
  writeFileSync(`${timingsPath}.cpu`, '');
  // The CPU line of each file comes from its own process (scripts/test-cpu.mjs), preloaded here; the
  // test file's own child processes get it too and write nothing (it checks argv).
  const preload = `--import=${pathToFileURL(join(root, 'scripts', 'test-cpu.mjs')).href}`;
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, preload].filter(Boolean).join(' ');
}

process.env.LECTERN_LOG_LEVEL = process.env.LECTERN_LOG_LEVEL ?? 'silent';

const SUMMARY = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) /;
const t0 = Date.now();
const totals = { tests: 0, pass: 0, fail: 0, skipped: 0, todo: 0, cancelled: 0 };
const failures = [];

/** Runs one file; resolves once its output is printed. */
async function runFile(file) {
  const started = Date.now();
  const name = relative(root, file);
  let tests = 0;
  let failed = false;
  const stream = run({ files: [file], concurrency: 1 });
  async function* events() {
    for await (const event of stream) {
      const d = event.data ?? {};
      if (event.type === 'test:diagnostic' && d.nesting === 0 && SUMMARY.test(d.message ?? '')) continue;
      if ((event.type === 'test:pass' || event.type === 'test:fail') && d.details?.type !== 'suite' && d.name !== file) {
        tests++;
        totals.tests++;
        if (d.skip !== undefined && d.skip !== false) totals.skipped++;
        else if (d.todo !== undefined && d.todo !== false) totals.todo++;
        else if (event.type === 'test:pass') totals.pass++;
        else if (d.details?.error?.failureType === 'cancelledByParent') totals.cancelled++;
        else totals.fail++;
      }
      if (event.type === 'test:fail' && d.todo === undefined) {
        failed = true;
        if (d.details?.type !== 'suite') failures.push(`${name}: ${d.name}`);
      }
      yield event;
    }
  }
  const chunks = [];
  for await (const chunk of Readable.from(events()).compose(new spec())) chunks.push(chunk);
  process.stdout.write(chunks.join(''));
  if (timingsPath) {
    appendFileSync(timingsPath, `${JSON.stringify({ file: name, ms: Date.now() - started, ok: !failed, tests, start: started - t0, end: Date.now() - t0 })}\n`);
  }
}

const queue = [...ordered];
let running = 0;
let lastStart = 0;
let peak = 0;
let tick = null;
await new Promise((resolveAll) => {
  const next = () => {
    // beyond `base`, one more only while the CPUs have been half idle for the last two seconds, and not
    // within two seconds of the last start
    while (queue.length > 0 && mayStart({ running, base, most, idle: running >= base ? cpuIdle.share() : null, sinceLastStartMs: Date.now() - lastStart })) {
      const file = queue.shift();
      running++;
      peak = Math.max(peak, running);
      lastStart = Date.now();
      runFile(file)
        .catch((err) => {
          failures.push(`${relative(root, file)}: the runner failed: ${err?.stack ?? err}`);
          totals.fail++;
        })
        .finally(() => {
          running--;
          if (queue.length === 0 && running === 0) resolveAll();
          else next();
        });
    }
  };
  cpuIdle.start();
  // files end when they end; extra ones start when the CPUs turn idle: looked at twice a second
  tick = setInterval(next, 500);
  next();
}).finally(() => {
  clearInterval(tick);
  cpuIdle.stop();
});

const seconds = ((Date.now() - t0) / 1000).toFixed(1);
console.log(`ℹ files ${files.length} (at most ${peak} at once; TEST_CONCURRENCY ${base}, TEST_MAX_CONCURRENCY ${most})`);
for (const [k, v] of Object.entries(totals)) console.log(`ℹ ${k} ${v}`);
console.log(`ℹ duration_ms ${Date.now() - t0} (${seconds} s)`);
if (failures.length > 0) {
  console.log(`\n✖ failing tests:`);
  for (const f of failures) console.log(`  ${f}`);
}
if (timingsPath) appendFileSync(timingsPath, `${JSON.stringify({ wall: Date.now() - t0 })}\n`);
process.exit(failures.length > 0 || totals.fail > 0 ? 1 : 0);
