// Issue 12, "charges that outlive their response": credits are held before the work, captured when
// the response has been delivered, released when the client went away or the process died (ADR 0078).
// Against a real server process (SQLite, and PostgreSQL when DATABASE_URL is set), reconciled by
// request id (X-Request-Id is the ledger reference):
//   - a storm of clients that stop reading a large response and hang up, mixed with clients that
//     read their answers: the first are never charged, every response a client received is charged
//     exactly once, nothing twice, and no hold is left behind;
//   - kill -9 in the middle of a search storm, then a restart: no request the client did not receive
//     is charged, nothing twice, the held credits of the dead process are released, and the ledger
//     sums to the balance.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request, Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv } from '../helpers/paths.js';
import { MAIN, startServerProcess } from '../helpers/server-process.js';
import { createTestSchema, databaseUrl, postgresSkip } from '../helpers/storage.js';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import type { Storage } from '../../src/ports/storage.js';
import { ceiling, CEILING_MS, waitFor } from '../helpers/wait.js';

const SEARCH_PRICE = 10;
const PER_HIT = 1;
const START_CREDITS = 1_000_000;

interface Harness {
  env: NodeJS.ProcessEnv;
  key: string;
  accountId: number;
  openStorage(): Promise<Storage>;
  dispose(): Promise<void>;
}

/** A data directory (and PostgreSQL schema) with a small corpus, one big document and a funded account. */
async function prepare(kind: 'sqlite' | 'postgres'): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-billing-'));
  const schema = kind === 'postgres' ? await createTestSchema(databaseUrl!) : null;
  const env: NodeJS.ProcessEnv = {
    ...childEnv(),
    LECTERN_DATA_DIR: dir,
    LECTERN_LOAD_DEMO_CORPUS: 'false',
    LECTERN_LOG_LEVEL: 'silent',
    LECTERN_BILLING_HOLD_HEARTBEAT_MS: '100',
    LECTERN_BILLING_HOLD_STALE_MS: '600',
    LECTERN_RATE_LIMITS_SEARCH_CAPACITY: '1000000',
    LECTERN_RATE_LIMITS_SEARCH_REFILL_PER_SECOND: '1000000',
    LECTERN_RATE_LIMITS_DOCUMENTS_CAPACITY: '1000000',
    LECTERN_RATE_LIMITS_DOCUMENTS_REFILL_PER_SECOND: '1000000',
    ...(schema ? { DATABASE_URL: schema.url } : {}),
  };
  const other = ['alpha', 'beta', 'gamma'];
  const words = ['protein', 'folding', 'membrane', 'kinase', 'signal', 'enzyme', 'receptor', 'binding', 'cell', 'growth'];
  const lines = Array.from({ length: 60 }, (_, i) =>
    JSON.stringify({ id: `d${i}`, title: `${words[i % 10]} ${words[(i * 3) % 10]} study ${i}`, abstract: `On ${words[(i * 7) % 10]} and ${words[i % 10]} in model ${i}.` }),
  );
  // Large enough that a client that stops reading leaves the server unable to finish writing.
  const big = Array.from({ length: 1_000_000 }, (_, i) => other[i % 3]).join(' ');
  lines.push(JSON.stringify({ id: 'big', title: 'A very long treatise', abstract: 'Long.', full_text: big }));
  writeFileSync(join(dir, 'corpus.jsonl'), lines.join('\n') + '\n');
  const ing = spawnSync(process.execPath, [MAIN, 'ingest', join(dir, 'corpus.jsonl')], { env, encoding: 'utf8' });
  assert.equal(ing.status, 0, ing.stderr);
  const acct = spawnSync(process.execPath, [MAIN, 'accounts', 'create', '--email', 'payer@example.org', '--credits', String(START_CREDITS)], { env, encoding: 'utf8' });
  assert.equal(acct.status, 0, acct.stderr);
  const created = JSON.parse(acct.stdout) as { api_key: string; account_id?: number; id?: number; account?: { id: number } };
  const accountId = created.account_id ?? created.id ?? created.account!.id;
  return {
    env,
    key: created.api_key,
    accountId,
    openStorage: async () => (schema ? openPostgresStorage(schema.url) : openSqliteStorage(join(dir, 'lectern.db'))),
    async dispose() {
      rmSync(dir, { recursive: true, force: true });
      await schema?.drop();
    },
  };
}

const startServer = (h: Harness) => startServerProcess(h.env);

type Outcome = { id: string; received: boolean; status: number | null; cost: number | null };

/** One search; `abortAfterMs` hangs up that long after sending (the response may or may not have arrived). */
function searchOnce(port: number, key: string, id: string, agent: Agent | undefined, abortAfterMs: number | null): Promise<Outcome> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (o: Outcome) => {
      if (!done) {
        done = true;
        resolve(o);
      }
    };
    const body = JSON.stringify({ query: 'protein kinase binding', limit: 5 });
    const req = request(
      { port, method: 'POST', path: '/v2/search/', agent, headers: { 'x-api-key': key, 'content-type': 'application/json', 'x-request-id': id } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          let cost: number | null = null;
          if (res.statusCode === 200) cost = SEARCH_PRICE + PER_HIT * (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { hits: unknown[] }).hits.length;
          finish({ id, received: true, status: res.statusCode ?? null, cost });
        });
        res.on('error', () => finish({ id, received: false, status: res.statusCode ?? null, cost: null }));
        res.on('aborted', () => finish({ id, received: false, status: res.statusCode ?? null, cost: null }));
      },
    );
    req.on('error', () => finish({ id, received: false, status: null, cost: null }));
    req.end(body);
    if (abortAfterMs !== null) {
      setTimeout(() => {
        if (!done) {
          req.destroy();
          finish({ id, received: false, status: null, cost: null });
        }
      }, abortAfterMs);
    }
  });
}

/** Fetches the long document, reads its first bytes, stops reading and hangs up `afterMs` later. */
function fetchAndHangUp(port: number, key: string, id: string, afterMs: number): Promise<void> {
  return new Promise((resolve) => {
    const req = request({ port, path: '/v2/documents/big', headers: { 'x-api-key': key, 'x-request-id': id } }, (res) => {
      assert.equal(res.statusCode, 200);
      res.pause();
      setTimeout(() => {
        req.destroy();
        resolve();
      }, afterMs);
    });
    req.on('error', () => resolve());
    req.end();
  });
}

/** Ledger entries of the account by reference; waits until no credits are held (all holds settled). */
async function settledLedger(h: Harness, waitMs = CEILING_MS): Promise<{ byRef: Map<string, number[]>; storage: Storage }> {
  const storage = await h.openStorage();
  const until = Date.now() + waitMs;
  while ((await storage.ledger.held(h.accountId)) !== 0) {
    if (Date.now() > until) assert.fail(`credits still held after ${waitMs} ms: ${await storage.ledger.held(h.accountId)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const byRef = new Map<string, number[]>();
  for (const e of await storage.ledger.entries(h.accountId, 1_000_000)) {
    if (e.reference === null || e.amount >= 0) continue;
    byRef.set(e.reference, [...(byRef.get(e.reference) ?? []), -e.amount]);
  }
  return { byRef, storage };
}

/**
 * Once every hold is settled: `check` the ledger's debits by request id, then that no request was
 * charged twice, no credits stay held and the ledger sums to the balance.
 */
async function reconcile(h: Harness, check: (byRef: Map<string, number[]>) => void): Promise<void> {
  const { byRef, storage } = await settledLedger(h);
  try {
    check(byRef);
    for (const [ref, amounts] of byRef) assert.equal(amounts.length, 1, `${ref} charged ${amounts.length} times`);
    await assertBalanced(storage, h.accountId);
  } finally {
    await storage.close();
  }
}

async function assertBalanced(storage: Storage, accountId: number): Promise<void> {
  assert.equal(await storage.ledger.held(accountId), 0, 'no credits left held');
  const balance = await storage.ledger.balance(accountId);
  assert.ok(balance >= 0);
  assert.equal(await storage.ledger.entrySum(accountId), balance, 'the ledger sums to the balance');
}

function scenarios(kind: 'sqlite' | 'postgres') {
  test('client-abort storm: clients that hang up before a response is complete are never charged; those that read it are charged once', { timeout: ceiling(180_000) }, async () => {
    const h = await prepare(kind);
    const server = await startServer(h);
    try {
      // Half the clients fetch the very long document (6 MB: more than the socket buffers between
      // them and the server hold), read its first bytes, stop reading and hang up 5-20 ms later: the
      // server cannot have handed that response over. The other half search and read the answer.
      const outcomes: { id: string; abandoned: boolean; received: boolean; cost: number | null }[] = [];
      const N = 60;
      const PARALLEL = 6;
      for (let batch = 0; batch < N / PARALLEL; batch++) {
        outcomes.push(
          ...(await Promise.all(
            Array.from({ length: PARALLEL }, async (_, i) => {
              const k = batch * PARALLEL + i;
              if (k % 2 === 0) {
                const id = `abandon-request-${k}`;
                await fetchAndHangUp(server.port, h.key, id, 5 + (k % 16));
                return { id, abandoned: true, received: false, cost: null };
              }
              const o = await searchOnce(server.port, h.key, `wait-request-${k}`, undefined, null);
              assert.equal(o.status, 200);
              return { id: o.id, abandoned: false, received: o.received, cost: o.cost };
            }),
          )),
        );
      }
      await reconcile(h, (byRef) => {
        for (const o of outcomes) {
          if (o.abandoned) assert.equal(byRef.get(o.id), undefined, `${o.id}: the client hung up before the response was complete and was charged`);
          else assert.deepEqual(byRef.get(o.id), [o.cost], `${o.id}: a received response is charged once, its price`);
        }
      });
    } finally {
      server.child.kill('SIGKILL');
      await server.exited;
      await h.dispose();
    }
  });

  test('kill -9 during a search storm: no undelivered request charged, none twice, holds released after restart', { timeout: ceiling(180_000) }, async () => {
    const h = await prepare(kind);
    let server = await startServer(h);
    try {
      const outcomes: Outcome[] = [];
      let stop = false;
      let n = 0;
      const agent = new Agent({ keepAlive: true, maxSockets: 8 });
      const loops = Array.from({ length: 8 }, async () => {
        while (!stop) {
          const o = await searchOnce(server.port, h.key, `storm-request-${n++}`, agent, null);
          outcomes.push(o);
          if (!o.received) break; // the server is gone
        }
      });
      // kill once the storm is going (a count of answers, not a time: the machine's load varies)
      const killed = server;
      await waitFor('the storm gets going', () => outcomes.filter((o) => o.received && o.status === 200).length > 20, { failIf: () => killed.child.exitCode !== null && 'the server exited' });
      server.child.kill('SIGKILL');
      await server.exited;
      stop = true;
      await Promise.all(loops);
      agent.destroy();
      const received = outcomes.filter((o) => o.received && o.status === 200);
      const lost = outcomes.filter((o) => !o.received);
      assert.ok(received.length > 10, `the storm got going (${received.length} responses)`);
      assert.ok(lost.length > 0, 'some requests were in flight at the kill');

      server = await startServer(h); // its start-up sweep (and heartbeat) releases the dead process's holds
      await reconcile(h, (byRef) => {
        for (const o of lost) assert.equal(byRef.get(o.id), undefined, `${o.id} was never delivered and must not be charged`);
        const uncharged = received.filter((o) => byRef.get(o.id)?.[0] !== o.cost);
        // A response handed over in the instant before the kill, whose capture had not committed, is
        // the one case that favours the customer (docs/billing.md); at most one per client in flight.
        assert.ok(uncharged.length <= 8, `${uncharged.length} received responses uncharged: ${uncharged.map((o) => o.id).join(', ')}`);
      });
    } finally {
      server.child.kill('SIGKILL');
      await server.exited;
      await h.dispose();
    }
  });
}

describe('billing tied to delivery (SQLite)', () => scenarios('sqlite'));
describe('billing tied to delivery (PostgreSQL)', { skip: databaseUrl ? false : postgresSkip('billing delivery suite') }, () => scenarios('postgres'));
