// The work links' first statement (issue 29, ADR 0336): which of a page's works have two or more live
// records (`WORK_MEMBERS_SQL`, what `workMembers` runs for every page of hits), on a copy of a server's
// SQLite database, without and with the partial index documents_work_live (core/005), alternated round
// by round in this process. Pages are 10 work keys of live records drawn at random, each key once a round.
//
//   node dist/bench/storage/work-members.bench.js --db /path/to/copy/of/lectern.db [--pages 3000] [--rounds 6] \
//        [--out bench/results/work-members.json]
//
// The database is changed (the index dropped and made again): give it a copy.
import Database from 'better-sqlite3';
import { loadavg } from 'node:os';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { WORK_MEMBERS_SQL } from '../../src/adapters/sqlite/sqlite-storage.js';
import { machine } from '../lib/machine.js';

const { values } = parseArgs({ options: { db: { type: 'string' }, pages: { type: 'string', default: '3000' }, rounds: { type: 'string', default: '6' }, out: { type: 'string' } } });
if (!values.db) throw new Error('--db is required (a copy: the index is dropped and made again)');
const started = machine();
const db = new Database(values.db);
const live = db.prepare('SELECT COUNT(*) FROM documents WHERE deleted = 0').pluck().get() as number;
const keys = db.prepare('SELECT work_key FROM documents WHERE deleted = 0 ORDER BY random()').pluck().all() as string[];
const nPages = Math.min(Number(values.pages), Math.floor(keys.length / 10));
const pages = Array.from({ length: nPages }, (_, j) => JSON.stringify(keys.slice(j * 10, j * 10 + 10)));
const cpu: Record<'without_index' | 'with_index', number[]> = { without_index: [], with_index: [] };
const plans: Record<string, string[]> = {};
for (let r = 0; r < Number(values.rounds); r++) {
  const name = r % 2 ? 'with_index' : 'without_index';
  db.exec(name === 'with_index' ? 'CREATE INDEX IF NOT EXISTS documents_work_live ON documents(work_key) WHERE deleted = 0' : 'DROP INDEX IF EXISTS documents_work_live');
  const st = db.prepare(WORK_MEMBERS_SQL);
  plans[name] ??= (db.prepare(`EXPLAIN QUERY PLAN ${WORK_MEMBERS_SQL}`).all('[]', 6) as { detail: string }[]).map((x) => x.detail).filter((d) => /documents/.test(d));
  const c0 = process.cpuUsage();
  for (const p of pages) st.all(p, 6);
  const c = process.cpuUsage(c0);
  cpu[name].push(Math.round(((c.user + c.system) / pages.length) * 10) / 10);
}
db.exec('CREATE INDEX IF NOT EXISTS documents_work_live ON documents(work_key) WHERE deleted = 0');
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const result = {
  benchmark: "work links' work-members statement per page of 10 hits: without vs with documents_work_live (ADR 0336)",
  machine: { ...started, load_average_at_end: loadavg().map((x) => Math.round(x * 100) / 100) },
  store: 'SQLite (WAL) file, a copy of a server database',
  live_records: live,
  multi_record_works: db.prepare('SELECT COUNT(*) FROM (SELECT work_key FROM documents WHERE deleted = 0 GROUP BY work_key HAVING COUNT(*) > 1)').pluck().get(),
  avg_record_bytes: Math.round(db.prepare('SELECT AVG(length(record)) FROM documents WHERE deleted = 0').pluck().get() as number),
  pages: nPages,
  note: 'CPU us per page (statement only), rounds alternated; each round reads every page once',
  without_index: { cpu_us_per_page: med(cpu.without_index), rounds: cpu.without_index, plan: plans.without_index },
  with_index: { cpu_us_per_page: med(cpu.with_index), rounds: cpu.with_index, plan: plans.with_index },
  ratio_without_over_with: Math.round((med(cpu.without_index) / med(cpu.with_index)) * 100) / 100,
};
console.log(JSON.stringify(result, null, 2));
if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
db.close();
