// API-key lookups are cached and never stale (ADR 0185): a key revoked by another process
// (`lectern keys revoke`, a real child process) or another connection fails on the very next request,
// on SQLite (PRAGMA data_version) and PostgreSQL (LISTEN/NOTIFY from a trigger). The cached record is
// still checked like a fresh one: the presented key's hash compared in constant time.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import type { Storage } from '../../src/ports/storage.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { childEnv, repoRoot } from '../helpers/paths.js';
import { createTestSchema, databaseUrl, postgresSkip } from '../helpers/storage.js';

const keyId = (key: string) => key.split('_')[1]!;

/** The status of an authenticated read of a missing document: 404 when the key is accepted, 401 when not. */
async function status(app: TestApp, key: string): Promise<number> {
  const res = await app.http.inject({ method: 'GET', url: '/v2/documents/nope', headers: { 'x-api-key': key } });
  return res.statusCode;
}

/** The suite, over an app on the store and a way to open a second connection to the same store. */
function suite(label: string, open: () => Promise<{ app: TestApp; other: () => Promise<Storage>; cliEnv: NodeJS.ProcessEnv; dispose(): Promise<void> }>) {
  describe(`API-key cache: ${label}`, () => {
    let h: Awaited<ReturnType<typeof open>>;
    before(async () => {
      h = await open();
    });
    after(() => h.dispose());

    test('a key revoked through another connection fails on the very next request', async () => {
      const { key } = await h.app.account();
      for (let i = 0; i < 3; i++) assert.equal(await status(h.app, key), 404, 'accepted (and cached)');
      const other = await h.other();
      try {
        assert.equal(await other.apiKeys.revoke(keyId(key), 1), true);
      } finally {
        await other.close();
      }
      assert.equal(await status(h.app, key), 401);
      assert.equal(await status(h.app, key), 401);
    });

    test('a key revoked by `lectern keys revoke` in another process fails on the very next request', async () => {
      const { key } = await h.app.account();
      const keep = await h.app.account();
      assert.equal(await status(h.app, key), 404);
      assert.equal(await status(h.app, keep.key), 404);
      // a real process; this one (the server) keeps serving meanwhile, as a server does
      const r = await promisify(execFile)(process.execPath, [join(repoRoot, 'bin/lectern.mjs'), 'keys', 'revoke', keyId(key)], { env: h.cliEnv, encoding: 'utf8' });
      assert.deepEqual(JSON.parse(r.stdout), { revoked: true });
      assert.equal(await status(h.app, key), 401);
      assert.equal(await status(h.app, keep.key), 404, 'other keys still work (looked up again)');
    });

    test('a key revoked in this process fails at once; a cached key with a wrong secret is refused', async () => {
      const { key } = await h.app.account();
      assert.equal(await status(h.app, key), 404);
      const forged = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
      assert.equal(await status(h.app, forged), 401, 'same id, other secret: the hash is compared');
      assert.equal(await h.app.apiKeys.revoke(key), true);
      assert.equal(await status(h.app, key), 401);
    });
  });
}

suite('SQLite', async () => {
  const app = await testApp();
  const env = { ...childEnv(), LECTERN_DATA_DIR: app.dir, LECTERN_LOAD_DEMO_CORPUS: 'false', LECTERN_LOG_LEVEL: 'silent' };
  return {
    app,
    other: async () => openSqliteStorage(join(app.dir, 'lectern.db')),
    cliEnv: env,
    dispose: () => app.dispose(),
  };
});

if (!databaseUrl) {
  test('API-key cache: PostgreSQL', { skip: postgresSkip() }, () => {});
} else {
  const url = databaseUrl;
  suite('PostgreSQL', async () => {
    const schema = await createTestSchema(url);
    const app = await testApp({}, { storage: await openPostgresStorage(schema.url, { max: 4 }) });
    const env = { ...childEnv(), LECTERN_DATA_DIR: app.dir, LECTERN_LOAD_DEMO_CORPUS: 'false', LECTERN_LOG_LEVEL: 'silent', DATABASE_URL: schema.url };
    return {
      app,
      other: () => openPostgresStorage(schema.url, { max: 2 }),
      cliEnv: env,
      async dispose() {
        await app.dispose();
        await schema.drop();
      },
    };
  });
}
