// CPU per page of the PDF converter in process, this build against another build's dist (the code before a
// change), alternated document by document and round by round in one process so both see the same load
// (issue 28's speed work, ADR 0345). CPU is the process's (user + system, all threads) plus its finished
// children's (mutool), per page; the Markdown of both builds is compared byte for byte in every round.
//   node dist/bench/recognition/convert-cpu-ab.bench.js --base DIST --realset ROOT [--split tune|report]
//        [--min-pages 10] [--max-pages 30] [--limit N] [--only NAME,NAME] [--rounds N] [--out FILE]
// `--only` keeps the documents whose path contains one of the names (before `--limit`).
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LocalProcessRunner } from '../../src/adapters/process/local-process-runner.js';
import { convertDocument } from '../../src/recognition/index.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { machine } from '../lib/machine.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const baseDist = opt('base');
const realset = opt('realset');
if (!baseDist || !realset) {
  console.error('usage: convert-cpu-ab.bench.js --base DIST --realset ROOT [--split tune] [--limit N] [--rounds N]');
  process.exit(2);
}
const split = opt('split') ?? 'tune';
const minPages = Number(opt('min-pages') ?? 10);
const maxPages = Number(opt('max-pages') ?? 30);
const rounds = Number(opt('rounds') ?? 2);
const devset = JSON.parse(readFileSync(join(repoRoot, 'bench', 'recognition', 'realset', 'devset.json'), 'utf8')) as { documents: { path: string; pages: number; split: string }[] };
const only = opt('only')?.split(',').filter(Boolean) ?? [];
const all = devset.documents
  .filter((d) => d.split === split && d.pages >= minPages && d.pages <= maxPages && d.path.endsWith('.pdf') && (only.length === 0 || only.some((o) => d.path.includes(o))))
  .map((d) => d.path);
const limit = Math.min(all.length, Number(opt('limit') ?? all.length));
const files = Array.from({ length: limit }, (_, i) => all[Math.floor((i * all.length) / limit)]!).filter((p) => existsSync(join(realset, p)));

type Convert = typeof convertDocument;
const base = (await import(pathToFileURL(join(baseDist, 'src', 'recognition', 'index.js')).href)) as { convertDocument: Convert };
const builds: [string, Convert][] = [
  ['this', convertDocument],
  ['base', base.convertDocument],
];
const runner = new LocalProcessRunner();
/** The machine and its load at the start (the end's load is added when writing). */
const atStart = machine();
const round = (x: number, d = 1): number => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
function childrenCpuMs(): number {
  const f = readFileSync('/proc/self/stat', 'utf8');
  const s = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return ((Number(s[13]) + Number(s[14])) * 1000) / 100;
}

const rows = [];
let k = 0;
for (const path of files) {
  const bytes = new Uint8Array(readFileSync(join(realset, path)));
  const cpu = new Map<string, number[]>(builds.map(([n]) => [n, []]));
  const wall = new Map<string, number[]>(builds.map(([n]) => [n, []]));
  let pages = 0;
  let identical = true;
  const load: number[] = [];
  for (let r = 0; r < rounds; r++) {
    load.push(loadavg()[0]!);
    const order = (k + r) % 2 === 0 ? builds : [...builds].reverse();
    const md = new Map<string, string>();
    for (const [name, convert] of order) {
      const c0 = process.cpuUsage();
      const ch0 = childrenCpuMs();
      const t0 = performance.now();
      const res = await convert(bytes, { runner });
      wall.get(name)!.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu.get(name)!.push((c.user + c.system) / 1000 + childrenCpuMs() - ch0);
      pages = res.report.pages.total;
      md.set(name, res.markdown);
    }
    if (md.get('this') !== md.get('base')) identical = false;
  }
  k += rounds;
  const row = {
    file: path,
    pages,
    this_cpu_ms_per_page: round(median(cpu.get('this')!) / pages, 2),
    base_cpu_ms_per_page: round(median(cpu.get('base')!) / pages, 2),
    this_over_base_cpu: round(median(cpu.get('this')!) / median(cpu.get('base')!), 3),
    this_wall_ms: round(median(wall.get('this')!)),
    base_wall_ms: round(median(wall.get('base')!)),
    markdown_identical: identical,
    load_average_1m: round(median(load), 2),
  };
  rows.push(row);
  console.error(JSON.stringify(row));
}
const summary = {
  documents: rows.length,
  pages: rows.reduce((n, r) => n + r.pages, 0),
  this_cpu_ms_per_page_median: round(median(rows.map((r) => r.this_cpu_ms_per_page)), 2),
  base_cpu_ms_per_page_median: round(median(rows.map((r) => r.base_cpu_ms_per_page)), 2),
  this_over_base_cpu_median: round(median(rows.map((r) => r.this_over_base_cpu)), 3),
  this_cpu_ms_per_page_pooled: round(rows.reduce((n, r) => n + r.this_cpu_ms_per_page * r.pages, 0) / rows.reduce((n, r) => n + r.pages, 0), 2),
  base_cpu_ms_per_page_pooled: round(rows.reduce((n, r) => n + r.base_cpu_ms_per_page * r.pages, 0) / rows.reduce((n, r) => n + r.pages, 0), 2),
  markdown_identical: rows.every((r) => r.markdown_identical),
};
console.error(JSON.stringify(summary));
const out = { benchmark: 'recognition-convert-cpu-ab', machine: { ...atStart, cpu: cpus()[0]?.model, load_average_1m_at_end: round(loadavg()[0]!, 2) }, base: baseDist, split, min_pages: minPages, max_pages: maxPages, rounds, summary, rows };
const file = opt('out') ?? join(repoRoot, 'bench', 'results', `recognition-convert-cpu-ab-${new Date().toISOString().slice(0, 10)}.json`);
writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
console.error(`wrote ${file}`);
