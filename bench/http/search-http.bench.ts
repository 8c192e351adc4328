// Searches per second through HTTP (`POST /v2/search/`) with concurrent clients, on the synthetic
// corpus and its fixed workload (/work/shared/tools/synth-corpus): the service-level complement of
// bench/engine (which measures the engine alone).
//
//   node dist/bench/http/search-http.bench.js --corpus /work/tmp/synth-100k.jsonl --dir /work/tmp/http-100k \
//        [--clients 2] [--seconds 20] [--out bench/results/search-http-100k.json]
//
// The data directory is built once (ingest through the service's own pipeline, timed) and reused.
// The server runs as a separate process with rate limits lifted; each client is a keep-alive loop over
// the workload queries. Every response must be 200 with hits (fast-but-wrong fails).
// Peer, in the same run: SQLite FTS5 (through better-sqlite3) over the same corpus and workload, in
// process and single-threaded, returning the top 10 by bm25 with their titles; its index is built once
// into --dir/fts5-peer.db. The ratio compares Lectern's HTTP throughput (with documents, snippets,
// billing and JSON) against the peer's bare in-process queries.
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { machine } from '../lib/machine.js';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string' },
    dir: { type: 'string' },
    clients: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '20' },
    port: { type: 'string', default: '18999' },
    out: { type: 'string' },
    workload: { type: 'string', default: join(process.cwd(), '..', 'shared', 'tools', 'synth-corpus', 'workload.json') },
  },
});
if (!values.corpus || !values.dir) throw new Error('--corpus and --dir are required');
const main = join(process.cwd(), 'dist', 'src', 'main.js');
const { DATABASE_URL: _d, REDIS_URL: _r, ...baseEnv } = process.env;
const env = {
  ...baseEnv,
  LECTERN_DATA_DIR: values.dir,
  LECTERN_LOAD_DEMO_CORPUS: 'false',
  LECTERN_LOG_LEVEL: 'warn',
  LECTERN_RATE_LIMITS_SEARCH_CAPACITY: '1000000',
  LECTERN_RATE_LIMITS_SEARCH_REFILL_PER_SECOND: '1000000',
};

// 1. Build the data directory once.
let ingest: unknown = 'reused';
if (!existsSync(join(values.dir, 'lectern.db'))) {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [main, 'ingest', '--format', 'lectern', values.corpus], { env, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`ingest failed (${r.status})`);
  const rep = JSON.parse(r.stdout)[0] as { inserted: number };
  ingest = { documents: rep.inserted, seconds: (Date.now() - t0) / 1000, docs_per_second: Math.round(rep.inserted / ((Date.now() - t0) / 1000)) };
  console.error('ingest', ingest);
}
const acct = spawnSync(process.execPath, [main, 'accounts', 'create', '--email', `bench${Date.now()}@example.org`, '--credits', '1000000000'], { env, encoding: 'utf8' });
const key = (JSON.parse(acct.stdout) as { api_key: string }).api_key;

// 2. Start the server.
const port = Number(values.port);
const server = spawn(process.execPath, [main], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
function post(body: unknown): Promise<{ status: number; json: { hits?: unknown[] } }> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request({ port, method: 'POST', path: '/v2/search/', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), 'x-api-key': key } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}
for (let i = 0; ; i++) {
  try {
    const r = await new Promise<number>((res, rej) => request({ port, path: '/healthz', agent }, (x) => { x.resume(); res(x.statusCode ?? 0); }).on('error', rej).end());
    if (r === 200) break;
  } catch {
    if (i > 600) throw new Error('server did not start');
  }
  await new Promise((r) => setTimeout(r, 200));
}

// 3. Run each workload class.
type Q = { text: string; filter: { types?: string[]; issued_after?: number; issued_before?: number } | null };
const workload = JSON.parse(readFileSync(values.workload, 'utf8')) as Record<string, Q[]>;
const bodyOf = (q: Q) => ({
  query: q.text,
  limit: 10,
  ...(q.filter ? { filter_types: q.filter.types, filter_issued_after: q.filter.issued_after, filter_issued_before: q.filter.issued_before } : {}),
});
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const results: Record<string, unknown> = {};
const clients = Number(values.clients);
const seconds = Number(values.seconds);
for (const [cls, queries] of Object.entries(workload)) {
  for (const q of queries.slice(0, 50)) await post(bodyOf(q)); // warm-up
  const lat: number[] = [];
  let failures = 0;
  let empty = 0;
  const end = Date.now() + seconds * 1000;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = c; Date.now() < end; i += clients) {
        const q = queries[i % queries.length]!;
        const s = process.hrtime.bigint();
        const r = await post(bodyOf(q));
        lat.push(Number(process.hrtime.bigint() - s) / 1e6);
        if (r.status !== 200) failures++;
        else if (!r.json.hits || r.json.hits.length === 0) empty++;
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  lat.sort((a, b) => a - b);
  if (failures > 0) throw new Error(`${cls}: ${failures} non-200 responses`);
  results[cls] = {
    requests: lat.length,
    searches_per_second: Math.round(lat.length / elapsed),
    latency_ms: { p50: +pct(lat, 50).toFixed(2), p95: +pct(lat, 95).toFixed(2), p99: +pct(lat, 99).toFixed(2) },
    empty_results: empty,
  };
  console.error(cls, results[cls]);
}
server.kill('SIGTERM');
agent.destroy();
// 4. The peer: SQLite FTS5 on the same corpus and workload, in the same run.
const peerPath = join(values.dir, 'fts5-peer.db');
const fresh = !existsSync(peerPath);
const fts = new Database(peerPath);
let peerBuild: unknown = 'reused';
if (fresh) {
  const t0 = Date.now();
  fts.exec(`PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
    CREATE VIRTUAL TABLE docs USING fts5(title, abstract, body, tokenize = 'porter unicode61');
    CREATE TABLE meta (rowid INTEGER PRIMARY KEY, type TEXT, issued_at INTEGER);`);
  const insDoc = fts.prepare('INSERT INTO docs (rowid, title, abstract, body) VALUES (?, ?, ?, ?)');
  const insMeta = fts.prepare('INSERT INTO meta (rowid, type, issued_at) VALUES (?, ?, ?)');
  let n = 0;
  let batch: Record<string, unknown>[] = [];
  const flush = fts.transaction((rows: Record<string, unknown>[]) => {
    for (const d of rows) {
      n++;
      insDoc.run(n, d.title ?? '', d.abstract ?? '', d.body ?? '');
      insMeta.run(n, d.type ?? null, d.issued_at ?? null);
    }
  });
  for await (const line of createInterface({ input: createReadStream(values.corpus) })) {
    if (!line.trim()) continue;
    batch.push(JSON.parse(line) as Record<string, unknown>);
    if (batch.length === 5000) {
      flush(batch);
      batch = [];
    }
  }
  flush(batch);
  fts.exec("INSERT INTO docs(docs) VALUES('optimize')");
  peerBuild = { documents: n, seconds: (Date.now() - t0) / 1000 };
  console.error('fts5 peer build', peerBuild);
}
type WQ = Q & { terms: string[]; phrases: string[][] };
const ftsQuote = (w: string) => `"${w.replaceAll('"', '""')}"`;
const matchOf = (q: WQ) => (q.phrases.length ? q.phrases.map((p) => ftsQuote(p.join(' '))).join(' AND ') : q.terms.map(ftsQuote).join(' OR '));
const plain = fts.prepare('SELECT rowid, title FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT 10');
const filtered = fts.prepare(
  'SELECT docs.rowid, title FROM docs JOIN meta ON meta.rowid = docs.rowid WHERE docs MATCH ? AND meta.type IN (SELECT value FROM json_each(?)) AND meta.issued_at >= ? AND meta.issued_at <= ? ORDER BY bm25(docs) LIMIT 10',
);
const peer: Record<string, unknown> = {};
for (const [cls, queries] of Object.entries(workload) as [string, WQ[]][]) {
  const run = (q: WQ) =>
    q.filter ? filtered.all(matchOf(q), JSON.stringify(q.filter.types ?? []), q.filter.issued_after ?? 0, q.filter.issued_before ?? Number.MAX_SAFE_INTEGER) : plain.all(matchOf(q));
  for (const q of queries.slice(0, 50)) run(q);
  const lat: number[] = [];
  let empty = 0;
  const end = Date.now() + seconds * 1000;
  const t0 = process.hrtime.bigint();
  for (let i = 0; Date.now() < end; i++) {
    const s = process.hrtime.bigint();
    const rows = run(queries[i % queries.length]!);
    lat.push(Number(process.hrtime.bigint() - s) / 1e6);
    if (rows.length === 0) empty++;
  }
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  lat.sort((a, b) => a - b);
  const sps = Math.round(lat.length / elapsed);
  peer[cls] = {
    queries: lat.length,
    queries_per_second: sps,
    latency_ms: { p50: +pct(lat, 50).toFixed(3), p95: +pct(lat, 95).toFixed(3), p99: +pct(lat, 99).toFixed(3) },
    empty_results: empty,
    lectern_http_over_peer: +(((results[cls] as { searches_per_second: number }).searches_per_second) / sps).toFixed(3),
  };
  console.error('fts5', cls, peer[cls]);
}
fts.close();
const out = {
  benchmark: 'search-http',
  corpus: values.corpus,
  clients,
  seconds_per_class: seconds,
  top_k: 10,
  ingest,
  machine: machine(),
  results,
  peer: { name: 'SQLite FTS5 (better-sqlite3, porter unicode61, bm25 top 10 with titles), in process, one thread', build: peerBuild, results: peer },
};
if (values.out) writeFileSync(values.out, JSON.stringify(out, null, 2) + '\n');
console.log(JSON.stringify(out, null, 2));
