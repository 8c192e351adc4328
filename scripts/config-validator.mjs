#!/usr/bin/env node
// Writes the configuration's validator as ajv standalone code (dist/src/config/config-validator.cjs),
// so a process loads it instead of compiling the schema at start (~150 ms of CPU; ADR 0302). Run after
// tsc by `npm run build` and scripts/setup.mjs. Without it (a build by plain tsc) every process
// compiles the schema as before: same errors, same defaults, slower start.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { writeConfigValidator } = await import(pathToFileURL(join(root, 'dist', 'src', 'config', 'load.js')).href);
const path = writeConfigValidator();
process.stderr.write(`[config-validator] wrote ${path}\n`);
