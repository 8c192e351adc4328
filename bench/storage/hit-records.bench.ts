// The records step of a search (issue 14, ADR 0135): loading what a page of 10 hits shows, before
// (whole stored records, full text included, through the work links: `works.getMany`, what search did
// until this change) and after (display records from the document_display layout, plus the body text
// only for hits whose snippet passages lie in it: `loadHitRecords`), with the display cache off and on.
// Same store, same pages, same run. Pages are the top 10 of the fixed workload's `or` queries on the
// synthetic corpus (/work/shared/tools/synth-corpus): real hits with their passages.
//
//   node dist/bench/storage/hit-records.bench.js --corpus /work/tmp/synth-100k.jsonl [--docs 20000] [--rounds 5] \
//        [--out bench/results/hit-records.json]
//
// Issue 29 (ADR 0280) adds `stored_fields`: the display records read from the index's stored fields
// (links and the body texts of body-snippet hits from the store).
//
// Issue 29 (ADR 0325) adds `records_only_ab`: the display records of the pages' title/abstract hits (what
// the stored fields replace) read three ways, alternated round by round in this process: the store's
// display row (getDisplayMany, no cache), the index's stored fields as built (format 4: 4 KiB blocks with
// a dictionary block) and the same records in format 3's layout (16 KiB blocks, no dictionary; a reader
// over the same records in the same doc order).
//
// Issue 29 (ADR 0335) adds `--body-slices-only`: the records and snippets of the pages with body-snippet
// hits, read two ways alternated round by round in this process: `whole_text` (the stored-records path
// before: a body-snippet hit's whole store row with its full text) and `slices` (its record from the
// segments and only its passages' slices of the body from the store: getTextWindows). CPU per page and
// per body-snippet hit, records plus snippets (snippetsFor); every snippet of both paths is compared.
// `--pg` runs it on the PostgreSQL store of DATABASE_URL, in a schema of its own (dropped at the end).
//
// Peer: the old path in the same run (ratios are old / new CPU time per page: the machine is shared,
// so wall times include waiting for a core). The cold pass reads each page once
// after the cache was cleared; the hot pass repeats the workload (popular queries, cache warm).
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { buildCore } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { DisplayRecordCache } from '../../src/documents/display-cache.js';
import { WorkLinkedDocumentStore } from '../../src/documents/work-links.js';
import type { EngineHit, SearchIndex } from '../../src/engine/index.js';
import type { IndexName } from '../../src/domain/document.js';
import type { DocumentStore } from '../../src/ports/document-store.js';
import { snippetsFor } from '../../src/search/search-service.js';
import { loadHitRecords, localStoredRecords } from '../../src/search/hit-records.js';
import { decodeStoredDisplay } from '../../src/search/stored-display.js';
import { StoredFieldsReader, StoredFieldsWriter } from '../../src/engine/stored-fields.js';
import { machine } from '../lib/machine.js';
import { createTestSchema } from '../../test/helpers/storage.js';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string' },
    docs: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
    out: { type: 'string' },
    'body-slices-only': { type: 'boolean', default: false },
    pg: { type: 'boolean', default: false },
    workload: { type: 'string', default: join(process.cwd(), '..', 'shared', 'tools', 'synth-corpus', 'workload.json') },
  },
});
if (!values.corpus) throw new Error('--corpus is required');
const docs = Number(values.docs);
const rounds = Number(values.rounds);
const dir = mkdtempSync(join(tmpdir(), 'lectern-bench-records-'));
const slice = join(dir, 'corpus.jsonl');
{
  const lines: string[] = [];
  const rl = createInterface({ input: createReadStream(values.corpus) });
  for await (const line of rl) {
    if (line.trim()) lines.push(line);
    if (lines.length >= docs) break;
  }
  rl.close();
  writeFileSync(slice, `${lines.join('\n')}\n`);
}
// --pg: a schema of its own in DATABASE_URL's database, dropped at the end (as the tests make theirs)
const pgSchema = values.pg ? await createTestSchema(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test') : null;
const core = await buildCore(loadConfig({}, { dataDir: dir, loadDemoCorpus: false, logLevel: 'silent', ...(pgSchema ? { databaseUrl: pgSchema.url } : {}) }), { logger: pino({ level: 'silent' }) });
try {
  const t0 = Date.now();
  const rep = await core.ingest.ingestFile(slice, { format: 'lectern' });
  const indexes = await core.openIndexes();
  console.error(`ingested and indexed ${rep.inserted} documents in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const index = indexes.get('documents');
  const workload = JSON.parse((await import('node:fs')).readFileSync(values.workload, 'utf8')) as { or: { text: string }[] };
  const pages: EngineHit[][] = workload.or.map((q) => index.search({ text: q.text, limit: 10, passagesPerHit: 3 }).hits).filter((h) => h.length > 0);
  const hits = pages.flat();
  const bodyShare = hits.filter((h) => h.passages.slice(0, 3).some((p) => p.field === 'body')).length / hits.length;

  const uncached = new WorkLinkedDocumentStore(core.storage.documents);
  if (values['body-slices-only']) {
    const out = await bodySlices(pages, workload.or.map((q) => q.text), index, (name) => indexes.get(name), uncached, core.storage.documents);
    const result = {
      benchmark: 'records and snippets of search pages with body-snippet hits: whole store row and text vs the passages\' slices (ADR 0335)',
      machine: { ...machine(), load_average_at_end: (await import('node:os')).loadavg().map((x) => Math.round(x * 100) / 100) },
      store: values.pg ? 'PostgreSQL (DATABASE_URL, same machine)' : 'SQLite (WAL) file',
      corpus: `first ${rep.inserted} records of ${values.corpus} (synth-corpus seed 7)`,
      rounds,
      hits_with_body_passages: Math.round(bodyShare * 1000) / 1000,
      ...out,
    };
    console.log(JSON.stringify(result, null, 2));
    if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
    process.exitCode = 0;
  } else {
    const cache = new DisplayRecordCache(10_000);
    const cached = new WorkLinkedDocumentStore(core.storage.documents, cache);
    const paths = {
      before_whole_records: (p: EngineHit[]) => uncached.getMany(p.map((h) => h.id)),
      after_display_no_cache: (p: EngineHit[]) => loadHitRecords(uncached, p.map((hit) => ({ hit, index: 'documents' as const })), 3),
      after_display_cached: (p: EngineHit[]) => loadHitRecords(cached, p.map((hit) => ({ hit, index: 'documents' as const })), 3),
      // issue 29, ADR 0280: display records from the segments' stored fields, links and body texts from the store
      stored_fields: (p: EngineHit[]) =>
        loadHitRecords(uncached, p.map((hit) => ({ hit, index: 'documents' as const })), 3, localStoredRecords((name) => indexes.get(name), (d) => uncached.link(d), core.storage.documents)),
    };
    const timeAll = async (fn: (p: EngineHit[]) => Promise<unknown>, before?: () => void) => {
      const samples: number[] = [];
      const cpu0 = process.cpuUsage();
      for (let r = 0; r < rounds; r++) {
        before?.();
        for (const p of pages) {
          const t = process.hrtime.bigint();
          await fn(p);
          samples.push(Number(process.hrtime.bigint() - t) / 1000);
        }
      }
      const cpu = process.cpuUsage(cpu0);
      // CPU time is the figure to compare on a shared machine: wall time includes waiting for a core
      const cpuPerPage = Math.round(((cpu.user + cpu.system) / samples.length) * 10) / 10;
      samples.sort((a, b) => a - b);
      const q = (x: number) => Math.round(samples[Math.min(samples.length - 1, Math.floor(x * samples.length))]! * 10) / 10;
      return { cpu_us_per_page: cpuPerPage, mean_us: Math.round((samples.reduce((a, b) => a + b, 0) / samples.length) * 10) / 10, p50_us: q(0.5), p99_us: q(0.99) };
    };
    // warm-up (page cache, statement caches)
    for (const fn of Object.values(paths)) for (const p of pages.slice(0, 30)) await fn(p);
    const before = await timeAll(paths.before_whole_records);
    const display = await timeAll(paths.after_display_no_cache);
    const cold = await timeAll(paths.after_display_cached, () => cache.clear());
    cache.clear();
    const hot = await timeAll(paths.after_display_cached);
    const stored = await timeAll(paths.stored_fields);
    // records only, alternated: store display row vs stored fields (format 4 as built) vs format 3's layout
    const taHits = pages.map((p) => p.filter((h) => !h.passages.slice(0, 3).some((x) => x.field === 'body')).map((h) => h.id)).filter((ids) => ids.length > 0);
    const allIds: string[] = [];
    {
      // every live doc's record in one format 3 layout (doc order of ids: the corpus order)
      const rl = createInterface({ input: createReadStream(slice) });
      for await (const line of rl) if (line.trim()) allIds.push((JSON.parse(line) as { id: string }).id);
    }
    const recs = index.stored(allIds);
    const w3 = new StoredFieldsWriter(16384, 0);
    const docOf = new Map<string, number>();
    for (const id of allIds) {
      const r = recs.get(id);
      if (!r) continue;
      docOf.set(id, docOf.size);
      w3.add(r);
    }
    const s3 = w3.finish();
    const f3 = new StoredFieldsReader(s3.sfData as Uint8Array, s3.sfBlockOff as Uint32Array, s3.sfBlockRaw as Uint32Array, s3.sfBlockDoc as Uint32Array, s3.sfDocStart as Uint32Array, 0);
    const ab: Record<string, number[]> = { store_display_row: [], stored_fields_format4: [], stored_fields_format3_layout: [] };
    const recordPaths: Record<string, (ids: string[]) => Promise<unknown>> = {
      store_display_row: (ids) => core.storage.documents.getDisplayMany(ids),
      stored_fields_format4: async (ids) => [...index.stored(ids).values()].map(decodeStoredDisplay),
      stored_fields_format3_layout: async (ids) => ids.map((id) => decodeStoredDisplay(new Uint8Array(f3.get(docOf.get(id)!)!))),
    };
    const recordsRead = taHits.reduce((a, ids) => a + ids.length, 0);
    for (let r = 0; r < rounds * 2; r++) {
      const order = Object.keys(recordPaths);
      for (const name of r % 2 ? order.reverse() : order) {
        const c0 = process.cpuUsage();
        for (const ids of taHits) await recordPaths[name]!(ids);
        const c = process.cpuUsage(c0);
        ab[name]!.push((c.user + c.system) / recordsRead);
      }
    }
    const med = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! * 10) / 10;
    const recordsOnly = {
      note: 'CPU us per record of a title/abstract hit (median of rounds), the three paths alternated round by round',
      records_per_round: recordsRead,
      ...Object.fromEntries(Object.entries(ab).map(([k, v]) => [k, { cpu_us_per_record: med(v), rounds: v.map((x) => Math.round(x * 10) / 10) }])),
      format3_layout_stored_bytes: f3.byteLength(),
    };
    console.error('records only', JSON.stringify(recordsOnly));
    const bytes = core.storage.kind === 'sqlite' ? (core.storage as unknown as { db: { prepare(s: string): { get(): unknown } } }).db : null;
    const sizes = bytes
      ? (bytes.prepare("SELECT (SELECT AVG(length(record)) FROM documents) AS record_bytes, (SELECT AVG(length(display)) FROM document_display) AS display_bytes").get() as { record_bytes: number; display_bytes: number })
      : null;
    const ratio = (a: { cpu_us_per_page: number }, b: { cpu_us_per_page: number }) => Math.round((a.cpu_us_per_page / b.cpu_us_per_page) * 100) / 100;
    const result = {
      benchmark: 'records step of a search page (10 hits): before vs after ADR 0135',
      machine: { ...machine(), load_average_at_end: (await import('node:os')).loadavg().map((x) => Math.round(x * 100) / 100) },
      store: 'SQLite (WAL) file',
      corpus: `first ${rep.inserted} records of ${values.corpus} (synth-corpus seed 7)`,
      pages: pages.length,
      rounds,
      hits_with_body_passages: Math.round(bodyShare * 1000) / 1000,
      avg_bytes: sizes ? { record: Math.round(sizes.record_bytes), display: Math.round(sizes.display_bytes) } : null,
      before_whole_records: before,
      after_display_no_cache: display,
      after_display_cache_cleared_each_round: cold,
      after_display_cache_hot: hot,
      stored_fields_no_cache: stored,
      ratio_before_over_after_cpu: { no_cache: ratio(before, display), cache_cold: ratio(before, cold), cache_hot: ratio(before, hot), stored_fields: ratio(before, stored) },
      ratio_display_no_cache_over_stored_fields_cpu: ratio(display, stored),
      index_stored_bytes: index.stats().bytes.stored,
      records_only_ab: recordsOnly,
      cache: { capacity: cache.capacity, hits: cache.hits, misses: cache.misses },
    };
    console.log(JSON.stringify(result, null, 2));
    if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
  }
} finally {
  await core.close();
  await pgSchema?.drop();
  rmSync(dir, { recursive: true, force: true });
}

/** The body-slices A/B (ADR 0335): whole_text vs slices, records plus snippets, alternated round by round. */
async function bodySlices(
  pages: EngineHit[][],
  queries: string[],
  index: SearchIndex,
  indexOf: (name: IndexName) => SearchIndex,
  linked: WorkLinkedDocumentStore,
  plain: DocumentStore,
): Promise<Record<string, unknown>> {
  const stored = localStoredRecords(indexOf, (d) => linked.link(d), plain);
  const withBody = (p: EngineHit[]) => p.some((h) => h.passages.slice(0, 3).some((x) => x.field === 'body'));
  const chosen = pages.map((p, i) => ({ p, q: index.parse(queries[i]!) })).filter(({ p }) => withBody(p));
  const bodyHits = chosen.reduce((n, { p }) => n + p.filter((h) => h.passages.slice(0, 3).some((x) => x.field === 'body')).length, 0);
  const run = async (sliced: boolean) => {
    const snippets: unknown[] = [];
    for (const { p, q } of chosen) {
      const { docs, sources } = await loadHitRecords(linked, p.map((hit) => ({ hit, index: 'documents' as const })), 3, stored, sliced ? () => q : null);
      for (const h of p) if (docs.has(h.id)) snippets.push(snippetsFor(sources.get(h.id)!, h, q));
    }
    return snippets;
  };
  // the same snippets, byte for byte, from both paths
  const a = JSON.stringify(await run(false));
  const b = JSON.stringify(await run(true));
  if (a !== b) throw new Error('the slices path gave other snippets than the whole-text path');
  const cpu: Record<'whole_text' | 'slices', number[]> = { whole_text: [], slices: [] };
  for (let r = 0; r < rounds * 2; r++) {
    const order: ('whole_text' | 'slices')[] = r % 2 ? ['slices', 'whole_text'] : ['whole_text', 'slices'];
    for (const name of order) {
      const c0 = process.cpuUsage();
      await run(name === 'slices');
      const c = process.cpuUsage(c0);
      cpu[name].push((c.user + c.system) / chosen.length);
    }
  }
  const med = (xs: number[]) => Math.round([...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]! * 10) / 10;
  return {
    note: 'CPU us per page (10 hits, records with links and snippets; median of rounds), the two paths alternated round by round; snippets compared byte for byte first',
    pages_with_body_snippet_hits: chosen.length,
    body_snippet_hits: bodyHits,
    snippets_identical: true,
    snippet_bytes: a.length,
    whole_text: { cpu_us_per_page: med(cpu.whole_text), rounds: cpu.whole_text.map((x) => Math.round(x)) },
    slices: { cpu_us_per_page: med(cpu.slices), rounds: cpu.slices.map((x) => Math.round(x)) },
    ratio_whole_over_slices_cpu: Math.round((med(cpu.whole_text) / med(cpu.slices)) * 100) / 100,
    saved_cpu_us_per_body_snippet_hit: Math.round(((med(cpu.whole_text) - med(cpu.slices)) * chosen.length) / bodyHits),
  };
}
