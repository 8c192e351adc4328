// Inline searches against searches on a search thread (issue 29, ADR 0326), without HTTP: over a
// prepared data directory (the HTTP bench's, e.g. the synthetic corpus), one process wires the search
// thread pool as the server does (SearchThreads over the search-worker entry, the reserved lane, the
// shared index files) and two SearchServices over it: one sends every search to the thread, the other
// runs a search inline when nothing else searches (limits.inlineSearchMaxWork = --max-work). Both ask
// for encoded hits (the HTTP route's path); billing and activity are stand-ins (the same for both). The
// modes alternate point by point; each point is --seconds of one client's searches (one at a time, the
// case inline searches are for) over a workload class, and reports CPU per search: the process (all
// threads), the main thread and the rest (the search threads, V8's helpers), from /proc/self/task.
//
//   node dist/bench/search/inline-search.bench.js --dir DATA_DIR_COPY [--classes or,phrase,filter]
//        [--seconds 5] [--rounds 4] [--max-work 1000000000] [--out bench/results/inline-search.json]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { buildCore } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { wireHitEncoder } from '../../src/http/presenters/search.js';
import { SearchService } from '../../src/search/search-service.js';
import { SearchThreads } from '../../src/search/search-threads.js';
import { defaultSearchRequest } from '../../src/search/search-types.js';
import { machine } from '../lib/machine.js';

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    classes: { type: 'string', default: 'or,phrase,filter' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '4' },
    'max-work': { type: 'string', default: '1000000000' },
    workload: { type: 'string', default: join(process.cwd(), '..', 'shared', 'tools', 'synth-corpus', 'workload.json') },
    out: { type: 'string' },
  },
});
if (!values.dir) throw new Error('--dir (a copy of a prepared data directory) is required');
const load1 = () => Math.round(loadavg()[0]! * 100) / 100;
const started = machine();
const config = loadConfig({}, { dataDir: values.dir, loadDemoCorpus: false, logLevel: 'silent', searchThreads: 1 });
const core = await buildCore(config, { logger: pino({ level: 'silent' }) });
const indexes = await core.openIndexes({ catchUp: false });
const threads = new SearchThreads(new URL('../../src/search-worker.js', import.meta.url), 1, { config, encoders: core.encoderOptions }, () => core.indexSnapshot(), (err) => console.error(err));
const deps = {
  indexes,
  store: core.works,
  workLinks: core.works,
  featureStore: core.storage.documents,
  activity: { record: async () => undefined },
  billing: { reserve: async () => undefined, charge: async () => undefined } as never,
  prices: config.prices,
  clock: core.clock,
  secret: 's',
  report: (err: unknown) => console.error(err),
  budget: { maxTerms: config.limits.queryMaxTerms, maxPostings: config.limits.queryMaxPostings, maxResultTerms: config.limits.queryMaxResultTerms, concurrency: 10_000, slots: 2 },
  executor: threads,
};
const modes = {
  thread: new SearchService(deps),
  inline: new SearchService({ ...deps, inline: { maxWork: Number(values['max-work']), encodeHits: wireHitEncoder(config.baseUrl) } }),
};
type Q = { text: string; filter: { types?: string[]; issued_after?: number; issued_before?: number } | null };
const workload = JSON.parse(readFileSync(values.workload, 'utf8')) as Record<string, Q[]>;
const requestOf = (q: Q) =>
  defaultSearchRequest({ query: q.text, limit: 10, filters: q.filter ? { types: q.filter.types ?? null, issuedAfter: q.filter.issued_after ?? null, issuedBefore: q.filter.issued_before ?? null } : {} });
const principal = { accountId: 1, credential: 'api_key', credentialId: 'k1', scopes: [], clientId: null, audience: null } as never;

/** CPU seconds of this process's threads: the main thread and all. */
function cpu(): { main: number; all: number } {
  let all = 0;
  let main = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const s = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      const t = (Number(f[11]) + Number(f[12])) / 100;
      all += t;
      if (Number(tid) === process.pid) main = t;
    } catch {
      // the thread ended
    }
  }
  return { main, all };
}

async function point(mode: keyof typeof modes, cls: string) {
  const service = modes[mode];
  const qs = workload[cls]!.map(requestOf);
  const inline0 = service.inlineSearches;
  const end = Date.now() + Number(values.seconds) * 1000;
  const c0 = cpu();
  const t0 = performance.now();
  let n = 0;
  let bytes = 0;
  while (Date.now() < end) {
    const r = await service.search(principal, qs[n % qs.length]!, `r${n}`, { encodeHits: true });
    bytes += r.encodedHits?.bytes.byteLength ?? 0;
    n++;
  }
  const wall = (performance.now() - t0) / 1000;
  const c1 = cpu();
  const per = (s: number) => Math.round((s * 1e6) / n);
  return { mode, class: cls, searches: n, per_second: Math.round(n / wall), inline: service.inlineSearches - inline0, hit_bytes_per_search: Math.round(bytes / n), cpu_us_per_search: { all_threads: per(c1.all - c0.all), main_thread: per(c1.main - c0.main), other_threads: per(c1.all - c0.all - (c1.main - c0.main)) }, load_average_1m: load1() };
}

const classes = values.classes.split(',');
// warm-up: both paths, every class
for (const cls of classes) for (const mode of ['thread', 'inline'] as const) for (const q of workload[cls]!.slice(0, 60)) await modes[mode].search(principal, requestOf(q), 'w', { encodeHits: true });
const results: Record<string, unknown>[] = [];
for (let round = 0; round < Number(values.rounds); round++)
  for (const cls of classes)
    for (const mode of (round % 2 === 0 ? ['thread', 'inline'] : ['inline', 'thread']) as (keyof typeof modes)[]) {
      const r = { round, ...(await point(mode, cls)) };
      results.push(r);
      console.error(JSON.stringify(r));
    }
await threads.close();
await core.close();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
type R = { mode: string; class: string; round: number; cpu_us_per_search: { all_threads: number; main_thread: number } };
const rs = results as unknown as R[];
const summary = classes.map((cls) => {
  const of = (mode: string) => rs.filter((r) => r.class === cls && r.mode === mode);
  const pairs = of('thread').map((t) => [t, of('inline').find((i) => i.round === t.round)!] as const);
  return {
    class: cls,
    median_all_threads_us: { thread: median(of('thread').map((r) => r.cpu_us_per_search.all_threads)), inline: median(of('inline').map((r) => r.cpu_us_per_search.all_threads)) },
    median_main_thread_us: { thread: median(of('thread').map((r) => r.cpu_us_per_search.main_thread)), inline: median(of('inline').map((r) => r.cpu_us_per_search.main_thread)) },
    rounds_inline_cheaper: `${pairs.filter(([t, i]) => i.cpu_us_per_search.all_threads < t.cpu_us_per_search.all_threads).length} of ${pairs.length}`,
  };
});
console.log(JSON.stringify(summary, null, 1));
if (values.out) writeFileSync(values.out, JSON.stringify({ bench: 'inline-search', machine: started, load_average_1m_at_end: load1(), data_dir: values.dir, max_work: Number(values['max-work']), seconds_per_point: Number(values.seconds), clients: 1, summary, results }, null, 2) + '\n');
