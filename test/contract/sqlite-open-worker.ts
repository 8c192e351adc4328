// Worker thread for sqlite-storage.test.ts: waits for the common start signal, then opens (and so
// migrates) the SQLite database file, and reports success or the error.
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import type { MigrationStep } from '../../src/adapters/sql/migrations.js';

/** What the test hands each worker. */
export interface OpenWorkerInput {
  path: string;
  migrations: MigrationStep[];
  /** Int32 slot 0: workers wait while it is 0. */
  gate: SharedArrayBuffer;
}

const input = workerData as OpenWorkerInput;
Atomics.add(new Int32Array(input.gate), 1, 1);
Atomics.wait(new Int32Array(input.gate), 0, 0);
try {
  const storage = openSqliteStorage(input.path, input.migrations);
  await storage.close();
  parentPort!.postMessage('ok');
} catch (e) {
  parentPort!.postMessage(`failed: ${(e as Error).message}`);
}
