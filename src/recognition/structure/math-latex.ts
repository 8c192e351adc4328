// Math set in math fonts, written back as LaTeX (issue 17, ADR 0097). MuPDF's text layer gives one run
// per font, size and baseline, so a line of a formula arrives as runs: variables in a math italic font
// (CMMI, a "Math" font), operators and relations in a symbol font (CMSY) or the text font, superscripts and
// subscripts as smaller runs on a raised or lowered baseline. From these runs a line gets a LaTeX form:
// symbols mapped to commands, scripts by baseline and size, math runs of running text wrapped in `$...$`.
// Fractions (stacked lines) and radicals, whose parts are separate lines and drawings, are rebuilt before
// this from the page's rules (pdf/math-stacks.ts, ADR 0134) and arrive here as one run carrying its LaTeX;
// those without clear evidence stay text and the report says so (`EQUATIONS_AS_TEXT`).

/** Fonts whose glyphs are math: TeX's math italic, symbols and extensions (CM, txfonts/newtx, pxfonts, Euler, mathpazo, mathptmx), AMS fonts, OpenType math fonts, Adobe Symbol. */
export const MATH_FONT_RE = /(?:^|\+)(?:cmmi|cmsy|cmex|cmbsy|cmmib|msam|msbm|eufm|eusm|rsfs|lmmathitalic|lmmathsymbols|lmmathextension|r?n?tx(?:mi|sys?|exs?|exx|bsys|mia|sya)|r?px(?:mi|sys?|exa?|mia|sya)|eur[mb]|euex|zplmr7[mvy]|zptmcm7[mvy]|yhcmex)\d*|math|^(?:[a-z]{6}\+)?symbol(?:mt)?$|stix.*math|cambria ?math/i;

/**
 * Math fonts of symbols (CMSY and its bold, txfonts', pxfonts', mathpazo's and Latin Modern's symbol fonts):
 * their capitals are calligraphic letters, which TeX's logos (`\AmS`, `\PTPTeX`) are set from.
 */
export const SYMBOL_FONT_RE = /(?:^|\+)(?:cmb?sy|lmmathsymbols|r?n?tx(?:sys?|bsys|sya)|r?px(?:sys?|sya)|zplmr7y|zptmcm7y)\d*/i;

/** Font names seen, with whether each is a math font (a document has a few dozen fonts and some 10 000 runs). */
const mathFonts = new Map<string, boolean>();
/** {@link MATH_FONT_RE} tested once per distinct font name (ADR 0357). */
export function isMathFont(name: string): boolean {
  let m = mathFonts.get(name);
  if (m === undefined) {
    m = MATH_FONT_RE.test(name);
    // Bounded: a stream of distinct names (a damaged file) must not grow the map without end.
    if (mathFonts.size >= 4096) mathFonts.clear();
    mathFonts.set(name, m);
  }
  return m;
}

/** Unicode to LaTeX for the symbols math fonts map to. */
const SYMBOLS: Readonly<Record<string, string>> = {
  α: '\\alpha', β: '\\beta', γ: '\\gamma', δ: '\\delta', ε: '\\epsilon', ϵ: '\\epsilon', ζ: '\\zeta', η: '\\eta', θ: '\\theta', ϑ: '\\vartheta',
  ι: '\\iota', κ: '\\kappa', λ: '\\lambda', μ: '\\mu', ν: '\\nu', ξ: '\\xi', π: '\\pi', ϖ: '\\varpi', ρ: '\\rho', ϱ: '\\varrho', σ: '\\sigma',
  ς: '\\varsigma', τ: '\\tau', υ: '\\upsilon', φ: '\\phi', ϕ: '\\phi', χ: '\\chi', ψ: '\\psi', ω: '\\omega',
  Γ: '\\Gamma', Δ: '\\Delta', Θ: '\\Theta', Λ: '\\Lambda', Ξ: '\\Xi', Π: '\\Pi', Σ: '\\Sigma', Υ: '\\Upsilon', Φ: '\\Phi', Ψ: '\\Psi', Ω: '\\Omega',
  '≤': '\\leq', '≥': '\\geq', '≠': '\\neq', '≈': '\\approx', '≡': '\\equiv', '∼': '\\sim', '≃': '\\simeq', '∝': '\\propto', '≪': '\\ll', '≫': '\\gg',
  '×': '\\times', '·': '\\cdot', '⋅': '\\cdot', '÷': '\\div', '±': '\\pm', '∓': '\\mp', '−': '-', '∗': '*', '∘': '\\circ', '⊗': '\\otimes', '⊕': '\\oplus',
  '∑': '\\sum', '∏': '\\prod', '∫': '\\int', '∮': '\\oint', '√': '\\sqrt', '∂': '\\partial', '∇': '\\nabla', '∞': '\\infty',
  '∈': '\\in', '∉': '\\notin', '⊂': '\\subset', '⊆': '\\subseteq', '⊃': '\\supset', '⊇': '\\supseteq', '∪': '\\cup', '∩': '\\cap', '∅': '\\emptyset',
  '∀': '\\forall', '∃': '\\exists', '¬': '\\neg', '∧': '\\wedge', '∨': '\\vee', '→': '\\to', '←': '\\leftarrow', '↔': '\\leftrightarrow',
  '⇒': '\\Rightarrow', '⇐': '\\Leftarrow', '⇔': '\\Leftrightarrow', '↦': '\\mapsto', '′': "'", '…': '\\ldots', '⋯': '\\cdots', 'ℓ': '\\ell',
  '⟨': '\\langle', '⟩': '\\rangle', '‖': '\\|', '∥': '\\parallel', '⊥': '\\perp', '°': '^{\\circ}',
};

/**
 * A text's literal dollar signs for Markdown with math (issue 28, ADR 0355): `$` -> `\$` (CommonMark's
 * backslash escape, which remark-math, markdown-it's math plugins, Pandoc, MathJax and KaTeX's Markdown
 * renderers read as a literal dollar that opens and closes nothing), and backslashes right before it
 * doubled so that they stay literal (`\$` in a TeX manual's prose -> `\\\$`, rendered `\$`). Nothing
 * else changes: the text still holds every word it had, so search and verbatim excerpts see it as written.
 */
export function escapeDollars(text: string): string {
  return text.includes('$') ? text.replace(/(\\*)\$/g, (_, bs: string) => `${bs}${bs}\\$`) : text;
}

/** Top pieces of Adobe Symbol's tall delimiters (parenlefttp U+F8EB ... bracerighttp U+F8FC). */
const SYMBOL_PIECES: Readonly<Record<string, string>> = { '\uF8EB': '(', '\uF8EE': '[', '\uF8F1': '\\{', '\uF8F6': ')', '\uF8F9': ']', '\uF8FC': '\\}' };

/** Letters of LaTeX commands must not run into the letters after them: `\rho f`, not `\rhof`. */
export function texOf(text: string): string {
  let out = '';
  for (const ch of text) {
    // A glyph without a character mapping (TeX's extension font) is no LaTeX; displays are rebuilt from the
    // glyph names where the page is traced (ADR 0320).
    if (ch === '\uFFFD') continue;
    // Pieces of a horizontal brace (⏞ ⏟ ⏜ ⏝) say nothing in a line of text: the display's trace reads
    // braces whole (ADR 0355).
    if (ch >= '\u23DC' && ch <= '\u23DF') continue;
    // Adobe Symbol's pieces of tall delimiters (private use U+F8E5..U+F8FE, as word processors and
    // digiconfigs draw big parentheses): the top piece is the delimiter, extenders and bottoms add nothing.
    // Other private-use characters have no meaning outside their font and no renderer parses them.
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xe000 && cp <= 0xf8ff) {
      out += SYMBOL_PIECES[ch] ?? '';
      continue;
    }
    const cmd = SYMBOLS[ch];
    if (cmd) {
      out += cmd;
      if (/\\[a-zA-Z]+$/.test(cmd)) out += ' ';
    } else if (ch === '{' || ch === '}' || ch === '%' || ch === '#' || ch === '&' || ch === '_') out += `\\${ch}`;
    else out += ch;
  }
  return out;
}

/** A date in digits: year, month and day (or day, month and year) with slashes, dots or hyphens. */
const DATE_RE = /^(?:(\d{4})\s*([/.-])\s*(\d{1,2})\s*\2\s*(\d{1,2})|(\d{1,2})\s*([/.-])\s*(\d{1,2})\s*\6\s*(\d{4}))$/;

/** Whether a line is only a date: a real month and day, a year from 1000 to 2999 (`12/4/3` is a quotient). */
export function isDate(t: string): boolean {
  const m = DATE_RE.exec(t);
  if (!m) return false;
  const [year, a, b] = m[1] !== undefined ? [m[1], m[3]!, m[4]!] : [m[8]!, m[5]!, m[7]!];
  const y = Number(year);
  const [x, z] = [Number(a), Number(b)];
  // Month and day in either order (2022/04/13, 13/04/2022, 04/13/2022).
  const ok = (mo: number, d: number): boolean => mo >= 1 && mo <= 12 && d >= 1 && d <= 31;
  return y >= 1000 && y <= 2999 && (ok(x, z) || ok(z, x));
}

/** A run that is only section or paragraph signs. */
const TEXT_SIGNS_RE = /^\s*[§¶]+\s*$/;

/** One run of a line, as the text-layer parser has it. */
export interface MathRun {
  readonly text: string;
  readonly size: number;
  /** Top and bottom of the run's box (MuPDF's baselines of operator runs are not reliable). */
  readonly y0: number;
  readonly y1: number;
  /** Set in a math font. */
  readonly math: boolean;
  /** Set in a math symbol font ({@link SYMBOL_FONT_RE}). */
  readonly symbol?: boolean;
  /** LaTeX of a rebuilt fraction or radical (pdf/math-stacks.ts, ADR 0134): used as it is. */
  readonly latex?: string;
}

/** A logo's letters in a symbol font: two to four Latin capitals. */
const LOGO_RE = /^\s*[A-Z]{2,4}\s*$/;

/**
 * Whether run `i` is a logo set from a symbol font's capitals between words: {@link LOGO_RE} in a symbol
 * font, not a script, with a text neighbour holding letters and no math neighbour.
 */
function isSymbolLogo(runs: readonly MathRun[], i: number): boolean {
  const r = runs[i]!;
  if (!r.symbol || !LOGO_RE.test(r.text) || r.latex !== undefined) return false;
  const prev = runs[i - 1];
  const next = runs[i + 1];
  if ((prev && (prev.math || prev.latex !== undefined)) || (next && (next.math || next.latex !== undefined))) return false;
  const wordy = (n: MathRun | undefined): boolean => n !== undefined && /\p{L}{2}/u.test(n.text) && n.size >= 0.85 * r.size && r.size >= 0.85 * n.size;
  return wordy(prev) || wordy(next);
}

/** Characters that may sit between math runs and belong to the formula (operators, digits, brackets). */
const OPERATOR_TEXT_RE = /^[\s\d.,;:=+\-−×·/<>≤≥≠()[\]|!'′*^~]*$/;

/**
 * The LaTeX form of one visual line: runs in math fonts, runs raised or lowered beside them (scripts), and
 * the operators and digits between them become `$...$` segments; the rest stays text. `spaces[i]` says
 * whether a space precedes run `i` (the parser's word-space decision). Null when the line has no math run.
 */
export function mathLine(input: readonly MathRun[], spaces: readonly boolean[]): string | null {
  // The section and paragraph signs come from a math font (TeX's CMSY) but are text: "§1. Introduction",
  // not "$§$1. Introduction" (ADR 0380).
  let runs = input.some((r) => r.math && TEXT_SIGNS_RE.test(r.text)) ? input.map((r) => (r.math && TEXT_SIGNS_RE.test(r.text) ? { ...r, math: false } : r)) : input;
  // A logo set from a symbol font's calligraphic capitals (`\AmS`: A, a lowered M and S from CMSY with
  // kerns; `\PTPTeX`) is a word of the text: a run of two to four capitals and nothing else, between text
  // runs with letters and no other math on either side. "AMS-TEX", as pdftotext reads it, not
  // "$A M S$-TEX" (ADR 0380, amendment "logos"). Math italic capitals ("the side $AB$") stay math.
  if (runs.some((r) => r.symbol && LOGO_RE.test(r.text))) runs = runs.map((r, i) => (isSymbolLogo(runs, i) ? { ...r, math: false } : r));
  if (!runs.some((r) => r.math)) return null;
  // A date whose slashes come from a math font (MathDesign's "12/14/2022" on a thesis approval page) is text.
  if (isDate(runs.map((r) => r.text).join('').trim())) return null;
  // A script is a smaller run raised or lowered against the last full-size run before it (its base).
  const kinds: ('^' | '_' | null)[] = [];
  let baseRun: MathRun | undefined;
  for (const r of runs) {
    const b = baseRun ?? runs.find((x) => x.size >= r.size) ?? r;
    let kind: '^' | '_' | null = null;
    // A rebuilt fraction or radical is never a script (a text-style fraction is set small and sits low).
    if (r.size <= 0.85 * b.size && r.text.trim() && r.latex === undefined) {
      if (r.y1 < b.y1 - 0.2 * b.size) kind = '^';
      else if (r.y0 > b.y0 + 0.2 * b.size) kind = '_';
    }
    kinds.push(kind);
    if (!kind) baseRun = r;
  }
  // The LaTeX logo (`L\kern-.36em\raise.3ex\hbox{\scshape a}\kern-.15em\TeX`): a small raised "A" between
  // an "L" and "TEX" with no space is a letter of the word, not a superscript ("LATEX", as pdftotext reads
  // it; "L$^{A}$TEX" read as a formula).
  for (let i = 1; i + 1 < runs.length; i++) {
    if (kinds[i] === '^' && /^[Aa]$/.test(runs[i]!.text) && !spaces[i] && !spaces[i + 1] && /L$/.test(runs[i - 1]!.text) && /^T/.test(runs[i + 1]!.text) && !runs[i - 1]!.math) kinds[i] = null;
  }
  // The LaTeX2e logo (`\LaTeX\kern.15em2$_{\textstyle\varepsilon}$`) ends in a math epsilon; "\LaTeXe
  // manuscripts" in the source loses its space to TeX, and the next word would be glued to the formula
  // ("2$\epsilon$manuscripts"). After the logo's "TEX2" and its epsilon, a word starting with a letter is
  // a word of its own (pdftotext reads "2ε manuscripts"; ADR 0380, amendment "logos").
  let gaps: readonly boolean[] = spaces;
  for (let i = 1; i + 1 < runs.length; i++) {
    if (runs[i]!.math && /^[εϵ]$/.test(runs[i]!.text) && !spaces[i] && !runs[i - 1]!.math && /TEX ?2$/.test(runs[i - 1]!.text) && !runs[i + 1]!.math && !spaces[i + 1] && /^\p{L}/u.test(runs[i + 1]!.text)) {
      gaps = gaps.map((g, k) => g || k === i + 1);
    }
  }
  // Which runs belong to formulas: math runs, scripts, and runs of operators and digits reaching a math run
  // through other such runs on one side, and on the other side a math run or the end of the line
  // ("a² + 8 = 12": the "+ 8 = 12" run ends the line).
  const base = runs.map((r, i) => r.math || r.latex !== undefined || kinds[i] !== null);
  const operator = runs.map((r) => OPERATOR_TEXT_RE.test(r.text));
  const reaches = (i: number, step: 1 | -1): 'math' | 'end' | null => {
    for (let j = i + step; j >= 0 && j < runs.length; j += step) {
      if (base[j]) return 'math';
      if (!operator[j]) return null;
    }
    return 'end';
  };
  const inMath = runs.map((_, i) => {
    if (base[i]) return true;
    if (!operator[i]) return false;
    const left = reaches(i, -1);
    const right = reaches(i, 1);
    return (left === 'math' && right !== null) || (right === 'math' && left !== null);
  });
  let out = '';
  let open = false;
  let lastScript: '^' | '_' | null = null;
  for (let i = 0; i < runs.length; i++) {
    const r = runs[i]!;
    const space = gaps[i] || /^\s/.test(r.text) ? ' ' : '';
    if (!inMath[i]) {
      lastScript = null;
      if (open) {
        out = `${out.trimEnd()}$`;
        open = false;
      }
      // A dollar sign of the text must not open or close a formula.
      out += space + escapeDollars(r.text);
      continue;
    }
    const s = kinds[i]!;
    // A math italic run of several letters is a product of variables ("ρfa"): one symbol each, spaced.
    const tex = r.latex !== undefined ? (s ? r.latex : `${r.latex} `) : r.math && !s ? [...r.text.trim()].map((ch) => texOf(ch).trim()).reduce((acc, t) => (acc && /[A-Za-z]$/.test(acc) && /^[A-Za-z\\]/.test(t) ? `${acc} ${t}` : acc + t), '') : texOf(r.text.trim());
    if (!open) {
      out += `${space}$`;
      open = true;
    } else if (space && !s) out += ' ';
    // Consecutive scripts of one kind share their braces (`^{a,b}`: a second `^` would be a TeX error).
    if (s && s === lastScript && out.endsWith('}')) out = `${out.slice(0, -1)}${tex.trim()}}`;
    // A command's letters must not run into the next run's letters (`\langle a`, not `\langlea`).
    else out += s ? `${s}{${tex.trim()}}` : /\\[A-Za-z]+$/.test(out) && /^[A-Za-z]/.test(tex) ? ` ${tex}` : tex;
    lastScript = s;
  }
  if (open) out = `${out.trimEnd()}$`;
  // Punctuation closing a formula in running text belongs to the sentence: "$a$:", not "$a:$".
  // An escaped dollar of the text (`\$`) is no delimiter.
  // A radical sign with nothing after it to take (its bar lost, a font table's glyph) stands alone.
  return out.replace(/\\sqrt(?=\s*(?:\\sqrt\b|\$|[)\]},;.=]))/g, '\\surd').replace(/(?<!\\)\$\s*\$/g, '').replace(/\s*([.,;:]+)\$(?=\s|$)/g, '$$$1').replace(/\s+/g, ' ').replace(/ \$(?=[\s.,;:]|$)/g, '$').trim();
}

/** An equation number: `(3)`, `(2.1)`, `(4b)`. */
const NUMBER = String.raw`\(\s*(\d{1,3}(?:\.\d{1,3})*[a-z]?)\s*\)`;
const NUMBER_END_RE = new RegExp(`(?:^|\\s)${NUMBER}[\\s.,;]*$`);
const NUMBER_START_RE = new RegExp(`^\\s*${NUMBER}\\s+`);

/**
 * A line that is all math (a displayed equation's line), split into its formula (the `$...$` segments
 * joined) and its equation number, set right of it or, with `leqno`, left of it (ADR 0355: a display's
 * number is its `\tag`, and a line with a number of its own is an equation of its own). Null when the line
 * holds prose; `latex` is empty for a line that is only a number.
 */
export function displayParts(math: string): { latex: string; tag: string | null } | null {
  const outside = math.replace(/\$[^$]*\$/g, ' ');
  if (outside.replace(/[\s.,;:()\d]/g, '').length > 0) return null;
  let inner = [...math.matchAll(/\$([^$]*)\$/g)].map((m) => m[1]!.trim()).join(' ');
  let tag: string | null = null;
  const out = NUMBER_END_RE.exec(outside) ?? NUMBER_START_RE.exec(outside);
  if (out) tag = out[1]!;
  else {
    const end = NUMBER_END_RE.exec(inner);
    const start = end ? null : NUMBER_START_RE.exec(inner);
    if (end) {
      tag = end[1]!;
      inner = inner.slice(0, end.index);
    } else if (start) {
      tag = start[1]!;
      inner = inner.slice(start[0].length);
    }
  }
  return { latex: inner.trim(), tag };
}

/** The formula of a line that is all math (a displayed equation's line), its number left out; else null. */
export function displayLatex(math: string): string | null {
  return displayParts(math)?.latex || null;
}
