// Does the display cache's byte estimate (ADR 0370) track the memory its entries hold? The records of
// real pages of hits (top 10 with 3 passages, `or` queries of a workload: use the spread one,
// bench/http/spread_workload.py, for pages that rarely repeat) are loaded the search thread's way
// (loadHitRecords: stored fields from the segments, body texts of body-snippet hits from the store, work
// links; a record admitted on its second load) through a DisplayRecordCache, and every page is written by the search thread's hit encoder
// (which keeps each record object's wire bytes while it lives, ADR 0195). The memory the cache holds is
// the V8 heap plus array buffers after a full GC with the cache filled, less the same after `clear()`
// (which frees the records, bodies and, through the encoder's weak map, their wire bytes); it is set
// against the cache's own estimate (`bytes`) at that moment.
//
//   node --expose-gc dist/bench/http/display-cache-memory.bench.js --dir DATA_DIR [--workload spread.json] \
//        [--queries 6000] [--budgets 8388608,33554432,0] [--records 10000] [--out F]
//
// DATA_DIR: a prepared data directory (lectern.db and the index), opened read-only in spirit: its
// indexes are opened, nothing is ingested or written. Budget 0 here: no byte bound (records only).
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { buildCore } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { DisplayRecordCache } from '../../src/documents/display-cache.js';
import { WorkLinkedDocumentStore } from '../../src/documents/work-links.js';
import type { EngineHit } from '../../src/engine/index.js';
import { wireHitEncoder } from '../../src/http/presenters/search.js';
import { loadHitRecords, localStoredRecords } from '../../src/search/hit-records.js';
import type { SearchHit } from '../../src/search/search-types.js';
import { machine } from '../lib/machine.js';

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    workload: { type: 'string', default: '/work/data/h-cache/spread.json' },
    queries: { type: 'string', default: '6000' },
    budgets: { type: 'string', default: '8388608,33554432,0' },
    records: { type: 'string', default: '10000' },
    steady: { type: 'string' },
    passes: { type: 'string', default: '3' },
    out: { type: 'string' },
  },
});
if (!values.dir) throw new Error('--dir is required');
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const settle = () => {
  for (let i = 0; i < 3; i++) gc();
};
const held = () => {
  settle();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, buffers: m.arrayBuffers, total: m.heapUsed + m.arrayBuffers };
};
const mib = (b: number) => Math.round((b / 2 ** 20) * 100) / 100;

const core = await buildCore(loadConfig({}, { dataDir: values.dir, loadDemoCorpus: false, logLevel: 'silent' }), { logger: pino({ level: 'silent' }) });
try {
  const indexes = await core.openIndexes();
  const index = indexes.get('documents');
  const workload = JSON.parse(readFileSync(values.workload, 'utf8')) as { or: { text: string }[] };
  const pages: EngineHit[][] = workload.or
    .slice(0, Number(values.queries))
    .map((q) => index.search({ text: q.text, limit: 10, passagesPerHit: 3 }).hits)
    .filter((h) => h.length > 0);
  const uncached = new WorkLinkedDocumentStore(core.storage.documents);
  const run = async (cache: DisplayRecordCache | null, encode: ((hits: SearchHit[]) => unknown) | null) => {
    const stored = localStoredRecords((name) => indexes.get(name), (d) => uncached.link(d), core.storage.documents, cache);
    for (const p of pages) {
      const { docs } = await loadHitRecords(uncached, p.map((hit) => ({ hit, index: 'documents' as const })), 3, stored);
      if (encode) encode(p.map((h) => ({ id: h.id, index: 'documents', score: h.score, snippets: [], doc: docs.get(h.id) ?? null, rrf: null })));
    }
  };
  // warm every other cache on the way (statements, the segments' blocks, the JIT) with no display cache
  await run(null, wireHitEncoder('http://127.0.0.1:8080'));
  if (values.steady !== undefined) {
    // --steady BYTES (records 0 with --records 0): the pages served as a search thread serves them (admitted
    // on their second load), --passes times over, no forced GC: the heap V8 keeps and the resident memory
    // against the cache's live estimate, sampled after every 500 pages
    const budget = Number(values.steady);
    const cache = new DisplayRecordCache(Number(values.records), budget);
    const encoder = wireHitEncoder('http://127.0.0.1:8080');
    const v8 = await import('node:v8');
    const stored = localStoredRecords((name) => indexes.get(name), (d) => uncached.link(d), core.storage.documents, cache);
    const start = { rss: process.memoryUsage().rss, heap: v8.getHeapStatistics().total_heap_size };
    const samples = [];
    let n = 0;
    for (let pass = 0; pass < Number(values.passes); pass++)
      for (const p of pages) {
        const { docs } = await loadHitRecords(uncached, p.map((hit) => ({ hit, index: 'documents' as const })), 3, stored);
        encoder(p.map((h) => ({ id: h.id, index: 'documents', score: h.score, snippets: [], doc: docs.get(h.id) ?? null, rrf: null })));
        if (++n % 500 === 0) {
          const h = v8.getHeapStatistics();
          const m = process.memoryUsage();
          samples.push({ pages: n, rss_growth_mib: mib(m.rss - start.rss), heap_total_growth_mib: mib(h.total_heap_size - start.heap), heap_used_mib: mib(h.used_heap_size), array_buffers_mib: mib(m.arrayBuffers), cache_estimate_mib: mib(cache.bytes), records: cache.size });
        }
      }
    const result = { benchmark: 'display cache, steady serving without forced GC (ADR 0370)', budget_bytes: budget, records: Number(values.records), machine: { ...machine(), load_average_at_end: loadavg().map((x) => Math.round(x * 100) / 100) }, pages: pages.length, passes: Number(values.passes), samples };
    console.log(JSON.stringify(result));
    if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
    process.exit(0);
  }
  const rows = [];
  for (const budget of values.budgets.split(',').map(Number)) {
    const cache = new DisplayRecordCache(Number(values.records), budget === 0 ? Number.MAX_SAFE_INTEGER : budget);
    const encoder = wireHitEncoder('http://127.0.0.1:8080');
    const rss0 = process.memoryUsage().rss;
    const c0 = process.cpuUsage();
    await run(cache, encoder); // admitted as a search thread admits them (on their second load): the cache fills
    const cpu = process.cpuUsage(c0);
    const full = held();
    const estimate = cache.bytes;
    const size = cache.size;
    const rss1 = process.memoryUsage().rss;
    cache.clear();
    const empty = held();
    const measured = full.total - empty.total;
    const row = {
      budget_bytes: budget === 0 ? null : budget,
      records_held: size,
      estimate_mib: mib(estimate),
      measured_mib: mib(measured),
      measured_heap_mib: mib(full.heap - empty.heap),
      measured_buffers_mib: mib(full.buffers - empty.buffers),
      estimate_over_measured: Math.round((estimate / measured) * 1000) / 1000,
      estimate_bytes_per_record: Math.round(estimate / size),
      measured_bytes_per_record: Math.round(measured / size),
      rss_growth_mib_during_fill: mib(rss1 - rss0),
      cpu_us_per_page_fill: Math.round((cpu.user + cpu.system) / pages.length),
    };
    console.error(JSON.stringify(row));
    rows.push(row);
  }
  const result = {
    benchmark: 'display cache: estimated bytes (ADR 0370) against the heap and buffers a filled cache holds',
    machine: { ...machine(), load_average_at_end: loadavg().map((x) => Math.round(x * 100) / 100) },
    data_dir: values.dir,
    workload: values.workload,
    pages: pages.length,
    hits: pages.reduce((a, p) => a + p.length, 0),
    method:
      'records of every page loaded as a search thread does (stored fields, body texts of body-snippet hits, links; admitted on their second load) through the cache, each page encoded by the hit encoder; held = heapUsed + arrayBuffers after 3 full GCs, filled minus after clear()',
    rows,
  };
  console.log(JSON.stringify(result, null, 2));
  if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await core.close();
}
