// Iterates one term's postings in one segment: block decoding, skipping with the block table (no decode
// for skipped blocks), shallow block lookup for block-max bounds, and lazy position decoding.
import { packedWords, unpack, unpackGaps } from './bit-packing.js';
import type { Segment } from './segment.js';
import { BLOCK_SIZE, NF } from './segment-writer.js';

/** Doc id meaning "exhausted" (greater than every real doc id). */
export const END = 0x7fffffff;

/** Field-length normalisation of one query (BM25F): per field weight w, b and 1/avg length. */
export interface FieldNorms {
  w: Float64Array;
  b: Float64Array;
  invAvg: Float64Array;
}

interface BlockBuffers {
  docs: Int32Array;
  tf0: Int32Array;
  tf1: Int32Array;
  tf2: Int32Array;
  /** Byte offset in `pos` of each posting's positions (filled when a block's positions are first read). */
  posOff: Int32Array;
}

function newBlockBuffers(): BlockBuffers {
  const buf = new Int32Array(5 * BLOCK_SIZE);
  return {
    docs: buf.subarray(0, BLOCK_SIZE),
    tf0: buf.subarray(BLOCK_SIZE, 2 * BLOCK_SIZE),
    tf1: buf.subarray(2 * BLOCK_SIZE, 3 * BLOCK_SIZE),
    tf2: buf.subarray(3 * BLOCK_SIZE, 4 * BLOCK_SIZE),
    posOff: buf.subarray(4 * BLOCK_SIZE),
  };
}

/**
 * Block buffers reused from one search to the next: a search creates a dozen cursors per segment, and
 * allocating four typed arrays for each was a measurable share of short queries. `reset()` at the start
 * of a search hands the same buffers out again, so no cursor may outlive the search that created it
 * (merges, which span many calls, allocate their own).
 */
export class CursorArena {
  readonly #pool: BlockBuffers[] = [];
  #next = 0;
  take(): BlockBuffers {
    if (this.#next < this.#pool.length) return this.#pool[this.#next++]!;
    const b = newBlockBuffers();
    if (this.#pool.length < 4096) {
      this.#pool.push(b);
      this.#next++;
    }
    return b;
  }
  reset(): void {
    this.#next = 0;
  }
}

/** The arena of search-time cursors (searches are synchronous and never nested). */
export const searchArena = new CursorArena();

/**
 * The posting arrays a cursor reads: a segment's word postings ({@link Segment}), or its pair postings
 * (pair-postings.ts: docs only, tf widths 0 and no positions or bound tables, so a pair cursor is only
 * moved, never asked for tfs, positions or bounds).
 */
export interface PostingStore {
  readonly docCount: number;
  readonly termDf: Uint32Array;
  readonly termBlk: Uint32Array;
  readonly termMaxTf: Uint16Array;
  readonly termMinLen: Uint32Array;
  readonly termMaxTfp: Float32Array;
  readonly blkLast: Uint32Array;
  readonly blkDoc: Uint32Array;
  readonly blkPos: Uint32Array;
  readonly blkMaxTf: Uint16Array;
  readonly blkMinLen: Uint32Array;
  readonly blkMaxTfp: Float32Array;
  readonly post: Uint32Array;
  readonly pos: Uint8Array;
}

/** Docs of a block whose tfs and positions a cursor reads from the packed arrays before decoding the block. */
const PROBES_PER_BLOCK = 32;

/** A forward-only cursor over the postings of term `t` in `seg`. */
export class PostingCursor {
  readonly seg: PostingStore;
  readonly term: number;
  readonly df: number;
  doc = -1;
  readonly docs: Int32Array;
  readonly tf0: Int32Array;
  readonly tf1: Int32Array;
  readonly tf2: Int32Array;
  readonly #posOff: Int32Array;
  /** Index of the current doc inside the decoded block. */
  i = 0;
  #n = 0;
  #blk: number;
  readonly #blkStart: number;
  readonly #blkEnd: number;
  #shallow: number;
  #tfOff = 0;
  #tfHeader = 0;
  #tfReady = false;
  // docs of the current block whose tfs were read without decoding the block (see tf()), the last one and
  // its three tfs (read together once per doc: a verification asks for each field's tf several times)
  #probes = 0;
  #probeI = -1;
  #pt0 = 0;
  #pt1 = 0;
  #pt2 = 0;
  // position byte offsets summed lazily (positions of an undecoded block): the lengths of the docs before
  // #plI are summed into #plP, the byte offset of doc #plI's positions; the cursor only moves forward, so
  // a block's lengths are read at most once however many of its docs are visited
  #plI = -1;
  #plP = 0;
  // block whose position offsets are in #posOff
  #posBlk = -1;
  /** Blocks skipped without decoding (trace counter). */
  skipped = 0;
  /** Multiplier of the stored exact bounds for the current query (Infinity: use the loose bounds). */
  boundScale = Infinity;

  /** `arena`: take the block buffers from a per-search pool (see {@link searchArena}) instead of allocating. */
  constructor(seg: PostingStore, term: number, arena?: CursorArena) {
    const bufs = arena !== undefined ? arena.take() : newBlockBuffers();
    this.docs = bufs.docs;
    this.tf0 = bufs.tf0;
    this.tf1 = bufs.tf1;
    this.tf2 = bufs.tf2;
    this.#posOff = bufs.posOff;
    this.seg = seg;
    this.term = term;
    this.df = seg.termDf[term]!;
    this.#blkStart = seg.termBlk[term]!;
    this.#blkEnd = seg.termBlk[term + 1]!;
    this.#blk = this.#blkStart - 1;
    this.#shallow = this.#blkStart;
  }

  #decode(b: number): void {
    const seg = this.seg;
    const post = seg.post;
    let o = seg.blkDoc[b]!;
    const h = post[o++]!;
    const n = b === this.#blkEnd - 1 ? this.df - (b - this.#blkStart) * BLOCK_SIZE : BLOCK_SIZE;
    this.#tfOff = unpackGaps(post, o, n, h & 63, this.docs, b === this.#blkStart ? -1 : seg.blkLast[b - 1]!);
    this.#tfHeader = h;
    this.#tfReady = false;
    this.#probes = 0;
    this.#probeI = -1;
    this.#plI = -1;
    this.#n = n;
    this.#blk = b;
  }

  /** Term frequencies are decoded only when a doc of the block is scored. */
  #loadTf(): void {
    const h = this.#tfHeader;
    const n = this.#n;
    const post = this.seg.post;
    let o = unpack(post, this.#tfOff, n, (h >>> 6) & 63, this.tf0);
    o = unpack(post, o, n, (h >>> 12) & 63, this.tf1);
    unpack(post, o, n, (h >>> 18) & 63, this.tf2);
    this.#tfReady = true;
  }

  /** Per-posting byte offsets of the current block's positions: the stored byte lengths, prefix-summed. */
  #loadPosOff(): void {
    const h = this.#tfHeader;
    const n = this.#n;
    const off = this.#tfOff + packedWords(n, (h >>> 6) & 63) + packedWords(n, (h >>> 12) & 63) + packedWords(n, (h >>> 18) & 63);
    const po = this.#posOff;
    unpack(this.seg.post, off, n, (h >>> 24) & 63, po);
    let p = this.seg.blkPos[this.#blk]!;
    for (let k = 0; k < n; k++) {
      const len = po[k]!;
      po[k] = p;
      p += len;
    }
    this.#posBlk = this.#blk;
  }

  /** Random access to one bit-packed tf (field f) of the current doc, without decoding the block. */
  #tfAt(f: number): number {
    const h = this.#tfHeader;
    const n = this.#n;
    const w0 = (h >>> 6) & 63;
    const w1 = (h >>> 12) & 63;
    const w = f === 0 ? w0 : f === 1 ? w1 : (h >>> 18) & 63;
    if (w === 0) return 0;
    let off = this.#tfOff;
    if (f > 0) off += (n * w0 + 31) >>> 5;
    if (f > 1) off += (n * w1 + 31) >>> 5;
    const bit = this.i * w;
    const word = off + (bit >>> 5);
    const sh = bit & 31;
    const post = this.seg.post;
    let v = post[word]! >>> sh;
    if (sh + w > 32) v |= post[word + 1]! << (32 - sh);
    return w === 32 ? v >>> 0 : v & ((1 << w) - 1);
  }

  /** Moves to the next posting (doc = END when exhausted). */
  nextDoc(): number {
    if (++this.i < this.#n) return (this.doc = this.docs[this.i]!);
    const b = this.#blk + 1;
    if (b >= this.#blkEnd) return (this.doc = END);
    this.#decode(b);
    this.i = 0;
    return (this.doc = this.docs[0]!);
  }

  /**
   * Windowed MaxScore (see maxscore.ts): from the current posting, adds the BM25F pseudo frequency of every
   * posting with doc < `end` to `tfp[doc - base]` and sets bit `doc - base` of `seen`, then leaves the
   * cursor on the first posting >= end (or END). Undecoded blocks lying wholly inside the window are skipped
   * when the clause score bound `mult * tfp' / (k1 + tfp') + rest` of the block cannot reach `theta` (pass
   * -Infinity to never skip). Postings whose pseudo frequency is below `minTfp` are passed over (a lone
   * essential clause: they cannot reach theta; 0 keeps all), and so are docs whose bit in `allowed` is clear
   * (filters and deletions as one bitset, SegmentFilter.bits: one bit test before any arithmetic; null = all
   * allowed). The sum per posting is the same expression as
   * {@link tfPrime}, so scores computed from `tfp` equal Clause.score() bit for bit. Returns the postings
   * visited.
   */
  accumulate(end: number, base: number, docNorm: Float64Array, tfp: Float64Array, seen: Int32Array, mult: number, k1: number, rest: number, theta: number, norms: FieldNorms, minTfp: number, allowed: Int32Array | null): number {
    if (this.doc >= end) return 0;
    let count = 0;
    const last = this.seg.blkLast;
    for (;;) {
      if (!this.#tfReady) this.#loadTf();
      const docs = this.docs;
      const t0 = this.tf0;
      const t1 = this.tf1;
      const t2 = this.tf2;
      const n = this.#n;
      let i = this.i;
      for (; i < n; i++) {
        const d = docs[i]!;
        if (d >= end) {
          this.i = i;
          this.doc = d;
          return count;
        }
        if (allowed !== null && (allowed[d >>> 5]! & (1 << (d & 31))) === 0) continue;
        const b3 = d * NF;
        const x = t0[i]! * docNorm[b3]! + t1[i]! * docNorm[b3 + 1]! + t2[i]! * docNorm[b3 + 2]!;
        if (x < minTfp) continue;
        const off = d - base;
        tfp[off] = tfp[off]! + x;
        seen[off >>> 5]! |= 1 << (off & 31);
      }
      count += n - this.i;
      let b = this.#blk + 1;
      if (theta !== -Infinity) {
        while (b < this.#blkEnd && last[b]! < end) {
          const x = this.tfUpperBound(b, norms);
          const ub = (mult * x) / (k1 + x) + rest;
          if (ub + Math.abs(ub) * 1e-9 + 1e-12 >= theta) break;
          b++;
          this.skipped++;
        }
      }
      if (b >= this.#blkEnd) {
        this.#blk = this.#blkEnd;
        this.#n = 0;
        this.i = 0;
        return (this.doc = END);
      }
      this.#decode(b);
      this.i = 0;
      this.doc = this.docs[0]!;
    }
  }

  /**
   * Upper bound of the pseudo frequency over the postings in [start, end) still ahead of the cursor (0 when
   * there are none), from the block table without decoding.
   */
  windowTfpBound(start: number, end: number, norms: FieldNorms): number {
    if (this.doc >= end) return 0;
    let b = this.shallowBlock(start > this.doc ? start : this.doc);
    if (b < 0) return 0;
    const last = this.seg.blkLast;
    let max = 0;
    for (; b < this.#blkEnd; b++) {
      const x = this.tfUpperBound(b, norms);
      if (x > max) max = x;
      if (last[b]! >= end - 1) break;
    }
    return max;
  }

  /** Moves to the first posting with doc >= target (never backwards). */
  advance(target: number): number {
    if (target <= this.doc) return this.doc;
    let b = this.#blk;
    const last = this.seg.blkLast;
    if (b < this.#blkStart || target > last[b]!) {
      b = b < this.#blkStart ? this.#blkStart : b + 1;
      if (b < this.#blkEnd && last[b]! < target) {
        // gallop, then binary search over the block table
        let step = 1;
        let lo = b;
        let hi = b + 1;
        while (hi < this.#blkEnd && last[hi]! < target) {
          lo = hi;
          step *= 2;
          hi = Math.min(this.#blkEnd, hi + step);
        }
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (last[mid]! < target) lo = mid + 1;
          else hi = mid;
        }
        this.skipped += lo - b;
        b = lo;
      }
      if (b >= this.#blkEnd) {
        this.#blk = this.#blkEnd;
        this.#n = 0;
        return (this.doc = END);
      }
      this.#decode(b);
      this.i = 0;
    }
    const docs = this.docs;
    let i = this.i;
    while (docs[i]! < target) i++;
    this.i = i;
    return (this.doc = docs[i]!);
  }

  /** Block index holding the first posting >= target (-1 if none); does not move the cursor. */
  shallowBlock(target: number): number {
    let b = this.#shallow;
    if (b < this.#blk) b = this.#blk < this.#blkStart ? this.#blkStart : this.#blk;
    const last = this.seg.blkLast;
    if (b < this.#blkEnd && last[b]! < target) {
      let lo = b + 1;
      let hi = this.#blkEnd;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (last[mid]! < target) lo = mid + 1;
        else hi = mid;
      }
      b = lo;
    }
    this.#shallow = b;
    return b < this.#blkEnd ? b : -1;
  }

  /** Whether the term has a posting >= target (block table only; does not move the cursor). */
  hasDocAtLeast(target: number): boolean {
    return this.shallowBlock(target) >= 0;
  }

  /** Sets bit d of `bits` for every remaining posting (doc ids only are decoded; for exact counting). */
  markAll(bits: Int32Array): void {
    if (this.doc === END) return;
    let b = this.#blk < this.#blkStart ? this.#blkStart : this.#blk;
    let i = this.#blk < this.#blkStart ? 0 : this.i;
    for (; b < this.#blkEnd; b++) {
      if (b !== this.#blk) {
        this.#decode(b);
        i = 0;
      }
      const docs = this.docs;
      const n = this.#n;
      for (; i < n; i++) {
        const d = docs[i]!;
        bits[d >>> 5]! |= 1 << (d & 31);
      }
    }
    this.#blk = this.#blkEnd;
    this.#n = 0;
    this.i = 0;
    this.doc = END;
  }

  /** Last doc id of block `b`. */
  blockLast(b: number): number {
    return this.seg.blkLast[b]!;
  }

  /** Upper bound of the BM25F pseudo term frequency over block `b` (or the whole term when b < 0). */
  tfUpperBound(b: number, norms: FieldNorms): number {
    const seg = this.seg;
    if (this.boundScale !== Infinity) return (b < 0 ? seg.termMaxTfp[this.term]! : seg.blkMaxTfp[b]!) * this.boundScale;
    const maxTf = b < 0 ? seg.termMaxTf : seg.blkMaxTf;
    const minLen = b < 0 ? seg.termMinLen : seg.blkMinLen;
    const k = (b < 0 ? this.term : b) * NF;
    let tfp = 0;
    for (let f = 0; f < NF; f++) {
      const tf = maxTf[k + f]!;
      if (tf === 0) continue;
      const bf = norms.b[f]!;
      tfp += (norms.w[f]! * tf) / (1 - bf + bf * minLen[k + f]! * norms.invAvg[f]!);
    }
    return tfp;
  }

  /**
   * BM25F pseudo term frequency of the current doc, from per-doc field factors
   * `docNorm[d * 3 + f] = w_f / (1 - b_f + b_f * len_f(d) / avgLen_f)` (see Segment.docNorms).
   */
  tfPrime(docNorm: Float64Array): number {
    const base = this.doc * NF;
    // a probe into a block (one or two docs) reads three packed values instead of decoding 3 x 128
    if (!this.#tfReady) {
      if (this.i !== this.#probeI) this.#probe();
      return this.#pt0 * docNorm[base]! + this.#pt1 * docNorm[base + 1]! + this.#pt2 * docNorm[base + 2]!;
    }
    const i = this.i;
    return this.tf0[i]! * docNorm[base]! + this.tf1[i]! * docNorm[base + 1]! + this.tf2[i]! * docNorm[base + 2]!;
  }

  /** The current doc's three tfs into `tfs` (read from the packed block when its tfs are not decoded). */
  readTfs(tfs: Int32Array): void {
    if (this.#tfReady) {
      tfs[0] = this.tf0[this.i]!;
      tfs[1] = this.tf1[this.i]!;
      tfs[2] = this.tf2[this.i]!;
      return;
    }
    if (this.i !== this.#probeI) this.#probe();
    tfs[0] = this.#pt0;
    tfs[1] = this.#pt1;
    tfs[2] = this.#pt2;
  }

  /**
   * {@link positions} for a one-off visit of the current doc (snippets: one doc per cursor), given its tfs
   * from {@link readTfs}: the position byte lengths of the docs before it in the block are read straight
   * from the packed array instead of decoding the block's tf and length arrays. Returns the count.
   */
  positionsOnce(out: Int32Array, tfs: Int32Array): number {
    if (this.#tfReady && this.#posBlk === this.#blk) return this.positions(out);
    const p = this.#posBlk === this.#blk ? this.#posOff[this.i]! : this.#posAt(this.i);
    return decodePositions(this.seg.pos, p, tfs[0]!, tfs[1]!, tfs[2]!, out);
  }

  /** Term frequency of the current doc in field f. */
  tf(f: number): number {
    if (!this.#tfReady) {
      // A join driven by a short list (a phrase's pair postings, ADR 0175) or by a rarer word meets a
      // common word's blocks at a few docs each: those read their packed tfs (all three at once, kept for
      // the doc's later reads); the doc after PROBES_PER_BLOCK such docs decodes the block.
      if (this.i !== this.#probeI) {
        if (this.#probes >= PROBES_PER_BLOCK) this.#loadTf();
        else this.#probe();
      }
      if (!this.#tfReady) return f === 0 ? this.#pt0 : f === 1 ? this.#pt1 : this.#pt2;
    }
    return f === 0 ? this.tf0[this.i]! : f === 1 ? this.tf1[this.i]! : this.tf2[this.i]!;
  }

  /** Reads the current doc's three tfs from the packed block (a probe: the block stays undecoded). */
  #probe(): void {
    this.#probeI = this.i;
    this.#probes++;
    this.#pt0 = this.#tfAt(0);
    this.#pt1 = this.#tfAt(1);
    this.#pt2 = this.#tfAt(2);
  }

  /**
   * Byte offset in `pos` of the positions of doc `i` of the current, undecoded block: the packed position
   * lengths of the docs before it summed from where the last call stopped (the cursor only moves forward).
   */
  #posAt(i: number): number {
    let k = this.#plI;
    let p = this.#plP;
    if (k < 0) {
      k = 0;
      p = this.seg.blkPos[this.#blk]!;
    }
    if (k < i) {
      const h = this.#tfHeader;
      const n = this.#n;
      const w = (h >>> 24) & 63;
      if (w > 0) {
        const off = this.#tfOff + packedWords(n, (h >>> 6) & 63) + packedWords(n, (h >>> 12) & 63) + packedWords(n, (h >>> 18) & 63);
        const post = this.seg.post;
        const mask = w === 32 ? -1 : (1 << w) - 1;
        for (let bit = k * w; k < i; k++, bit += w) {
          const word = off + (bit >>> 5);
          const sh = bit & 31;
          let v = post[word]! >>> sh;
          if (sh + w > 32) v |= post[word + 1]! << (32 - sh);
          p += (v & mask) >>> 0;
        }
      } else k = i;
    }
    this.#plI = k;
    this.#plP = p;
    return p;
  }

  /**
   * Decodes the current doc's positions into `out` (title positions, then abstract, then body; counts
   * are tf(0), tf(1), tf(2)). Returns the number written. `out` must hold tf0+tf1+tf2 entries.
   */
  positions(out: Int32Array): number {
    const i = this.i;
    let t0: number;
    let t1: number;
    let t2: number;
    let p: number;
    if (this.#tfReady) {
      if (this.#posBlk !== this.#blk) this.#loadPosOff();
      p = this.#posOff[i]!;
      t0 = this.tf0[i]!;
      t1 = this.tf1[i]!;
      t2 = this.tf2[i]!;
    } else {
      // a doc read without decoding the block (see tf()): its positions' offset from the packed lengths
      if (i !== this.#probeI) this.#probe();
      p = this.#posBlk === this.#blk ? this.#posOff[i]! : this.#posAt(i);
      t0 = this.#pt0;
      t1 = this.#pt1;
      t2 = this.#pt2;
    }
    return decodePositions(this.seg.pos, p, t0, t1, t2, out);
  }
}

/** Decodes one doc's positions (varint gaps per field, from byte `p`) for tfs t0, t1, t2 into `out`. */
function decodePositions(pos: Uint8Array, p: number, t0: number, t1: number, t2: number, out: Int32Array): number {
  let w = 0;
  for (let f = 0; f < NF; f++) {
    const tf = f === 0 ? t0 : f === 1 ? t1 : t2;
    let prev = 0;
    for (let k = 0; k < tf; k++) {
      let v = 0;
      let shift = 0;
      let byte: number;
      do {
        byte = pos[p++]!;
        v |= (byte & 127) << shift;
        shift += 7;
      } while (byte & 128);
      prev += v;
      out[w++] = prev;
    }
  }
  return w;
}

/** A fresh cursor of term `bytes` in `seg` positioned at `doc`, or null when the doc does not hold the term. */
export function cursorAtDoc(seg: Segment, bytes: Uint8Array, doc: number): PostingCursor | null {
  const t = seg.findTerm(bytes);
  if (t < 0) return null;
  const cur = new PostingCursor(seg, t);
  return cur.advance(doc) === doc ? cur : null;
}

// Scratch positions of docFieldPositions (synchronous, never nested).
let fieldPositionsBuf = new Int32Array(256);

/**
 * Positions per field (ascending) of one clause or phrase slot in one doc, its alternative terms merged:
 * `cursorAt` gives an alternative's cursor positioned at the doc, or null when the doc lacks it.
 */
export function docFieldPositions(alternatives: readonly Uint8Array[], cursorAt: (bytes: Uint8Array) => PostingCursor | null): number[][] {
  const fields: number[][] = [];
  for (let f = 0; f < NF; f++) fields.push([]);
  for (const b of alternatives) {
    const cur = cursorAt(b);
    if (cur === null) continue;
    const n = cur.tf(0) + cur.tf(1) + cur.tf(2);
    if (fieldPositionsBuf.length < n) fieldPositionsBuf = new Int32Array(n * 2);
    const buf = fieldPositionsBuf;
    cur.positions(buf);
    let k = 0;
    for (let f = 0; f < NF; f++) for (let j = 0; j < cur.tf(f); j++) fields[f]!.push(buf[k++]!);
  }
  for (const l of fields) l.sort((x, y) => x - y);
  return fields;
}
