// Paths tests need: the repository root (tests run from dist/test, two levels below it)
// and the shared evaluation data beside the checkout.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${start}`);
    dir = up;
  }
  return dir;
}

/** The checkout's root directory (where package.json is). */
export const repoRoot = findRoot(dirname(fileURLToPath(import.meta.url)));

/** `../shared/data` beside the checkout (evaluation material; never shipped). */
export const sharedData = join(repoRoot, '..', 'shared', 'data');
