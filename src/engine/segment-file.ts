// The on-disk container of one immutable segment: a small header, a JSON table of contents, then named
// typed-array sections aligned to 8 bytes so a reader maps them as zero-copy views over the file bytes.
//
//   u32 magic 'LSG1' | u32 format version | u32 toc length (bytes) | u32 reserved | toc JSON | pad | sections
//
// Integrity: the manifest records each segment's byte length, checked on open; segments are written
// durably before the manifest that names them (see manifest.ts), so a torn segment is never referenced.
import { IndexFormatError } from './index-format-error.js';

/** The typed arrays a section may hold. */
export type SectionArray = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float32Array | Float64Array;
type Kind = 'u8' | 'u16' | 'u32' | 'i32' | 'f32' | 'f64';

const MAGIC = 0x3147534c; // 'LSG1' little-endian
// 2: per-posting position byte lengths in the posting blocks (6-bit widths in the block header), no
//    position checkpoints (blkPosSub); token offsets per document for snippets.
// 3: stored fields (the host's record per document, DEFLATE blocks: stored-fields.ts, ADR 0280).
// 4: stored fields in 4 KiB blocks with a per-segment preset dictionary (sfDictBlocks, ADR 0325). Format 3
//    segments are still read (their blocks have no dictionary) and become format 4 when merged.
// 5: champion lists (impTerm, impStart, impDoc, impTf: ADR 0329), the best postings of common terms, which
//    seed MaxScore's threshold. Format 3 and 4 segments are still read (searched without a seed from their
//    terms) and become format 5 when merged.
const VERSION = 5;
/** Versions this engine reads. */
const READABLE = new Set([3, 4, 5]);

function kindOf(a: SectionArray): Kind {
  if (a instanceof Uint8Array) return 'u8';
  if (a instanceof Uint16Array) return 'u16';
  if (a instanceof Uint32Array) return 'u32';
  if (a instanceof Int32Array) return 'i32';
  if (a instanceof Float32Array) return 'f32';
  return 'f64';
}

interface Toc {
  meta: unknown;
  sections: Record<string, [offset: number, length: number, kind: Kind]>;
}

/** Serialises `meta` (JSON) and the sections into one byte array. */
export function encodeSegmentFile(meta: unknown, sections: Record<string, SectionArray>): Uint8Array {
  const names = Object.keys(sections).sort();
  const toc: Toc = { meta, sections: {} };
  // first pass with placeholder offsets to size the TOC, then fix offsets (offsets only grow the JSON
  // a little; iterate until stable)
  let tocBytes = new Uint8Array(0);
  let base = 0;
  for (let iter = 0; iter < 4; iter++) {
    let off = align8(16 + tocBytes.length);
    base = off;
    for (const n of names) {
      const a = sections[n]!;
      toc.sections[n] = [off, a.length, kindOf(a)];
      off = align8(off + a.byteLength);
    }
    const next = new TextEncoder().encode(JSON.stringify(toc));
    if (next.length === tocBytes.length && align8(16 + next.length) === base) {
      tocBytes = next;
      break;
    }
    tocBytes = next;
  }
  let total = align8(16 + tocBytes.length);
  for (const n of names) total = align8(total + sections[n]!.byteLength);
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, MAGIC, true);
  dv.setUint32(4, VERSION, true);
  dv.setUint32(8, tocBytes.length, true);
  out.set(tocBytes, 16);
  for (const n of names) {
    const a = sections[n]!;
    const [off] = toc.sections[n]!;
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), off);
  }
  return out;
}

/** A decoded segment file: its metadata and zero-copy section views. */
export class SegmentFile {
  readonly meta: unknown;
  readonly bytes: Uint8Array;
  readonly #toc: Toc;

  constructor(bytes: Uint8Array) {
    // typed-array views need the buffer offset aligned to 8
    if (bytes.byteOffset % 8 !== 0) bytes = bytes.slice();
    this.bytes = bytes;
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes.length < 16 || dv.getUint32(0, true) !== MAGIC) throw new Error('not a segment file');
    if (!READABLE.has(dv.getUint32(4, true))) throw new IndexFormatError(`unsupported segment version ${dv.getUint32(4, true)}`);
    const tocLen = dv.getUint32(8, true);
    this.#toc = JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + tocLen))) as Toc;
    this.meta = this.#toc.meta;
  }

  has(name: string): boolean {
    return name in this.#toc.sections;
  }

  #get(name: string): [number, number, Kind] {
    const s = this.#toc.sections[name];
    // a section this engine needs but the file lacks: a format it does not read (the host rebuilds the index)
    if (s === undefined) throw new IndexFormatError(`segment section missing: ${name}`);
    return s;
  }
  u8(name: string): Uint8Array {
    const [o, n] = this.#get(name);
    return new Uint8Array(this.bytes.buffer, this.bytes.byteOffset + o, n);
  }
  u16(name: string): Uint16Array {
    const [o, n] = this.#get(name);
    return new Uint16Array(this.bytes.buffer, this.bytes.byteOffset + o, n);
  }
  u32(name: string): Uint32Array {
    const [o, n] = this.#get(name);
    return new Uint32Array(this.bytes.buffer, this.bytes.byteOffset + o, n);
  }
  f32(name: string): Float32Array {
    const [o, n] = this.#get(name);
    return new Float32Array(this.bytes.buffer, this.bytes.byteOffset + o, n);
  }
  f64(name: string): Float64Array {
    const [o, n] = this.#get(name);
    return new Float64Array(this.bytes.buffer, this.bytes.byteOffset + o, n);
  }
  /** Bytes taken by the named sections (for stats). */
  sectionBytes(name: string): number {
    const s = this.#toc.sections[name];
    if (s === undefined) return 0;
    const per = { u8: 1, u16: 2, u32: 4, i32: 4, f32: 4, f64: 8 }[s[2]];
    return s[1] * per;
  }
  sectionNames(): string[] {
    return Object.keys(this.#toc.sections);
  }
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}
