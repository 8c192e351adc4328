// A Lectern server as its own process, for the tests that kill it (-9), stop it or restart it: a free
// loopback port, `node dist/src/main.js` with the given environment, and a wait until /healthz answers
// (failing at once if the process exits first).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './paths.js';
import { answers200, waitFor } from './wait.js';

export const MAIN = join(repoRoot, 'dist/src/main.js');

/** A TCP port free on 127.0.0.1 at the time of asking (below the ephemeral range: local-cluster.ts). */
import { freePort } from '../../src/adapters/cluster/local-cluster.js';
export { freePort };

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  /** Resolves when the process has exited. */
  exited: Promise<unknown>;
}

/** Starts the server with `env` (PORT is set here) and resolves once it answers /healthz. */
export async function startServerProcess(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], { env: { ...env, PORT: String(port) }, stdio: 'ignore' });
  const exited = new Promise((r) => child.on('exit', r));
  try {
    await waitFor('the server starts', () => answers200(port), { intervalMs: 100, failIf: () => child.exitCode !== null && `it exited with ${child.exitCode}` });
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return { child, port, exited };
}
