// The CPU of the hand-off between the main thread and a search thread (issue 29, ADR 0327), alone: no
// engine, no HTTP. A worker stands in for a search thread and answers each search with a real
// SearchExecution of a page of 10 hits with documents (made once by the in-process service over a small
// corpus, its hits encoded by the HTTP route's encoder, ADR 0150), after spinning `--work` us as the
// search would. The message shapes compared, alternated round by round in one process:
//   clone:  today's (ADR 0150): the request object and the result envelope structured-cloned, the
//           encoded hits' buffer transferred;
//   buffer: one transferred ArrayBuffer each way (the request as JSON, the reply as a JSON header of the
//           envelope's fields followed by the hit bytes);
//   batch:  today's shapes, but while the thread has a search the main thread holds the next ones and
//           sends them together in one message when an answer comes (fewer wake-ups of the thread).
// At each concurrency (searches kept in flight), CPU per search: the process (all threads), the main
// thread (/proc/self/task/PID/stat), and the rest (the worker and V8's helpers).
//
//   node dist/bench/search/thread-handoff.bench.js [--seconds 4] [--rounds 3] [--work 0,1000] [--concurrency 1,16]
//        [--out bench/results/thread-handoff.json]
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { buildCore } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { wireHitEncoder } from '../../src/http/presenters/search.js';
import { SearchService } from '../../src/search/search-service.js';
import { defaultSearchRequest, type SearchExecution } from '../../src/search/search-types.js';
import { sampleDocument } from '../../test/contract/sample-document.js';
import { tempDir } from '../../test/helpers/storage.js';
import { machine } from '../lib/machine.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    work: { type: 'string', default: '0,1000' },
    concurrency: { type: 'string', default: '1,16' },
    modes: { type: 'string', default: 'clone,buffer,batch' },
    out: { type: 'string' },
  },
});
const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);
const load1 = () => Math.round(loadavg()[0]! * 100) / 100;
const started = machine();

// 1. A real execution: 10 hits with documents and snippets, encoded.
const tmp = tempDir();
const core = await buildCore(loadConfig({}, { dataDir: tmp.dir, loadDemoCorpus: false, logLevel: 'silent' }), { logger: pino({ level: 'silent' }) });
const words = ['groundwater', 'aquifer', 'recharge', 'porosity', 'seepage', 'basin', 'salinity', 'karst'];
await core.storage.documents.upsertMany(
  Array.from({ length: 200 }, (_, i) =>
    sampleDocument(`W${i}`, {
      title: `${words[i % 8]} ${words[(i * 3) % 8]} in the ${words[(i * 5) % 8]} study ${i}`,
      abstract: `We measured ${words[(i + 1) % 8]} and ${words[(i + 2) % 8]} at ${i} sites. `.repeat(8),
      authors: [{ name: `Author ${i}`, orcid: null }, { name: `Second Author ${i}`, orcid: null }],
    }),
  ),
  1_700_000_000,
);
const indexes = await core.openIndexes();
const service = new SearchService({ indexes, store: core.works, workLinks: core.works, featureStore: core.storage.documents, activity: core.activity, billing: core.billing, prices: core.config.prices, clock: core.clock, secret: 's', report: () => undefined });
const request = defaultSearchRequest({ query: 'groundwater aquifer recharge', limit: 10 });
const ex = await service.execute(request, Date.now());
const bytes = wireHitEncoder('https://lectern.example')(ex.hits);
const execution: SearchExecution = { ...ex, hits: [], encodedHits: { bytes, ids: ex.hits.map((h) => h.id) } };
await core.close();
tmp.remove();
console.error(`execution: ${execution.encodedHits!.ids.length} hits, ${bytes.byteLength} bytes of hits`);

// 2. The stand-in search thread.
const workerCode = `
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const ex = workerData.execution;
const hits = workerData.hits;
let work = 0;
const spin = () => { const t = performance.now(); while ((performance.now() - t) * 1000 < work) {} };
const utf8 = new TextEncoder();
const reply = (m, id, t) => {
  const bytes = hits.slice();
  if (m === 'buffer') {
    const { encodedHits, hits: _h, ...rest } = ex;
    const head = utf8.encode(JSON.stringify({ id, us: (performance.now() - t) * 1000, ids: encodedHits.ids, ...rest }));
    const out = new Uint8Array(4 + head.byteLength + bytes.byteLength);
    new DataView(out.buffer).setUint32(0, head.byteLength, true);
    out.set(head, 4);
    out.set(bytes, 4 + head.byteLength);
    parentPort.postMessage(out.buffer, [out.buffer]);
  } else {
    const result = { ...ex, encodedHits: { bytes, ids: ex.encodedHits.ids } };
    parentPort.postMessage({ kind: 'done', id, result, us: (performance.now() - t) * 1000 }, [bytes.buffer]);
  }
};
const dec = new TextDecoder();
parentPort.on('message', (m) => {
  if (m.kind === 'work') { work = m.us; return; }
  if (m instanceof ArrayBuffer) {
    const t = performance.now();
    const r = JSON.parse(dec.decode(m));
    spin();
    reply('buffer', r.id, t);
    return;
  }
  const batch = m.kind === 'batch' ? m.searches : [m];
  for (const s of batch) {
    const t = performance.now();
    void s.request.query;
    spin();
    reply('clone', s.id, t);
  }
});`;
const worker = new Worker(workerCode, { eval: true, workerData: { execution: { ...execution, encodedHits: { bytes: new Uint8Array(0), ids: execution.encodedHits!.ids } }, hits: bytes } });

// 3. The main thread's side of each shape.
type Mode = 'clone' | 'buffer' | 'batch';
let mode: Mode = 'clone';
let nextId = 1;
const pending = new Map<number, () => void>();
let busy = 0;
let held: { kind: 'search'; id: number; request: unknown; nowMs: number; encodeHits: boolean }[] = [];
const utf8 = new TextEncoder();
const dec = new TextDecoder();
let sink = 0;
worker.on('message', (m: unknown) => {
  let id: number;
  if (m instanceof ArrayBuffer) {
    const v = new DataView(m);
    const n = v.getUint32(0, true);
    const head = JSON.parse(dec.decode(new Uint8Array(m, 4, n))) as { id: number; totalHits: number };
    const hits = new Uint8Array(m, 4 + n);
    sink += hits.byteLength + head.totalHits;
    id = head.id;
  } else {
    const d = m as { id: number; result: SearchExecution };
    sink += d.result.encodedHits!.bytes.byteLength + d.result.totalHits;
    id = d.id;
  }
  busy--;
  if (mode === 'batch' && held.length > 0) {
    const searches = held;
    held = [];
    busy += searches.length;
    worker.postMessage({ kind: 'batch', searches });
  }
  const done = pending.get(id)!;
  pending.delete(id);
  done();
});
function search(): Promise<void> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    if (mode === 'buffer') {
      const b = utf8.encode(JSON.stringify({ id, nowMs: Date.now(), encodeHits: true, request }));
      busy++;
      worker.postMessage(b.buffer, [b.buffer]);
      return;
    }
    const msg = { kind: 'search' as const, id, request, nowMs: Date.now(), encodeHits: true };
    if (mode === 'batch' && busy > 0) held.push(msg);
    else {
      busy++;
      worker.postMessage(msg);
    }
  });
}

const mainCpu = () => {
  const s = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
async function point(m: Mode, concurrency: number, seconds: number) {
  mode = m;
  const end = Date.now() + seconds * 1000;
  let n = 0;
  const c0 = process.cpuUsage();
  const m0 = mainCpu();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        await search();
        n++;
      }
    }),
  );
  const c = process.cpuUsage(c0);
  const all = (c.user + c.system) / n;
  const main = ((mainCpu() - m0) * 1e6) / n;
  return { mode: m, concurrency, searches: n, per_second: Math.round(n / seconds), cpu_us_per_search: { all_threads: Math.round(all), main_thread: Math.round(main), other_threads: Math.round(all - main) }, load_average_1m: load1() };
}

const results: Record<string, unknown>[] = [];
for (const work of list(values.work).map(Number)) {
  worker.postMessage({ kind: 'work', us: work });
  for (const m of list(values.modes) as Mode[]) await point(m, 16, 0.5); // warm-up
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const concurrency of list(values.concurrency).map(Number)) {
      for (const m of list(values.modes) as Mode[]) {
        const r = { work_us: work, round, ...(await point(m, concurrency, Number(values.seconds))) };
        results.push(r);
        console.error(JSON.stringify(r));
      }
    }
  }
}
await worker.terminate();
// medians by work, concurrency and mode
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const summary: Record<string, unknown>[] = [];
for (const work of list(values.work).map(Number))
  for (const concurrency of list(values.concurrency).map(Number))
    for (const m of list(values.modes)) {
      const rs = results.filter((r) => r.work_us === work && r.concurrency === concurrency && r.mode === m) as unknown as { cpu_us_per_search: { all_threads: number; main_thread: number; other_threads: number } }[];
      summary.push({ work_us: work, concurrency, mode: m, median_cpu_us_per_search: { all_threads: median(rs.map((r) => r.cpu_us_per_search.all_threads)), main_thread: median(rs.map((r) => r.cpu_us_per_search.main_thread)), other_threads: median(rs.map((r) => r.cpu_us_per_search.other_threads)) } });
    }
const out = { bench: 'thread-handoff', machine: started, load_average_1m_at_end: load1(), hits_bytes: bytes.byteLength, seconds_per_point: Number(values.seconds), summary, results, sink };
console.log(JSON.stringify(summary, null, 1));
if (values.out) writeFileSync(values.out, JSON.stringify(out, null, 2) + '\n');
