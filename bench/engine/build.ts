// Index build speed on a slice of the synthetic corpus, in memory: the quick A/B and profiling loop for
// indexing changes (`node --cpu-prof dist/bench/engine/build.js ...`). The documents are parsed first (JSON
// parsing is not measured), then each round builds a fresh index in a MemoryIndexDirectory: add() of every
// document (with the flushes the index makes on its own: counting sort, postings, positions, token offsets,
// the segment file), then one commit() (the last flush; `--flush 2147483647` puts all flushing there). Prints CPU time of this thread per phase and a checksum of the segment bytes, so two builds can be
// alternated on the same slice and a format change shows up as a different checksum.
//
//   node dist/bench/engine/build.js --corpus /work/tmp/synth-100k.jsonl [--limit 20000] [--rounds 3] [--base OTHER/dist]
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MemoryIndexDirectory, SearchIndex, type IndexDocument } from '../../src/engine/index.js';
import { arg } from '../lib/cli.js';

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
type Engine = { SearchIndex: typeof SearchIndex; MemoryIndexDirectory: typeof MemoryIndexDirectory };
const here: Engine = { SearchIndex, MemoryIndexDirectory };
// --base DIR: another build's dist folder; rounds alternate between it and this build in this process, so
// both see the same machine minute by minute (the A/B for indexing changes; first round of each is warm-up)
const baseDir = arg('base');
const base: Engine | null = baseDir ? ((await import(pathToFileURL(join(resolve(baseDir), 'src', 'engine', 'index.js')).href)) as Engine) : null;

function buildOnce(E: Engine): { addMs: number; commitMs: number; bytes: number; checksum: number } {
  const dir = new E.MemoryIndexDirectory();
  const idx = E.SearchIndex.open(dir, flush === undefined ? {} : { flushOccurrences: flush });
  let c = process.cpuUsage();
  for (const d of docs) idx.add(d);
  const addMs = cpuMs(process.cpuUsage(c));
  c = process.cpuUsage();
  idx.commit('1');
  const commitMs = cpuMs(process.cpuUsage(c));
  const bytes = idx.stats().bytes.total;
  idx.close();
  let sum = 0;
  for (const name of dir.list().sort()) {
    const b = dir.read(name)!;
    for (let i = 0; i < b.length; i += 7) sum = (sum * 31 + b[i]!) >>> 0;
  }
  return { addMs, commitMs, bytes, checksum: sum };
}

const times: Record<string, number[]> = { this: [], base: [] };
for (let r = 0; r < rounds; r++) {
  const order: [string, Engine][] = base === null ? [['this', here]] : r % 2 === 0 ? [['base', base], ['this', here]] : [['this', here], ['base', base]];
  for (const [name, E] of order) {
    const b = buildOnce(E);
    if (r > 0 || base === null) times[name]!.push(b.addMs + b.commitMs);
    console.log(
      JSON.stringify({
        round: r,
        build: name,
        docs: docs.length,
        add_cpu_ms: Math.round(b.addMs),
        commit_cpu_ms: Math.round(b.commitMs),
        cpu_docs_per_s: Math.round(docs.length / ((b.addMs + b.commitMs) / 1000)),
        bytes: b.bytes,
        checksum: b.checksum,
        load: loadavg()[0],
      }),
    );
  }
}
if (base !== null) {
  const med = (a: number[]): number => a.slice().sort((x, y) => x - y)[a.length >> 1]!;
  const b = med(times['base']!);
  const t = med(times['this']!);
  console.log(JSON.stringify({ median_cpu_ms: { base: Math.round(b), this: Math.round(t) }, cpu_docs_per_s: { base: Math.round(docs.length / (b / 1000)), this: Math.round(docs.length / (t / 1000)) }, speedup: +(b / t).toFixed(3), rounds_measured: times['this']!.length }));
}
