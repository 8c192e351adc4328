// Enforces the dependency rules of ARCHITECTURE.md on every import under src/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { repoRoot } from '../helpers/paths.js';

const src = join(repoRoot, 'src');

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Top-level area of a file under src/: `engine`, `http`, `app`, `main`, ... */
function area(file: string): string {
  const rel = relative(src, file).split(sep);
  return rel.length === 1 ? rel[0]!.replace(/\.ts$/, '') : rel[0]!;
}

const INFRA = new Set(['main', 'app', 'recognition-worker', 'search-worker', 'segment-builder-worker', 'http', 'mcp', 'cli', 'adapters', 'ports', 'domain', 'config', 'engine']);

/** Entry points: they compose adapters and capabilities, and nothing imports them (worker threads are loaded by URL). */
const ENTRY_POINTS = new Set(['main', 'app', 'recognition-worker', 'search-worker', 'segment-builder-worker']);

/** Which areas each area may import (capabilities are every folder not in INFRA). */
function mayImport(from: string, to: string): boolean {
  if (from === to) return true;
  if (ENTRY_POINTS.has(to)) return from === 'main' && to === 'app';
  switch (from) {
    case 'engine':
      return false;
    case 'domain':
      return false;
    case 'ports':
      return to === 'domain' || to === 'engine';
    case 'config':
      return to === 'domain';
    case 'adapters':
      return to === 'ports' || to === 'domain' || to === 'engine';
    case 'http':
      return to !== 'mcp' && to !== 'cli' && to !== 'adapters';
    case 'mcp':
      return to !== 'http' && to !== 'cli' && to !== 'adapters';
    case 'cli':
      return to !== 'http' && to !== 'mcp' && to !== 'adapters';
    case 'main':
    case 'app':
    case 'recognition-worker':
    case 'search-worker':
    case 'segment-builder-worker':
      return true;
    default:
      // a capability
      return !['http', 'mcp', 'cli', 'adapters', 'config'].includes(to);
  }
}

/** npm packages that only one area may import. */
const PACKAGE_OWNERS: [RegExp, string[]][] = [
  [/^fastify$|^@fastify\//, ['http']],
  [/^better-sqlite3$|^pg$|^ioredis$|^nodemailer$|^onnxruntime-node$|^@huggingface\/tokenizers$/, ['adapters']],
  // the cluster's NATS JetStream clients and the job queue (issue 24)
  [/^@nats-io\/|^pg-boss$/, ['adapters']],
  [/^@modelcontextprotocol\//, ['mcp']],
];

// static and dynamic imports, and require() of CommonJS packages loaded on first use (ADR 0302)
const IMPORT_RE = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]|\brequire\(\s*['"]([^'"]+)['"]\s*\)/gm;

const files = walk(src);

test('every src import respects the layer rules', () => {
  const violations: string[] = [];
  for (const file of files) {
    const from = area(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2] ?? m[3] ?? m[4]!;
      if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
        if (!target.startsWith(src)) continue;
        const to = area(target);
        if (!mayImport(from, to)) violations.push(`${relative(repoRoot, file)} (${from}) imports ${spec} (${to})`);
      } else {
        if (from === 'engine' && spec.startsWith('node:')) violations.push(`${relative(repoRoot, file)}: engine imports ${spec}`);
        for (const [re, owners] of PACKAGE_OWNERS) {
          if (re.test(spec) && !owners.includes(from) && !ENTRY_POINTS.has(from)) violations.push(`${relative(repoRoot, file)} (${from}) imports ${spec}`);
        }
      }
    }
  }
  assert.deepEqual(violations, []);
});

test('only config/ reads process.env', () => {
  const offenders = files.filter((f) => area(f) !== 'config' && /process\.env/.test(readFileSync(f, 'utf8')));
  assert.deepEqual(offenders.map((f) => relative(repoRoot, f)), []);
});

test('engine/ is pure: no clock, no randomness, no process', () => {
  const offenders: string[] = [];
  for (const f of files.filter((x) => area(x) === 'engine')) {
    const text = readFileSync(f, 'utf8').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '');
    for (const banned of ['Date.now(', 'new Date(', 'Math.random(', 'process.', 'performance.now(', 'require(']) {
      if (text.includes(banned)) offenders.push(`${relative(repoRoot, f)}: ${banned}`);
    }
  }
  assert.deepEqual(offenders, []);
});

test('capabilities never import adapters, http, mcp or cli', () => {
  const capabilityFiles = files.filter((f) => !INFRA.has(area(f)));
  for (const f of capabilityFiles) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2] ?? m[3] ?? m[4]!;
      if (!spec.startsWith('.')) continue;
      const to = area(resolve(dirname(f), spec.replace(/\.js$/, '.ts')));
      assert.ok(!['adapters', 'http', 'mcp', 'cli', ...ENTRY_POINTS].includes(to), `${relative(repoRoot, f)} imports ${spec}`);
    }
  }
});
