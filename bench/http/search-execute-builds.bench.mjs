// Issue 29 (ADRs 0335, 0336): the search thread's work per search (SearchService.execute: engine,
// records with links, snippets, and the hit encoding), several builds in ONE process, each over its own
// copy of a data directory, alternated batch by batch; CPU (process.cpuUsage) per search. The HTTP
// bench's thread CPU cannot resolve a few percent at the load of the shared machine (a server gets a
// few searches/s there); this takes the HTTP and the thread hop out and measures each build's execute
// on the same queries in turn.
//
//   node bench/http/search-execute-builds.bench.mjs --workload W.json --class or --batches 24 \
//        --build base=/path/base-dist:/data/copyA --build new=dist:/data/copyB [--build x=dist:/data/copyC:drop-work-live] \
//        [--out bench/results/x.json]
// `:drop-work-live` drops the documents_work_live index (core/005) from that copy after it opens.
// The copies are changed (each build migrates its own): give copies.
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg, cpus, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';

const { values } = parseArgs({
  options: { workload: { type: 'string' }, class: { type: 'string', default: 'or' }, batches: { type: 'string', default: '24' }, build: { type: 'string', multiple: true }, out: { type: 'string' } },
});
const started = { cpu_model: cpus()[0]?.model, cores: cpus().length, ram_gib: Math.round((totalmem() / 2 ** 30) * 10) / 10, node: process.version, load_average_1m_at_start: loadavg()[0], date: new Date().toISOString() };
const queries = JSON.parse(readFileSync(values.workload, 'utf8'))[values.class].map((q) => q.text);
const builds = [];
for (const spec of values.build ?? []) {
  const [label, rest] = [spec.slice(0, spec.indexOf('=')), spec.slice(spec.indexOf('=') + 1)];
  const [dist, dir, flag] = rest.split(':');
  const d = resolve(dist);
  const { buildCore } = await import(`${d}/src/app.js`);
  const { loadConfig } = await import(`${d}/src/config/index.js`);
  const { SearchService } = await import(`${d}/src/search/search-service.js`);
  const { defaultSearchRequest } = await import(`${d}/src/search/search-types.js`);
  const { wireHitEncoder } = await import(`${d}/src/http/presenters/search.js`);
  const core = await buildCore(loadConfig({}, { dataDir: dir, loadDemoCorpus: false, logLevel: 'silent' }), { logger: pino({ level: 'silent' }) });
  if (flag === 'drop-work-live') core.storage.db.exec('DROP INDEX IF EXISTS documents_work_live');
  const indexes = await core.openIndexes();
  const svc = new SearchService({ indexes, store: core.works, workLinks: core.works, featureStore: core.storage.documents, activity: core.activity, billing: core.billing, prices: core.config.prices, clock: core.clock, secret: 's', report: () => undefined });
  const encode = wireHitEncoder('https://lectern.example');
  const run = async (q) => {
    const ex = await svc.execute(defaultSearchRequest({ query: q, limit: 10, returnDocuments: true }));
    return encode(ex.hits).byteLength;
  };
  const plan = core.storage.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'documents'").pluck().all();
  builds.push({ label, dist, dir, flag: flag ?? null, indexes: plan, core, run, cpu: [] });
}
// the same answers from every build (bytes of the encoded hits of the first 50 queries), then warm-up
const sig = async (b) => {
  let n = 0;
  for (const q of queries.slice(0, 50)) n += await b.run(q);
  return n;
};
const sigs = [];
for (const b of builds) sigs.push(await sig(b));
for (const b of builds) for (let k = 0; k < 2; k++) for (const q of queries) await b.run(q);
const batch = Math.ceil(queries.length / 4);
for (let i = 0; i < Number(values.batches); i++) {
  const qs = queries.slice((i % 4) * batch, (i % 4) * batch + batch);
  const order = i % 2 ? [...builds].reverse() : builds;
  for (const b of order) {
    const c0 = process.cpuUsage();
    for (const q of qs) await b.run(q);
    const c = process.cpuUsage(c0);
    b.cpu.push((c.user + c.system) / qs.length);
  }
}
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const result = {
  benchmark: 'search thread work per search (SearchService.execute + hit encoding), builds in one process, alternated batch by batch',
  machine: { ...started, load_average_at_end: loadavg().map((x) => Math.round(x * 100) / 100) },
  class: values.class,
  queries: queries.length,
  batches: Number(values.batches),
  note: "CPU us per search, median of batches (a batch: a quarter of the class's queries, the same quarter for every build in turn); the order of builds alternates",
  response_bytes_first_50_queries: Object.fromEntries(builds.map((b, i) => [b.label, sigs[i]])),
  builds: Object.fromEntries(builds.map((b) => [b.label, { dist: b.dist, data: b.dir, flag: b.flag, documents_indexes: b.indexes, cpu_us_per_search: Math.round(med(b.cpu)), batches: b.cpu.map((x) => Math.round(x)) }])),
  ratios_over_first: Object.fromEntries(builds.slice(1).map((b) => [b.label, Math.round((med(b.cpu) / med(builds[0].cpu)) * 1000) / 1000])),
};
console.log(JSON.stringify(result, null, 2));
if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
for (const b of builds) await b.core.close();
