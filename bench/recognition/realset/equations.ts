// Equations of the real development set (issue 28, ADR 0321): the displayed equations of each LaTeX source
// (the ground truth), normalised LaTeX token sequences, and how a tool's output is matched against them.
//   * Source equations: `equation`, `align`, `gather`, `multline`, `eqnarray`, `displaymath` (starred or
//     not), `\[...\]` and `$$...$$` in the document body, after comments, `\iffalse` blocks, verbatim-like
//     environments and `\verb` are removed (a manual's code examples are not typeset math). Zero-argument
//     macros defined in the source (`\newcommand{\R}{\mathbb{R}}`, `\def\R{...}`) are expanded.
//   * Tokens: commands and single characters; what does not change the rendered symbols is dropped (labels,
//     tags, spacing, `\left`/`\right` and size commands, alignment `&` and `\\`, braces, font switches such
//     as `\mathrm`/`\mathcal` around their argument, a closing full stop or comma); synonyms are unified
//     (`\le` and `\leq`, `\dots` and `\cdots`, `\varepsilon` and `\epsilon`, `\dfrac` and `\frac`).
//   * LaTeX match (Lectern only: raw extractors emit no LaTeX): a source equation is matched when some output
//     display (`$$...$$`), or 2-4 consecutive ones (an alignment whose numbered rows are displayed apart),
//     has token similarity >= 0.8 (1 - edit distance / longer length); `exact` when the sequences are equal.
//   * Symbols in order (every tool): the equation's visible symbols (letters, digits, Greek, operators as
//     Unicode) as one string, found in the output's text (LaTeX of `$...$` turned into the same symbols,
//     white space removed) with character similarity >= 0.8 in the best window.
import { UNICODE_TEX } from '../../../src/recognition/structure/math-layout.js';
import { markdownMath } from './render.js';

const VERBATIM_ENVS = /^(?:verbatim\*?|Verbatim\*?|BVerbatim|lstlisting|minted|alltt|comment|macrocode\*?|LTXexample|example|sourcecode|code|tcblisting|filecontents\*?|verbatimtab|listing|lstlisting\*?|dispExample\*?|demo|latexcode|tcbexample|codeexample|sverb|boxedverbatim)$/;
const DISPLAY_ENVS = /^(?:equation|align|gather|multline|eqnarray|displaymath|flalign|alignat)\*?$/;

const stripComments = (s: string): string => s.replace(/(^|[^\\])%.*$/gm, '$1');

/** Zero-argument macros defined in a source: `\newcommand{\x}{body}`, `\newcommand\x{body}`, `\def\x{body}`. */
function simpleMacros(src: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /\\(?:re)?newcommand\*?\s*\{?\\([A-Za-z]+)\}?\s*\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}|\\def\s*\\([A-Za-z]+)\s*\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}/g;
  for (const m of src.matchAll(re)) {
    const name = m[1] ?? m[3]!;
    const body = m[2] ?? m[4]!;
    if (/#\d/.test(body)) continue;
    out.set(name, body);
  }
  return out;
}

function expand(tex: string, macros: Map<string, string>): string {
  let s = tex;
  for (let pass = 0; pass < 3; pass++) {
    const next = s.replace(/\\([A-Za-z]+)(?![A-Za-z])/g, (m, n: string) => (macros.has(n) ? ` ${macros.get(n)!} ` : m));
    if (next === s) break;
    s = next;
  }
  return s;
}

/** The displayed equations of a LaTeX source, in order, as written (macros expanded). */
export function sourceEquations(tex: string): string[] {
  const src = stripComments(tex);
  const macros = simpleMacros(src.slice(0, Math.max(0, src.indexOf('\\begin{document}')) || src.length));
  const start = src.indexOf('\\begin{document}');
  if (start < 0) return [];
  let body = src.slice(start + 16, src.lastIndexOf('\\end{document}') > start ? src.lastIndexOf('\\end{document}') : undefined);
  body = body.replace(/\\begin\{([^}]+)\}[\s\S]*?\\end\{\1\}/g, (m, name: string) => (VERBATIM_ENVS.test(name) ? ' ' : m));
  body = body.replace(/\\iffalse[\s\S]*?\\fi\b/g, ' ');
  body = body.replace(/\\verb\*?([^A-Za-z\s])[\s\S]*?\1/g, ' ');
  const out: string[] = [];
  const re = /\\begin\{((?:equation|align|gather|multline|eqnarray|displaymath|flalign|alignat)\*?)\}(?:\{[^}]*\})?([\s\S]*?)\\end\{\1\}|\\\[([\s\S]*?)\\\]|\$\$([\s\S]*?)\$\$/g;
  for (const m of body.matchAll(re)) {
    if (m[1] && !DISPLAY_ENVS.test(m[1])) continue;
    const eq = (m[2] ?? m[3] ?? m[4] ?? '').trim();
    if (eq) out.push(expand(eq, macros));
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
  '\\setminus': '\\backslash', '\\smallsetminus': '\\backslash', '\\emptyset': '\\emptyset', '\\varnothing': '\\emptyset', '\\bigl': '', '\\bigr': '',
};
/** Commands that only size, space, align or restyle: dropped (their argument, if any, stays). */
const NOISE = /^\\(?:left|right|middle|big|Big|bigg|Bigg|bigl|bigr|Bigl|Bigr|biggl|biggr|Biggl|Biggr|bigm|Bigm|displaystyle|textstyle|scriptstyle|limits|nolimits|quad|qquad|mathrm|mathit|mathbf|mathsf|mathtt|mathcal|mathscr|mathfrak|mathbb|boldsymbol|bm|pmb|text|textrm|textit|textbf|mbox|hbox|rm|it|bf|cal|operatorname\*?|mathop|mathbin|mathrel|mathord|nonumber|notag|allowbreak|nolinebreak|label|tag|begin|end|hline|noalign|lefteqn|strut|mathstrut|smash|underbrace|overbrace|substack|displaybreak|cr|newline)$/;

/** Normalised LaTeX tokens of an equation (see the file comment). */
export function latexTokens(tex: string): string[] {
  let s = tex
    .replace(/\\(?:label|tag\*?|eqref|ref|hspace\*?|vspace\*?|phantom|hphantom|vphantom|intertext|shortintertext)\s*\{(?:[^{}]|\{[^{}]*\})*\}/g, ' ')
    .replace(/\\(?:begin|end)\s*\{[^}]*\}(?:\{[^}]*\})?/g, ' ')
    .replace(/\\\\(?:\[[^\]]*\])?/g, ' ')
    .replace(/\\[,;:!> ]|~|&/g, ' ')
    .replace(/\.\s*\.\s*\./g, '\\dots ');
  if (DROP_WITH_ARG.test(s)) s = s.replace(/\\(?:nonumber|notag)\b/g, ' ');
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
