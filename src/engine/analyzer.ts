// Text analysis shared by indexing, querying, phrase matching and snippets: one tokenizer, so a query
// term and a document term agree by construction.
//
// Pipeline per token: segmentation on the original text (offsets stay valid) -> NFKC -> lower case ->
// Greek letters spelled out (α -> alpha, so "TNF-α" meets "TNF-alpha") -> stopword check (the slot is
// kept) -> Snowball stem of the document's language (letters-only tokens longer than 2; English with the
// rules of english.ts), or for tokens with digits a spelled Greek letter next to a digit becomes its Latin
// initial ("1alpha" -> "1a", so "HIF-1α" meets "HIF1A") -> diacritics folded (é -> e, ß stays for the German
// stemmer to handle, æ -> ae ...).
//
// Segmentation for scientific text:
// - a token is a run of letters, digits and combining marks (any script);
// - hyphenated compounds ("IL-6", "non-small-cell", "2-(4-chlorophenyl)") give every part at its own
//   position AND, for 2..4 parts, the joined form ("il6") at the first part's position, so "IL6" and
//   "IL-6" meet; the joined form is a synonym and does not count towards the field length;
// - a '.' or ',' between digits stays inside the token ("3.5", "1,000" -> "1,000");
// - identifiers and formulas mixing letters and digits split at every letter/digit boundary like hyphenated
//   compounds, with the whole as the joined form ("CTLA4" -> ctla, 4, ctla4, exactly as "CTLA-4"; "p53",
//   "CO2", "rs12345", "5mg" likewise), unless that makes more than 4 parts;
// - a trailing "'s" is dropped; other apostrophes split ("l'homme" -> "l", "homme").
// Sentence ends ('.', '!', '?' before white space, or a blank line) are reported for passage chunking.
import { stemmerFor, normalizeLanguage } from './stemmers.js';
import { stopwordsFor } from './stopwords.js';

/**
 * Receives each token. `term` is null for a stopword (its position slot is still consumed).
 * Offsets: `startCu`/`endCu` in UTF-16 code units, `startCp`/`endCp` in code points (exclusive ends).
 * `joined` marks the extra joined form of a hyphenated compound (same position as its first part).
 */
export type TokenSink = (
  term: string | null,
  position: number,
  startCp: number,
  endCp: number,
  startCu: number,
  endCu: number,
  joined: boolean,
) => void;

const GREEK: Record<string, string> = {
  α: 'alpha', β: 'beta', γ: 'gamma', δ: 'delta', ε: 'epsilon', ζ: 'zeta', η: 'eta', θ: 'theta', ι: 'iota',
  κ: 'kappa', λ: 'lambda', μ: 'mu', ν: 'nu', ξ: 'xi', ο: 'omicron', π: 'pi', ρ: 'rho', σ: 'sigma', ς: 'sigma',
  τ: 'tau', υ: 'upsilon', φ: 'phi', χ: 'chi', ψ: 'psi', ω: 'omega',
};
const GREEK_RE = /[α-ω]/g;
// A spelled-out Greek letter next to a digit inside an identifier becomes its Latin initial, as in gene
// symbols: "HIF-1α" -> "hif1a" (= HIF1A), "IL-1β" -> "il1b", "TGF-β1" -> "tgf", "b1" and joined "tgfb1".
const GREEK_NEXT_TO_DIGIT_RE = /(?<=\d)(?:alpha|beta|gamma|delta|epsilon|kappa)|(?:alpha|beta|gamma|delta|epsilon|kappa)(?=\d)/g;
const greekInitial = (m: string): string => m.charAt(0);
const SPECIAL_FOLD: Record<string, string> = { æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };
const SPECIAL_FOLD_RE = /[æœøłđðþı]/g;
const MARKS_RE = /\p{M}+/gu;
const WORD_RE = /[\p{L}\p{N}\p{M}]/u;
const LETTER_RE = /^\p{L}+$/u;
const HAS_DIGIT_RE = /\d/;

// 0 = unknown, 1 = word character, 2 = not a word character (BMP code units; astral handled separately).
const charClass = new Uint8Array(65536);
for (let c = 0; c < 128; c++) {
  const word = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  charClass[c] = word ? 1 : 2;
}

function isWordUnit(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  let k = charClass[c]!;
  if (k === 0) {
    if (c >= 0xd800 && c <= 0xdbff) return WORD_RE.test(String.fromCodePoint(text.codePointAt(i)!));
    k = WORD_RE.test(text[i]!) ? 1 : 2;
    charClass[c] = k;
  }
  return k === 1;
}

function isHyphen(c: number): boolean {
  return c === 45 || c === 0x2010 || c === 0x2011;
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 0xa0 || c === 0x2009 || c === 0x202f;
}

/** Case and diacritics folding used on index terms (after stemming); exported for tests and snippets. */
export function foldDiacritics(s: string): string {
  let out = s.normalize('NFD').replace(MARKS_RE, '');
  if (SPECIAL_FOLD_RE.test(out)) out = out.replace(SPECIAL_FOLD_RE, (ch) => SPECIAL_FOLD[ch]!);
  SPECIAL_FOLD_RE.lastIndex = 0;
  return out.normalize('NFC');
}

const MAX_CACHE = 500_000;
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 16777619;

/**
 * A language-specific analyzer. Instances are cheap to share and cache normalised terms per surface
 * form (bounded at 500,000 entries), so create one per language and reuse it.
 */
export class Analyzer {
  /** The normalised ISO 639-1 language ('' = none: no stemming, no stopwords). */
  readonly language: string;
  readonly #stem: ((w: string) => string) | null;
  readonly #stops: ReadonlySet<string>;
  readonly #spellGreek: boolean;
  #cache = new Map<string, string | null>();
  #sawSurrogate = false;

  constructor(language: string) {
    this.language = normalizeLanguage(language);
    this.#stem = stemmerFor(this.language);
    this.#stops = stopwordsFor(this.language);
    this.#spellGreek = this.language !== 'el';
  }

  /** Normalises one surface token (no separators inside) to its index term, or null for a stopword. */
  term(surface: string): string | null {
    let t = this.#cache.get(surface);
    if (t !== undefined) return t;
    t = this.#normalize(surface);
    if (this.#cache.size >= MAX_CACHE) this.#cache.clear();
    this.#cache.set(surface, t);
    return t;
  }

  /** The lower-cased, NFKC, Greek-spelled form before stopword removal and stemming. */
  baseForm(surface: string): string {
    let s = surface;
    let ascii = true;
    for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 127) { ascii = false; break; }
    if (!ascii) s = s.normalize('NFKC');
    s = s.toLowerCase();
    if (!ascii && this.#spellGreek) s = s.replace(GREEK_RE, (ch) => GREEK[ch] ?? ch);
    return s;
  }

  #normalize(surface: string): string | null {
    const s = this.baseForm(surface);
    if (this.#stops.has(s)) return null;
    let t = s;
    if (this.#stem !== null && t.length > 2 && !HAS_DIGIT_RE.test(t) && LETTER_RE.test(t)) t = this.#stem(t);
    else if (HAS_DIGIT_RE.test(t) && t.length > 4) t = t.replace(GREEK_NEXT_TO_DIGIT_RE, greekInitial);
    let ascii = true;
    for (let i = 0; i < t.length; i++) if (t.charCodeAt(i) > 127) { ascii = false; break; }
    if (!ascii) t = foldDiacritics(t);
    return t.length === 0 ? null : t;
  }

  /**
   * Tokenizes `text`, calling `sink` for every token and `onSentenceEnd(nextPosition)` after each
   * sentence. Returns the number of position slots used (tokens including stopwords, excluding joined forms).
   */
  analyze(text: string, sink: TokenSink, onSentenceEnd?: (nextPosition: number) => void): number {
    return this.analyzeWith<string | null>(text, (t, a, b) => this.term(t.slice(a, b)), null, sink, onSentenceEnd);
  }

  /**
   * Whether the last {@link analyzeWith} call met a high surrogate code unit (0xD800-0xDBFF) anywhere in its
   * text. False means the text has none, so its length in code points is its length in code units (the
   * indexer then skips counting them); true says nothing more.
   */
  get lastTextHadSurrogates(): boolean {
    return this.#sawSurrogate;
  }

  /** FNV-1a over the UTF-16 code units of `text[a, b)`: the hash {@link analyzeWith} passes to resolvers. */
  static surfaceHash(text: string, a: number, b: number): number {
    let h = FNV_OFFSET;
    for (let i = a; i < b; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
    return h;
  }

  /**
   * {@link analyze} with a caller-supplied resolver from a surface span `text[start, end)` to any term
   * representation (indexing maps spans straight to term ids without slicing strings); `stop` is the value the
   * resolver returns for stopwords (those tokens are reported with it and keep their slot). The resolver also
   * gets {@link Analyzer.surfaceHash} of the span, computed while scanning, so a hash table keyed by surface
   * spans does not read the characters twice.
   */
  analyzeWith<T>(
    text: string,
    resolve: (text: string, start: number, end: number, hash: number) => T,
    stop: T,
    sink: (term: T, position: number, startCp: number, endCp: number, startCu: number, endCu: number, joined: boolean) => void,
    onSentenceEnd?: (nextPosition: number) => void,
  ): number {
    const n = text.length;
    let i = 0;
    let pos = 0;
    let surrogates = 0; // surrogate pairs seen before index i (code point offset = i - surrogates)
    // every code unit not skipped as the second half of a pair or as ASCII punctuation inside a token is
    // looked at by one of the two loops below, so this is true whenever the text holds a high surrogate
    let sawSurrogate = false;
    const partStart: number[] = [];
    const partEnd: number[] = [];
    const partStartCp: number[] = [];
    const partEndCp: number[] = [];
    const partHash: number[] = [];
    while (i < n) {
      // skip separators, noticing sentence ends
      while (i < n) {
        const c = text.charCodeAt(i);
        if (c < 128 ? charClass[c] === 1 : isWordUnit(text, i)) break;
        if (onSentenceEnd !== undefined && pos > 0) {
          if ((c === 46 || c === 33 || c === 63) && (i + 1 >= n || isSpace(text.charCodeAt(i + 1)))) onSentenceEnd(pos);
          else if (c === 10 && i + 1 < n && text.charCodeAt(i + 1) === 10) onSentenceEnd(pos);
        }
        if (c >= 0xd800 && c <= 0xdbff) {
          sawSurrogate = true;
          if (i + 1 < n) {
            surrogates++;
            i += 2;
          } else i++;
        } else i++;
      }
      if (i >= n) break;
      // one compound: parts joined by hyphens
      let parts = 0;
      // whether a part has an ASCII digit (among word code units, c <= 57 means a digit)
      let digit = false;
      for (;;) {
        const s = i;
        const sCp = i - surrogates;
        let h = FNV_OFFSET;
        for (;;) {
          while (i < n) {
            const c = text.charCodeAt(i);
            if (c < 128) {
              // ASCII fast path (most scientific text): one table lookup, no call
              if (charClass[c] !== 1) break;
              if (c <= 57) digit = true;
              h = Math.imul(h ^ c, FNV_PRIME);
              i++;
              continue;
            }
            if (!isWordUnit(text, i)) break;
            h = Math.imul(h ^ c, FNV_PRIME);
            if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
              h = Math.imul(h ^ text.charCodeAt(i + 1), FNV_PRIME);
              sawSurrogate = true;
              surrogates++;
              i += 2;
            } else i++;
          }
          // '.' or ',' between digits stays inside the token
          if (i + 1 < n) {
            const c = text.charCodeAt(i);
            if ((c === 46 || c === 44) && isDigit(text.charCodeAt(i - 1)) && isDigit(text.charCodeAt(i + 1))) {
              h = Math.imul(h ^ c, FNV_PRIME);
              i++;
              continue;
            }
          }
          break;
        }
        partStart[parts] = s;
        partEnd[parts] = i;
        partStartCp[parts] = sCp;
        partEndCp[parts] = i - surrogates;
        partHash[parts] = h;
        parts++;
        if (i + 1 < n && isHyphen(text.charCodeAt(i)) && isWordUnit(text, i + 1)) {
          i++;
          continue;
        }
        break;
      }
      // trailing 's (possessive) is dropped
      if (i + 1 < n) {
        const c = text.charCodeAt(i);
        if ((c === 39 || c === 0x2019) && (text.charCodeAt(i + 1) | 32) === 115 && (i + 2 >= n || !isWordUnit(text, i + 2))) i += 2;
      }
      // identifiers mixing letters and digits split like hyphenated compounds ("CTLA4" = "CTLA-4")
      if (digit) parts = splitAlphanumeric(text, parts, partStart, partEnd, partStartCp, partEndCp, partHash);
      const firstPos = pos;
      let firstTermPos = -1;
      for (let p = 0; p < parts; p++) {
        const term = resolve(text, partStart[p]!, partEnd[p]!, partHash[p]!);
        if (term !== stop && firstTermPos < 0) firstTermPos = pos;
        sink(term, pos, partStartCp[p]!, partEndCp[p]!, partStart[p]!, partEnd[p]!, false);
        pos++;
      }
      if (parts > 1 && parts <= 4) {
        let joined = '';
        for (let p = 0; p < parts; p++) joined += text.slice(partStart[p], partEnd[p]);
        if (joined.length <= 40) {
          const term = resolve(joined, 0, joined.length, Analyzer.surfaceHash(joined, 0, joined.length));
          if (term !== stop) {
            sink(term, firstTermPos >= 0 ? firstTermPos : firstPos, partStartCp[0]!, partEndCp[parts - 1]!, partStart[0]!, partEnd[parts - 1]!, true);
          }
        }
      }
    }
    this.#sawSurrogate = sawSurrogate;
    return pos;
  }
}

/** Digit class of a code unit inside a token: ASCII digits and the '.'/',' that only occur between digits. */
function isDigitLike(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 46 || c === 44;
}

/**
 * Splits the parts of one token (a compound's parts) at every letter/digit boundary, so an identifier gives
 * its runs as parts and, through the caller, its whole form as the joined form: "CTLA4" -> ctla, 4 (+ ctla4),
 * exactly as "CTLA-4"; "p53" -> p, 53 (+ p53); "IL-1β" -> il, 1, β (+ il1β). Skipped when the compound would
 * exceed 4 parts (no joined form then) or a part has astral characters. Returns the new part count.
 */
function splitAlphanumeric(
  text: string,
  parts: number,
  partStart: number[],
  partEnd: number[],
  partStartCp: number[],
  partEndCp: number[],
  partHash: number[],
): number {
  let total = 0;
  for (let p = 0; p < parts; p++) {
    const a = partStart[p]!;
    const b = partEnd[p]!;
    let runs = 1;
    if (b - a === partEndCp[p]! - partStartCp[p]!) {
      let d = isDigitLike(text.charCodeAt(a));
      for (let i = a + 1; i < b; i++) {
        const x = isDigitLike(text.charCodeAt(i));
        if (x !== d) {
          runs++;
          d = x;
        }
      }
    }
    total += runs;
  }
  if (total === parts || total > 4) return parts;
  const s: number[] = [];
  const e: number[] = [];
  const sCp: number[] = [];
  for (let p = 0; p < parts; p++) {
    const a = partStart[p]!;
    const b = partEnd[p]!;
    const shift = partStartCp[p]! - a;
    if (b - a !== partEndCp[p]! - partStartCp[p]!) {
      s.push(a), e.push(b), sCp.push(partStartCp[p]!);
      continue;
    }
    let start = a;
    let d = isDigitLike(text.charCodeAt(a));
    for (let i = a + 1; i < b; i++) {
      const x = isDigitLike(text.charCodeAt(i));
      if (x !== d) {
        s.push(start), e.push(i), sCp.push(start + shift);
        start = i;
        d = x;
      }
    }
    s.push(start), e.push(b), sCp.push(start + shift);
  }
  for (let p = 0; p < total; p++) {
    partStart[p] = s[p]!;
    partEnd[p] = e[p]!;
    partStartCp[p] = sCp[p]!;
    partEndCp[p] = sCp[p]! + (e[p]! - s[p]!);
    partHash[p] = Analyzer.surfaceHash(text, s[p]!, e[p]!);
  }
  return total;
}

const analyzers = new Map<string, Analyzer>();

/** The shared analyzer for a language (ISO 639-1; '' or unknown -> no stemming, no stopwords). */
export function analyzerFor(language: string): Analyzer {
  const lang = normalizeLanguage(language);
  let a = analyzers.get(lang);
  if (a === undefined) {
    a = new Analyzer(lang);
    analyzers.set(lang, a);
  }
  return a;
}

/** One analysed token, as returned by {@link tokenize}. */
export interface Token {
  term: string | null;
  position: number;
  startCp: number;
  endCp: number;
  startCu: number;
  endCu: number;
  joined: boolean;
}

/** Convenience: the full token list of `text` (allocates; indexing uses {@link Analyzer.analyze}). */
export function tokenize(text: string, language: string): Token[] {
  const out: Token[] = [];
  analyzerFor(language).analyze(text, (term, position, startCp, endCp, startCu, endCu, joined) => {
    out.push({ term, position, startCp, endCp, startCu, endCu, joined });
  });
  return out;
}
