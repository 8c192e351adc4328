// The local process runner: allow-list, no shell, workspace file names, time limit, output cap, abort.
// Every test runs twice: tools started directly and through the tool launcher (ADR 0361).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LocalProcessRunner } from '../../src/adapters/process/local-process-runner.js';

for (const launcher of [false, true]) describe(launcher ? 'through the tool launcher' : 'started directly', () => {
// `sh` is allow-listed here only to exercise limits with a predictable child.
const runner = new LocalProcessRunner({ tools: ['sh', 'cat'], maxMemoryBytes: 0, launcher });

test('tools outside the allow-list are refused; missing tools probe as null', async () => {
  const ws = await runner.createWorkspace();
  try {
    await assert.rejects(ws.run({ tool: 'rm', args: ['-rf', '/'], timeoutMs: 1000 }), /not allowed/);
    assert.equal(await new LocalProcessRunner({ tools: ['no-such-tool-xyz'], launcher }).probe('no-such-tool-xyz'), null);
  } finally {
    await ws.dispose();
  }
});

test('workspace files: safe names only, written and read back, removed on dispose', async () => {
  const ws = await runner.createWorkspace();
  await ws.writeFile('in.txt', new TextEncoder().encode('hello'));
  await assert.rejects(ws.writeFile('../escape', new Uint8Array()), /invalid workspace file name/);
  await assert.rejects(ws.writeFile('-rf', new Uint8Array()), /invalid workspace file name/);
  const r = await ws.run({ tool: 'cat', args: ['in.txt'], timeoutMs: 5000 });
  assert.equal(Buffer.from(r.stdout).toString(), 'hello');
  assert.deepEqual(await ws.list(), ['in.txt']);
  await ws.dispose();
  await ws.dispose();
  await assert.rejects(ws.run({ tool: 'cat', args: ['in.txt'], timeoutMs: 1000 }), /disposed/);
});

test('dispose removes the workspace folder: its files, and a folder a tool made inside it (ADR 0377)', async () => {
  const ws = await runner.createWorkspace();
  const dir = (ws as unknown as { dir: string }).dir;
  await ws.writeFile('a.txt', new TextEncoder().encode('a'));
  await ws.writeFile('b.txt', new TextEncoder().encode('b'));
  await ws.dispose();
  assert.equal(existsSync(dir), false);
  const nested = await runner.createWorkspace();
  const nestedDir = (nested as unknown as { dir: string }).dir;
  await nested.writeFile('c.txt', new TextEncoder().encode('c'));
  await nested.run({ tool: 'sh', args: ['-c', 'mkdir sub && echo x > sub/d.txt'], timeoutMs: 5000 });
  assert.equal(existsSync(join(nestedDir, 'sub', 'd.txt')), true);
  await nested.dispose();
  assert.equal(existsSync(nestedDir), false);
});

test('a hanging tool is killed at its time limit; stdout is capped; stdin is passed', async () => {
  const ws = await runner.createWorkspace();
  try {
    const t0 = Date.now();
    const slow = await ws.run({ tool: 'sh', args: ['-c', 'sleep 30'], timeoutMs: 300 });
    assert.ok(slow.timedOut);
    assert.ok(Date.now() - t0 < 5000);
    const big = await ws.run({ tool: 'sh', args: ['-c', 'yes'], timeoutMs: 5000, maxStdoutBytes: 10_000 });
    assert.ok(big.outputLimitExceeded);
    assert.ok(big.stdout.length <= 10_000);
    const echo = await ws.run({ tool: 'cat', args: [], stdin: new TextEncoder().encode('piped'), timeoutMs: 5000 });
    assert.equal(Buffer.from(echo.stdout).toString(), 'piped');
  } finally {
    await ws.dispose();
  }
});

test('disposing a workspace kills the tools still running in it', async () => {
  const ws = await runner.createWorkspace();
  const t0 = Date.now();
  const pending = ws.run({ tool: 'sh', args: ['-c', 'sleep 30'], timeoutMs: 20_000 });
  await new Promise((r) => setTimeout(r, 100));
  await ws.dispose();
  const r = await pending;
  assert.equal(r.signal, 'SIGKILL');
  assert.ok(Date.now() - t0 < 5000);
});

test('aborting kills the tool; the environment is minimal', async () => {
  const ws = await runner.createWorkspace();
  try {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const r = await ws.run({ tool: 'sh', args: ['-c', 'sleep 30'], timeoutMs: 20_000, signal: ac.signal });
    assert.ok(r.aborted);
    const env = await ws.run({ tool: 'sh', args: ['-c', 'env'], timeoutMs: 5000, env: { OMP_THREAD_LIMIT: '1' } });
    const vars = Buffer.from(env.stdout).toString().split('\n').filter(Boolean).map((l) => l.split('=')[0]);
    assert.ok(vars.includes('OMP_THREAD_LIMIT'));
    assert.ok(!vars.includes('npm_config_cache') && !vars.includes('NODE_OPTIONS'));
  } finally {
    await ws.dispose();
  }
});

test('a missing tool reports spawnFailed; the memory cap applies through prlimit', async () => {
  const r2 = new LocalProcessRunner({ tools: ['no-such-tool-xyz', 'sh'], launcher });
  const ws = await r2.createWorkspace();
  try {
    const missing = await ws.run({ tool: 'no-such-tool-xyz', args: [], timeoutMs: 5000, maxMemoryBytes: 0 });
    assert.ok(missing.spawnFailed);
    const limit = await ws.run({ tool: 'sh', args: ['-c', 'ulimit -v'], timeoutMs: 5000, maxMemoryBytes: 256 * 1024 * 1024 });
    assert.equal(Buffer.from(limit.stdout).toString().trim(), String(256 * 1024));
    const err = await ws.run({ tool: 'sh', args: ['-c', 'echo oops >&2; exit 3'], timeoutMs: 5000 });
    assert.equal(err.exitCode, 3);
    assert.equal(err.stderr.trim(), 'oops');
  } finally {
    await ws.dispose();
  }
  assert.equal(r2.launcherForks, launcher ? 1 : 0);
});
});
