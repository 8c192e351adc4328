// Every one of the 92 auth requirements has a test that cites its number (test/auth/requirements.ts).
// A test cites items at the start of its title: `[59] code_verifier must match`, or several: `[59, 60] ...`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { repoRoot } from '../helpers/paths.js';
import { PENDING_IN_BRANCH_MCP, REQUIREMENTS } from './requirements.js';

const testDir = join(repoRoot, 'test');

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** item number -> test files (relative to test/, with /) whose test titles cite it. */
function citations(): Map<number, Set<string>> {
  const map = new Map<number, Set<string>>();
  for (const file of walk(testDir)) {
    const rel = relative(testDir, file).split(sep).join('/');
    for (const m of readFileSync(file, 'utf8').matchAll(/\b(?:test|it|describe)\(\s*['"`]\[([\d,\s]+)\]/g)) {
      for (const n of m[1]!.split(',').map((x) => Number(x.trim()))) {
        if (!map.has(n)) map.set(n, new Set());
        map.get(n)!.add(rel);
      }
    }
  }
  return map;
}

test('the list names each of the 92 items exactly once', () => {
  assert.deepEqual(
    Object.keys(REQUIREMENTS).map(Number),
    Array.from({ length: 92 }, (_, i) => i + 1),
  );
});

test('every item has a test citing its number (except items pending in branch mcp)', () => {
  const cited = citations();
  const missing: string[] = [];
  for (const [key, req] of Object.entries(REQUIREMENTS)) {
    const n = Number(key);
    if (PENDING_IN_BRANCH_MCP.includes(n)) continue;
    if (req.tests.length === 0 || !cited.has(n)) missing.push(`[${n}] ${req.title}`);
  }
  assert.deepEqual(missing, [], 'items without a test');
});

test('every listed test file cites the item; every citation is listed', () => {
  const cited = citations();
  const problems: string[] = [];
  for (const [key, req] of Object.entries(REQUIREMENTS)) {
    const n = Number(key);
    for (const f of req.tests) if (!cited.get(n)?.has(f)) problems.push(`[${n}] lists ${f}, which does not cite it`);
    for (const f of cited.get(n) ?? []) if (!req.tests.includes(f)) problems.push(`[${n}] is cited by ${f}, which is not listed`);
  }
  for (const n of cited.keys()) if (!(n in REQUIREMENTS)) problems.push(`a test cites [${n}], which is not an item`);
  assert.deepEqual(problems, []);
});

test('only resource-server items may be pending in branch mcp', () => {
  for (const n of PENDING_IN_BRANCH_MCP) assert.equal(REQUIREMENTS[n]?.owner, 'mcp', `item ${n}`);
});
