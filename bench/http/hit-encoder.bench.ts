// The search thread's hit encoding alone (ADR 0150, ADR 0195): pages of 10 hits shaped like the HTTP
// bench's (title and two abstract windows with highlights, the display record) from the synthetic
// corpus, encoded to UTF-8 by the compiled schema serializer over the presenter's objects (the encoder
// before ADR 0195), by the encoder the search threads use now (its memo of documents warm: the same
// record objects every round, as display-cache hits are) and by the same without the memo (every
// document written afresh, as for display-cache misses), alternated in rounds; CPU per page.
//   node dist/bench/http/hit-encoder.bench.js [--corpus /work/tmp/synth-100k.jsonl] [--pages 200] [--rounds 6]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { compiledHitsSerializer, toWireHit, wireHitEncoder } from '../../src/http/presenters/search.js';
import { wireHitsJson } from '../../src/http/presenters/wire-hits-json.js';
import { blankRecord } from '../../src/ingest/formats/common.js';
import type { SearchHit } from '../../src/search/search-types.js';

const { values } = parseArgs({ options: { corpus: { type: 'string', default: '/work/tmp/synth-100k.jsonl' }, pages: { type: 'string', default: '200' }, rounds: { type: 'string', default: '6' } } });
const BASE = 'https://lectern.example';
const pages = Number(values.pages);
const lines = readFileSync(values.corpus!, 'utf8').slice(0, 40_000_000).split('\n').slice(0, -1).slice(0, pages * 10);
const window = (field: 'title' | 'abstract', text: string, at: number) => {
  const t = text.slice(at, at + 300);
  return { field, text: t, chunkId: null, score: 1.5, source: { startChar: at, endChar: at + t.length, fieldLength: text.length }, highlights: [{ start: 3, end: 9 }, { start: 40, end: 47 }], sourceHighlights: [] };
};
const hits: SearchHit[] = lines.map((line, i) => {
  const r = JSON.parse(line) as { id: string; title: string; abstract: string; type: string; issued_at: number; language: string };
  const doc = { ...blankRecord(r.id, 'documents', 'synth'), title: r.title, abstract: r.abstract, type: r.type, issuedAt: r.issued_at, language: r.language, seq: i, workKey: `w${i}`, createdAt: 1, updatedAt: 2 };
  return { id: r.id, index: 'documents', score: 10 / (i + 1), snippets: [window('title', r.title, 0), window('abstract', r.abstract, 0), window('abstract', r.abstract, 300)], doc: doc as never, rrf: null };
});
const book: SearchHit[][] = [];
for (let p = 0; p < pages; p++) book.push(hits.slice(p * 10, p * 10 + 10));

const serialize = compiledHitsSerializer();
const utf8 = new TextEncoder();
const encoders: [string, (h: SearchHit[]) => Uint8Array][] = [
  ['compiled', (h) => utf8.encode(serialize(h.map((x) => toWireHit(x, BASE))))],
  ['specialized', wireHitEncoder(BASE)],
  // without the memo of documents (every record object new: display cache misses)
  ['specialized-cold', (h) => utf8.encode(wireHitsJson(h, BASE))],
];
// same bytes first
for (const page of book) for (const [name, encode] of encoders.slice(1)) if (Buffer.compare(encoders[0]![1](page), encode(page)) !== 0) throw new Error(`${name} differs`);
const cpu: Record<string, number[]> = {};
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [name, encode] of encoders) {
    const reps = 20;
    const t = process.cpuUsage();
    let bytes = 0;
    for (let k = 0; k < reps; k++) for (const page of book) bytes += encode(page).byteLength;
    const d = process.cpuUsage(t);
    (cpu[name] ??= []).push((d.user + d.system) / (reps * pages));
    if (round === 0 && name === 'compiled') console.error(`page: ${Math.round(bytes / (reps * pages))} bytes`);
  }
}
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
console.log(JSON.stringify(Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, { cpu_us_per_page_median: +median(v).toFixed(1), rounds: v.map((x) => +x.toFixed(1)) }]))));
