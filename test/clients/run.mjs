#!/usr/bin/env node
// Runs client scripts of this folder against one fresh Lectern (lectern.mjs), in order:
//   node test/clients/run.mjs mcp-sdk-client.mjs mcp-remote.mjs conformance-authorization.mjs
// Exits 1 when any script fails. LECTERN_CLIENTS_LOG_LEVEL=info shows the server's log.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLectern } from './lectern.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/** Runs one script with the Lectern's environment; resolves with its exit code and output. */
export function runScript(script, env, { timeoutMs = 1_200_000 } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [join(here, script)], { cwd: here, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const timer = setTimeout(() => {
      output += `\n${script}: killed after ${timeoutMs / 1000} s\n`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, output, seconds: (Date.now() - started) / 1000 });
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const scripts = process.argv.slice(2);
  if (scripts.length === 0) {
    console.error('usage: node test/clients/run.mjs SCRIPT...');
    process.exit(2);
  }
  const lectern = await startLectern();
  let failed = 0;
  try {
    for (const s of scripts) {
      const r = await runScript(s, lectern.env());
      process.stdout.write(`--- ${s} (exit ${r.code}, ${r.seconds.toFixed(1)} s)\n${r.output}\n`);
      if (r.code !== 0) failed++;
    }
  } finally {
    await lectern.stop();
  }
  process.exit(failed === 0 ? 0 : 1);
}
