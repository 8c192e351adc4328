// A real Lectern process for third-party clients: a temp data directory, a free port, SQLite and the
// in-process rate limiter (never CI's PostgreSQL or Redis), test-only automatic consent for one
// account created through the CLI beforehand.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface LecternProcess {
  base: string;
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts `node dist/src/main.js` with automatic consent for `email` (created with credits). */
export async function startLectern(email: string, extraEnv: Record<string, string> = {}): Promise<LecternProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-clients-'));
  const port = await freePort();
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...rest } = process.env;
  const env: Record<string, string> = {
    ...(rest as Record<string, string>),
    LECTERN_DATA_DIR: dir,
    PORT: String(port),
    LECTERN_LOAD_DEMO_CORPUS: 'false',
    LECTERN_LOG_LEVEL: 'warn',
    LECTERN_AUTO_CONSENT: email,
    LECTERN_RATE_LIMITS_OAUTH_CAPACITY: '100000',
    LECTERN_RATE_LIMITS_OAUTH_REFILL_PER_SECOND: '10000',
    ...extraEnv,
  };
  const main = join(repoRoot, 'dist/src/main.js');
  const created = spawnSync(process.execPath, [main, 'accounts', 'create', '--email', email, '--credits', '100000'], { env, encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`accounts create failed: ${created.stderr}`);
  const child: ChildProcess = spawn(process.execPath, [main], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += String(c)));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      // not up yet
    }
    if (i > 150 || child.exitCode !== null) throw new Error(`Lectern did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    env,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
