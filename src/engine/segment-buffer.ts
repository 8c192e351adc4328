// The in-memory buffer of documents added since the last flush. Documents are analysed on add into a
// flat occurrence log (term id, field, position) in typed arrays; a flush counting-sorts the log by term
// (stable, so doc and position order survive) and streams the postings into a SegmentWriter. This keeps
// indexing allocation-free per token, which is where build speed comes from.
//
// Passage chunks are cut here: the title is one chunk; abstract and body are cut at the first sentence
// end after CHUNK_MIN positions, or forcibly at CHUNK_MAX positions.
import { analyzerFor, type Analyzer } from './analyzer.js';
import { normalizeLanguage } from './stemmers.js';
import { ByteSink, NumSink } from './bit-packing.js';
import { encodeTokens } from './token-offsets.js';
import { DEFAULT_PAIR_RULE, derivePairs, type PairRule } from './pair-postings.js';
import { SegmentWriter, sortCodePointOrder, NF, type BoundParams, type DocColumns } from './segment-writer.js';
import type { IndexDocument } from './types.js';

const EMPTY_BYTES = new Uint8Array(0);

/** Minimum chunk size in positions before a sentence end closes it. */
export const CHUNK_MIN = 48;
/** Maximum chunk size in positions. */
export const CHUNK_MAX = 160;

interface BufferedDoc {
  cols: DocColumns;
  /** This doc's token offsets in the buffer's token sink: start, then the end of each field. */
  tok: [number, number, number, number];
  occStart: number;
  occEnd: number;
  deleted: boolean;
}

/** Buffered, not yet flushed documents. */
export class SegmentBuffer {
  readonly #defaultLanguage: string;
  readonly #docs: BufferedDoc[] = [];
  readonly #byId = new Map<string, number>();
  readonly #termIds = new Map<string, number>();
  readonly #termStr: string[] = [];
  readonly #termSurface: string[] = [];
  /** Per analyzer language: surface -> term id (-1 = stopword); bounded by the segment's vocabulary. */
  readonly #surfaceIds = new Map<string, SurfaceTable>();
  #occTerm = new Int32Array(1 << 20);
  #occFP = new Int32Array(1 << 20);
  #occ = 0;
  // scratch per field
  #cpStart = new Int32Array(4096);
  #cpEnd = new Int32Array(4096);
  /** Per position: 1 when a compound's joined form was indexed there (token-offsets.ts). */
  #anchor = new Uint8Array(4096);
  #sentEnds: number[] = [];
  readonly #tok = new ByteSink(1 << 16);

  /** `recycle`: the previous buffer (after its build()), whose occurrence arrays are reused rather than regrown. */
  constructor(defaultLanguage: string, recycle?: SegmentBuffer) {
    this.#defaultLanguage = normalizeLanguage(defaultLanguage);
    if (recycle !== undefined) {
      this.#occTerm = recycle.#occTerm;
      this.#occFP = recycle.#occFP;
      recycle.#occTerm = new Int32Array(0);
      recycle.#occFP = new Int32Array(0);
      recycle.#occ = 0;
    }
  }

  /** Live (not replaced) buffered documents. */
  get size(): number {
    return this.#byId.size;
  }
  /** Token occurrences held (the flush trigger). */
  get occurrences(): number {
    return this.#occ;
  }
  /** Approximate memory held, bytes. */
  get approxBytes(): number {
    return this.#occTerm.byteLength * 2 + this.#docs.length * 400 + this.#termStr.length * 60 + this.#tok.buf.byteLength;
  }

  has(id: string): boolean {
    return this.#byId.has(id);
  }

  /** Drops a buffered document by id; returns whether it was there. */
  remove(id: string): boolean {
    const i = this.#byId.get(id);
    if (i === undefined) return false;
    this.#docs[i]!.deleted = true;
    this.#byId.delete(id);
    return true;
  }

  #grow(extra: number): void {
    if (this.#occ + extra <= this.#occTerm.length) return;
    let cap = this.#occTerm.length * 2;
    while (cap < this.#occ + extra) cap *= 2;
    const t = new Int32Array(cap);
    t.set(this.#occTerm.subarray(0, this.#occ));
    this.#occTerm = t;
    const f = new Int32Array(cap);
    f.set(this.#occFP.subarray(0, this.#occ));
    this.#occFP = f;
  }

  /** Analyses and buffers a document (replacing a buffered one with the same id). */
  add(doc: IndexDocument): void {
    if (typeof doc.id !== 'string' || doc.id.length === 0) throw new TypeError('document id must be a non-empty string');
    this.remove(doc.id);
    const lang = doc.language ? normalizeLanguage(doc.language) : this.#defaultLanguage;
    const analyzer = analyzerFor(lang);
    const occStart = this.#occ;
    const fieldLen = [0, 0, 0];
    const fieldCp = [0, 0, 0];
    const chunks: number[] = [];
    const texts = [doc.title ?? '', doc.abstract ?? '', doc.body ?? ''];
    const tok: [number, number, number, number] = [this.#tok.length, 0, 0, 0];
    for (let f = 0; f < NF; f++) {
      const text = texts[f]!;
      if (text.length > 0) {
        const r = this.#analyzeField(analyzer, text, f);
        fieldLen[f] = r.len;
        fieldCp[f] = r.cp;
        this.#chunk(f, r.slots, chunks);
        encodeTokens(this.#tok, this.#cpStart, this.#cpEnd, this.#anchor, r.slots);
      }
      tok[f + 1] = this.#tok.length;
    }
    const keywords: string[] = [];
    for (const s of doc.issns ?? []) if (s) keywords.push('i\0' + s.trim().toLowerCase());
    for (const s of doc.uris ?? []) if (s) keywords.push('u\0' + s);
    for (const s of doc.references ?? []) if (s) keywords.push('r\0' + s);
    keywords.sort();
    const issued = typeof doc.issuedAt === 'number' && Number.isFinite(doc.issuedAt) ? doc.issuedAt : NaN;
    const cols: DocColumns = {
      id: doc.id,
      fieldLen,
      fieldCp,
      issued,
      type: doc.type ?? null,
      language: doc.language ? lang : '',
      publisher: doc.publisher ? doc.publisher.trim().toLowerCase() : null,
      workKey: doc.workKey ?? null,
      chunks,
      keywords,
      tokens: EMPTY_BYTES, // set at build, when the token sink has stopped growing
      tokenFieldEnds: [tok[1] - tok[0], tok[2] - tok[0], tok[3] - tok[0]],
      stored: doc.stored ?? null,
    };
    this.#byId.set(doc.id, this.#docs.length);
    this.#docs.push({ cols, tok, occStart, occEnd: this.#occ, deleted: false });
  }

  #analyzeField(analyzer: Analyzer, text: string, f: number): { len: number; cp: number; slots: number } {
    let len = 0;
    const fieldBits = f << 28;
    const termIds = this.#termIds;
    this.#sentEnds.length = 0;
    const sentEnds = this.#sentEnds;
    // worst case: every code unit a token, plus joined forms
    this.#grow(text.length + 8);
    if (this.#cpStart.length < text.length + 1) {
      this.#cpStart = new Int32Array(text.length + 1);
      this.#cpEnd = new Int32Array(text.length + 1);
      this.#anchor = new Uint8Array(text.length + 1);
    }
    const cpStart = this.#cpStart;
    const cpEnd = this.#cpEnd;
    const anchor = this.#anchor;
    const occTerm = this.#occTerm;
    const occFP = this.#occFP;
    let occ = this.#occ;
    let cp = 0;
    let surfaces = this.#surfaceIds.get(analyzer.language);
    if (surfaces === undefined) this.#surfaceIds.set(analyzer.language, (surfaces = new SurfaceTable()));
    const table = surfaces;
    const resolve = (src: string, a: number, b: number, h: number): number => {
      const slot = table.find(src, a, b, h);
      const known = table.value(slot);
      if (known !== EMPTY) return known;
      const surface = src.slice(a, b);
      const term = analyzer.term(surface);
      let id: number | undefined;
      if (term === null) id = -1;
      else {
        id = termIds.get(term);
        if (id === undefined) {
          id = this.#termStr.length;
          termIds.set(term, id);
          this.#termStr.push(term);
          this.#termSurface.push(surface.toLowerCase());
        }
      }
      table.put(slot, src, a, b, h, id);
      return id;
    };
    const slots = analyzer.analyzeWith(
      text,
      resolve,
      -1,
      (id, position, startCp, endCp, _startCu, _endCu, joined) => {
        if (!joined) {
          cpStart[position] = startCp;
          cpEnd[position] = endCp;
          anchor[position] = 0;
          cp = endCp;
        } else if (id >= 0) anchor[position] = 1;
        if (id < 0) return;
        occTerm[occ] = id;
        occFP[occ] = fieldBits | position;
        occ++;
        if (!joined) len++;
      },
      (next) => {
        if (sentEnds[sentEnds.length - 1] !== next) sentEnds.push(next);
      },
    );
    this.#occ = occ;
    // code point length of the whole field (not just up to the last token); the analyzer saw every high
    // surrogate, so most texts need no second pass
    let cpLen = text.length;
    if (analyzer.lastTextHadSurrogates) {
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c >= 0xd800 && c <= 0xdbff) cpLen--;
      }
    }
    void cp;
    return { len, cp: cpLen, slots };
  }

  #chunk(f: number, slots: number, out: number[]): void {
    if (slots === 0) return;
    const cpStart = this.#cpStart;
    const cpEnd = this.#cpEnd;
    const push = (s: number, e: number): void => {
      out.push(f, s, e, cpStart[s]!, cpEnd[e - 1]!);
    };
    if (f === 0) {
      push(0, slots);
      return;
    }
    let start = 0;
    const ends = this.#sentEnds;
    ends.push(slots);
    for (const e of ends) {
      if (e <= start) continue;
      while (e - start > CHUNK_MAX) {
        push(start, start + CHUNK_MAX);
        start += CHUNK_MAX;
      }
      if (e - start >= CHUNK_MIN || e === slots) {
        if (e > start) push(start, e);
        start = e;
      }
    }
    // a short tail joins the previous chunk of the same field
    const n = out.length;
    if (n >= 10 && out[n - 5] === f && out[n - 10] === f && out[n - 3]! - out[n - 4]! < CHUNK_MIN / 2 && out[n - 3]! - out[n - 9]! <= CHUNK_MAX) {
      const e = out[n - 3]!;
      const ec = out[n - 1]!;
      out.length = n - 5;
      out[n - 8] = e;
      out[n - 6] = ec;
    }
  }

  /**
   * Writes the buffered documents as a segment (bytes), or null when nothing is live; `bound`: see
   * SegmentWriter; `pairs`: the common-term rule of its pair postings (pair-postings.ts).
   */
  build(bound: BoundParams, pairs: PairRule = DEFAULT_PAIR_RULE): Uint8Array | null {
    if (this.#byId.size === 0) return null;
    const w = new SegmentWriter(bound);
    const docs = this.#docs;
    // live docs in add order get segment doc ids 0..n-1
    const docOf = new Int32Array(docs.length).fill(-1);
    const tokBytes = this.#tok.buf;
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i]!;
      if (d.deleted) continue;
      d.cols.tokens = tokBytes.subarray(d.tok[0], d.tok[3]);
      docOf[i] = w.addDoc(d.cols);
    }
    const nTerms = this.#termStr.length;
    const occ = this.#occ;
    const occTerm = this.#occTerm;
    const occFP = this.#occFP;
    // counting sort of occurrences by term id (stable)
    const start = new Int32Array(nTerms + 1);
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i]!;
      if (d.deleted) continue;
      for (let o = d.occStart; o < d.occEnd; o++) start[occTerm[o]! + 1]!++;
    }
    for (let t = 0; t < nTerms; t++) start[t + 1]! += start[t]!;
    const total = start[nTerms]!;
    // (doc, field|position) pairs interleaved: the scatter below is one cache miss per occurrence, not two
    const sorted = new Int32Array(2 * total);
    const fill = start.slice(0, nTerms);
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i]!;
      if (d.deleted) continue;
      const doc = docOf[i]!;
      for (let o = d.occStart; o < d.occEnd; o++) {
        const k = 2 * fill[occTerm[o]!]!++;
        sorted[k] = doc;
        sorted[k + 1] = occFP[o]!;
      }
    }
    void occ;
    // terms in code point order
    const order = sortCodePointOrder(this.#termStr.slice());
    const positions = new Int32Array(1024);
    let posBuf = positions;
    for (const term of order) {
      const t = this.#termIds.get(term)!;
      const a = start[t]!;
      const b = start[t + 1]!;
      if (a === b) continue;
      w.beginTerm(term, this.#termSurface[t]!);
      let k = a;
      while (k < b) {
        const doc = sorted[2 * k]!;
        let e = k;
        while (e < b && sorted[2 * e] === doc) e++;
        if (posBuf.length < e - k) posBuf = new Int32Array((e - k) * 2);
        let tf0 = 0;
        let tf1 = 0;
        let tf2 = 0;
        let inOrder = true;
        let prev = -1;
        for (let j = k; j < e; j++) {
          const fp = sorted[2 * j + 1]!;
          const f = fp >>> 28;
          if (f === 0) tf0++;
          else if (f === 1) tf1++;
          else tf2++;
          posBuf[j - k] = fp & 0x0fffffff;
          if (prev > fp) inOrder = false;
          prev = fp;
        }
        if (!inOrder) sortFieldPositions(sorted, k, e, posBuf);
        w.addPosting(doc, tf0, tf1, tf2, posBuf, 0);
        k = e;
      }
      w.endTerm();
    }
    for (const _ of derivePairs(w, pairs));
    return w.finish();
  }
}

function sortFieldPositions(pairs: Int32Array, k: number, e: number, out: Int32Array): void {
  const tmp: number[] = [];
  for (let j = k; j < e; j++) tmp.push(pairs[2 * j + 1]!);
  tmp.sort((x, y) => x - y);
  for (let j = 0; j < tmp.length; j++) out[j] = tmp[j]! & 0x0fffffff;
}

/** Estimated occurrences for a flush: used by the index to decide when to flush. */
export const DEFAULT_FLUSH_OCCURRENCES = 12_000_000;
export { NumSink };

const EMPTY = -2;

/**
 * Open-addressing hash table from surface spans to term ids, looked up straight from the text with the
 * FNV-1a hash the analyzer computes while scanning (Analyzer.surfaceHash), so the indexing hot path neither
 * allocates strings nor reads a known surface twice. Lookups were the largest single cost of indexing,
 * almost all of it cache misses, so a probe touches as few cache lines as it can: a 16-byte slot holds
 * [hash, pool start + 1 (0 = free), length, value], and a hash match compares the key's code units in a
 * shared pool, in insertion order (frequent surfaces come first and stay cached together). A hit is then
 * two cache lines, the slot and the key's characters (three when the slot held only an index into a
 * separate [pool start, value] table).
 */
class SurfaceTable {
  /** 4 Int32 per slot: hash, pool start + 1 (0 = free), key length, value. */
  #slots = new Int32Array(4 << 16);
  #mask = (1 << 16) - 1;
  #size = 0;
  /** Key code units in insertion order. */
  #pool = new Uint16Array(1 << 18);
  #poolUsed = 0;

  /** The slot holding text[a, b) with hash h, or the empty slot where it belongs. */
  find(text: string, a: number, b: number, h: number): number {
    const slots = this.#slots;
    const pool = this.#pool;
    const len = b - a;
    const mask = this.#mask;
    let slot = h & mask;
    for (;;) {
      const o = slot << 2;
      const ks = slots[o + 1]! - 1;
      if (ks < 0) return slot;
      if (slots[o] === h && slots[o + 2] === len) {
        let i = 0;
        while (i < len && pool[ks + i] === text.charCodeAt(a + i)) i++;
        if (i === len) return slot;
      }
      slot = (slot + 1) & mask;
    }
  }

  /** The value in `slot` (EMPTY when the slot is free). */
  value(slot: number): number {
    const o = slot << 2;
    return this.#slots[o + 1] === 0 ? EMPTY : this.#slots[o + 3]!;
  }

  /** Stores text[a, b) (hash h) -> val in the empty `slot` returned by find(). */
  put(slot: number, text: string, a: number, b: number, h: number, val: number): void {
    const len = b - a;
    if (this.#poolUsed + len > this.#pool.length) {
      const p = new Uint16Array(Math.max(this.#pool.length * 2, this.#poolUsed + len));
      p.set(this.#pool.subarray(0, this.#poolUsed));
      this.#pool = p;
    }
    const start = this.#poolUsed;
    for (let i = 0; i < len; i++) this.#pool[start + i] = text.charCodeAt(a + i);
    this.#poolUsed += len;
    const o = slot << 2;
    this.#slots[o] = h;
    this.#slots[o + 1] = start + 1;
    this.#slots[o + 2] = len;
    this.#slots[o + 3] = val;
    if (++this.#size * 2 > this.#mask) this.#rehash();
  }

  #rehash(): void {
    const old = this.#slots;
    const cap = (this.#mask + 1) * 2;
    const slots = new Int32Array(4 * cap);
    const mask = cap - 1;
    for (let o = 0; o < old.length; o += 4) {
      if (old[o + 1] === 0) continue;
      let slot = old[o]! & mask;
      while (slots[(slot << 2) + 1] !== 0) slot = (slot + 1) & mask;
      slots.set(old.subarray(o, o + 4), slot << 2);
    }
    this.#slots = slots;
    this.#mask = mask;
  }
}
