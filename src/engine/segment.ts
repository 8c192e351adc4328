// Read side of an immutable segment: typed-array views over the segment file, term and id lookup by
// binary search over UTF-8 bytes, per-document columns, keyword postings and chunk tables.
// Posting iteration lives in postings-cursor.ts.
import { PairPostings } from './pair-postings.js';
import { SegmentFile } from './segment-file.js';
import { StoredFieldsReader } from './stored-fields.js';
import { compareBytes, NF } from './segment-writer.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

// Per length 0..64, a plain array of char codes that StringTable.get fills (synchronous, never nested).
const asciiScratch: number[][] = Array.from({ length: 65 }, (_, n) => new Array<number>(n).fill(0));

/** A string table (blob + offsets) reader. */
export class StringTable {
  constructor(
    readonly blob: Uint8Array,
    readonly off: Uint32Array,
  ) {}
  get size(): number {
    return this.off.length - 1;
  }
  get(i: number): string {
    const s = this.off[i]!;
    const e = this.off[i + 1]!;
    if (e - s <= 64) {
      // short ASCII (ids, work keys: a hit's id is read per heap offer): the codes go through a reused
      // array of that length, not a subarray view, which cost ~3x as much per string
      const b = this.blob;
      const codes = asciiScratch[e - s]!;
      let k = s;
      for (; k < e; k++) {
        const c = b[k]!;
        if (c > 127) break;
        codes[k - s] = c;
      }
      if (k === e) return String.fromCharCode.apply(null, codes);
    }
    return dec.decode(this.blob.subarray(s, e));
  }
  /** Index of `key` (UTF-8 bytes) in a sorted table, or -(insertion point) - 1. */
  find(key: Uint8Array): number {
    let lo = 0;
    let hi = this.off.length - 2;
    const blob = this.blob;
    const off = this.off;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const s = off[mid]!;
      const c = compareBytes(blob, s, off[mid + 1]! - s, key, 0, key.length);
      if (c < 0) lo = mid + 1;
      else if (c > 0) hi = mid - 1;
      else return mid;
    }
    return -lo - 1;
  }
  /** Index of the first entry >= `key`. */
  lowerBound(key: Uint8Array): number {
    const i = this.find(key);
    return i >= 0 ? i : -i - 1;
  }
  /** True if entry i starts with `prefix`. */
  startsWith(i: number, prefix: Uint8Array): boolean {
    const s = this.off[i]!;
    if (this.off[i + 1]! - s < prefix.length) return false;
    for (let k = 0; k < prefix.length; k++) if (this.blob[s + k] !== prefix[k]) return false;
    return true;
  }
  byteLength(): number {
    return this.blob.byteLength + this.off.byteLength;
  }
}

/** Encodes a string to UTF-8 (helper for lookups). */
export function utf8(s: string): Uint8Array {
  return enc.encode(s);
}

interface SegmentMeta {
  docCount: number;
  fieldTotals: number[];
  termCount: number;
  postings: number;
  bound: { w: number[]; b: number[]; avg: number[] };
}

/** An opened immutable segment. */
export class Segment {
  readonly name: string;
  readonly file: SegmentFile;
  readonly docCount: number;
  /** Sum of indexed token counts per field. */
  readonly fieldTotals: readonly number[];
  readonly ids: StringTable;
  readonly idOrder: Uint32Array;
  readonly fieldLen: Uint32Array;
  readonly fieldCp: Uint32Array;
  readonly issued: Float64Array;
  readonly typeOrd: Uint32Array;
  readonly langOrd: Uint32Array;
  readonly pubOrd: Uint32Array;
  readonly workOrd: Uint32Array;
  readonly typeDict: StringTable;
  readonly langDict: StringTable;
  readonly pubDict: StringTable;
  readonly workDict: StringTable;
  readonly chunkStart: Uint32Array;
  readonly chunkField: Uint8Array;
  readonly chunkPos: Uint32Array;
  readonly chunkChar: Uint32Array;
  /** Token offsets per doc and field (token-offsets.ts): field f of doc d is tok[tokOff[3d+f], tokOff[3d+f+1]). */
  readonly tok: Uint8Array;
  readonly tokOff: Uint32Array;
  readonly kw: StringTable;
  readonly kwStart: Uint32Array;
  readonly kwDocs: Uint32Array;
  readonly terms: StringTable;
  readonly surfaces: StringTable;
  readonly termDf: Uint32Array;
  readonly termBlk: Uint32Array;
  readonly termMaxTf: Uint16Array;
  readonly termMinLen: Uint32Array;
  readonly blkLast: Uint32Array;
  readonly blkDoc: Uint32Array;
  readonly blkPos: Uint32Array;
  readonly blkMaxTf: Uint16Array;
  readonly blkMinLen: Uint32Array;
  readonly post: Uint32Array;
  readonly pos: Uint8Array;
  /** Exact per-block / per-term max BM25F pseudo frequency under `bound` parameters. */
  readonly blkMaxTfp: Float32Array;
  readonly termMaxTfp: Float32Array;
  readonly bound: { w: number[]; b: number[]; avg: number[] };
  /** Pair postings of adjacent common terms (ADR 0175), or null (a segment written without them, or too small). */
  readonly pairs: PairPostings | null;
  /** The host's stored records (stored-fields.ts, ADR 0280). */
  readonly stored: StoredFieldsReader;
  /**
   * Champion lists (format 5, ADR 0329): term impTerm[i] (ascending) has the docs impDoc[impStart[i] ..
   * impStart[i + 1]) (ascending) with their field tfs at impTf[3j .. 3j + 2]. Empty for older segments.
   */
  readonly impTerm: Uint32Array;
  readonly impStart: Uint32Array;
  readonly impDoc: Uint32Array;
  readonly impTf: Uint8Array;

  constructor(name: string, bytes: Uint8Array) {
    this.name = name;
    const f = new SegmentFile(bytes);
    this.file = f;
    const meta = f.meta as SegmentMeta;
    this.docCount = meta.docCount;
    this.fieldTotals = meta.fieldTotals;
    this.ids = new StringTable(f.u8('idBlob'), f.u32('idOff'));
    this.idOrder = f.u32('idOrder');
    this.fieldLen = f.u32('fieldLen');
    this.fieldCp = f.u32('fieldCp');
    this.issued = f.f64('issued');
    this.typeOrd = f.u32('typeOrd');
    this.langOrd = f.u32('langOrd');
    this.pubOrd = f.u32('pubOrd');
    this.workOrd = f.u32('workOrd');
    this.typeDict = new StringTable(f.u8('typeDictBlob'), f.u32('typeDictOff'));
    this.langDict = new StringTable(f.u8('langDictBlob'), f.u32('langDictOff'));
    this.pubDict = new StringTable(f.u8('pubDictBlob'), f.u32('pubDictOff'));
    this.workDict = new StringTable(f.u8('workDictBlob'), f.u32('workDictOff'));
    this.chunkStart = f.u32('chunkStart');
    this.chunkField = f.u8('chunkField');
    this.chunkPos = f.u32('chunkPos');
    this.chunkChar = f.u32('chunkChar');
    this.tok = f.u8('tok');
    this.tokOff = f.u32('tokOff');
    this.kw = new StringTable(f.u8('kwBlob'), f.u32('kwOff'));
    this.kwStart = f.u32('kwStart');
    this.kwDocs = f.u32('kwDocs');
    this.terms = new StringTable(f.u8('termBlob'), f.u32('termOff'));
    this.surfaces = new StringTable(f.u8('surfBlob'), f.u32('surfOff'));
    this.termDf = f.u32('termDf');
    this.termBlk = f.u32('termBlk');
    this.termMaxTf = f.u16('termMaxTf');
    this.termMinLen = f.u32('termMinLen');
    this.blkLast = f.u32('blkLast');
    this.blkDoc = f.u32('blkDoc');
    this.blkPos = f.u32('blkPos');
    this.blkMaxTf = f.u16('blkMaxTf');
    this.blkMinLen = f.u32('blkMinLen');
    this.post = f.u32('post');
    this.pos = f.u8('pos');
    this.blkMaxTfp = f.f32('blkMaxTfp');
    this.termMaxTfp = f.f32('termMaxTfp');
    this.bound = meta.bound;
    const imp = f.has('impTerm');
    this.impTerm = imp ? f.u32('impTerm') : new Uint32Array(0);
    this.impStart = imp ? f.u32('impStart') : new Uint32Array(1);
    this.impDoc = imp ? f.u32('impDoc') : new Uint32Array(0);
    this.impTf = imp ? f.u8('impTf') : new Uint8Array(0);
    // format 4 adds the preset dictionary (ADR 0325); a format 3 segment's blocks were written without one
    this.stored = new StoredFieldsReader(f.u8('sfData'), f.u32('sfBlockOff'), f.u32('sfBlockRaw'), f.u32('sfBlockDoc'), f.u32('sfDocStart'), f.has('sfDictBlocks') ? f.u32('sfDictBlocks')[0] : 0);
    this.pairs = f.has('pairKey')
      ? new PairPostings(this.docCount, {
          pairSet: f.u32('pairSet'),
          pairKey: f.u32('pairKey'),
          pairDf: f.u32('pairDf'),
          pairBlkLast: f.u32('pairBlkLast'),
          pairPost: f.u32('pairPost'),
        })
      : null;
  }

  #normCache: { key: Float64Array; arr: Float64Array }[] = [];
  /** Column-filter bitsets by filter values (filters.ts; bounded, least recently used dropped first). */
  readonly filterBits = new Map<string, Int32Array>();

  /**
   * Per-doc BM25F field factors for the given norms: `w_f / (1 - b_f + b_f * len_f(d) / avgLen_f)` at
   * [d * 3 + f] (a few recent norm settings are cached: they change only with commits or custom weights).
   */
  docNorms(norms: { w: Float64Array; b: Float64Array; invAvg: Float64Array }): Float64Array {
    // compared by value (no string keys: this runs once per segment and query)
    search: for (const e of this.#normCache) {
      const k = e.key;
      for (let f = 0; f < NF; f++) if (k[f] !== norms.w[f] || k[NF + f] !== norms.b[f] || k[2 * NF + f] !== norms.invAvg[f]) continue search;
      return e.arr;
    }
    const key = new Float64Array(3 * NF);
    key.set(norms.w, 0);
    key.set(norms.b, NF);
    key.set(norms.invAvg, 2 * NF);
    const n = this.docCount;
    const arr = new Float64Array(n * NF);
    const fl = this.fieldLen;
    for (let f = 0; f < NF; f++) {
      const w = norms.w[f]!;
      const b = norms.b[f]!;
      const ia = norms.invAvg[f]!;
      for (let d = 0; d < n; d++) arr[d * NF + f] = w / (1 - b + b * fl[d * NF + f]! * ia);
    }
    this.#normCache.unshift({ key, arr });
    if (this.#normCache.length > 4) this.#normCache.pop();
    return arr;
  }

  /**
   * Factor by which the stored exact bounds must be multiplied to bound pseudo frequencies under
   * `norms` (weights w', same b, averages avg'): max_f w'_f / w_f  *  max_f max(1, avg'_f / avg_f),
   * over fields with w'_f > 0 (since 1 - b + b*len/avg grows with 1/avg at most linearly). Infinity when
   * the stored bounds cannot be used (different b, or a field weighted now but not at build).
   */
  boundScale(norms: { w: Float64Array; b: Float64Array; invAvg: Float64Array }): number {
    let wr = 0;
    let ar = 1;
    for (let f = 0; f < NF; f++) {
      const w = norms.w[f]!;
      if (w === 0) continue;
      if (norms.b[f] !== this.bound.b[f]) return Infinity;
      const bw = this.bound.w[f]!;
      const avg = this.bound.avg[f]!;
      if (bw === 0 || avg === 0) return Infinity;
      wr = Math.max(wr, w / bw);
      const avgNow = norms.invAvg[f]! > 0 ? 1 / norms.invAvg[f]! : 0;
      ar = Math.max(ar, avgNow / avg);
    }
    return wr * ar * (1 + 1e-9);
  }

  /** Index of term `t`'s champion list in impTerm / impStart (ADR 0329), or -1 when it has none. */
  champions(t: number): number {
    const a = this.impTerm;
    let lo = 0;
    let hi = a.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const x = a[mid]!;
      if (x < t) lo = mid + 1;
      else if (x > t) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  /** Term ordinal of `term` (UTF-8 bytes), or -1. */
  findTerm(term: Uint8Array): number {
    const i = this.terms.find(term);
    return i >= 0 ? i : -1;
  }

  /** Document frequency of term ordinal `t`. */
  df(t: number): number {
    return this.termDf[t]!;
  }

  /** Readable surface form of term `t` (the first surface seen while indexing). */
  surface(t: number): string {
    const s = this.surfaces.get(t);
    return s === '' ? this.terms.get(t) : s;
  }

  /** External id of doc `d`. */
  id(d: number): string {
    return this.ids.get(d);
  }

  /** Local doc id of external id `id`, or -1. */
  findId(id: Uint8Array): number {
    let lo = 0;
    let hi = this.docCount - 1;
    const { blob, off } = this.ids;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const d = this.idOrder[mid]!;
      const s = off[d]!;
      const c = compareBytes(blob, s, off[d + 1]! - s, id, 0, id.length);
      if (c < 0) lo = mid + 1;
      else if (c > 0) hi = mid - 1;
      else return d;
    }
    return -1;
  }

  /** Docs (sorted, may repeat across keys) carrying keyword `key` (e.g. `r\0doi://...`). */
  keywordDocs(key: Uint8Array): Uint32Array | null {
    const i = this.kw.find(key);
    if (i < 0) return null;
    return this.kwDocs.subarray(this.kwStart[i]!, this.kwStart[i + 1]!);
  }

  /** Calls `fn` for every keyword index whose key starts with `prefix`. */
  forKeywordPrefix(prefix: Uint8Array, fn: (docs: Uint32Array) => void): void {
    for (let i = this.kw.lowerBound(prefix); i < this.kw.size && this.kw.startsWith(i, prefix); i++) {
      fn(this.kwDocs.subarray(this.kwStart[i]!, this.kwStart[i + 1]!));
    }
  }

  /** Work key of doc `d` or null. */
  workKey(d: number): string | null {
    const o = this.workOrd[d]!;
    return o === 0 ? null : this.workDict.get(o - 1);
  }

  /** Doc `d`'s work as 1 + its index in this segment's work dictionary; 0: no work key. */
  workOrdinal(d: number): number {
    return this.workOrd[d]!;
  }

  /** Entries in this segment's work dictionary. */
  get workDictSize(): number {
    return this.workDict.size;
  }

  /** Work dictionary entry `i` (0-based). */
  workDictEntry(i: number): string {
    return this.workDict.get(i);
  }

  /** Field length (indexed tokens) of doc `d`, field `f`. */
  len(d: number, f: number): number {
    return this.fieldLen[d * NF + f]!;
  }

  /** Bytes by component (for stats). */
  bytesByComponent(): { postings: number; positions: number; dictionary: number; columns: number; passages: number; stored: number; total: number } {
    const f = this.file;
    const b = (...names: string[]): number => names.reduce((s, n) => s + f.sectionBytes(n), 0);
    // pair postings (ADR 0175) count as postings
    const postings = b('post', 'blkLast', 'blkDoc', 'blkPos', 'blkMaxTfp', 'termMaxTfp', 'blkMaxTf', 'blkMinLen', 'termDf', 'termBlk', 'termMaxTf', 'termMinLen', 'pairSet', 'pairKey', 'pairDf', 'pairBlkLast', 'pairPost', 'impTerm', 'impStart', 'impDoc', 'impTf');
    const positions = b('pos');
    const dictionary = b('termBlob', 'termOff', 'surfBlob', 'surfOff');
    // passages: chunk tables and the token offsets snippets are cut with
    const passages = b('chunkStart', 'chunkField', 'chunkPos', 'chunkChar', 'tok', 'tokOff');
    const stored = b('sfData', 'sfDictBlocks', 'sfBlockOff', 'sfBlockRaw', 'sfBlockDoc', 'sfDocStart');
    return { postings, positions, dictionary, passages, stored, columns: f.bytes.byteLength - postings - positions - dictionary - passages - stored, total: f.bytes.byteLength };
  }
}
