// One process start for the local process runner: execFile semantics (no shell), a process group of its own,
// SIGKILL of the group at the time limit, on abort, on stdout overflow or through the caller's kill set.
// Runs in the service process (direct starts) and in the launcher process (tool-launcher-main.ts).
import { spawn } from 'node:child_process';
import type { ToolResult } from '../../ports/process-runner.js';

const STDERR_CAP = 64 * 1024;

/** One process start, fully resolved: what {@link spawnTool} runs (also what the launcher receives). */
export interface SpawnSpec {
  readonly file: string;
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly stdin?: Uint8Array;
  readonly timeoutMs: number;
  readonly maxStdoutBytes: number;
}

/**
 * Spawns one process (no shell, own process group, SIGKILL of the group at the time limit, on abort, on
 * output overflow, or through `running`) and collects its result. Used in the service process directly
 * and inside the launcher process (tool-launcher-main.ts).
 */
export function spawnTool(spec: SpawnSpec, signal?: AbortSignal, running?: Set<() => void>, onSpawn?: (pid: number) => void): Promise<ToolResult> {
  const run = { timeoutMs: spec.timeoutMs, stdin: spec.stdin, signal };
  const started = performance.now();
  const maxStdout = spec.maxStdoutBytes;
  return new Promise((resolve) => {
    const child = spawn(spec.file, spec.argv, {
      cwd: spec.cwd,
      env: spec.env,
      stdio: [run.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      // A process group of its own, so a timeout kills grandchildren too.
      detached: true,
      windowsHide: true,
    });
    if (child.pid) onSpawn?.(child.pid);
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let timedOut = false;
    let aborted = false;
    let outputLimitExceeded = false;
    let spawnError = false;
    let settled = false;
    const kill = (): void => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    running?.add(kill);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, Math.max(1, run.timeoutMs));
    const onAbort = (): void => {
      aborted = true;
      kill();
    };
    if (run.signal) {
      if (run.signal.aborted) onAbort();
      else run.signal.addEventListener('abort', onAbort, { once: true });
    }
    child.stdout!.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxStdout) {
        if (!outputLimitExceeded) {
          outputLimitExceeded = true;
          kill();
        }
        return;
      }
      out.push(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      if (err.length < STDERR_CAP) err += chunk.toString('utf8').slice(0, STDERR_CAP - err.length);
    });
    if (run.stdin && child.stdin) {
      child.stdin.on('error', () => undefined); // EPIPE when the tool exits without reading
      child.stdin.end(Buffer.from(run.stdin.buffer, run.stdin.byteOffset, run.stdin.byteLength));
    }
    const finish = (exitCode: number | null, signal: string | null): void => {
      if (settled) return;
      settled = true;
      running?.delete(kill);
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', onAbort);
      resolve({
        exitCode,
        signal,
        stdout: new Uint8Array(Buffer.concat(out)),
        stderr: err,
        timedOut,
        aborted,
        outputLimitExceeded,
        durationMs: performance.now() - started,
        spawnFailed: spawnError,
      });
    };
    child.on('error', (e) => {
      spawnError = true;
      err += String(e);
      finish(null, null);
    });
    child.on('close', (code, sig) => finish(code, sig));
  });
}

