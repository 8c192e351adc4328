// openid-client (a strict third-party OAuth client from the npm registry, installed in test/clients by
// `npm test`) against a running Lectern: discovery, DCR, code + PKCE with state and iss checks,
// refresh, revocation, a confidential client, and the negative cases (missing PKCE, wrong resource,
// reused code, unregistered redirect, unknown client).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../helpers/paths.js';
import { ceiling } from '../helpers/wait.js';

const clients = join(repoRoot, 'test', 'clients');
const installed = existsSync(join(clients, 'node_modules', 'openid-client'));

/** test/clients/lectern.mjs: the one way the client tests start a real Lectern process. */
interface Lectern {
  env(): Record<string, string>;
  stop(): Promise<void>;
}
type StartLectern = (options: { email: string; env: Record<string, string> }) => Promise<Lectern>;

test(
  '[26, 33, 39, 46, 48, 49, 50, 52, 54, 58, 59, 60, 61, 62, 67, 69] openid-client drives strict OAuth against a running Lectern, negative cases included',
  { timeout: ceiling(120_000) },
  async () => {
    // Never skipped: a missing install is a failure (npm test installs test/clients).
    assert.ok(installed, 'test/clients is not installed: run npm test (or npm ci --prefix test/clients)');
    const { startLectern } = (await import(pathToFileURL(join(clients, 'lectern.mjs')).href)) as { startLectern: StartLectern };
    const server = await startLectern({
      email: 'openid-client@example.org',
      env: { LECTERN_RATE_LIMITS_OAUTH_CAPACITY: '100000', LECTERN_RATE_LIMITS_OAUTH_REFILL_PER_SECOND: '10000' },
    });
    try {
      const r = spawnSync(process.execPath, [join(clients, 'openid-client.mjs')], {
        env: { ...process.env, ...server.env() },
        encoding: 'utf8',
        timeout: ceiling(100_000),
      });
      const out = `${r.stdout}${r.stderr}`;
      assert.equal(r.status, 0, out);
      assert.match(out, /# all openid-client checks passed/);
      for (const name of ['missing PKCE', 'wrong resource at authorization', 'reused code', 'unregistered redirect_uri', 'unknown client']) assert.match(out, new RegExp(`ok - negative: [^\\n]*${name}`));
    } finally {
      await server.stop();
    }
  },
);
