// The equation ground truth of the real development set (bench/recognition/realset/equations.ts, ADR 0321):
// displays taken from a LaTeX source (code examples and comments left out, simple macros expanded),
// token normalisation on both sides, and the matching rules the benchmark counts with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bestLatexMatch, decideConditionals, expandMacros, ifThenElse, latexTokens, outputDisplays, outputSymbols, similarity, sourceEquations, sourceMacros, symbolMatch, symbolsOf } from '../../bench/recognition/realset/equations.js';
import { markdownMath, renderedTokens, sourceDisplay, texError } from '../../bench/recognition/realset/render.js';

const SOURCE = String.raw`\documentclass{article}
\newcommand{\R}{\mathbb{R}}
\begin{document}
Text with $x$ inline.
\begin{equation}\label{e1}
  E = mc^2 % the famous one
\end{equation}
\begin{verbatim}
\begin{equation} a = b \end{equation}
\end{verbatim}
% \[ commented = out \]
\[ f\colon \R \to \R \]
\begin{align*}
  a &\le b, \\
  c &= \dfrac{1}{2}.
\end{align*}
$$\sum_{i=1}^{n} x_i$$
\iffalse \[ hidden = 1 \] \fi
\end{document}`;

test('source equations: displays of the body in order; verbatim, comments and \\iffalse left out; zero-argument macros expanded', () => {
  const eqs = sourceEquations(SOURCE);
  assert.equal(eqs.length, 4);
  assert.match(eqs[0]!, /E = mc\^2/);
  assert.match(eqs[1]!, /\\mathbb\{R\}/);
  assert.match(eqs[2]!, /\\dfrac/);
});

test('token normalisation: labels, spacing, alignment, braces and font switches dropped; synonyms unified', () => {
  assert.deepEqual(latexTokens('\\label{e1} E = mc^2'), ['E', '=', 'm', 'c', '^', '2']);
  assert.deepEqual(latexTokens('a &\\le b, \\\\ c &= \\dfrac{1}{2}.'), latexTokens('a \\leq b , c = \\frac{1}{2}'));
  assert.deepEqual(latexTokens('f\\colon \\mathbb{R} \\to \\R'), ['f', ':', 'R', '\\rightarrow', '\\R']);
  assert.deepEqual(latexTokens('\\left( x \\right) \\, \\quad y \\tag{3}'), ['(', 'x', ')', 'y']);
  // Explicit kerns are spacing too (perfectcut's `\\middle|\\mkern-2mu\\middle|`; ADR 0367 amendment c, converter).
  assert.deepEqual(latexTokens('\\left\\langle t \\middle|\\mkern-2mu \\middle| e \\kern 1.5pt f \\right\\rangle'), ['\\langle', 't', '|', '|', 'e', 'f', '\\rangle']);
  // What the converter writes reads the same: x_{i}^{2} and x_i^2.
  assert.deepEqual(latexTokens('x_{i}^{2}'), latexTokens('x_i^2'));
});

test('matching: similarity of token sequences, runs of consecutive displays, symbols in order in plain text', () => {
  assert.equal(similarity(['a', '=', 'b'], ['a', '=', 'b']), 1);
  assert.ok(Math.abs(similarity(['a', '=', 'b'], ['a', '=', 'c']) - 2 / 3) < 1e-9);
  const md = 'Text.\n\n$$a = b \\tag{1}$$\n\n$$c = d \\tag{2}$$\n';
  assert.deepEqual(outputDisplays(md), ['a = b \\tag{1}', 'c = d \\tag{2}']);
  // An alignment displayed as two numbered rows still matches the one source environment.
  assert.equal(bestLatexMatch(latexTokens('a &= b \\\\ c &= d'), outputDisplays(md).map(latexTokens)), 1);
  // Raw text: symbols in order (a fraction read as numerator then denominator passes).
  const sym = symbolsOf(latexTokens('\\alpha \\le \\frac{1}{2}'));
  assert.equal(sym, 'α≤12');
  assert.equal(symbolMatch(sym, outputSymbols('so α ≤ 1\n2 holds')), 1);
  assert.equal(symbolMatch(sym, outputSymbols('we have $\\alpha \\leq \\frac{1}{2}$ here')), 1);
  assert.ok(symbolMatch(sym, outputSymbols('nothing of the kind')) < 0.8);
});

test('rendered back: KaTeX parses a display or says why; the rendered forms compare spellings, not source text', () => {
  assert.equal(texError('x_{i}^{2} + \\frac{a}{b} \\tag{1}'), null);
  assert.match(texError('\\frac{a}') ?? '', /KaTeX parse error/);
  assert.notEqual(texError('\\begin{pmatrix} a & b'), null);
  // The same rendering from two spellings; the source annotation and the equation number do not count.
  assert.deepEqual(renderedTokens('x_i^2 + y'), renderedTokens('x^{2}_{i} + {y} \\tag{3}'));
  assert.notDeepEqual(renderedTokens('x_i^2'), renderedTokens('x^i_2'));
  assert.equal(renderedTokens('\\frac{a}'), null);
  assert.ok(!renderedTokens('\\alpha')!.join('').includes('alpha'), 'the annotation (the LaTeX itself) is left out');
  // Displays and inline formulas of Markdown, an escaped dollar not taken for one.
  assert.deepEqual(markdownMath('costs \\$5 per $n$:\n\n$$a = b$$\n').map(({ tex, display }) => ({ tex, display })), [{ tex: 'n', display: false }, { tex: 'a = b', display: true }]);
  // As a Markdown renderer reads it (ADR 0355): nothing inside a code fence, no formula from escaped
  // dollars, and two formulas that touch are one formula `a$$b` (which does not render).
  assert.deepEqual(markdownMath('```\n$$x$$\n```\n\nplain \\$\\$ and $y$\n'), [{ tex: 'y', display: false, start: 30, end: 33 }]);
  assert.deepEqual(markdownMath('so $a$$b$ holds').map((m) => m.tex), ['a$$b']);
  assert.deepEqual(markdownMath('$a$\n\n$b$').map((m) => m.tex), ['a', 'b']);
  assert.deepEqual(markdownMath('an open $ dollar\n\nand $c$').map((m) => m.tex), ['c']);
  assert.deepEqual(outputSymbols('a \\$ b'), 'a$b');
});

test('a source equation as a KaTeX display: the rows of an alignment set in aligned, labels dropped', () => {
  assert.equal(sourceDisplay('a &\\le b, \\\\ c &= d. \\label{x}'), '\\begin{aligned} a &\\le b, \\\\ c &= d. \\end{aligned}');
  assert.equal(texError(sourceDisplay('a &\\le b, \\\\ c &= d. \\label{x}')), null);
  assert.equal(sourceDisplay('x = 1 \\\\ y = 2'), '\\begin{gathered} x = 1 \\\\ y = 2 \\end{gathered}');
  assert.equal(sourceDisplay('\\begin{pmatrix} a & b \\end{pmatrix} \\nonumber'), '\\begin{pmatrix} a & b \\end{pmatrix}');
});

test('ground truth (ADR 0367): the document\'s own macros are expanded with their arguments before comparing; code examples and package macros are not', () => {
  const src = String.raw`\documentclass{article}
\newcommand{\norm}[1]{\left\| #1 \right\|}
\newcommand\pd[3][]{\frac{\partial^{#1} #2}{\partial #3^{#1}}}
\DeclareMathOperator{\tr}{tr}
\DeclarePairedDelimiter{\abs}{\lvert}{\rvert}
\def\vv#1{\vec{#1}}
\def\upto#1.{delimited}
\let\eps\varepsilon
\newcommand{\RR}{\ensuremath{\mathbb{R}}\xspace}
\begin{document}
\begin{verbatim}
\newcommand{\tr}{WRONG}
\end{verbatim}
\newcommand{\ip}[2]{\langle #1, #2 \rangle}
In prose, \cmd\newcommand\marg{\command} shows a definition and makes none.
\[ \norm{x} + \pd{f}{x} = \pd[2]{f}{x} \]
\[ \tr A + \abs{y} + \vv u + \eps \in \RR \]
\[ \ip{a}{\norm b} = \pderiv{f}{x} + \marg \]
\global\long\def\mt{\bar{\mu}}
\[ \mt x \]
\global\long\def\mt{\hat{\mu}}
\[ \mt y \]
\end{document}`;
  const macros = sourceMacros(src);
  assert.deepEqual(macros.get('pd'), { args: 3, optional: '', body: '\\frac{\\partial^{#1} #2}{\\partial #3^{#1}}' });
  assert.ok(!macros.has('upto'), 'a \\def with delimited parameters is not read');
  const eqs = sourceEquations(src);
  assert.equal(eqs.length, 5);
  assert.deepEqual(latexTokens(eqs[0]!), latexTokens('\\left\\| x \\right\\| + \\frac{\\partial^{} f}{\\partial x^{}} = \\frac{\\partial^{2} f}{\\partial x^{2}}'));
  // \DeclareMathOperator reads as its letters (as \operatorname does), \let as its target; the verbatim
  // example's \newcommand defines nothing; \ensuremath and \xspace set nothing.
  assert.deepEqual(latexTokens(eqs[1]!), latexTokens('\\text{tr} A + | y | + \\vec{u} + \\varepsilon \\in \\mathbb{R}'));
  // A body definition counts from where it is; a package's macro (\pderiv of physics) stays as written.
  assert.deepEqual(latexTokens(eqs[2]!), latexTokens('\\langle a, \\| b \\| \\rangle = \\pderiv{f}{x} + \\marg'));
  // LyX's `\global\long\def` at the start of a line defines; a redefinition counts from where it stands.
  assert.deepEqual([eqs[3], eqs[4]].map((e) => latexTokens(e!)), [latexTokens('\\bar{\\mu} x'), latexTokens('\\hat{\\mu} y')]);
  // A definition that uses itself stops (bounded), and an argument missing at the end leaves the use as written.
  assert.ok(expandMacros('\\x', new Map([['x', { args: 0, optional: null, body: 'a\\x' }]])).length < 30000);
  assert.equal(expandMacros('\\f', new Map([['f', { args: 1, optional: null, body: '(#1)' }]])), '\\f');
  // An argument never runs into the command before it; a body that branches (\ifx .. \fi) is left as written.
  assert.deepEqual(latexTokens(expandMacros('\\envert{I}', sourceMacros('\\newcommand{\\envert}[1]{\\left\\lvert#1\\right\\rvert}'))), ['|', 'I', '|']);
  assert.ok(!sourceMacros('\\newcommand{\\eval}[2][\\right]{\\relax\\ifx#1\\right\\relax \\left.\\fi#2#1\\rvert}').has('eval'));
  // \stackrel and \overset render alike; a width switch (\mathclap) and a size (\tiny) are dropped.
  assert.deepEqual(latexTokens('x \\stackrel{\\mathclap{\\tiny def}}{=} a'), latexTokens('x \\overset{def}{=} a'));
});

test('token normalisation (ADR 0367 amendment): a superscript written before its subscript reads as sub then sup, as it renders', () => {
  assert.deepEqual(latexTokens('\\sum^{a}_{b} x'), latexTokens('\\sum_{b}^{a} x'));
  assert.deepEqual(latexTokens('M^{\\text{viol}}_g'), latexTokens('M_{g}^{viol}'));
  assert.deepEqual(latexTokens('\\int^\\infty_{c_2/\\lambda T} f'), latexTokens('\\int_{c_{2} / \\lambda T}^{\\infty} f'));
  // A lone superscript, or scripts of different bases, stay as written.
  assert.notDeepEqual(latexTokens('a^{2} b_{i}'), latexTokens('a b_{i}^{2}'));
  assert.notDeepEqual(latexTokens('x^{a}_{b}'), latexTokens('x^{b}_{a}'));
});

test('ground truth (ADR 0367 amendment c): the macros of the packages a document loads are read from their .sty files, options decided', () => {
  // A package file as statex and fnspe write theirs: option flags, \ifmmode, \ifthenelse on an optional
  // argument, \let before a redefinition, a math alphabet, a Symbol-font letter, internals with @.
  const pkg = String.raw`\ProvidesPackage{demo}
\RequirePackage{inner}
\newif\if@oldcomplex\@oldcomplexfalse
\DeclareOption{oldcomplex}{\@oldcomplextrue}
\ProcessOptions
\DeclareSymbolFont{ugrf@m}{U}{psy}{m}{n}
\DeclareMathSymbol{\cpi}{\mathord}{ugrf@m}{` + '`' + String.raw`p}
\DeclareMathAlphabet{\sfsl}{OT1}{cmss}{m}{sl}
\newcommand*{\wrap}[2][]{\ifthenelse{\equal{#1}{}}{\left[ #2 \right]}{\left( #2 \right)}}
\newcommand*{\E}[2][]{\text{E}\ifthenelse{\equal{#1}{}}{}{_{#1}} \wrap{#2}}
\let\DEMOGamma=\Gamma
\renewcommand*{\Gamma}[1][]{\DEMOGamma\ifthenelse{\equal{#1}{}}{}{\wrap[()]{#1}}}
\renewcommand*{\b}{\relax\ifmmode\expandafter\bar\else\expandafter\DEMOb\fi}
\renewcommand*{~}{\relax\ifmmode\sim\else\nobreakspace{}\fi}
\if@oldcomplex
\renewcommand{\Re}{\ensuremath{\mathfrak{Re}}}
\else
\renewcommand{\Re}{\ensuremath{\mathrm{Re}\;}}
\fi
\def\demo@pair#1#2{\langle #1, #2 \rangle}
\newcommand{\pair}[2]{\demo@pair{#1}{#2}}
\newcommand{\broken}{\@ifnextchar[\demo@x\demo@y}
\NewDocumentCommand{\norm}{O{2} m}{\| #2 \|_{#1}}
`;
  // A package it requires: a command KaTeX has is not taken from there, a new one is.
  const inner = String.raw`\renewcommand{\sum}{WRONG}\newcommand{\half}{\frac{1}{2}}`;
  const lib = { sty: (n: string) => ({ demo: pkg, inner })[n] ?? null };
  const doc = (opt: string) => String.raw`\documentclass{article}
\usepackage[${opt}]{demo}
\begin{document}
\[ \E{X} + \E[Y]{X} + \Gamma[a] + \Gamma + \b{x} + \cpi ~ y \]
\[ \Re z + \pair{a}{b} + \sfsl{X} + \half + \sum + \broken + \norm{v} + \norm[1]{v} \]
\end{document}`;
  const [a, b] = sourceEquations(doc('oldcomplex'), lib);
  assert.deepEqual(latexTokens(a!), latexTokens('\\text{E} [ X ] + \\text{E}_{Y} [ X ] + \\Gamma ( a ) + \\Gamma + \\bar{x} + \\pi \\sim y'));
  assert.equal(texError(a!), null);
  // The option picks the branch; internals with @ expand; a body KaTeX cannot render (TeX internals) is not
  // read and stays as written; xparse's optional first argument with its default.
  assert.deepEqual(latexTokens(b!), latexTokens('\\mathfrak{Re} z + \\langle a, b \\rangle + \\mathsf{X} + \\frac{1}{2} + \\sum + \\broken + \\| v \\|_{2} + \\| v \\|_{1}'));
  assert.match(sourceEquations(doc(''), lib)[1]!, /\\mathrm\{Re\}/);
  // Without the library (or for a package it does not hold) nothing changes.
  assert.match(sourceEquations(doc('oldcomplex'))[0]!, /\\E\{X\}/);
  // The conditionals alone: a flag set by an option, \ifmmode true, unknown conditionals kept.
  assert.equal(decideConditionals('\\newif\\if@x\\DeclareOption{x}{\\@xtrue}\\DeclareOption{y}{\\def\\y{Y}}\\if@x A\\else B\\fi \\ifmmode C\\else D\\fi \\ifdim1pt>0pt E\\fi', ['x']).replace(/\s+/g, ''), '\\@xtrueAC\\ifdim1pt>0ptE\\fi', 'the chosen option\'s body stays, the other goes');
  assert.equal(ifThenElse('\\ifthenelse{\\equal{a, b}{a,b}}{yes}{no}').trim(), 'yes');
});
