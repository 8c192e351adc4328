// kill -9 during indexing: re-opening must return exactly the last commit (nothing committed lost,
// nothing uncommitted visible), using the real file-system directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FsIndexDirectory } from '../../src/adapters/fs/index-directory.js';
import { SearchIndex } from '../../src/engine/index.js';
import { ceiling } from '../helpers/wait.js';

const child = join(dirname(fileURLToPath(import.meta.url)), 'crash-child.js');
const BATCH = 200;

function runAndKill(dir: string, minCommits: number, extraMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, dir, String(BATCH)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let last = 0;
    let killing = false;
    let buf = '';
    p.stdout.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      for (const m of buf.matchAll(/committed (\d+)/g)) last = Math.max(last, Number(m[1]));
      buf = buf.slice(buf.lastIndexOf('\n') + 1);
      if (!killing && last >= minCommits) {
        killing = true;
        setTimeout(() => p.kill('SIGKILL'), extraMs);
      }
    });
    p.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(last) : reject(new Error(`child exited without SIGKILL (${signal})`))));
    setTimeout(() => p.kill('SIGKILL'), ceiling(60_000)).unref(); // only a hung child
  });
}

test('SIGKILL during indexing loses nothing committed and exposes nothing uncommitted', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-crash-'));
  try {
    for (const [minCommits, extraMs] of [
      [3, 37],
      [2, 11],
    ] as const) {
      const reported = await runAndKill(dir, minCommits, extraMs);
      const idx = SearchIndex.open(new FsIndexDirectory(dir));
      const cp = Number(idx.checkpoint);
      // the commit may have completed after the last line we read, never before it
      assert.ok(cp >= reported, `checkpoint ${cp} < reported ${reported}`);
      assert.equal(idx.stats().docs, cp * BATCH);
      const r = idx.search({ text: 'alpha', limit: 1, exactTotal: true });
      assert.equal(r.totalHits, cp * BATCH);
      assert.equal(idx.search({ text: `"document number ${cp * BATCH - 1}"` }).hits.length, 1);
      assert.equal(idx.search({ text: `"document number ${cp * BATCH}"` }).hits.length, 0);
      idx.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
