// `lectern backup DIR` / `lectern restore DIR` (issue 25, ADR 0215, docs/operations.md "Backup and
// restore"): a real server process on loopback keeps serving (and indexing a concurrent ingest) while
// the backup is taken; the backup restored into an empty data directory starts beside the original
// (no index lock copied), accepts the old API key and answers searches exactly as the original did.
// kill -9 during a backup leaves nothing that restore accepts. PostgreSQL: the backup holds the
// files, pg_dump the database; both restored give the same answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { childEnv } from '../helpers/paths.js';
import { freePort, MAIN } from '../helpers/server-process.js';
import { createTestSchema, databaseUrl, postgresSkip } from '../helpers/storage.js';

const WORDS = 'sandstone porosity hydrogen cycling reservoir basalt permeability lattice quantum entropy protein folding enzyme catalyst membrane neural cortex synapse glacier sediment isotope plasma fusion tokamak graphene polymer'.split(' ');

function corpus(prefix: string, n: number, seed: number): string {
  let x = seed;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const pick = (k: number) => Array.from({ length: k }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
    lines.push(JSON.stringify({ id: `${prefix}${i}`, title: `${pick(4)} ${prefix}${i} zephyr${prefix}`, abstract: `${pick(40)}.`, doi: `10.5555/${prefix}${i}` }));
  }
  return lines.join('\n');
}

type Env = NodeJS.ProcessEnv;

function cli(env: Env, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { env, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function cliAsync(env: Env, ...args: string[]): { child: ChildProcess; done: Promise<{ status: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [MAIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  const done = new Promise<{ status: number | null; stdout: string; stderr: string }>((r) => child.on('exit', (status) => r({ status, stdout, stderr })));
  return { child, done };
}

interface Server {
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function startServer(env: Env): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], { env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  // Start-up takes seconds on a loaded machine: wait up to 3 minutes (a condition, not a budget).
  let up = false;
  for (let i = 0; i < 1800 && !up && child.exitCode === null; i++) {
    up = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
    if (!up) await new Promise((r) => setTimeout(r, 100));
  }
  if (!up) {
    child.kill('SIGKILL');
    throw new Error(`the server did not start: ${stderr.slice(-2000)}`);
  }
  return {
    port,
    child,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

async function search(port: number, key: string, query: string): Promise<{ status: number; ids: string[]; scores: number[]; total: number }> {
  const r = await fetch(`http://127.0.0.1:${port}/v2/search/`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ query, limit: 20 }) });
  const body = (await r.json()) as { hits?: { id: string; score: number }[]; total_hits?: number };
  return { status: r.status, ids: (body.hits ?? []).map((h) => h.id), scores: (body.hits ?? []).map((h) => Math.round(h.score * 1e6) / 1e6), total: body.total_hits ?? -1 };
}

/** Waits until the server's index answers `query` with `total` hits (it indexes an ingest within seconds). */
async function waitForTotal(port: number, key: string, query: string, total: number): Promise<void> {
  let last = -1;
  for (let i = 0; i < 1200; i++) {
    last = (await search(port, key, query)).total;
    if (last === total) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`the index did not reach ${total} hits for ${query} (last ${last})`);
}

const QUERIES = ['sandstone porosity', 'quantum entropy', 'protein folding enzyme', 'glacier isotope sediment', 'tokamak plasma'];

/** The queries one after another (the account's concurrency limit would refuse them all at once). */
async function searchAll(port: number, key: string) {
  const out = [];
  for (const q of QUERIES) out.push(await search(port, key, q));
  assert.ok(out.every((r) => r.status === 200 && r.ids.length > 0), JSON.stringify(out.map((r) => r.status)));
  return out;
}

interface Fixture {
  root: string;
  env: Env;
  restoreEnv(dataDir: string): Env;
  dispose(): Promise<void>;
  /** PostgreSQL only: dumps the database (after the backup) and restores it in place of the original. */
  pg?: { dump(file: string): void; dropAndRestore(file: string): Promise<void> };
}

function sqliteFixture(): Fixture {
  const root = mkdtempSync(join(tmpdir(), 'lectern-backup-'));
  const base = { ...childEnv(), LECTERN_LOAD_DEMO_CORPUS: 'false', LECTERN_LOG_LEVEL: 'silent' };
  return {
    root,
    env: { ...base, LECTERN_DATA_DIR: join(root, 'data') },
    restoreEnv: (dataDir) => ({ ...base, LECTERN_DATA_DIR: dataDir }),
    dispose: async () => rmSync(root, { recursive: true, force: true }),
  };
}

async function roundTrip(fx: Fixture): Promise<void> {
  const { root, env } = fx;
  writeFileSync(join(root, 'a.jsonl'), corpus('a', 800, 7));
  writeFileSync(join(root, 'b.jsonl'), corpus('b', 1600, 11));
  assert.equal(cli(env, 'ingest', join(root, 'a.jsonl')).status, 0);
  const acct = cli(env, 'accounts', 'create', '--email', 'backup@example.org', '--credits', '100000000');
  assert.equal(acct.status, 0, acct.stderr);
  const key = JSON.parse(acct.stdout).api_key as string;

  const original = await startServer(env);
  const restored: Server[] = [];
  let searching = false;
  let searches: Promise<unknown> = Promise.resolve();
  try {
    // 1. A backup while the server indexes a concurrent ingest (commits, merges) and answers searches.
    const ingest = cliAsync(env, 'ingest', '--batch', '50', join(root, 'b.jsonl'));
    searching = true;
    searches = (async () => {
      let n = 0;
      const statuses = new Set<number>();
      while (searching) {
        statuses.add(await search(original.port, key, QUERIES[n++ % QUERIES.length]!).then((r) => r.status, () => -1));
        await new Promise((r) => setTimeout(r, 10));
      }
      return { n, statuses: [...statuses] };
    })();
    // wait until the server has indexed some of the concurrent ingest, so the backup meets it mid-way
    for (let i = 0; i < 1200 && (await search(original.port, key, 'zephyrb')).total === 0; i++) await new Promise((r) => setTimeout(r, 100));
    const during = cli(env, 'backup', join(root, 'backup-during'));
    assert.equal(during.status, 0, during.stderr);
    const ingestDone = await ingest.done;
    assert.equal(ingestDone.status, 0, ingestDone.stderr);
    const m1 = JSON.parse(readFileSync(join(root, 'backup-during', 'backup.json'), 'utf8')) as { files: { path: string }[]; indexes: Record<string, { segments: number }> };
    assert.ok(!m1.files.some((f) => /(^|\/)LOCK$|\.tmp$|-wal$|-shm$/.test(f.path)), 'no lock, temporary or WAL file in the backup');
    assert.ok(m1.indexes.documents!.segments > 0);

    // 2. Once the ingest is indexed, a backup while searches keep coming: the reference for the comparison.
    await waitForTotal(original.port, key, 'zephyrb', 1600);
    const expected = await searchAll(original.port, key);
    const after = cli(env, 'backup', join(root, 'backup-after'));
    assert.equal(after.status, 0, after.stderr);
    searching = false;
    const served = (await searches) as { n: number; statuses: number[] };
    assert.ok(served.n > 0);
    assert.deepEqual(served.statuses, [200], 'every search during the backups was answered');
    if (fx.pg) fx.pg.dump(join(root, 'db.dump'));

    // 3. Restore the consistent-under-load backup into an empty directory and start it beside the original.
    const r1 = cli(fx.restoreEnv(join(root, 'restored-during')), 'restore', join(root, 'backup-during'));
    if (!fx.pg) {
      assert.equal(r1.status, 0, r1.stderr);
      const s1 = await startServer(fx.restoreEnv(join(root, 'restored-during')));
      restored.push(s1);
      const a = await search(s1.port, key, 'zephyra');
      assert.equal(a.status, 200, 'the old API key is accepted');
      assert.equal(a.total, 800, 'documents ingested before the backup are served');
      // the index (copied before the database) catches up with the database copy: every document of
      // the concurrent ingest that the copy holds is found, none that it does not
      const db = new Database(join(root, 'backup-during', 'lectern.db'), { readonly: true });
      const inCopy = (db.prepare("SELECT COUNT(*) AS c FROM documents WHERE id LIKE 'b%'").get() as { c: number }).c;
      db.close();
      assert.ok(inCopy > 0, 'the backup met the concurrent ingest');
      await waitForTotal(s1.port, key, 'zephyrb', inCopy);
      await s1.stop();
      restored.pop();
    }

    // 4. The quiet backup restored gives the original's answers exactly.
    await original.stop();
    if (fx.pg) await fx.pg.dropAndRestore(join(root, 'db.dump'));
    const restoreDir = join(root, 'restored');
    const r2 = cli(fx.restoreEnv(restoreDir), 'restore', join(root, 'backup-after'));
    assert.equal(r2.status, 0, r2.stderr);
    assert.ok(!existsSync(join(restoreDir, 'index', 'documents', 'LOCK')));
    const s2 = await startServer(fx.restoreEnv(restoreDir));
    restored.push(s2);
    const got = await searchAll(s2.port, key);
    assert.deepEqual(got, expected, 'the restored server answers every query as the original did');
    const bad = await search(s2.port, `${key.slice(0, -4)}xxxx`, 'sandstone');
    assert.equal(bad.status, 401, 'a wrong key is still refused');

    // 5. A restore into a directory that is not empty is refused, and writes nothing.
    const refused = cli(fx.restoreEnv(restoreDir), 'restore', join(root, 'backup-after'));
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /not empty/);
  } finally {
    searching = false;
    await searches;
    for (const s of restored) await s.stop();
    await original.stop();
  }
}

test('backup of a running server (SQLite) restores into an empty directory: same answers, same keys', { timeout: 900_000 }, async () => {
  const fx = sqliteFixture();
  try {
    await roundTrip(fx);
  } finally {
    await fx.dispose();
  }
});

test('backup with PostgreSQL: the files by lectern backup, the database by pg_dump; restored together they give the same answers', { timeout: 900_000, skip: databaseUrl ? false : postgresSkip('backup round trip on PostgreSQL') }, async () => {
  const fx = sqliteFixture();
  const schema = await createTestSchema(databaseUrl!);
  const base = { ...fx.env };
  fx.env = { ...base, DATABASE_URL: schema.url };
  fx.restoreEnv = (dataDir) => ({ ...base, LECTERN_DATA_DIR: dataDir, DATABASE_URL: schema.url });
  const conn = new URL(databaseUrl!);
  conn.search = '';
  fx.pg = {
    dump: (file) => {
      const r = spawnSync('pg_dump', ['--format=custom', `--schema=${schema.schema}`, `--file=${file}`, conn.toString()], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    },
    dropAndRestore: async (file) => {
      // the original database is gone (a new machine); the dump brings it back
      const c = new pg.Client({ connectionString: conn.toString() });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema.schema} CASCADE`);
      await c.end();
      const r = spawnSync('pg_restore', ['--no-owner', `--dbname=${conn.toString()}`, file], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    },
  };
  try {
    await roundTrip(fx);
    // a PostgreSQL backup holds no database: restoring it without DATABASE_URL is refused
    const r = cli({ ...base, LECTERN_DATA_DIR: join(fx.root, 'no-db') }, 'restore', join(fx.root, 'backup-after'));
    assert.equal(r.status, 1);
    assert.match(r.stderr, /holds no database/);
  } finally {
    await schema.drop();
    await fx.dispose();
  }
});

test('kill -9 during a backup leaves nothing restore accepts; the next backup succeeds', { timeout: 600_000 }, async () => {
  const fx = sqliteFixture();
  const { root, env } = fx;
  try {
    // originals make the backup take long enough to be killed in the middle
    mkdirSync(join(root, 'in'));
    const works: string[] = [];
    for (let i = 0; i < 6; i++) {
      writeFileSync(join(root, 'in', `o${i}.pdf`), Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(16 * 1024 * 1024)]));
      works.push(JSON.stringify({ id: `o${i}`, title: `Original ${i}`, originals: [{ path: `o${i}.pdf` }] }));
    }
    writeFileSync(join(root, 'in', 'w.jsonl'), works.join('\n'));
    writeFileSync(join(root, 'a.jsonl'), corpus('a', 500, 3));
    assert.equal(cli(env, 'ingest', join(root, 'in', 'w.jsonl'), join(root, 'a.jsonl')).status, 0);
    const server = await startServer(env);
    try {
      const target = join(root, 'backup');
      const b = cliAsync(env, 'backup', target);
      // kill as soon as the backup has begun writing its partial directory
      let partial: string | undefined;
      for (let i = 0; i < 20_000 && partial === undefined && b.child.exitCode === null; i++) {
        partial = readdirSync(root).find((n) => n.startsWith('backup.partial-') && existsSync(join(root, n, 'index')));
        if (partial === undefined) await new Promise((r) => setTimeout(r, 2));
      }
      assert.ok(partial, 'the backup was caught while writing');
      b.child.kill('SIGKILL');
      await b.done;
      assert.ok(!existsSync(target), 'no finished backup directory after kill -9');
      assert.ok(!existsSync(join(root, partial, 'backup.json')), 'the partial copy has no manifest');
      for (const dir of [target, join(root, partial)]) {
        const r = cli(fx.restoreEnv(join(root, 'restored')), 'restore', dir);
        assert.equal(r.status, 1, `restore of ${dir} refused`);
        assert.ok(!existsSync(join(root, 'restored')) || readdirSync(join(root, 'restored')).length === 0, 'a refused restore writes nothing');
      }
      // a damaged finished backup is refused too (every file is checked before anything is written)
      const again = cli(env, 'backup', target);
      assert.equal(again.status, 0, again.stderr);
      assert.ok(!existsSync(join(root, partial)), "the killed backup's partial directory was cleared");
      const m = JSON.parse(readFileSync(join(target, 'backup.json'), 'utf8')) as { files: { path: string; bytes: number }[] };
      const blob = m.files.find((f) => f.path.startsWith('blobs/originals/'));
      assert.ok(blob && statSync(join(target, blob.path)).size === blob.bytes);
      writeFileSync(join(target, blob.path), 'damaged');
      const damaged = cli(fx.restoreEnv(join(root, 'restored')), 'restore', target);
      assert.equal(damaged.status, 1);
      assert.match(damaged.stderr, /does not match its checksum/);
      assert.ok(!existsSync(join(root, 'restored')) || readdirSync(join(root, 'restored')).length === 0);
    } finally {
      await server.stop();
    }
  } finally {
    await fx.dispose();
  }
});
