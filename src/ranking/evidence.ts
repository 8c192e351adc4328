// Snippet evidence (interface SnippetEvidence): in the hits the cross-encoder reranked, each snippet's
// best window, the sentence (or short run of sentences) the cross-encoder scores highest for the query,
// as verbatim text with its start in Unicode scalar values relative to the snippet text.
import type { CrossEncoder } from '../ports/cross-encoder.js';
import type { SnippetEvidenceValue } from './info.js';

/** Windows scored per snippet at most. */
export const MAX_WINDOWS = 8;
/** A window shorter than this (code points) is joined with the next sentence. */
const MIN_WINDOW = 40;

/** Sentence windows of a text: [start, end) in code points, verbatim, without surrounding spaces. */
export function sentenceWindows(text: string): { start: number; text: string }[] {
  const cps = Array.from(text);
  const out: { start: number; text: string }[] = [];
  let start = 0;
  const push = (end: number) => {
    let a = start;
    let b = end;
    while (a < b && /\s/u.test(cps[a]!)) a++;
    while (b > a && /\s/u.test(cps[b - 1]!)) b--;
    if (b > a) out.push({ start: a, text: cps.slice(a, b).join('') });
    start = end;
  };
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    if ((c === '.' || c === '!' || c === '?' || c === '\n') && (i + 1 >= cps.length || /\s/u.test(cps[i + 1]!)) && i + 1 - start >= MIN_WINDOW) push(i + 1);
  }
  push(cps.length);
  return out;
}

/** The best window of each snippet text (null for an empty snippet). */
export async function pickEvidence(encoder: CrossEncoder, query: string, snippets: readonly string[]): Promise<(SnippetEvidenceValue | null)[]> {
  const windows = snippets.map((s) => sentenceWindows(s).slice(0, MAX_WINDOWS));
  const flat = windows.flat();
  if (flat.length === 0) return snippets.map(() => null);
  const scores = await encoder.score(query, flat.map((w) => w.text));
  let at = 0;
  return windows.map((ws) => {
    let best: SnippetEvidenceValue | null = null;
    for (const w of ws) {
      const score = scores[at++]!;
      if (best === null || score > best.score) best = { text: w.text, startChar: w.start, score };
    }
    return best;
  });
}
