// The main thread's CPU profile (node --cpu-prof) by request stage, inclusive: each sample goes to the
// first stage (in the order of STAGES) whose frame is on its stack, so a SQLite call under the billing
// service counts as billing, a `writev` under `reply.send` as the socket write. Issue 29, ADR 0371.
//   node dist/bench/http/profile-stages.js FILE.cpuprofile [--last-s S] [--searches N]
// --detail REGEX: the top leaf functions (--top N) of the stages it matches, and of `other`.
// --searches: the searches answered while profiled, to print microseconds per search next to the shares.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'last-s': { type: 'string' }, searches: { type: 'string' }, top: { type: 'string', default: '0' }, detail: { type: 'string' } } });

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

type Rule = [stage: string, test: (fn: string, url: string) => boolean];
const file = (s: string) => (_fn: string, url: string) => url.includes(s);
const fnIs = (...names: string[]) => (fn: string) => names.includes(fn);
/** Stages, first match wins (outer service stages before the generic machinery under them). */
const STAGES: Rule[] = [
  ['gc', fnIs('(garbage collector)')],
  ['billing (reserve/charge/settle, ledger)', (_f, u) => u.includes('/src/billing/')],
  ['activity (shown)', file('/src/activity/')],
  ['feedback token', file('/src/search/feedback-token')],
  ['auth (key check)', (_f, u) => u.includes('/src/accounts/') || u.includes('/src/auth/')],
  ['rate limits', file('/src/limits/')],
  ['request log', (_f, u) => u.includes('/src/http/request-log') || u.includes('pino')],
  ['metrics (stage and http histograms)', (_f, u) => u.includes('/src/http/search-timings') || u.includes('/src/http/metrics') || u.includes('prom-client')],
  ['unstorable-text check', file('/src/http/validation')],
  ['body validation (ajv)', (f, u) => u.includes('ajv') || f === 'validate' || f.startsWith('validate')],
  ['hand-off (search threads)', file('/src/search/search-threads')],
  ['work budget / fair turns', file('/src/search/work-budget')],
  ['search service (main thread)', file('/src/search/')],
  ['presenters (response object)', file('/src/http/presenters/')],
  ['serialize (envelope)', (f, u) => u.includes('fast-json-stringify') || u.includes('/src/http/serializers')],
  ['socket write', (f, u) => ['writev', 'writevGeneric', 'writeGeneric', 'onWriteComplete', '_writev', '_write', 'end'].includes(f) && (u.startsWith('node:net') || u.startsWith('node:internal/stream_base_commons') || u === '')],
  ['body parse (JSON)', (f, u) => u.includes('content-type-parser') || u.includes('secure-json-parse') || f === 'parse'],
  ['timers (body timeout etc.)', (f, u) => u.startsWith('node:internal/timers') || u.startsWith('node:timers')],
  ['fastify (routing, hooks, reply)', (_f, u) => u.includes('fastify') || u.includes('find-my-way') || u.includes('avvio') || u.includes('/src/http/')],
  ['node http (parser, server response)', (_f, u) => u.startsWith('node:_http') || u.startsWith('node:http')],
  ['node net/streams', (_f, u) => u.startsWith('node:net') || u.startsWith('node:internal/streams') || u.startsWith('node:internal/stream_base')],
  ['worker messages', (_f, u) => u.startsWith('node:internal/worker') || u.startsWith('node:internal/per_context/messageport')],
  ['promises / microtasks / async hooks', (f, u) => u.startsWith('node:internal/async_hooks') || u.startsWith('node:internal/process/task_queues') || u.startsWith('node:internal/process/promises') || f === '(program)'],
  ['sqlite (other)', (_f, u) => u.includes('sqlite')],
];

const path = positionals[0];
if (!path) throw new Error('usage: profile-stages FILE.cpuprofile');
const p = JSON.parse(readFileSync(path, 'utf8')) as Profile;
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
/** The stage of a sample's leaf node, memoized by node. */
const stageOf = new Map<number, string>();
function classify(leaf: number): string {
  const known = stageOf.get(leaf);
  if (known) return known;
  const frames: Node[] = [];
  for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) frames.push(byId.get(id)!);
  let stage = 'other';
  const leafFn = frames[0]!.callFrame.functionName;
  if (leafFn === '(idle)') stage = '(idle)';
  else {
    outer: for (const [name, test] of STAGES) for (const f of frames) if (test(f.callFrame.functionName, f.callFrame.url)) {
      stage = name;
      break outer;
    }
  }
  stageOf.set(leaf, stage);
  return stage;
}
const from = values['last-s'] ? p.endTime - Number(values['last-s']) * 1e6 : -Infinity;
let t = p.startTime;
const by = new Map<string, number>();
const leaves = new Map<string, number>();
p.samples.forEach((id, i) => {
  t += p.timeDeltas[i] ?? 0;
  if (t < from) return;
  const us = p.timeDeltas[i] ?? 0;
  const s = classify(id);
  by.set(s, (by.get(s) ?? 0) + us);
  if (s === 'other' || (values.detail !== undefined && new RegExp(values.detail).test(s))) {
    const n = byId.get(id)!;
    const k = `${s}: ${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(src|node_modules)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
    leaves.set(k, (leaves.get(k) ?? 0) + us);
  }
});
const idle = by.get('(idle)') ?? 0;
by.delete('(idle)');
const busy = [...by.values()].reduce((a, b) => a + b, 0);
const searches = values.searches ? Number(values.searches) : 0;
const stages = [...by].sort((a, b) => b[1] - a[1]).map(([stage, us]) => ({ stage, pct_of_busy: +((100 * us) / busy).toFixed(1), ...(searches > 0 ? { us_per_search: +(us / searches).toFixed(1) } : {}) }));
console.log(
  JSON.stringify(
    {
      file: path,
      busy_s: +(busy / 1e6).toFixed(2),
      idle_s: +(idle / 1e6).toFixed(2),
      ...(searches > 0 ? { searches, busy_us_per_search: Math.round(busy / searches) } : {}),
      stages,
      ...(Number(values.top) > 0 ? { top_unattributed: [...leaves].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)).map(([k, us]) => ({ fn: k, pct: +((100 * us) / busy).toFixed(1) })) } : {}),
    },
    null,
    2,
  ),
);
