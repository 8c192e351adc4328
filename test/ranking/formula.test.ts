// The L1 formula language (src/ranking/formula.ts): grammar and precedence, functions, the type check,
// limits, refusals that name the problem, and that a formula cannot reach anything but its row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/domain/errors.js';
import { checkFormula, compileFormula, formulaVariables, parseFormula, prepareFormula } from '../../src/ranking/formula.js';

const SLOTS = ['a', 'b', 'c', 'rrf'];
const ev = (src: string, row: number[] = [2, 3, 5, 0.5]) => prepareFormula(src, SLOTS).fn(Float64Array.from(row));
const refused = (src: string, pattern: RegExp) =>
  assert.throws(
    () => prepareFormula(src, SLOTS),
    (e: unknown) => e instanceof AppError && e.code === 'validation_failed' && pattern.test(e.message),
    src,
  );

test('arithmetic follows the usual precedence and associativity', () => {
  assert.equal(ev('a + b * c'), 17);
  assert.equal(ev('(a + b) * c'), 25);
  assert.equal(ev('c - b - a'), 0);
  assert.equal(ev('c / a / 5'), 0.5);
  assert.equal(ev('-a * -b'), 6);
  assert.equal(ev('1.5e1 + .5'), 15.5);
  assert.equal(ev('rrf * 2'), 1);
});

test('functions: min, max (variadic), log, exp, sqrt, abs', () => {
  assert.equal(ev('min(a, b, c)'), 2);
  assert.equal(ev('max(a, b, c, 1)'), 5);
  assert.equal(ev('log(exp(c))'), 5);
  assert.equal(ev('sqrt(a * 8)'), 4);
  assert.equal(ev('abs(a - c)'), 3);
  assert.equal(ev('log(0)'), -Infinity);
});

test('comparisons, && || !, the conditional and if()', () => {
  assert.equal(ev('a < b ? 1 : 0'), 1);
  assert.equal(ev('a >= b ? 1 : 0'), 0);
  assert.equal(ev('if(a == 2 && !(b != 3), 10, 20)'), 10);
  assert.equal(ev('if(a > 9 || c <= 5, 10, 20)'), 10);
  // nested conditionals associate to the right
  assert.equal(ev('a > 5 ? 1 : b > 5 ? 2 : 3'), 3);
  // NaN compares false
  assert.equal(prepareFormula('a > 0 ? 1 : 2', SLOTS).fn(Float64Array.from([NaN, 0, 0, 0])), 2);
});

test('the type check: numbers and booleans do not mix; the result is a number', () => {
  refused('a < b', /must give a number/);
  refused('(a < b) + 1', /needs a number/);
  refused('a && b', /needs a boolean/);
  refused('if(a, b, c)', /condition of if\(\) .*needs a boolean/);
  refused('!a', /needs a boolean/);
  refused('a < b < c', /do not chain/);
});

test('syntax errors name the position and what was found', () => {
  refused('a +', /unexpected end of formula at position 3/);
  refused('a b', /unexpected "b" at position 2/);
  refused('(a', /expected "\)" at position 2/);
  refused('pow(a, 2)', /unknown function pow\(\)/);
  refused('min(a)', /min\(\) takes 2 to 32 arguments/);
  refused('log(a, b)', /log\(\) takes 1 arguments/);
  refused('a ^ 2', /unexpected character "\^"/);
  refused('true ? 1 : 2', /boolean literal/);
  refused('zz + 1', /unknown feature zz/);
});

test('a formula reaches only its row: no property access, calls or strings', () => {
  refused('process.exit(1)', /unexpected character "\."/);
  refused('a["constructor"]', /unexpected character "\["/);
  refused("'x'", /unexpected character/);
  refused('constructor', /unknown feature constructor/);
  refused('__proto__ + 1', /unknown feature __proto__/);
  refused('eval(a)', /unknown function eval/);
});

test('limits: length, parts and depth', () => {
  refused('a+'.repeat(2100) + 'a', /the limit is 4096/);
  refused('a+'.repeat(600) + 'a', /more than 512 parts/);
  refused('('.repeat(80) + 'a' + ')'.repeat(80), /deeper than 64/);
  refused('-'.repeat(80) + 'a', /deeper than 64/);
});

test('variables are listed once in first-use order; compiling needs every slot', () => {
  const t = parseFormula('b * a + max(b, c) + if(a > 1, rrf, 0)');
  checkFormula(t);
  assert.deepEqual(formulaVariables(t), ['b', 'a', 'c', 'rrf']);
  const fn = compileFormula(t, (n) => SLOTS.indexOf(n));
  assert.equal(fn(Float64Array.from([2, 3, 5, 0.5])), 6 + 5 + 0.5);
});
