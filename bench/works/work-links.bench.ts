// What the work links cost a read (ADR 0085): the store's getMany of a search page (10 and 100
// documents) read raw and through WorkLinkedDocumentStore (versions, notices, notice targets), on the
// demo corpus in SQLite, in the same run; the ratio is the price of showing works on every hit.
//
//   node dist/bench/works/work-links.bench.js [--rounds 300] [--out bench/results/work-links.json]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { buildCore } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { machine } from '../lib/machine.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '300' }, out: { type: 'string' } } });
const rounds = Number(values.rounds);
const dir = mkdtempSync(join(tmpdir(), 'lectern-bench-works-'));
const core = await buildCore(loadConfig({}, { dataDir: dir, loadDemoCorpus: true, logLevel: 'silent' }), { logger: pino({ level: 'silent' }) });
try {
  await core.loadDemoCorpusIfEmpty();
  const ids = (await core.demoCorpus.ids()).filter((id) => id.startsWith('W'));
  // A fixed pseudo-random sample per round (no Math.random: the same pages every run).
  let x = 12345;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31);
  const pages = (size: number) => Array.from({ length: rounds }, () => Array.from({ length: size }, () => ids[next() % ids.length]!));
  const time = async (label: string, read: (page: string[]) => Promise<unknown>, list: string[][]) => {
    for (const p of list.slice(0, 20)) await read(p); // warm-up
    const t0 = process.hrtime.bigint();
    for (const p of list) await read(p);
    const us = Number(process.hrtime.bigint() - t0) / 1000 / list.length;
    console.error(label, `${us.toFixed(0)} µs per page`);
    return Math.round(us);
  };
  const result: Record<string, unknown> = { machine: machine(), corpus: 'demo corpus (SQLite, 6,530 records)', rounds };
  for (const size of [10, 100]) {
    const list = pages(size);
    const raw = await time(`raw getMany(${size})`, (p) => core.storage.documents.getMany(p), list);
    const linked = await time(`linked getMany(${size})`, (p) => core.works.getMany(p), list);
    result[`page_${size}`] = { raw_us: raw, linked_us: linked, ratio: Math.round((linked / raw) * 100) / 100 };
  }
  const withVersions = [...(await core.works.getMany(ids.slice(0, 4000))).values()].filter((d) => (d.versions ?? []).length > 0).length;
  result.documents_with_versions_of_first_4000 = withVersions;
  console.log(JSON.stringify(result, null, 2));
  if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await core.close();
  rmSync(dir, { recursive: true, force: true });
}
