// Pair postings (ADR 0175): for the adjacent pairs of a segment's *common* terms, the docs where the two
// terms occur at positions p and p + 1 of one field, so a quoted phrase of common words is driven by one
// short list instead of the intersection of two long ones (a "next word" / common-grams index: Williams &
// Zobel's nextword index, Lucene's CommonGrams filter).
//
// Each segment picks its common-term set from its own document frequencies ({@link PairRule}) and stores it
// (as term ordinals); the pairs are derived from the segment's own positional postings by
// {@link derivePairs}, the one function a flush and a merge both run on the SegmentWriter after its last
// term, so a merged segment's set and pairs come from the merged statistics and positions, whatever the
// sources held. Every term at position p is paired with every term at p + 1 in the same field (joined
// forms of compounds included), so "a then b" occurs in a doc exactly when the pair's list holds the doc:
// a stopword keeps its slot without being indexed, so words across it are 2 apart and never paired.
//
// Storage (optional sections of a format-2 segment; a segment without them is searched as before):
// `pairSet` (the set's term ordinals, ascending), `pairKey` (per pair, setIndex(a) << 16 | setIndex(b),
// ascending), `pairDf`, `pairBlkLast` (last doc of every block) and `pairPost`: blocks of BLOCK_SIZE docs
// in the word postings' layout with only doc gaps (tf and position widths 0), so a PostingCursor moves over
// them. Each pair's first block and each block's word offset are not stored but recomputed when the segment
// is opened (a prefix sum over the dfs and a walk over the block headers, ~1 ms per 100k pairs): most pairs
// are short, and those two tables were 14% of the pair bytes. Pair postings store no tfs, positions or score
// bounds: a phrase's matches are still verified and scored from its words' postings, so results are those
// of the word path.
import { maxBitWidth, pack, packedWords, WordSink } from './bit-packing.js';
import { IndexFormatError } from './index-format-error.js';
import { END, PostingCursor, type PostingStore } from './postings-cursor.js';
import { BLOCK_SIZE, NF, type SegmentWriter } from './segment-writer.js';

/** Which terms of a segment are common (get pair postings). */
export interface PairRule {
  /** Segments with fewer docs get no pairs. */
  minDocs: number;
  /** A term is common when its segment df >= this fraction of the segment's docs (and >= 2) ... */
  dfFraction: number;
  /** ... keeping at most this many (highest df first; ties by term order), <= 4096. */
  maxTerms: number;
}

/**
 * The rule chosen by measurement on the 100k synthetic corpus: ADR 0175 (top 400 terms, df >= 10%), widened
 * by ADR 0382 to the top 1,000 terms with df >= 5% (+15 MiB at 100k; the index budget re-stated there).
 */
export const DEFAULT_PAIR_RULE: PairRule = { minDocs: 2000, dfFraction: 0.05, maxTerms: 1000 };

/** Largest set a segment may choose (pair ids are setIndex(a) * size + setIndex(b) while deriving). */
export const MAX_PAIR_TERMS = 4096;

/** The pair sections SegmentWriter.finish() writes. */
export interface PairSections {
  pairSet: Uint32Array;
  pairKey: Uint32Array;
  pairDf: Uint32Array;
  pairBlkLast: Uint32Array;
  pairPost: Uint32Array;
}

/** Docs per derivation window (bounds the scratch memory and the work between yields). */
const WINDOW = 1024;

/** The common-term set of a segment under `rule`: term ordinals, ascending. */
export function commonTerms(termDf: ArrayLike<number>, termCount: number, docCount: number, rule: PairRule): number[] {
  if (docCount < rule.minDocs || docCount === 0) return [];
  const minDf = Math.max(2, Math.ceil(rule.dfFraction * docCount));
  const max = Math.min(rule.maxTerms, MAX_PAIR_TERMS);
  let set: number[] = [];
  for (let t = 0; t < termCount; t++) if (termDf[t]! >= minDf) set.push(t);
  if (set.length > max) {
    set.sort((a, b) => termDf[b]! - termDf[a]! || a - b);
    set = set.slice(0, max);
    set.sort((a, b) => a - b);
  }
  return set;
}

/**
 * Derives the pair postings of the segment being written by `w` (after its last term, before finish) and
 * hands them to it; yields the positions read since the last yield, one window of docs at a time (a merge
 * passes the yields on, so its bounded steps stay bounded).
 */
export function* derivePairs(w: SegmentWriter, rule: PairRule): Generator<number, void, void> {
  const store = w.postingView();
  const n = store.docCount;
  const set = commonTerms(store.termDf, store.termDf.length, n, rule);
  const k = set.length;
  if (k === 0) {
    w.setPairs(null);
    return;
  }
  const cursors = set.map((t) => new PostingCursor(store, t));
  // one window's occurrences of set terms, term by term: doc, position, field << 16 | set index
  let occDoc = new Int32Array(1 << 16);
  let occPos = new Int32Array(1 << 16);
  let occFc = new Int32Array(1 << 16);
  // the same grouped by doc (counting sort, stable)
  let byPos = new Int32Array(1 << 16);
  let byFc = new Int32Array(1 << 16);
  const docStart = new Int32Array(WINDOW + 1);
  // per doc: a slot per position of each field (fields one empty slot apart), each slot heading a chain of
  // the occurrences there (a joined form shares its first part's position)
  let head = new Int32Array(1024);
  let next = new Int32Array(1024);
  const fieldMax = new Int32Array(NF);
  const fieldOff = new Int32Array(NF);
  let posBuf = new Int32Array(256);
  let docPairs = new Int32Array(256);
  const pairId = new WordSink(1 << 16);
  const pairDoc = new WordSink(1 << 16);
  for (let d0 = 0; d0 < n; d0 += WINDOW) {
    const d1 = Math.min(n, d0 + WINDOW);
    let m = 0;
    for (let c = 0; c < k; c++) {
      const cur = cursors[c]!;
      for (let d = cur.doc < d0 ? cur.nextDoc() : cur.doc; d < d1; d = cur.nextDoc()) {
        const tf0 = cur.tf(0);
        const tf1 = cur.tf(1);
        const total = tf0 + tf1 + cur.tf(2);
        if (posBuf.length < total) posBuf = new Int32Array(total * 2);
        cur.positions(posBuf);
        if (occDoc.length < m + total) {
          const cap = Math.max(occDoc.length * 2, m + total);
          occDoc = grow(occDoc, cap, m);
          occPos = grow(occPos, cap, m);
          occFc = grow(occFc, cap, m);
        }
        for (let j = 0; j < total; j++) {
          occDoc[m] = d - d0;
          occPos[m] = posBuf[j]!;
          occFc[m++] = ((j < tf0 ? 0 : j < tf0 + tf1 ? 1 : 2) << 16) | c;
        }
      }
    }
    docStart.fill(0);
    for (let i = 0; i < m; i++) docStart[occDoc[i]! + 1]!++;
    for (let i = 0; i < WINDOW; i++) docStart[i + 1]! += docStart[i]!;
    if (byPos.length < m) {
      byPos = new Int32Array(occPos.length);
      byFc = new Int32Array(occFc.length);
    }
    const fill = docStart.slice(0, WINDOW);
    for (let i = 0; i < m; i++) {
      const o = fill[occDoc[i]!]!++;
      byPos[o] = occPos[i]!;
      byFc[o] = occFc[i]!;
    }
    for (let dl = 0; dl < d1 - d0; dl++) {
      const s = docStart[dl]!;
      const e = docStart[dl + 1]!;
      if (e - s < 2) continue;
      fieldMax.fill(-1);
      for (let i = s; i < e; i++) {
        const f = byFc[i]! >>> 16;
        if (byPos[i]! > fieldMax[f]!) fieldMax[f] = byPos[i]!;
      }
      let span = 0;
      for (let f = 0; f < NF; f++) {
        fieldOff[f] = span;
        span += fieldMax[f]! + 2;
      }
      if (head.length < span) head = new Int32Array(span * 2);
      if (next.length < e - s) next = new Int32Array((e - s) * 2);
      head.fill(-1, 0, span);
      for (let i = s; i < e; i++) {
        const slot = fieldOff[byFc[i]! >>> 16]! + byPos[i]!;
        next[i - s] = head[slot]!;
        head[slot] = i - s;
      }
      // pairs: every occurrence at slot q with every occurrence at slot q + 1
      let np = 0;
      for (let q = 0; q + 1 < span; q++) {
        const ha = head[q]!;
        if (ha < 0) continue;
        const hb = head[q + 1]!;
        if (hb < 0) continue;
        for (let a = ha; a >= 0; a = next[a]!) {
          const x = (byFc[s + a]! & 0xffff) * k;
          for (let b = hb; b >= 0; b = next[b]!) {
            if (np === docPairs.length) docPairs = grow(docPairs, np * 2, np);
            docPairs[np++] = x + (byFc[s + b]! & 0xffff);
          }
        }
      }
      if (np === 0) continue;
      const ids = docPairs.subarray(0, np).sort();
      const doc = d0 + dl;
      for (let i = 0; i < np; i++) {
        if (i > 0 && ids[i] === ids[i - 1]) continue;
        pairId.push(ids[i]!);
        pairDoc.push(doc);
      }
    }
    yield m;
  }
  w.setPairs(yield* encodePairs(set, k, pairId, pairDoc));
}

function grow(a: Int32Array, cap: number, used: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(cap);
  b.set(a.subarray(0, used));
  return b;
}

/** Entries per slice of {@link encodePairs} between yields. */
const ENCODE_SLICE = 1 << 19;

/**
 * Groups (pair id, doc) entries (docs ascending per pair) by pair and encodes the pair sections; yields
 * about every {@link ENCODE_SLICE} entries (a merged 100k segment has ~8M of them).
 */
function* encodePairs(set: readonly number[], k: number, pairId: WordSink, pairDoc: WordSink): Generator<number, PairSections, void> {
  const total = pairId.length;
  const ids = pairId.buf;
  const start = new Uint32Array(k * k + 1);
  for (let i = 0; i < total; i++) {
    start[ids[i]! + 1]!++;
    if ((i & (ENCODE_SLICE - 1)) === ENCODE_SLICE - 1) yield ENCODE_SLICE;
  }
  let pairs = 0;
  for (let p = 0; p < k * k; p++) {
    if (start[p + 1]! > 0) pairs++;
    start[p + 1]! += start[p]!;
  }
  const docs = new Uint32Array(total);
  const fill = start.slice(0, k * k);
  for (let i = 0; i < total; i++) {
    docs[fill[ids[i]!]!++] = pairDoc.buf[i]!;
    if ((i & (ENCODE_SLICE - 1)) === ENCODE_SLICE - 1) yield ENCODE_SLICE;
  }
  const key = new Uint32Array(pairs);
  const df = new Uint32Array(pairs);
  const blkLast = new WordSink(4096);
  const post = new WordSink(1 << 16);
  const gaps = new Uint32Array(BLOCK_SIZE);
  let i = 0;
  let done = 0;
  for (let p = 0; p < k * k; p++) {
    const s = start[p]!;
    const e = start[p + 1]!;
    if (e === s) continue;
    if (s - done >= ENCODE_SLICE) {
      yield s - done;
      done = s;
    }
    key[i] = ((Math.floor(p / k) << 16) | p % k) >>> 0;
    df[i] = e - s;
    let prev = -1;
    for (let b = s; b < e; b += BLOCK_SIZE) {
      const bn = Math.min(BLOCK_SIZE, e - b);
      for (let j = 0; j < bn; j++) {
        const d = docs[b + j]!;
        gaps[j] = d - prev - 1;
        prev = d;
      }
      const wDoc = maxBitWidth(gaps, bn);
      blkLast.push(prev);
      post.ensure(1 + packedWords(bn, wDoc));
      post.buf[post.length++] = wDoc; // tf and position widths 0: a pair posting is a doc id only
      post.length = pack(gaps, bn, wDoc, post.buf, post.length);
    }
    i++;
  }
  return { pairSet: Uint32Array.from(set), pairKey: key, pairDf: df, pairBlkLast: blkLast.result(), pairPost: post.result() };
}

const noU16 = new Uint16Array(0);
const noU32 = new Uint32Array(0);
const noF32 = new Float32Array(0);
const noU8 = new Uint8Array(0);

/** The read side: a segment's common-term set and pair postings, a store PostingCursor moves over. */
export class PairPostings implements PostingStore {
  readonly docCount: number;
  /** Term ordinals of the common set, ascending. */
  readonly set: Uint32Array;
  readonly key: Uint32Array;
  readonly termDf: Uint32Array;
  readonly termBlk: Uint32Array;
  readonly blkLast: Uint32Array;
  readonly blkDoc: Uint32Array;
  readonly post: Uint32Array;
  // a pair cursor is never asked for tfs' bounds or positions
  readonly termMaxTf = noU16;
  readonly termMinLen = noU32;
  readonly termMaxTfp = noF32;
  readonly blkPos = noU32;
  readonly blkMaxTf = noU16;
  readonly blkMinLen = noU32;
  readonly blkMaxTfp = noF32;
  readonly pos = noU8;

  constructor(docCount: number, s: PairSections) {
    this.docCount = docCount;
    this.set = s.pairSet;
    this.key = s.pairKey;
    this.termDf = s.pairDf;
    this.blkLast = s.pairBlkLast;
    this.post = s.pairPost;
    // each pair's first block (prefix sum of its block counts) and each block's word offset (a walk over
    // the block headers: one header word, then the doc gaps at the header's width)
    const pairs = s.pairDf.length;
    this.termBlk = new Uint32Array(pairs + 1);
    this.blkDoc = new Uint32Array(s.pairBlkLast.length);
    let b = 0;
    let o = 0;
    for (let p = 0; p < pairs; p++) {
      this.termBlk[p] = b;
      for (let left = s.pairDf[p]!; left > 0; left -= BLOCK_SIZE) {
        this.blkDoc[b++] = o;
        o += 1 + packedWords(Math.min(left, BLOCK_SIZE), s.pairPost[o]! & 63);
      }
    }
    this.termBlk[pairs] = b;
    if (b !== s.pairBlkLast.length || o !== s.pairPost.length) throw new IndexFormatError('pair postings do not match their block table');
  }

  /** Index of term ordinal `t` in the common set, or -1. */
  setIndex(t: number): number {
    return search(this.set, t);
  }

  /** Pair ordinal of (set index a, set index b), or -1 when no doc of the segment holds b right after a. */
  find(a: number, b: number): number {
    return search(this.key, ((a << 16) | b) >>> 0);
  }

  /** Bytes of the pair sections in the segment file. */
  byteLength(): number {
    return this.set.byteLength + this.key.byteLength + this.termDf.byteLength + this.blkLast.byteLength + this.post.byteLength;
  }
}

function search(a: Uint32Array, v: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const x = a[mid]!;
    if (x < v) lo = mid + 1;
    else if (x > v) hi = mid - 1;
    else return mid;
  }
  return -1;
}

/** Docs of a pair posting list, for tests and tools. */
export function pairDocs(p: PairPostings, pair: number): number[] {
  const out: number[] = [];
  const cur = new PostingCursor(p, pair);
  for (let d = cur.nextDoc(); d !== END; d = cur.nextDoc()) out.push(d);
  return out;
}
