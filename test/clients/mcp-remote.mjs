#!/usr/bin/env node
// mcp-remote (the stdio-to-remote OAuth proxy many desktop agents use; npm registry, installed in this
// folder) against a running Lectern. The MCP SDK client talks stdio to `mcp-remote {mcp_url}`, which
// discovers, registers, runs authorization code with PKCE and connects over Streamable HTTP. The
// browser step: mcp-remote prints the authorization URL; this script GETs it (Lectern runs with
// LECTERN_AUTO_CONSENT, so it redirects straight back) and delivers the redirect to mcp-remote's
// callback server. A second run must reuse the stored tokens without any browser step.
//
// Environment: LECTERN_MCP_URL (from lectern.mjs). Exits 1 when a check fails.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './lectern.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const mcpUrl = process.env.LECTERN_MCP_URL;
if (!mcpUrl) {
  console.error('set LECTERN_MCP_URL (see lectern.mjs)');
  process.exit(2);
}

let failures = 0;
function check(name, ok, detail) {
  if (!ok) failures++;
  console.log(`${ok ? 'PASS' : 'FAIL'} ${name}${detail === undefined ? '' : `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`}`);
  return ok;
}

const proxy = join(here, 'node_modules', 'mcp-remote', 'dist', 'proxy.js');
const configDir = mkdtempSync(join(tmpdir(), 'mcp-remote-'));
const callbackPort = await freePort();

/** One mcp-remote session: connect, list tools, search; returns what happened. */
async function session(label, extraArgs = []) {
  let stderr = '';
  let browserSteps = 0;
  let browserError = null;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [proxy, mcpUrl, String(callbackPort), '--host', '127.0.0.1', ...extraArgs],
    // BROWSER=true makes any opener a no-op: this script is the browser.
    env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: 'true', DISPLAY: '', WAYLAND_DISPLAY: '' },
    stderr: 'pipe',
    cwd: here,
  });
  transport.stderr.on('data', (chunk) => {
    stderr += chunk.toString();
    const m = /Please authorize this client by visiting:\s*\n\s*(\S+)/.exec(stderr);
    if (m && browserSteps === 0) {
      browserSteps++;
      (async () => {
        const res = await fetch(m[1], { redirect: 'manual' });
        const location = res.headers.get('location');
        if (!location) throw new Error(`authorization endpoint answered ${res.status} without a redirect`);
        const back = await fetch(new URL(location, m[1]));
        if (!back.ok) throw new Error(`mcp-remote's callback answered ${back.status}`);
      })().catch((e) => {
        browserError = e;
      });
    }
  });
  const client = new Client({ name: `lectern-ci-mcp-remote-${label}`, version: '1.0.0' });
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('mcp-remote did not connect within 900 s')), 900_000).unref());
  try {
    await Promise.race([client.connect(transport), timeout]);
    const { tools } = await client.listTools();
    const search = await client.callTool({ name: 'search_documents', arguments: { query: 'corpus', limit: 3 } });
    return { tools: tools.map((t) => t.name), search, browserSteps, browserError, stderr };
  } catch (e) {
    return { error: e, browserSteps, browserError, stderr };
  } finally {
    await client.close().catch(() => {});
  }
}

try {
  const first = await session('first');
  if (first.error || first.browserError) console.log(`mcp-remote stderr:\n${first.stderr}`);
  check('first run: no error', !first.error, first.error ? String(first.error) : undefined);
  check('first run: one headless browser step (authorization code with PKCE)', first.browserSteps === 1 && !first.browserError, first.browserError ? String(first.browserError) : undefined);
  check('first run: tools/list through mcp-remote', first.tools?.includes('search_documents'), first.tools);
  const hits = first.search?.structuredContent?.hits ?? [];
  check('first run: search_documents returns real hits', first.search?.isError !== true && hits.length > 0, hits.map((h) => h.document?.title));
  check('mcp-remote registered a client and saw the PKCE flow', /client|regist/i.test(first.stderr) && /authoriz/i.test(first.stderr));

  const second = await session('second');
  if (second.error) console.log(`mcp-remote stderr:\n${second.stderr}`);
  check('second run: stored tokens reused, no browser step', !second.error && second.browserSteps === 0, second.error ? String(second.error) : undefined);
  check('second run: search works', (second.search?.structuredContent?.hits ?? []).length > 0);

  // An API key in a header (docs/mcp.md, README): no OAuth at all.
  if (process.env.LECTERN_TEST_API_KEY) {
    rmSync(configDir, { recursive: true, force: true });
    mkdirSync(configDir);
    const keyed = await session('api-key', ['--header', `Authorization: Bearer ${process.env.LECTERN_TEST_API_KEY}`]);
    if (keyed.error) console.log(`mcp-remote stderr:\n${keyed.stderr}`);
    check('API key in --header: connects without any OAuth step', !keyed.error && keyed.browserSteps === 0 && (keyed.search?.structuredContent?.hits ?? []).length > 0);
  }
} catch (e) {
  check('the flow completed', false, e instanceof Error ? `${e.name}: ${e.message}` : String(e));
} finally {
  rmSync(configDir, { recursive: true, force: true });
}
console.log(failures === 0 ? 'mcp-remote: all checks passed' : `mcp-remote: ${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
