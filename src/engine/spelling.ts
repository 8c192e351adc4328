// Query spelling correction from the index vocabulary. A query word whose terms are absent (df = 0)
// is compared with dictionary terms sharing its first character and within +-2 characters of length,
// by Damerau-Levenshtein distance (max 1 for words of 4-5 characters, 2 for longer; shorter words and
// words with digits are left alone). The best candidate has the smallest distance, then the highest
// df (>= MIN_DF); its readable surface form replaces the word in the raw query. No change -> null.
import type { ParsedQuery } from './query-parser.js';
import type { Segment } from './segment.js';

/** A candidate must occur in at least this many documents. */
export const MIN_DF = 1;

/** Bounded Damerau-Levenshtein (optimal string alignment) distance; returns max+1 when above `max`. */
export function editDistance(a: string, b: string, max: number): number {
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > max) return max + 1;
  let prev2 = new Int32Array(lb + 1);
  let prev = new Int32Array(lb + 1);
  let cur = new Int32Array(lb + 1);
  for (let j = 0; j <= lb; j++) prev[j] = j;
  for (let i = 1; i <= la; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= lb; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[lb]!;
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
  for (const seg of segments) {
    const t = seg.terms;
    for (let i = t.lowerBound(prefix); i < t.size && t.startsWith(i, prefix); i++) {
      const bl = t.off[i + 1]! - t.off[i]!;
      if (bl < len - max || bl > len + max + 4) continue;
      const cand = t.get(i);
      if (cand === term) continue;
      const d = editDistance(term, cand, max);
      if (d > max) continue;
      const df = seg.termDf[i]!;
      const s = found.get(cand);
      if (s) s.df += df;
      else found.set(cand, { term: cand, surface: seg.surface(i), df, distance: d });
    }
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
  const edits: { start: number; end: number; text: string }[] = [];
  for (const w of parsed.words) {
    if (w.weight < 1) continue; // joined forms of compounds, words of 1-2 letters
    if (w.terms.some((t) => dfOf(t) > 0)) continue;
    let best: Suggestion | null = null;
    for (const t of w.terms) {
      const s = suggestTerm(segments, t, 1)[0];
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
