// The synthetic corpus's fixed workload (/work/shared/tools/synth-corpus/workload.json) as engine queries,
// for the engine benches that run it in process (classes.ts, champions-ab.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineQuery } from '../../src/engine/index.js';
import { evalDataDir } from '../quality/data-dir.js';

export interface WorkloadQuery {
  text: string;
  filter: { types?: string[]; issued_after?: number; issued_before?: number } | null;
}

/** The workload's queries by class (or, phrase, filter). */
export function loadSynthWorkload(): Record<string, WorkloadQuery[]> {
  return JSON.parse(readFileSync(join(evalDataDir(), '..', 'tools', 'synth-corpus', 'workload.json'), 'utf8')) as Record<string, WorkloadQuery[]>;
}

/** A workload query as the engine takes it: top 10, its type and date filter. */
export function workloadQuery(w: WorkloadQuery): EngineQuery {
  const q: EngineQuery = { text: w.text, limit: 10 };
  if (w.filter) q.filters = { types: w.filter.types ?? null, issuedAfter: w.filter.issued_after ?? null, issuedBefore: w.filter.issued_before ?? null };
  return q;
}
