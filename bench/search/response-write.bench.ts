// The main thread's CPU per large search response (issue 25, ADR 0305), A/B alternated in one run:
// `buffer` (ADR 0150: the envelope spliced around the thread's hits into one new buffer, one write) and
// `paced` (a PacedBody over the same parts: no copy, a 64 KiB chunk per turn of the event loop). The
// server is a child process with nothing else on its main thread (Fastify, the same Content-Type and
// Content-Length as the search route); this process is the client. Then, alternated the same way, a
// small request's latency (~15 KiB answer, sequential) while --connections loops fetch large ones. CPU time (process.cpuUsage of the
// server, µs resolution), not wall time: the shared machine's load does not inflate it.
//
//   node dist/bench/search/response-write.bench.js [--kib 588] [--chunk-kib 64] [--requests 200] [--connections 4] [--rounds 4] [--out FILE]
import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { machine } from '../lib/machine.js';
import { encodedHitsBody, spliceEncodedHits } from '../../src/http/presenters/search.js';
import { PacedBody } from '../../src/http/paced-body.js';

const { values } = parseArgs({
  options: {
    serve: { type: 'boolean', default: false },
    kib: { type: 'string', default: '588' },
    'chunk-kib': { type: 'string', default: '64' },
    requests: { type: 'string', default: '200' },
    connections: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '4' },
    out: { type: 'string' },
  },
});

const ENVELOPE = '{"ranking_mode":"documents","hits":[],"total_hits":10000,"has_next":true,"corrected_query":null,"embed_ms":null,"timings":{"search_us":1,"load_us":2,"total_us":3},"trajectory":{"id":"t","feedback_token":"x"},"candidate_ranking":null}';

async function serve(): Promise<void> {
  const bytes = Number(values.kib) * 1024;
  // distinct buffers, as each search thread's answer is its own memory
  const pool = Array.from({ length: 8 }, (_, k) => {
    const b = new Uint8Array(bytes);
    b.fill(0x61 + k);
    b[0] = 0x5b; // [
    b[1] = 0x22; // "
    b[bytes - 2] = 0x22;
    b[bytes - 1] = 0x5d; // ]
    return b;
  });
  let i = 0;
  const app = Fastify({ forceCloseConnections: true });
  app.get('/buffer', async (_req, reply) => reply.type('application/json; charset=utf-8').send(spliceEncodedHits(ENVELOPE, pool[i++ % pool.length]!)));
  app.get('/paced', async (_req, reply) => {
    const body = encodedHitsBody(ENVELOPE, pool[i++ % pool.length]!, Number(values['chunk-kib']) * 1024);
    reply.type('application/json; charset=utf-8');
    if (body instanceof PacedBody) reply.header('content-length', body.byteLength);
    return reply.send(body);
  });
  // another account's small answer (~15 KiB, one buffer either way)
  const small = Buffer.from(ENVELOPE.replace('"hits":[]', `"hits":["${'s'.repeat(15 * 1024)}"]`));
  app.get('/small', async (_req, reply) => reply.type('application/json; charset=utf-8').send(small));
  await app.listen({ port: 0, host: '127.0.0.1' });
  let cpu = process.cpuUsage();
  process.on('message', (m: { kind: string }) => {
    if (m.kind === 'start') {
      cpu = process.cpuUsage();
      process.send!({ kind: 'started' });
    } else if (m.kind === 'end') {
      const c = process.cpuUsage(cpu);
      process.send!({ kind: 'cpu', user_us: c.user, system_us: c.system });
    } else if (m.kind === 'close') void app.close().then(() => process.exit(0));
  });
  process.send!({ kind: 'ready', port: (app.server.address() as { port: number }).port });
}

async function client(): Promise<void> {
  const started = machine();
  const child = fork(fileURLToPath(import.meta.url), ['--serve', '--kib', values.kib!, '--chunk-kib', values['chunk-kib']!], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = <T>(kind: string) => new Promise<T>((ok) => {
    const f = (m: { kind: string }) => {
      if (m.kind === kind) {
        child.off('message', f);
        ok(m as T);
      }
    };
    child.on('message', f);
  });
  const { port } = await next<{ port: number }>('ready');
  const requests = Number(values.requests);
  const connections = Number(values.connections);
  const batch = async (route: string) => {
    let left = requests;
    let bytes = 0;
    await Promise.all(Array.from({ length: connections }, async () => {
      while (left-- > 0) {
        const r = await fetch(`http://127.0.0.1:${port}/${route}`);
        const n = (await r.arrayBuffer()).byteLength;
        bytes += n;
      }
    }));
    return bytes;
  };
  await batch('buffer');
  await batch('paced');
  // another request's latency while the large responses stream, per write mechanism (alternated)
  const victim = async (route: string) => {
    let stop = false;
    const flood = batchUntil(route, () => stop);
    const ms: number[] = [];
    const until = performance.now() + 3000;
    while (performance.now() < until) {
      const t0 = performance.now();
      await (await fetch(`http://127.0.0.1:${port}/small`)).arrayBuffer();
      ms.push(performance.now() - t0);
    }
    stop = true;
    await flood;
    ms.sort((a, b) => a - b);
    return { route, victim_n: ms.length, victim_p50_ms: Math.round(ms[Math.floor(ms.length / 2)]! * 100) / 100, victim_p90_ms: Math.round(ms[Math.floor(ms.length * 0.9)]! * 100) / 100, load: Math.round(loadavg()[0]! * 100) / 100 };
  };
  const batchUntil = async (route: string, stopped: () => boolean) => {
    await Promise.all(Array.from({ length: connections }, async () => {
      while (!stopped()) await (await fetch(`http://127.0.0.1:${port}/${route}`)).arrayBuffer();
    }));
  };
  const latency: Awaited<ReturnType<typeof victim>>[] = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const route of round % 2 === 0 ? ['buffer', 'paced'] : ['paced', 'buffer']) {
      const v = await victim(route);
      console.log(JSON.stringify(v));
      latency.push(v);
    }
  }
  const rows: { route: string; round: number; cpu_us_per_response: number; user_us_per_response: number; system_us_per_response: number; bytes_per_response: number; load: number }[] = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const route of round % 2 === 0 ? ['buffer', 'paced'] : ['paced', 'buffer']) {
      const s = next('started');
      child.send({ kind: 'start' });
      await s;
      const bytes = await batch(route);
      const c = next<{ user_us: number; system_us: number }>('cpu');
      child.send({ kind: 'end' });
      const { user_us, system_us } = await c;
      const row = { route, round, cpu_us_per_response: Math.round((user_us + system_us) / requests), user_us_per_response: Math.round(user_us / requests), system_us_per_response: Math.round(system_us / requests), bytes_per_response: Math.round(bytes / requests), load: Math.round(loadavg()[0]! * 100) / 100 };
      console.log(JSON.stringify(row));
      rows.push(row);
    }
  }
  child.send({ kind: 'close' });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const result = {
    bench: 'response-write',
    note: 'Server main thread CPU (user + system) per response of a ~588 KiB search body, A/B alternated in one run; client in another process; shared loaded 2-core machine (CPU time, not wall time).',
    machine: { ...started, load_average_1m_at_end: Math.round(loadavg()[0]! * 100) / 100 },
    config: { kib: Number(values.kib), paced_chunk_kib: Number(values['chunk-kib']), requests_per_batch: requests, connections, rounds: Number(values.rounds) },
    rows,
    victim_during_large_responses: latency,
    median_victim_p50_ms: { buffer: median(latency.filter((r) => r.route === 'buffer').map((r) => r.victim_p50_ms)), paced: median(latency.filter((r) => r.route === 'paced').map((r) => r.victim_p50_ms)) },
    median_cpu_us_per_response: { buffer: median(rows.filter((r) => r.route === 'buffer').map((r) => r.cpu_us_per_response)), paced: median(rows.filter((r) => r.route === 'paced').map((r) => r.cpu_us_per_response)) },
  };
  console.log(JSON.stringify({ cpu: result.median_cpu_us_per_response, victim_p50: result.median_victim_p50_ms }));
  if (values.out) {
    const out = resolve(values.out);
    let prior: unknown[] = [];
    try {
      prior = JSON.parse(readFileSync(out, 'utf8')).runs ?? [];
    } catch {
      prior = [];
    }
    writeFileSync(out, JSON.stringify({ runs: [...prior, result] }, null, 2) + '\n');
  }
  process.exit(0);
}

if (values.serve) await serve();
else await client();
