// Every sample of ../shared/data/recognition through the job API, as a new user would: submit over HTTP
// (a real socket, multipart part `file`), poll until the job finishes, fetch the Markdown, then submit
// each file again (must be the same job, free). Records per file: outcome, pages, grade, seconds from
// submission to completion, credits; checks billing (charged = pages x price, once).
//   node dist/bench/recognition/api-samples.bench.js [--out FILE] [--workers N]
// Exits non-zero when a job fails, a resubmission is not free, or the ledger disagrees.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { repoRoot, sharedData } from '../../test/helpers/paths.js';
import { machine } from '../lib/machine.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const data = [join(sharedData, 'recognition'), join(repoRoot, '..', '..', 'shared', 'data', 'recognition')].find((d) => existsSync(d));
if (!data) {
  console.error('the shared recognition data is not beside this checkout');
  process.exit(2);
}
const files = ['arxiv', 'docling-pdf/pdf', 'docling-epub', 'docling-ocr', 'djvu']
  .flatMap((dir) => readdirSync(join(data, dir)).filter((f) => /\.(pdf|epub|djvu)$/i.test(f)).map((f) => join(data, dir, f)))
  .sort();

const dir = mkdtempSync(join(tmpdir(), 'lectern-api-bench-'));
// The upload rate limit (10 per account, then one per 5 s) is lifted: this is one user with many files.
const config = loadConfig({}, {
  dataDir: dir,
  loadDemoCorpus: false,
  logLevel: 'silent',
  port: 0,
  rateLimits: { recognition: { capacity: 10_000, refillPerSecond: 1000 } },
  ...(opt('workers') ? { recognition: { workers: Number(opt('workers')) } } : {}),
} as never);
const app = await buildApp(config, { logger: pino({ level: 'silent' }) });
await app.http.listen({ host: '127.0.0.1', port: 0 });
const base = `http://127.0.0.1:${(app.http.server.address() as { port: number }).port}`;
const created = await app.accounts.create({ email: 'bench@example.org', credits: 1_000_000 });
const key = created.apiKey;
const failures: string[] = [];
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** fetch that backs off on 429 as a client should (polls and results share the account's default budget, 50/s). */
async function call(url: string, init: RequestInit = {}): Promise<Response> {
  for (;;) {
    const res = await fetch(url, init);
    if (res.status !== 429) return res;
    await sleep(Number(res.headers.get('retry-after') ?? 1) * 1000);
  }
}

async function submit(path: string): Promise<{ status: number; job: Record<string, any> }> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(path)]), 'upload.bin'); // the name says nothing
  const res = await call(`${base}/v1/recognitions`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  return { status: res.status, job: (await res.json()) as Record<string, any> };
}

const started = performance.now();
// Submit everything at once (the queue and the pool do the rest), then poll each.
const submitted = await Promise.all(files.map(async (f) => ({ file: f, t0: performance.now(), ...(await submit(f)) })));
const rows: Record<string, unknown>[] = [];
let charged = 0;
let pages = 0;
// Each job is polled on its own, so its time is from its submission to its completion (queue wait
// included: the pool converts `workers` documents at once, in submission order).
await Promise.all(
  submitted.map(async (s) => {
    const name = s.file.slice(data.length + 1);
    if (s.status !== 202) {
      failures.push(`${name}: submit answered ${s.status} ${JSON.stringify(s.job)}`);
      return;
    }
    let job: Record<string, any> = s.job;
    while (job.status === 'pending' || job.status === 'processing') {
      await sleep(250);
      job = (await (await call(`${base}/v1/recognitions/${s.job.id}`, { headers: { 'x-api-key': key } })).json()) as Record<string, any>;
    }
    const seconds = (performance.now() - s.t0) / 1000;
    if (job.status !== 'completed') {
      failures.push(`${name}: ${job.status} ${JSON.stringify(job.error)}`);
      rows.push({ file: name, status: job.status, error: job.error });
      return;
    }
    const result = (await (await call(`${base}/v1/recognitions/${job.id}/result`, { headers: { 'x-api-key': key } })).json()) as Record<string, any>;
    const md = await (await call(`${base}/v1/recognitions/${job.id}/result`, { headers: { 'x-api-key': key, accept: 'text/markdown' } })).text();
    if (md !== result.markdown || md.length === 0) failures.push(`${name}: the Markdown representations differ or are empty`);
    const again = await submit(s.file);
    if (again.status !== 200 || again.job.id !== job.id) failures.push(`${name}: the resubmission gave ${again.status} ${again.job.id}`);
    charged += job.charged_credits;
    pages += job.pages_total;
    if (job.charged_credits !== job.pages_total * config.prices.recognitionPerPage) failures.push(`${name}: charged ${job.charged_credits} for ${job.pages_total} pages`);
    rows.push({
      file: name,
      format: job.format,
      status: job.status,
      pages: job.pages_total,
      charged: job.charged_credits,
      seconds_submission_to_completion: round(seconds),
      grade: result.quality.score.grade,
      score: result.quality.score.value,
      markdown_chars: md.length,
      warnings: result.quality.warnings.map((w: { code: string }) => w.code),
    });
    console.error(`${basename(s.file)}: ${job.status}, ${job.pages_total} pages, grade ${result.quality.score.grade}, ${round(seconds)} s`);
  }),
);
rows.sort((a, b) => String(a.file).localeCompare(String(b.file)));
const wall = (performance.now() - started) / 1000;
const balance = await app.storage.ledger.balance(created.account.id);
if (balance !== 1_000_000 - charged) failures.push(`ledger: balance ${balance}, expected ${1_000_000 - charged}`);
const out = {
  benchmark: 'recognition-api-samples',
  machine: machine(),
  workers: app.recognitions.workers,
  files: rows.length,
  pages,
  charged,
  wall_seconds: round(wall),
  pages_per_second: round(pages / wall),
  failures,
  rows,
};
await app.close();
rmSync(dir, { recursive: true, force: true });
const file = opt('out') ?? join(repoRoot, 'bench', 'results', 'recognition-api-samples.json');
writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
console.error(`${rows.length} files, ${pages} pages in ${round(wall)} s with ${out.workers} workers; ${failures.length} failures -> ${file}`);
process.exit(failures.length > 0 ? 1 : 0);
