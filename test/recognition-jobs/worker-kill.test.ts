// kill -9 of a recognition worker process on the pg-boss queue (ADR 0250; DATABASE_URL, own schemas): a
// child worker (cluster role worker) submits a document and is killed with SIGKILL in the middle of
// converting it; a worker started afterwards takes the job over once the dead worker's lease has run
// out, completes it and bills it once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { PostgresRecognitionJobStore } from '../../src/adapters/postgres/postgres-recognition-job-store.js';
import { createTestSchema, databaseUrl, postgresSkip, tempDir } from '../helpers/storage.js';
import { repoRoot } from '../helpers/paths.js';
import { waitFor } from '../helpers/wait.js';
import { needs } from '../recognition/helpers/tools.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';

const skip = (await needs('mutool')) || (databaseUrl ? false : postgresSkip('recognition worker kill -9'));
const LEASE = 2;

test('kill -9 of a worker mid-job: another worker takes the job over, completes it and bills it once', { skip, timeout: 600_000 }, async () => {
  const schema = await createTestSchema(databaseUrl!);
  // pg-boss's schema derived from the test schema (`<schema>_pgboss`), dropped with it
  const queueSchema = '';
  const dir = tempDir('lectern-kill-');
  const child = spawn(process.execPath, [join(repoRoot, 'dist/test/recognition-jobs/queue-worker-child.js'), schema.url, String(LEASE)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let app: Awaited<ReturnType<typeof buildApp>> | null = null;
  try {
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const line = await waitFor('the child worker started converting', () => (out.includes('\n') ? out.split('\n')[0] : null), {
      intervalMs: 50,
      failIf: () => (child.exitCode !== null ? `the child exited with ${child.exitCode}` : null),
    });
    const { job, account } = JSON.parse(line!) as { job: string; account: number };
    const store = await openPostgresStorage(schema.url, { max: 2 });
    const jobs = new PostgresRecognitionJobStore(store.pool);
    try {
      const before = (await jobs.get(job))!;
      assert.equal(before.status, 'processing');
      assert.ok(before.worker, 'the child holds the job');
      child.kill('SIGKILL');
      await once(child, 'exit');
      // another worker of the cluster
      const config = loadConfig({}, {
        dataDir: dir.dir,
        databaseUrl: schema.url,
        loadDemoCorpus: false,
        logLevel: 'silent',
        searchThreads: 0,
        cluster: { role: 'worker' },
        recognition: { queue: 'pg-boss', queueSchema, retryDelaySeconds: 1, queuePollMs: 500 },
      } as never);
      app = await buildApp(config, { logger: pino({ level: 'silent' }), recognition: { workers: 1, leaseSeconds: LEASE } });
      await app.recognitions.start();
      const done = (await waitFor('the job completed on the other worker', async () => {
        const j = await jobs.get(job);
        return j && j.status !== 'processing' && j.status !== 'pending' ? j : null;
      }, { intervalMs: 200 }))!;
      assert.equal(done.status, 'completed', JSON.stringify(done.error));
      assert.equal(done.pagesTotal, 4);
      assert.equal(done.chargedCredits, 4);
      const charges = (await store.ledger.entries(account, 20)).filter((e) => e.operation === 'recognition');
      assert.equal(charges.length, 1, 'billed once');
      assert.equal(await store.ledger.balance(account), 96);
      assert.deepEqual(await app.recognitions.deadLetters(10), []);
    } finally {
      await store.close();
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await app?.close();
    await schema.drop();
    dir.remove();
  }
});
