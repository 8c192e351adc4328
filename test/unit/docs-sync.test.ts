// Generated and hand-written docs that must match the code: the error catalog and configuration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDocs } from '../../src/cli/config-docs.js';
import { ERROR_CATALOG } from '../../src/domain/errors.js';
import { repoRoot } from '../helpers/paths.js';

test('docs/errors.md lists every error code with its status, and nothing else', () => {
  const text = readFileSync(join(repoRoot, 'docs/errors.md'), 'utf8');
  const rows = [...text.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]);
  assert.deepEqual(rows, Object.entries(ERROR_CATALOG).map(([code, spec]) => [code, spec.status]));
});

test('docs/configuration.md is generated from the schema (npx lectern config docs > docs/configuration.md)', () => {
  assert.equal(readFileSync(join(repoRoot, 'docs/configuration.md'), 'utf8'), configDocs());
});
