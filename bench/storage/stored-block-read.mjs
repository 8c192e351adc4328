// Read cost and size of the stored fields by block size (ADR 0280): 5,000 display records of the synthetic
// corpus, one random record read at a time (inflate + JSON.parse), CPU time. Run from the repository root
// after the build: node bench/storage/stored-block-read.mjs (reads tmp/synth-100k.jsonl).
import { readFileSync } from 'node:fs';
import { useZlibStoredCodec } from '../../dist/src/adapters/zlib/stored-codec.js';
import { StoredFieldsReader, StoredFieldsWriter } from '../../dist/src/engine/stored-fields.js';
import { parseLectern } from '../../dist/src/ingest/formats/lectern-jsonl.js';
import { encodeStoredDisplay, decodeStoredDisplay } from '../../dist/src/search/stored-display.js';
useZlibStoredCodec();
const lines = readFileSync('tmp/synth-100k.jsonl', 'utf8').split('\n', 5000).filter(Boolean);
let n = 0;
const recs = lines.map((l) => { const d = JSON.parse(l); return encodeStoredDisplay({ ...parseLectern(d).record, seq: ++n, workKey: d.id, createdAt: 1, updatedAt: 1 }); });
const raw = recs.reduce((s, r) => s + r.length, 0);
for (const B of [2048, 4096, 8192, 16384, 32768]) {
  const w = new StoredFieldsWriter(B);
  for (const r of recs) w.add(r);
  const s = w.finish();
  const rd = new StoredFieldsReader(s.sfData, s.sfBlockOff, s.sfBlockRaw, s.sfBlockDoc, s.sfDocStart);
  let x = 7;
  const pick = () => (x = (x * 48271) % 2147483647) % recs.length;
  for (let i = 0; i < 300; i++) decodeStoredDisplay(rd.get(pick()));
  const c0 = process.cpuUsage();
  const N = 3000;
  for (let i = 0; i < N; i++) decodeStoredDisplay(rd.get(pick()));
  const c = process.cpuUsage(c0);
  console.log(`block ${B / 1024} KiB: ratio ${(rd.byteLength() / raw).toFixed(3)}, cpu us per record (inflate + JSON) ${((c.user + c.system) / N).toFixed(1)}`);
}
