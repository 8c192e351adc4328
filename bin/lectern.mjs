#!/usr/bin/env node
// The `lectern` command from a checkout (`npx lectern ...`): runs the compiled CLI,
// building it first when dist/ is missing so a fresh checkout works after `npm install`.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'src', 'main.js');
if (!existsSync(entry)) {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'setup.mjs')], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2));
