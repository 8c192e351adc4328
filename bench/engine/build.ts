// Index build speed on a slice of the synthetic corpus, in memory: the quick A/B and profiling loop for
// indexing changes (`node --cpu-prof dist/bench/engine/build.js ...`). The documents are parsed first (JSON
// parsing is not measured), then each round builds a fresh index in a MemoryIndexDirectory: add() of every
// document (with the flushes the index makes on its own: counting sort, postings, positions, token offsets,
// the segment file), then one commit() (the last flush; `--flush 2147483647` puts all flushing there). Prints CPU time of this thread per phase and a checksum of the segment bytes, so two builds can be
// alternated on the same slice and a format change shows up as a different checksum.
//
//   node dist/bench/engine/build.js --corpus /work/tmp/synth-100k.jsonl [--limit 20000] [--rounds 3]
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { loadavg } from 'node:os';
import { MemoryIndexDirectory, SearchIndex, type IndexDocument } from '../../src/engine/index.js';

const args = process.argv.slice(2);
const arg = (name: string, d?: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : d;
};
const corpus = arg('corpus')!;
const limit = Number(arg('limit', '20000'));
const rounds = Number(arg('rounds', '3'));
// default: the index's own flush size (what a real ingest does); --flush N sets flushOccurrences
const flush = arg('flush') ? Number(arg('flush')) : undefined;

const docs: IndexDocument[] = [];
const rl = createInterface({ input: createReadStream(corpus, { highWaterMark: 1 << 22 }), crlfDelay: Infinity });
for await (const line of rl) {
  if (!line) continue;
  if (docs.length >= limit) break;
  const d = JSON.parse(line) as { id: string; title: string; abstract: string; body: string; type: string; issued_at: number; language: string };
  docs.push({ id: d.id, title: d.title, abstract: d.abstract, body: d.body, type: d.type, issuedAt: d.issued_at, language: d.language });
}

const cpuMs = (c: NodeJS.CpuUsage): number => (c.user + c.system) / 1000;
for (let r = 0; r < rounds; r++) {
  const dir = new MemoryIndexDirectory();
  const idx = SearchIndex.open(dir, flush === undefined ? {} : { flushOccurrences: flush });
  let c = process.cpuUsage();
  for (const d of docs) idx.add(d);
  const addMs = cpuMs(process.cpuUsage(c));
  c = process.cpuUsage();
  idx.commit('1');
  const commitMs = cpuMs(process.cpuUsage(c));
  const bytes = idx.stats().bytes;
  idx.close();
  let sum = 0;
  for (const name of dir.list().sort()) {
    const b = dir.read(name)!;
    for (let i = 0; i < b.length; i += 7) sum = (sum * 31 + b[i]!) >>> 0;
  }
  console.log(
    JSON.stringify({
      round: r,
      docs: docs.length,
      add_cpu_ms: Math.round(addMs),
      commit_cpu_ms: Math.round(commitMs),
      cpu_docs_per_s: Math.round(docs.length / ((addMs + commitMs) / 1000)),
      bytes: bytes.total,
      checksum: sum,
      load: loadavg()[0],
    }),
  );
}
