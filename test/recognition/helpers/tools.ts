// Shared set-up for the recognition tests: the local process runner, tool availability (tests that need
// a missing tool skip with the reason), and the shared evaluation data when it sits beside the checkout.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LocalProcessRunner } from '../../../src/adapters/process/local-process-runner.js';
import { repoRoot, sharedData } from '../../helpers/paths.js';

export const runner = new LocalProcessRunner();

/** Resolves to a skip reason when a tool is missing, else false. */
export async function needs(...tools: string[]): Promise<string | false> {
  for (const t of tools) if (!(await runner.probe(t))) return `${t} is not installed (scripts/system-packages.txt)`;
  return false;
}

/** The shared recognition data directory, or null (a git worktree sits one level deeper). */
export const recognitionData: string | null =
  [join(sharedData, 'recognition'), join(repoRoot, '..', '..', 'shared', 'data', 'recognition')].find((d) => existsSync(d)) ?? null;

/** Fixture directory of these tests. */
export const fixtures = join(repoRoot, 'test', 'fixtures', 'recognition');
