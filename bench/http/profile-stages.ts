// The main thread's CPU profile (node --cpu-prof) by request stage (issue 29, ADR 0371): a SQLite call
// under the billing service counts as billing, a `writev` under `reply.send` as the socket write (rules
// below).
//   node dist/bench/http/profile-stages.js FILE.cpuprofile [--last-s S] [--searches N]
// --detail REGEX: the top leaf functions (--top N) of the stages it matches, and of `other`.
// --searches: the searches answered while profiled, to print microseconds per search next to the shares.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Profile, ProfileNode } from './cpu-profile.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'last-s': { type: 'string' }, searches: { type: 'string' }, top: { type: 'string', default: '0' }, detail: { type: 'string' } } });

type Node = ProfileNode;

// A sample goes to the stage of the frame nearest its leaf that belongs to a service stage (billing, auth,
// the hand-off, ...). Hooks that call Fastify's `done` (callback hooks, the billing scope's runInScope)
// carry the rest of the request on their stack: such a frame counts only when no framework frame lies
// between it and the leaf (the work is its own, not the continuation's). A sample with no service stage
// goes to the framework stage nearest its leaf (Fastify, Node's HTTP, streams, promises).
type Rule = [stage: string, test: (fn: string, url: string) => boolean, kind: 'service' | 'carrier' | 'framework'];
const file = (s: string) => (_fn: string, url: string) => url.includes(s);
const RULES: Rule[] = [
  ['gc', (f) => f === '(garbage collector)', 'service'],
  ['billing (reserve/charge/settle, ledger)', (f, u) => u.includes('/src/billing/') && f !== 'runInScope', 'service'],
  ['billing (reserve/charge/settle, ledger)', (f, u) => u.includes('/src/billing/') && f === 'runInScope', 'carrier'],
  ['activity (shown)', file('/src/activity/'), 'service'],
  ['feedback token', file('/src/search/feedback-token'), 'service'],
  ['auth (key check)', (_f, u) => u.includes('/src/accounts/') || u.includes('/src/auth/'), 'service'],
  ['rate limits', file('/src/limits/'), 'service'],
  ['request log', (_f, u) => u.includes('/src/http/request-log'), 'carrier'],
  ['request log', (_f, u) => u.includes('pino') || u.includes('logger-factory'), 'service'],
  ['metrics (stage and http histograms)', (_f, u) => u.includes('/src/http/search-timings') || u.includes('/src/http/metrics'), 'carrier'],
  ['metrics (stage and http histograms)', (_f, u) => u.includes('prom-client'), 'service'],
  ['unstorable-text check', file('/src/http/validation'), 'carrier'],
  ['body validation (ajv)', (f, u) => u.includes('ajv') || /^validate\d*$/.test(f), 'service'],
  ['hand-off (search threads)', file('/src/search/search-threads'), 'service'],
  ['work budget / fair turns', (_f, u) => u.includes('/src/search/work-budget') || u.includes('/src/engine/'), 'service'],
  ['search service (main thread)', file('/src/search/'), 'service'],
  ['presenters (response object)', file('/src/http/presenters/'), 'service'],
  ['serialize (envelope)', (_f, u) => u.includes('fast-json-stringify') || u.includes('/src/http/serializers'), 'service'],
  ['socket write', (f, u) => ['writev', 'writevGeneric', 'writeGeneric', 'createWriteWrap'].includes(f) && (u.startsWith('node:') || u === ''), 'service'],
  ['body parse (JSON)', (f, u) => u.includes('secure-json-parse') || (f === 'parse' && u === ''), 'service'],
  ['body parse (JSON)', (_f, u) => u.includes('content-type-parser'), 'carrier'],
  ['timers (body timeout etc.)', (_f, u) => u.startsWith('node:internal/timers') || u.startsWith('node:timers'), 'service'],
  ['fastify (routing, hooks, reply)', (_f, u) => u.includes('fastify') || u.includes('find-my-way') || u.includes('avvio') || u.includes('/src/http/'), 'framework'],
  ['node http (parser, server response)', (_f, u) => u.startsWith('node:_http') || u.startsWith('node:http'), 'framework'],
  ['node net/streams', (_f, u) => u.startsWith('node:net') || u.startsWith('node:internal/streams') || u.startsWith('node:internal/stream_base') || u.startsWith('node:events'), 'framework'],
  ['worker messages', (_f, u) => u.startsWith('node:internal/worker') || u.startsWith('node:internal/per_context/messageport'), 'framework'],
  ['promises / microtasks / async hooks', (f, u) => u.startsWith('node:internal/async_hooks') || u.startsWith('node:async_hooks') || u.startsWith('node:internal/process/task_queues') || u.startsWith('node:internal/process/promises') || f === '(program)' || f === '(anonymous)' && u === '', 'framework'],
  ['sqlite (other)', (_f, u) => u.includes('sqlite'), 'framework'],
];
const ruleOf = (n: Node): Rule | undefined => RULES.find(([, test]) => test(n.callFrame.functionName, n.callFrame.url));

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
  let stage: string | null = null;
  let framework: string | null = null;
  if (byId.get(leaf)!.callFrame.functionName === '(idle)') stage = '(idle)';
  for (let id: number | undefined = leaf; id !== undefined && stage === null; id = parent.get(id)) {
    const r = ruleOf(byId.get(id)!);
    if (!r) continue;
    if (r[2] === 'service' || (r[2] === 'carrier' && framework === null)) stage = r[0];
    else if (r[2] === 'framework' && framework === null) framework = r[0];
  }
  stage ??= framework ?? 'other';
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
