// The shape of an extractive answer (issue 26, ADR 0240): a one-sentence synthesis assembled only from
// the cited sentences' own clauses (each clause followed by the marker of the sentence it came from,
// joined by a semicolon: no word the evidence does not carry), then the supporting sentences grouped
// by what they say (sentences sharing the question terms they address read together, one paragraph a
// group). Pure.

/** Leading discourse words of a sentence that carry no finding ("In conclusion,", "Results:"). */
const LEAD_RE = /^(?:(?:in\s+)?(?:conclusions?|summary|results?|findings?|background|objectives?|methods?|interpretation|significance|purpose|aims?|context|importance|overall|together|taken together|collectively|thus|therefore|hence|however|moreover|furthermore|additionally|finally|here|in this study|in this paper|in this work)\s*[,:]\s+)+/i;
/**
 * Clause boundaries that separate statements (a semicolon, a comma before a contrastive or coordinating
 * word). Not a colon: what follows one elaborates what precedes it ("a challenge: estimating the
 * tension between ...") and is seldom a statement by itself.
 */
const CLAUSE_SPLIT_RE = /;\s+|,\s+(?=(?:but|whereas|while|although|though|and|which|however)\s)/g;
/** Most words of a synthesis clause (a longer sentence contributes its best clause). */
const MAX_CLAUSE_WORDS = 25;
/** Fewest words for a clause to state something by itself. */
const MIN_CLAUSE_WORDS = 5;

/** How many parentheses or brackets are open at `at` in `text`. */
function depthAt(text: string, at: number): number {
  let depth = 0;
  for (let i = 0; i < at; i++) {
    const ch = text[i];
    if (ch === '(' || ch === '[') depth++;
    else if ((ch === ')' || ch === ']') && depth > 0) depth--;
  }
  return depth;
}

/** `clause` is the whole of `sentence` but for its leading discourse words and final stop (a synthesis giving it says all the quote would). */
export function isWhole(clause: string, sentence: string): boolean {
  const body = sentence.replace(LEAD_RE, '').replace(/\s*[.!?]+["'”’)]?$/, '').trim() || sentence;
  return clause === body;
}

/**
 * The clause of `sentence` that best carries the question's terms (`weigh` gives the terms' mass of a
 * text): the sentence without its leading discourse words and final stop when it is short, otherwise
 * the clause of most mass per word among clauses of at least MIN_CLAUSE_WORDS words. Always a verbatim
 * substring of the sentence.
 */
export function clauseOf(sentence: string, weigh: (text: string) => number): string {
  const body = sentence.replace(LEAD_RE, '').replace(/\s*[.!?]+["'”’)]?$/, '').trim() || sentence;
  const words = (t: string) => t.split(/\s+/).filter(Boolean).length;
  if (words(body) <= MAX_CLAUSE_WORDS) return body;
  let best = body;
  let bestScore = -1;
  let at = 0;
  // [start, end) of each part in `body`, so that merged parts stay verbatim substrings.
  const spans: [number, number][] = [];
  for (const m of body.matchAll(CLAUSE_SPLIT_RE)) {
    // Only between statements: never inside parentheses or brackets ("(95% CI: 0.58-0.86; P < .001)").
    if (depthAt(body, m.index!) > 0) continue;
    // Not the last comma of a series ("gas, cushion gas, and brines"; "innovation, policy, and
    // collaboration, storage is poised ..."): the text since the previous boundary already has a comma.
    if (/^,\s+and\s/.test(m[0] + body.slice(m.index! + m[0].length, m.index! + m[0].length + 4)) && body.slice(at, m.index).includes(',')) continue;
    spans.push([at, m.index!]);
    at = m.index! + m[0].length;
  }
  spans.push([at, body.length]);
  // A part too short to state anything (a list's tail) belongs to the part before it, so the clause
  // before is not cut off in the middle of what it says.
  for (let i = spans.length - 1; i > 0; i--) {
    const stripped = body.slice(spans[i]![0], spans[i]![1]).replace(/^(?:but|whereas|while|although|though|and|which|however)\s+/i, '').trim();
    if (words(stripped) < MIN_CLAUSE_WORDS) spans.splice(i - 1, 2, [spans[i - 1]![0], spans[i]![1]]);
  }
  const parts = spans.map(([a, b]) => body.slice(a, b));
  for (const raw of parts) {
    const c = raw.replace(LEAD_RE, '').replace(/^(?:but|whereas|while|although|though|and|which|however)\s+/i, '').trim();
    const n = words(c);
    if (n < MIN_CLAUSE_WORDS) continue;
    const score = weigh(c) / Math.sqrt(n);
    if (score > bestScore) (best = c), (bestScore = score);
  }
  return best;
}

/** A clause continuing a sentence: its first letter lower-cased when it begins an ordinary word (not an acronym or a name with capitals inside). */
export function continuing(clause: string): string {
  return /^\p{Lu}\p{Ll}+\b/u.test(clause) && !/^\p{Lu}\p{Ll}*\p{Lu}/u.test(clause) ? clause[0]!.toLowerCase() + clause.slice(1) : clause;
}

/** A clause opening a sentence: its first letter upper-cased. */
export function opening(clause: string): string {
  return clause.length > 0 ? clause[0]!.toUpperCase() + clause.slice(1) : clause;
}

/**
 * Groups items by what they say: each item's `terms` are the question terms it addresses; an item joins
 * the first group whose terms it shares by at least half (Jaccard), else starts a group. Groups keep the
 * order of their first item; items keep their order within a group.
 */
export function groupByTerms<T>(items: readonly T[], terms: (t: T) => ReadonlySet<string>): T[][] {
  const groups: { keys: Set<string>; items: T[] }[] = [];
  for (const it of items) {
    const k = terms(it);
    const g = groups.find((x) => {
      let n = 0;
      for (const w of k) if (x.keys.has(w)) n++;
      return n / Math.max(1, x.keys.size + k.size - n) >= 0.5;
    });
    if (g) {
      g.items.push(it);
      for (const w of k) g.keys.add(w);
    } else groups.push({ keys: new Set(k), items: [it] });
  }
  return groups.map((g) => g.items);
}
