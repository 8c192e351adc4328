// Where the job API's time goes beyond the conversion (issue 17): the same 13-page paper through the API with
// the client polling every 5 ms and every 25 ms, alternated round by round, and the conversion in process in
// the same rounds. Subtracting half the poll interval (the mean wait for the next poll) from the API time
// leaves what the service adds; comparing the two intervals shows what frequent polls cost the conversion.
// The converter is wrapped (the `recognition.wrapConvert` override) to time the conversion in its worker
// thread as the service sees it, splitting each job into: upload (to the 202), hand-off (202 to the
// conversion's start: queue, reading the upload, attempt marker), conversion (worker thread, tools
// included), and finish (conversion end to the poll that sees `completed`: result and billing writes, the
// wait for the next poll).
//   node dist/bench/recognition/api-overhead.bench.js [--rounds N] [--out FILE]
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
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
const rounds = Number(opt('rounds') ?? 8);
const data = [join(sharedData, 'recognition'), join(repoRoot, '..', '..', 'shared', 'data', 'recognition')].find((d) => existsSync(d));
if (!data) {
  console.error('the shared recognition data is not beside this checkout');
  process.exit(2);
}
const file = join(data, 'arxiv', 'papermage.pdf');
const bytes = new Uint8Array(readFileSync(file));
let salt = 0;
const variant = (): Uint8Array => Buffer.concat([bytes, Buffer.from(`\n%lectern-overhead ${process.pid} ${++salt}\n`)]);
const dir = mkdtempSync(join(tmpdir(), 'lectern-api-overhead-'));
const lifted = { capacity: 100_000, refillPerSecond: 100_000 };
const config = loadConfig({}, { dataDir: dir, loadDemoCorpus: false, logLevel: 'silent', port: 0, rateLimits: { recognition: lifted, default: lifted } } as never);
let convertStart = 0;
let convertEnd = 0;
const app = await buildApp(config, {
  logger: pino({ level: 'silent' }),
  recognition: {
    wrapConvert: (inner) => async (b, o) => {
      convertStart = performance.now();
      try {
        return await inner(b, o);
      } finally {
        convertEnd = performance.now();
      }
    },
  },
});
await app.http.listen({ host: '127.0.0.1', port: 0 });
const base = `http://127.0.0.1:${(app.http.server.address() as { port: number }).port}`;
const { apiKey } = await app.accounts.create({ email: 'overhead@example.org', credits: 1_000_000 });
const headers = { 'x-api-key': apiKey };

async function viaApi(pollMs: number): Promise<{ ms: number; submitMs: number; polls: number; handoffMs: number; convertMs: number; finishMs: number }> {
  const t0 = performance.now();
  const form = new FormData();
  form.append('file', new Blob([variant()]), 'paper.pdf');
  const res = await fetch(`${base}/v1/recognitions`, { method: 'POST', headers, body: form });
  let job = (await res.json()) as { id: string; status: string };
  const submitMs = performance.now() - t0;
  let polls = 0;
  while (job.status === 'pending' || job.status === 'processing') {
    await sleep(pollMs);
    polls++;
    job = (await (await fetch(`${base}/v1/recognitions/${job.id}`, { headers })).json()) as typeof job;
  }
  if (job.status !== 'completed') throw new Error(`job ended ${job.status}`);
  const end = performance.now();
  return { ms: end - t0, submitMs, polls, handoffMs: convertStart - t0 - submitMs, convertMs: convertEnd - convertStart, finishMs: end - convertEnd };
}
const runner = new LocalProcessRunner();
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const r1 = (x: number): number => Math.round(x * 10) / 10;
await viaApi(5);
await viaApi(25);
for (let i = 0; i < 3; i++) await convertDocument(variant(), { runner });
const res: Record<string, number[]> = { api5: [], api25: [], inProcess: [], submit5: [], submit25: [], handoff5: [], handoff25: [], convert5: [], convert25: [], finish5: [], finish25: [], load: [] };
for (let r = 0; r < rounds; r++) {
  res.load!.push(loadavg()[0]!);
  const a = await viaApi(5);
  res.api5!.push(a.ms);
  res.submit5!.push(a.submitMs);
  res.handoff5!.push(a.handoffMs);
  res.convert5!.push(a.convertMs);
  res.finish5!.push(a.finishMs);
  const t = performance.now();
  await convertDocument(variant(), { runner });
  res.inProcess!.push(performance.now() - t);
  const b = await viaApi(25);
  res.api25!.push(b.ms);
  res.submit25!.push(b.submitMs);
  res.handoff25!.push(b.handoffMs);
  res.convert25!.push(b.convertMs);
  res.finish25!.push(b.finishMs);
}
const out = {
  benchmark: 'recognition-api-overhead',
  machine: machine(),
  file: 'papermage.pdf (13 pages)',
  rounds,
  median_ms: {
    api_poll_5ms: r1(median(res.api5!)),
    api_poll_25ms: r1(median(res.api25!)),
    in_process: r1(median(res.inProcess!)),
    submission_poll_5ms: r1(median(res.submit5!)),
    submission_poll_25ms: r1(median(res.submit25!)),
    handoff_poll_5ms: r1(median(res.handoff5!)),
    handoff_poll_25ms: r1(median(res.handoff25!)),
    conversion_in_worker_poll_5ms: r1(median(res.convert5!)),
    conversion_in_worker_poll_25ms: r1(median(res.convert25!)),
    finish_poll_5ms: r1(median(res.finish5!)),
    finish_poll_25ms: r1(median(res.finish25!)),
    // What the service adds beyond the conversion, less the mean wait for the next poll.
    added_poll_5ms: r1(median(res.api5!) - 2.5 - median(res.inProcess!)),
    added_poll_25ms: r1(median(res.api25!) - 12.5 - median(res.inProcess!)),
  },
  rounds_ms: Object.fromEntries(Object.entries(res).map(([k, v]) => [k, v.map(r1)])),
};
await app.close();
rmSync(dir, { recursive: true, force: true });
const target = opt('out') ?? join(repoRoot, 'bench', 'results', `recognition-api-overhead-${new Date().toISOString().slice(0, 10)}.json`);
writeFileSync(target, `${JSON.stringify(out, null, 2)}\n`);
console.log(JSON.stringify(out.median_ms));
console.error(`wrote ${target}`);
