import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, envName, loadConfig } from '../../src/config/index.js';

test('defaults: 127.0.0.1:8080, ./data, base_url, auth_url = base_url, mcp_url = base_url + /mcp', () => {
  const c = loadConfig({});
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.port, 8080);
  assert.equal(c.baseUrl, 'http://127.0.0.1:8080');
  assert.equal(c.authUrl, c.baseUrl);
  assert.equal(c.mcpUrl, 'http://127.0.0.1:8080/mcp');
  assert.equal(c.dataDir, join(process.cwd(), 'data'));
  assert.equal(c.prices.search, 10);
  assert.equal(c.prices.searchPerHit, 1);
  assert.equal(c.prices.documentFetch, 50);
  assert.equal(c.prices.documentPassages, 15);
});

test('HOST/PORT/LECTERN_DATA_DIR and nested options from the environment', () => {
  const c = loadConfig({ HOST: '0.0.0.0', PORT: '9000', LECTERN_DATA_DIR: '/tmp/x', LECTERN_PRICES_SEARCH_PER_HIT: '2', LECTERN_RATE_LIMITS_SEARCH_CAPACITY: '7', LECTERN_LOAD_DEMO_CORPUS: 'false' });
  assert.equal(c.port, 9000);
  assert.equal(c.baseUrl, 'http://127.0.0.1:9000');
  assert.equal(c.dataDir, '/tmp/x');
  assert.equal(c.prices.searchPerHit, 2);
  assert.equal(c.rateLimits.search.capacity, 7);
  assert.equal(c.rateLimits.search.refillPerSecond, 100);
  assert.equal(c.loadDemoCorpus, false);
});

test('base_url drives auth_url and mcp_url; trailing slashes are dropped', () => {
  const c = loadConfig({ LECTERN_BASE_URL: 'https://lectern.example.org/' });
  assert.equal(c.baseUrl, 'https://lectern.example.org');
  assert.equal(c.authUrl, 'https://lectern.example.org');
  assert.equal(c.mcpUrl, 'https://lectern.example.org/mcp');
});

test('every problem is reported at once', () => {
  try {
    loadConfig({ PORT: 'eighty', LECTERN_PRICES_SEARCH: '-1', LECTERN_LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x' });
    assert.fail('expected ConfigError');
  } catch (e) {
    assert.ok(e instanceof ConfigError);
    assert.equal(e.problems.length, 4, e.problems.join('\n'));
    assert.match(e.message, /PORT/);
    assert.match(e.message, /LECTERN_PRICES_SEARCH/);
    assert.match(e.message, /LECTERN_LOG_LEVEL/);
    assert.match(e.message, /DATABASE_URL/);
  }
});

test('a JSON file, overridden by the environment; unknown options refused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
  const file = join(dir, 'c.json');
  writeFileSync(file, JSON.stringify({ port: 1234, prices: { search: 3 } }));
  const c = loadConfig({ LECTERN_CONFIG: file, PORT: '4321' });
  assert.equal(c.port, 4321);
  assert.equal(c.prices.search, 3);
  writeFileSync(file, JSON.stringify({ prices: { serch: 3 } }));
  assert.throws(() => loadConfig({ LECTERN_CONFIG: file }), /prices\.serch.*unknown option/);
});

test('the result is frozen', () => {
  const c = loadConfig({});
  assert.throws(() => {
    (c as { port: number }).port = 1;
  });
  assert.throws(() => {
    (c.prices as { search: number }).search = 1;
  });
});

test('env names follow LECTERN_ + SCREAMING_SNAKE path, with conventional aliases', () => {
  assert.equal(envName(['prices', 'searchPerHit']), 'LECTERN_PRICES_SEARCH_PER_HIT');
  assert.equal(envName(['databaseUrl']), 'DATABASE_URL');
  assert.equal(envName(['port']), 'PORT');
});

test('display cache: display_cache_bytes (default 32 MiB, the cache class\'s) and display_cache_records from the environment', async () => {
  const { DEFAULT_CACHE_BYTES } = await import('../../src/documents/display-cache.js');
  const d = loadConfig({});
  assert.equal(d.displayCacheBytes, 32 * 2 ** 20);
  assert.equal(d.displayCacheBytes, DEFAULT_CACHE_BYTES);
  assert.equal(d.displayCacheRecords, 10_000);
  const c = loadConfig({ LECTERN_DISPLAY_CACHE_BYTES: '1048576', LECTERN_DISPLAY_CACHE_RECORDS: '500' });
  assert.equal(c.displayCacheBytes, 1_048_576);
  assert.equal(c.displayCacheRecords, 500);
  assert.equal(loadConfig({ LECTERN_DISPLAY_CACHE_BYTES: '0' }).displayCacheBytes, 0);
  assert.throws(() => loadConfig({ LECTERN_DISPLAY_CACHE_BYTES: '-1' }), (e: unknown) => e instanceof ConfigError && /LECTERN_DISPLAY_CACHE_BYTES/.test(e.message));
  assert.throws(() => loadConfig({ LECTERN_DISPLAY_CACHE_BYTES: 'lots' }), ConfigError);
});
