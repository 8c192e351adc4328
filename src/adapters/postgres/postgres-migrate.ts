// Applies pending migration steps to a PostgreSQL schema at open.
import type pg from 'pg';
import { pendingMigrations } from '../sql/migration-plan.js';
import type { MigrationStep } from '../sql/migrations.js';

// First key of the two-key advisory lock: an arbitrary constant naming "Lectern migrations", so the
// lock cannot collide with other applications' advisory locks in the same database.
const MIGRATION_LOCK_NAMESPACE = 0x1ec7e4;

/**
 * Applies the steps not yet recorded in `schema_migrations`, each in its own transaction, in list order.
 * A session-level advisory lock keyed by the current schema is held throughout, so two processes
 * opening the same database at once (two service instances, the CLI beside the server) never both
 * apply a step: the second waits, then finds the step recorded.
 */
export async function migratePostgres(pool: pg.Pool, steps: readonly MigrationStep[]): Promise<void> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // hashtext() of the schema name: one lock per schema, so test schemas migrate in parallel.
  // COALESCE because current_schema() is NULL when no schema on search_path exists, and the lock
  // functions are strict (a NULL key would silently lock nothing).
  const lockKey = "hashtext(COALESCE(current_schema(), ''))";
  try {
    await client.query(`SELECT pg_advisory_lock($1, ${lockKey})`, [MIGRATION_LOCK_NAMESPACE]);
    try {
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)');
      const applied = new Set((await client.query<{ id: string }>('SELECT id FROM schema_migrations')).rows.map((r) => r.id));
      for (const step of pendingMigrations(steps, applied)) {
        await client.query('BEGIN');
        try {
          await client.query(step.postgres);
          await client.query('INSERT INTO schema_migrations (id, applied_at) VALUES ($1, $2)', [step.id, Math.floor(Date.now() / 1000)]);
          await client.query('COMMIT');
        } catch (e) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${step.id} failed: ${(e as Error).message}`, { cause: e });
        }
      }
    } finally {
      await client.query(`SELECT pg_advisory_unlock($1, ${lockKey})`, [MIGRATION_LOCK_NAMESPACE]);
    }
  } catch (e) {
    // A connection that failed mid-migration may still hold the lock or a transaction: never reuse it.
    broken = e as Error;
    throw e;
  } finally {
    client.release(broken);
  }
}
