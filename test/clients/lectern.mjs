// Starts a real Lectern for the third-party client scripts: a temporary data directory, a free
// loopback port, a small corpus (corpus/demo/works.jsonl), one account with credits, and
// LECTERN_AUTO_CONSENT for that account so the browser step of OAuth completes headlessly. The child
// never sees DATABASE_URL or REDIS_URL (it uses its own SQLite store). Needs the compiled app
// (dist/src/main.js: `npx tsc -p tsconfig.json`, done by `npm test`'s pretest).
//
//   const lectern = await startLectern();   // { baseUrl, authUrl, mcpUrl, legacyMcpUrl, email, apiKey, dataDir, stop() }
//   ...
//   await lectern.stop();
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The environment for a child Lectern: no shared PostgreSQL/Redis. */
export function childEnv(extra = {}) {
  const { DATABASE_URL: _d, REDIS_URL: _r, ...rest } = process.env;
  return { ...rest, ...extra };
}

/**
 * @param {{ email?: string, credits?: number, env?: Record<string, string>, log?: (line: string) => void }} [options]
 */
export async function startLectern(options = {}) {
  const main = join(repoRoot, 'dist', 'src', 'main.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'lectern-clients-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const email = options.email ?? 'agent-tests@example.org';
  const env = childEnv({
    LECTERN_DATA_DIR: dataDir,
    LECTERN_LOAD_DEMO_CORPUS: 'false',
    LECTERN_LOG_LEVEL: process.env.LECTERN_CLIENTS_LOG_LEVEL ?? 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    LECTERN_BASE_URL: baseUrl,
    ...options.env,
  });
  const run = (args) => {
    const r = spawnSync(process.execPath, [main, ...args], { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`lectern ${args.join(' ')} failed (${r.status}): ${r.stderr}${r.stdout}`);
    return r.stdout;
  };
  run(['ingest', join(repoRoot, 'corpus', 'demo', 'works.jsonl')]);
  const account = JSON.parse(run(['accounts', 'create', '--email', email, '--credits', String(options.credits ?? 1_000_000)]));

  const child = spawn(process.execPath, [main], { env: { ...env, LECTERN_AUTO_CONSENT: email }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  const keep = (chunk) => {
    const text = chunk.toString();
    output.push(text);
    options.log?.(text);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));

  // a ceiling, not a budget: start-up takes seconds, more on a loaded machine (issue 25)
  const deadline = Date.now() + 600_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Lectern exited during start (${child.exitCode}):\n${output.join('')}`);
    try {
      const r = await fetch(`${baseUrl}/readyz`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`Lectern did not become ready in 600 s:\n${output.join('')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    baseUrl,
    authUrl: baseUrl,
    mcpUrl: `${baseUrl}/mcp`,
    legacyMcpUrl: `${baseUrl}/v2/mcp`,
    email,
    apiKey: account.api_key,
    accountId: account.account_id ?? account.id,
    dataDir,
    pid: child.pid,
    output: () => output.join(''),
    /** The variables the client scripts read. */
    env: () => ({
      LECTERN_BASE_URL: baseUrl,
      LECTERN_AUTH_URL: baseUrl,
      LECTERN_MCP_URL: `${baseUrl}/mcp`,
      LECTERN_LEGACY_MCP_URL: `${baseUrl}/v2/mcp`,
      LECTERN_TEST_EMAIL: email,
      LECTERN_TEST_API_KEY: account.api_key,
    }),
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(t);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
