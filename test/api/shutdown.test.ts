// Graceful shutdown: on SIGTERM the server stops accepting connections, finishes in-flight requests
// (here a slowly read download) and exits 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv, repoRoot } from '../helpers/paths.js';
import { freePort } from '../helpers/server-process.js';
import { answers200, ceiling, waitFor } from '../helpers/wait.js';

test('SIGTERM finishes in-flight requests, then exits 0', { timeout: ceiling(60_000) }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-stop-'));
  let server: ReturnType<typeof spawn> | undefined;
  try {
    const main = join(repoRoot, 'dist/src/main.js');
    const env = { ...childEnv(), LECTERN_DATA_DIR: dir, LECTERN_LOAD_DEMO_CORPUS: 'false', LECTERN_LOG_LEVEL: 'silent' };
    mkdirSync(join(dir, 'in'));
    const size = 8 * 1024 * 1024;
    writeFileSync(join(dir, 'in', 'big.pdf'), Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(size - 9)]));
    writeFileSync(join(dir, 'in', 'w.jsonl'), JSON.stringify({ id: 'big', title: 'Big', originals: [{ path: 'big.pdf' }] }));
    assert.equal(spawnSync(process.execPath, [main, 'ingest', join(dir, 'in', 'w.jsonl')], { env }).status, 0);
    const acct = spawnSync(process.execPath, [main, 'accounts', 'create', '--email', 'stop@example.org', '--eligible'], { env, encoding: 'utf8' });
    const key = JSON.parse(acct.stdout).api_key as string;

    const port = await freePort();
    const child = spawn(process.execPath, [main], { env: { ...env, PORT: String(port) }, stdio: 'ignore' });
    server = child;
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    // Start-up takes a few seconds (more on a loaded machine): wait until it answers, failing at once
    // if the server exits.
    await waitFor('the server starts', () => answers200(port), { intervalMs: 100, failIf: () => child.exitCode !== null && `it exited with ${child.exitCode}` });

    let received = 0;
    let firstByte!: () => void;
    const started = new Promise<void>((r) => (firstByte = r));
    const download = new Promise<number>((resolve, reject) => {
      const req = request({ port, path: '/v2/downloads/big.pdf', headers: { 'x-api-key': key, connection: 'close' } }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`download answered ${res.statusCode}`));
          return;
        }
        res.on('data', (c: Buffer) => {
          if (received === 0) firstByte();
          received += c.length;
          // Read slowly after the first chunk so the request is still in flight at SIGTERM.
          res.pause();
          setTimeout(() => res.resume(), 2);
        });
        res.on('end', () => resolve(received));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    // Fail fast (not hang) when the download does not start.
    await Promise.race([started, download.then(() => undefined)]);
    child.kill('SIGTERM');
    // new connections are refused while stopping (the listener closes at once; how soon the process
    // gets to it depends on the machine's load)
    const refusedNow = () => new Promise<boolean>((r) => request({ port, path: '/healthz' }, (res) => { res.resume(); r(false); }).on('error', () => r(true)).end());
    await waitFor('new connections are refused while stopping', refusedNow);
    assert.equal(await download, size);
    assert.equal(await exited, 0);
  } finally {
    if (server && server.exitCode === null) server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
