// The Node.js promise (docs/adr/0088-node-versions.md): README, package.json `engines` and the set-up
// check say the same thing; every runtime dependency that declares a newer Node than we promise has
// been looked at (and the reason recorded here), so a new one cannot slip in unnoticed; the features
// those dependencies really need are present on the Node running the tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths.js';

const PROMISE = '^20.19.0 || >=22.12.0';

/**
 * Runtime packages whose `engines.node` asks for more than we promise, with the range they declare and
 * why they work on what we promise (checked by the tests below on the running Node).
 */
const REVIEWED: Readonly<Record<string, { declares: string; why: string }>> = {
  'node_modules/multilingual-stemmer': {
    declares: '>=22',
    why: 'WebAssembly + top-level await + node:fs/node:url only; every stemmer of the engine is exercised below (ADR 0020, 0088)',
  },
  'node_modules/@nats-io/nuid': {
    declares: '>= 22.x',
    why: 'pinned (3.0.0) by @nats-io/nats-core and transport-node; uses globalThis.crypto.getRandomValues only, present since Node 19: exercised below (ADR 0221)',
  },
  'node_modules/cookie': {
    declares: '>=22',
    why: 'ESM-only: @fastify/cookie imports it dynamically; light-my-request (fastify.inject) require()s it, which Node 20.19+ and 22.12+ allow',
  },
};

/** The smallest Node major a range admits at its lower bound (`>=22`, `^22.1`, `22.x` -> 22), else null. */
function minimumMajor(range: string): number | null {
  const mins = range.split('||').map((alt) => {
    const m = /(?:>=|\^|~)?\s*v?(\d+)/.exec(alt.trim());
    return m ? Number(m[1]) : 0;
  });
  return mins.length ? Math.min(...mins) : null;
}

test('README, package.json engines and scripts/setup.mjs promise the same Node.js versions', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string }; dependencies: Record<string, string> };
  assert.equal(pkg.engines.node, PROMISE);
  const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { engines?: { node?: string } }> };
  assert.equal(lock.packages['']!.engines?.node, PROMISE, 'package-lock.json root entry');
  assert.match(readFileSync(join(repoRoot, 'README.md'), 'utf8'), /Node\.js 20\.19\+ or 22\.12\+/);
  assert.match(readFileSync(join(repoRoot, 'scripts', 'setup.mjs'), 'utf8'), /major === 20 && minor >= 19\) \|\| \(major === 22 && minor >= 12\) \|\| major >= 23/);
  // The stemmer defines the index's terms: it is pinned, an upgrade is a decision (and an index rebuild).
  assert.equal(pkg.dependencies['multilingual-stemmer'], '2.1.1');
});

test('every runtime dependency declaring a newer Node than promised has been reviewed', () => {
  const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { engines?: { node?: string } | string[]; dev?: boolean; optional?: boolean }>;
  };
  const unreviewed: string[] = [];
  for (const [path, p] of Object.entries(lock.packages)) {
    if (path === '' || p.dev || Array.isArray(p.engines)) continue;
    const range = p.engines?.node;
    if (!range) continue;
    const min = minimumMajor(range);
    if (min === null || min <= 20) continue;
    const reviewed = REVIEWED[path];
    if (!reviewed || reviewed.declares !== range) unreviewed.push(`${path} declares node ${range}`);
  }
  assert.deepEqual(unreviewed, [], 'review these (docs/adr/0088-node-versions.md) and add them to REVIEWED with the reason');
});

test('what those dependencies need works on this Node: require() of an ES module, every Snowball stemmer', async () => {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  assert.ok((major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major >= 23, `Node ${process.versions.node} is outside the promise`);
  // light-my-request's own require('cookie') (cookie 2 is ESM-only).
  const requireFromLmr = createRequire(join(repoRoot, 'node_modules', 'light-my-request', 'index.js'));
  const cookie = requireFromLmr('cookie') as { stringifySetCookie: (c: { name: string; value: string }) => string };
  assert.equal(cookie.stringifySetCookie({ name: 'a', value: 'b' }), 'a=b');
  // @nats-io/nuid's identifiers (crypto.getRandomValues): 22 base-62 characters, all different.
  const requireFromNats = createRequire(join(repoRoot, 'node_modules', '@nats-io', 'nats-core', 'package.json'));
  const { nuid } = requireFromNats('@nats-io/nuid') as { nuid: { next(): string } };
  const ids = new Set(Array.from({ length: 100 }, () => nuid.next()));
  assert.equal(ids.size, 100);
  for (const id of ids) assert.match(id, /^[0-9A-Za-z]{22}$/);
  const { STEMMED_LANGUAGES, stemmerFor } = await import('../../src/engine/stemmers.js');
  for (const lang of STEMMED_LANGUAGES) {
    const stem = stemmerFor(lang);
    assert.ok(stem, lang);
    assert.equal(typeof stem('running'), 'string', lang);
  }
  assert.equal(stemmerFor('en')!('connections'), 'connect');
  assert.equal(stemmerFor('de')!('häuser'), 'haus');
});
