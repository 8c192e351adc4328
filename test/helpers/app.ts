// Builds an isolated Lectern app for API tests: a temporary data directory, SQLite, a controllable
// clock, no demo corpus, quiet logs. `account()` creates an account with credits and an API key.
import { test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApp, type App, type AppOverrides } from '../../src/app.js';
import { loadConfig, type ConfigInput } from '../../src/config/index.js';
import type { Clock } from '../../src/ports/clock.js';
import { installResponseContract, type ResponseContract } from './response-contract.js';

export interface TestClock extends Clock {
  advance(ms: number): void;
  set(ms: number): void;
}

export function testClock(startMs = Date.UTC(2026, 10, 1)): TestClock {
  let now = startMs;
  return { nowMs: () => now, advance: (ms) => void (now += ms), set: (ms) => void (now = ms) };
}

export interface TestApp extends App {
  dir: string;
  clock: TestClock;
  /** Every response checked against /openapi.json (test/helpers/response-contract.ts). */
  contract: ResponseContract;
  /** Creates an account and returns its id and API key. */
  account(opts?: { credits?: number; eligible?: boolean; email?: string }): Promise<{ id: number; key: string }>;
  dispose(): Promise<void>;
}

let counter = 0;

export async function testApp(config: Partial<ConfigInput> = {}, overrides: AppOverrides = {}): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-test-'));
  const clock = testClock();
  const cfg = loadConfig({}, { dataDir: dir, loadDemoCorpus: false, logLevel: 'silent', port: 8080, ...config });
  let contract: ResponseContract | null = null;
  const extraRoutes = [(http: FastifyInstance) => void (contract = installResponseContract(http)), ...(overrides.extraRoutes ?? [])];
  const app = await buildApp(cfg, { clock, logger: pino({ level: 'silent' }), ...overrides, extraRoutes });
  if (!contract) throw new Error('the response contract check was not installed');
  const installed: ResponseContract = contract;
  // A request's credits are settled after its response was delivered, and with group commit (ADR 0136)
  // a tick later: an injected request resolves once its settlement is written, so tests read the books
  // as they stand after the request (requests over real sockets: await app.billing.idle()).
  const inject = app.http.inject.bind(app.http) as (opts: unknown) => Promise<unknown>;
  (app.http as unknown as { inject: (opts: unknown) => Promise<unknown> }).inject = async (opts: unknown) => {
    const res = await inject(opts);
    await app.billing.idle();
    return res;
  };
  return Object.assign(app, {
    dir,
    clock,
    contract: installed,
    async account(opts: { credits?: number; eligible?: boolean; email?: string } = {}) {
      const r = await app.accounts.create({ email: opts.email ?? `user${++counter}-${process.pid}@example.org`, credits: opts.credits ?? 1000, eligible: opts.eligible ?? false });
      return { id: r.account.id, key: r.apiKey };
    },
    async dispose() {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
      if (installed.violations.length > 0) throw new Error(`responses that do not match /openapi.json:\n${installed.violations.join('\n')}`);
    },
  });
}

/** Opens a test app on one store and says how to dispose of both. */
export type OpenTestApp = () => Promise<{ app: TestApp; done(): Promise<void> }>;

/**
 * Runs `suite` on a fresh SQLite app, and on a fresh PostgreSQL schema when DATABASE_URL is set (else a
 * skipped test that says `what` on PostgreSQL was skipped). Store modules are imported lazily so that a
 * test of one store does not load the other's driver.
 */
export function onBothStores(what: string, suite: (label: 'SQLite' | 'PostgreSQL', open: OpenTestApp) => void): void {
  suite('SQLite', async () => {
    const app = await testApp();
    return { app, done: () => app.dispose() };
  });
  const url = process.env.DATABASE_URL || undefined;
  if (!url) {
    test(`${what} on PostgreSQL`, { skip: `DATABASE_URL not set: ${what} on PostgreSQL skipped` }, () => {});
    return;
  }
  suite('PostgreSQL', async () => {
    const { createTestSchema } = await import('./storage.js');
    const { openPostgresStorage } = await import('../../src/adapters/postgres/postgres-storage.js');
    const schema = await createTestSchema(url);
    const app = await testApp({}, { storage: await openPostgresStorage(schema.url, { max: 4 }) });
    return {
      app,
      async done() {
        await app.dispose();
        await schema.drop();
      },
    };
  });
}
