// Summarizes V8 CPU profiles (node --cpu-prof; one file per thread) by self time: per file (thread),
// the share of samples in each category of the serving path and the top functions.
//   node dist/bench/http/profile-summary.js DIR [--top 15] [--last-s S]
// --last-s: only the samples of each profile's last S seconds (the load; leaves out start-up).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Profile, ProfileNode } from './cpu-profile.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '15' }, 'last-s': { type: 'string' } } });
const dir = positionals[0];
if (!dir) throw new Error('usage: profile-summary DIR');

type Node = ProfileNode;

/** The serving stage a function belongs to, by its source file. */
function category(url: string, fn: string): string {
  if (fn === '(idle)' || fn === '(program)' || fn === '(garbage collector)') return fn;
  if (url.includes('/src/engine/snippets')) return 'snippets';
  if (url.includes('/src/engine/')) return 'engine';
  if (url.includes('/src/search/')) return 'search service';
  if (url.includes('/src/adapters/sqlite') || url.includes('better-sqlite3')) return 'sqlite';
  if (url.includes('/src/billing/') || url.includes('/src/activity/')) return 'billing/activity';
  if (url.includes('/src/http/') || url.includes('fastify') || url.includes('find-my-way') || url.includes('avvio')) return 'http/fastify';
  if (url.includes('fast-json-stringify') || fn === 'stringify' || fn === 'parse') return 'json';
  if (url.includes('ajv')) return 'validation';
  if (url.includes('/src/accounts/') || url.includes('/src/limits/')) return 'auth/limits';
  if (url.includes('pino')) return 'logging';
  if (url.startsWith('node:') || url === '') return fn.startsWith('(') ? fn : 'node internals/native';
  return 'other';
}

const out: Record<string, unknown>[] = [];
for (const f of readdirSync(dir).filter((x) => x.endsWith('.cpuprofile')).sort()) {
  const p = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const from = values['last-s'] ? p.endTime - Number(values['last-s']) * 1e6 : -Infinity;
  let t = p.startTime;
  p.samples.forEach((id, i) => {
    t += p.timeDeltas[i] ?? 0;
    if (t >= from) self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  });
  let total = 0;
  let idle = 0;
  const cats = new Map<string, number>();
  const fns = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const fn = n.callFrame.functionName || '(anonymous)';
    total += us;
    if (fn === '(idle)') idle += us;
    const c = category(n.callFrame.url, fn);
    cats.set(c, (cats.get(c) ?? 0) + us);
    const key = `${fn} ${n.callFrame.url.replace(/^.*\/(src|node_modules)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
  }
  const busy = total - idle;
  const pctOf = (us: number) => +((100 * us) / Math.max(1, busy)).toFixed(1);
  out.push({
    file: f,
    busy_s: +(busy / 1e6).toFixed(2),
    idle_s: +(idle / 1e6).toFixed(2),
    categories_pct_of_busy: Object.fromEntries([...cats].filter(([c]) => c !== '(idle)').sort((a, b) => b[1] - a[1]).map(([c, us]) => [c, pctOf(us)])),
    top: [...fns].filter(([k]) => !k.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)).map(([k, us]) => ({ fn: k, pct: pctOf(us) })),
  });
}
console.log(JSON.stringify(out, null, 2));
