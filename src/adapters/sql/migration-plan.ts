// Which migration steps a database still needs, shared by the SQLite and PostgreSQL migrators.
import type { MigrationStep } from './migrations.js';

/**
 * The steps not yet applied, in list order. Throws when two steps share an id: the id is what
 * `schema_migrations` records, so a duplicate would silently skip the second step forever.
 */
export function pendingMigrations(steps: readonly MigrationStep[], applied: ReadonlySet<string>): MigrationStep[] {
  const seen = new Set<string>();
  for (const s of steps) {
    if (seen.has(s.id)) throw new Error(`duplicate migration id ${s.id}`);
    seen.add(s.id);
  }
  return steps.filter((s) => !applied.has(s.id));
}
