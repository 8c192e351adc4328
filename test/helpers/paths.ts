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

/**
 * The environment for a child Lectern process of a test: this process's environment without
 * DATABASE_URL and REDIS_URL, so the child uses its own embedded store in its own data directory
 * (CI sets those URLs for the PostgreSQL and Redis suites, which must not leak into other tests).
 */
export function childEnv(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, REDIS_URL: _r, ...rest } = process.env;
  return rest;
}
