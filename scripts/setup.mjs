#!/usr/bin/env node
// One-step set-up, run before `npm start` and `npm test` (and by `npx lectern` on a fresh checkout):
//   1. installs npm dependencies when node_modules is missing or older than package-lock.json (`npm ci`,
//      which runs only the install scripts approved in package.json `allowScripts`);
//   2. installs the Debian/Ubuntu packages the document converter runs (scripts/system-packages.txt)
//      when they are missing and apt-get is usable; otherwise says which formats will be unavailable;
//   3. compiles the TypeScript sources into dist/ (incremental);
//   4. under `npm test` only (the pretest script), installs the third-party clients the tests drive
//      (test/clients: openid-client, the MCP SDK client, mcp-remote, the MCP conformance suite,
//      openapi-typescript + openapi-fetch) with
//      `npm ci` when test/clients/node_modules is missing or older than its package-lock.json, so
//      `npm start` stays fast.
// Plain Node, no dependencies: it must work before `npm ci` has run.
// Environment: LECTERN_SKIP_SYSTEM_PACKAGES=1 skips step 2; LECTERN_SKIP_TEST_CLIENTS=1 skips step 4.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const log = (msg) => process.stderr.write(`[setup] ${msg}\n`);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

// Node.js 20.19+ or 22.12+ (docs/adr/0088-node-versions.md): the first releases that load an ES module
// with require(), which a dependency of the HTTP test client (light-my-request -> cookie 2) needs.
const [major, minor] = process.versions.node.split('.').map(Number);
if (!((major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major >= 23)) {
  log(`Node.js 20.19 or newer on 20.x, or 22.12 or newer, is required (found ${process.versions.node}).`);
  process.exit(1);
}

// 1. npm dependencies
const lockPath = join(root, 'package-lock.json');
const stampPath = join(root, 'node_modules', '.lectern-lock-sha256');
const lockHash = createHash('sha256').update(readFileSync(lockPath)).digest('hex');
const stamp = existsSync(stampPath) ? readFileSync(stampPath, 'utf8').trim() : '';
if (stamp !== lockHash) {
  log('installing npm dependencies (npm ci)...');
  if (run('npm', ['ci', '--no-audit', '--no-fund']) !== 0) {
    log('npm ci failed');
    process.exit(1);
  }
  writeFileSync(stampPath, lockHash + '\n');
}

// 2. system packages for the converter
if (process.env.LECTERN_SKIP_SYSTEM_PACKAGES !== '1') {
  const wanted = readFileSync(join(root, 'scripts', 'system-packages.txt'), 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean)
    .map((l) => l.split(/\s+/));
  const missing = wanted.filter(([check]) => (check.startsWith('/') ? !existsSync(check) : !hasCommand(check)));
  if (missing.length > 0) {
    const packages = [...new Set(missing.map(([, pkg]) => pkg))];
    const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    const sudo = isRoot ? [] : hasCommand('sudo') ? ['sudo', '-n'] : null;
    if (hasCommand('apt-get') && sudo) {
      log(`installing system packages: ${packages.join(' ')}`);
      const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
      const pre = sudo.length ? sudo : [];
      const cmd = (args) => (pre.length ? run(pre[0], [...pre.slice(1), ...args], { env }) : run(args[0], args.slice(1), { env }));
      let status = cmd(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...packages]);
      if (status !== 0) {
        cmd(['apt-get', 'update', '-qq']);
        status = cmd(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...packages]);
      }
      if (status !== 0) log('could not install system packages; the converter will report the formats it cannot read.');
    } else {
      log(`missing system packages (${packages.join(' ')}); install them with apt-get to enable every recognition format.`);
    }
  }
}

// 3. compile
log('compiling TypeScript...');
if (run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']) !== 0) {
  log('TypeScript compilation failed');
  process.exit(1);
}
// the configuration's validator as standalone code, so processes do not compile it at start (ADR 0302)
if (run(process.execPath, [join(root, 'scripts', 'config-validator.mjs')]) !== 0) log('writing the configuration validator failed; processes compile it at start');

// 4. third-party test clients (npm test only)
if (process.env.npm_lifecycle_event === 'pretest' && process.env.LECTERN_SKIP_TEST_CLIENTS !== '1') {
  const clients = join(root, 'test', 'clients');
  const clientsLock = join(clients, 'package-lock.json');
  if (existsSync(clientsLock)) {
    const clientsStampPath = join(clients, 'node_modules', '.lectern-lock-sha256');
    const clientsHash = createHash('sha256').update(readFileSync(clientsLock)).digest('hex');
    const clientsStamp = existsSync(clientsStampPath) ? readFileSync(clientsStampPath, 'utf8').trim() : '';
    if (clientsStamp !== clientsHash) {
      log('installing the third-party test clients (npm ci in test/clients)...');
      if (run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: clients }) !== 0) {
        log('npm ci in test/clients failed');
        process.exit(1);
      } else {
        writeFileSync(clientsStampPath, clientsHash + '\n');
      }
    }
  }
}
