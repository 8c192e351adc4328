// The service side of the tool launcher (ADR 0361): one small, long-lived Node process, started once per
// runner on the first tool run (through `sh`, so it is not this process's child: see #ensure), that starts tools on the service's behalf. A start from the service forks
// the whole service process (its page tables are copied; the starting thread waits until the child has
// exec'd), so its cost grows with the service's resident memory; a start from the launcher costs what it
// costs from a ~40 MB process. Requests and results travel over the IPC channel (structured clone, so stdin
// and stdout bytes go as they are); the launcher runs them with the same `spawnTool` as a direct start,
// so time limit, output cap, process group kill and stderr capture are the same code.
// Guarantees kept from the direct start: an abort or a workspace dispose sends a kill for the run (the
// launcher kills its process group); if the launcher dies, the runs it held are started again directly
// (their files live in the workspace, which is still there) and the next run forks a fresh launcher; if
// the service dies, the launcher sees the channel close, kills its tools and exits. The channel is
// unreferenced while no run is in flight, so an idle launcher never keeps the service alive.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ToolResult } from '../../ports/process-runner.js';
import { spawnTool, type SpawnSpec } from './spawn-tool.js';

/** Service -> launcher. */
export type LauncherRequest = { readonly t: 'run'; readonly id: number; readonly spec: SpawnSpec } | { readonly t: 'kill'; readonly id: number };
/** Launcher -> service. */
export type LauncherReply =
  | { readonly t: 'done'; readonly id: number; readonly result: ToolResult }
  | { readonly t: 'pid'; readonly id: number; readonly pid: number }
  | { readonly t: 'hello'; readonly pid: number };

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

const MAIN = fileURLToPath(new URL('./tool-launcher-main.js', import.meta.url));

interface Pending {
  readonly spec: SpawnSpec;
  readonly signal: AbortSignal | undefined;
  readonly running: Set<() => void> | undefined;
  readonly kill: () => void;
  readonly child: ChildProcess;
  aborted: boolean;
  /** The tool's pid (its process-group id), once the launcher has started it. */
  pid: number | undefined;
  readonly started: number;
  readonly resolve: (r: ToolResult) => void;
  readonly onAbort: () => void;
}

/** Starts tools through a launcher process; see the file comment. */
export class ToolLauncher {
  #child: ChildProcess | null = null;
  #pid: number | undefined;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  /** Launcher processes forked so far (a test reads it). */
  forks = 0;

  /** The launcher's pid, when one is running (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.#pid;
  }

  run(spec: SpawnSpec, signal?: AbortSignal, running?: Set<() => void>): Promise<ToolResult> {
    const child = this.#ensure();
    if (!child) return spawnTool(spec, signal, running);
    const id = this.#nextId++;
    // A view into a larger buffer would be cloned whole: send only its bytes.
    if (spec.stdin && spec.stdin.byteLength !== spec.stdin.buffer.byteLength) spec = { ...spec, stdin: spec.stdin.slice() };
    return new Promise<ToolResult>((resolve) => {
      // Once the launcher has said which process it started, its group is killed from here at once (as a
      // direct start is, so a dispose removes the workspace after the signal, not before); the request to
      // the launcher covers the moment before the pid is known.
      const kill = (): void => {
        killGroup(p.pid);
        if (child.connected) child.send({ t: 'kill', id } satisfies LauncherRequest, () => undefined);
      };
      const p: Pending = {
        spec,
        signal,
        running,
        kill,
        child,
        aborted: false,
        pid: undefined,
        started: performance.now(),
        resolve,
        onAbort: () => {
          p.aborted = true;
          kill();
        },
      };
      this.#pending.set(id, p);
      if (this.#pending.size === 1) this.#ref(child, true);
      running?.add(kill);
      child.send({ t: 'run', id, spec } satisfies LauncherRequest, (err) => {
        if (err) this.#fallback(id);
      });
      if (signal) {
        if (signal.aborted) p.onAbort();
        else signal.addEventListener('abort', p.onAbort, { once: true });
      }
    });
  }

  #ensure(): ChildProcess | null {
    if (this.#child?.connected) return this.#child;
    let child: ChildProcess;
    try {
      // `sh` starts the launcher in the background and exits at once, so the launcher is not this process's
      // child: it is reparented to init (or the nearest subreaper), which reaps it. A conversion thread that
      // is terminated can no longer reap its children (libuv waits only for the children of a live loop), so
      // a launcher forked directly would stay a zombie after every thread recycle. The IPC socket is
      // inherited by the launcher (Node's NODE_CHANNEL_FD), so the channel is the launcher's own; its close is
      // how either side learns that the other is gone.
      // Nothing of the service's flags (--cpu-prof, --inspect, heap sizes) and nothing of its environment:
      // tools get their environment from each request. `--service` names the owner in `ps` (and for benches).
      child = spawn('/bin/sh', ['-c', '"$0" "$@" &', process.execPath, '--max-old-space-size=64', MAIN, `--service=${process.pid}`], {
        env: {},
        serialization: 'advanced',
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
    } catch {
      return null;
    }
    this.forks++;
    this.#child = child;
    this.#pid = undefined;
    child.on('message', (m: LauncherReply) => {
      if (m.t === 'hello') {
        if (this.#child === child) this.#pid = m.pid;
      } else if (m.t === 'pid') {
        const p = this.#pending.get(m.id);
        if (p) p.pid = m.pid;
      } else this.#done(m.id, m.result);
    });
    child.on('error', () => undefined);
    child.on('disconnect', () => {
      if (this.#child === child) {
        this.#child = null;
        this.#pid = undefined;
      }
      for (const [id, p] of this.#pending) if (p.child === child) this.#fallback(id);
    });
    this.#ref(child, false);
    return child;
  }

  #ref(child: ChildProcess, on: boolean): void {
    const channel = (child as unknown as { channel?: { ref(): void; unref(): void } }).channel;
    if (on) {
      child.ref();
      channel?.ref();
    } else {
      child.unref();
      channel?.unref();
    }
  }

  #settle(id: number): Pending | undefined {
    const p = this.#pending.get(id);
    if (!p) return undefined;
    this.#pending.delete(id);
    p.running?.delete(p.kill);
    p.signal?.removeEventListener('abort', p.onAbort);
    if (this.#pending.size === 0 && this.#child === p.child) this.#ref(p.child, false);
    return p;
  }

  #done(id: number, result: ToolResult): void {
    const p = this.#settle(id);
    if (!p) return;
    p.resolve({ ...result, stdout: new Uint8Array(result.stdout.buffer, result.stdout.byteOffset, result.stdout.byteLength), aborted: p.aborted || result.aborted, durationMs: performance.now() - p.started });
  }

  /** The launcher could not take the run or died with it: start it directly (or report it aborted). */
  #fallback(id: number): void {
    const p = this.#settle(id);
    if (!p) return;
    // A tool the dead launcher had started is no longer under anyone's time limit: end it first.
    killGroup(p.pid);
    if (p.aborted || p.signal?.aborted) {
      p.resolve({ exitCode: null, signal: 'SIGKILL', stdout: new Uint8Array(), stderr: '', timedOut: false, aborted: true, outputLimitExceeded: false, spawnFailed: false, durationMs: performance.now() - p.started });
      return;
    }
    void spawnTool(p.spec, p.signal, p.running).then((r) => p.resolve({ ...r, durationMs: performance.now() - p.started }));
  }
}
