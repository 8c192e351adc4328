// The judged sets bench/quality measures on (issue 27): SciFact (train judgments) and Cranfield from the
// shared evaluation data, and the classic collections rebuilt by bench/quality/sets/build.ts (CACM, CISI,
// MED, NPL, LISA; MANIFEST.md says where each comes from) from $LECTERN_IR_SETS or tmp/ir-sets.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../test/helpers/paths.js';
import { evalDataDir } from './data-dir.js';
import { loadIrSet, type IrSet } from './ir-eval.js';

/** The rebuilt sets, in the order they are reported. */
export const EXTRA_SETS = ['cacm', 'cisi', 'med', 'npl', 'lisa'] as const;

export function extraSetsDir(): string {
  return process.env['LECTERN_IR_SETS'] ?? join(repoRoot, 'tmp', 'ir-sets');
}

/** Every judged set available here; `missing` names the rebuilt sets that were not found (run build.js). */
export function loadAllSets(only?: readonly string[]): { sets: IrSet[]; missing: string[] } {
  const want = (n: string): boolean => !only || only.length === 0 || only.includes(n);
  const sets: IrSet[] = [];
  const missing: string[] = [];
  if (want('scifact-train')) sets.push(loadIrSet(join(evalDataDir(), 'ir', 'scifact'), 'scifact-train', 'train'));
  if (want('cranfield')) sets.push(loadIrSet(join(evalDataDir(), 'ir', 'cranfield'), 'cranfield', 'test'));
  for (const n of EXTRA_SETS) {
    if (!want(n)) continue;
    const dir = join(extraSetsDir(), n);
    if (existsSync(join(dir, 'corpus.jsonl'))) sets.push(loadIrSet(dir, n, 'test'));
    else missing.push(n);
  }
  return { sets, missing };
}
