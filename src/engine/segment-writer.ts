// Writes one immutable segment: per-document columns (lengths, filter values, passage chunks, keyword
// postings for ISSNs/URIs/references) and the term postings, in term byte order.
//
// Postings layout (per term): blocks of BLOCK_SIZE documents. Each block is one header word with the bit
// widths (6 bits each, from the low bits) of [doc gaps | title tf | abstract tf | body tf | position
// bytes], then those five bit-packed arrays; the last one holds, per posting, the byte length of its
// positions, so a reader jumps straight to any doc's positions (per-document position offsets, format 2;
// format 1 had checkpoints every 16 docs and skipped VByte values in between). Per block the writer
// records the last doc id, the word offset of the block, the byte offset of its positions, and per field
// the largest tf and the smallest field length among docs with that field's tf > 0: enough for an upper
// bound of the block's BM25F score under any field weights (block-max pruning).
// Positions: per document, per field with tf > 0, VByte gaps (first one absolute), fields in order.
// Token offsets (format 2, for snippets): per document and field, the code point start and length of
// every position's token (token-offsets.ts), so highlights and windows come from the index.
// Pair postings (optional sections, ADR 0175): pair-postings.ts derives them from postingView() after the
// last term and hands them over with setPairs(); finish() writes them when set.
import { ByteSink, NumSink, WordSink, maxBitWidth, pack, packedWords } from './bit-packing.js';
import type { PairSections } from './pair-postings.js';
import type { PostingStore } from './postings-cursor.js';
import { encodeSegmentFile, type SectionArray } from './segment-file.js';
import { StoredFieldsWriter } from './stored-fields.js';

/** Postings per block (also the skip granularity). */
export const BLOCK_SIZE = 128;
/** Bits per width in a block header word (gaps, three tfs, position byte lengths). */
export const WIDTH_BITS = 6;
/** Field count (title, abstract, body). */
export const NF = 3;

/** Per-document values stored in a segment. */
export interface DocColumns {
  id: string;
  /** Indexed token count per field (stopwords excluded). */
  fieldLen: ArrayLike<number>;
  /** Field text length per field, code points. */
  fieldCp: ArrayLike<number>;
  /** Unix seconds or NaN. */
  issued: number;
  type: string | null;
  language: string;
  /** Lower-cased publisher or null. */
  publisher: string | null;
  workKey: string | null;
  /** Flattened chunks: [field, startPos, endPos, startChar, endChar] * count. */
  chunks: ArrayLike<number>;
  /** Keyword keys: `i\0<issn>`, `u\0<uri>`, `r\0<reference uri>`. */
  keywords: readonly string[];
  /** Token offsets of the three fields, encoded (token-offsets.ts), concatenated. */
  tokens: Uint8Array;
  /** Byte end of each field's token offsets within `tokens`. */
  tokenFieldEnds: ArrayLike<number>;
  /** The host's stored record (stored-fields.ts), or null/absent for none. */
  stored?: Uint8Array | null;
}

const enc = new TextEncoder();

/** Encodes strings into one UTF-8 blob with an offset table (n + 1 entries). */
export function encodeStrings(strings: readonly string[]): { blob: Uint8Array; off: Uint32Array } {
  const sink = new ByteSink(1024);
  const off = new Uint32Array(strings.length + 1);
  for (let i = 0; i < strings.length; i++) {
    const s = strings[i]!;
    sink.ensure(s.length * 3);
    const r = enc.encodeInto(s, sink.buf.subarray(sink.length));
    sink.length += r.written;
    off[i + 1] = sink.length;
  }
  return { blob: sink.result(), off };
}

/** Compares two byte strings (UTF-8 byte order = code point order). */
export function compareBytes(a: Uint8Array, ao: number, al: number, b: Uint8Array, bo: number, bl: number): number {
  const n = al < bl ? al : bl;
  for (let i = 0; i < n; i++) {
    const d = a[ao + i]! - b[bo + i]!;
    if (d !== 0) return d;
  }
  return al - bl;
}

/** Sorts strings in code point order (the dictionary order of segments). */
export function sortCodePointOrder(strings: string[]): string[] {
  let astral = false;
  for (const s of strings) {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdfff) {
        astral = true;
        break;
      }
    }
    if (astral) break;
  }
  if (!astral) return strings.sort();
  return strings.sort((x, y) => {
    const a = [...x];
    const b = [...y];
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const d = a[i]!.codePointAt(0)! - b[i]!.codePointAt(0)!;
      if (d !== 0) return d;
    }
    return a.length - b.length;
  });
}

/** BM25F parameters the writer uses to precompute exact block-max pseudo frequencies. */
export interface BoundParams {
  w: readonly number[];
  b: readonly number[];
  /** Which terms get champion lists and how long (ADR 0329); default {@link DEFAULT_CHAMPION_RULE}. */
  champions?: ChampionRule;
}

/**
 * Champion lists (ADR 0329, segment format 5): for every term with at least `minDf` postings in the segment,
 * its `perTerm` postings of highest BM25F pseudo frequency under the segment's bound parameters (ties: lower
 * doc first), each as the doc and its three field tfs (u8, clamped at 255: a clamped tf only lowers the
 * score computed from it). Searches score them exactly under the query's own parameters to seed MaxScore's
 * threshold (searcher.ts): the selection only decides how good the seed is, never whether results are exact.
 */
export interface ChampionRule {
  minDf: number;
  perTerm: number;
}

/** Terms of 8 blocks or more keep their 32 best postings. */
export const DEFAULT_CHAMPION_RULE: ChampionRule = { minDf: 1024, perTerm: 32 };

/** Round a bound up so float32 storage never undercuts the exact value. */
function roundUp32(v: number): number {
  const f = Math.fround(v);
  return f >= v ? f : Math.fround(v * (1 + 1e-6) + 1e-30);
}

/**
 * Builds a segment; call addDoc for every document first, then the terms in code point order.
 * Besides the per-field max-tf/min-length bounds, each block stores the exact maximum BM25F pseudo
 * frequency of its docs under `bound` parameters and this segment's average field lengths (recorded in
 * the meta): searches rescale it for other weights or averages (see postings-cursor.ts).
 */
export class SegmentWriter {
  readonly #bound: BoundParams;
  #boundAvg: number[] | null = null;
  readonly #blkMaxTfp = new NumSink((n) => new Float32Array(n), 4096);
  readonly #termMaxTfp = new NumSink((n) => new Float32Array(n), 4096);
  #tMaxTfp = 0;
  // champion lists (ADR 0329): the current term's best postings as a min-heap on tfp (root = worst kept)
  readonly #champ: ChampionRule;
  readonly #hTfp: Float64Array;
  readonly #hDoc: Int32Array;
  readonly #hTf: Uint8Array;
  #hN = 0;
  readonly #impTerm = new WordSink(1024);
  readonly #impStart = new WordSink(1024);
  readonly #impDoc = new WordSink(4096);
  readonly #impTf = new NumSink((n) => new Uint8Array(n), 4096 * 3);

  /** `bound`: the index's scoring weights and b (SearchIndex passes its ScoringParams). */
  constructor(bound: BoundParams) {
    this.#bound = bound;
    const r = bound.champions ?? DEFAULT_CHAMPION_RULE;
    this.#champ = { minDf: Math.max(1, Math.floor(r.minDf)), perTerm: Math.max(0, Math.min(4096, Math.floor(r.perTerm))) };
    const m = this.#champ.perTerm;
    this.#hTfp = new Float64Array(m);
    this.#hDoc = new Int32Array(m);
    this.#hTf = new Uint8Array(3 * m);
  }

  /** Offers posting (doc, tfs) with pseudo frequency tfp to the current term's champion heap. */
  #champOffer(tfp: number, doc: number, tf0: number, tf1: number, tf2: number): void {
    const m = this.#champ.perTerm;
    if (m === 0) return;
    const ht = this.#hTfp;
    const hd = this.#hDoc;
    const hf = this.#hTf;
    let i: number;
    if (this.#hN < m) {
      // sift up
      i = this.#hN++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!champWorse(tfp, doc, ht[p]!, hd[p]!)) break;
        ht[i] = ht[p]!;
        hd[i] = hd[p]!;
        hf[3 * i] = hf[3 * p]!;
        hf[3 * i + 1] = hf[3 * p + 1]!;
        hf[3 * i + 2] = hf[3 * p + 2]!;
        i = p;
      }
    } else {
      // docs come in increasing order: a tie with the root loses (lower doc kept)
      if (!(tfp > ht[0]!)) return;
      i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let c = -1;
        if (l < m && champWorse(ht[l]!, hd[l]!, tfp, doc)) c = l;
        if (r < m && champWorse(ht[r]!, hd[r]!, c < 0 ? tfp : ht[l]!, c < 0 ? doc : hd[l]!)) c = r;
        if (c < 0) break;
        ht[i] = ht[c]!;
        hd[i] = hd[c]!;
        hf[3 * i] = hf[3 * c]!;
        hf[3 * i + 1] = hf[3 * c + 1]!;
        hf[3 * i + 2] = hf[3 * c + 2]!;
        i = c;
      }
    }
    ht[i] = tfp;
    hd[i] = doc;
    hf[3 * i] = tf0 > 255 ? 255 : tf0;
    hf[3 * i + 1] = tf1 > 255 ? 255 : tf1;
    hf[3 * i + 2] = tf2 > 255 ? 255 : tf2;
  }

  /** Writes the current term's champion list (ordinal `t`) when its df qualifies, in doc order. */
  #champFlush(t: number): void {
    const n = this.#hN;
    this.#hN = 0;
    if (n === 0 || this.#df < this.#champ.minDf) return;
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => this.#hDoc[a]! - this.#hDoc[b]!);
    this.#impTerm.push(t);
    this.#impStart.push(this.#impDoc.length);
    for (const i of order) {
      this.#impDoc.push(this.#hDoc[i]!);
      this.#impTf.push(this.#hTf[3 * i]!);
      this.#impTf.push(this.#hTf[3 * i + 1]!);
      this.#impTf.push(this.#hTf[3 * i + 2]!);
    }
  }

  #docs = 0;
  readonly #ids: string[] = [];
  readonly #fieldLen = new WordSink(4096);
  readonly #fieldCp = new WordSink(4096);
  readonly #issued = new NumSink((n) => new Float64Array(n), 2048);
  readonly #typeOrd = new WordSink(2048);
  readonly #langOrd = new WordSink(2048);
  readonly #pubOrd = new WordSink(2048);
  readonly #workOrd = new WordSink(2048);
  readonly #dicts = { type: new Map<string, number>(), lang: new Map<string, number>(), pub: new Map<string, number>(), work: new Map<string, number>() };
  readonly #chunkStart = new WordSink(2048);
  readonly #chunkField = new NumSink((n) => new Uint8Array(n), 8192);
  readonly #chunkPos = new WordSink(16384);
  readonly #chunkChar = new WordSink(16384);
  readonly #keywords = new Map<string, number[]>();
  readonly #fieldTotals = [0, 0, 0];
  readonly #tok = new ByteSink(1 << 16);
  readonly #tokOff = new WordSink(4096 * 3);
  readonly #stored = new StoredFieldsWriter();

  // term dictionary
  readonly #terms: string[] = [];
  readonly #surfaces: string[] = [];
  readonly #termDf = new WordSink(4096);
  readonly #termBlk = new WordSink(4096);
  readonly #termMaxTf = new NumSink((n) => new Uint16Array(n), 4096 * 3);
  readonly #termMinLen = new WordSink(4096 * 3);
  // blocks
  readonly #blkLast = new WordSink(4096);
  readonly #blkDoc = new WordSink(4096);
  readonly #blkPos = new WordSink(4096);
  readonly #bPosLen = new Uint32Array(BLOCK_SIZE);
  readonly #blkMaxTf = new NumSink((n) => new Uint16Array(n), 4096 * 3);
  readonly #blkMinLen = new WordSink(4096 * 3);
  readonly #post = new WordSink(1 << 16);
  readonly #pos = new ByteSink(1 << 16);
  #postings = 0;

  // current term / block
  #inTerm = false;
  #df = 0;
  #prevDoc = -1;
  #lastTerm = '';
  readonly #bDocs = new Uint32Array(BLOCK_SIZE);
  readonly #bGaps = new Uint32Array(BLOCK_SIZE);
  readonly #bTf = [new Uint32Array(BLOCK_SIZE), new Uint32Array(BLOCK_SIZE), new Uint32Array(BLOCK_SIZE)];
  #bN = 0;
  #bPosStart = 0;
  readonly #tMaxTf = [0, 0, 0];
  readonly #tMinLen = [0, 0, 0];
  readonly #bWidths = [0, 0, 0];

  get docCount(): number {
    return this.#docs;
  }

  /** Adds the next document (doc ids are assigned 0, 1, 2, ... in call order). Returns its id. */
  addDoc(d: DocColumns): number {
    const doc = this.#docs++;
    this.#ids.push(d.id);
    for (let f = 0; f < NF; f++) {
      this.#fieldLen.push(d.fieldLen[f]!);
      this.#fieldCp.push(d.fieldCp[f]!);
      this.#fieldTotals[f]! += d.fieldLen[f]!;
    }
    this.#issued.push(d.issued);
    this.#typeOrd.push(ord(this.#dicts.type, d.type));
    this.#langOrd.push(ord(this.#dicts.lang, d.language));
    this.#pubOrd.push(ord(this.#dicts.pub, d.publisher));
    this.#workOrd.push(ord(this.#dicts.work, d.workKey));
    this.#chunkStart.push(this.#chunkField.length);
    for (let c = 0; c + 4 < d.chunks.length; c += 5) {
      this.#chunkField.push(d.chunks[c]!);
      this.#chunkPos.push(d.chunks[c + 1]!);
      this.#chunkPos.push(d.chunks[c + 2]!);
      this.#chunkChar.push(d.chunks[c + 3]!);
      this.#chunkChar.push(d.chunks[c + 4]!);
    }
    for (const k of d.keywords) {
      let l = this.#keywords.get(k);
      if (l === undefined) this.#keywords.set(k, (l = []));
      if (l[l.length - 1] !== doc) l.push(doc);
    }
    const base = this.#tok.length;
    this.#tokOff.push(base);
    this.#tokOff.push(base + d.tokenFieldEnds[0]!);
    this.#tokOff.push(base + d.tokenFieldEnds[1]!);
    this.#tok.bytes(d.tokens.subarray(0, d.tokenFieldEnds[2]));
    this.#stored.add(d.stored ?? null);
    return doc;
  }

  /** Adds keyword `key` to an already added doc (docs per key must come in increasing order). */
  addKeyword(key: string, doc: number): void {
    let l = this.#keywords.get(key);
    if (l === undefined) this.#keywords.set(key, (l = []));
    if (l[l.length - 1] !== doc) l.push(doc);
  }

  /** Starts the postings of `term` (must sort after the previous term); `surface` is a readable form. */
  beginTerm(term: string, surface: string): void {
    if (this.#boundAvg === null) this.#boundAvg = this.#fieldTotals.map((t) => (this.#docs > 0 ? t / this.#docs : 0));
    this.#tMaxTfp = 0;
    this.#inTerm = true;
    this.#lastTerm = term;
    this.#terms.push(term);
    this.#surfaces.push(surface === term ? '' : surface);
    this.#df = 0;
    this.#prevDoc = -1;
    this.#bN = 0;
    this.#bPosStart = this.#pos.length;
    this.#termBlk.push(this.#blkLast.length);
    for (let f = 0; f < NF; f++) {
      this.#tMaxTf[f] = 0;
      this.#tMinLen[f] = 0xffffffff;
    }
  }

  /**
   * Adds one posting of the current term: `doc` (increasing), the tf per field and the positions, field
   * by field (`positions[pStart ..]`, tf0 title positions, then tf1 abstract, then tf2 body), each
   * field's positions non-decreasing.
   */
  addPosting(doc: number, tf0: number, tf1: number, tf2: number, positions: ArrayLike<number>, pStart: number): void {
    const i = this.#bN;
    this.#bDocs[i] = doc;
    this.#bGaps[i] = doc - this.#prevDoc - 1;
    this.#prevDoc = doc;
    this.#bTf[0]![i] = tf0;
    this.#bTf[1]![i] = tf1;
    this.#bTf[2]![i] = tf2;
    const pos = this.#pos;
    const start = pos.length;
    pos.ensure((tf0 + tf1 + tf2) * 5);
    const b = pos.buf;
    let l = pos.length;
    let p = pStart;
    for (let f = 0; f < NF; f++) {
      const tf = f === 0 ? tf0 : f === 1 ? tf1 : tf2;
      let prev = 0;
      for (let k = 0; k < tf; k++) {
        const v = positions[p++]!;
        let g = v - prev;
        prev = v;
        while (g >= 128) {
          b[l++] = (g & 127) | 128;
          g >>>= 7;
        }
        b[l++] = g;
      }
    }
    pos.length = l;
    this.#bPosLen[i] = l - start;
    this.#bN++;
    this.#df++;
    this.#postings++;
    if (this.#bN === BLOCK_SIZE) this.#flushBlock();
  }

  #flushBlock(): void {
    const n = this.#bN;
    if (n === 0) return;
    const fl = this.#fieldLen.buf;
    this.#blkLast.push(this.#bDocs[n - 1]!);
    this.#blkDoc.push(this.#post.length);
    this.#blkPos.push(this.#bPosStart);
    const wDoc = maxBitWidth(this.#bGaps, n);
    const w = this.#bWidths;
    for (let f = 0; f < NF; f++) {
      const tfs = this.#bTf[f]!;
      w[f] = maxBitWidth(tfs, n);
      let maxTf = 0;
      let minLen = 0xffffffff;
      for (let i = 0; i < n; i++) {
        const tf = tfs[i]!;
        if (tf > 0) {
          if (tf > maxTf) maxTf = tf;
          const len = fl[this.#bDocs[i]! * NF + f]!;
          if (len < minLen) minLen = len;
        }
      }
      const mt = maxTf > 65535 ? 65535 : maxTf;
      this.#blkMaxTf.push(mt);
      this.#blkMinLen.push(maxTf === 0 ? 0 : minLen);
      if (mt > this.#tMaxTf[f]!) this.#tMaxTf[f] = mt;
      if (maxTf > 0 && minLen < this.#tMinLen[f]!) this.#tMinLen[f] = minLen;
    }
    // exact block max of the pseudo frequency under the bound parameters
    const avg = this.#boundAvg!;
    const bw = this.#bound.w;
    const bb = this.#bound.b;
    let maxTfp = 0;
    for (let i = 0; i < n; i++) {
      const base = this.#bDocs[i]! * NF;
      let tfp = 0;
      for (let f = 0; f < NF; f++) {
        const tf = this.#bTf[f]![i]!;
        if (tf > 0 && avg[f]! > 0) tfp += (bw[f]! * tf) / (1 - bb[f]! + (bb[f]! * fl[base + f]!) / avg[f]!);
      }
      if (tfp > maxTfp) maxTfp = tfp;
      this.#champOffer(tfp, this.#bDocs[i]!, this.#bTf[0]![i]!, this.#bTf[1]![i]!, this.#bTf[2]![i]!);
    }
    const mt32 = roundUp32(maxTfp);
    this.#blkMaxTfp.push(mt32);
    if (mt32 > this.#tMaxTfp) this.#tMaxTfp = mt32;
    const wPos = maxBitWidth(this.#bPosLen, n);
    const post = this.#post;
    post.ensure(1 + packedWords(n, wDoc) + packedWords(n, w[0]!) + packedWords(n, w[1]!) + packedWords(n, w[2]!) + packedWords(n, wPos));
    post.buf[post.length++] = (wDoc | (w[0]! << 6) | (w[1]! << 12) | (w[2]! << 18) | (wPos << 24)) >>> 0;
    let o = pack(this.#bGaps, n, wDoc, post.buf, post.length);
    for (let f = 0; f < NF; f++) o = pack(this.#bTf[f]!, n, w[f]!, post.buf, o);
    o = pack(this.#bPosLen, n, wPos, post.buf, o);
    post.length = o;
    this.#bN = 0;
    this.#bPosStart = this.#pos.length;
  }

  /** Ends the current term (a term with no postings is dropped). */
  endTerm(): void {
    if (!this.#inTerm) return;
    this.#inTerm = false;
    this.#flushBlock();
    if (this.#df === 0) {
      this.#terms.pop();
      this.#surfaces.pop();
      this.#termBlk.length--;
      this.#hN = 0;
      return;
    }
    this.#champFlush(this.#termDf.length);
    this.#termDf.push(this.#df);
    this.#termMaxTfp.push(this.#tMaxTfp);
    for (let f = 0; f < NF; f++) {
      this.#termMaxTf.push(this.#tMaxTf[f]!);
      this.#termMinLen.push(this.#tMaxTf[f] === 0 ? 0 : this.#tMinLen[f]!);
    }
  }

  #pairs: PairSections | null = null;

  /**
   * The postings written so far as a store a PostingCursor reads (after the last term): pair-postings.ts
   * derives the pair postings from it. Views over the writer's buffers, valid until the next write.
   */
  postingView(): PostingStore {
    if (this.#inTerm) this.endTerm();
    const terms = this.#termDf.length;
    const termBlk = new Uint32Array(terms + 1);
    termBlk.set(this.#termBlk.buf.subarray(0, terms));
    termBlk[terms] = this.#blkLast.length;
    return {
      docCount: this.#docs,
      termDf: this.#termDf.buf.subarray(0, terms),
      termBlk,
      termMaxTf: this.#termMaxTf.buf.subarray(0, this.#termMaxTf.length),
      termMinLen: this.#termMinLen.buf.subarray(0, this.#termMinLen.length),
      termMaxTfp: this.#termMaxTfp.buf.subarray(0, this.#termMaxTfp.length),
      blkLast: this.#blkLast.buf.subarray(0, this.#blkLast.length),
      blkDoc: this.#blkDoc.buf.subarray(0, this.#blkDoc.length),
      blkPos: this.#blkPos.buf.subarray(0, this.#blkPos.length),
      blkMaxTf: this.#blkMaxTf.buf.subarray(0, this.#blkMaxTf.length),
      blkMinLen: this.#blkMinLen.buf.subarray(0, this.#blkMinLen.length),
      blkMaxTfp: this.#blkMaxTfp.buf.subarray(0, this.#blkMaxTfp.length),
      post: this.#post.buf.subarray(0, this.#post.length),
      pos: this.#pos.buf.subarray(0, this.#pos.length),
    };
  }

  /** The pair postings finish() writes (pair-postings.ts), or null for none. */
  setPairs(p: PairSections | null): void {
    this.#pairs = p;
  }

  /** Serialises the segment. */
  finish(): Uint8Array {
    if (this.#inTerm) this.endTerm();
    const n = this.#docs;
    this.#termBlk.push(this.#blkLast.length);
    this.#chunkStart.push(this.#chunkField.length);
    this.#tokOff.push(this.#tok.length);
    const ids = encodeStrings(this.#ids);
    const idOrder = new Uint32Array(n);
    for (let i = 0; i < n; i++) idOrder[i] = i;
    const idSorted = Array.from(idOrder).sort((a, b) => compareBytes(ids.blob, ids.off[a]!, ids.off[a + 1]! - ids.off[a]!, ids.blob, ids.off[b]!, ids.off[b + 1]! - ids.off[b]!));
    idOrder.set(idSorted);
    const terms = encodeStrings(this.#terms);
    const surf = encodeStrings(this.#surfaces);
    const kwKeys = sortCodePointOrder([...this.#keywords.keys()]);
    const kw = encodeStrings(kwKeys);
    const kwStart = new Uint32Array(kwKeys.length + 1);
    let total = 0;
    for (let i = 0; i < kwKeys.length; i++) {
      total += this.#keywords.get(kwKeys[i]!)!.length;
      kwStart[i + 1] = total;
    }
    const kwDocs = new Uint32Array(total);
    for (let i = 0; i < kwKeys.length; i++) kwDocs.set(this.#keywords.get(kwKeys[i]!)!, kwStart[i]!);
    const sections: Record<string, SectionArray> = {
      // stored fields (format 3, ADR 0280; 2 KiB blocks with a preset dictionary: format 4, ADR 0325)
      ...this.#stored.finish(),
      idBlob: ids.blob,
      idOff: ids.off,
      idOrder,
      fieldLen: this.#fieldLen.result(),
      fieldCp: this.#fieldCp.result(),
      issued: this.#issued.result(),
      typeOrd: this.#typeOrd.result(),
      langOrd: this.#langOrd.result(),
      pubOrd: this.#pubOrd.result(),
      workOrd: this.#workOrd.result(),
      chunkStart: this.#chunkStart.result(),
      chunkField: this.#chunkField.result(),
      chunkPos: this.#chunkPos.result(),
      chunkChar: this.#chunkChar.result(),
      tok: this.#tok.result(),
      tokOff: this.#tokOff.result(),
      kwBlob: kw.blob,
      kwOff: kw.off,
      kwStart,
      kwDocs,
      termBlob: terms.blob,
      termOff: terms.off,
      surfBlob: surf.blob,
      surfOff: surf.off,
      termDf: this.#termDf.result(),
      termBlk: this.#termBlk.result(),
      termMaxTf: this.#termMaxTf.result(),
      termMinLen: this.#termMinLen.result(),
      blkLast: this.#blkLast.result(),
      blkDoc: this.#blkDoc.result(),
      blkPos: this.#blkPos.result(),
      blkMaxTf: this.#blkMaxTf.result(),
      blkMinLen: this.#blkMinLen.result(),
      blkMaxTfp: this.#blkMaxTfp.result(),
      termMaxTfp: this.#termMaxTfp.result(),
      post: this.#post.result(),
      pos: this.#pos.result(),
      ...this.#pairs,
    };
    // champion lists (format 5, ADR 0329): impStart has one entry per listed term plus the end
    this.#impStart.push(this.#impDoc.length);
    sections['impTerm'] = this.#impTerm.result();
    sections['impStart'] = this.#impStart.result();
    sections['impDoc'] = this.#impDoc.result();
    sections['impTf'] = this.#impTf.result();
    for (const [name, m] of Object.entries(this.#dicts)) {
      const list: string[] = [];
      for (const [k, v] of m) list[v - 1] = k;
      const t = encodeStrings(list);
      sections[`${name}DictBlob`] = t.blob;
      sections[`${name}DictOff`] = t.off;
    }
    const meta = {
      docCount: n,
      fieldTotals: this.#fieldTotals,
      termCount: this.#terms.length,
      postings: this.#postings,
      bound: { w: [...this.#bound.w], b: [...this.#bound.b], avg: this.#boundAvg ?? [0, 0, 0] },
    };
    return encodeSegmentFile(meta, sections);
  }
}

/** Whether champion (tfp a, doc da) ranks below (tfp b, doc db): lower tfp, or equal tfp and higher doc. */
function champWorse(a: number, da: number, b: number, db: number): boolean {
  return a < b || (a === b && da > db);
}

function ord(m: Map<string, number>, v: string | null): number {
  if (v === null || v === '') return 0;
  let o = m.get(v);
  if (o === undefined) {
    o = m.size + 1;
    m.set(v, o);
  }
  return o;
}
