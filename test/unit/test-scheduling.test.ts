// The test runner's scheduling (scripts/test-scheduling.mjs, ADR 0300; issue 25): the longest files
// start first, and beyond TEST_CONCURRENCY a file starts only while the CPUs have been half idle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../helpers/paths.js';

interface Scheduling {
  UNKNOWN_MS: number;
  startOrder(files: string[], measured: Record<string, { ms: number }>, name: (f: string) => string): string[];
  idleShare(first: string, last: string): number | null;
  mayStart(o: { running: number; base: number; most: number; idle: number | null; sinceLastStartMs: number }): boolean;
}
const s = (await import(pathToFileURL(join(repoRoot, 'scripts', 'test-scheduling.mjs')).href)) as Scheduling;

test('files start longest first; a file the schedule does not list counts as UNKNOWN_MS; ties in path order', () => {
  const measured = { 'a/slow': { ms: 90_000 }, 'b/quick': { ms: 1_000 }, 'c/mid': { ms: s.UNKNOWN_MS }, 'd/long': { ms: 40_000 } };
  const files = ['b/quick', 'z/new', 'c/mid', 'a/slow', 'd/long', 'e/new'];
  assert.deepEqual(s.startOrder(files, measured, (f) => f), ['a/slow', 'd/long', 'c/mid', 'e/new', 'z/new', 'b/quick']);
  assert.deepEqual(files, ['b/quick', 'z/new', 'c/mid', 'a/slow', 'd/long', 'e/new'], 'the input is left as it was');
});

test('the idle share of the CPUs between two /proc/stat lines', () => {
  // user nice system idle iowait irq softirq steal
  const a = 'cpu  100 0 50 1000 10 0 0 0 0 0';
  const b = 'cpu  150 0 70 1120 10 0 0 0 0 0';
  assert.equal(s.idleShare(a, b), 120 / 190);
  assert.equal(s.idleShare(a, a), null, 'no time passed');
});

test('below TEST_CONCURRENCY a file always starts; beyond it only while the CPUs idle, one every two seconds, up to the most', () => {
  const base = 2;
  const most = 4;
  assert.equal(s.mayStart({ running: 0, base, most, idle: null, sinceLastStartMs: 0 }), true);
  assert.equal(s.mayStart({ running: 1, base, most, idle: 0, sinceLastStartMs: 0 }), true, 'a busy machine still runs TEST_CONCURRENCY files');
  assert.equal(s.mayStart({ running: 2, base, most, idle: 0.9, sinceLastStartMs: 5_000 }), true, 'idle CPUs: one more');
  assert.equal(s.mayStart({ running: 2, base, most, idle: 0.3, sinceLastStartMs: 5_000 }), false, 'busy CPUs: no more');
  assert.equal(s.mayStart({ running: 2, base, most, idle: null, sinceLastStartMs: 5_000 }), false, 'no measurement yet: no more');
  assert.equal(s.mayStart({ running: 3, base, most, idle: 0.9, sinceLastStartMs: 500 }), false, 'not within two seconds of the last start');
  assert.equal(s.mayStart({ running: 4, base, most, idle: 1, sinceLastStartMs: 60_000 }), false, 'never beyond TEST_MAX_CONCURRENCY');
  assert.equal(s.mayStart({ running: 2, base: 2, most: 2, idle: 1, sinceLastStartMs: 60_000 }), false, 'TEST_MAX_CONCURRENCY = TEST_CONCURRENCY turns it off');
});
