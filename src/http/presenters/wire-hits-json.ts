// The `hits` array of a V2SearchResponse as JSON text, specialized for the fixed V2Hit shape (ADR 0195).
//
// The route's response serializer (fast-json-stringify over the shared schemas) builds the text
// piece by piece, runs an Ajv validator for every nullable property of every snippet and hit (`anyOf`
// [X, null] picks its branch by validation) and leaves a rope that must be flattened before it can be
// encoded. Here the wire objects are built already checked and the whole array is written by one
// native `JSON.stringify` pass. The result is the same text for every page the route's serializer
// accepts, and a page it refuses (a NaN score, a fractional chunk id...) is refused here too:
// - numbers (`asNumber`): NaN is an error; ±Infinity is written `null` (JSON.stringify does the same);
// - integers: every integer of V2Hit lies in a nullable object or a tuple, which the route's serializer
//   checks (an Ajv validator; Number.isInteger) before writing: a fraction is an error;
// - strings: a non-string is written as fast-json-stringify writes it (null: "", otherwise its string);
//   escaping is JSON.stringify's in both (fast-json-stringify falls back to it for anything to escape);
// - the nullable objects (chunk_id, evidence, source, candidate_scores, rrf) are checked against their
//   schema as the Ajv validator would, else the page is an error;
// - properties that the schema does not name are never built; `document` is `Unknown` in the schema,
//   which fast-json-stringify writes with JSON.stringify, as here.
// test/unit/wire-hits-json.test.ts compares both on varied pages (unicode, escapes, nulls, optional
// fields, refused values).
import type { SnippetWindow } from '../../engine/index.js';
import { HIT_ENCODER_HEAD_ROOM, HIT_ENCODER_TAIL_ROOM, type SearchHit } from '../../search/search-types.js';
import type { SnippetEvidenceValue } from '../../ranking/info.js';
import { finite } from '../../ranking/features.js';
import { toWireDocument } from './document.js';

const MAX_INT64 = Number.MAX_SAFE_INTEGER;
const MAX_INT32 = 2147483647;

function refused(what: string): TypeError {
  return new TypeError(`The value of '${what}' does not match schema definition.`);
}

/** fast-json-stringify's `asNumber`: NaN is refused; ±Infinity stays (JSON.stringify writes null). */
function num(v: unknown): number {
  const n = typeof v === 'number' ? v : Number(v);
  if (n !== n) throw new Error(`The value "${String(v)}" cannot be converted to a number.`);
  return n;
}

/** fast-json-stringify's string coercion. */
function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null) return '';
  if (v instanceof Date) return v.toISOString();
  if (v instanceof RegExp) return v.source;
  return String(v);
}

/** What Ajv accepts as `number` (strict numbers: finite). */
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
/** What Ajv accepts as `integer` within [min, max]. */
const isInt = (v: unknown, min: number, max: number): v is number => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;

/** A `StringMap(Number)` as fast-json-stringify writes it: keys matching `^.*$`, values not undefined. */
function numberMap(m: Record<string, number>, what: string): Record<string, number> {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) throw refused(what);
  const out: Record<string, number> = {};
  for (const key of Object.keys(m)) {
    const v = m[key];
    if (!isNumber(v)) throw refused(what);
    if (/^.*$/.test(key)) out[key] = v;
  }
  return out;
}

function wireSnippet(s: SnippetWindow, evidence: SnippetEvidenceValue | null) {
  const chunkId = s.chunkId;
  if (chunkId !== null && chunkId !== undefined && !isInt(chunkId, -MAX_INT64, MAX_INT64)) throw refused('Snippet#/properties/chunk_id');
  let ev: { text: string; start_char: number; score: number } | null = null;
  if (evidence) {
    const score = finite(evidence.score);
    if (typeof evidence.text !== 'string' || !isInt(evidence.startChar, 0, Infinity) || !isNumber(score)) throw refused('Snippet#/properties/evidence');
    ev = { text: evidence.text, start_char: evidence.startChar, score };
  }
  const src = s.source;
  if (!isInt(src.startChar, 0, Infinity) || !isInt(src.endChar, 0, Infinity) || !isInt(src.fieldLength, 0, Infinity)) throw refused('Snippet#/properties/source');
  const hl = s.highlights;
  const highlights: [number, number][] = new Array(hl.length);
  for (let i = 0; i < hl.length; i++) {
    const { start, end } = hl[i]!;
    if (!Number.isInteger(start) || !Number.isInteger(end)) throw new Error('Item at 0 does not match schema definition.');
    highlights[i] = [start, end];
  }
  return {
    field: str(s.field),
    text: str(s.text),
    chunk_id: chunkId,
    score: s.score === undefined ? undefined : num(s.score),
    evidence: ev,
    source: { start_char: src.startChar, end_char: src.endChar, field_length: src.fieldLength },
    highlights,
  };
}

function wireCandidateScores(c: NonNullable<SearchHit['candidateScores']>) {
  const what = 'V2Hit#/properties/candidate_scores';
  if (!Array.isArray(c.passages) || !isInt(c.scoredPassages, 0, MAX_INT32)) throw refused(what);
  return {
    document: numberMap(c.document, what),
    passages: c.passages.map((p) => {
      if (!isInt(p.ordinal, 0, MAX_INT32) || (p.l1Score !== null && p.l1Score !== undefined && !isNumber(p.l1Score))) throw refused(what);
      return p.l1Score === undefined ? { ordinal: p.ordinal, scores: numberMap(p.scores, what) } : { ordinal: p.ordinal, scores: numberMap(p.scores, what), l1_score: p.l1Score };
    }),
    scored_passages: c.scoredPassages,
  };
}

function wireRrf(r: NonNullable<SearchHit['rrf']>) {
  const what = 'V2Hit#/properties/rrf';
  if (!isNumber(r.score) || !Array.isArray(r.contributions)) throw refused(what);
  return {
    score: r.score,
    contributions: r.contributions.map((c) => {
      if (typeof c !== 'object' || c === null || Array.isArray(c)) throw refused(what);
      return { ...c };
    }),
  };
}

/** A number as fast-json-stringify's `asNumber` writes it (and JSON.stringify, but that NaN is refused). */
function numText(v: unknown): string {
  const n = num(v);
  return n === Infinity || n === -Infinity ? 'null' : '' + n;
}

/**
 * The hits as the JSON text of `V2SearchResponse.hits` (the route serializer's text, see the header),
 * in pieces: `text[0]`, document 0, `text[1]`, document 1, ... `text[n]` (a hit without a document has
 * `null` in its text and no piece of its own). Documents come from `document`.
 */
function wireHitsPieces<D>(hits: readonly SearchHit[], document: (doc: NonNullable<SearchHit['doc']>) => D): { texts: string[]; documents: D[] } {
  const texts: string[] = [];
  const documents: D[] = [];
  let json = '[';
  for (let i = 0; i < hits.length; i++) {
    const h = hits[i]!;
    const snippets = new Array(h.snippets.length);
    for (let k = 0; k < h.snippets.length; k++) snippets[k] = wireSnippet(h.snippets[k]!, h.evidence?.[k] ?? null);
    json += (i === 0 ? '{"id":' : ',{"id":') + JSON.stringify(str(h.id)) + ',"score":' + numText(h.score) + ',"snippets":' + JSON.stringify(snippets) + ',"document":';
    if (h.doc) {
      texts.push(json);
      documents.push(document(h.doc));
      json = '';
    } else json += 'null';
    json +=
      ',"candidate_scores":' +
      (h.candidateScores ? JSON.stringify(wireCandidateScores(h.candidateScores)) : 'null') +
      ',"rrf":' +
      (h.rrf ? JSON.stringify(wireRrf(h.rrf)) : 'null') +
      '}';
  }
  texts.push(json + ']');
  return { texts, documents };
}

/** The hits as the JSON text of `V2SearchResponse.hits`, each document written afresh. */
export function wireHitsJson(hits: readonly SearchHit[], baseUrl: string): string {
  const { texts, documents } = wireHitsPieces(hits, (d) => JSON.stringify(toWireDocument(d, baseUrl)));
  let json = texts[0]!;
  for (let i = 0; i < documents.length; i++) json += documents[i]! + texts[i + 1]!;
  return json;
}

/**
 * Room left free before and after the hits in the buffer {@link wireHitsUtf8} makes (ADR 0375): the route
 * writes the envelope's text around them there (spliceEncodedHits) and sends the one buffer, instead of
 * a new one the size of the response with the hits copied into it. The envelope before the hits is
 * `{"ranking_mode":"documents","hits":`; after them ~300-600 bytes (totals, timings, the trajectory's
 * feedback token, the corrected query); a longer one is spliced by copying, as before.
 */
const HITS_HEAD_ROOM = HIT_ENCODER_HEAD_ROOM;
const HITS_TAIL_ROOM = HIT_ENCODER_TAIL_ROOM;

/**
 * The same as UTF-8 bytes in a buffer of its own (transferable: the view's `buffer` holds nothing
 * else), each document's bytes from `documentUtf8` (the search threads' encoder memoizes them per
 * record object: ADR 0195). The view starts {@link HITS_HEAD_ROOM} bytes into its buffer and leaves
 * {@link HITS_TAIL_ROOM} after it.
 */
export function wireHitsUtf8(hits: readonly SearchHit[], documentUtf8: (doc: NonNullable<SearchHit['doc']>) => Uint8Array): Buffer {
  const { texts, documents } = wireHitsPieces(hits, documentUtf8);
  let total = 0;
  for (const t of texts) total += Buffer.byteLength(t, 'utf8');
  for (const d of documents) total += d.byteLength;
  const room = Buffer.allocUnsafeSlow(HITS_HEAD_ROOM + total + HITS_TAIL_ROOM);
  const out = room.subarray(HITS_HEAD_ROOM, HITS_HEAD_ROOM + total);
  let at = out.write(texts[0]!, 0, 'utf8');
  for (let i = 0; i < documents.length; i++) {
    out.set(documents[i]!, at);
    at += documents[i]!.byteLength;
    at += out.write(texts[i + 1]!, at, 'utf8');
  }
  return out;
}
