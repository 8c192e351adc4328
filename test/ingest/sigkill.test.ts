// A crash mid-ingest (SIGKILL) leaves every document fully in or absent, and re-running completes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { contentHash } from '../../src/adapters/sql/document-row.js';
import { childEnv, repoRoot } from '../helpers/paths.js';
import { ceiling, waitFor } from '../helpers/wait.js';

const N = 20_000;
const BATCH = 250;

test('kill -9 during ingest loses no committed batch and leaves no partial one', { timeout: ceiling(120_000) }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-kill-'));
  try {
    const file = join(dir, 'big.jsonl');
    const filler = 'Porosity and permeability of sandstone reservoirs under hydrogen cycling. '.repeat(20);
    writeFileSync(file, Array.from({ length: N }, (_, i) => JSON.stringify({ id: `k${i}`, title: `Doc ${i}`, abstract: filler, doi: `10.5555/k${i}` })).join('\n'));
    const env = { ...childEnv(), LECTERN_DATA_DIR: dir, LECTERN_LOG_LEVEL: 'silent' };
    const child = spawn(process.execPath, [join(repoRoot, 'dist/src/main.js'), 'ingest', '--batch', String(BATCH), file], { env, stdio: 'ignore' });
    const dbPath = join(dir, 'lectern.db');
    // Wait until a few batches are committed, then kill without warning.
    let seen = 0;
    await waitFor(
      'the ingest commits 2,000 documents',
      () => {
        try {
          const db = new Database(dbPath, { readonly: true, fileMustExist: true });
          seen = (db.prepare('SELECT COUNT(*) AS c FROM documents').get() as { c: number }).c;
          db.close();
        } catch {
          // not created yet
        }
        return seen >= 2_000;
      },
      { intervalMs: 50, failIf: () => child.exitCode !== null && `the ingest exited (${child.exitCode}) after ${seen} documents` },
    );
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));
    assert.ok(seen >= 2_000 && seen < N, `killed after ${seen} documents (the test needs it mid-way)`);

    const storage = openSqliteStorage(dbPath);
    const count = await storage.documents.count();
    assert.ok(count >= seen);
    assert.equal(count % BATCH, 0, `a partial batch is visible: ${count} documents`);
    // Every stored document is complete: record, hash and URI rows agree.
    const db = (storage as unknown as { db: Database.Database }).db;
    const rows = db.prepare('SELECT id, record, content_hash FROM documents').all() as { id: string; record: string; content_hash: string }[];
    for (const r of rows) {
      assert.equal(contentHash(r.record), r.content_hash);
      const uris = db.prepare('SELECT uri FROM document_uris WHERE document_id = ?').pluck().all(r.id);
      assert.deepEqual(uris, [`doi://10.5555/${r.id}`]);
    }
    await storage.close();

    // Re-running finishes the job without duplicates.
    const rerun = spawn(process.execPath, [join(repoRoot, 'dist/src/main.js'), 'ingest', '--batch', String(BATCH), file], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    rerun.stdout!.on('data', (c) => (out += c));
    const code = await new Promise((r) => rerun.on('exit', r));
    assert.equal(code, 0);
    const report = JSON.parse(out)[0];
    assert.equal(report.inserted, N - count);
    assert.equal(report.unchanged, count);
    const after = openSqliteStorage(dbPath);
    assert.equal(await after.documents.count(), N);
    await after.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
