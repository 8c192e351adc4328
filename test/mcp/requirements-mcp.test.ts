// The resource-server items of the auth requirements each have a test that cites them, and every
// citation in test/mcp/ is listed (test/mcp/requirements-mcp.ts; merged into test/auth/requirements.ts
// with branch auth).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { repoRoot } from '../helpers/paths.js';
import { MCP_REQUIREMENTS } from './requirements-mcp.js';

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

/** item -> test files citing it at the start of a test title (`[12] ...`, `[2, 7] ...`). */
function citations(dir: string): Map<number, Set<string>> {
  const map = new Map<number, Set<string>>();
  for (const file of walk(dir)) {
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

test('the resource-server items 1-24 and the MCP sides of 38 and 92 are listed', () => {
  assert.deepEqual(Object.keys(MCP_REQUIREMENTS).map(Number), [...Array.from({ length: 24 }, (_, i) => i + 1), 38, 92]);
});

test('every listed item has tests, and every listed file cites it', () => {
  const cited = citations(testDir);
  const problems: string[] = [];
  for (const [key, req] of Object.entries(MCP_REQUIREMENTS)) {
    const n = Number(key);
    if (req.tests.length === 0) problems.push(`[${n}] ${req.title}: no test`);
    for (const f of req.tests) if (!cited.get(n)?.has(f)) problems.push(`[${n}] lists ${f}, which does not cite it`);
  }
  assert.deepEqual(problems, []);
});

test('every citation in test/mcp/ is listed', () => {
  const problems: string[] = [];
  for (const [n, files] of citations(join(testDir, 'mcp'))) {
    const req = MCP_REQUIREMENTS[n];
    if (!req) problems.push(`test/mcp cites [${n}], which this list does not own`);
    else for (const f of files) if (!req.tests.includes(f)) problems.push(`[${n}] is cited by ${f}, which is not listed`);
  }
  assert.deepEqual(problems, []);
});
