// Stored fields (issue 29, ADR 0280): per document, opaque bytes the host wants back with its hits (the
// service stores the display record a hit shows), kept in the segment and compressed in blocks as
// Lucene's stored fields are. The engine never looks inside them.
//
// Layout (sections of format 3 segments):
//   sfData      u8   the blocks, each raw DEFLATE (RFC 1951) of the concatenated records of its docs
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
// Compression: raw DEFLATE, the format every runtime reads. The engine is pure and does it with fflate
// (JavaScript); a host can install a faster codec of the same format with setStoredCodec (the service
// installs node:zlib's deflateRawSync / inflateRawSync on each of its threads). Any codec reads what
// any other wrote, so a thread without one is only slower, never wrong.
import { deflateSync, inflateSync } from 'fflate';
import { ByteSink, WordSink } from './bit-packing.js';
import type { SectionArray } from './segment-file.js';

/** Raw DEFLATE in both directions (see above). */
export interface StoredCodec {
  deflate(raw: Uint8Array): Uint8Array;
  /** Inflates `data`, whose uncompressed length is `rawLength`. */
  inflate(data: Uint8Array, rawLength: number): Uint8Array;
}

/** The engine's own codec: fflate, level 6. */
export const FFLATE_STORED_CODEC: StoredCodec = {
  deflate: (raw) => deflateSync(raw, { level: 6 }),
  inflate: (data, rawLength) => inflateSync(data, { out: new Uint8Array(rawLength) }),
};

let codec: StoredCodec = FFLATE_STORED_CODEC;

/** Installs the codec this thread's segment writers and readers use (same format: see above). */
export function setStoredCodec(c: StoredCodec): void {
  codec = c;
}

/** Uncompressed bytes at which a block closes. */
export const STORED_BLOCK_BYTES = 16 * 1024;

/** Section names of the stored fields. */
export const STORED_SECTIONS = ['sfData', 'sfBlockOff', 'sfBlockRaw', 'sfBlockDoc', 'sfDocStart'] as const;

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

  constructor(readonly blockBytes: number = STORED_BLOCK_BYTES) {
    this.#blockOff.push(0);
  }

  /** Adds the next doc's record (null or empty: none). */
  add(record: Uint8Array | null): void {
    this.#docStart.push(this.#block.length);
    if (record !== null && record.length > 0) this.#block.bytes(record);
    this.#docs++;
    if (this.#block.length >= this.blockBytes) this.#flush();
  }

  #flush(): void {
    if (this.#docs === this.#blockFirst) return;
    const raw = this.#block.buf.subarray(0, this.#block.length);
    const packed = codec.deflate(raw);
    this.#data.bytes(packed);
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
  ) {}

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
    let bytes = codec.inflate(this.data.subarray(this.blockOff[b]!, this.blockOff[b + 1]!), this.blockRaw[b]!);
    // a plain Uint8Array (a codec may answer with a subclass such as node's Buffer, whose slice() is a view)
    if (Object.getPrototypeOf(bytes) !== Uint8Array.prototype) bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes.length !== this.blockRaw[b]) throw new Error(`stored fields: block ${b} inflated to ${bytes.length} bytes, expected ${this.blockRaw[b]}`);
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
    return this.data.byteLength + this.blockOff.byteLength + this.blockRaw.byteLength + this.blockDoc.byteLength + this.docStart.byteLength;
  }
}
