// Locates the shared evaluation data: `../shared/data` beside the checkout (CI), or two levels up
// (a git worktree under /work/wt/<name>), or $LECTERN_SHARED_DATA.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, sharedData } from '../../test/helpers/paths.js';

export function evalDataDir(): string {
  const candidates = [process.env['LECTERN_SHARED_DATA'], sharedData, join(repoRoot, '..', '..', 'shared', 'data')];
  for (const c of candidates) if (c && existsSync(join(c, 'ir'))) return c;
  throw new Error('shared evaluation data not found (set LECTERN_SHARED_DATA)');
}
