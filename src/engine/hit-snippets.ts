// Snippets of a search hit from what the index knows: token offsets stored per document and field
// (token-offsets.ts) give the region's tokens, and the postings of the query's terms at the hit's doc give
// which tokens match; the window is then cut exactly as buildSnippet cuts it (snippetWindow). The stored
// text is only sliced, never analysed.
//
// The result equals buildSnippet's whenever the index can answer for the text it is given; otherwise
// buildSnippet runs: a hit that did not come from SearchIndex.search (or comes from another process), a
// field whose text has another length than the one indexed (the document changed since), or query
// languages other than the document's analysis language (buildSnippet also stems each token with the
// query's languages, which the postings do not know).
import { analyzerFor } from './analyzer.js';
import { CursorArena, PostingCursor } from './postings-cursor.js';
import type { ParsedQuery } from './query-parser.js';
import { utf8, type Segment } from './segment.js';
import { NF } from './segment-writer.js';
import { buildSnippet, codePointLength, codeUnitOffset, snippetMaxChars, snippetTokens, snippetWindow, SURROGATE, type SnippetOptions, type SnippetWindow } from './snippets.js';
import { normalizeLanguage } from './stemmers.js';
import { decodeTokens, type FieldTokens } from './token-offsets.js';
import { FIELDS, type EngineHit, type FieldName } from './types.js';

interface HitRef {
  seg: Segment;
  doc: number;
  /** The document's analysis language. */
  language: string;
  /** Highlight positions per field for the last query asked about (bit 0: a term's posting is there). */
  query: ParsedQuery | null;
  marks: Uint8Array[] | null;
}

// hits handed out by searches -> where their document lives (segments are immutable; the reference keeps
// the segment the hit was ranked on, even after a merge replaced it in the index)
const refs = new WeakMap<EngineHit, HitRef>();

/** Records where a hit's document lives (SearchIndex.search calls this for every hit it returns). */
export function registerHit(hit: EngineHit, seg: Segment, doc: number, language: string): void {
  refs.set(hit, { seg, doc, language, query: null, marks: null });
}

/** Whether {@link buildHitSnippet} can answer for `hit` from the index (else it analyses the text). */
export function hitHasTokenOffsets(hit: EngineHit): boolean {
  return refs.has(hit);
}

const arena = new CursorArena();
let posBuf = new Int32Array(256);
const tfBuf = new Int32Array(NF);
let scratchTokens: FieldTokens | null = null;

// a query's highlight terms as term ordinals per segment (the hits of one search share them)
const ordinals = new WeakMap<ParsedQuery, Map<Segment, Int32Array>>();

function termOrdinals(query: ParsedQuery, seg: Segment): Int32Array {
  let bySeg = ordinals.get(query);
  if (bySeg === undefined) ordinals.set(query, (bySeg = new Map()));
  let ords = bySeg.get(seg);
  if (ords === undefined) {
    ords = Int32Array.from([...query.highlightTerms].map((t) => seg.findTerm(utf8(t))));
    bySeg.set(seg, ords);
  }
  return ords;
}

/** Per field, 1 at every position where one of the query's highlight terms has a posting in the doc. */
function highlightMarks(ref: HitRef, query: ParsedQuery): Uint8Array[] {
  if (ref.query === query && ref.marks !== null) return ref.marks;
  const { seg, doc } = ref;
  const marks: Uint8Array[] = [];
  for (let f = 0; f < NF; f++) marks.push(new Uint8Array(seg.fieldLen[doc * NF + f]! === 0 ? 0 : slotsOf(seg, doc, f)));
  arena.reset();
  for (const t of termOrdinals(query, seg)) {
    if (t < 0) continue;
    const cur = new PostingCursor(seg, t, arena);
    if (cur.advance(doc) !== doc) continue;
    cur.readTfs(tfBuf);
    const n = tfBuf[0]! + tfBuf[1]! + tfBuf[2]!;
    if (posBuf.length < n) posBuf = new Int32Array(n * 2);
    cur.positionsOnce(posBuf, tfBuf);
    let k = 0;
    for (let f = 0; f < NF; f++) {
      const m = marks[f]!;
      for (let j = tfBuf[f]!; j > 0; j--) {
        const p = posBuf[k++]!;
        if (p < m.length) m[p] = 1;
      }
    }
  }
  ref.query = query;
  ref.marks = marks;
  return marks;
}

/** Upper bound of the position slots of field f (two tokens per stored byte at most). */
function slotsOf(seg: Segment, doc: number, f: number): number {
  return 2 * (seg.tokOff[doc * NF + f + 1]! - seg.tokOff[doc * NF + f]!);
}

/**
 * The snippet of `hit` in `text` (the stored text of `opts.field`) for `query`: the same window and
 * highlights as {@link buildSnippet}, placed from the index's token offsets and postings instead of
 * analysing the text (falls back to buildSnippet when the index cannot answer; see the file comment).
 */
export function buildHitSnippet(hit: EngineHit | null | undefined, text: string, query: ParsedQuery, opts: SnippetOptions): SnippetWindow {
  const ref = hit ? refs.get(hit) : undefined;
  if (ref === undefined) return buildSnippet(text, query, opts);
  const simple = !SURROGATE.test(text);
  const fieldLength = simple ? text.length : codePointLength(text);
  if (!answersFromIndex(ref, FIELDS.indexOf(opts.field), fieldLength, query, opts.language)) return buildSnippet(text, query, opts);
  return placeSnippet(ref, text, 0, simple, fieldLength, query, opts);
}

/**
 * A slice of a field's text (ADR 0335): `text` holds the scalar values [start, start + its length) of a
 * field `length` scalar values long.
 */
export interface FieldWindow {
  start: number;
  text: string;
  length: number;
}

/** The scalar-value range of the field's text that {@link buildHitSnippetInWindow} reads for this passage. */
export function passageRange(passage: { startChar: number; endChar: number }): [number, number] {
  const lo = Math.max(0, passage.startChar);
  return [lo, Math.max(lo, passage.endChar)];
}

/**
 * Whether {@link buildHitSnippetInWindow} answers for `hit` in a field of `fieldLength` scalar values
 * (else the snippet needs the whole text: buildHitSnippet falls back to analysing it). False for a hit
 * that no search of this process returned, a field whose indexed length differs (the record changed
 * since), and query or document languages other than the document's analysis language.
 */
export function hitSnippetFromWindow(hit: EngineHit, field: FieldName, fieldLength: number, query: ParsedQuery, language: string | null | undefined): boolean {
  const ref = refs.get(hit);
  return ref !== undefined && answersFromIndex(ref, FIELDS.indexOf(field), fieldLength, query, language);
}

/**
 * {@link buildHitSnippet} for a passage (`opts.passage`) from the slice of the field's text it covers
 * (`window` holds at least {@link passageRange}): the same snippet, byte for byte, when
 * {@link hitSnippetFromWindow} says so (callers check it first; throws otherwise).
 */
export function buildHitSnippetInWindow(hit: EngineHit, window: FieldWindow, query: ParsedQuery, opts: SnippetOptions): SnippetWindow {
  const ref = refs.get(hit);
  const passage = opts.passage;
  if (ref === undefined || !passage || !answersFromIndex(ref, FIELDS.indexOf(opts.field), window.length, query, opts.language)) {
    throw new Error('buildHitSnippetInWindow: the index cannot place this snippet (check hitSnippetFromWindow first)');
  }
  const [lo, hi] = passageRange(passage);
  const end = Math.min(hi, window.length);
  const simple = !SURROGATE.test(window.text);
  if (window.start > lo || window.start + (simple ? window.text.length : codePointLength(window.text)) < end) {
    throw new RangeError(`buildHitSnippetInWindow: the window [${window.start}, ...) does not hold the passage [${lo}, ${end})`);
  }
  return placeSnippet(ref, window.text, window.start, simple, window.length, query, opts);
}

function answersFromIndex(ref: HitRef, f: number, fieldLength: number, query: ParsedQuery, language: string | null | undefined): boolean {
  if (f < 0 || ref.seg.fieldCp[ref.doc * NF + f] !== fieldLength) return false;
  if (normalizeLanguage(language ?? 'en') !== ref.language) return false;
  for (const l of query.languages) if (normalizeLanguage(l) !== ref.language) return false;
  return true;
}

/** The snippet placed from the index; `text` holds the field from scalar value `base` on (simple: no surrogates in it). */
function placeSnippet(ref: HitRef, text: string, base: number, simple: boolean, fieldLength: number, query: ParsedQuery, opts: SnippetOptions): SnippetWindow {
  const f = FIELDS.indexOf(opts.field);
  const { seg, doc } = ref;
  const lo = opts.passage ? Math.max(0, opts.passage.startChar) : 0;
  const hi = opts.passage ? Math.min(fieldLength, opts.passage.endChar) : fieldLength;
  const marks = highlightMarks(ref, query)[f]!;
  const toks = (scratchTokens = decodeTokens(seg.tok, seg.tokOff[doc * NF + f]!, seg.tokOff[doc * NF + f + 1]!, hi, scratchTokens));
  const tokens = snippetTokens;
  tokens.n = 0;
  let analyzer: ReturnType<typeof analyzerFor> | null = null;
  for (let p = 0; p < toks.count; p++) {
    const s = toks.start[p]!;
    const e = toks.end[p]!;
    if (s < lo || e > hi) continue;
    let hit = p < marks.length && marks[p] === 1;
    if (hit && toks.anchor[p] === 1) {
      // a compound's joined form shares this position: the posting may be the joined form's, so the
      // token's own term decides (as in buildSnippet, which skips joined forms)
      analyzer ??= analyzerFor(ref.language);
      const surface = simple ? text.slice(s - base, e - base) : text.slice(codeUnitOffset(text, s - base, false), codeUnitOffset(text, e - base, false));
      const term = analyzer.term(surface);
      hit = term !== null && query.highlightTerms.has(term);
    }
    tokens.push(s, e, hit);
  }
  return snippetWindow(text, simple, fieldLength, lo, hi, tokens, snippetMaxChars(opts), opts, base);
}
