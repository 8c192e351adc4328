// What a `lectern` process loads at start (ADR 0302): a command imports only what it runs, and the
// configuration validator is the build's standalone code when it matches the schema, with the same
// results as compiling it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compileConfigValidator, ConfigError, loadConfig, standaloneConfigValidator, writeConfigValidator } from '../../src/config/load.js';
import { repoRoot } from '../helpers/paths.js';

/** The module URLs (and bare package names) a `lectern ARGS` process resolves, from a resolve hook. */
function importsOf(args: string[], env: Record<string, string> = {}): { status: number | null; imports: string[]; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-start-'));
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(hooks, `export async function resolve(s, c, next) { const r = await next(s, c); process.stderr.write('IMPORT ' + s + ' ' + r.url + '\\n'); return r; }\n`);
  const register = `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hooks).href)});`;
  const r = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, join(repoRoot, 'bin', 'lectern.mjs'), ...args], {
    env: { ...process.env, LECTERN_DATA_DIR: join(dir, 'data'), ...env },
    encoding: 'utf8',
    timeout: 600_000,
  });
  const imports = r.stderr.split('\n').filter((l) => l.startsWith('IMPORT ')).map((l) => l.slice(7));
  return { status: r.status, imports, stderr: r.stderr.split('\n').filter((l) => !l.startsWith('IMPORT ')).join('\n') };
}

const loads = (imports: string[], what: RegExp) => imports.some((l) => what.test(l));

test('lectern --help loads neither the composition root nor a server, store driver or cluster client', () => {
  const r = importsOf(['--help']);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(loads(r.imports, /dist\/src\/cli\/main\.js$/), 'the hook saw the dispatcher (the check is live)');
  for (const heavy of [/dist\/src\/app\.js$/, /dist\/src\/http\/server\.js$/, /dist\/src\/mcp\//, /^fastify /, /^pg /, /^pg-boss /, /^ioredis /, /^@nats-io\//, /^@modelcontextprotocol\//, /dist\/src\/recognition\//, /^ajv /]) {
    assert.ok(!loads(r.imports, heavy), `--help loaded ${heavy}`);
  }
});

test('lectern ingest on SQLite builds the core without the HTTP server, MCP, PostgreSQL, pg-boss, Redis or NATS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-start-ingest-'));
  const file = join(dir, 'one.jsonl');
  writeFileSync(file, JSON.stringify({ id: 'start-1', title: 'A record to ingest', abstract: 'Loaded by a process that imports only what it runs.' }) + '\n');
  const r = importsOf(['ingest', file], { DATABASE_URL: '', REDIS_URL: '', LECTERN_LOAD_DEMO_CORPUS: 'false' });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(loads(r.imports, /dist\/src\/app\.js$/), 'ingest builds the core');
  for (const heavy of [/dist\/src\/http\/server\.js$/, /dist\/src\/mcp\//, /^fastify /, /^pg /, /^pg-boss /, /^ioredis /, /^@nats-io\//, /^@modelcontextprotocol\//]) {
    assert.ok(!loads(r.imports, heavy), `ingest loaded ${heavy}`);
  }
});

test('the standalone config validator is used only when its stamp matches, and validates as the compiled one', (t) => {
  // inside the checkout: the generated code requires ajv's runtime from node_modules
  const dir = mkdtempSync(join(repoRoot, 'dist', '.config-validator-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = writeConfigValidator(join(dir, 'config-validator.cjs'));
  const standalone = standaloneConfigValidator(path);
  assert.ok(standalone, 'a freshly written file matches');
  const compiled = compileConfigValidator();
  const inputs: unknown[] = [
    {},
    { port: 70000, logLevel: 'loud', baseUrl: 'not a url' },
    { prices: { search: -1 }, cluster: { role: 'bogus' }, unknownOption: 1 },
    { rateLimits: { search: { capacity: 0 } }, limits: { uploadBytes: 'x' } },
  ];
  for (const input of inputs) {
    const a = structuredClone(input) as Record<string, unknown>;
    const b = structuredClone(input) as Record<string, unknown>;
    assert.equal(standalone(a), compiled(b), JSON.stringify(input));
    assert.deepEqual(a, b, 'the same defaults filled in');
    assert.deepEqual(standalone.errors ?? null, compiled.errors ?? null, 'the same errors');
  }
  // another schema or ajv version: the stamp differs and the file is not used
  const text = readFileSync(path, 'utf8');
  const stale = join(dir, 'stale.cjs');
  writeFileSync(stale, text.replace(/^\/\/ stamp [0-9a-f]+/, `// stamp ${'0'.repeat(64)}`));
  assert.equal(standaloneConfigValidator(stale), null);
  assert.equal(standaloneConfigValidator(join(dir, 'absent.cjs')), null);
});

test('loadConfig reports the same problems whichever validator it uses', () => {
  // this process uses the build's file when it is there; the compiled validator is checked above
  assert.throws(
    () => loadConfig({ LECTERN_DATA_DIR: '/tmp/x', LECTERN_LOG_LEVEL: 'loud', LECTERN_PRICES_SEARCH: '-1' }),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.problems.includes('prices.search (LECTERN_PRICES_SEARCH): must be >= 0') &&
      e.problems.some((p) => p.startsWith('logLevel (LECTERN_LOG_LEVEL): must be one of')),
  );
});
