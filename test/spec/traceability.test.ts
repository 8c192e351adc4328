// Every rule of the interface that is built has a test that exists; every rule that is not built says
// why, and its routes really do not exist yet.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { RULES } from './interface-rules.js';

let app: TestApp;
before(async () => {
  app = await testApp();
});
after(() => app.dispose());

const sources = new Map<string, string>();
function testExists(ref: string): boolean {
  const [file, name] = ref.split(' :: ');
  if (!file || !name) return false;
  if (!sources.has(file)) {
    try {
      sources.set(file, readFileSync(join(repoRoot, 'test', file), 'utf8'));
    } catch {
      sources.set(file, '');
    }
  }
  const src = sources.get(file)!;
  return [`test('${name}'`, `test("${name}"`, `test(\`${name}\``].some((p) => src.includes(p));
}

test('rule ids are unique', () => {
  const ids = RULES.map((r) => r.id);
  assert.equal(new Set(ids).size, ids.length);
});

test('every built rule of the interface has at least one test, and each named test exists', () => {
  const missing = RULES.filter((r) => !r.notBuilt && r.tests.length === 0).map((r) => r.id);
  assert.deepEqual(missing, [], 'rules without tests');
  const dangling = RULES.flatMap((r) => r.tests.filter((t) => !testExists(t)).map((t) => `${r.id}: ${t}`));
  assert.deepEqual(dangling, [], 'references to tests that do not exist');
});

test('rules marked not built really are not built (their routes do not exist)', () => {
  const routes = new Set(app.http.lecternRoutes.map((r) => `${r.method} ${r.url}`));
  const built = RULES.filter((r) => r.notBuilt).flatMap((r) => r.notBuilt!.routes.filter((x) => routes.has(x)).map((x) => `${r.id}: ${x}`));
  assert.deepEqual(built, [], 'these routes exist: add tests for the rule and drop notBuilt');
});
