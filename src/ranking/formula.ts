// The L1 formula language (docs/ranking.md, ADR 0121): a small, safe expression language over named
// features. Parsed and type-checked once per request, compiled to closures (no eval, no Function, no
// property access: a formula can only read the feature row it is given).
//
//   expr    := or ('?' expr ':' expr)?
//   or      := and ('||' and)*          and := cmp ('&&' cmp)*
//   cmp     := add (('<' | '<=' | '>' | '>=' | '==' | '!=') add)?
//   add     := mul (('+' | '-') mul)*   mul := unary (('*' | '/') unary)*
//   unary   := '-' unary | '!' unary | primary
//   primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
//
// Functions: min(a, b, ...), max(a, b, ...), log(x) (natural), exp(x), sqrt(x), abs(x),
// if(condition, then, else). Types: number and boolean; arithmetic takes numbers, `&&` `||` `!` and
// conditions take booleans, comparisons give booleans, and the formula must give a number.
// Pure: no I/O, no clock.
import { AppError } from '../domain/errors.js';

/** Longest formula (characters; the wire schema says the same). */
export const MAX_FORMULA_CHARS = 4096;
/** Most nodes of a parsed formula, and the deepest nesting. */
export const MAX_FORMULA_NODES = 512;
export const MAX_FORMULA_DEPTH = 64;

type Type = 'number' | 'boolean';

export type FormulaNode =
  | { k: 'num'; v: number; at: number }
  | { k: 'var'; name: string; at: number }
  | { k: 'neg' | 'not'; a: FormulaNode; at: number }
  | { k: 'bin'; op: string; a: FormulaNode; b: FormulaNode; at: number }
  | { k: 'call'; fn: string; args: FormulaNode[]; at: number }
  | { k: 'cond'; c: FormulaNode; a: FormulaNode; b: FormulaNode; at: number };

const FUNCTIONS: Record<string, { min: number; max: number }> = {
  min: { min: 2, max: 32 },
  max: { min: 2, max: 32 },
  log: { min: 1, max: 1 },
  exp: { min: 1, max: 1 },
  sqrt: { min: 1, max: 1 },
  abs: { min: 1, max: 1 },
  if: { min: 3, max: 3 },
};

const bad = (message: string, extra: Record<string, unknown> = {}) => new AppError('validation_failed', `l1.formula: ${message}`, { extra: { field: 'l1.formula', ...extra } });

interface Token {
  t: 'num' | 'name' | 'op' | 'end';
  v: string;
  at: number;
}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(i, i + 64));
    if (num) {
      out.push({ t: 'num', v: num[0], at: i });
      i += num[0].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i, i + 128));
    if (name) {
      out.push({ t: 'name', v: name[0], at: i });
      i += name[0].length;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (['<=', '>=', '==', '!=', '&&', '||'].includes(two)) {
      out.push({ t: 'op', v: two, at: i });
      i += 2;
      continue;
    }
    if ('+-*/()<>,?:!'.includes(c)) {
      out.push({ t: 'op', v: c, at: i });
      i++;
      continue;
    }
    throw bad(`unexpected character ${JSON.stringify(c)} at position ${i}; a formula holds numbers, feature names, + - * /, comparisons, && || !, ? :, parentheses and the functions ${Object.keys(FUNCTIONS).join(', ')}.`);
  }
  out.push({ t: 'end', v: '', at: src.length });
  return out;
}

/** Parses a formula into its tree (syntax only; {@link checkFormula} types it). */
export function parseFormula(src: string): FormulaNode {
  if (src.length > MAX_FORMULA_CHARS) throw bad(`the formula has ${src.length} characters; the limit is ${MAX_FORMULA_CHARS}.`);
  const toks = tokenize(src);
  let p = 0;
  let nodes = 0;
  const peek = () => toks[p]!;
  const next = () => toks[p++]!;
  const isOp = (v: string) => peek().t === 'op' && peek().v === v;
  const expect = (v: string) => {
    const t = next();
    if (t.t !== 'op' || t.v !== v) throw bad(`expected "${v}" at position ${t.at}, found ${t.t === 'end' ? 'the end' : JSON.stringify(t.v)}.`);
  };
  const mk = <N extends FormulaNode>(n: N, depth: number): N => {
    if (++nodes > MAX_FORMULA_NODES) throw bad(`the formula has more than ${MAX_FORMULA_NODES} parts.`);
    if (depth > MAX_FORMULA_DEPTH) throw bad(`the formula nests deeper than ${MAX_FORMULA_DEPTH} levels.`);
    return n;
  };
  const expr = (d: number): FormulaNode => {
    if (d > MAX_FORMULA_DEPTH) throw bad(`the formula nests deeper than ${MAX_FORMULA_DEPTH} levels.`);
    const c = or(d);
    if (isOp('?')) {
      const at = next().at;
      const a = expr(d + 1);
      expect(':');
      const b = expr(d + 1);
      return mk({ k: 'cond', c, a, b, at }, d);
    }
    return c;
  };
  const binLevel = (ops: string[], sub: (d: number) => FormulaNode, single = false) => (d: number): FormulaNode => {
    let a = sub(d + 1);
    while (peek().t === 'op' && ops.includes(peek().v)) {
      const t = next();
      const b = sub(d + 1);
      a = mk({ k: 'bin', op: t.v, a, b, at: t.at }, d);
      if (single && peek().t === 'op' && ops.includes(peek().v)) throw bad(`comparisons do not chain (position ${peek().at}); combine them with && or ||.`);
    }
    return a;
  };
  const unary = (d: number): FormulaNode => {
    if (d > MAX_FORMULA_DEPTH) throw bad(`the formula nests deeper than ${MAX_FORMULA_DEPTH} levels.`);
    if (isOp('-')) {
      const at = next().at;
      return mk({ k: 'neg', a: unary(d + 1), at }, d);
    }
    if (isOp('!')) {
      const at = next().at;
      return mk({ k: 'not', a: unary(d + 1), at }, d);
    }
    return primary(d);
  };
  const primary = (d: number): FormulaNode => {
    const t = next();
    if (t.t === 'num') {
      const v = Number(t.v);
      if (!Number.isFinite(v)) throw bad(`the number ${t.v} at position ${t.at} is not finite.`);
      return mk({ k: 'num', v, at: t.at }, d);
    }
    if (t.t === 'name') {
      if (isOp('(')) {
        next();
        const spec = FUNCTIONS[t.v];
        if (!spec) throw bad(`unknown function ${t.v}() at position ${t.at}; the functions are ${Object.keys(FUNCTIONS).join(', ')}.`);
        const args: FormulaNode[] = [expr(d + 1)];
        while (isOp(',')) {
          next();
          args.push(expr(d + 1));
        }
        expect(')');
        if (args.length < spec.min || args.length > spec.max) throw bad(`${t.v}() takes ${spec.min === spec.max ? spec.min : `${spec.min} to ${spec.max}`} arguments (position ${t.at}; got ${args.length}).`);
        return mk({ k: 'call', fn: t.v, args, at: t.at }, d);
      }
      if (t.v === 'true' || t.v === 'false') throw bad(`${t.v} at position ${t.at}: write a comparison instead of a boolean literal.`);
      return mk({ k: 'var', name: t.v, at: t.at }, d);
    }
    if (t.t === 'op' && t.v === '(') {
      const e = expr(d + 1);
      expect(')');
      return e;
    }
    throw bad(`unexpected ${t.t === 'end' ? 'end of formula' : JSON.stringify(t.v)} at position ${t.at}.`);
  };
  const mul = binLevel(['*', '/'], unary);
  const add = binLevel(['+', '-'], mul);
  const cmp = binLevel(['<', '<=', '>', '>=', '==', '!='], add, true);
  const and = binLevel(['&&'], cmp);
  const or = binLevel(['||'], and);
  const tree = expr(0);
  const rest = peek();
  if (rest.t !== 'end') throw bad(`unexpected ${JSON.stringify(rest.v)} at position ${rest.at} after a complete expression.`);
  return tree;
}

/** The feature names a formula reads, in first-use order. */
export function formulaVariables(n: FormulaNode, out: string[] = []): string[] {
  switch (n.k) {
    case 'num':
      break;
    case 'var':
      if (!out.includes(n.name)) out.push(n.name);
      break;
    case 'neg':
    case 'not':
      formulaVariables(n.a, out);
      break;
    case 'bin':
      formulaVariables(n.a, out);
      formulaVariables(n.b, out);
      break;
    case 'call':
      for (const a of n.args) formulaVariables(a, out);
      break;
    case 'cond':
      formulaVariables(n.c, out);
      formulaVariables(n.a, out);
      formulaVariables(n.b, out);
      break;
  }
  return out;
}

function typeOf(n: FormulaNode): Type {
  const want = (x: FormulaNode, t: Type, what: string) => {
    const got = typeOf(x);
    if (got !== t) throw bad(`${what} at position ${x.at} needs a ${t}, got a ${got}.`);
  };
  switch (n.k) {
    case 'num':
    case 'var':
      return 'number';
    case 'neg':
      want(n.a, 'number', 'unary minus');
      return 'number';
    case 'not':
      want(n.a, 'boolean', '!');
      return 'boolean';
    case 'bin':
      if (n.op === '&&' || n.op === '||') {
        want(n.a, 'boolean', `the left side of ${n.op}`);
        want(n.b, 'boolean', `the right side of ${n.op}`);
        return 'boolean';
      }
      want(n.a, 'number', `the left side of ${n.op}`);
      want(n.b, 'number', `the right side of ${n.op}`);
      return ['+', '-', '*', '/'].includes(n.op) ? 'number' : 'boolean';
    case 'call':
      if (n.fn === 'if') {
        want(n.args[0]!, 'boolean', 'the condition of if()');
        want(n.args[1]!, 'number', 'the value of if()');
        want(n.args[2]!, 'number', 'the else value of if()');
        return 'number';
      }
      n.args.forEach((a, i) => want(a, 'number', `argument ${i + 1} of ${n.fn}()`));
      return 'number';
    case 'cond':
      want(n.c, 'boolean', 'the condition of ? :');
      want(n.a, 'number', 'the value of ? :');
      want(n.b, 'number', 'the else value of ? :');
      return 'number';
  }
}

/** Type-checks a parsed formula: it must give a number. */
export function checkFormula(n: FormulaNode): void {
  if (typeOf(n) !== 'number') throw bad('the formula gives a comparison (true/false); a formula must give a number (use if(condition, a, b) or condition ? a : b).');
}

/** A compiled formula: reads a feature row (values by slot) and gives a score. */
export type FormulaFn = (row: Float64Array) => number;

type Num = (row: Float64Array) => number;
type Bool = (row: Float64Array) => boolean;

/**
 * Compiles a checked formula to closures. `slot` maps each feature name to its index in the row the
 * evaluator will be given. Non-finite intermediate results follow IEEE arithmetic (log(0) = -Infinity,
 * x / 0 = ±Infinity, NaN compares false); the caller ranks a NaN score last.
 */
export function compileFormula(tree: FormulaNode, slot: (name: string) => number, constant: (name: string) => number | undefined = () => undefined): FormulaFn {
  const num = (n: FormulaNode): Num => {
    switch (n.k) {
      case 'num': {
        const v = n.v;
        return () => v;
      }
      case 'var': {
        // a variable that is no row feature and has a request-given value (missing_values) is that constant
        const c = constant(n.name);
        if (c !== undefined) return () => c;
        const i = slot(n.name);
        return (r) => r[i]!;
      }
      case 'neg': {
        const a = num(n.a);
        return (r) => -a(r);
      }
      case 'bin': {
        const a = num(n.a);
        const b = num(n.b);
        switch (n.op) {
          case '+':
            return (r) => a(r) + b(r);
          case '-':
            return (r) => a(r) - b(r);
          case '*':
            return (r) => a(r) * b(r);
          case '/':
            return (r) => a(r) / b(r);
        }
        break;
      }
      case 'call': {
        if (n.fn === 'if') {
          const c = bool(n.args[0]!);
          const a = num(n.args[1]!);
          const b = num(n.args[2]!);
          return (r) => (c(r) ? a(r) : b(r));
        }
        const args = n.args.map(num);
        const [a] = args as [Num];
        switch (n.fn) {
          case 'log':
            return (r) => Math.log(a(r));
          case 'exp':
            return (r) => Math.exp(a(r));
          case 'sqrt':
            return (r) => Math.sqrt(a(r));
          case 'abs':
            return (r) => Math.abs(a(r));
          case 'min':
            return args.length === 2 ? (r) => Math.min(args[0]!(r), args[1]!(r)) : (r) => Math.min(...args.map((f) => f(r)));
          case 'max':
            return args.length === 2 ? (r) => Math.max(args[0]!(r), args[1]!(r)) : (r) => Math.max(...args.map((f) => f(r)));
        }
        break;
      }
      case 'cond': {
        const c = bool(n.c);
        const a = num(n.a);
        const b = num(n.b);
        return (r) => (c(r) ? a(r) : b(r));
      }
      default:
        break;
    }
    throw new Error(`formula compiler: ${n.k} is not a number (the type check should have refused it)`);
  };
  const bool = (n: FormulaNode): Bool => {
    if (n.k === 'not') {
      const a = bool(n.a);
      return (r) => !a(r);
    }
    if (n.k === 'bin') {
      if (n.op === '&&' || n.op === '||') {
        const a = bool(n.a);
        const b = bool(n.b);
        return n.op === '&&' ? (r) => a(r) && b(r) : (r) => a(r) || b(r);
      }
      const a = num(n.a);
      const b = num(n.b);
      switch (n.op) {
        case '<':
          return (r) => a(r) < b(r);
        case '<=':
          return (r) => a(r) <= b(r);
        case '>':
          return (r) => a(r) > b(r);
        case '>=':
          return (r) => a(r) >= b(r);
        case '==':
          return (r) => a(r) === b(r);
        case '!=':
          return (r) => a(r) !== b(r);
      }
    }
    throw new Error(`formula compiler: ${n.k} is not a boolean (the type check should have refused it)`);
  };
  return num(tree);
}

/** A formula parsed, checked and compiled against a slot order: what the pipeline evaluates. */
export interface CompiledFormula {
  source: string;
  variables: string[];
  fn: FormulaFn;
}

/** Parses, checks and compiles `src`; `slots` gives the row order (every variable must be in it). */
export function prepareFormula(src: string, slots: readonly string[]): CompiledFormula {
  const tree = parseFormula(src);
  checkFormula(tree);
  const variables = formulaVariables(tree);
  const fn = compileFormula(tree, (name) => {
    const i = slots.indexOf(name);
    if (i < 0) throw bad(`unknown feature ${name}.`);
    return i;
  });
  return { source: src, variables, fn };
}
