// Displayed equations rebuilt as LaTeX from the glyphs the page draws (issue 28, ADR 0320). The input is
// every glyph of one equation (font, glyph name, Unicode, box, baseline, size) and the page's horizontal
// rules near it; the output is one LaTeX string. The reconstruction is positional, the same for TeX fonts
// (CM, AMS, Latin Modern, txfonts, STIX) and any other font (Times and Symbol from a word processor):
//   * glyph names and Unicode become LaTeX commands (CMEX's `summationdisplay` -> \sum, `parenleftBig` -> `(`,
//     blackboard, fraktur and calligraphic alphabets by font); upright letter runs are operator names
//     (`\sin`) or text; nothing unmapped is printed (no U+FFFD, no boxes);
//   * a horizontal rule with material centred above and below it is a fraction (innermost rules first, so
//     fractions nest); a radical sign with a rule from its top is a root, an index over its left arm makes
//     it `\sqrt[n]{}`; a rule with material only below it is an overline;
//   * a big operator (\sum, \prod, \bigcup, ..., and `lim`, `max`, ...) takes the smaller material centred
//     right above and below it as its limits;
//   * the rest falls into rows by baseline (an alignment's lines, joined by `\\`); inside a row, a smaller
//     glyph raised or lowered against the glyph before it is a superscript or subscript, recursively;
//   * an equation number in parentheses set apart at the end (or start) of the row becomes `\tag{n}`.

/** One glyph as drawn, in page coordinates with y down. */
export interface MathGlyph {
  readonly font: string;
  readonly glyph: string;
  readonly unicode: string;
  readonly x0: number;
  readonly x1: number;
  readonly y0: number;
  readonly y1: number;
  readonly baseline: number;
  readonly size: number;
}

/** A horizontal rule drawn on the page (fraction bars, radical overbars). */
export interface MathRule {
  readonly x0: number;
  readonly x1: number;
  readonly y: number;
}

/** The equation rebuilt: LaTeX without delimiters, the equation number apart, and glyphs that had no mapping. */
export interface RebuiltEquation {
  readonly latex: string;
  readonly tag: string | null;
  readonly unmapped: number;
  /**
   * One entry per numbered equation when several rows carry their own number (an alignment of numbered
   * equations): each is displayed apart with its `\tag`. A single entry otherwise.
   */
  readonly displays: readonly { readonly latex: string; readonly tag: string | null }[];
}

const bare = (font: string): string => font.replace(/^[A-Z]{6}\+/, '');
/** TeX extension fonts: glyphs hang below the baseline, named by size (`summationdisplay`, `parenleftBig`). */
const EXT_FONT_RE = /cmex|txex|pxex|yhcmex|euex|lmmathextension|lmex|mathex|esint|zplmr7v|zptmcm7v|ntxexx|txexs|pxexa|mnsymbolf|fourier-?ex|futmex/i;
/** Whether a font is a TeX-style extension font (big operators, delimiters and their pieces). */
export const isExtensionFont = (font: string): boolean => EXT_FONT_RE.test(bare(font));
/**
 * An OpenType math font's extender glyph (STIX's `uni007C.x`, the repeated piece of a tall `\\middle|`): pieces
 * of one delimiter stand in one column at the same x; two such bars side by side (`\\middle|\\middle|`) are two.
 */
const EXTENDER_RE = /^uni[0-9A-F]{4}\.x$/;
/** Whether a glyph name is an OpenType math font's extender piece (`uni007C.x`). */
export const isExtender = (glyph: string): boolean => EXTENDER_RE.test(glyph);
const MATH_ITALIC_RE = /cmmi|rtxmi|rntxmi|txmi|ntxmi|pxmi|rpxmi|zplmr7m|zptmcm7m|eurm|eurb|lmmathitalic|mathitalic|stix.*math|math/i;
const BLACKBOARD_RE = /msbm|bbold|dsrom|bbm|txmia|pxsya|ntxsya/i;
const FRAKTUR_RE = /eufm|eufb|yfrak/i;
const SCRIPT_RE = /rsfs|eusm|eusb|mathscr/i;
/** Symbol fonts whose capital letters are calligraphic (CMSY's A-Z). */
const CAL_RE = /cmsy|cmbsy|txsy|pxsy|ntxsy|rtxsy|lmmathsymbols|zplmr7y|zptmcm7y/i;
const BOLD_RE = /cmbx|cmmib|cmbsy|bold|-bd\b|bx\d/i;
const TEXT_ROMAN_HINT = /cmr|lmroman|times|termes|nimbus|roman|serif|pagella|palatino|sfrm|ptm|utm|cmss|cmtt|helvet|arial|regular/i;

/** CMEX-style glyph names (base name without size suffix) to LaTeX. */
const EXT_NAMES: Readonly<Record<string, string>> = {
  parenleft: '(', parenright: ')', bracketleft: '[', bracketright: ']', braceleft: '\\{', braceright: '\\}',
  angbracketleft: '\\langle', angbracketright: '\\rangle', floorleft: '\\lfloor', floorright: '\\rfloor', ceilingleft: '\\lceil', ceilingright: '\\rceil',
  slash: '/', backslash: '\\backslash', vextendsingle: '|', vextenddouble: '\\|', arrowvertex: '|', arrowvertexdbl: '\\|',
  summation: '\\sum', product: '\\prod', coproduct: '\\coprod', integral: '\\int', contintegral: '\\oint', union: '\\bigcup', intersection: '\\bigcap',
  unionmulti: '\\biguplus', unionsq: '\\bigsqcup', logicaland: '\\bigwedge', logicalor: '\\bigvee', circleplus: '\\bigoplus', circlemultiply: '\\bigotimes',
  circledot: '\\bigodot', radical: '\\sqrt', hat: '\\widehat', tilde: '\\widetilde', brace: '\\{',
};
/** Pieces of an extensible delimiter by glyph name (`parenlefttp`, `bracketrightex`, `braceleftmid`, `braceex`). */
const PIECE_NAME_RE = /^(?:(paren|bracket|brace)(left|right)(tp|ex|bt|mid)|braceex|vextend(?:single|double))$/;
/** Size suffixes of extension-font glyph names, with the glyph's depth below its baseline in ems (cmex10 metrics). */
const EXT_SUFFIX_RE = /(text|display|big|Big|bigg|Bigg|tp|bt|ex|mid|wide|wider|widest|vertex)$/;
const EXT_DEPTH: Readonly<Record<string, number>> = { text: 1.0, display: 1.4, big: 1.2, Big: 1.8, bigg: 2.4, Bigg: 3.0, tp: 1.8, bt: 1.8, ex: 0.6, mid: 0.9, vertex: 0.6 };

/** Adobe / TeX glyph names to LaTeX, used when a glyph's Unicode is missing or unusable. */
const GLYPH_NAMES: Readonly<Record<string, string>> = {
  alpha: '\\alpha', beta: '\\beta', gamma: '\\gamma', delta: '\\delta', epsilon: '\\epsilon', epsilon1: '\\varepsilon', zeta: '\\zeta', eta: '\\eta',
  theta: '\\theta', theta1: '\\vartheta', iota: '\\iota', kappa: '\\kappa', lambda: '\\lambda', mu: '\\mu', nu: '\\nu', xi: '\\xi', pi: '\\pi', pi1: '\\varpi',
  rho: '\\rho', rho1: '\\varrho', sigma: '\\sigma', sigma1: '\\varsigma', tau: '\\tau', upsilon: '\\upsilon', phi: '\\phi', phi1: '\\varphi', chi: '\\chi',
  psi: '\\psi', omega: '\\omega', Gamma: '\\Gamma', Delta: '\\Delta', Theta: '\\Theta', Lambda: '\\Lambda', Xi: '\\Xi', Pi: '\\Pi', Sigma: '\\Sigma',
  Upsilon: '\\Upsilon', Phi: '\\Phi', Psi: '\\Psi', Omega: '\\Omega', minus: '-', plus: '+', equal: '=', less: '<', greater: '>', multiply: '\\times',
  periodcentered: '\\cdot', dotmath: '\\cdot', asteriskmath: '*', divide: '\\div', plusminus: '\\pm', minusplus: '\\mp', circleplus: '\\oplus',
  circlemultiply: '\\otimes', circledot: '\\odot', circleminus: '\\ominus', bullet: '\\bullet', openbullet: '\\circ', equivalence: '\\equiv',
  reflexsubset: '\\subseteq', reflexsuperset: '\\supseteq', lessequal: '\\leq', greaterequal: '\\geq', similar: '\\sim', approxequal: '\\approx',
  propersubset: '\\subset', propersuperset: '\\supset', lessmuch: '\\ll', greatermuch: '\\gg', precedes: '\\prec', follows: '\\succ',
  arrowleft: '\\leftarrow', arrowright: '\\rightarrow', arrowup: '\\uparrow', arrowdown: '\\downarrow', arrowboth: '\\leftrightarrow',
  arrowdblleft: '\\Leftarrow', arrowdblright: '\\Rightarrow', arrowdblboth: '\\Leftrightarrow', similarequal: '\\simeq', proportional: '\\propto',
  prime: "'", infinity: '\\infty', element: '\\in', owner: '\\ni', universal: '\\forall', existential: '\\exists', logicalnot: '\\neg',
  emptyset: '\\emptyset', perpendicular: '\\perp', aleph: '\\aleph', union: '\\cup', intersection: '\\cap', logicaland: '\\wedge', logicalor: '\\vee',
  turnstileleft: '\\vdash', turnstileright: '\\dashv', floorleft: '\\lfloor', floorright: '\\rfloor', ceilingleft: '\\lceil', ceilingright: '\\rceil',
  braceleft: '\\{', braceright: '\\}', angbracketleft: '\\langle', angbracketright: '\\rangle', bar: '|', bardbl: '\\|', backslash: '\\backslash',
  radical: '\\sqrt', nabla: '\\nabla', gradient: '\\nabla', integral: '\\int', summation: '\\sum', product: '\\prod', partialdiff: '\\partial',
  lscript: '\\ell', dotlessi: '\\imath', dotlessj: '\\jmath', weierstrass: '\\wp', mapsto: '\\mapsto', negationslash: '\\not', triangle: '\\triangle',
  star: '\\star', parenleft: '(', parenright: ')', bracketleft: '[', bracketright: ']', comma: ',', period: '.', colon: ':', semicolon: ';',
  slash: '/', exclam: '!', notequal: '\\neq', notelement: '\\notin', degree: '^{\\circ}', dagger: '\\dagger', daggerdbl: '\\ddagger', section: '\\S',
  zero: '0', one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9',
};

/** Unicode to LaTeX for math symbols (operators, relations, Greek, arrows). */
export const UNICODE_TEX: Readonly<Record<string, string>> = {
  α: '\\alpha', β: '\\beta', γ: '\\gamma', δ: '\\delta', ε: '\\varepsilon', ϵ: '\\epsilon', ζ: '\\zeta', η: '\\eta', θ: '\\theta', ϑ: '\\vartheta',
  ι: '\\iota', κ: '\\kappa', λ: '\\lambda', μ: '\\mu', µ: '\\mu', ν: '\\nu', ξ: '\\xi', π: '\\pi', ϖ: '\\varpi', ρ: '\\rho', ϱ: '\\varrho', σ: '\\sigma',
  ς: '\\varsigma', τ: '\\tau', υ: '\\upsilon', φ: '\\varphi', ϕ: '\\phi', χ: '\\chi', ψ: '\\psi', ω: '\\omega',
  Γ: '\\Gamma', Δ: '\\Delta', Θ: '\\Theta', Λ: '\\Lambda', Ξ: '\\Xi', Π: '\\Pi', Σ: '\\Sigma', Υ: '\\Upsilon', Φ: '\\Phi', Ψ: '\\Psi', Ω: '\\Omega',
  '≤': '\\leq', '≥': '\\geq', '⩽': '\\leqslant', '⩾': '\\geqslant', '≠': '\\neq', '≈': '\\approx', '≡': '\\equiv', '∼': '\\sim', '≃': '\\simeq',
  '≅': '\\cong', '∝': '\\propto', '≪': '\\ll', '≫': '\\gg', '≲': '\\lesssim', '≳': '\\gtrsim', '≺': '\\prec', '≻': '\\succ', '⪯': '\\preceq', '⪰': '\\succeq',
  '×': '\\times', '·': '\\cdot', '⋅': '\\cdot', '÷': '\\div', '±': '\\pm', '∓': '\\mp', '−': '-', '∗': '*', '∘': '\\circ', '∙': '\\bullet', '•': '\\bullet',
  '⊗': '\\otimes', '⊕': '\\oplus', '⊖': '\\ominus', '⊙': '\\odot', '⋆': '\\star', '†': '\\dagger', '‡': '\\ddagger', '∖': '\\setminus', '∣': '\\mid',
  '∑': '\\sum', '∏': '\\prod', '∐': '\\coprod', '∫': '\\int', '∬': '\\iint', '∭': '\\iiint', '∮': '\\oint', '⋃': '\\bigcup', '⋂': '\\bigcap', '⋁': '\\bigvee',
  '⋀': '\\bigwedge', '⨁': '\\bigoplus', '⨂': '\\bigotimes', '⨀': '\\bigodot', '⨄': '\\biguplus', '⨆': '\\bigsqcup',
  '√': '\\sqrt', '∂': '\\partial', '∇': '\\nabla', '∞': '\\infty', 'ℓ': '\\ell', 'ℏ': '\\hbar', '\u210e': 'h', '\u2126': '\\Omega', '\u2206': '\\Delta', '∕': '/', 'ı': '\\imath', 'ȷ': '\\jmath', '℘': '\\wp', 'ℵ': '\\aleph',
  '∈': '\\in', '∉': '\\notin', '∋': '\\ni', '⊂': '\\subset', '⊆': '\\subseteq', '⊃': '\\supset', '⊇': '\\supseteq', '⊊': '\\subsetneq', '∪': '\\cup',
  '∩': '\\cap', '⊎': '\\uplus', '⊔': '\\sqcup', '⊓': '\\sqcap', '∅': '\\emptyset', '∀': '\\forall', '∃': '\\exists', '∄': '\\nexists', '¬': '\\neg',
  '∧': '\\wedge', '∨': '\\vee', '→': '\\rightarrow', '←': '\\leftarrow', '↔': '\\leftrightarrow', '↑': '\\uparrow', '↓': '\\downarrow',
  '⇒': '\\Rightarrow', '⇐': '\\Leftarrow', '⇔': '\\Leftrightarrow', '↦': '\\mapsto', '⟶': '\\longrightarrow', '⟹': '\\Longrightarrow', '⟺': '\\iff',
  '↪': '\\hookrightarrow', '⊢': '\\vdash', '⊣': '\\dashv', '⊨': '\\models', '⊤': '\\top', '⊥': '\\perp', '∠': '\\angle', '△': '\\triangle',
  '′': "'", '″': "''", '…': '\\ldots', '⋯': '\\cdots', '⋮': '\\vdots', '⋱': '\\ddots', '⟨': '\\langle', '⟩': '\\rangle', '〈': '\\langle', '〉': '\\rangle',
  '‖': '\\|', '∥': '\\parallel', '⌊': '\\lfloor', '⌋': '\\rfloor', '⌈': '\\lceil', '⌉': '\\rceil', '°': '^{\\circ}', '∎': '\\blacksquare', '♯': '\\sharp',
  '♭': '\\flat', '♮': '\\natural', '⋄': '\\diamond', '◦': '\\circ', '−̸': '\\neq', '≔': ':=', '∶': ':', '⁄': '/', '{': '\\{', '}': '\\}', '%': '\\%',
  '#': '\\#', '&': '\\&', '$': '\\$', '_': '\\_', '\u2009': '', '\u00a0': '', 'ℝ': '\\mathbb{R}', 'ℕ': '\\mathbb{N}', 'ℤ': '\\mathbb{Z}',
  'ℚ': '\\mathbb{Q}', 'ℂ': '\\mathbb{C}', 'ℙ': '\\mathbb{P}', 'ℍ': '\\mathbb{H}', 'ℛ': '\\mathcal{R}', 'ℒ': '\\mathcal{L}', 'ℱ': '\\mathcal{F}',
  'ℋ': '\\mathcal{H}', 'ℐ': '\\mathcal{I}', 'ℬ': '\\mathcal{B}', 'ℰ': '\\mathcal{E}', 'ℳ': '\\mathcal{M}', 'ℭ': '\\mathfrak{C}', 'ℑ': '\\Im', 'ℜ': '\\Re',
};

/** Accents placed over a base (combining or spacing forms, by Unicode or glyph name). */
const ACCENTS: Readonly<Record<string, string>> = {
  'ˆ': '\\hat', '^': '\\hat', '\u0302': '\\hat', '˜': '\\tilde', '~': '\\tilde', '\u0303': '\\tilde', '¯': '\\bar', 'ˉ': '\\bar', '\u0304': '\\bar',
  '˙': '\\dot', '\u0307': '\\dot', '¨': '\\ddot', '\u0308': '\\ddot', 'ˇ': '\\check', '\u030c': '\\check', '˘': '\\breve', '\u0306': '\\breve',
  '\u20d7': '\\vec', '´': '\\acute', '`': '\\grave', circumflex: '\\hat', tilde: '\\tilde', macron: '\\bar', dotaccent: '\\dot',
  dieresis: '\\ddot', caron: '\\check', breve: '\\breve', vector: '\\vec', hatwide: '\\widehat', tildewide: '\\widetilde',
};

/** Upright words that are operators; those in BIG_WORDS take limits under them in a display. */
const OPERATOR_WORDS = new Set(['sin', 'cos', 'tan', 'cot', 'sec', 'csc', 'arcsin', 'arccos', 'arctan', 'sinh', 'cosh', 'tanh', 'coth', 'log', 'ln', 'lg', 'exp', 'lim', 'liminf', 'limsup', 'sup', 'inf', 'max', 'min', 'arg', 'det', 'dim', 'ker', 'deg', 'gcd', 'hom', 'Pr', 'mod', 'argmax', 'argmin']);
const BIG_WORDS = new Set(['lim', 'liminf', 'limsup', 'sup', 'inf', 'max', 'min', 'det', 'gcd', 'Pr', 'argmax', 'argmin']);
const BIG_OPS = new Set(['\\sum', '\\prod', '\\coprod', '\\bigcup', '\\bigcap', '\\biguplus', '\\bigsqcup', '\\bigwedge', '\\bigvee', '\\bigoplus', '\\bigotimes', '\\bigodot']);
const INTEGRALS = new Set(['\\int', '\\iint', '\\iiint', '\\oint']);

/** Glyph box: extension-font glyphs hang below their baseline by their size's depth; others sit on it. */
const DESCENDERS = /[gjpqyβγζημξρςφχψϕ,;()[\]{}|∫∑∏Q]/;
const ASCENDERS = /[A-Zbdfhklt0-9βδζθλξϑ∂()[\]{}|!?∫∑∏√∞∀∃∇]/;
const AXIS_SYMBOLS = /[+=−\-×÷±∓<>≤≥≈≡∼≃→←⇒⇔·⋅∗∘]/;

/**
 * A glyph's box as multiples of its size from its baseline, top then bottom (negative is above): what
 * {@link glyphExtent} scales. It depends on the font, the glyph name and the Unicode only, so a caller with
 * many glyphs of few kinds can keep it per kind (ADR 0357).
 */
export function glyphExtentEm(font: string, glyph: string, unicode = ''): readonly [number, number] {
  // A horizontal brace's piece is a thin band at its baseline.
  if (HBRACE_NAME_RE.test(glyph) || HBRACE_CHARS.has(unicode)) return [-0.3, 0.05];
  if (EXT_FONT_RE.test(font)) {
    if (/^(?:hat|tilde)wide/.test(glyph)) return [-0.75, -0.55];
    const suffix = EXT_SUFFIX_RE.exec(glyph)?.[1];
    let depth = suffix ? EXT_DEPTH[suffix] ?? 1.0 : 1.0;
    if (glyph === 'integraldisplay' || glyph === 'contintegraldisplay') depth = 2.22;
    // newtx/STIX-style names of the display integrals (`uni222B.updsp`, `uni222E.dsp`): the same hanging glyph.
    if (/^uni(?:222[B-E]|2A0C)\.(?:up)?dsp$/.test(glyph)) depth = 2.22;
    if (glyph === 'integraltext' || glyph === 'contintegraltext') depth = 1.11;
    return [-0.04, depth];
  }
  // A piece of a big delimiter in a text or symbol font (Adobe Symbol): about an em and a quarter tall.
  if (PIECE_NAME_RE.test(glyph)) return [-0.92, 0.26];
  // TeX's radical sign (CMSY `radical`, txfonts/pxfonts alike) hangs below its baseline like an extension glyph.
  if ((glyph === 'radical' || unicode === '√') && /cmsy|cmbsy|txsy|pxsy|ntxsy|lmmathsymbols/i.test(font)) return [-0.04, 0.96];
  // Other glyphs by their shape: operators around the math axis, letters by x-height, ascenders and descenders.
  const ch = unicode && !/[\uFFFD\u25A1]/.test(unicode) ? unicode : glyph.length === 1 ? glyph : '';
  // A math accent (`\vec`, `\hat`, `\bar`, `\tilde`, `\dot`, ...: CMMI's `vector`, CMR's `circumflex`,
  // U+20D7, U+0302, U+00AF) is drawn above the x-height from the baseline of its base (TeX raises it only
  // by how much a base is taller than x): its ink, not a letter's box on the baseline (ADR 0367). As a
  // letter box it sat level with an x-height base (`\vec{a}`, `\bar z`) and found nothing under it.
  if ((ch && ACCENTS[ch] && !/^[~^]$/.test(ch)) || (!ch && ACCENTS[glyph])) return [-0.72, -0.5];
  if (!ch) return [-0.72, 0.22];
  if (AXIS_SYMBOLS.test(ch)) return [-0.6, 0.1];
  return [-(ASCENDERS.test(ch) ? 0.7 : /[.,_]/.test(ch) ? 0.12 : 0.45), DESCENDERS.test(ch) ? 0.22 : 0.02];
}

/** A glyph's box from its baseline and size (`baseline + top * size`, as `baseline - 0.7 * size` gives exactly). */
export function glyphExtent(font: string, glyph: string, size: number, baseline: number, unicode = ''): { y0: number; y1: number } {
  const [top, bottom] = glyphExtentEm(font, glyph, unicode);
  return { y0: baseline + top * size, y1: baseline + bottom * size };
}

type Cls = 'var' | 'upright' | 'digit' | 'bigop' | 'int' | 'radical' | 'accent' | 'open' | 'close' | 'rel' | 'bin' | 'punct' | 'group' | 'ord' | 'hbrace';

interface Item {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  baseline: number;
  size: number;
  tex: string;
  cls: Cls;
  /** The glyphs' own text (equation numbers, words). */
  raw: string;
  font: string;
  /** Extension-font piece of a delimiter built from parts (`parenlefttp`, `braceex`). */
  piece?: string;
}

const REL = new Set(['=', '<', '>', '\\leq', '\\geq', '\\leqslant', '\\geqslant', '\\neq', '\\approx', '\\equiv', '\\sim', '\\simeq', '\\cong', '\\propto', '\\ll', '\\gg', '\\in', '\\notin', '\\ni', '\\subset', '\\subseteq', '\\supset', '\\supseteq', '\\rightarrow', '\\leftarrow', '\\Rightarrow', '\\Leftarrow', '\\Leftrightarrow', '\\leftrightarrow', '\\mapsto', '\\to', ':=', '\\lesssim', '\\gtrsim', '\\prec', '\\succ', '\\models', '\\vdash', '\\perp', '\\mid', '\\iff', '\\longrightarrow']);
const BIN = new Set(['+', '-', '\\pm', '\\mp', '\\times', '\\cdot', '\\div', '*', '\\circ', '\\otimes', '\\oplus', '\\cup', '\\cap', '\\wedge', '\\vee', '\\setminus', '\\bullet', '\\star', '/']);
const OPEN = new Set(['(', '[', '\\{', '\\langle', '\\lfloor', '\\lceil']);
const CLOSE = new Set([')', ']', '\\}', '\\rangle', '\\rfloor', '\\rceil']);

/** A horizontal brace's piece, until {@link buildBraces} reads the brace. */
const HBRACE = '\\hbrace';
const HBRACE_NAME_RE = /^(?:bracehtip(?:down|up)(?:left|right)|bracehext|(?:under|over)brace(?:left|mid|right)?)(?:\.\w+)?$/;
const HBRACE_CHARS = new Set(['\u23DE', '\u23DF', '\u23DC', '\u23DD']);

function classify(tex: string, ch: string, mathItalic: boolean): Cls {
  if (tex === HBRACE) return 'hbrace';
  if (BIG_OPS.has(tex)) return 'bigop';
  if (INTEGRALS.has(tex)) return 'int';
  if (tex === '\\sqrt') return 'radical';
  if (REL.has(tex)) return 'rel';
  if (BIN.has(tex)) return 'bin';
  if (OPEN.has(tex)) return 'open';
  if (CLOSE.has(tex)) return 'close';
  if (/^[.,;:!]$/.test(tex)) return 'punct';
  if (/^\d$/.test(ch)) return 'digit';
  if (/^\p{L}$/u.test(ch) && /^[A-Za-z]$/.test(tex)) return mathItalic ? 'var' : 'upright';
  return 'ord';
}

/** Mathematical alphanumeric symbols (U+1D400..U+1D7FF) to a styled letter or digit. */
function mathAlnum(cp: number): string | null {
  if (cp < 0x1d400 || cp > 0x1d7ff) return null;
  if (cp >= 0x1d7ce) {
    const styles = ['\\mathbf', '\\mathbb', '\\mathsf', '\\mathbf', '\\mathtt'];
    const k = cp - 0x1d7ce;
    return `${styles[Math.floor(k / 10)]}{${k % 10}}`;
  }
  if (cp >= 0x1d6a8) return null; // Greek styles: left to the glyph name
  const styles = ['\\mathbf', '', '\\mathbf', '\\mathcal', '\\mathcal', '\\mathfrak', '\\mathbb', '\\mathfrak', '\\mathsf', '\\mathsf', '\\mathsf', '\\mathsf', '\\mathtt'];
  const k = cp - 0x1d400;
  const style = styles[Math.floor(k / 52)];
  const i = k % 52;
  const letter = String.fromCharCode(i < 26 ? 65 + i : 97 + i - 26);
  return style === undefined ? null : style ? `${style}{${letter}}` : letter;
}

/** LaTeX of one glyph (null when it maps to nothing), and whether it is an accent. */
export function glyphTex(font: string, glyph: string, unicode: string): { tex: string; accent: boolean } | null {
  const f = bare(font);
  // Pieces of a horizontal brace (\underbrace, \overbrace: CMEX's `bracehtipdownleft` ..., Unicode's
  // top and bottom braces and parenthesis as OpenType and newtx fonts draw them), read with what they span.
  if (HBRACE_NAME_RE.test(glyph) || HBRACE_CHARS.has(unicode)) return { tex: HBRACE, accent: false };
  if (EXT_FONT_RE.test(f)) {
    const base = glyph.replace(EXT_SUFFIX_RE, '');
    if (/^(?:hat|tilde)wide/.test(glyph)) return { tex: ACCENTS[glyph.replace(/r|st$/, '')] ?? '\\widehat', accent: true };
    const t = EXT_NAMES[base] ?? EXT_NAMES[glyph] ?? (base.startsWith('brace') ? (/right/.test(base) ? '\\}' : '\\{') : undefined);
    if (t) return { tex: t, accent: false };
  }
  // Pieces of big delimiters by name in any font (Adobe Symbol's `parenlefttp`, `braceex`, as word processors
  // draw a tall parenthesis or brace; their Unicode is empty or private-use).
  const piece = PIECE_NAME_RE.exec(glyph);
  if (piece) return { tex: piece[1] ? EXT_NAMES[`${piece[1]}${piece[2]}`]! : glyph === 'braceex' ? '\\{' : EXT_NAMES[glyph]!, accent: false };
  const usable = unicode.length > 0 && !/[\uFFFD\u25A1\uE000-\uF8FF]/.test(unicode) && !/[\u0000-\u001f]/.test(unicode);
  const ch = usable ? unicode : '';
  if (ch) {
    if (ACCENTS[ch] && !/^[~^]$/.test(ch)) return { tex: ACCENTS[ch]!, accent: true };
    let cp = ch.codePointAt(0)!;
    // LuaLaTeX's Unicode math fonts: MuPDF loses the plane of mathematical alphanumerics (U+1D400..U+1D7FF)
    // in some fonts and gives Hangul (U+D400..U+D7FF; 𝑦 U+1D466 as 푦 U+D466). In a math font those are
    // the letters.
    if ([...ch].length === 1 && cp >= 0xd400 && cp <= 0xd7ff && /math/i.test(f)) {
      cp += 0x10000;
      return glyphTex(font, glyph, String.fromCodePoint(cp));
    }
    const alnum = [...ch].length === 1 ? mathAlnum(cp) : null;
    if (alnum) return { tex: alnum, accent: false };
    // Mathematical italic and bold Greek (U+1D6A8..U+1D7C9, as OpenType math fonts map them) read as their letter.
    const folded = [...ch].length === 1 && cp >= 0x1d6a8 && cp <= 0x1d7c9 ? ch.normalize('NFKC') : ch;
    const u = UNICODE_TEX[folded];
    if (u !== undefined) return u ? { tex: u, accent: false } : null;
    if (/^[A-Za-z]$/.test(ch)) {
      if (BLACKBOARD_RE.test(f)) return { tex: `\\mathbb{${ch}}`, accent: false };
      if (FRAKTUR_RE.test(f)) return { tex: `\\mathfrak{${ch}}`, accent: false };
      if (SCRIPT_RE.test(f)) return { tex: `\\mathcal{${ch}}`, accent: false };
      if (CAL_RE.test(f) && /[A-Z]/.test(ch)) return { tex: `\\mathcal{${ch}}`, accent: false };
      return { tex: ch, accent: false };
    }
    if (/^[\s]+$/.test(ch)) return null;
    if (/^[\p{L}\p{N}\p{P}\p{S}]+$/u.test(ch)) return { tex: [...ch].map((c) => UNICODE_TEX[c] ?? c).join(''), accent: false };
    return null;
  }
  if (ACCENTS[glyph]) return { tex: ACCENTS[glyph]!, accent: true };
  const named = GLYPH_NAMES[glyph];
  if (named) return { tex: named, accent: false };
  if (/^[A-Za-z]$/.test(glyph)) return glyphTex(font, '', glyph);
  const uni = /^uni([0-9A-F]{4})$/.exec(glyph);
  if (uni) return glyphTex(font, '', String.fromCharCode(parseInt(uni[1]!, 16)));
  return null;
}

const mid = (i: { y0: number; y1: number }): number => (i.y0 + i.y1) / 2;
const cx = (i: { x0: number; x1: number }): number => (i.x0 + i.x1) / 2;

function toItems(glyphs: readonly MathGlyph[]): { items: Item[]; unmapped: number } {
  let unmapped = 0;
  const items: Item[] = [];
  for (const g of glyphs) {
    const m = glyphTex(g.font, g.glyph, g.unicode);
    if (!m) {
      if (g.unicode.trim() !== '' || g.glyph !== 'space') unmapped += g.unicode.trim() === '' && /^(?:space|nbspace|)$/.test(g.glyph) ? 0 : 1;
      continue;
    }
    const f = bare(g.font);
    const ch = /[\uFFFD\u25A1]/.test(g.unicode) ? '' : g.unicode;
    const italic = MATH_ITALIC_RE.test(f) || /italic|oblique|-it\b|cmti/i.test(f);
    let tex = m.tex;
    if (/^[A-Za-z0-9]$/.test(tex) && BOLD_RE.test(f)) tex = `\\mathbf{${tex}}`;
    const cls: Cls = m.accent ? 'accent' : classify(m.tex, ch || m.tex, italic);
    const piece = g.glyph === 'braceex' ? 'any' : /^vextend/.test(g.glyph) ? 'ex' : EXT_FONT_RE.test(f) && EXTENDER_RE.test(g.glyph) ? 'x' : EXT_FONT_RE.test(f) || PIECE_NAME_RE.test(g.glyph) ? /(tp|bt|ex|mid|vertex)$/.exec(g.glyph)?.[1] : undefined;
    items.push({ x0: g.x0, x1: g.x1, y0: g.y0, y1: g.y1, baseline: g.baseline, size: g.size, tex, cls, raw: ch || m.tex, font: f, ...(piece ? { piece } : {}) });
  }
  return { items: mergePieces(items), unmapped };
}

/** Pieces of one extensible delimiter (top, extension, middle, bottom) stacked in one column become one glyph. */
function mergePieces(items: Item[]): Item[] {
  const pieces = items.filter((i) => i.piece);
  if (!pieces.length) return items;
  const used = new Set<Item>();
  const out = items.filter((i) => !i.piece);
  for (const p of pieces.sort((a, b) => a.y0 - b.y0)) {
    if (used.has(p)) continue;
    // A brace's extension piece (`braceex`) serves either brace: it joins the column it stands in.
    // Extenders of an OpenType math font join only the column at their own x (ADR 0367 amendment c, converter).
    const col = pieces.filter((q) => !used.has(q) && (q.tex === p.tex || q.piece === 'any') && Math.min(q.x1, p.x1) - Math.max(q.x0, p.x0) > 0.3 * (p.x1 - p.x0) && (p.piece !== 'x' || (q.piece === 'x' && Math.abs(q.x0 - p.x0) < 0.2 * (p.x1 - p.x0))));
    col.forEach((q) => used.add(q));
    const y0 = Math.min(...col.map((q) => q.y0));
    const y1 = Math.max(...col.map((q) => q.y1));
    const { piece: _piece, ...rest } = p;
    out.push({ ...rest, y0, y1, baseline: (y0 + y1) / 2 + 0.25 * p.size, x0: Math.min(...col.map((q) => q.x0)), x1: Math.max(...col.map((q) => q.x1)) });
  }
  return out;
}

/**
 * Three centred dots or three full stops set close on one baseline are `\\cdots` / `\\ldots` (TeX draws both
 * as three glyphs); a negation slash (or a slash) drawn over a relation negates it (`\\in` -> `\\notin`).
 */
function mergeDots(items: Item[]): Item[] {
  const out: Item[] = [];
  for (let k = 0; k < items.length; k++) {
    const a = items[k]!;
    const b = items[k + 1];
    const c = items[k + 2];
    const same = (p: Item, q: Item | undefined): q is Item => !!q && q.tex === p.tex && Math.abs(q.baseline - p.baseline) < 0.1 * p.size && Math.abs(q.size - p.size) < 0.05 * p.size && q.x0 - p.x1 < 0.35 * p.size && q.x0 > p.x0;
    if ((a.tex === '\\cdot' || a.tex === '.') && same(a, b) && same(b, c)) {
      out.push({ ...a, x1: c.x1, tex: a.tex === '.' ? '\\ldots' : '\\cdots', cls: 'ord', raw: '…' });
      k += 2;
      continue;
    }
    out.push(a);
  }
  const NEGATED: Readonly<Record<string, string>> = { '\\in': '\\notin', '=': '\\neq', '\\subset': '\\not\\subset', '\\equiv': '\\not\\equiv', '\\leq': '\\not\\leq', '\\geq': '\\not\\geq', '<': '\\not<', '>': '\\not>', '\\sim': '\\nsim' };
  const slashes = out.filter((i) => i.tex === '\\not' || i.tex === '/');
  if (!slashes.length) return out;
  const drop = new Set<Item>();
  for (const sl of slashes) {
    const rel = out.find((i) => i.cls === 'rel' && !drop.has(i) && Math.min(i.x1, sl.x1) - Math.max(i.x0, sl.x0) >= 0.5 * Math.min(i.x1 - i.x0, sl.x1 - sl.x0) && Math.abs(i.baseline - sl.baseline) < 0.3 * i.size);
    if (!rel) continue;
    rel.tex = NEGATED[rel.tex] ?? `\\not${rel.tex}`;
    drop.add(sl);
  }
  return out.filter((i) => !drop.has(i));
}

/** Words of upright letters in a text font (one font, touching) become one item: an operator name or text. */
function mergeWords(items: Item[]): Item[] {
  const sorted = [...items].sort((a, b) => a.x0 - b.x0);
  const out: Item[] = [];
  for (const it of sorted) {
    // The last item on the same baseline (a limit set under a word sits between its letters in x order).
    let at = out.length - 1;
    while (at >= 0 && Math.abs(out[at]!.baseline - it.baseline) >= 0.1 * it.size) at--;
    const prev = out[at];
    const joinable = (a: Item, b: Item) =>
      a.font === b.font && Math.abs(a.baseline - b.baseline) < 0.1 * a.size && Math.abs(a.size - b.size) < 0.05 * a.size && b.x0 - a.x1 < 0.12 * a.size && b.x0 >= a.x1 - 0.3 * a.size;
    if (prev && prev.cls === 'upright' && it.cls === 'upright' && joinable(prev, it)) {
      out[at] = { ...prev, x1: it.x1, y0: Math.min(prev.y0, it.y0), y1: Math.max(prev.y1, it.y1), raw: prev.raw + it.raw, tex: prev.tex + it.tex };
      continue;
    }
    if (prev && prev.cls === 'digit' && (it.cls === 'digit' || (it.tex === '.' && it.size === prev.size)) && joinable(prev, it)) {
      out[at] = { ...prev, x1: it.x1, raw: prev.raw + it.raw, tex: prev.tex + it.tex };
      continue;
    }
    out.push(it);
  }
  return mergeDots(out).map((i) => {
    if (i.cls !== 'upright' || i.raw.length < 2) return i;
    if (OPERATOR_WORDS.has(i.raw)) return { ...i, tex: `\\${i.raw}`, cls: BIG_WORDS.has(i.raw) ? 'bigop' : 'ord' };
    return TEXT_ROMAN_HINT.test(i.font) || !MATH_ITALIC_RE.test(i.font) ? { ...i, tex: `\\text{${i.raw}}`, cls: 'ord' } : i;
  });
}

function union(items: readonly Item[]): { x0: number; x1: number; y0: number; y1: number } {
  return { x0: Math.min(...items.map((i) => i.x0)), x1: Math.max(...items.map((i) => i.x1)), y0: Math.min(...items.map((i) => i.y0)), y1: Math.max(...items.map((i) => i.y1)) };
}

/** Items attached to a seed set vertically (the parts of a fraction, a limit with its own scripts). */
function grow(seed: Item[], pool: readonly Item[], em: number): Item[] {
  const set = new Set(seed);
  let changed = true;
  while (changed) {
    changed = false;
    const b = union([...set]);
    for (const i of pool) {
      if (set.has(i)) continue;
      // Overlapping the set (a script, an accent), or a smaller glyph just beside it; a full-size glyph
      // with a gap is another row (the next line of an alignment), not part of it.
      const gap = Math.max(i.y0 - b.y1, b.y0 - i.y1);
      // An accent sits just over its base, above the set's top when the base is its top (ADR 0367).
      const accent = i.cls === 'accent' && i.y1 <= b.y0 + 0.1 * em && gap <= 0.3 * em && cx(i) >= b.x0 && cx(i) <= b.x1;
      if (gap <= 0 || (gap <= 0.15 * em && i.size < 0.85 * em) || accent) {
        set.add(i);
        changed = true;
      }
    }
  }
  return [...set];
}

interface Ctx {
  em: number;
  unmapped: number;
}

/** A composite item (fraction, root, operator with limits, accented base) standing for its parts. */
function composite(parts: readonly Item[], tex: string, baseline: number, size: number, extra: { x0?: number; x1?: number } = {}): Item {
  const b = union(parts);
  return { x0: extra.x0 ?? b.x0, x1: extra.x1 ?? b.x1, y0: b.y0, y1: b.y1, baseline, size, tex, cls: 'group', raw: '', font: '' };
}

/** The main baseline of a set of items: that of the largest ordinary glyphs. */
function mainBaseline(items: readonly Item[]): { baseline: number; size: number } {
  const plain = items.filter((i) => i.cls !== 'bigop' && i.cls !== 'int' && i.cls !== 'radical' && i.cls !== 'group' && !/^[()[\]|]$|\\[{}|]|\\[lr](?:angle|floor|ceil)/.test(i.tex));
  const pool = plain.length ? plain : items;
  const size = Math.max(...pool.map((i) => i.size));
  const big = pool.filter((i) => i.size >= 0.9 * size).map((i) => i.baseline).sort((a, b) => a - b);
  return { baseline: big[Math.floor(big.length / 2)] ?? 0, size };
}

/**
 * Horizontal braces (ADR 0355): the pieces of one brace (its tips, middle and the extension glyphs or rules
 * between them, on one row) span material. Full-size material right above the brace with smaller material
 * under it is `\underbrace{material}_{note}`; full-size material right under it with smaller material over
 * it is `\overbrace{material}^{note}`. The brace's rules are used up (a rule under material with more
 * below it would read as a fraction bar). Pieces that span nothing are dropped.
 */
function buildBraces(pool: Item[], rules: readonly MathRule[], ctx: Ctx): { pool: Item[]; rules: MathRule[] } {
  const tips = pool.filter((i) => i.cls === 'hbrace').sort((a, b) => a.x0 - b.x0);
  if (!tips.length) return { pool, rules: [...rules] };
  const em = ctx.em;
  // Bands: tips on one row, each within two ems of the last (the extension between them is glyphs or rules).
  const bands: Item[][] = [];
  for (const t of tips) {
    const band = bands.find((b) => Math.abs(mid(b[b.length - 1]!) - mid(t)) < 0.5 * em);
    if (band) band.push(t);
    else bands.push([t]);
  }
  let left = pool.filter((i) => i.cls !== 'hbrace');
  let ruleLeft = [...rules];
  for (const band of bands) {
    const b = union(band);
    const y = (b.y0 + b.y1) / 2;
    const inBand = (i: { x0: number; x1: number }) => i.x0 >= b.x0 - 0.3 * em && i.x1 <= b.x1 + 0.3 * em;
    // The extension: macrons or bars on the band's row between its tips, and rules there.
    const ext = left.filter((i) => inBand(i) && Math.abs(mid(i) - y) < 0.4 * em && (i.cls === 'accent' || /^(?:-|\\overline|\\bar|\\hbox)$/.test(i.tex)) && i.size <= 1.5 * em);
    const bandRules = ruleLeft.filter((r) => r.x0 >= b.x0 - 0.5 * em && r.x1 <= b.x1 + 0.5 * em && Math.abs(r.y - y) < 0.5 * em);
    left = left.filter((i) => !ext.includes(i));
    ruleLeft = ruleLeft.filter((r) => !bandRules.includes(r));
    if (b.x1 - b.x0 < 0.8 * em) continue;
    const spanned = (i: Item) => cx(i) > b.x0 - 0.2 * em && cx(i) < b.x1 + 0.2 * em;
    const above = left.filter((i) => spanned(i) && i.y1 <= y + 0.2 * em && b.y0 - i.y1 < 0.8 * i.size);
    const below = left.filter((i) => spanned(i) && i.y0 >= y - 0.2 * em && i.y0 - b.y1 < 0.8 * i.size);
    const full = (xs: Item[]) => xs.some((i) => i.size >= 0.8 * em || i.cls === 'group' || i.cls === 'bigop' || i.cls === 'int');
    const fa = full(above);
    const fb = full(below);
    const under = fa && (!fb || b.y0 - Math.max(...above.map((i) => i.y1)) <= Math.min(...below.map((i) => i.y0)) - b.y1);
    const near = under ? above : below;
    if (!near.length || !full(near)) continue;
    const baseAll = left.filter((i) => spanned(i) && (under ? mid(i) < y : mid(i) > y));
    const base = grow(near, baseAll, em);
    const noteNear = (under ? below : above).filter((i) => !base.includes(i));
    const noteAll = left.filter((i) => !base.includes(i) && cx(i) > b.x0 - em && cx(i) < b.x1 + em && (under ? mid(i) > y : mid(i) < y));
    const note = noteNear.length ? grow(noteNear, noteAll, 0.7 * em) : [];
    const bb = union(base);
    const inner = ruleLeft.filter((r) => r.x0 >= bb.x0 - 1 && r.x1 <= bb.x1 + 1 && r.y > bb.y0 - 1 && r.y < bb.y1 + 1);
    const body = build(base, inner, ctx);
    const n = note.length ? build(note, [], ctx) : '';
    const m = mainBaseline(base);
    const tex = under ? `\\underbrace{${body}}${n ? `_{${n}}` : ''}` : `\\overbrace{${body}}${n ? `^{${n}}` : ''}`;
    const c = composite([...base, ...note, ...band], tex, m.baseline, m.size);
    left = [...left.filter((i) => !base.includes(i) && !note.includes(i)), c];
    ruleLeft = ruleLeft.filter((r) => !inner.includes(r));
  }
  return { pool: left, rules: ruleLeft };
}

function buildRules(items: Item[], rules: readonly MathRule[], ctx: Ctx): Item[] {
  let pool = items;
  const sorted = [...rules].sort((a, b) => a.x1 - a.x0 - (b.x1 - b.x0));
  for (const r of sorted) {
    const inX = (i: Item) => i.x0 >= r.x0 - 0.25 * i.size && i.x1 <= r.x1 + 0.25 * i.size && cx(i) > r.x0 && cx(i) < r.x1;
    // A radical: its sign ends where the bar starts, the bar at the sign's top.
    const sign = pool.find((i) => i.cls === 'radical' && Math.abs(i.x1 - r.x0) <= 0.3 * i.size + 1 && r.y >= i.y0 - 0.4 * i.size && r.y <= i.y0 + 0.5 * i.size);
    if (sign) {
      const under = pool.filter((i) => i !== sign && inX(i) && mid(i) > r.y && i.y0 >= r.y - 0.3 * i.size && mid(i) < sign.y1 + 0.2 * sign.size);
      if (!under.length) continue;
      const index = pool.filter((i) => i !== sign && !under.includes(i) && i.size < 0.85 * ctx.em && cx(i) >= sign.x0 - 0.6 * ctx.em && cx(i) <= sign.x0 + 0.6 * (sign.x1 - sign.x0) && i.y1 <= mid(sign) + 0.1 * sign.size && i.y1 >= sign.y0 - 0.8 * ctx.em);
      const body = build(under, [], ctx);
      const idx = index.length ? build(index, [], ctx) : '';
      const m = mainBaseline(under);
      const c = composite([sign, ...under, ...index], `\\sqrt${idx ? `[${idx}]` : ''}{${body}}`, m.baseline, m.size, { x0: Math.min(sign.x0, ...index.map((i) => i.x0)), x1: r.x1 });
      pool = [...pool.filter((i) => i !== sign && !under.includes(i) && !index.includes(i)), c];
      continue;
    }
    const aboveAll = pool.filter((i) => inX(i) && mid(i) < r.y);
    const belowAll = pool.filter((i) => inX(i) && mid(i) > r.y);
    const nearAbove = aboveAll.filter((i) => r.y - i.y1 <= 0.75 * i.size && r.y - i.y1 >= -0.4 * i.size);
    const nearBelow = belowAll.filter((i) => i.y0 - r.y <= 0.75 * i.size && i.y0 - r.y >= -0.4 * i.size);
    const em = Math.max(...[...nearAbove, ...nearBelow].map((i) => i.size), 1);
    const num = nearAbove.length ? grow(nearAbove, aboveAll, em) : [];
    const den = nearBelow.length ? grow(nearBelow, belowAll, em) : [];
    if (num.length && den.length) {
      const n = build(num, [], ctx);
      const d = build(den, [], ctx);
      const c = composite([...num, ...den], `\\frac{${n}}{${d}}`, r.y + 0.25 * em, em, { x0: r.x0, x1: r.x1 });
      pool = [...pool.filter((i) => !num.includes(i) && !den.includes(i)), c];
    } else if (den.length && !num.length) {
      // A bar over material that starts within its ends: an overline.
      const b = union(den);
      if (b.x0 < r.x0 - 0.3 * em || b.x1 > r.x1 + 0.3 * em || b.y0 - r.y > 0.5 * em) continue;
      const m = mainBaseline(den);
      // A radical sign just before the bar whose join the rule above missed (a sign drawn lower or
      // narrower than TeX's, ADR 0355) is the radical's: `\sqrt{...}`, not `\sqrt \overline{...}`.
      const sign = pool.find((i) => i.cls === 'radical' && i.x1 <= r.x0 + 0.3 * i.size && r.x0 - i.x1 <= 0.6 * i.size && r.y >= i.y0 - 0.6 * i.size && r.y <= mid(i));
      const c = sign
        ? composite([sign, ...den], `\\sqrt{${build(den, [], ctx)}}`, m.baseline, m.size, { x0: sign.x0, x1: r.x1 })
        : composite(den, `\\overline{${build(den, [], ctx)}}`, m.baseline, m.size);
      pool = [...pool.filter((i) => !den.includes(i) && i !== sign), { ...c, y0: Math.min(c.y0, r.y) }];
    } else if (num.length && !den.length) {
      // A bar close under material that it fits at both ends (TeX's \underline is as wide as its material;
      // a proof's inference line or a table's rule is not): an underline (ADR 0355).
      const b = union(num);
      if (Math.abs(b.x0 - r.x0) > 0.15 * em || Math.abs(b.x1 - r.x1) > 0.15 * em || r.y - b.y1 > 0.5 * em) continue;
      const m = mainBaseline(num);
      const c = composite(num, `\\underline{${build(num, [], ctx)}}`, m.baseline, m.size);
      pool = [...pool.filter((i) => !num.includes(i)), { ...c, y1: Math.max(c.y1, r.y) }];
    }
  }
  return pool;
}

/** Big operators and `lim`-like words take the smaller material centred above and below them as limits. */
function buildLimits(pool: Item[], ctx: Ctx): Item[] {
  const ops = pool.filter((i) => i.cls === 'bigop').sort((a, b) => a.x0 - b.x0);
  for (const op of ops) {
    if (!pool.includes(op)) continue;
    const w = op.x1 - op.x0;
    const near = (i: Item) => i !== op && i.size < 0.9 * Math.max(ctx.em, op.size * (op.raw.length > 1 ? 1 : 0.7)) && cx(i) > op.x0 - 0.5 * ctx.em && cx(i) < op.x1 + 0.5 * ctx.em && i.x0 > op.x0 - Math.max(w, ctx.em) - 0.5 * ctx.em && i.x1 < op.x1 + Math.max(w, ctx.em) + 0.5 * ctx.em;
    const above = pool.filter((i) => near(i) && i.y1 <= op.y0 + 0.2 * (op.y1 - op.y0) && op.y0 - i.y1 < 0.7 * ctx.em);
    const below = pool.filter((i) => near(i) && i.y0 >= op.y1 - 0.2 * (op.y1 - op.y0) && i.y0 - op.y1 < 0.7 * ctx.em);
    if (!above.length && !below.length) continue;
    const up = above.length ? grow(above, pool.filter((i) => near(i) && mid(i) < mid(op)), ctx.em * 0.7).filter((i) => i.y1 <= op.y0 + 0.3 * (op.y1 - op.y0)) : [];
    const down = below.length ? grow(below, pool.filter((i) => near(i) && mid(i) > mid(op)), ctx.em * 0.7).filter((i) => i.y0 >= op.y1 - 0.3 * (op.y1 - op.y0)) : [];
    const tex = `${op.tex}${down.length ? `_{${build(down, [], ctx)}}` : ''}${up.length ? `^{${build(up, [], ctx)}}` : ''}`;
    const baseline = op.raw.length > 1 && op.cls === 'bigop' && /^[a-zA-Z]+$/.test(op.raw) ? op.baseline : mid(op) + 0.25 * ctx.em;
    const c = composite([op, ...up, ...down], tex, baseline, ctx.em);
    pool = [...pool.filter((i) => i !== op && !up.includes(i) && !down.includes(i)), { ...c, x0: op.x0, x1: op.x1, y0: op.y0, y1: op.y1 }];
  }
  return pool;
}

/** An equation number set apart (1.5 ems or more) to the right of everything else: its items and text. */
function trailingNumber(items: readonly Item[], em: number): { items: Item[]; tag: string } | null {
  const sorted = [...items].sort((a, b) => a.x0 - b.x0);
  let right = -Infinity;
  for (let k = 0; k < sorted.length; k++) {
    if (k > 0 && sorted[k]!.x0 - right >= 1.5 * em) {
      const m = EQNUM_RE.exec(sorted.slice(k).map((i) => i.raw).join('').replace(/\s+/g, ''));
      if (m) return { items: sorted.slice(k), tag: m[1]! };
    }
    right = Math.max(right, sorted[k]!.x1);
  }
  return null;
}

/** Delimiters that can stand around an array, and the amsmath environment a matching pair makes. */
const ARRAY_ENV: Readonly<Record<string, string>> = { '()': 'pmatrix', '[]': 'bmatrix', '\\{\\}': 'Bmatrix', '||': 'vmatrix', '\\|\\|': 'Vmatrix' };
const LEFT_DELIMS = new Set(['(', '[', '\\{', '|', '\\|', '\\langle', '\\lfloor', '\\lceil']);
const RIGHT_DELIMS = new Set([')', ']', '\\}', '|', '\\|', '\\rangle', '\\rfloor', '\\rceil']);

/**
 * Rows of items by baseline, top to bottom: full-size glyphs set the rows (a new row more than `gap` ems
 * below the last), smaller glyphs and tall ones go to the row nearest their middle.
 */
function rowsByBaseline(pool: readonly Item[], em: number, gap: number): Item[][] {
  const tall = (i: Item) => i.cls === 'bigop' || i.cls === 'int' || i.cls === 'open' || i.cls === 'close';
  const full = pool.filter((i) => (i.size >= 0.8 * em && !tall(i)) || i.cls === 'group');
  const bases = [...new Set(full.map((i) => i.baseline))].sort((a, b) => a - b);
  const rows: number[] = [];
  for (const b of bases) if (!rows.length || b - rows[rows.length - 1]! > gap * em) rows.push(b);
  if (rows.length <= 1) return [[...pool]];
  const groups: Item[][] = rows.map(() => []);
  for (const i of pool) {
    const ref = tall(i) || i.size < 0.8 * em ? mid(i) + 0.25 * em : i.baseline;
    let best = 0;
    for (let r = 1; r < rows.length; r++) if (Math.abs(rows[r]! - ref) < Math.abs(rows[best]! - ref)) best = r;
    groups[best]!.push(i);
  }
  return groups.filter((g) => g.length);
}

/**
 * The cells of an array's rows: each row cut where the gap between glyphs is over `sep` ems (an array's
 * column separation is an em or more, the space around a relation a quarter), and the cells of all rows
 * put in columns by overlapping extent (centred or left-aligned columns overlap down the array).
 */
function arrayCells(rows: readonly Item[][], em: number, sep: number): { columns: number; cells: Item[][][] } {
  const cut = rows.map((row) => {
    const sorted = [...row].sort((a, b) => a.x0 - b.x0);
    const cells: Item[][] = [];
    let right = -Infinity;
    for (const it of sorted) {
      if (!cells.length || it.x0 - right > sep * em) cells.push([]);
      cells[cells.length - 1]!.push(it);
      right = Math.max(right, it.x1);
    }
    return cells;
  });
  // Columns: the extents of all cells merged where they overlap, left to right.
  const spans = cut.flat().map((c) => union(c)).sort((a, b) => a.x0 - b.x0);
  const cols: { x0: number; x1: number }[] = [];
  for (const s of spans) {
    const last = cols[cols.length - 1];
    if (last && s.x0 < last.x1) last.x1 = Math.max(last.x1, s.x1);
    else cols.push({ x0: s.x0, x1: s.x1 });
  }
  const cells = cut.map((row) => {
    const out: Item[][] = cols.map(() => []);
    for (const c of row) {
      const b = union(c);
      const k = cols.findIndex((col) => b.x0 < col.x1 && b.x1 > col.x0);
      out[Math.max(0, k)]!.push(...c);
    }
    return out;
  });
  return { columns: cols.length, cells };
}

/**
 * Matrices and `cases`: a pair of tall delimiters around material in two or more rows is a matrix
 * (`pmatrix` for parentheses, `bmatrix`, `Bmatrix`, `vmatrix`, `Vmatrix`, other pairs `\left..\right` around
 * `matrix`), a tall left brace with rows after it and no partner is `cases` (value, then condition); rows
 * by baseline, columns by the gaps between them. Delimiters around a single row (`\left( \frac{a}{b}
 * \right)`) are left to the row.
 */
function buildArrays(pool: Item[], ctx: Ctx): Item[] {
  const em = ctx.em;
  const tall = (i: Item) => i.y1 - i.y0 >= 1.7 * em && (LEFT_DELIMS.has(i.tex) || RIGHT_DELIMS.has(i.tex));
  const lefts = pool.filter((i) => tall(i) && LEFT_DELIMS.has(i.tex)).sort((a, b) => a.x0 - b.x0);
  for (const L of lefts) {
    if (!pool.includes(L)) continue;
    const h = L.y1 - L.y0;
    const vOverlap = (i: Item) => Math.min(i.y1, L.y1) - Math.max(i.y0, L.y0);
    const R = pool
      .filter((i) => i !== L && tall(i) && RIGHT_DELIMS.has(i.tex) && i.x0 >= L.x1 - 0.1 * em && vOverlap(i) >= 0.6 * Math.min(h, i.y1 - i.y0) && (i.y1 - i.y0) / h > 0.6 && (i.y1 - i.y0) / h < 1.6)
      .sort((a, b) => a.x0 - b.x0)[0];
    const inside = (i: Item) => i !== L && i !== R && cx(i) > L.x1 && (!R || cx(i) < R.x0) && mid(i) > L.y0 && mid(i) < L.y1;
    let content = pool.filter(inside);
    if (!R) {
      // `cases`: only a left brace, the rows after it up to an equation number set apart.
      if (L.tex !== '\\{') continue;
      const num = trailingNumber(content, em);
      if (num) content = content.filter((i) => !num.items.includes(i));
    }
    if (!content.length) continue;
    const rows = rowsByBaseline(content, em, 0.8).sort((a, b) => mainBaseline(a).baseline - mainBaseline(b).baseline);
    if (rows.length < 2) continue;
    const { cells } = arrayCells(rows, em, 0.75);
    // The cells of an array fill its grid (a cell left empty here and there); material that only looks like
    // rows (an integral's limits set beside it inside a big brace) leaves most of it empty.
    const grid = R ? cells : cells.map((row) => [row[0] ?? [], row.slice(1).flat()]);
    const filled = grid.reduce((n, row) => n + row.filter((c) => c.length).length, 0);
    if (filled < 0.75 * grid.length * Math.max(1, ...grid.map((row) => row.length))) continue;
    const cellTex = (c: Item[]) => (c.length ? buildRow(c, ctx) : '');
    let body: string;
    let tex: string;
    if (!R) {
      // Value and condition: everything after the first column is the condition.
      body = cells.map((row) => [cellTex(row[0] ?? []), cellTex(row.slice(1).flat())].filter((t, k) => k === 0 || t).join(' & ')).join(' \\\\ ');
      tex = `\\begin{cases} ${body} \\end{cases}`;
    } else if (isBinomial(L, R, rows, cells, em)) {
      body = '';
      tex = `\\binom{${cellTex(cells[0]![0]!)}}{${cellTex(cells[1]![0]!)}}`;
    } else {
      body = cells.map((row) => row.map(cellTex).join(' & ')).join(' \\\\ ');
      const env = ARRAY_ENV[L.tex + R.tex];
      tex = env ? `\\begin{${env}} ${body} \\end{${env}}` : `\\left${L.tex} \\begin{matrix} ${body} \\end{matrix} \\right${R.tex}`;
    }
    const parts = [L, ...(R ? [R] : []), ...content];
    const c = composite(parts, tidy(tex), mid(L) + 0.25 * em, em);
    pool = [...pool.filter((i) => !parts.includes(i)), c];
  }
  return pool;
}

/**
 * `\binom{n}{k}` (and `\dbinom`), not a one-column `pmatrix`: parentheses around two rows of one cell each,
 * each row of plain height, set further apart than an array's rows. A display binomial is a generalised
 * fraction without a rule, its numerator 0.677 em up and its denominator 0.686 em down (CMSY's num1 and
 * denom1): 1.36 em between baselines; an array's rows of plain height sit one strut apart, 1.2 em
 * (`\baselineskip`); 1.28 em splits the two.
 */
function isBinomial(L: Item, R: Item, rows: readonly Item[][], cells: readonly Item[][][], em: number): boolean {
  if (L.tex !== '(' || R.tex !== ')' || rows.length !== 2 || cells.length !== 2) return false;
  if (cells.some((row) => row.length !== 1 || !row[0]!.length)) return false;
  // Plain rows: no stacked material (a fraction, a tall group) whose height would itself push the rows apart.
  if (rows.some((row) => Math.max(...row.map((i) => i.y1)) - Math.min(...row.map((i) => i.y0)) > 1.1 * em || row.some((i) => i.cls === 'group' && /\\frac|\\begin/.test(i.tex)))) return false;
  const gap = mainBaseline(rows[1]!).baseline - mainBaseline(rows[0]!).baseline;
  return gap >= 1.28 * em && gap <= 1.6 * em;
}

/** Accents over a base become `\hat{x}`. */
function buildAccents(pool: Item[], ctx: Ctx): Item[] {
  for (const acc of pool.filter((i) => i.cls === 'accent')) {
    const base = pool
      .filter((i) => i !== acc && i.cls !== 'accent' && cx(acc) >= i.x0 - 0.1 * ctx.em && cx(acc) <= i.x1 + 0.1 * ctx.em && mid(i) > mid(acc) && i.y0 - acc.y1 < 0.5 * i.size)
      .sort((a, b) => a.y0 - b.y0)[0];
    if (!base) {
      pool = pool.filter((i) => i !== acc);
      continue;
    }
    const c: Item = { ...base, y0: Math.min(base.y0, acc.y0), tex: `${acc.tex}{${base.tex}}`, cls: base.cls === 'var' || base.cls === 'upright' ? 'var' : 'group' };
    pool = pool.filter((i) => i !== acc && i !== base).concat(c);
  }
  return pool;
}

/**
 * Material set over or under a relation (`\stackrel{\text{def}}{=}`, `\overset{!}{=}`, `\underset{x}{\to}`)
 * becomes `\overset{..}{rel}` / `\underset{..}{rel}` (ADR 0367): smaller glyphs right above (or below) a
 * full-size relation, centred on it. Read as they were, they became a superscript of the glyph before the
 * relation and of the relation itself (`x^{\text{def}} =^{.} a`). A script of the glyph before the
 * relation sits left of it, not centred on it.
 */
function buildStacks(pool: Item[], ctx: Ctx): Item[] {
  const em = ctx.em;
  for (const rel of pool.filter((i) => i.cls === 'rel' && i.size >= 0.8 * em)) {
    if (!pool.includes(rel)) continue;
    const small = (i: Item) => i !== rel && i.size < 0.85 * rel.size && i.cls !== 'accent' && i.x0 >= rel.x0 - 2 * em && i.x1 <= rel.x1 + 2 * em;
    const overAt = (i: Item) => i.y1 <= rel.y0 + 0.25 * rel.size && i.y1 >= rel.y0 - 0.4 * rel.size;
    const underAt = (i: Item) => i.y0 >= rel.y1 - 0.1 * rel.size && i.y0 <= rel.y1 + 0.5 * rel.size;
    const side = (near: (i: Item) => boolean, pick: (i: Item) => boolean): Item[] => {
      const seed = pool.filter((i) => small(i) && near(i) && cx(i) >= rel.x0 && cx(i) <= rel.x1);
      if (!seed.length) return [];
      const zone = pool.filter((i) => small(i) && pick(i));
      // Grown along its own baseline only: the stacked note is one short row of script-size glyphs.
      const b0 = seed[0]!.baseline;
      const set = new Set(seed);
      let changed = true;
      while (changed) {
        changed = false;
        const u = union([...set]);
        for (const i of zone) if (!set.has(i) && Math.abs(i.baseline - b0) < 0.2 * i.size && i.x0 - u.x1 < 0.3 * em && u.x0 - i.x1 < 0.3 * em) {
          set.add(i);
          changed = true;
        }
      }
      const note = [...set];
      const u = union(note);
      // Centred on the relation (TeX centres the note on it), within a third of an em or a sixth of its width.
      return Math.abs(cx(u) - cx(rel)) <= 0.3 * em + 0.15 * (u.x1 - u.x0) ? note : [];
    };
    const over = side(overAt, (i) => mid(i) < mid(rel));
    const under = side(underAt, (i) => mid(i) > mid(rel));
    if (!over.length && !under.length) continue;
    let tex = rel.tex;
    if (over.length) tex = `\\overset{${buildRow(over, ctx)}}{${tex}}`;
    if (under.length) tex = `\\underset{${buildRow(under, ctx)}}{${tex}}`;
    const parts = [rel, ...over, ...under];
    const b = union(parts);
    pool = [...pool.filter((i) => !parts.includes(i)), { ...rel, y0: b.y0, y1: b.y1, tex, raw: '' }];
  }
  return pool;
}

const EQNUM_RE = /^\((\d+(?:\.\d+)*[a-z]?|[A-Z]\.?\d+(?:\.\d+)*[a-z]?|[ivxIVX]+|\*+|[a-z]|\d+[′']*)\)$/;

/** The equation number set apart at the end or start of a row: its text and the items it takes. */
function equationNumber(row: Item[], em: number): { tag: string; items: Item[] } | null {
  const sorted = [...row].sort((a, b) => a.x0 - b.x0);
  for (const side of ['end', 'start'] as const) {
    for (let n = 2; n <= Math.min(10, sorted.length - 1); n++) {
      const part = side === 'end' ? sorted.slice(-n) : sorted.slice(0, n);
      const text = part.map((i) => i.raw).join('');
      const m = EQNUM_RE.exec(text.replace(/\s+/g, ''));
      if (!m) continue;
      const rest = side === 'end' ? sorted[sorted.length - n - 1]! : sorted[n]!;
      const gap = side === 'end' ? part[0]!.x0 - rest.x1 : rest.x0 - part[part.length - 1]!.x1;
      // TeX sets a number at least a quad from its equation (else on a line of its own): 0.97 em measured
      // beside a display that fills the column (ADR 0355).
      if (gap >= 0.9 * em) return { tag: m[1]!, items: part };
    }
  }
  return null;
}

/** An item's LaTeX in a row: a radical sign that no bar made a `\\sqrt{}` of stands alone (`\\surd`, ADR 0355). */
const texOfItem = (it: Item): string => (it.cls === 'radical' && it.tex === '\\sqrt' ? '\\surd' : it.tex);

/** One row, left to right: scripts attached to their base by baseline offset and size, recursively. */
function buildRow(row: Item[], ctx: Ctx, alignAt: Item | null = null): string {
  if (!row.length) return '';
  const main = mainBaseline(row);
  // An integral's limits set beside it (display style, no \limits) start left of its right edge: TeX moves
  // the lower one left by the slanted glyph's italic correction, so `-\infty` under `\int` can start before
  // the integral itself and was read as a script of the glyph before it (`\frac{1}{2\pi}_{-} \int_{\infty}`).
  // A smaller glyph that overlaps an integral's column in its top or bottom quarter sorts after it (ADR 0367).
  const ints = row.filter((i) => i.cls === 'int');
  const at = (i: Item): number => {
    if (!ints.length || i.cls === 'int' || i.size >= 0.85 * main.size) return i.x0;
    const t = ints.find((n) => i.x1 > n.x0 && i.x0 < n.x1 && (mid(i) > n.y1 - 0.25 * (n.y1 - n.y0) || mid(i) < n.y0 + 0.25 * (n.y1 - n.y0)) && i.y1 > n.y0 - 0.3 * main.size && i.y0 < n.y1 + 0.3 * main.size);
    return t && i.x0 <= t.x0 ? t.x0 + 0.01 : i.x0;
  };
  const items = [...row].sort((a, b) => at(a) - at(b) || a.y0 - b.y0);
  const out: string[] = [];
  let k = 0;
  // A script before any base (a prescript, or the row starts with a small raised mark).
  let base: Item | null = null;
  while (k < items.length) {
    const it = items[k]!;
    const ref = base ?? { baseline: main.baseline, size: main.size, y0: main.baseline - 0.7 * main.size, y1: main.baseline + 0.2 * main.size, cls: 'var' as Cls, x1: -Infinity };
    const kind = scriptKind(it, ref as Item, main.size);
    if (kind && base) {
      // Collect the run of scripts after this base.
      const sup: Item[] = [];
      const sub: Item[] = [];
      let j = k;
      while (j < items.length) {
        const s = items[j]!;
        const kk = scriptKind(s, base, main.size);
        if (!kk) break;
        // A gap of over an em after the base ends its scripts.
        const last = [...sup, ...sub].reduce((m, i) => Math.max(m, i.x1), base.x1);
        if (s.x0 - last > 0.8 * base.size) break;
        (kk === '^' ? sup : sub).push(s);
        j++;
      }
      if (j === k) {
        // Too far from its base to be its script: a glyph of its own.
        out.push(it === alignAt ? `& ${texOfItem(it)}` : texOfItem(it));
        base = it;
        k++;
        continue;
      }
      let t = out.pop() ?? '{}';
      if (sub.length) t += `_{${buildRow(sub, ctx)}}`;
      if (sup.length) {
        const s = buildRow(sup, ctx);
        t += /^'+$/.test(s) ? s : `^{${s}}`;
      }
      out.push(t);
      k = j;
      continue;
    }
    out.push(it === alignAt ? `& ${texOfItem(it)}` : texOfItem(it));
    base = it;
    k++;
  }
  return joinTokens(out);
}

function scriptKind(it: Item, base: Item, rowSize: number): '^' | '_' | null {
  if (it.cls === 'group' && it.size >= 0.75 * rowSize) return null;
  const baseSize = base.cls === 'group' || base.cls === 'bigop' || base.cls === 'int' || base.cls === 'open' || base.cls === 'close' || base.cls === 'radical' ? rowSize : base.size;
  if (it.tex === "'" && it.y1 <= base.baseline) return '^';
  if (it.size > 0.85 * baseSize) return null;
  // An extension font's big operator in text style (`\sum^{a}_{b}` in a numerator) is no taller than the row,
  // but its glyph hangs from a baseline at its top like the display one: its scripts go by its middle too,
  // not by that baseline (both were below it: `\sum_{a b}`; ADR 0367 amendment).
  if (base.cls === 'int' || base.cls === 'open' || base.cls === 'close' || (base.cls === 'bigop' && (base.size > 1.2 * rowSize || EXT_FONT_RE.test(base.font)))) {
    // Scripts of a tall glyph sit at its top or bottom.
    return mid(it) < mid(base) ? '^' : '_';
  }
  const d = it.baseline - base.baseline;
  if (d < -0.15 * baseSize) return '^';
  if (d > 0.08 * baseSize) return '_';
  return null;
}

/**
 * Tokens joined: a space between atoms, none before scripts, inside parentheses and brackets, before a comma
 * or after a number followed by a letter (`f(x)`, `2n`); a command's letters never run into the next token.
 */
function joinTokens(tokens: readonly string[]): string {
  let s = '';
  for (const t of tokens) {
    if (!t) continue;
    if (!s) s = t;
    else if (/^[_^']/.test(t) || /^[)\],;]/.test(t) || (/[([]$/.test(s) && !/\\[A-Za-z]+[([]$/.test(s))) s += t;
    else if (/^[A-Za-z]/.test(t) && /(?:^|[^\\A-Za-z])\d+$/.test(s)) s += t;
    else if (t === '(' && /(?:^|[^\\])[A-Za-z]$|[}']$/.test(s)) s += t;
    else s += ` ${t}`;
  }
  return s;
}

/** Rows by baseline: an alignment's lines; smaller glyphs go to the row they belong to. */
function splitRows(pool: Item[], em: number): Item[][] {
  // Full size as `scriptKind` has it (over 0.85 of the row's size): a 9 pt newtx display sets its scripts at
  // 7.3 pt (0.81), which a 0.8 bound took for full size, so the integrals' upper limits and the squares of a
  // wide display made a row of their own (asmejour-wide; ADR 0367 amendment).
  const full = pool.filter((i) => i.size > 0.85 * em && i.cls !== 'bigop' && i.cls !== 'int' && !(i.cls === 'open' || i.cls === 'close') || i.cls === 'group');
  const bases = [...new Set(full.map((i) => i.baseline))].sort((a, b) => a - b);
  const rows: number[] = [];
  for (const b of bases) if (!rows.length || b - rows[rows.length - 1]! > 1.1 * em) rows.push(b);
  if (rows.length <= 1) return [pool];
  // Each row's baseline is the median of its full-size glyphs.
  const groups: Item[][] = rows.map(() => []);
  for (const i of pool) {
    const ref = i.cls === 'bigop' || i.cls === 'int' || i.cls === 'open' || i.cls === 'close' ? mid(i) + 0.25 * em : i.size <= 0.85 * em ? mid(i) + 0.25 * em : i.baseline;
    let best = 0;
    for (let r = 1; r < rows.length; r++) if (Math.abs(rows[r]! - ref) < Math.abs(rows[best]! - ref)) best = r;
    groups[best]!.push(i);
  }
  return groups.filter((g) => g.length);
}

/** The structure passes over a set of items, in order: braces, rules (fractions, radicals), accents, stacked relations, limits, arrays. */
function buildPool(items: Item[], rules: readonly MathRule[], ctx: Ctx): Item[] {
  const braced = buildBraces(items, rules, ctx);
  let pool = buildRules(braced.pool, braced.rules, ctx);
  pool = buildAccents(pool, ctx);
  pool = buildStacks(pool, ctx);
  pool = buildLimits(pool, ctx);
  return buildArrays(pool, ctx);
}

function build(items: Item[], rules: readonly MathRule[], ctx: Ctx): string {
  if (!items.length) return '';
  return buildRow(buildPool(items, rules, ctx), ctx);
}

/**
 * Rebuilds one displayed equation from its glyphs and the rules drawn around it. Null when no glyph maps
 * to anything. Rows of an alignment are joined by `\\`; the equation number (of the last numbered row)
 * is returned apart, for `\tag{}`.
 */
export function rebuildEquation(glyphs: readonly MathGlyph[], rules: readonly MathRule[] = []): RebuiltEquation | null {
  const { items: raw, unmapped } = toItems(glyphs);
  if (!raw.length) return null;
  const items = mergeWords(raw);
  const sizes = items.map((i) => i.size).sort((a, b) => a - b);
  const em = sizes[Math.floor(sizes.length * 0.75)] ?? sizes[0]!;
  const ctx: Ctx = { em, unmapped };
  const b = union(items);
  const near = rules.filter((r) => r.x1 > b.x0 - 1 && r.x0 < b.x1 + 1 && r.y > b.y0 - 0.5 * em && r.y < b.y1 + 0.5 * em && r.x1 - r.x0 < b.x1 - b.x0 + 2);
  let pool = buildPool(items, near, ctx);
  // A number set between rows (a `split`'s, centred on the display) numbers the whole display.
  let between: string | null = null;
  const tail = trailingNumber(pool, em);
  if (tail) {
    const b0 = tail.items[0]!.baseline;
    const others = pool.filter((i) => !tail.items.includes(i) && i.size >= 0.8 * em && i.cls !== 'bigop' && i.cls !== 'int');
    if (others.length && others.every((i) => Math.abs(i.baseline - b0) > 0.3 * em)) {
      between = tail.tag;
      pool = pool.filter((i) => !tail.items.includes(i));
    }
  }
  const rows = splitRows(pool, em).sort((a, b) => mainBaseline(a).baseline - mainBaseline(b).baseline);
  const built = rows.map((row) => {
    // A row that is only an equation number (a wide display's, set on a line of its own) numbers the display.
    const alone = rows.length > 1 ? EQNUM_RE.exec([...row].sort((a, b) => a.x0 - b.x0).map((i) => i.raw).join('').replace(/\s+/g, '')) : null;
    if (alone) return { items: [] as Item[], tex: '', tag: alone[1]!, box: union(row), rel: null as Item | null, x0: union(row).x0 };
    const num = equationNumber(row, em);
    const body = num ? row.filter((i) => !num.items.includes(i)) : row;
    // The row's first relation at full size: where an alignment's rows line up.
    const rel = body.filter((i) => i.cls === 'rel' && i.size >= 0.8 * em).sort((a, b) => a.x0 - b.x0)[0] ?? null;
    return { items: body, tex: buildRow(body, ctx), tag: num?.tag ?? null, box: union(row), rel, x0: body.length ? union(body).x0 : 0 };
  });
  type Row = (typeof built)[number];
  // Several rows of one display: `aligned` at their relations when these line up (a continuation row
  // without one starts right of them), `gathered` otherwise, so that the rows render as rows.
  const joinRows = (rs: readonly Row[]): string => {
    const texs = rs.filter((r) => r.tex);
    if (texs.length < 2) return tidy(texs.map((r) => r.tex).join(''));
    const rels = texs.filter((r) => r.rel).map((r) => r.rel!.x0);
    const at = rels.length ? rels.sort((a, b) => a - b)[Math.floor(rels.length / 2)]! : NaN;
    const aligned = rels.length >= 2 && texs.every((r) => (r.rel ? Math.abs(r.rel.x0 - at) <= 0.6 * em : r.x0 > at));
    if (!aligned) return tidy(`\\begin{gathered} ${texs.map((r) => r.tex).join(' \\\\ ')} \\end{gathered}`);
    return tidy(`\\begin{aligned} ${texs.map((r) => (r.rel ? buildRow(r.items, ctx, r.rel) : `& ${r.tex}`)).join(' \\\\ ')} \\end{aligned}`);
  };
  const displays: { latex: string; tag: string | null }[] = [];
  const numbered = built.filter((r) => r.tag !== null).length;
  let cur: Row[] = [];
  let curTag: string | null = null;
  for (let k = 0; k < built.length; k++) {
    const r = built[k]!;
    // Rows an em or more apart are separate displays set one after the other (an alignment's rows sit
    // closer); unnumbered, or each with its own number.
    const prev = built[k - 1];
    if (prev && cur.length && r.box.y0 - prev.box.y1 > 1.0 * em) {
      displays.push({ latex: joinRows(cur), tag: curTag });
      cur = [];
      curTag = null;
    }
    if (r.tex) cur.push(r);
    if (r.tag !== null) curTag = r.tag;
    if (numbered > 1 && r.tag !== null && cur.length) {
      displays.push({ latex: joinRows(cur), tag: r.tag });
      cur = [];
      curTag = null;
    }
  }
  if (cur.length) displays.push({ latex: joinRows(cur), tag: numbered === 1 ? curTag ?? (displays.length ? null : built.find((r) => r.tag !== null)!.tag) : null });
  if (!displays.length) return null;
  const latex = joinRows(built);
  // (Displays set apart keep it on the last one.)
  if (between !== null && numbered === 0) return { latex, tag: between, unmapped, displays: displays.map((d, k) => (k === displays.length - 1 ? { ...d, tag: between } : d)) };
  return { latex, tag: numbered ? built.filter((r) => r.tag !== null).pop()!.tag : null, unmapped, displays };
}

const tidy = (s: string): string => s.replace(/\s+/g, ' ').trim();
