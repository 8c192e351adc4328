#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js) with node:test.
// Arguments narrow the run to files whose path contains one of them: `npm test -- storage search`.
// Environment: DATABASE_URL / REDIS_URL enable the PostgreSQL and Redis suites (they say when skipped);
// TEST_CONCURRENCY sets how many files run at once (default 2).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const testRoot = join(root, 'dist', 'test');

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = walk(testRoot, [])
  .filter((f) => filters.length === 0 || filters.some((x) => relative(root, f).includes(x)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const r = spawnSync(process.execPath, ['--test', `--test-concurrency=${concurrency}`, ...files], {
  stdio: 'inherit',
  cwd: root,
  env: { ...process.env, LECTERN_LOG_LEVEL: process.env.LECTERN_LOG_LEVEL ?? 'silent' },
});
process.exit(r.status ?? 1);
