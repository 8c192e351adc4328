// Passages handed to an answerer, sentence splitting, and the word overlap that ranks sentences and
// anchors citations. A passage is one snippet of one selected document; its number (1-based, in the
// order the answerer sees them) is what a model cites.
import type { CitationData } from '../domain/conversation.js';

export interface Passage {
  /** 1-based number among the passages of this answer. */
  number: number;
  /** 1-based index of the document among the response's documents. */
  documentIndex: number;
  /** 0-based index of the snippet among that document's snippets. */
  snippetIndex: number;
  documentId: string;
  title: string;
  /** The field the snippet comes from (title, abstract, body). */
  field: string;
  /** The snippet text. */
  text: string;
  /** The whole text of the field the snippet comes from (excerpts are checked against it). */
  fieldText: string;
  pinned: boolean;
}

const STOP = new Set('a an the of in on at to for from by with about and or but is are was were be been being do does did what which who how why when where that this these those it its they them their there than then as into over under between not no can could should would may might will has have had any some all more less very also such so if we our us you i'.split(' '));

/** Content words, lower-cased, crude plural folding. */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !STOP.has(w)).map((w) => (w.length > 4 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

/** Sentences of a text, each a verbatim substring (trimmed). */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/[\s\S]+?(?:[.!?]+(?=\s+[\p{Lu}\p{N}("\[]|\s*$)|\n|$)/gu)) {
    const s = m[0].trim();
    if (s.length >= 3) out.push(s);
  }
  return out;
}

/** Share of `claim`'s content words found in `sentence` (0..1). */
export function overlap(claimWords: readonly string[], sentence: string): number {
  if (claimWords.length === 0) return 0;
  const have = new Set(contentWords(sentence));
  let n = 0;
  for (const w of new Set(claimWords)) if (have.has(w)) n++;
  return n / new Set(claimWords).size;
}

/** The excerpt of `p` that best supports `claim`: a sentence of the snippet that occurs verbatim in the field text. */
export function bestExcerpt(p: Passage, claimWords: readonly string[]): { excerpt: string; score: number } | null {
  let best: { excerpt: string; score: number } | null = null;
  for (const s of sentences(p.text)) {
    if (!p.fieldText.includes(s)) continue;
    const score = overlap(claimWords, s);
    if (!best || score > best.score) best = { excerpt: s, score };
  }
  return best;
}

/**
 * The section of a full text that `at` (a character offset) falls in: the nearest Markdown heading line
 * before it ("## 2. Methods" -> "2. Methods", emphasis marks dropped), or null when none precedes it.
 * Full texts of recognised files are stored as Markdown, so their headings are such lines.
 */
export function sectionOf(text: string, at: number): string | null {
  let found: string | null = null;
  for (const m of text.matchAll(/^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    if (m.index! > at) break;
    found = m[1]!.replace(/[*_`]+/g, '').trim() || found;
  }
  return found;
}

/** Where an excerpt of a body passage lies: its offset in the full text and the section it falls in. */
function placeOf(p: Passage, excerpt: string): { offset: number; section: string | null } | null {
  if (p.field !== 'body') return null;
  // The occurrence inside the snippet's window when the sentence recurs: the snippet's own place first.
  const windowAt = p.fieldText.indexOf(p.text);
  const inWindow = windowAt >= 0 ? p.fieldText.indexOf(excerpt, windowAt) : -1;
  const offset = inWindow >= 0 ? inWindow : p.fieldText.indexOf(excerpt);
  return offset < 0 ? null : { offset, section: sectionOf(p.fieldText, offset) };
}

/** Least share of the claim's words a passage sentence must hold to support it. */
export const MIN_SUPPORT = 0.25;
/** A cited passage keeps its marker unless another supports the claim better than by this factor. */
export const SUPPORT_MARGIN = 0.75;

/** Marker syntax in model output: [3], [3, 5], [3][5] (passage numbers). */
const MARKER_RE = /\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g;

export interface AnchorStats {
  markers: number;
  verified: number;
  reanchored: number;
  removed: number;
}

/**
 * Turns text with passage-number markers into the final answer with document-index markers `[d]` and
 * one CitationOccurrence per marker. Each marker is checked: the cited passage must hold a sentence that
 * supports the claim (the text since the previous sentence end) and occurs verbatim in the document;
 * otherwise the marker is re-anchored to the passage that best supports the claim, or removed.
 */
export function anchorCitations(text: string, passages: readonly Passage[]): { answer: string; citations: CitationData[]; stats: AnchorStats } {
  const stats: AnchorStats = { markers: 0, verified: 0, reanchored: 0, removed: 0 };
  const citations: CitationData[] = [];
  let answer = '';
  let last = 0;
  let claimStart = 0;
  for (const m of text.matchAll(MARKER_RE)) {
    const before = text.slice(last, m.index);
    answer += before;
    // The claim: the answer text from the end of the previous sentence (or marker run) to this marker.
    const sinceClaim = text.slice(claimStart, m.index);
    const claim = sinceClaim.replace(MARKER_RE, ' ');
    const claimWords = contentWords(claim);
    const used = new Set<string>();
    const kept = citations.length;
    for (const raw of m[1]!.split(',')) {
      stats.markers++;
      const n = Number(raw.trim());
      const cited = passages.find((p) => p.number === n);
      let pick: { p: Passage; excerpt: string } | null = null;
      const own = cited ? bestExcerpt(cited, claimWords) : null;
      let best: { p: Passage; excerpt: string; score: number } | null = null;
      for (const p of passages) {
        const e = bestExcerpt(p, claimWords);
        if (e && e.score >= MIN_SUPPORT && (!best || e.score > best.score)) best = { p, ...e };
      }
      // The cited passage stands when it supports the claim and no other passage supports it clearly
      // better (by SUPPORT_MARGIN); otherwise the best supporting passage takes the marker.
      if (cited && own && own.score >= MIN_SUPPORT && own.score >= (best?.score ?? 0) * SUPPORT_MARGIN) {
        pick = { p: cited, excerpt: own.excerpt };
        stats.verified++;
      } else if (best) {
        pick = best;
        stats.reanchored++;
      } else stats.removed++;
      if (!pick) continue;
      const key = `${pick.p.documentIndex}:${pick.p.snippetIndex}:${pick.excerpt}`;
      if (used.has(key)) continue;
      used.add(key);
      const place = placeOf(pick.p, pick.excerpt);
      citations.push({ citationIndex: citations.length, documentIndex: pick.p.documentIndex, excerpt: pick.excerpt, snippetIndex: pick.p.snippetIndex, ...(place ? { offset: place.offset, section: place.section } : {}) });
      answer += `[${pick.p.documentIndex}]`;
    }
    last = m.index + m[0].length;
    const tail = text.slice(last);
    // A marker removed whole leaves no space before the punctuation or space that followed it
    // ("bag [9]." -> "bag.", not "bag .").
    if (citations.length === kept && /^(?:[\s.,;:!?)\]]|$)/.test(tail)) answer = answer.replace(/[ \t]+$/, '');
    // A run of markers shares its claim; after the run the next claim starts.
    if (!/^\s*\[\d/.test(tail)) claimStart = last;
  }
  answer += text.slice(last);
  return { answer: answer.replace(/[ \t]+\n/g, '\n').trim(), citations, stats };
}
