// Freshness with a guarantee (issue 29, ADR 0244): documents ingested while searches keep a threaded
// server busy become searchable (the builder thread progresses: the search threads pace themselves when
// the indexes lag), and `lectern ingest --wait` returns only once the running server can find what it
// ingested. Every wait is on a condition with a generous ceiling, never on a time budget.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCore } from '../../src/app.js';
import { runCli } from '../../src/cli/main.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { createTestSchema, databaseUrl, postgresSkip } from '../helpers/storage.js';

const heavyLimits = { rateLimits: { search: { capacity: 1_000_000, refillPerSecond: 1_000_000 } }, limits: { searchConcurrency: 1000 } };
const background = (i: number) => doc(`b${i}`, { title: `Groundwater recharge basin ${i}`, abstract: `Recharge of aquifer ${i} by river seepage and rainfall; porosity, storage and flow in the basin.` });

async function searchHits(app: TestApp, key: string, query: string): Promise<{ status: number; total: number }> {
  const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: { query, limit: 10 } });
  return { status: res.statusCode, total: res.statusCode === 200 ? (res.json() as { total_hits: number }).total_hits : -1 };
}

describe('freshness under a saturating search load', () => {
  let app: TestApp;
  let key: string;
  before(async () => {
    app = await testApp({ searchThreads: 1, ...heavyLimits } as never);
    await seed(app, Array.from({ length: 300 }, (_, i) => background(i)));
    await app.indexes!.catchUp();
    app.startBackgroundWork();
    key = (await app.account({ credits: 1_000_000_000 })).key;
  });
  after(() => app.dispose());

  test('documents ingested while clients keep the search thread busy become searchable, and the searches keep being answered', async () => {
    let stop = false;
    let answered = 0;
    let failed = 0;
    // more clients than threads: the search thread (and the main thread) never idle while this runs
    const clients = Array.from({ length: 8 }, async (_, c) => {
      const queries = ['groundwater recharge', 'aquifer porosity storage', 'river seepage basin', '"recharge basin"'];
      for (let i = 0; !stop; i++) {
        const r = await searchHits(app, key, queries[(c + i) % queries.length]!);
        if (r.status === 200) answered++;
        else failed++;
      }
    });
    try {
      for (let i = 0; i < 2000 && answered < 50; i++) await new Promise((r) => setTimeout(r, 10));
      assert.ok(answered >= 50, 'the load runs');
      // written by "another process" (straight to the store): the server's catch-up must index it
      await seed(app, Array.from({ length: 400 }, (_, i) => doc(`fresh${i}`, { title: `Zeolite quillwort survey ${i}`, abstract: 'Freshly ingested under load.' })));
      const atIngest = answered;
      let found = 0;
      for (let i = 0; i < 1200 && found < 400; i++) {
        await new Promise((r) => setTimeout(r, 100));
        found = (await searchHits(app, key, 'zeolite quillwort')).total;
      }
      assert.equal(found, 400, 'every ingested document became searchable under the load');
      assert.ok(answered > atIngest, 'searches kept being answered while the indexes caught up');
      assert.equal(failed, 0);
    } finally {
      stop = true;
      await Promise.all(clients);
    }
  });
});

/** Runs the CLI as a separate process would: its own core over the server's data directory. */
async function cli(app: TestApp, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const write = process.stdout.write.bind(process.stdout);
  const errWrite = process.stderr.write.bind(process.stderr);
  let stdout = '';
  let stderr = '';
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => (typeof chunk === 'string' ? ((stdout += chunk), true) : write(chunk, ...rest))) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => ((stderr += chunk), true)) as typeof process.stderr.write;
  try {
    const code = await runCli(args, {
      loadConfig: () => app.config,
      openApp: (config) => buildCore(config, { clock: app.clock }),
      serve: async () => {
        throw new Error('not here');
      },
    });
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = write;
    process.stderr.write = errWrite;
  }
}

describe('lectern ingest --wait', () => {
  test('returns once the running server finds the documents: the first search after it finds every one', async () => {
    const app = await testApp({ searchThreads: 1, ...heavyLimits } as never);
    try {
      app.startBackgroundWork();
      const key = (await app.account({ credits: 1_000_000 })).key;
      const file = join(app.dir, 'wait.jsonl');
      writeFileSync(file, Array.from({ length: 120 }, (_, i) => JSON.stringify({ id: `w${i}`, title: `Basaltic tephra layer ${i}` })).join('\n'));
      const r = await cli(app, ['ingest', '--wait', file]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /a running Lectern server holds the search indexes/);
      assert.match(r.stderr, /searchable: the running server indexed through change \d+/);
      assert.equal(JSON.parse(r.stdout)[0].inserted, 120);
      // no retry: --wait promised they are searchable now
      assert.deepEqual(await searchHits(app, key, 'basaltic tephra'), { status: 200, total: 120 });
    } finally {
      await app.dispose();
    }
  });

  test('a server that does not catch up: --wait gives up at --wait-timeout with exit 1 and says so', async () => {
    const app = await testApp({ searchThreads: 1 });
    try {
      // no background work: this server never catches up with changes written by others
      const file = join(app.dir, 'stuck.jsonl');
      writeFileSync(file, JSON.stringify({ id: 'stuck', title: 'Never indexed here' }));
      const r = await cli(app, ['ingest', '--wait', '--wait-timeout', '1', file]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /--wait: the running server's indexes reached change 0 of \d+ within 1 s; the documents are stored/);
      assert.equal(JSON.parse(r.stdout)[0].inserted, 1);
      const usage = await cli(app, ['ingest', '--wait-timeout', '5', file]);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /--wait-timeout needs --wait/);
    } finally {
      await app.dispose();
    }
  });
});

describe('lectern ingest --wait and /readyz on PostgreSQL', { skip: databaseUrl ? false : postgresSkip('PostgreSQL freshness') }, () => {
  test('--wait returns once the server finds the documents; /readyz index_seq reaches the store sequence', async () => {
    const schema = await createTestSchema(databaseUrl!);
    const app = await testApp({ searchThreads: 1, databaseUrl: schema.url, ...heavyLimits } as never);
    try {
      app.startBackgroundWork();
      const key = (await app.account({ credits: 1_000_000 })).key;
      const file = join(app.dir, 'wait-pg.jsonl');
      writeFileSync(file, Array.from({ length: 60 }, (_, i) => JSON.stringify({ id: `pg${i}`, title: `Rhyolitic obsidian flow ${i}` })).join('\n'));
      const r = await cli(app, ['ingest', '--wait', file]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(await searchHits(app, key, 'rhyolitic obsidian'), { status: 200, total: 60 });
      const ready = await app.http.inject({ url: '/readyz' });
      assert.equal(ready.statusCode, 200);
      assert.equal(ready.json().index_seq, await app.storage.documents.maxSeq(), ready.body);
    } finally {
      await app.dispose();
      await schema.drop();
    }
  });
});
