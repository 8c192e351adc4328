// Query spelling correction from the index vocabulary. A query word whose terms are absent (df = 0)
// is compared with dictionary terms sharing its first character and within +-2 characters of length,
// by Damerau-Levenshtein distance (max 1 for words of 4-5 characters, 2 for longer; shorter words and
// words with digits are left alone). The best candidate has the smallest distance, then the highest
// df (>= MIN_DF); its readable surface form replaces the word in the raw query. No change -> null.
import type { ParsedQuery } from './query-parser.js';
import type { Segment } from './segment.js';

/** A candidate must occur in at least this many documents. */
export const MIN_DF = 1;

// Scratch rows of the distance computation, grown on demand (no allocation per candidate: a misspelled
// word is compared with thousands of dictionary terms).
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

function unitsAt(x: string | Uint8Array, start: number): (i: number) => number {
  return typeof x === 'string' ? (i) => x.charCodeAt(i) : (i) => x[start + i]!;
}

/** Bounded Damerau-Levenshtein (optimal string alignment) distance; returns max+1 when above `max`. */
export function editDistance(a: string, b: string, max: number): number {
  return boundedDistance(a, 0, a.length, b, 0, b.length, max);
}

function boundedDistance(a: string | Uint8Array, as: number, la: number, b: string | Uint8Array, bs: number, lb: number, max: number): number {
  if (Math.abs(la - lb) > max) return max + 1;
  if (rows[0]!.length <= lb) rows = [new Int32Array(lb + 1), new Int32Array(lb + 1), new Int32Array(lb + 1)];
  let [prev2, prev, cur] = rows as [Int32Array, Int32Array, Int32Array];
  const ca = unitsAt(a, as);
  const cb = unitsAt(b, bs);
  for (let j = 0; j <= lb; j++) prev[j] = j;
  for (let i = 1; i <= la; i++) {
    cur[0] = i;
    let rowMin = i;
    const ai = ca(i - 1);
    const aPrev = i > 1 ? ca(i - 2) : -1;
    for (let j = 1; j <= lb; j++) {
      const bj = cb(j - 1);
      const cost = ai === bj ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && ai === cb(j - 2) && aPrev === bj) v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return Math.min(prev[lb]!, max + 1);
}

// Letter counts of the word being corrected (ASCII terms): |count difference| / 2 bounds the edit
// distance from below (a substitution moves two counts, an insertion or deletion one, a transposition
// none), which rejects most dictionary terms before the quadratic distance.
const wordCounts = new Int16Array(128);

/**
 * True when the candidate (ASCII bytes blob[s, e)) is certainly more than `max` edits from the word whose
 * counts are in `wordCounts`; false when it may be within `max`.
 */
function countsLowerBoundExceeds(blob: Uint8Array, s: number, e: number, max: number, wordLen: number): boolean {
  let surplus = 0; // candidate units without a matching unit of the word
  for (let k = s; k < e; k++) if (--wordCounts[blob[k]!]! < 0) surplus++;
  for (let k = s; k < e; k++) wordCounts[blob[k]!]!++;
  const missing = wordLen - (e - s - surplus); // word units without a matching unit of the candidate
  return Math.ceil((surplus + missing) / 2) > max;
}

/** True when blob[s, e) is all ASCII. */
function isAsciiRange(blob: Uint8Array, s: number, e: number): boolean {
  for (let k = s; k < e; k++) if (blob[k]! > 127) return false;
  return true;
}

/** One suggestion for a word. */
export interface Suggestion {
  term: string;
  surface: string;
  df: number;
  distance: number;
}

const enc = new TextEncoder();

/** Best dictionary candidates for an index term (at most `limit`), best first. */
export function suggestTerm(segments: readonly Segment[], term: string, limit = 5): Suggestion[] {
  const len = [...term].length;
  if (len < 4 || /\d/.test(term)) return [];
  const max = len <= 5 ? 1 : 2;
  const first = term.slice(0, 1);
  const prefix = enc.encode(first);
  const found = new Map<string, Suggestion>();
  const ascii = /^[\x00-\x7f]*$/.test(term);
  if (ascii) for (let k = 0; k < term.length; k++) wordCounts[term.charCodeAt(k)]!++;
  try {
  for (const seg of segments) {
    const t = seg.terms;
    for (let i = t.lowerBound(prefix); i < t.size && t.startsWith(i, prefix); i++) {
      const s = t.off[i]!;
      const e = t.off[i + 1]!;
      const bl = e - s;
      if (bl < len - max || bl > len + max + 4) continue;
      let d: number;
      let cand: string | null = null;
      if (ascii && isAsciiRange(t.blob, s, e)) {
        // Both ASCII: bytes are characters, so bound and distance work on the dictionary bytes directly.
        if (bl > len + max || countsLowerBoundExceeds(t.blob, s, e, max, term.length)) continue;
        d = boundedDistance(term, 0, term.length, t.blob, s, bl, max);
      } else {
        cand = t.get(i);
        d = editDistance(term, cand, max);
      }
      if (d > max || d === 0) continue;
      cand ??= t.get(i);
      const df = seg.termDf[i]!;
      const known = found.get(cand);
      if (known) known.df += df;
      else found.set(cand, { term: cand, surface: seg.surface(i), df, distance: d });
    }
  }
  } finally {
    if (ascii) for (let k = 0; k < term.length; k++) wordCounts[term.charCodeAt(k)]!--;
  }
  return [...found.values()]
    .filter((s) => s.df >= MIN_DF)
    .sort((a, b) => a.distance - b.distance || b.df - a.df || (a.term < b.term ? -1 : 1))
    .slice(0, limit);
}

/**
 * The corrected query text, or null when every word is known (or nothing better exists).
 * `dfOf(term)` gives the index-wide document frequency of a term.
 */
export function correctQuery(segments: readonly Segment[], parsed: ParsedQuery, dfOf: (term: string) => number): string | null {
  return correctParsedQuery(parsed, dfOf, (t) => suggestTerm(segments, t, 1)[0]);
}

/** Words whose terms the correction looks up in the dictionary: full words no document holds. */
export function unknownWordTerms(parsed: ParsedQuery, dfOf: (term: string) => number): string[] {
  return parsed.words.filter((w) => w.weight >= 1 && !w.terms.some((t) => dfOf(t) > 0)).flatMap((w) => w.terms);
}

/**
 * Merges dictionary candidates found in parts of a corpus (the shards of a cluster, ADR 0247): a term's
 * document frequencies add up, then candidates are ordered as {@link suggestTerm} orders them. Equal to
 * one dictionary's answer while no part cut its own candidate list short.
 */
export function mergeSuggestions(lists: readonly (readonly Suggestion[])[], limit: number): Suggestion[] {
  const found = new Map<string, Suggestion>();
  for (const l of lists)
    for (const s of l) {
      const known = found.get(s.term);
      if (known) known.df += s.df;
      else found.set(s.term, { ...s });
    }
  return [...found.values()]
    .filter((s) => s.df >= MIN_DF)
    .sort((a, b) => a.distance - b.distance || b.df - a.df || (a.term < b.term ? -1 : 1))
    .slice(0, limit);
}

/** {@link correctQuery} with the dictionary lookup given: `suggest(term)` is the best candidate of a term. */
export function correctParsedQuery(parsed: ParsedQuery, dfOf: (term: string) => number, suggest: (term: string) => Suggestion | undefined): string | null {
  const edits: { start: number; end: number; text: string }[] = [];
  for (const w of parsed.words) {
    if (w.weight < 1) continue; // joined forms of compounds, words of 1-2 letters
    if (w.terms.some((t) => dfOf(t) > 0)) continue;
    let best: Suggestion | null = null;
    for (const t of w.terms) {
      const s = suggest(t);
      if (s && (best === null || s.distance < best.distance || (s.distance === best.distance && s.df > best.df))) best = s;
    }
    if (best === null) continue;
    const surface = w.surface;
    let text = best.surface;
    if (surface.length > 0 && surface[0] === surface[0]!.toUpperCase() && surface[0] !== surface[0]!.toLowerCase()) text = text.charAt(0).toUpperCase() + text.slice(1);
    edits.push({ start: w.start, end: w.end, text });
  }
  if (edits.length === 0) return null;
  edits.sort((a, b) => b.start - a.start);
  let out = parsed.raw;
  for (const e of edits) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out === parsed.raw ? null : out;
}
