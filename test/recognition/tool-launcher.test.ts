// The tool launcher (ADR 0361): one launcher process serves a runner's tool starts; if it dies, the runs it
// held are started again directly and the next run forks a fresh one; when the service process dies, the
// launcher kills its tools and exits; an idle launcher does not keep the service process alive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuSecondsFor, LocalProcessRunner } from '../../src/adapters/process/local-process-runner.js';
import { repoRoot } from '../helpers/paths.js';

const runnerModule = pathToFileURL(join(repoRoot, 'dist', 'src', 'adapters', 'process', 'local-process-runner.js')).href;

/** Running (a zombie waiting for its reaper has exited). */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0] !== 'Z';
  } catch {
    return false;
  }
}
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; !cond(); i++) {
    if (i > 6000) throw new Error(`gave up waiting for ${what}`);
    await sleep(10);
  }
}

test('one launcher serves concurrent runs; results are those of the tools', async () => {
  const runner = new LocalProcessRunner({ tools: ['sh'], maxMemoryBytes: 0 });
  const ws = await runner.createWorkspace();
  try {
    const rs = await Promise.all(Array.from({ length: 8 }, (_, i) => ws.run({ tool: 'sh', args: ['-c', `echo run${i}; exit ${i}`], timeoutMs: 10_000 })));
    rs.forEach((r, i) => {
      assert.equal(Buffer.from(r.stdout).toString(), `run${i}\n`);
      assert.equal(r.exitCode, i);
    });
    assert.equal(runner.launcherForks, 1);
    assert.ok(runner.launcherPid && runner.launcherPid !== process.pid);
  } finally {
    await ws.dispose();
  }
});

test('a launcher that dies mid-run: the run is started again directly, the next run forks a new launcher', async () => {
  const runner = new LocalProcessRunner({ tools: ['sh'], maxMemoryBytes: 0 });
  const ws = await runner.createWorkspace();
  try {
    await ws.writeFile('go', new Uint8Array());
    // The tool waits until its marker file is gone; the first attempt (in the launcher) is killed with it.
    const pending = ws.run({ tool: 'sh', args: ['-c', 'echo $$ >> log; while [ -e go ]; do sleep 0.02; done; echo done'], timeoutMs: 60_000 });
    await until(() => readdirSync((ws as unknown as { dir: string }).dir).includes('log'), 'the tool to start');
    // Replies come in order on the channel: once a later run is done, the first run's pid has arrived.
    await ws.run({ tool: 'sh', args: ['-c', 'true'], timeoutMs: 10_000 });
    const first = runner.launcherPid!;
    process.kill(first, 'SIGKILL');
    await until(() => !alive(first), 'the launcher to die');
    const pids = (): number[] => readFileSync(join((ws as unknown as { dir: string }).dir, 'log'), 'utf8').split('\n').filter(Boolean).map(Number);
    await until(() => pids().length >= 2, 'the retry');
    // the first attempt, left without its launcher, was killed
    await until(() => !alive(pids()[0]!), 'the orphaned first attempt to be killed');
    await ws.remove('go');
    const r = await pending;
    assert.equal(Buffer.from(r.stdout).toString(), 'done\n');
    const again = await ws.run({ tool: 'sh', args: ['-c', 'echo ok'], timeoutMs: 10_000 });
    assert.equal(Buffer.from(again.stdout).toString(), 'ok\n');
    assert.equal(runner.launcherForks, 2);
    assert.notEqual(runner.launcherPid, first);
  } finally {
    await ws.dispose();
  }
});

test('an idle launcher does not keep the process alive; a dead service takes its launcher and tools with it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-launcher-test-'));
  try {
    // 1. a script that runs one tool and returns exits by itself
    const script1 = join(dir, 'idle.mjs');
    writeFileSync(script1, `import { LocalProcessRunner } from ${JSON.stringify(runnerModule)};
const r = new LocalProcessRunner({ tools: ['sh'], maxMemoryBytes: 0 });
const ws = await r.createWorkspace();
const out = await ws.run({ tool: 'sh', args: ['-c', 'echo hi'], timeoutMs: 10000 });
console.log(Buffer.from(out.stdout).toString().trim(), r.launcherForks);
`);
    const c1 = spawn(process.execPath, [script1], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out1 = '';
    c1.stdout.on('data', (d: Buffer) => (out1 += d.toString()));
    const code = await new Promise<number | null>((res) => c1.on('exit', res));
    assert.equal(code, 0);
    assert.equal(out1.trim(), 'hi 1');

    // 2. a service killed with SIGKILL while a tool runs: the launcher kills the tool's group and exits
    const script2 = join(dir, 'dies.mjs');
    writeFileSync(script2, `import { LocalProcessRunner } from ${JSON.stringify(runnerModule)};
const r = new LocalProcessRunner({ tools: ['sh'], maxMemoryBytes: 0, tempRoot: ${JSON.stringify(dir)} });
const ws = await r.createWorkspace();
await ws.run({ tool: 'sh', args: ['-c', 'true'], timeoutMs: 10000 });
const p = ws.run({ tool: 'sh', args: ['-c', 'echo $$ > tool.pid; exec sleep 60'], timeoutMs: 120000 });
console.log(r.launcherPid);
await p;
`);
    const c2 = spawn(process.execPath, [script2], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out2 = '';
    c2.stdout.on('data', (d: Buffer) => (out2 += d.toString()));
    await until(() => out2.includes('\n'), 'the launcher pid');
    const launcherPid = Number(out2.trim());
    const pidFile = (): string | undefined => readdirSync(dir).filter((n) => n.startsWith('lectern-rec-')).map((n) => join(dir, n, 'tool.pid')).find((f) => {
      try {
        return readFileSync(f, 'utf8').trim().length > 0;
      } catch {
        return false;
      }
    });
    await until(() => pidFile() !== undefined, 'the tool to start');
    const toolPid = Number(readFileSync(pidFile()!, 'utf8').trim());
    assert.ok(alive(toolPid) && alive(launcherPid));
    c2.kill('SIGKILL');
    await until(() => !alive(launcherPid), 'the launcher to exit');
    await until(() => !alive(toolPid), 'the tool to be killed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The launcher is started through `sh` and is not the thread's child: a terminated thread could not reap it.
test('a conversion thread that is terminated takes its launcher with it, and it is not left to this process', async () => {
  const { Worker } = await import('node:worker_threads');
  const dir = mkdtempSync(join(tmpdir(), 'lectern-launcher-test-'));
  const file = join(dir, 'thread.mjs');
  writeFileSync(file, `import { parentPort } from 'node:worker_threads';
const { LocalProcessRunner } = await import(${JSON.stringify(runnerModule)});
const r = new LocalProcessRunner({ tools: ['sh'], maxMemoryBytes: 0 });
const ws = await r.createWorkspace();
await ws.run({ tool: 'sh', args: ['-c', 'true'], timeoutMs: 10000 });
parentPort.postMessage(r.launcherPid);
setInterval(() => undefined, 1000);
`);
  const w = new Worker(file);
  const pid = await new Promise<number>((res, rej) => {
    w.once('message', res);
    w.once('error', rej);
  });
  assert.ok(alive(pid));
  assert.notEqual(Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]), process.pid);
  await w.terminate();
  await until(() => !alive(pid), 'the launcher to exit');
  rmSync(dir, { recursive: true, force: true });
});

test('every tool run carries a CPU-time cap the kernel enforces, through the launcher or started directly (ADR 0361 gap)', async () => {
  for (const launcher of [true, false]) {
    const runner = new LocalProcessRunner({ tools: ['sh'], maxMemoryBytes: 0, launcher });
    const ws = await runner.createWorkspace();
    try {
      // The tool's own view of its limits: a tool left behind by a killed launcher (pid not yet reported)
      // is still killed by the kernel once it has burnt this much CPU.
      const r = await ws.run({ tool: 'sh', args: ['-c', 'ulimit -t; ulimit -c'], timeoutMs: 10_000 });
      assert.equal(r.exitCode, 0, r.stderr);
      assert.deepEqual(Buffer.from(r.stdout).toString().trim().split('\n'), [String(cpuSecondsFor(10_000)), '0']);
    } finally {
      await ws.dispose();
    }
  }
  // The cap is a backstop above the wall-clock limit on every core, never the limit a healthy run meets.
  assert.ok(cpuSecondsFor(10_000) > 10);
  assert.ok(cpuSecondsFor(Number.POSITIVE_INFINITY) >= 3600);
});
