// End-to-end speed of the recognition job API on 10+ page text-layer papers (issue 17: >= 100 pages/s), with
// the converter in process and the raw extractors (pdftotext, mutool, pdf.js) measured in the same run.
//   node dist/bench/recognition/api-speed.bench.js [--rounds N] [--poll-ms N] [--out FILE] [--workers N]
//        [--realset ROOT [--split report|tune] [--min-pages 10] [--max-pages 30] [--limit N] [--offset K]] [--base DIST] [--no-pdfjs]
// Each round uploads the paper with a few bytes appended after %%EOF (a new SHA-256, so no cached result and
// no join with an earlier job; readers ignore them), then polls the job every `--poll-ms` (default 5) until
// it is completed: the time is from the start of the upload to the poll that sees `completed`, as a client
// sees it. One warm-up round per file is not counted (it also starts the warm conversion threads).
// `--realset ROOT` runs the real development set's PDFs (bench/recognition/realset/devset.json, unpacked
// under ROOT) of one split with 10-30 pages instead of the two shared papers (issue 28); `--limit N` takes N
// of them spread evenly over the list. `--base DIST` starts a second service from another build's dist
// (the code before a change) in the same process and alternates the two round by round (which goes first
// alternates too), so both see the same load. `--no-pdfjs` leaves pdf.js out (on a saturated machine it
// takes most of a round; pdftotext and mutool still run). CPU per page is the process's CPU (all threads: HTTP, the
// conversion thread, the polling client) plus its children's (mutool; the tool launcher
// and the tools it reaped, ADR 0361) during the API round.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { buildApp as thisBuildApp } from '../../src/app.js';
import { loadConfig as thisLoadConfig } from '../../src/config/index.js';
import { LocalProcessRunner } from '../../src/adapters/process/local-process-runner.js';
import { convertDocument } from '../../src/recognition/index.js';
import { repoRoot, sharedData } from '../../test/helpers/paths.js';
import { machine } from '../lib/machine.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const rounds = Number(opt('rounds') ?? 5);
const pollMs = Number(opt('poll-ms') ?? 5);
const realset = opt('realset');
const split = opt('split') ?? 'report';
const minPages = Number(opt('min-pages') ?? 10);
const maxPages = Number(opt('max-pages') ?? 30);
/** The documents: the real development set's PDFs of one split and page range, or the two shared papers. */
function documentList(): string[] {
  if (realset) {
    const devset = JSON.parse(readFileSync(join(repoRoot, 'bench', 'recognition', 'realset', 'devset.json'), 'utf8')) as { documents: { path: string; pages: number; split: string }[] };
    const all = devset.documents.filter((d) => d.split === split && d.pages >= minPages && d.pages <= maxPages && d.path.endsWith('.pdf')).map((d) => join(realset, d.path));
    const limit = Math.min(all.length, Number(opt('limit') ?? all.length));
    // Spread evenly over the list (sorted by path, so over packages), not the first N.
    // `--offset K` shifts every pick by K places (another sample of the same spread).
    const offset = Number(opt('offset') ?? 0);
    return Array.from({ length: limit }, (_, i) => all[(Math.floor((i * all.length) / limit) + offset) % all.length]!).filter((f) => existsSync(f));
  }
  const data = [join(sharedData, 'recognition'), join(repoRoot, '..', '..', 'shared', 'data', 'recognition')].find((d) => existsSync(d));
  if (!data) {
    console.error('the shared recognition data is not beside this checkout');
    process.exit(2);
  }
  return [join(data, 'arxiv', 'papermage.pdf'), join(data, 'docling-pdf', 'pdf', 'redp5110_sampled.pdf')];
}
const files = documentList();
if (!files.length) {
  console.error('no documents to run');
  process.exit(2);
}
const round = (x: number, d = 1): number => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
let salt = 0;
/** The file with a unique comment after %%EOF: the same document, a new content key. */
const variant = (bytes: Uint8Array): Uint8Array => Buffer.concat([bytes, Buffer.from(`\n%lectern-bench ${process.pid} ${++salt}\n`)]);

/** The machine and its load at the start (the end's load is added when writing). */
const atStart = machine();
const dir = mkdtempSync(join(tmpdir(), 'lectern-api-speed-'));
const lifted = { capacity: 100_000, refillPerSecond: 100_000 };
type BuildApp = typeof thisBuildApp;
type LoadConfig = typeof thisLoadConfig;
interface Service {
  name: string;
  base: string;
  headers: Record<string, string>;
  app: Awaited<ReturnType<BuildApp>>;
  store: string;
}
/** A service of one build (its own data directory and account) listening on a free port. */
async function startService(name: string, buildApp: BuildApp, loadConfig: LoadConfig): Promise<Service> {
  const config = loadConfig({}, {
    dataDir: join(dir, name),
    loadDemoCorpus: false,
    logLevel: 'silent',
    port: 0,
    rateLimits: { recognition: lifted, default: lifted },
    ...(opt('workers') ? { recognition: { workers: Number(opt('workers')) } } : {}),
  } as never);
  const app = await buildApp(config, { logger: pino({ level: 'silent' }) });
  await app.http.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.http.server.address() as { port: number }).port}`;
  const { apiKey } = await app.accounts.create({ email: 'speed@example.org', credits: 1_000_000 });
  return { name, base, headers: { 'x-api-key': apiKey }, app, store: config.databaseUrl ? 'postgres' : 'embedded' };
}
const services: Service[] = [await startService('this', thisBuildApp, thisLoadConfig)];
const baseDist = opt('base');
if (baseDist) {
  const appMod = (await import(pathToFileURL(join(baseDist, 'src', 'app.js')).href)) as { buildApp: BuildApp };
  const configMod = (await import(pathToFileURL(join(baseDist, 'src', 'config', 'index.js')).href)) as { loadConfig: LoadConfig };
  services.push(await startService('base', appMod.buildApp, configMod.loadConfig));
}

/**
 * Children's CPU (user + system) in ms: those waited for (Linux /proc/self/stat) plus those still running
 * with what they have waited for, and the tool launchers of ADR 0361 (not children: started through `sh`;
 * they reap the tools they start, so those tools' CPU is in the launcher's counters, not in this process's).
 */
function childrenCpuMs(): number {
  const fields = (stat: string): string[] => stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  try {
    const s = fields(readFileSync('/proc/self/stat', 'utf8'));
    let ticks = Number(s[13]) + Number(s[14]);
    // The tool launchers of this process's runners are not its children (ADR 0361): they name it in `--service=`.
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`tool-launcher-main.js\0--service=${process.pid}\0`)) continue;
        const c = fields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
        ticks += Number(c[11]) + Number(c[12]) + Number(c[13]) + Number(c[14]);
      } catch {
        // gone
      }
    }
    for (const task of readdirSync('/proc/self/task')) {
      let kids: string[] = [];
      try {
        kids = readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
      } catch {
        continue;
      }
      for (const pid of kids) {
        try {
          const c = fields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
          ticks += Number(c[11]) + Number(c[12]) + Number(c[13]) + Number(c[14]);
        } catch {
          // exited meanwhile: counted in ours once waited for
        }
      }
    }
    return (ticks * 1000) / 100;
  } catch {
    return NaN;
  }
}

/** Upload, poll until completed; milliseconds from the upload's start to the completed poll, and the CPU used meanwhile. */
async function viaApi(svc: Service, bytes: Uint8Array): Promise<{ ms: number; submitMs: number; pages: number; cpuMs: number }> {
  const { base, headers } = svc;
  const c0 = process.cpuUsage();
  const ch0 = childrenCpuMs();
  const t0 = performance.now();
  const form = new FormData();
  form.append('file', new Blob([bytes]), 'paper.pdf');
  const res = await fetch(`${base}/v1/recognitions`, { method: 'POST', headers, body: form });
  let job = (await res.json()) as { id: string; status: string; pages_total: number | null; error?: unknown };
  if (res.status !== 202) throw new Error(`submission answered ${res.status}: ${JSON.stringify(job)}`);
  const submitMs = performance.now() - t0;
  while (job.status === 'pending' || job.status === 'processing') {
    await sleep(pollMs);
    job = (await (await fetch(`${base}/v1/recognitions/${job.id}`, { headers })).json()) as typeof job;
  }
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const cpuMs = (c.user + c.system) / 1000 + (childrenCpuMs() - ch0);
  if (job.status !== 'completed') throw new Error(`job ${job.id} ended ${job.status}: ${JSON.stringify(job.error)}`);
  return { ms, submitMs, pages: job.pages_total ?? 0, cpuMs };
}

const runner = new LocalProcessRunner();
const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
/** pdf.js text extraction of every page (as in devset.bench), ms. */
async function pdfjsMs(bytes: Uint8Array): Promise<number> {
  const t = performance.now();
  const doc = await pdfjs.getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
  for (let i = 1; i <= doc.numPages; i++) await (await doc.getPage(i)).getTextContent();
  await doc.destroy();
  return performance.now() - t;
}
const timeIt = (fn: () => void): number => {
  const t = performance.now();
  fn();
  return performance.now() - t;
};
interface ApiRow {
  median_ms: number;
  best_ms: number;
  median_pages_per_s: number;
  best_pages_per_s: number;
  rounds_ms: number[];
  cpu_ms_per_page_median: number;
}
interface Speed {
  median_ms: number;
  median_pages_per_s: number;
}
interface Row {
  file: string;
  pages: number;
  api: ApiRow & { submission_median_ms: number };
  api_base?: ApiRow;
  this_over_base_cpu?: number;
  this_over_base_ms?: number;
  in_process: Speed;
  pdftotext: Speed;
  mutool_text: Speed;
  pdfjs_text?: Speed;
  api_over_in_process: number;
  load_average_1m: number;
}
const rows: Row[] = [];
let r0 = 0;
for (const file of files) {
  const bytes = new Uint8Array(readFileSync(file));
  for (const svc of services) await viaApi(svc, variant(bytes)); // warm-up
  const api = new Map(services.map((s) => [s.name, [] as number[]]));
  const cpu = new Map(services.map((s) => [s.name, [] as number[]]));
  const submit: number[] = [];
  const inProcess: number[] = [];
  const pdftotext: number[] = [];
  const mutool: number[] = [];
  const pdfjsText: number[] = [];
  let pages = 0;
  const load: number[] = [];
  for (let r = 0; r < rounds; r++) {
    load.push(loadavg()[0]!);
    // The builds alternate which goes first, round by round and file by file.
    const order = (r0 + r) % 2 === 0 ? services : [...services].reverse();
    for (const svc of order) {
      const a = await viaApi(svc, variant(bytes));
      api.get(svc.name)!.push(a.ms);
      cpu.get(svc.name)!.push(a.cpuMs);
      if (svc.name === 'this') submit.push(a.submitMs);
      pages = a.pages;
    }
    const t = performance.now();
    await convertDocument(variant(bytes), { runner });
    inProcess.push(performance.now() - t);
    pdftotext.push(timeIt(() => execFileSync('pdftotext', [file, '-'], { stdio: ['ignore', 'ignore', 'ignore'] })));
    mutool.push(timeIt(() => execFileSync('mutool', ['convert', '-F', 'text', '-o', join(dir, 'out.txt'), file], { stdio: 'ignore' })));
    if (!args.includes('--no-pdfjs')) pdfjsText.push(await pdfjsMs(bytes));
  }
  r0 += rounds;
  const pps = (ms: number): number => round((pages / ms) * 1000);
  const apiRow = (name: string): ApiRow => {
    const xs = api.get(name)!;
    return { median_ms: round(median(xs)), best_ms: round(Math.min(...xs)), median_pages_per_s: pps(median(xs)), best_pages_per_s: pps(Math.min(...xs)), rounds_ms: xs.map((x) => round(x)), cpu_ms_per_page_median: round(median(cpu.get(name)!) / pages, 2) };
  };
  const row: Row = {
    file: realset ? file.slice(realset.length) : basename(file),
    pages,
    api: { ...apiRow('this'), submission_median_ms: round(median(submit)) },
    ...(baseDist ? { api_base: apiRow('base'), this_over_base_cpu: round(median(cpu.get('this')!) / median(cpu.get('base')!), 3), this_over_base_ms: round(median(api.get('this')!) / median(api.get('base')!), 3) } : {}),
    in_process: { median_ms: round(median(inProcess)), median_pages_per_s: pps(median(inProcess)) },
    pdftotext: { median_ms: round(median(pdftotext)), median_pages_per_s: pps(median(pdftotext)) },
    mutool_text: { median_ms: round(median(mutool)), median_pages_per_s: pps(median(mutool)) },
    ...(pdfjsText.length ? { pdfjs_text: { median_ms: round(median(pdfjsText)), median_pages_per_s: pps(median(pdfjsText)) } } : {}),
    api_over_in_process: round(median(inProcess) / median(api.get('this')!), 2),
    load_average_1m: round(median(load), 2),
  };
  rows.push(row);
  console.error(JSON.stringify(row));
}
/** Over the documents: the median of each document's median pages/s, and of its CPU per page. */
const across = (pick: (r: Row) => number | undefined): number | null => {
  const xs = rows.map(pick).filter((x): x is number => typeof x === 'number');
  return xs.length ? round(median(xs)) : null;
};
const summary = {
  documents: rows.length,
  pages: rows.reduce((n, r) => n + r.pages, 0),
  api_median_pages_per_s: across((r) => r.api.median_pages_per_s),
  api_cpu_ms_per_page_median: across((r) => r.api.cpu_ms_per_page_median),
  ...(baseDist
    ? {
        base_api_median_pages_per_s: across((r) => r.api_base?.median_pages_per_s),
        base_api_cpu_ms_per_page_median: across((r) => r.api_base?.cpu_ms_per_page_median),
        this_over_base_cpu_median: across((r) => r.this_over_base_cpu),
      }
    : {}),
  in_process_median_pages_per_s: across((r) => r.in_process.median_pages_per_s),
  pdftotext_median_pages_per_s: across((r) => r.pdftotext.median_pages_per_s),
  mutool_text_median_pages_per_s: across((r) => r.mutool_text.median_pages_per_s),
  pdfjs_text_median_pages_per_s: across((r) => r.pdfjs_text?.median_pages_per_s),
  load_average_1m_median: across((r) => r.load_average_1m),
};
console.error(JSON.stringify(summary));
const out = {
  benchmark: 'recognition-api-speed',
  machine: { ...atStart, cpu: cpus()[0]?.model, load_average_1m_at_end: round(loadavg()[0]!, 2) },
  workers: services[0]!.app.recognitions.workers,
  rounds,
  poll_ms: pollMs,
  store: services[0]!.store,
  ...(realset ? { documents: { set: 'bench/recognition/realset/devset.json', split, min_pages: minPages, max_pages: maxPages } } : {}),
  ...(baseDist ? { base: baseDist } : {}),
  summary,
  rows,
};
for (const svc of services) await svc.app.close();
rmSync(dir, { recursive: true, force: true });
const file = opt('out') ?? join(repoRoot, 'bench', 'results', `recognition-api-speed-${new Date().toISOString().slice(0, 10)}.json`);
writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
console.error(`wrote ${file}`);
