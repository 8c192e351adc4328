// Equations of the real development set (issue 28, ADR 0321): the displayed equations of each LaTeX source
// (the ground truth), normalised LaTeX token sequences, and how a tool's output is matched against them.
//   * Source equations: `equation`, `align`, `gather`, `multline`, `eqnarray`, `displaymath` (starred or
//     not), `\[...\]` and `$$...$$` in the document body, after comments, `\iffalse` blocks, verbatim-like
//     environments and `\verb` are removed (a manual's code examples are not typeset math). The document's
//     own macros (`\newcommand{\R}{\mathbb{R}}`, `\newcommand{\norm}[1]{..}`, `\def\R{...}`,
//     `\DeclareMathOperator`, `\DeclarePairedDelimiter`, `\let`; ADR 0367: before it only the preamble's
//     argument-free ones) are expanded with their arguments; a package's macros are not in the source.
//   * Tokens: commands and single characters; what does not change the rendered symbols is dropped (labels,
//     tags, spacing, `\left`/`\right` and size commands, alignment `&` and `\\`, braces, font switches such
//     as `\mathrm`/`\mathcal` around their argument, a closing full stop or comma); synonyms are unified
//     (`\le` and `\leq`, `\dots` and `\cdots`, `\varepsilon` and `\epsilon`, `\dfrac` and `\frac`,
//     `\stackrel` and `\overset`, which render alike; ADR 0367 adds it and the width and size switches
//     `\mathclap`, `\tiny`, ... to what is dropped).
//   * LaTeX match (Lectern only: raw extractors emit no LaTeX): a source equation is matched when some output
//     display (`$$...$$`), or 2-4 consecutive ones (an alignment whose numbered rows are displayed apart),
//     has token similarity >= 0.8 (1 - edit distance / longer length); `exact` when the sequences are equal.
//   * Symbols in order (every tool): the equation's visible symbols (letters, digits, Greek, operators as
//     Unicode) as one string, found in the output's text (LaTeX of `$...$` turned into the same symbols,
//     white space removed) with character similarity >= 0.8 in the best window.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UNICODE_TEX } from '../../../src/recognition/structure/math-layout.js';
import { markdownMath, texError } from './render.js';
import { group, skipSpace } from './tex-source.js';

const VERBATIM_ENVS = /^(?:verbatim\*?|Verbatim\*?|BVerbatim|lstlisting|minted|alltt|comment|macrocode\*?|LTXexample|example|sourcecode|code|tcblisting|filecontents\*?|verbatimtab|listing|lstlisting\*?|dispExample\*?|demo|latexcode|tcbexample|codeexample|sverb|boxedverbatim)$/;
const DISPLAY_ENVS = /^(?:equation|align|gather|multline|eqnarray|displaymath|flalign|alignat)\*?$/;

const stripComments = (s: string): string => s.replace(/(^|[^\\])%.*$/gm, '$1');

/**
 * A macro the document defines itself: its number of arguments, the default of an optional first one
 * (`\newcommand{\x}[2][1]{..}`), and its body with `#1`..`#9` where the arguments go.
 */
export interface SourceMacro {
  readonly args: number;
  readonly optional: string | null;
  readonly body: string;
}



/** A macro name written `{\x}`, `\x` (or `{\x*}`-free): the name and the index after it. */
function macroName(s: string, at: number, letters = /^\\([A-Za-z]+|.)/): { name: string; end: number } | null {
  at = skipSpace(s, at);
  const braced = s[at] === '{';
  const m = letters.exec(s.slice(braced ? skipSpace(s, at + 1) : at, (braced ? skipSpace(s, at + 1) : at) + 80));
  if (!m) return null;
  let end = (braced ? skipSpace(s, at + 1) : at) + m[0].length;
  if (braced) {
    end = skipSpace(s, end);
    if (s[end] !== '}') return null;
    end++;
  }
  return { name: m[1]!, end };
}

/**
 * The macros a document defines itself (issue 28: the ground truth expands the document's OWN definitions
 * before comparing, since the PDF shows what they typeset): `\newcommand`, `\renewcommand`,
 * `\providecommand` (starred or not, with `[n]` arguments and an optional first argument's default),
 * `\def`/`\gdef` with undelimited parameters `#1#2..`, `\DeclareMathOperator` (as `\operatorname{..}`),
 * `\DeclarePairedDelimiter` (the delimiters around its one argument) and `\let\x\y` / `\let\x=\y`.
 * A `\def` with delimited parameters (`\def\x#1.{..}`) is skipped: its use cannot be read without TeX.
 * Package macros (`\pderiv` of physics) are not in the source and stay as written.
 */
export function sourceMacros(src: string, lineStartOnly = false, before = Infinity, seed: ReadonlyMap<string, SourceMacro> = new Map(), sty = false): Map<string, SourceMacro> {
  const out = new Map<string, SourceMacro>();
  // A package's file (ADR 0367 amendment c) names its internals with `@` and defines with xparse too.
  const re = sty
    ? /\\(newcommand|renewcommand|providecommand|DeclareRobustCommand|def|gdef|edef|xdef|DeclareMathOperator|DeclarePairedDelimiter|let|NewDocumentCommand|RenewDocumentCommand|DeclareDocumentCommand|ProvideDocumentCommand)(?![A-Za-z@])\*?/g
    : /\\(newcommand|renewcommand|providecommand|DeclareRobustCommand|def|gdef|edef|xdef|DeclareMathOperator|DeclarePairedDelimiter|let)(?![A-Za-z])\*?/g;
  const nameRe = sty ? /^\\([A-Za-z@]+|.)/ : /^\\([A-Za-z]+|.)/;
  if (sty) {
    // `\DeclareMathAlphabet{\sfsl}{OT1}{cmss}{m}{sl}`: a math alphabet, read as the nearest KaTeX one (font
    // switches are dropped from the tokens anyway); `\DeclareMathSymbol{\cpi}{\mathord}{F}{`p}` in a font
    // declared on Adobe Symbol (`psy`): that font's Greek letter.
    for (const m of src.matchAll(/\\DeclareMathAlphabet\s*\{?\\([A-Za-z]+)\}?\s*\{[^}]*\}\s*\{([^}]*)\}/g)) {
      out.set(m[1]!, { args: 1, optional: null, body: `${/ss/.test(m[2]!) ? '\\mathsf' : /tt/.test(m[2]!) ? '\\mathtt' : '\\mathrm'}{#1}` });
    }
    const symbolFonts = new Set([...src.matchAll(/\\DeclareSymbolFont\s*\{([^}]+)\}\s*\{[^}]*\}\s*\{psy\}/g)].map((m) => m[1]!));
    for (const m of src.matchAll(/\\DeclareMathSymbol\s*\{?\\([A-Za-z]+)\}?\s*\{[^}]*\}\s*\{([^}]+)\}\s*\{`([A-Za-z])\}/g)) {
      const greek = symbolFonts.has(m[2]!) ? SYMBOL_GREEK[m[3]!] : undefined;
      if (greek) out.set(m[1]!, { args: 0, optional: null, body: `\\${greek} ` });
    }
    // `\renewcommand*{~}{..}`: the active tie, kept under the name `~`.
    const tie = /\\(?:re)?newcommand\*?\s*\{~\}\s*/.exec(src);
    const tieBody = tie ? group(src, tie.index + tie[0].length) : null;
    if (tieBody && !badBody(tieBody.text)) out.set('tie~', { args: 0, optional: null, body: tieBody.text });
  }
  const known = (name: string): SourceMacro | undefined => out.get(name) ?? seed.get(name);
  for (const m of src.matchAll(re)) {
    // A definition counts from where it stands (a document may redefine a macro between equations).
    if (m.index! >= before) break;
    const kind = m[1]!;
    // In a body, only a definition that starts its line (after `\global`, `\long`, as LyX writes them): a
    // manual's prose that shows one (`\cmd\newcommand \marg{..}`, `\texttt{\def\x}`) defines nothing.
    const lead = src.slice(Math.max(0, m.index! - 200), m.index!).replace(/(?:\\(?:global|long|protected|outer)\s*)+$/, '');
    if (lineStartOnly && !/(?:^|\n)[ \t]*$/.test(lead)) continue;
    const nm = macroName(src, m.index! + m[0].length, nameRe);
    if (!nm || !(sty ? /^(?:[A-Za-z@]+|[.|=^'~])$/ : /^[A-Za-z]+$/).test(nm.name)) continue;
    let at = nm.end;
    if (kind === 'let') {
      const t = (sty ? /^\s*=?\s*\\([A-Za-z@]+|.)/ : /^\s*=?\s*\\([A-Za-z]+|.)/).exec(src.slice(at, at + 80));
      if (!t || t[1] === nm.name) continue;
      // `\let` copies the meaning the command has now (ADR 0367 amendment c): a macro defined here is copied;
      // anything else (`\let\STATEXGamma=\Gamma` before `\Gamma` is redefined) keeps the original command,
      // written so that a later redefinition of that name is not expanded into it.
      const now = known(t[1]!);
      out.set(nm.name, now ?? { args: 0, optional: null, body: `${PRIMITIVE}${t[1]} ` });
      continue;
    }
    if (/DocumentCommand$/.test(kind)) {
      // xparse: mandatory arguments (`m`) after at most one optional first one with a default (`O{..}`).
      at = skipSpace(src, at);
      const spec = group(src, at);
      const body = spec ? group(src, skipSpace(src, spec.end)) : null;
      if (!spec || !body) continue;
      const o = /^\s*O\s*\{([^{}]*)\}/.exec(spec.text);
      const rest = (o ? spec.text.slice(o[0].length) : spec.text).replace(/\s+/g, '');
      if (!/^m*$/.test(rest) || badBody(body.text)) continue;
      if (kind === 'ProvideDocumentCommand' && known(nm.name)) continue;
      out.set(nm.name, { args: rest.length + (o ? 1 : 0), optional: o ? o[1]! : null, body: body.text });
      continue;
    }
    if (kind === 'DeclareMathOperator') {
      const body = group(src, skipSpace(src, at));
      if (body) out.set(nm.name, { args: 0, optional: null, body: `\\operatorname{${body.text}}` });
      continue;
    }
    if (kind === 'DeclarePairedDelimiter') {
      const l = group(src, skipSpace(src, at));
      const r = l ? group(src, skipSpace(src, l.end)) : null;
      if (l && r) out.set(nm.name, { args: 1, optional: null, body: `${l.text} #1 ${r.text}` });
      continue;
    }
    let args = 0;
    let optional: string | null = null;
    if (/def$/.test(kind)) {
      const params = /^(?:#[1-9])*/.exec(src.slice(at, at + 20))![0];
      args = params.length / 2;
      at += params.length;
      if (src[skipSpace(src, at)] !== '{') continue;
    } else {
      at = skipSpace(src, at);
      const n = group(src, at, '[', ']');
      if (n) {
        args = Number(n.text.trim());
        if (!Number.isInteger(args) || args < 0 || args > 9) continue;
        at = skipSpace(src, n.end);
        const o = group(src, at, '[', ']');
        if (o) {
          optional = o.text;
          at = skipSpace(src, o.end);
        }
      }
    }
    const body = group(src, skipSpace(src, at));
    // A body that branches or builds names (`\ifx#1\right ... \fi`, `\csname`) needs TeX to run: left as
    // written (`\ifthenelse{\equal{#1}{}}` is decided when the macro is used, ADR 0367 amendment c).
    if (!body || badBody(body.text)) continue;
    // \providecommand defines only what is not defined yet; the others (re)define.
    if (kind === 'providecommand' && out.has(nm.name)) continue;
    out.set(nm.name, { args, optional, body: body.text });
  }
  return out;
}

/** Marks a command written by `\let` from a command not defined here: not expanded again (removed at the end). */
const PRIMITIVE = '\\\uE000';
/** Adobe Symbol's letters: the Greek letter each sets (`p` is pi). */
const SYMBOL_GREEK: Readonly<Record<string, string>> = { a: 'alpha', b: 'beta', c: 'chi', d: 'delta', e: 'epsilon', f: 'phi', g: 'gamma', h: 'eta', i: 'iota', k: 'kappa', l: 'lambda', m: 'mu', n: 'nu', p: 'pi', q: 'theta', r: 'rho', s: 'sigma', t: 'tau', u: 'upsilon', w: 'omega', x: 'xi', y: 'psi', z: 'zeta' };
const badBody = (body: string): boolean => /\\(?:if(?!thenelse)[A-Za-z]*|else|fi|csname|expandafter|futurelet)(?![A-Za-z])/.test(body);

/** One argument of a macro use at `at`: a braced group's content or a single token. */
function argument(s: string, at: number): { text: string; end: number } | null {
  at = skipSpace(s, at);
  if (at >= s.length) return null;
  const g = group(s, at);
  if (g) return g;
  const t = /^\\(?:[A-Za-z]+|.)|^[^{}]/u.exec(s.slice(at, at + 80));
  return t ? { text: t[0], end: at + t[0].length } : null;
}

/** Commands that set nothing in math (what `\ensuremath{..}` and `\xspace` leave). */
const INVISIBLE = /\\(?:ensuremath|xspace|relax|protect|normalfont|@)(?![A-Za-z])/g;

/**
 * A source equation with the document's own macros expanded (arguments substituted), repeatedly for
 * macros whose bodies use others; bounded (20 rounds, 20 000 characters) against recursive definitions.
 */
export function expandMacros(tex: string, macros: ReadonlyMap<string, SourceMacro>): string {
  if (!macros.size) return tex;
  // A package's macros (ADR 0367 amendment c): internals named with `@`, `\.`, `\|`, the active `~`.
  const at0 = [...macros.keys()].some((k) => !/^[A-Za-z]+$/.test(k));
  let s = tex;
  for (let round = 0; round < 20; round++) {
    let changed = false;
    let out = '';
    let at = 0;
    // A package's internals (`\wrap@x`) are named with `@`; a document's `\x@` is `\x` then `@`.
    const re = at0 ? /\\([A-Za-z@]+|[.|=^'~])|(?<!\\)~/g : /\\([A-Za-z]+)(?![A-Za-z])/g;
    for (let m = re.exec(s); m; m = re.exec(s)) {
      let name = m[1] ?? 'tie~';
      if (at0 && !macros.has(name) && name.includes('@')) {
        name = /^[A-Za-z]*/.exec(name)![0];
        re.lastIndex = m.index + 1 + name.length;
      }
      const def = name ? macros.get(name) : undefined;
      if (!def) continue;
      let end = m.index + (m[1] === undefined ? 1 : 1 + name.length);
      const args: string[] = [];
      if (def.optional !== null) {
        const o = group(s, skipSpace(s, end), '[', ']');
        if (o) end = o.end;
        args.push(o ? o.text : def.optional);
      }
      let complete = true;
      while (args.length < def.args) {
        const a = argument(s, end);
        if (!a) {
          complete = false;
          break;
        }
        args.push(a.text);
        end = a.end;
      }
      if (!complete) continue;
      // An argument is set off by spaces, as TeX keeps it one token list: `\lvert#1` with `I` is `\lvert I`, not `\lvertI`.
      const body = def.body.replace(/##|#([1-9])/g, (h, d: string | undefined) => (d ? ` ${args[Number(d) - 1] ?? ''} ` : '#'));
      // Set off as a group (`x^\R` is `x^{\mathbb{R}}`), except a body that is one command taking what
      // follows the use (a package's `\ol` is `\overline`).
      out += def.args === 0 && /^\s*\\[A-Za-z]+\s*$/.test(body) ? `${s.slice(at, m.index)} ${body.trim()} ` : `${s.slice(at, m.index)} {${body}} `;
      at = end;
      re.lastIndex = end;
      changed = true;
    }
    out += s.slice(at);
    s = ifThenElse(out);
    if (!changed || s.length > 20000) break;
  }
  return s.split(PRIMITIVE).join('\\').replace(INVISIBLE, ' ');
}

/**
 * `\ifthenelse{\equal{a}{b}}{yes}{no}` with both sides written out (a macro's arguments substituted):
 * the branch the comparison picks (ifthen's `\equal` compares the expanded text; spaces trimmed here).
 */
export function ifThenElse(s: string): string {
  for (let guard = 0; guard < 200; guard++) {
    const m = /\\ifthenelse\s*\{\s*\\equal\s*/.exec(s);
    if (!m) return s;
    const open = s.indexOf('{', m.index);
    const cond = group(s, open);
    const a = group(s, skipSpace(s, m.index + m[0].length));
    const b = a ? group(s, skipSpace(s, a.end)) : null;
    const yes = cond ? group(s, skipSpace(s, cond.end)) : null;
    const no = yes ? group(s, skipSpace(s, yes.end)) : null;
    if (!cond || !a || !b || !yes || !no || /#/.test(a.text + b.text)) return s;
    const norm = (x: string) => x.replace(/\s+/g, '');
    s = `${s.slice(0, m.index)} ${norm(a.text) === norm(b.text) ? yes.text : no.text} ${s.slice(no.end)}`;
  }
  return s;
}

/**
 * The packages' files a ground truth may read (ADR 0367 amendment c): `name.sty` under a TeX Live tree
 * (`usr/share/texlive/texmf-dist/tex/latex/*`, unpacked from Debian's texlive runtime packages, see
 * sty-packages.txt). LaTeX's own infrastructure and the packages KaTeX itself implements (amsmath,
 * amsfonts, mathtools, tools' bm, graphics, colour, hyperref, expl3) are not read: KaTeX renders their
 * commands as they are written, and their definitions are TeX internals.
 */
export interface PackageLibrary {
  sty(name: string): string | null;
}
const CORE_DIRS = /^(?:base|amsmath|amsfonts|amscls|tools|graphics|graphics-cfg|graphics-def|hyperref|l3kernel|l3packages|l3backend|l3experimental|oberdiek|xcolor|mathtools|etoolbox|kvoptions|geometry|babel|psnfss|fontspec|iftex|infwarerr|kvsetkeys|ltxcmds|pdftexcmds|auxhook|atbegshi|url|cyrillic|firstaid|latex-lab|carlisle|fancyvrb|listings|xkeyval|pgf|pgfopts|tikz-cd|xstring|ifthen)$/;
export function styLibrary(root: string): PackageLibrary | null {
  const base = join(root, 'usr', 'share', 'texlive', 'texmf-dist', 'tex', 'latex');
  if (!existsSync(base)) return null;
  const index = new Map<string, string>();
  const walk = (dir: string, depth: number) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory() && depth < 4) walk(join(dir, e.name), depth + 1);
      else if (e.isFile() && e.name.endsWith('.sty') && !index.has(e.name.slice(0, -4))) index.set(e.name.slice(0, -4), join(dir, e.name));
    }
  };
  for (const e of readdirSync(base, { withFileTypes: true })) if (e.isDirectory() && !CORE_DIRS.test(e.name)) walk(join(base, e.name), 1);
  const cache = new Map<string, string | null>();
  return {
    sty(name) {
      if (!cache.has(name)) cache.set(name, index.has(name) ? readFileSync(index.get(name)!, 'latin1') : null);
      return cache.get(name)!;
    },
  };
}

/** `\usepackage[opts]{a,b}` / `\RequirePackage`: each package with its options. */
function loadedPackages(src: string): { name: string; options: string[] }[] {
  const out: { name: string; options: string[] }[] = [];
  for (const m of src.matchAll(/\\(?:usepackage|RequirePackage)\s*(?:\[([^\]]*)\])?\s*\{([^}]*)\}/g)) {
    const options = (m[1] ?? '').split(',').map((o) => o.trim()).filter(Boolean);
    for (const n of m[2]!.split(',').map((x) => x.trim()).filter(Boolean)) out.push({ name: n, options });
  }
  return out;
}

/**
 * A package file with its option switches decided: `\newif\if@x` flags start false, are set by the file's
 * own `\@xtrue`, its `\ExecuteOptions{..}` and the options the document passes (`\DeclareOption{o}{\@xtrue}`);
 * `\ifmmode` is true (the macros are read for equations); each `\if@x ... \else ... \fi` of a known flag is
 * replaced by its branch. Other conditionals stay (a definition holding one is not read).
 */
export function decideConditionals(sty: string, options: readonly string[]): string {
  let s = stripComments(sty);
  const flags = new Map<string, boolean>();
  for (const m of s.matchAll(/\\newif\s*\\if([A-Za-z@]+)/g)) flags.set(m[1]!, false);
  s = s.replace(/\\newif\s*\\if[A-Za-z@]+/g, ' ');
  const sets = (text: string) => {
    for (const m of text.matchAll(/\\([A-Za-z@]+?)(true|false)(?![A-Za-z@])/g)) if (flags.has(m[1]!)) flags.set(m[1]!, m[2] === 'true');
  };
  const declared = new Map<string, string>();
  let outside = s;
  for (const m of s.matchAll(/\\DeclareOption\*?\s*/g)) {
    const name = group(s, m.index! + m[0].length);
    const body = name ? group(s, skipSpace(s, name.end)) : null;
    if (name && body) {
      declared.set(name.text.trim(), body.text);
      outside = outside.replace(s.slice(m.index!, body.end), ' ');
    }
  }
  sets(outside.split(/\\ProcessOptions/)[0]!);
  const chosen = new Set(options);
  for (const m of s.matchAll(/\\ExecuteOptions\s*\{([^}]*)\}/g)) for (const o of m[1]!.split(',')) chosen.add(o.trim());
  for (const o of chosen) sets(declared.get(o) ?? '');
  // What an option does besides setting flags (`\DeclareOption{x}{\renewcommand..}`) counts only when chosen.
  let kept = '';
  let from = 0;
  for (const m of s.matchAll(/\\DeclareOption\*?\s*/g)) {
    if (m.index! < from) continue;
    const name = group(s, m.index! + m[0].length);
    const body = name ? group(s, skipSpace(s, name.end)) : null;
    if (!name || !body) continue;
    kept += `${s.slice(from, m.index)} ${chosen.has(name.text.trim()) ? body.text : ''} `;
    from = body.end;
  }
  s = kept + s.slice(from);
  // Innermost conditional first; one whose flag is unknown is masked until the end.
  const MASK = '\uE001';
  for (let guard = 0; guard < 2000; guard++) {
    const m = /\\if([A-Za-z@]*)((?:(?!\\if[A-Za-z@]|\\fi(?![A-Za-z@]))[\s\S])*?)\\fi(?![A-Za-z@])/.exec(s);
    if (!m) break;
    const name = m[1]!;
    const value = name === 'mmode' ? true : flags.get(name);
    if (value === undefined || /^(?:thenelse|bool|toggle|str|def(?!ined)|cs(?!name)|num(?:comp|odd)|blank)/.test(name)) {
      s = s.slice(0, m.index) + `\\${MASK}if` + s.slice(m.index + 3);
      continue;
    }
    const [yes, no = ''] = m[2]!.split(/\\else(?![A-Za-z@])/);
    s = `${s.slice(0, m.index)}${value ? yes : no}${s.slice(m.index + m[0].length)}`;
  }
  return s.split(MASK).join('').replace(/\\(?:relax|expandafter)(?![A-Za-z@])/g, ' ');
}

/**
 * The macros of the packages a document loads (ADR 0367 amendment c), read from their own files: the
 * packages it names and those they require (three levels), options decided. A package's definition is
 * kept when it expands (its arguments `x`) to LaTeX that KaTeX renders; a command KaTeX already knows is
 * taken only from a package the document names itself (fnspe's `\Re` is fraktur "Re", not KaTeX's `\Re`).
 */
export function packageMacros(preamble: string, lib: PackageLibrary | null): Map<string, SourceMacro> {
  const out = new Map<string, SourceMacro>();
  if (!lib) return out;
  const direct = new Set<string>();
  const seen = new Set<string>();
  const visit = (name: string, options: readonly string[], depth: number) => {
    if (seen.has(name) || depth > 3) return;
    seen.add(name);
    const text = lib.sty(name);
    if (text === null) return;
    const decided = decideConditionals(text, options);
    for (const p of loadedPackages(decided)) visit(p.name, p.options, depth + 1);
    for (const [k, v] of sourceMacros(decided, false, Infinity, out, true)) {
      if (depth > 0 && katexKnows(k)) continue;
      out.set(k, v);
      if (depth === 0) direct.add(k);
    }
  };
  for (const p of loadedPackages(preamble)) visit(p.name, p.options, 0);
  // Keep what renders: a definition built on TeX internals (`\@ifnextchar`, `\mathpalette`) does not.
  const kept = new Map<string, SourceMacro>();
  for (const [k, v] of out) {
    if (k.includes('@')) {
      kept.set(k, v);
      continue;
    }
    const use = k === 'tie~' ? 'a~b' : `\\${k}${'{x}'.repeat(v.args - (v.optional !== null ? 1 : 0))}`;
    // A body may take what follows it (`\ul` is `\underline`): tried with one group after it too.
    const ok = [use, `${use}{x}`].some((u) => {
      const tex = expandMacros(u, out);
      return tex.length < 4000 && texError(tex) === null;
    });
    if (ok) kept.set(k, v);
  }
  for (const k of kept.keys()) if (k.includes('@') && ![...kept.values()].some((v) => v.body.includes(`\\${k}`))) kept.delete(k);
  return kept;
}

const knownCache = new Map<string, boolean>();
/** Whether KaTeX defines the command (its error, if any, is not an undefined control sequence). */
function katexKnows(name: string): boolean {
  if (!knownCache.has(name)) knownCache.set(name, !/Undefined control sequence/.test(texError(`\\${name}{x}{x}{x}`) ?? ''));
  return knownCache.get(name)!;
}

/** The displayed equations of a LaTeX source, in order, as written (macros expanded). */
export function sourceEquations(tex: string, lib: PackageLibrary | null = null): string[] {
  const src = stripComments(tex);
  const start = src.indexOf('\\begin{document}');
  if (start < 0) return [];
  let body = src.slice(start + 16, src.lastIndexOf('\\end{document}') > start ? src.lastIndexOf('\\end{document}') : undefined);
  body = body.replace(/\\begin\{([^}]+)\}[\s\S]*?\\end\{\1\}/g, (m, name: string) => (VERBATIM_ENVS.test(name) ? ' ' : m));
  body = body.replace(/\\iffalse[\s\S]*?\\fi\b/g, ' ');
  body = body.replace(/\\verb\*?([^A-Za-z\s])[\s\S]*?\1/g, ' ');
  // The document's own definitions: the preamble's, then the body's outside code examples (a manual's
  // `\newcommand` in a verbatim example defines nothing) that start their line and stand before the
  // equation, later ones overriding earlier ones.
  // The packages' macros first (ADR 0367 amendment c), then the document's own, which may redefine them.
  const packages = packageMacros(start > 0 ? src.slice(0, start) : '', lib);
  const preamble = new Map([...packages, ...sourceMacros(start > 0 ? src.slice(0, start) : '', false, Infinity, packages)]);
  const out: string[] = [];
  const re = /\\begin\{((?:equation|align|gather|multline|eqnarray|displaymath|flalign|alignat)\*?)\}(?:\{[^}]*\})?([\s\S]*?)\\end\{\1\}|\\\[([\s\S]*?)\\\]|\$\$([\s\S]*?)\$\$/g;
  for (const m of body.matchAll(re)) {
    if (m[1] && !DISPLAY_ENVS.test(m[1])) continue;
    const eq = (m[2] ?? m[3] ?? m[4] ?? '').trim();
    if (eq) out.push(expandMacros(eq, new Map([...preamble, ...sourceMacros(body, true, m.index!, preamble)])));
  }
  return out;
}

const DROP_WITH_ARG = /\\(?:label|tag\*?|hspace\*?|vspace\*?|phantom|hphantom|vphantom|intertext|shortintertext|eqref|ref|nonumber|notag)\b/;
const SYNONYMS: Readonly<Record<string, string>> = {
  '\\le': '\\leq', '\\ge': '\\geq', '\\ne': '\\neq', '\\leqslant': '\\leq', '\\geqslant': '\\geq', '\\to': '\\rightarrow', '\\gets': '\\leftarrow',
  '\\lbrace': '\\{', '\\rbrace': '\\}', '\\vert': '|', '\\lvert': '|', '\\rvert': '|', '\\mid': '|', '\\Vert': '\\|', '\\lVert': '\\|', '\\rVert': '\\|',
  '\\dots': '\\dots', '\\ldots': '\\dots', '\\cdots': '\\dots', '\\dotsc': '\\dots', '\\dotsb': '\\dots', '\\dotsm': '\\dots', '\\dotsi': '\\dots',
  '\\varepsilon': '\\epsilon', '\\varphi': '\\phi', '\\vartheta': '\\theta', '\\varrho': '\\rho', '\\varpi': '\\pi', '\\varsigma': '\\sigma',
  '\\colon': ':', '\\lbrack': '[', '\\rbrack': ']', '\\iff': '\\Leftrightarrow', '\\implies': '\\Rightarrow', '\\land': '\\wedge', '\\lor': '\\vee',
  '\\lnot': '\\neg', '\\dfrac': '\\frac', '\\tfrac': '\\frac', '\\cfrac': '\\frac', '\\prime': "'", '\\sb': '_', '\\sp': '^', '\\longrightarrow': '\\rightarrow',
  '\\Longrightarrow': '\\Rightarrow', '\\rightarrow': '\\rightarrow', '\\ast': '*', '\\lneq': '<', '\\dotplus': '+', '−': '-', '\\owns': '\\ni',
  '\\stackrel': '\\overset', '\\setminus': '\\backslash', '\\smallsetminus': '\\backslash', '\\emptyset': '\\emptyset', '\\varnothing': '\\emptyset', '\\bigl': '', '\\bigr': '',
};
/** Commands that only size, space, align or restyle: dropped (their argument, if any, stays). */
const NOISE = /^\\(?:left|right|middle|big|Big|bigg|Bigg|bigl|bigr|Bigl|Bigr|biggl|biggr|Biggl|Biggr|bigm|Bigm|displaystyle|textstyle|scriptstyle|limits|nolimits|quad|qquad|mathrm|mathit|mathbf|mathsf|mathtt|mathcal|mathscr|mathfrak|mathbb|boldsymbol|bm|pmb|text|textrm|textit|textbf|mbox|hbox|rm|it|bf|cal|operatorname\*?|mathop|mathbin|mathrel|mathord|nonumber|notag|allowbreak|nolinebreak|label|tag|begin|end|hline|noalign|lefteqn|strut|mathstrut|smash|underbrace|overbrace|substack|displaybreak|cr|newline|mathclap|mathllap|mathrlap|clap|llap|rlap|normalfont|tiny|scriptsize|footnotesize|small)$/;

/** Normalised LaTeX tokens of an equation (see the file comment). */
const SCRIPT_ARG = String.raw`(\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}|\\[A-Za-z]+|[^\s{}\\^_])`;
const SUP_THEN_SUB = new RegExp(String.raw`(?<!\\)\^\s*${SCRIPT_ARG}\s*_\s*${SCRIPT_ARG}`, 'g');

export function latexTokens(tex: string): string[] {
  let s = tex
    .replace(/\\(?:label|tag\*?|eqref|ref|hspace\*?|vspace\*?|phantom|hphantom|vphantom|intertext|shortintertext)\s*\{(?:[^{}]|\{[^{}]*\})*\}/g, ' ')
    .replace(/\\(?:begin|end)\s*\{[^}]*\}(?:\{[^}]*\})?/g, ' ')
    // Explicit kerns are spacing, like `\,` (perfectcut's `\middle|\mkern-2mu\middle|` gave five tokens).
    .replace(/\\(?:mkern|mskip|kern|hskip)\s*-?\s*(?:\d+\.?\d*|\.\d+)\s*(?:mu|pt|em|ex|bp|mm|cm|in|sp|pc|dd)\b/g, ' ')
    .replace(/\\\\(?:\[[^\]]*\])?/g, ' ')
    .replace(/\\[,;:!> ]|~|&/g, ' ')
    .replace(/\.\s*\.\s*\./g, '\\dots ');
  if (DROP_WITH_ARG.test(s)) s = s.replace(/\\(?:nonumber|notag)\b/g, ' ');
  // A superscript written before its subscript (`\sum^{a}_{b}`) renders as the subscript first: one order
  // for both (ADR 0367 amendment; the converter writes `_` then `^`).
  s = s.replace(SUP_THEN_SUB, (_m, sup: string, sub: string) => `_${sub}^${sup}`);
  const toks: string[] = [];
  for (const m of s.matchAll(/\\[A-Za-z]+\*?|\\.|[^\s{}]/gu)) {
    let t = m[0];
    if (t.endsWith('*') && t.startsWith('\\') && t.length > 2) t = t.slice(0, -1);
    if (NOISE.test(t)) continue;
    t = SYNONYMS[t] ?? UNICODE_TEX[t] ?? t;
    if (!t) continue;
    for (const piece of t.split(/(?=\\)|(?<=\})/).filter(Boolean)) {
      // `^{\circ}` from `°`, `\mathbb{R}` from `ℝ`: split into the same tokens as written.
      for (const q of piece.match(/\\[A-Za-z]+|[^\s{}]/g) ?? []) if (!NOISE.test(q)) toks.push(SYNONYMS[q] ?? q);
    }
  }
  while (toks.length && /^[.,;]$/.test(toks[toks.length - 1]!)) toks.pop();
  return toks;
}

function lev<T>(a: readonly T[], b: readonly T[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** 1 - edit distance / longer length (1 for two empty sequences). */
export function similarity<T>(a: readonly T[], b: readonly T[]): number {
  const n = Math.max(a.length, b.length);
  return n === 0 ? 1 : 1 - lev(a, b) / n;
}

/** The displays (`$$...$$`) of a Markdown output, in order. */
export function outputDisplays(md: string): string[] {
  // Read as a Markdown renderer reads them (ADR 0355): not in code, not from escaped dollars.
  return markdownMath(md).filter((m) => m.display).map((m) => m.tex);
}

/** Best LaTeX match of one source equation among the displays (and runs of 2-4 consecutive ones). */
export function bestLatexMatch(eq: readonly string[], displays: readonly (readonly string[])[]): number {
  let best = 0;
  for (let i = 0; i < displays.length && best < 1; i++) {
    let joined: string[] = [];
    for (let k = i; k < Math.min(displays.length, i + 4); k++) {
      joined = [...joined, ...displays[k]!];
      if (joined.length > 2 * eq.length + 10) break;
      if (Math.abs(joined.length - eq.length) > Math.max(eq.length, joined.length) * 0.5) continue;
      best = Math.max(best, similarity(eq, joined));
    }
  }
  return best;
}

/** Unicode of LaTeX symbol commands (the inverse of the converter's table, plus the synonyms' targets). */
const TEX_UNICODE: ReadonlyMap<string, string> = (() => {
  const m = new Map<string, string>();
  for (const [ch, tex] of Object.entries(UNICODE_TEX)) if (/^\\[A-Za-z]+$/.test(tex) && !m.has(tex)) m.set(tex, ch);
  for (const [k, v] of [['\\leq', '≤'], ['\\geq', '≥'], ['\\neq', '≠'], ['\\dots', '…'], ['\\epsilon', 'ε'], ['\\phi', 'φ'], ['\\theta', 'θ'], ['\\rightarrow', '→'], ['\\backslash', '∖'], ['\\rho', 'ρ'], ['\\pi', 'π'], ['\\sigma', 'σ'], ['\\|', '‖'], ['\\{', '{'], ['\\}', '}']] as const) m.set(k, v);
  return m;
})();

/** The visible symbols of a token sequence as one string: letters, digits, symbols; structure dropped. */
export function symbolsOf(tokens: readonly string[]): string {
  let s = '';
  for (const t of tokens) {
    if (t === '^' || t === '_' || t === '\\frac' || t === '\\sqrt' || /^\\(?:hat|bar|tilde|vec|dot|ddot|overline|underline|widehat|widetilde|check|breve|acute|grave|not)$/.test(t)) continue;
    if (t.startsWith('\\')) {
      const u = TEX_UNICODE.get(t);
      if (u) s += u;
      else if (/^\\(?:sin|cos|tan|log|ln|exp|lim|max|min|sup|inf|det|dim|ker|deg|gcd|arg|Pr|mod|sinh|cosh|tanh)$/.test(t)) s += t.slice(1);
      continue;
    }
    s += t;
  }
  return s.normalize('NFKC').replace(/[−–]/g, '-').replace(/[∗]/g, '*').replace(/\s+/g, '');
}

/** A tool's output as one string of symbols: LaTeX segments turned into symbols, white space removed. */
export function outputSymbols(out: string): string {
  // Formulas as their symbols; outside them an escaped dollar (ADR 0355) is a dollar.
  let text = '';
  let at = 0;
  for (const m of markdownMath(out)) {
    text += out.slice(at, m.start).replace(/\\\$/g, '$') + symbolsOf(latexTokens(m.tex));
    at = m.end;
  }
  text += out.slice(at).replace(/\\\$/g, '$');
  return text
    .normalize('NFKC')
    .replace(/[−–]/g, '-')
    .replace(/[∗]/g, '*')
    .replace(/\s+/g, '');
}

/**
 * Best character similarity of an equation's symbols within an output's symbol string: windows start at
 * occurrences of the equation's rarer 3-character pieces; semi-global alignment inside each window.
 */
export function symbolMatch(sym: string, text: string): number {
  if (sym.length < 3) return text.includes(sym) ? 1 : 0;
  const a = [...sym];
  const starts = new Set<number>();
  for (let k = 0; k + 3 <= sym.length && starts.size < 400; k += Math.max(1, Math.floor(sym.length / 8))) {
    const piece = sym.slice(k, k + 3);
    let at = text.indexOf(piece);
    let n = 0;
    while (at >= 0 && n < 60) {
      starts.add(Math.max(0, at - k - 3));
      at = text.indexOf(piece, at + 1);
      n++;
    }
  }
  let best = 0;
  for (const s of starts) {
    const win = [...text.slice(s, s + sym.length * 2 + 6)];
    let prev = new Array<number>(win.length + 1).fill(0);
    for (let i = 1; i <= a.length; i++) {
      const cur = new Array<number>(win.length + 1);
      cur[0] = i;
      for (let j = 1; j <= win.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === win[j - 1] ? 0 : 1));
      prev = cur;
    }
    best = Math.max(best, 1 - Math.min(...prev) / a.length);
    if (best === 1) break;
  }
  return best;
}
