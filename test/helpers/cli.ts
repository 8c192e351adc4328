// Runs `lectern ...` (runCli) against a test app (kept open: the CLI's close is a no-op here),
// capturing its output and exit code.
import { runCli, type CliApp } from '../../src/cli/main.js';
import type { TestApp } from './app.js';

/** `out` is the output parsed as JSON (the account, key, credits and comments commands print JSON). */
export async function runCliOn(app: TestApp, args: string[]): Promise<{ code: number; stdout: string; readonly out: any }> {
  const wrapped = Object.assign(Object.create(app) as CliApp, { close: async () => {} });
  const write = process.stdout.write.bind(process.stdout);
  const errWrite = process.stderr.write.bind(process.stderr);
  let stdout = '';
  // Strings are the command's output; bytes are the test runner's own protocol (node --test writes its
  // events to stdout while a long command awaits): passed through, never captured.
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => (typeof chunk === 'string' ? ((stdout += chunk), true) : (write as (...a: unknown[]) => boolean)(chunk, ...rest))) as typeof process.stdout.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    const code = await runCli(args, { loadConfig: () => app.config, openApp: async () => wrapped, serve: async () => {} });
    return { code, stdout, get out() { return stdout ? JSON.parse(stdout) : null; } };
  } finally {
    process.stdout.write = write;
    process.stderr.write = errWrite;
  }
}
