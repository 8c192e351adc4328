// ProcessRunner on the local machine: allow-listed programs run with `execFile` semantics (no shell),
// in a private temporary directory, with a minimal environment, a wall-clock limit, an output cap and
// an optional address-space cap and a CPU-time backstop (through util-linux `prlimit`, which is always
// present on Debian).
// Owns spawning and temp files; knows nothing of document formats.
import { mkdtemp, readFile, readdir, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProcessRunner, ToolProbe, ToolResult, ToolRun, Workspace } from '../../ports/process-runner.js';
import { spawnTool, type SpawnSpec } from './spawn-tool.js';
import { ToolLauncher } from './tool-launcher.js';

/** Options of {@link LocalProcessRunner}. */
export interface LocalProcessRunnerOptions {
  /** Programs that may run (default: the recognition tools listed in `DEFAULT_TOOLS`). */
  readonly tools?: readonly string[];
  /** PATH given to children (default `/usr/local/bin:/usr/bin:/bin`); the service's own env is never passed on. */
  readonly searchPath?: string;
  /** Parent directory of workspaces (default: the OS temp directory). */
  readonly tempRoot?: string;
  /** Default address-space cap per child in bytes (default 4 GiB; 0 disables). */
  readonly maxMemoryBytes?: number;
  /**
   * Start tools through a small long-lived launcher process instead of forking the service (default true;
   * ADR 0361). A fork copies the page tables of the whole service process and the starting thread waits
   * for it: its cost grows with the service's resident memory; the launcher's stays that of a small process.
   */
  readonly launcher?: boolean;
}

/** The programs the recognition converter uses (see scripts/system-packages.txt). */
export const DEFAULT_TOOLS: readonly string[] = [
  'mutool',
  'tesseract',
  'djvused',
  'djvutxt',
  'djvudump',
  'ddjvu',
  'pdftotext',
];

const NAME_RE = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;
const DEFAULT_STDOUT_CAP = 64 * 1024 * 1024;

/** How each tool reports its version (argument list); the first non-empty line of stdout+stderr is kept. */
const VERSION_ARGS: Record<string, string[]> = {
  mutool: ['-v'],
  tesseract: ['--version'],
  pdftotext: ['-v'],
  // djvulibre tools have no version flag; their usage text names the package version on its first line.
  djvused: [],
  djvutxt: [],
  djvudump: [],
  ddjvu: ['--help'],
  prlimit: ['--version'],
};

/**
 * The kernel's CPU-time cap (RLIMIT_CPU, seconds) for a tool run with wall-clock limit `timeoutMs`: a
 * backstop only, never the limit a healthy run meets first. A tool may keep every core busy (tesseract's
 * threads), so the cap is the wall-clock limit times the cores plus 5 s: a tool left without its starter is
 * killed (SIGXCPU, then SIGKILL a second later) once it has burnt that much CPU. A tool that waits without
 * using CPU is not bounded by it (it costs nothing but its process).
 */
export function cpuSecondsFor(timeoutMs: number): number {
  const wall = Number.isFinite(timeoutMs) && timeoutMs > 0 ? Math.ceil(timeoutMs / 1000) : 3600;
  return wall * Math.max(1, availableParallelism()) + 5;
}

function checkName(name: string): void {
  if (!NAME_RE.test(name) || name.includes('..')) throw new Error(`invalid workspace file name: ${JSON.stringify(name)}`);
}

/** Runs allow-listed programs as separate processes (AGPL/GPL tools stay out of the service process). */
export class LocalProcessRunner implements ProcessRunner {
  readonly #tools: Set<string>;
  readonly #path: string;
  readonly #tempRoot: string;
  readonly #maxMemory: number;
  readonly #probes = new Map<string, Promise<ToolProbe | null>>();
  #prlimit: Promise<boolean> | undefined;
  readonly #launcher: ToolLauncher | null;

  constructor(options: LocalProcessRunnerOptions = {}) {
    this.#tools = new Set(options.tools ?? DEFAULT_TOOLS);
    this.#path = options.searchPath ?? '/usr/local/bin:/usr/bin:/bin';
    this.#tempRoot = options.tempRoot ?? tmpdir();
    this.#maxMemory = options.maxMemoryBytes ?? 4 * 1024 ** 3;
    this.#launcher = (options.launcher ?? true) ? new ToolLauncher() : null;
  }

  /** The tool launcher's pid while one runs (diagnostics, tests, the spawn-cost bench). */
  get launcherPid(): number | undefined {
    return this.#launcher?.pid;
  }

  /** Launcher processes forked so far (0 when starts are direct). */
  get launcherForks(): number {
    return this.#launcher?.forks ?? 0;
  }

  async createWorkspace(): Promise<Workspace> {
    const dir = await mkdtemp(join(this.#tempRoot, 'lectern-rec-'));
    return new LocalWorkspace(dir, this);
  }

  probe(tool: string): Promise<ToolProbe | null> {
    let p = this.#probes.get(tool);
    if (!p) {
      p = this.#doProbe(tool);
      this.#probes.set(tool, p);
    }
    return p;
  }

  async #doProbe(tool: string): Promise<ToolProbe | null> {
    if (!this.#tools.has(tool)) return null;
    const r = await this.exec(tool, VERSION_ARGS[tool] ?? ['--version'], { timeoutMs: 5000 }, undefined, true);
    if (r.spawnFailed) return null;
    const text = `${Buffer.from(r.stdout).toString('utf8')}\n${r.stderr}`;
    const line = text.split('\n').map((l) => l.trim()).find((l) => l.length > 0) ?? '';
    return { tool, version: line.slice(0, 200) };
  }

  async #hasPrlimit(): Promise<boolean> {
    this.#prlimit ??= this.exec('prlimit', ['--version'], { timeoutMs: 5000 }, undefined, true).then((r) => !r.spawnFailed && r.exitCode === 0);
    return this.#prlimit;
  }

  /** @internal Spawns one process; used by workspaces and probes. */
  async exec(
    tool: string,
    args: readonly string[],
    run: Omit<ToolRun, 'tool' | 'args'>,
    cwd: string | undefined,
    internal = false,
    running?: Set<() => void>,
  ): Promise<ToolResult> {
    if (!internal && !this.#tools.has(tool)) throw new Error(`tool not allowed: ${tool}`);
    const memory = run.maxMemoryBytes ?? this.#maxMemory;
    let file = tool;
    let argv = [...args];
    if (!internal && (await this.#hasPrlimit())) {
      // prlimit execs the tool in place, so the caps apply to it alone (util-linux prlimit(1)). Besides the
      // address space, a CPU-time cap the kernel enforces (ADR 0361's gap): the wall-clock limit is kept by
      // whoever started the tool (this thread or the launcher), and a tool whose starter died before its
      // pid was known could otherwise burn CPU forever. See cpuSecondsFor.
      file = 'prlimit';
      const cpu = cpuSecondsFor(run.timeoutMs);
      argv = [...(memory > 0 ? [`--as=${memory}`] : []), `--cpu=${cpu}:${cpu + 1}`, '--core=0', '--', tool, ...args];
    }
    const env: Record<string, string> = { PATH: this.#path, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', ...(run.env ?? {}) };
    if (cwd) env.HOME = cwd;
    const spec: SpawnSpec = {
      file,
      argv,
      cwd: cwd ?? this.#tempRoot,
      env,
      ...(run.stdin ? { stdin: run.stdin } : {}),
      timeoutMs: run.timeoutMs,
      maxStdoutBytes: run.maxStdoutBytes ?? DEFAULT_STDOUT_CAP,
    };
    // Probes (cached, a handful per process) start directly; tool runs go through the launcher when on.
    const r = await (this.#launcher && !internal ? this.#launcher.run(spec, run.signal, running) : spawnTool(spec, run.signal, running));
    // A tool prlimit could not exec is a failed start, as it is without prlimit (util-linux exits 126/127
    // with "prlimit: failed to execute TOOL: ..." on stderr).
    if (file === 'prlimit' && (r.exitCode === 127 || r.exitCode === 126) && r.stderr.startsWith('prlimit: failed to execute ')) return { ...r, spawnFailed: true };
    return r;
  }
}

class LocalWorkspace implements Workspace {
  #disposed = false;
  /** Kill functions of the processes still running in this workspace. */
  readonly #running = new Set<() => void>();
  constructor(
    readonly dir: string,
    readonly runner: LocalProcessRunner,
  ) {}

  async writeFile(name: string, bytes: Uint8Array): Promise<void> {
    checkName(name);
    await writeFile(join(this.dir, name), bytes);
  }

  async readFile(name: string, maxBytes?: number): Promise<Uint8Array | null> {
    checkName(name);
    try {
      if (maxBytes !== undefined && (await stat(join(this.dir, name))).size > maxBytes) return null;
      const b = await readFile(join(this.dir, name));
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    } catch {
      return null;
    }
  }

  async list(): Promise<string[]> {
    return (await readdir(this.dir)).sort();
  }

  async remove(name: string): Promise<void> {
    checkName(name);
    // A file is unlinked directly: `rm` walks it as a tree (lstat, then unlink, with retries), which cost
    // the conversion thread more than the unlink itself for every text-layer and trace file (ADR 0357).
    // Anything else (a directory) goes through `rm` as before; a missing file is no error either way.
    try {
      await unlink(join(this.dir, name));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      await rm(join(this.dir, name), { force: true });
    }
  }

  async run(run: ToolRun): Promise<ToolResult> {
    if (this.#disposed) throw new Error('workspace disposed');
    return this.runner.exec(run.tool, run.args, run, this.dir, false, this.#running);
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    // Tools still running (a speculative extraction, a cancelled page) are killed before their files go.
    for (const kill of this.#running) kill();
    // Its files are unlinked and the folder removed directly: `rm` walks the tree in JavaScript (an lstat
    // per entry, retries), which was about 1% of a text-layer conversion's CPU (ADR 0377). Anything else
    // (a sub-folder, a file a killed tool wrote meanwhile) goes through `rm` as before.
    try {
      const names = await readdir(this.dir);
      await Promise.all(names.map((n) => unlink(join(this.dir, n))));
      await rmdir(this.dir);
    } catch {
      await rm(this.dir, { recursive: true, force: true });
    }
  }
}
