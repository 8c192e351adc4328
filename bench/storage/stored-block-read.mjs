// Read cost and size of the stored fields by layout (ADR 0280, ADR 0325): N display records of the
// synthetic corpus written as one segment's stored fields in each layout, then one random record read at
// a time (inflate of its block + JSON.parse: what a title/abstract hit costs), CPU time, layouts
// alternated round by round in one process (the machine is shared: compare within a run). The reader is
// fresh per round (a dictionary block is inflated once per reader and kept, as a segment's reader keeps
// it; the round's first read pays it).
//   node bench/storage/stored-block-read.mjs [corpus] [records] [rounds] [out.json]   (after the build)
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg, cpus } from 'node:os';
import { useZlibStoredCodec } from '../../dist/src/adapters/zlib/stored-codec.js';
import { StoredFieldsReader, StoredFieldsWriter } from '../../dist/src/engine/stored-fields.js';
import { parseLectern } from '../../dist/src/ingest/formats/lectern-jsonl.js';
import { encodeStoredDisplay, decodeStoredDisplay } from '../../dist/src/search/stored-display.js';
const [corpus = '/work/data/synth-100k.jsonl', count = '20000', roundsArg = '6', out] = process.argv.slice(2);
useZlibStoredCodec();
const loadBefore = loadavg()[0];
const text = readFileSync(corpus, 'utf8');
const lines = [];
for (let at = 0; lines.length < Number(count); ) {
  const nl = text.indexOf('\n', at);
  if (nl < 0) break;
  lines.push(text.slice(at, nl));
  at = nl + 1;
}
let n = 0;
const recs = lines.map((l) => { const d = JSON.parse(l); return encodeStoredDisplay({ ...parseLectern(d).record, seq: ++n, workKey: d.id, createdAt: 1, updatedAt: 1 }); });
const raw = recs.reduce((s, r) => s + r.length, 0);
const layouts = [
  ['format 3: 16 KiB blocks, no dictionary', 16384, 0],
  ['4 KiB blocks, no dictionary', 4096, 0],
  ['2 KiB blocks, 16 KiB dictionary block', 2048, 16384],
  ['format 4: 4 KiB blocks, 16 KiB dictionary block', 4096, 16384],
  ['2 KiB blocks, 32 KiB dictionary block', 2048, 32768],
];
const built = layouts.map(([label, B, D]) => {
  const c0 = process.cpuUsage();
  const w = new StoredFieldsWriter(B, D);
  for (const r of recs) w.add(r);
  const s = w.finish();
  const c = process.cpuUsage(c0);
  return { label, B, D, s, write_mb_per_cpu_s: +(raw / (c.user + c.system)).toFixed(1), cpu: [] };
});
const reader = (s) => new StoredFieldsReader(s.sfData, s.sfBlockOff, s.sfBlockRaw, s.sfBlockDoc, s.sfDocStart, s.sfDictBlocks[0]);
const rounds = Number(roundsArg);
const PER = 3000;
for (let r = 0; r < rounds; r++) {
  for (const b of r % 2 ? [...built].reverse() : built) {
    const rd = reader(b.s);
    let x = 7 + r;
    const pick = () => (x = (x * 48271) % 2147483647) % recs.length;
    for (let i = 0; i < 200; i++) decodeStoredDisplay(rd.get(pick()));
    const c0 = process.cpuUsage();
    for (let i = 0; i < PER; i++) decodeStoredDisplay(rd.get(pick()));
    const c = process.cpuUsage(c0);
    b.cpu.push((c.user + c.system) / PER);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const result = {
  bench: 'stored-block-read', date: new Date().toISOString(), machine: `${cpus().length} x ${cpus()[0].model}`, node: process.version,
  load_before: loadBefore, load_after: loadavg()[0], records: recs.length, raw_bytes: raw, reads_per_round: PER, rounds,
  note: 'CPU us per random record read (inflate of its block with node:zlib + JSON.parse), layouts alternated round by round in one process; ratio = stored bytes / raw JSON bytes',
  layouts: built.map((b) => { const rd = reader(b.s); return { layout: b.label, block_bytes: b.B, dictionary_block_bytes: b.D, blocks: rd.blocks, ratio: +(rd.byteLength() / raw).toFixed(4), write_mb_per_cpu_s: b.write_mb_per_cpu_s, read_us_median: +median(b.cpu).toFixed(1), read_us_rounds: b.cpu.map((v) => +v.toFixed(1)) }; }),
};
console.log(JSON.stringify(result, null, 1));
if (out) writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
