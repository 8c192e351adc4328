// Ingest throughput: documents per second through `IngestService` (parse, map, store, index as it goes) for the
// bundled demo corpus and for SciFact (BEIR), each into a fresh data directory on SQLite.
// Run: node dist/bench/ingest/ingest.bench.js [--out bench/results/ingest.json]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { buildCore, DEMO_FILES } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { machine } from '../lib/machine.js';

const { values } = parseArgs({ options: { out: { type: 'string' }, runs: { type: 'string', default: '3' } } });
const runs = Number(values.runs);
const shared = join(process.cwd(), '..', 'shared', 'data');

const DATASETS: Record<string, { files: string[]; expected: number }> = {
  demo: { files: DEMO_FILES, expected: 3684 + 4 + 2842 },
  scifact: { files: [join(shared, 'ir', 'scifact', 'corpus.jsonl')], expected: 5183 },
};

async function once(files: string[]): Promise<{ docs: number; seconds: number; rssMiB: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-bench-ingest-'));
  try {
    const core = await buildCore(loadConfig({}, { dataDir: dir, loadDemoCorpus: false, logLevel: 'silent' }), { logger: pino({ level: 'silent' }) });
    await core.openIndexes();
    const t0 = process.hrtime.bigint();
    let docs = 0;
    for (const f of files) {
      const r = await core.ingest.ingestFile(f);
      if (r.failed > 0) throw new Error(`${f}: ${r.failed} bad lines`);
      docs += r.inserted;
    }
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const indexed = Object.values(core.indexes!.stats()).reduce((n, s) => n + s.docs, 0);
    if (indexed !== docs) throw new Error(`indexed ${indexed} of ${docs} documents`);
    const rssMiB = Math.round(process.memoryUsage().rss / 2 ** 20);
    await core.close();
    return { docs, seconds, rssMiB };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const results: Record<string, unknown> = {};
for (const [name, ds] of Object.entries(DATASETS)) {
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const r = await once(ds.files);
    if (r.docs !== ds.expected) throw new Error(`${name}: ingested ${r.docs} documents, expected ${ds.expected}`);
    samples.push(r);
  }
  const rates = samples.map((s) => s.docs / s.seconds).sort((a, b) => a - b);
  results[name] = {
    documents: ds.expected,
    runs,
    docs_per_second_median: Math.round(rates[Math.floor(rates.length / 2)]!),
    docs_per_second_all: rates.map(Math.round),
    seconds_median: Math.round((ds.expected / rates[Math.floor(rates.length / 2)]!) * 100) / 100,
    rss_mib_max: Math.max(...samples.map((s) => s.rssMiB)),
  };
  console.error(name, results[name]);
}
const out = { benchmark: 'ingest', store: 'sqlite', includes_indexing: true, machine: machine(), results };
if (values.out) writeFileSync(values.out, JSON.stringify(out, null, 2) + '\n');
console.log(JSON.stringify(out, null, 2));
