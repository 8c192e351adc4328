// Worker thread for ledger-concurrency.test.ts: opens the SQLite database file on its own connection,
// waits for the common start signal, then debits as fast as it can and reports what happened.
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';

/** What the test hands each worker. */
export interface DebitWorkerInput {
  path: string;
  accountId: number;
  /** Amount of each debit, in order. */
  amounts: number[];
  /** Int32 slot 0: workers wait while it is 0; slot 1 counts workers ready. */
  gate: SharedArrayBuffer;
  worker: number;
}

/** One debit's outcome, as reported back. */
export interface DebitOutcome {
  amount: number;
  ok: boolean;
}

const input = workerData as DebitWorkerInput;
const storage = openSqliteStorage(input.path);
const gate = new Int32Array(input.gate);
Atomics.add(gate, 1, 1);
Atomics.notify(gate, 1);
Atomics.wait(gate, 0, 0);
const outcomes: DebitOutcome[] = [];
for (const [i, amount] of input.amounts.entries()) {
  const r = await storage.ledger.debit(input.accountId, amount, 'search', `worker-${input.worker}-${i}`, 1_700_000_000);
  outcomes.push({ amount, ok: r.ok });
}
await storage.close();
parentPort!.postMessage(outcomes);
