// Snippet windows over stored field text: the engine returns passages as code point ranges; the host
// keeps the text and calls buildSnippet to cut a window (<= maxChars code points, snapped to token
// boundaries) around the most query matches, with highlight ranges. All offsets are Unicode code
// points with exclusive ends: `source.startChar/endChar` relative to the field text, `highlights`
// relative to the snippet text (and `sourceHighlights` relative to the field).
import { analyzerFor } from './analyzer.js';
import type { ParsedQuery } from './query-parser.js';
import type { FieldName, PassageHit } from './types.js';

/** A highlighted range, code points, exclusive end. */
export interface HighlightRange {
  start: number;
  end: number;
}

/** A snippet ready to render as the wire `Snippet`. */
export interface SnippetWindow {
  field: FieldName;
  text: string;
  chunkId: number | null;
  score: number;
  source: { startChar: number; endChar: number; fieldLength: number };
  highlights: HighlightRange[];
  sourceHighlights: HighlightRange[];
}

/** Options of {@link buildSnippet}. */
export interface SnippetOptions {
  field: FieldName;
  /** Restrict the window to this passage (from a hit); default: the best window in the whole field. */
  passage?: PassageHit | null;
  /** Maximum window length, code points, 20..5000, default 300. */
  maxChars?: number;
  /** Analysis language of the document (ISO 639-1), default 'en'. */
  language?: string | null;
}

/** The window length limit of {@link SnippetOptions.maxChars}: 20..5000, default 300. */
export function snippetMaxChars(opts: SnippetOptions): number {
  return Math.max(20, Math.min(5000, Math.floor(opts.maxChars ?? 300)));
}

/** The UTF-16 offset of code point `cp` in `text`. */
export function codeUnitOffset(text: string, cp: number, simple = !SURROGATE.test(text)): number {
  if (simple) return Math.min(cp, text.length);
  let i = 0;
  for (let n = 0; n < cp && i < text.length; n++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return i;
}

/** Slices `text` by code point offsets. */
export function sliceCodePoints(text: string, start: number, end: number): string {
  // fast path: without surrogates, code points are code units
  if (!SURROGATE.test(text)) return text.slice(start, end);
  return Array.from(text).slice(start, end).join('');
}

/** Any UTF-16 surrogate (a native regex scan is much faster than a charCodeAt loop). */
export const SURROGATE = /[\uD800-\uDFFF]/;

/** Code point length of `text`. */
export function codePointLength(text: string): number {
  if (!SURROGATE.test(text)) return text.length;
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--;
  }
  return n;
}

/**
 * Cuts one snippet window from `text` (the stored field text) for the parsed query. Matching tokens
 * (any query term, in the document's language analysis) are highlighted.
 */
export function buildSnippet(text: string, query: ParsedQuery, opts: SnippetOptions): SnippetWindow {
  const maxChars = snippetMaxChars(opts);
  const simple = !SURROGATE.test(text);
  const fieldLength = simple ? text.length : codePointLength(text);
  const lo = opts.passage ? Math.max(0, opts.passage.startChar) : 0;
  const hi = opts.passage ? Math.min(fieldLength, opts.passage.endChar) : fieldLength;
  const tokens = snippetTokens;
  tokens.n = 0;
  const terms = query.highlightTerms;
  const langs = new Set([opts.language ?? 'en', ...query.languages]);
  const analyzers = [...langs].map(analyzerFor);
  const primary = analyzers[0]!;
  // Analyse only the passage (passages start and end on token boundaries), not the whole field:
  // offsets from the slice are shifted back to field code points.
  const region = opts.passage ? text.slice(codeUnitOffset(text, lo, simple), codeUnitOffset(text, hi, simple)) : text;
  const base = opts.passage ? lo : 0;
  primary.analyze(region, (term, _pos, s0, e0, _su, _eu, joined) => {
    const s = s0 + base;
    const e = e0 + base;
    if (joined || s < lo || e > hi) return;
    let hit = term !== null && terms.has(term);
    if (!hit && term !== null && analyzers.length > 1) {
      // a query analysed in another language may stem the same surface differently
      for (const a of analyzers) {
        const t = a.term(region.slice(_su, _eu));
        if (t !== null && terms.has(t)) {
          hit = true;
          break;
        }
      }
    }
    tokens.push(s, e, hit);
  });
  return snippetWindow(text, simple, fieldLength, lo, hi, tokens, maxChars, opts);
}

/**
 * The tokens of a snippet region, in order: start and end in code points (exclusive end) and whether each
 * matches a query term. One scratch list is reused (snippets are built synchronously, never nested).
 */
export class SnippetTokens {
  s = new Int32Array(256);
  e = new Int32Array(256);
  hit = new Uint8Array(256);
  n = 0;
  push(s: number, e: number, hit: boolean): void {
    if (this.n === this.s.length) {
      const grow = <T extends Int32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
        const b = make(a.length * 2);
        b.set(a as never);
        return b;
      };
      this.s = grow(this.s, (k) => new Int32Array(k));
      this.e = grow(this.e, (k) => new Int32Array(k));
      this.hit = grow(this.hit, (k) => new Uint8Array(k));
    }
    this.s[this.n] = s;
    this.e[this.n] = e;
    this.hit[this.n] = hit ? 1 : 0;
    this.n++;
  }
}

/** The scratch token list of buildSnippet and buildHitSnippet. */
export const snippetTokens = new SnippetTokens();

/**
 * The window of {@link buildSnippet} from the region's tokens (however they were found: by analysing the
 * text, or from the offsets stored in the index, see hit-snippets.ts). `text` is the field's text from
 * scalar value `base` on (0: all of it; a window holds at least [lo, hi): the result never leaves it).
 */
export function snippetWindow(text: string, simple: boolean, fieldLength: number, lo: number, hi: number, tokens: SnippetTokens, maxChars: number, opts: SnippetOptions, base = 0): SnippetWindow {
  const ts = tokens.s;
  const te = tokens.e;
  const th = tokens.hit;
  const n = tokens.n;
  // best window: the most hits within maxChars, starting at a token
  let bestStart = lo;
  let bestEnd = Math.min(hi, lo + maxChars);
  let bestHits = -1;
  let j = 0;
  let hits = 0;
  for (let i = 0; i < n; i++) {
    if (i > 0 && th[i - 1] === 1) hits--;
    if (j < i) {
      j = i;
      hits = 0;
    }
    while (j < n && te[j]! - ts[i]! <= maxChars) {
      if (th[j] === 1) hits++;
      j++;
    }
    if (hits > bestHits && (th[i] === 1 || bestHits < 0)) {
      bestHits = hits;
      // centre the hits a little: start a few tokens earlier when room allows
      let si = i;
      const endTok = j - 1;
      while (si > 0 && te[endTok]! - ts[si - 1]! <= maxChars && ts[si]! - ts[si - 1]! < maxChars / 4 && i - si < 3) si--;
      bestStart = si === 0 && lo === 0 ? 0 : ts[si]!;
      bestEnd = te[endTok]!;
    }
  }
  if (n === 0) {
    bestStart = lo;
    bestEnd = Math.min(hi, lo + maxChars);
  } else if (bestEnd - bestStart < maxChars) {
    // extend to the right up to maxChars (to the end of a token)
    let k = 0;
    while (k < n && te[k]! <= bestEnd) k++;
    while (k < n && te[k]! - bestStart <= maxChars) {
      bestEnd = te[k]!;
      k++;
    }
    if (bestEnd < hi && hi - bestStart <= maxChars) bestEnd = hi;
  }
  const sourceHighlights: HighlightRange[] = [];
  for (let k = 0; k < n; k++) if (th[k] === 1 && ts[k]! >= bestStart && te[k]! <= bestEnd) sourceHighlights.push({ start: ts[k]!, end: te[k]! });
  return {
    field: opts.field,
    text: simple ? text.slice(bestStart - base, bestEnd - base) : sliceCodePoints(text, bestStart - base, bestEnd - base),
    chunkId: opts.passage ? opts.passage.chunkId : null,
    score: opts.passage ? opts.passage.score : Math.max(0, bestHits),
    source: { startChar: bestStart, endChar: bestEnd, fieldLength },
    highlights: sourceHighlights.map((h) => ({ start: h.start - bestStart, end: h.end - bestStart })),
    sourceHighlights,
  };
}
