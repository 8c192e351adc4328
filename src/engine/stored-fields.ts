// Stored fields (issue 29, ADR 0280): per document, opaque bytes the host wants back with its hits (the
// service stores the display record a hit shows), kept in the segment and compressed in blocks as
// Lucene's stored fields are. The engine never looks inside them.
//
// Layout (sections of format 3 and 4 segments):
//   sfData      u8   the blocks, each raw DEFLATE (RFC 1951) of the concatenated records of its docs
//   sfDictBlocks u32 (format 4, ADR 0325) [1] when block 0 is the dictionary block: every later block was
//                    compressed with block 0's uncompressed bytes as its preset dictionary (absent or [0]:
//                    no dictionary, as format 3 wrote)
//   sfBlockOff  u32  nb + 1 byte offsets of the blocks in sfData
//   sfBlockRaw  u32  nb     uncompressed length of each block
//   sfBlockDoc  u32  nb + 1 first doc of each block (the last entry is docCount)
//   sfDocStart  u32  n      byte offset of each doc's record within its block's uncompressed bytes
// A block closes once its records reach STORED_BLOCK_BYTES (so one long record is a block of its own);
// a doc's record ends where the next doc of its block starts, or at the block's end. A doc stored
// without bytes has an empty record (read back as null).
//
// Reading one record inflates its block only. The reader keeps its last inflated block, so a merge
// (which reads docs in order) inflates every block once.
//
// Format 4 (ADR 0325): blocks of 4 KiB (was 16 KiB) with a per-segment preset dictionary, so that a hit's
// read inflates ~4 KiB instead of ~16 KiB while the dictionary (the JSON keys and common words of the
// segment's records) keeps the ratio below that of the 16 KiB blocks. The dictionary is block 0: the
// segment's first records, in a block that closes at STORED_DICT_BYTES and is compressed without a
// dictionary (so the dictionary costs no bytes of its own, and the writer streams: a merge's output is
// written doc by doc). A reader inflates block 0 once and keeps it. Format 3 segments (16 KiB blocks,
// no dictionary block) are read by the same code.
//
// Compression: raw DEFLATE, the format every runtime reads. The engine is pure and does it with fflate
// (JavaScript); a host can install a faster codec of the same format with setStoredCodec (the service
// installs node:zlib's deflateRawSync / inflateRawSync on each of its threads). Any codec reads what
// any other wrote, so a thread without one is only slower, never wrong.
import { deflateSync, inflateSync } from 'fflate';
import { ByteSink, WordSink } from './bit-packing.js';
import type { SectionArray } from './segment-file.js';

/** Raw DEFLATE in both directions (see above). */
export interface StoredCodec {
  /** Compresses `raw`; `dictionary` (non-empty): the preset dictionary (RFC 1951 history before the data). */
  deflate(raw: Uint8Array, dictionary?: Uint8Array): Uint8Array;
  /** Inflates `data`, whose uncompressed length is `rawLength`, with the dictionary it was written with. */
  inflate(data: Uint8Array, rawLength: number, dictionary?: Uint8Array): Uint8Array;
}

/** The engine's own codec: fflate, level 6. */
export const FFLATE_STORED_CODEC: StoredCodec = {
  deflate: (raw, dictionary) => deflateSync(raw, dictionary && dictionary.length > 0 ? { level: 6, dictionary } : { level: 6 }),
  inflate: (data, rawLength, dictionary) => inflateSync(data, dictionary && dictionary.length > 0 ? { out: new Uint8Array(rawLength), dictionary } : { out: new Uint8Array(rawLength) }),
};

let codec: StoredCodec = FFLATE_STORED_CODEC;

/** Installs the codec this thread's segment writers and readers use (same format: see above). */
export function setStoredCodec(c: StoredCodec): void {
  codec = c;
}

/** Uncompressed bytes at which a block closes (format 3 wrote 16 KiB blocks). */
export const STORED_BLOCK_BYTES = 4 * 1024;

/** Uncompressed bytes at which the dictionary block (block 0) closes (ADR 0325 for the choice). */
export const STORED_DICT_BYTES = 16 * 1024;

/** DEFLATE's window: only the dictionary's last 32 KiB can be referred to (a longer block 0: its tail). */
const WINDOW = 32 * 1024;

/** Section names of the stored fields (sfDictBlocks: format 4). */
export const STORED_SECTIONS = ['sfData', 'sfDictBlocks', 'sfBlockOff', 'sfBlockRaw', 'sfBlockDoc', 'sfDocStart'] as const;

/** Accumulates the records of a segment's docs (in doc order) and writes the compressed blocks. */
export class StoredFieldsWriter {
  readonly #block = new ByteSink(STORED_BLOCK_BYTES * 2);
  readonly #data = new ByteSink(1 << 16);
  readonly #blockOff = new WordSink(256);
  readonly #blockRaw = new WordSink(256);
  readonly #blockDoc = new WordSink(256);
  readonly #docStart = new WordSink(4096);
  #docs = 0;
  #blockFirst = 0;
  /** The preset dictionary of the blocks after block 0 (null: none yet, or none at all). */
  #dict: Uint8Array | null = null;

  /**
   * @param blockBytes uncompressed bytes at which a block closes
   * @param dictBytes uncompressed bytes at which block 0, the dictionary, closes (0: no dictionary, as
   *   format 3)
   */
  constructor(
    readonly blockBytes: number = STORED_BLOCK_BYTES,
    readonly dictBytes: number = STORED_DICT_BYTES,
  ) {
    this.#blockOff.push(0);
  }

  /** Adds the next doc's record (null or empty: none). */
  add(record: Uint8Array | null): void {
    this.#docStart.push(this.#block.length);
    if (record !== null && record.length > 0) this.#block.bytes(record);
    this.#docs++;
    const first = this.#blockRaw.length === 0 && this.dictBytes > 0;
    if (this.#block.length >= (first ? this.dictBytes : this.blockBytes)) this.#flush();
  }

  #flush(): void {
    if (this.#docs === this.#blockFirst) return;
    const raw = this.#block.buf.subarray(0, this.#block.length);
    const dictionaryBlock = this.#blockRaw.length === 0 && this.dictBytes > 0;
    this.#data.bytes(codec.deflate(raw, this.#dict ?? undefined));
    if (dictionaryBlock) this.#dict = raw.slice(Math.max(0, raw.length - WINDOW));
    this.#blockOff.push(this.#data.length);
    this.#blockRaw.push(raw.length);
    this.#blockDoc.push(this.#blockFirst);
    this.#blockFirst = this.#docs;
    this.#block.length = 0;
  }

  /** The sections (call once, after the last add). */
  finish(): Record<(typeof STORED_SECTIONS)[number], SectionArray> {
    this.#flush();
    this.#blockDoc.push(this.#docs);
    return {
      sfData: this.#data.result(),
      sfDictBlocks: Uint32Array.of(this.dictBytes > 0 ? 1 : 0),
      sfBlockOff: this.#blockOff.result(),
      sfBlockRaw: this.#blockRaw.result(),
      sfBlockDoc: this.#blockDoc.result(),
      sfDocStart: this.#docStart.result(),
    };
  }
}

/** Reads records back (views over the segment's bytes). */
export class StoredFieldsReader {
  #lastBlock = -1;
  #lastBytes: Uint8Array = new Uint8Array(0);

  constructor(
    readonly data: Uint8Array,
    readonly blockOff: Uint32Array,
    readonly blockRaw: Uint32Array,
    readonly blockDoc: Uint32Array,
    readonly docStart: Uint32Array,
    /** 1: block 0 is the dictionary of the others (format 4); 0: no dictionary (format 3). */
    readonly dictBlocks: number = 0,
  ) {}

  /** Block 0 inflated, when it is the dictionary (kept). */
  #block0: Uint8Array | null = null;
  #dict: Uint8Array | undefined;

  /** The preset dictionary of blocks >= 1 (block 0's bytes, inflated once and kept), or undefined. */
  dictionary(): Uint8Array | undefined {
    if (this.dictBlocks === 0 || this.blockRaw.length === 0) return undefined;
    if (this.#block0 === null) {
      this.#block0 = this.#inflate(0, undefined);
      this.#dict = this.#block0.subarray(Math.max(0, this.#block0.length - WINDOW));
    }
    return this.#dict;
  }

  #inflate(b: number, dict: Uint8Array | undefined): Uint8Array {
    let bytes = codec.inflate(this.data.subarray(this.blockOff[b]!, this.blockOff[b + 1]!), this.blockRaw[b]!, dict);
    // a plain Uint8Array (a codec may answer with a subclass such as node's Buffer, whose slice() is a view)
    if (Object.getPrototypeOf(bytes) !== Uint8Array.prototype) bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes.length !== this.blockRaw[b]) throw new Error(`stored fields: block ${b} inflated to ${bytes.length} bytes, expected ${this.blockRaw[b]}`);
    return bytes;
  }

  /** Blocks in the segment. */
  get blocks(): number {
    return this.blockRaw.length;
  }

  /** The block holding doc `d` (binary search over the blocks' first docs). */
  blockOf(d: number): number {
    let lo = 0;
    let hi = this.blockRaw.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.blockDoc[mid]! <= d) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The inflated bytes of block `b` (the reader keeps the last one). */
  block(b: number): Uint8Array {
    if (b === this.#lastBlock) return this.#lastBytes;
    // block 0 of a format 4 segment is the dictionary, kept inflated
    let bytes: Uint8Array;
    if (b === 0 && this.dictBlocks > 0) {
      this.dictionary();
      bytes = this.#block0!;
    } else bytes = this.#inflate(b, b >= this.dictBlocks ? this.dictionary() : undefined);
    this.#lastBlock = b;
    this.#lastBytes = bytes;
    return bytes;
  }

  /**
   * Doc `d`'s record, or null when it was stored without one. The view is valid until the next call
   * on this reader (copy it to keep it).
   */
  get(d: number): Uint8Array | null {
    if (this.blockRaw.length === 0 || d < 0 || d >= this.docStart.length) return null;
    const b = this.blockOf(d);
    const start = this.docStart[d]!;
    const end = d + 1 < this.blockDoc[b + 1]! ? this.docStart[d + 1]! : this.blockRaw[b]!;
    if (end === start) return null;
    return this.block(b).subarray(start, end);
  }

  /** Bytes the stored fields take in the segment. */
  byteLength(): number {
    return this.data.byteLength + 4 + this.blockOff.byteLength + this.blockRaw.byteLength + this.blockDoc.byteLength + this.docStart.byteLength;
  }
}
