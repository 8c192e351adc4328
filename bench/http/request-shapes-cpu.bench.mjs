// Issue 29 (ADR 0381): main-thread and search-thread CPU per request (/proc, 1 client, sequential) of one
// server for request shapes of the `or` workload: top 10 with documents (~31 KB), without (~3 KB), top 1 with
// its document (~5 KB), alternated in 3 rounds. Whether the main thread's cost follows the response's bytes.
//   node bench/http/request-shapes-cpu.bench.mjs DIST/src/main.js DATA_DIR_COPY [PORT] [REQUESTS]
// Main-thread and search-thread CPU per request for request shapes (1 client, sequential), one server.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { request, Agent } from 'node:http';
const [mainJs, dir, port] = [process.argv[2], process.argv[3], Number(process.argv[4] ?? 18677)];
const env = { ...process.env, LECTERN_DATA_DIR: dir, LECTERN_LOAD_DEMO_CORPUS: 'false', LECTERN_LOG_LEVEL: 'warn', LECTERN_RATE_LIMITS_SEARCH_CAPACITY: '1000000', LECTERN_RATE_LIMITS_SEARCH_REFILL_PER_SECOND: '1000000', LECTERN_LIMITS_SEARCH_CONCURRENCY: '10000', PORT: String(port), LECTERN_SEARCH_THREADS: '1' };
delete env.DATABASE_URL; delete env.REDIS_URL;
const acct = spawnSync(process.execPath, [mainJs, 'accounts', 'create', '--email', `s${Date.now()}@x.org`, '--credits', '1000000000'], { env, encoding: 'utf8' });
const key = JSON.parse(acct.stdout).api_key;
const srv = spawn(process.execPath, [mainJs], { env, stdio: ['ignore', 'ignore', 'inherit'] });
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const post = (path, body, headers = {}) => new Promise((res, rej) => { const d = JSON.stringify(body); const r = request({ port, path, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(d), 'x-api-key': key, ...headers } }, (x) => { const c = []; x.on('data', (b) => c.push(b)); x.on('end', () => res({ status: x.statusCode, bytes: Buffer.concat(c).length })); }); r.on('error', rej); r.end(d); });
const get = (path) => new Promise((res, rej) => request({ port, path, agent }, (x) => { x.resume(); x.on('end', () => res(x.statusCode)); }).on('error', rej).end());
for (let i = 0; ; i++) { try { if ((await get('/healthz')) === 200) break; } catch {} await new Promise((r) => setTimeout(r, 200)); }
const cpu = () => { const out = new Map(); for (const t of readdirSync(`/proc/${srv.pid}/task`)) { try { const s = readFileSync(`/proc/${srv.pid}/task/${t}/stat`, 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); out.set(Number(t), (Number(f[11]) + Number(f[12])) * 10000); } catch {} } return out; };
const wl = JSON.parse(readFileSync('/work/shared/tools/synth-corpus/workload.json', 'utf8'));
const shapes = {
  or_full: (q) => ({ query: q.text, limit: 10, return_documents: true }),
  or_nodocs: (q) => ({ query: q.text, limit: 10, return_documents: false }),
  or_limit1: (q) => ({ query: q.text, limit: 1, return_documents: true }),
};
for (const q of wl.or.slice(0, 200)) await post('/v2/search/', shapes.or_full(q));
const N = Number(process.argv[5] ?? 1500);
const results = {};
for (let round = 0; round < 3; round++) for (const [name, make] of Object.entries(shapes)) {
  const c0 = cpu(); let bytes = 0;
  for (let i = 0; i < N; i++) { const r = await post('/v2/search/', make(wl.or[i % 200])); if (r.status !== 200) throw new Error('status ' + r.status); bytes += r.bytes; }
  const c1 = cpu(); let main = 0, other = [], all = 0;
  for (const [t, v] of c1) { const d = v - (c0.get(t) ?? 0); all += d; if (t === srv.pid) main = d; else other.push(d); }
  other.sort((a, b) => b - a);
  (results[name] ??= []).push({ main_us: Math.round(main / N), search_us: Math.round(other[0] / N), all_us: Math.round(all / N), bytes: Math.round(bytes / N) });
}
console.log(JSON.stringify(results));
srv.kill('SIGTERM');
