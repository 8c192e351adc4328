// The checkpoint hand-over of a conversion thread (ADR 0132), A/B in one process: the same paper converted
// through `threadedConvert` (the real worker script, warm threads) with a window of 1 (the thread waits for
// the parent's answer after every page, as before ADR 0132) and of 16 (pipelined), alternated round by
// round, with the parent's onPage a checkpoint batch's (answers at once) and, in a second pass, the parent's
// event loop kept busy as polls keep it (about 1 ms of work every 5 ms). The conversion in process is timed
// in the same rounds. No HTTP, no store: only the hand-over differs between the two.
//   node dist/bench/recognition/checkpoint-window.bench.js [--rounds N] [--out FILE]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { LocalProcessRunner } from '../../src/adapters/process/local-process-runner.js';
import { convertDocument } from '../../src/recognition/index.js';
import { closeWarmThreads, threadedConvert } from '../../src/recognition-jobs/index.js';
import { repoRoot, sharedData } from '../../test/helpers/paths.js';
import { machine } from '../lib/machine.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const rounds = Number(opt('rounds') ?? 10);
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
const worker = new URL('../../src/recognition-worker.js', import.meta.url);
const runner = new LocalProcessRunner();
const convert1 = threadedConvert(worker, { checkpointWindow: 1 });
const convert16 = threadedConvert(worker, { checkpointWindow: 16 });

/** Keeps the main event loop busy about 1 ms in every 5, as frequent polls do. */
function busyLoop(): () => void {
  const t = setInterval(() => {
    const end = performance.now() + 1;
    while (performance.now() < end);
  }, 5);
  return () => clearInterval(t);
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

const rows = [];
for (const file of files) {
  const bytes = new Uint8Array(readFileSync(file));
  const onPage = () => {};
  for (const busy of [false, true]) {
    const stop = busy ? busyLoop() : () => {};
    await convert1(bytes, { runner, onPage });
    await convert16(bytes, { runner, onPage }); // warm-up of both
    const w1: number[] = [];
    const w16: number[] = [];
    const inProcess: number[] = [];
    const load: number[] = [];
    let pages = 0;
    for (let r = 0; r < rounds; r++) {
      load.push(loadavg()[0]!);
      // Alternated, the order flipped every round.
      const first = r % 2 === 0;
      if (first) w1.push(await time(() => convert1(bytes, { runner, onPage })));
      w16.push(await time(async () => (pages = (await convert16(bytes, { runner, onPage })).report.input.pages)));
      if (!first) w1.push(await time(() => convert1(bytes, { runner, onPage })));
      inProcess.push(await time(() => convertDocument(bytes, { runner, onPage })));
    }
    stop();
    const row = {
      file: file.split('/').pop(),
      pages,
      parent_loop: busy ? 'busy 1 ms every 5 ms' : 'idle',
      window_1: { median_ms: round(median(w1)), best_ms: round(Math.min(...w1)), rounds_ms: w1.map((x) => round(x)) },
      window_16: { median_ms: round(median(w16)), best_ms: round(Math.min(...w16)), rounds_ms: w16.map((x) => round(x)) },
      in_process: { median_ms: round(median(inProcess)), best_ms: round(Math.min(...inProcess)) },
      window_16_over_window_1: round(median(w16) / median(w1), 2),
      load_average_1m: round(median(load), 2),
    };
    rows.push(row);
    console.error(JSON.stringify(row));
  }
}
await closeWarmThreads();
const out = { benchmark: 'recognition-checkpoint-window', machine: { ...machine(), cpu: cpus()[0]?.model }, rounds, rows };
const target = opt('out') ?? join(repoRoot, 'bench', 'results', `recognition-checkpoint-window-${new Date().toISOString().slice(0, 10)}.json`);
writeFileSync(target, `${JSON.stringify(out, null, 2)}\n`);
console.error(`wrote ${target}`);
