// A recognition worker process for worker-kill.test.ts: a Lectern app with the cluster role `worker` on
// the PostgreSQL schema URL in argv[2] (pg-boss's schema derived from it) and the lease in argv[3]. It creates an account, submits a
// document, and once its converter has started (page 1 checkpointed) prints {"job", "account"} and hangs
// in the conversion, to be killed with SIGKILL.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import type { ConvertFn } from '../../src/recognition-jobs/index.js';
import { sampleArticle } from '../recognition/helpers/pdf-builder.js';

const [url, leaseSeconds] = process.argv.slice(2);
let started: () => void = () => {};
const converting = new Promise<void>((r) => (started = r));
const hang = (inner: ConvertFn): ConvertFn => (bytes, options) =>
  inner(bytes, {
    ...options,
    onPage: async (c) => {
      await options.onPage?.(c);
      started();
      await new Promise(() => {}); // killed here
    },
  });
const dataDir = mkdtempSync(join(tmpdir(), 'lectern-kill-child-'));
const config = loadConfig(
  {},
  {
    dataDir,
    databaseUrl: url!,
    loadDemoCorpus: false,
    logLevel: 'silent',
    searchThreads: 0,
    cluster: { role: 'worker' },
    recognition: { queue: 'pg-boss', retryDelaySeconds: 1, queuePollMs: 500 },
  } as never,
);
const app = await buildApp(config, { logger: pino({ level: 'silent' }), recognition: { wrapConvert: hang, workers: 1, leaseSeconds: Number(leaseSeconds) } });
const account = await app.accounts.create({ email: `kill-${process.pid}@example.org`, credits: 100, eligible: false });
const principal = { accountId: account.account.id, credential: 'api_key', credentialId: 'k', scopes: [], clientId: null, isAgent: false, audience: null } as const;
const { job } = await app.recognitions.submit(principal as never, sampleArticle(4));
await converting;
process.stdout.write(`${JSON.stringify({ job: job.id, account: account.account.id })}\n`);
