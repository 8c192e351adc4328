// Port: run a named external program inside a private scratch workspace.
// Owns the shape of a tool run (arguments, input files, limits, produced files); does not know which
// tools exist or how their output is read (that is the recognition capability's business).
// Implemented by `src/adapters/process/` (the only code that spawns processes or touches temp files).

/** One external program run. File arguments are plain names inside the workspace (no `/`, no `..`). */
export interface ToolRun {
  /** Program name from the runner's allow-list, e.g. `mutool`, `tesseract`, `djvused`. */
  readonly tool: string;
  /** Arguments, passed without a shell (no globbing, no quoting issues). */
  readonly args: readonly string[];
  /** Bytes written to the program's standard input; none by default (stdin is closed). */
  readonly stdin?: Uint8Array;
  /** Wall-clock limit in milliseconds; the process (and its children) is killed with SIGKILL after it. */
  readonly timeoutMs: number;
  /** Standard output cap in bytes; exceeding it kills the process and sets `outputLimitExceeded`. Default 64 MiB. */
  readonly maxStdoutBytes?: number;
  /** Address-space cap in bytes for the child (applied with `prlimit` when available). Default: the runner's. */
  readonly maxMemoryBytes?: number;
  /** Extra environment variables (e.g. `OMP_THREAD_LIMIT=1` for tesseract). The base environment is minimal. */
  readonly env?: Readonly<Record<string, string>>;
  /** Aborting kills the process; the run resolves with `aborted: true`. */
  readonly signal?: AbortSignal;
}

/** What a tool run produced. A run never rejects for the program's own failures; it reports them here. */
export interface ToolResult {
  /** Exit code, or null when the process was killed by a signal. */
  readonly exitCode: number | null;
  /** The signal that ended the process (e.g. `SIGKILL`), or null. */
  readonly signal: string | null;
  readonly stdout: Uint8Array;
  /** Standard error as UTF-8 text, truncated to 64 KiB. */
  readonly stderr: string;
  /** True when `timeoutMs` elapsed and the process was killed. */
  readonly timedOut: boolean;
  /** True when the run was cancelled through `signal`. */
  readonly aborted: boolean;
  /** True when stdout exceeded `maxStdoutBytes`. */
  readonly outputLimitExceeded: boolean;
  /** True when the program could not be started at all (not installed, not executable). */
  readonly spawnFailed: boolean;
  /** Wall-clock duration in milliseconds. */
  readonly durationMs: number;
}

/** A private scratch directory for one conversion; removed by `dispose()`. */
export interface Workspace {
  /** Writes a file (name: `[A-Za-z0-9._-]+`, not starting with `-` or `.`). */
  writeFile(name: string, bytes: Uint8Array): Promise<void>;
  /** Reads a file a tool produced; resolves to null when it does not exist or is larger than `maxBytes` (default: no cap). */
  readFile(name: string, maxBytes?: number): Promise<Uint8Array | null>;
  /** Names of the files in the workspace, sorted. */
  list(): Promise<string[]>;
  /** Removes a file if present. */
  remove(name: string): Promise<void>;
  /** Runs a tool with the workspace as its working directory. */
  run(run: ToolRun): Promise<ToolResult>;
  /** Kills tools still running in it, then removes the workspace and everything in it. Safe to call twice. */
  dispose(): Promise<void>;
}

/** Runs allow-listed external programs. */
export interface ProcessRunner {
  /** Creates a fresh, empty workspace. */
  createWorkspace(): Promise<Workspace>;
  /**
   * Whether a tool is installed and runnable, with its version line when it prints one
   * (`null` when missing). Cached by the implementation.
   */
  probe(tool: string): Promise<ToolProbe | null>;
}

/** An installed tool. */
export interface ToolProbe {
  readonly tool: string;
  /** First version line the tool printed, e.g. `mutool version 1.21.1`; empty when unknown. */
  readonly version: string;
}
