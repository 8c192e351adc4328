// The PostgreSQL connection pool and its transaction helper, shared by every PostgreSQL store
// (the core stores here and capabilities' own stores added later).
import { createRequire } from 'node:module';
import type pg from 'pg';
import type { ErrorReporter } from '../../ports/error-reporter.js';

// The driver is loaded when a pool is made, not when a store module is imported: every store factory
// imports its PostgreSQL store, and a process on SQLite never needs the driver (ADR 0302). pg is
// CommonJS, so require() loads it synchronously (the same module instance as `import pg from 'pg'`).
let driver: typeof pg | null = null;
function pgDriver(): typeof pg {
  const require = createRequire(import.meta.url);
  driver ??= require('pg') as typeof pg;
  return driver;
}

/** PostgreSQL type OID of BIGINT (int8); COUNT(*) returns it too. */
const INT8_OID = 20;

// pg returns BIGINT as a string, because it may exceed 2^53. Every BIGINT we store (ids, balances,
// seconds, sequence numbers) fits in a double, so we parse it to a number and fail loudly on the day
// one does not rather than lose precision. Per-pool overrides leave the process-wide pg.types alone.
function typeOverrides(): pg.TypeOverrides {
  const types = new (pgDriver().TypeOverrides)();
  types.setTypeParser(INT8_OID, (text: string) => {
    const n = Number(text);
    if (!Number.isSafeInteger(n)) throw new RangeError(`BIGINT ${text} is outside the safe integer range`);
    return n;
  });
  return types;
}

/** Options of a Lectern PostgreSQL pool. */
export interface PostgresPoolOptions {
  /** Most connections held open (default 10). */
  max?: number;
  /** Where errors of idle connections go (a server restart, a dropped socket); ignored by default. */
  onIdleError?: ErrorReporter;
}

/**
 * A pool for `url` (a libpq-style URL; `?options=-c%20search_path%3Dmy_schema` picks a schema)
 * that returns BIGINT columns as numbers.
 */
export function createPostgresPool(url: string, options: PostgresPoolOptions = {}): pg.Pool {
  const pool = new (pgDriver().Pool)({ connectionString: url, max: options.max ?? 10, types: typeOverrides() });
  // Without a listener an idle connection's error would crash the process; the pool has already
  // dropped the connection, so reporting it is all there is to do.
  pool.on('error', (err) => options.onIdleError?.(err, 'postgres idle connection'));
  return pool;
}

/** A connection inside a transaction (`query` only; BEGIN/COMMIT belong to withTransaction). */
export type Tx = Pick<pg.PoolClient, 'query'>;

/**
 * Runs `fn` in one transaction on one pooled connection: COMMIT when it resolves, ROLLBACK when it
 * throws (then rethrows). A connection whose ROLLBACK fails is destroyed, not returned to the pool.
 */
export async function withTransaction<T>(pool: pg.Pool, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (e) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      broken = rollbackError as Error;
    }
    throw e;
  } finally {
    client.release(broken);
  }
}

/** SQLSTATE of a PostgreSQL error, if it is one (`23505` unique violation, ...). */
export const sqlState = (e: unknown): string | undefined =>
  typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string' ? (e as { code: string }).code : undefined;
