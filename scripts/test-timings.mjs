#!/usr/bin/env node
// Per-file durations of a test run, as a table (issue 25, "the suite holds under load").
//
//   TEST_TIMINGS=tmp/t.jsonl npm test            # the run writes tmp/t.jsonl (and tmp/t.jsonl.cpu)
//   node scripts/test-timings.mjs tmp/t.jsonl    # top 30 files by wall time, and the totals
//   node scripts/test-timings.mjs --top 50 before.jsonl after.jsonl   # side by side
//   node scripts/test-timings.mjs --markdown before.jsonl after.jsonl # as a Markdown table (docs)
//   node scripts/test-timings.mjs --save tmp/t.jsonl                  # writes scripts/test-schedule.json
//
// Columns: wall seconds of the file (from its start to its end, while other files ran beside it), CPU
// seconds of the file's process and the child processes it waited for (servers, CLIs, Chromium; Linux),
// and their ratio (CPU / wall: near 0 a file mostly waits, near 1 it keeps one core busy).
// `--save` records each file's wall and CPU time in scripts/test-schedule.json, from which
// scripts/run-tests.mjs starts the longest files first (docs/operations.md "Tests", ADR 0300).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The run's files: Map<short name, { ms, cpu, ok, tests }>, and the run's wall time (ms). */
export function readRun(path) {
  const files = new Map();
  let wall = 0;
  let tests = {};
  const short = (f) => f.replace(/^dist\/test\//, '').replace(/\.test\.js$/, '');
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line);
    if (r.file === undefined) {
      // the run's last line: its wall time (and, from the older node --test reporter, the test counts)
      if (r.tests) tests = { ...tests, ...r.tests };
      wall = Math.max(wall, r.wall ?? 0);
    } else if (r.failed === undefined) {
      files.set(short(r.file), { ms: r.ms, ok: r.ok, cpu: null, tests: typeof r.tests === 'number' ? r.tests : 0, end: r.end ?? 0 });
      wall = Math.max(wall, r.end ?? 0);
    }
  }
  for (const [f, n] of Object.entries(tests)) {
    const e = files.get(short(f));
    if (e) e.tests = n;
  }
  if (existsSync(`${path}.cpu`)) {
    for (const line of readFileSync(`${path}.cpu`, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const r = JSON.parse(line);
      const e = files.get(short(r.file));
      if (e) e.cpu = Math.round((r.cpuSelf + r.cpuChildren) * 1000);
    }
  }
  return { files, wall };
}

const s = (ms) => (ms === null || ms === undefined ? '-' : (ms / 1000).toFixed(1));
const ratio = (e) => (e && e.cpu !== null && e.ms > 0 ? (e.cpu / e.ms).toFixed(2) : '-');

function totals(run) {
  let ms = 0;
  let cpu = 0;
  let tests = 0;
  let failed = 0;
  for (const e of run.files.values()) {
    ms += e.ms;
    cpu += e.cpu ?? 0;
    tests += e.tests;
    if (!e.ok) failed++;
  }
  return { ms, cpu, tests, failed, files: run.files.size, wall: run.wall };
}

function main(argv) {
  let top = 30;
  let markdown = false;
  let save = false;
  const paths = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--top') top = Number(argv[++i]);
    else if (argv[i] === '--markdown') markdown = true;
    else if (argv[i] === '--save') save = true;
    else paths.push(argv[i]);
  }
  if (paths.length === 0 || paths.length > 2) {
    console.error('usage: node scripts/test-timings.mjs [--top N] [--markdown] [--save] RUN.jsonl [AFTER.jsonl]');
    process.exit(2);
  }
  const runs = paths.map(readRun);
  const last = runs[runs.length - 1];
  if (save) {
    // merged into what is there: files this run did not reach keep their last measurement
    const out = join(root, 'scripts', 'test-schedule.json');
    const merged = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')).files ?? {} : {};
    for (const [f, e] of last.files) merged[f] = { ms: e.ms, cpuMs: e.cpu };
    const files = Object.fromEntries(Object.entries(merged).sort((a, b) => b[1].ms - a[1].ms));
    const lines = Object.entries(files).map(([f, e]) => `    ${JSON.stringify(f)}: ${JSON.stringify(e)}`);
    writeFileSync(out, `{\n  "measured": ${JSON.stringify(new Date().toISOString().slice(0, 10))},\n  "files": {\n${lines.join(',\n')}\n  }\n}\n`);
    console.error(`wrote ${out}`);
  }
  const order = [...last.files].sort((a, b) => b[1].ms - a[1].ms).slice(0, top).map(([f]) => f);
  if (runs.length === 2) {
    // the slowest of either run
    for (const [f] of [...runs[0].files].sort((a, b) => b[1].ms - a[1].ms).slice(0, top)) if (!order.includes(f)) order.push(f);
  }
  const rows = order.map((f) => {
    const cells = [f];
    for (const run of runs) {
      const e = run.files.get(f);
      cells.push(s(e?.ms), s(e?.cpu), ratio(e));
    }
    return cells;
  });
  const t = runs.map(totals);
  const sumRow = ['sum of all files'];
  for (const x of t) sumRow.push(s(x.ms), s(x.cpu), x.ms ? (x.cpu / x.ms).toFixed(2) : '-');
  const wallRow = ['wall time of the run'];
  for (const x of t) wallRow.push(s(x.wall), '', '');
  const countRow = ['files / tests / failed files'];
  for (const x of t) countRow.push(`${x.files} / ${x.tests} / ${x.failed}`, '', '');
  const header = ['file (dist/test/...)'];
  for (const p of paths) header.push(`wall s (${p.split('/').pop()})`, 'CPU s', 'CPU/wall');
  if (markdown) {
    const line = (c) => `| ${c.join(' | ')} |`;
    console.log(line(header));
    console.log(line(header.map((_, i) => (i === 0 ? '---' : '---:'))));
    for (const r of [...rows, sumRow, wallRow, countRow]) console.log(line(r));
  } else {
    const all = [header, ...rows, sumRow, wallRow, countRow];
    const widths = header.map((_, i) => Math.max(...all.map((r) => String(r[i] ?? '').length)));
    for (const r of all) console.log(r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  '));
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
