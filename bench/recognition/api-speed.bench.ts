// End-to-end speed of the recognition job API on 10+ page text-layer papers (issue 17: >= 100 pages/s), with
// the converter in process and the raw extractors (pdftotext, mutool, pdf.js) measured in the same run.
//   node dist/bench/recognition/api-speed.bench.js [--rounds N] [--poll-ms N] [--out FILE] [--workers N]
// Each round uploads the paper with a few bytes appended after %%EOF (a new SHA-256, so no cached result and
// no join with an earlier job; readers ignore them), then polls the job every `--poll-ms` (default 5) until
// it is completed: the time is from the start of the upload to the poll that sees `completed`, as a client
// sees it. One warm-up round per file is not counted (it also starts the warm conversion threads).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
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
const data = [join(sharedData, 'recognition'), join(repoRoot, '..', '..', 'shared', 'data', 'recognition')].find((d) => existsSync(d));
if (!data) {
  console.error('the shared recognition data is not beside this checkout');
  process.exit(2);
}
const files = [join(data, 'arxiv', 'papermage.pdf'), join(data, 'docling-pdf', 'pdf', 'redp5110_sampled.pdf')];
const round = (x: number, d = 1): number => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
let salt = 0;
/** The file with a unique comment after %%EOF: the same document, a new content key. */
const variant = (bytes: Uint8Array): Uint8Array => Buffer.concat([bytes, Buffer.from(`\n%lectern-bench ${process.pid} ${++salt}\n`)]);

const dir = mkdtempSync(join(tmpdir(), 'lectern-api-speed-'));
const lifted = { capacity: 100_000, refillPerSecond: 100_000 };
const config = loadConfig({}, {
  dataDir: dir,
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
const headers = { 'x-api-key': apiKey };

/** Upload, poll until completed; milliseconds from the upload's start to the completed poll. */
async function viaApi(bytes: Uint8Array): Promise<{ ms: number; submitMs: number; pages: number }> {
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
  if (job.status !== 'completed') throw new Error(`job ${job.id} ended ${job.status}: ${JSON.stringify(job.error)}`);
  return { ms, submitMs, pages: job.pages_total ?? 0 };
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
const rows = [];
for (const file of files) {
  const bytes = new Uint8Array(readFileSync(file));
  await viaApi(variant(bytes)); // warm-up
  const api: number[] = [];
  const submit: number[] = [];
  const inProcess: number[] = [];
  const pdftotext: number[] = [];
  const mutool: number[] = [];
  const pdfjsText: number[] = [];
  let pages = 0;
  const load: number[] = [];
  for (let r = 0; r < rounds; r++) {
    load.push(loadavg()[0]!);
    const a = await viaApi(variant(bytes));
    api.push(a.ms);
    submit.push(a.submitMs);
    pages = a.pages;
    const t = performance.now();
    await convertDocument(variant(bytes), { runner });
    inProcess.push(performance.now() - t);
    pdftotext.push(timeIt(() => execFileSync('pdftotext', [file, '-'], { stdio: ['ignore', 'ignore', 'ignore'] })));
    mutool.push(timeIt(() => execFileSync('mutool', ['convert', '-F', 'text', '-o', join(dir, 'out.txt'), file], { stdio: 'ignore' })));
    pdfjsText.push(await pdfjsMs(bytes));
  }
  const pps = (ms: number): number => round((pages / ms) * 1000);
  const row = {
    file: basename(file),
    pages,
    api: { median_ms: round(median(api)), best_ms: round(Math.min(...api)), median_pages_per_s: pps(median(api)), best_pages_per_s: pps(Math.min(...api)), rounds_ms: api.map((x) => round(x)), submission_median_ms: round(median(submit)) },
    in_process: { median_ms: round(median(inProcess)), median_pages_per_s: pps(median(inProcess)) },
    pdftotext: { median_ms: round(median(pdftotext)), median_pages_per_s: pps(median(pdftotext)) },
    mutool_text: { median_ms: round(median(mutool)), median_pages_per_s: pps(median(mutool)) },
    pdfjs_text: { median_ms: round(median(pdfjsText)), median_pages_per_s: pps(median(pdfjsText)) },
    api_over_in_process: round(median(inProcess) / median(api), 2),
    load_average_1m: round(median(load), 2),
  };
  rows.push(row);
  console.error(JSON.stringify(row));
}
const out = {
  benchmark: 'recognition-api-speed',
  machine: { ...machine(), cpu: cpus()[0]?.model },
  workers: app.recognitions.workers,
  rounds,
  poll_ms: pollMs,
  store: config.databaseUrl ? 'postgres' : 'embedded',
  rows,
};
await app.close();
rmSync(dir, { recursive: true, force: true });
const file = opt('out') ?? join(repoRoot, 'bench', 'results', `recognition-api-speed-${new Date().toISOString().slice(0, 10)}.json`);
writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
console.error(`wrote ${file}`);
