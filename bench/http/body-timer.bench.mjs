// Issue 29 (ADR 0381, tried and reverted): the preParsing hook's work for a search body already received whole, before (a
// body-timeout timer, three `once` listeners on the payload, the timer cleared when the body ends) and
// now (the buffered length compared with Content-Length), on real IncomingMessage objects fed by Node's
// HTTP parser over a loopback keep-alive connection: the hook call's own time (hrtime around it) and the
// whole process's CPU per request (process.cpuUsage, server and client), the two paths alternated in rounds.
//   node bench/http/body-timer.bench.mjs [--requests 20000] [--rounds 6] [--out FILE]
import { createServer, request, Agent } from 'node:http';
import { writeFileSync } from 'node:fs';
import { loadavg, cpus } from 'node:os';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '6' }, out: { type: 'string' } } });
const N = Number(values.requests);
const rounds = Number(values.rounds);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const before = (req) => {
  const timer = setTimeout(() => req.emit('error', new Error('request_timeout')), 30_000);
  timer.unref();
  const done = () => clearTimeout(timer);
  req.once('end', done);
  req.once('close', done);
  req.once('error', done);
};
const now = (req) => {
  const length = req.headers['content-length'];
  if (length !== undefined && req.headers['transfer-encoding'] === undefined && req.readableLength >= Number(length)) return;
  before(req);
};
let hook = before;
/** ns of each hook call (its call; the listeners' later calls are not counted): the median is reported, as a preempted call's time is the machine's */
let hookNs = [];
const server = createServer((req, res) => {
  // Node builds `headers` on first access; Fastify has read them (routing, auth) before preParsing
  if (req.headers['content-type'] === undefined) throw new Error('no content-type');
  const t = process.hrtime.bigint();
  hook(req);
  hookNs.push(Number(process.hrtime.bigint() - t));
  req.resume();
  req.on('end', () => res.end('{}'));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const { port } = server.address();
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const body = JSON.stringify({ query: 'neural retrieval of scientific documents', limit: 10, return_documents: true });
const send = () => new Promise((resolve, reject) => {
  const r = request({ port, method: 'POST', path: '/v2/search/', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => { res.resume(); res.on('end', resolve); });
  r.on('error', reject);
  r.end(body);
});
const results = [];
for (let round = 0; round < rounds; round++) {
  for (const [label, fn] of round % 2 === 0 ? [['before', before], ['now', now]] : [['now', now], ['before', before]]) {
    hook = fn;
    hookNs = [];
    const t = process.cpuUsage();
    for (let i = 0; i < N; i++) await send();
    const d = process.cpuUsage(t);
    results.push({ round, path: label, process_cpu_us_per_request: +((d.user + d.system) / N).toFixed(2), hook_call_us_median: +(median(hookNs) / 1000).toFixed(3), hook_call_us_p90: +([...hookNs].sort((a, b) => a - b)[Math.floor(hookNs.length * 0.9)] / 1000).toFixed(3), load_average_1m: loadavg()[0] });
    console.error(JSON.stringify(results.at(-1)));
  }
}
server.close();
agent.destroy();
const by = (p) => results.filter((r) => r.path === p).map((r) => r.process_cpu_us_per_request);
const out = {
  benchmark: 'body-timer',
  machine: { cpu_model: cpus()[0]?.model, cores: cpus().length, node: process.version, date: new Date().toISOString() },
  requests_per_point: N,
  note: 'CPU of the whole process (server and client of one keep-alive connection) per request; only the preParsing work differs',
  results,
  median_us_per_request: { before: median(by('before')), now: median(by('now')) },
  median_hook_call_us: { before: median(results.filter((r) => r.path === 'before').map((r) => r.hook_call_us_median)), now: median(results.filter((r) => r.path === 'now').map((r) => r.hook_call_us_median)) },
};
if (values.out) writeFileSync(values.out, JSON.stringify(out, null, 2) + '\n');
console.log(JSON.stringify({ per_request: out.median_us_per_request, hook_call: out.median_hook_call_us }));
