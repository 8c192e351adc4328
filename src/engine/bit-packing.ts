// Frame-of-reference bit packing for posting blocks (doc-id gaps and term frequencies) and VByte for
// positions. Values are unsigned 32-bit integers; a block stores `count` values with a common bit width.

/** Bits needed to represent `v` (0 for 0, 1..32 otherwise). */
export function bitWidth(v: number): number {
  return v === 0 ? 0 : 32 - Math.clz32(v);
}

/** Bits needed for the largest of `src[0..n)`. */
export function maxBitWidth(src: ArrayLike<number>, n: number): number {
  let or = 0;
  for (let i = 0; i < n; i++) or |= src[i]!;
  return bitWidth(or >>> 0);
}

/** 32-bit words needed to pack `n` values of `bits` bits. */
export function packedWords(n: number, bits: number): number {
  return (n * bits + 31) >>> 5;
}

/** Packs `src[0..n)` with `bits` bits each into `out` from word `o`; returns the next free word index. */
export function pack(src: ArrayLike<number>, n: number, bits: number, out: Uint32Array, o: number): number {
  if (bits === 0) return o;
  let word = 0;
  let used = 0;
  for (let i = 0; i < n; i++) {
    const v = src[i]! >>> 0;
    word |= v << used;
    used += bits;
    if (used >= 32) {
      out[o++] = word >>> 0;
      used -= 32;
      word = used > 0 ? v >>> (bits - used) : 0;
    }
  }
  if (used > 0) out[o++] = word >>> 0;
  return o;
}

/** Unpacks `n` values of `bits` bits from `inp` at word `o` into `dst[0..n)`; returns the next word index. */
export function unpack(inp: Uint32Array, o: number, n: number, bits: number, dst: Int32Array | Uint32Array): number {
  if (bits === 0) {
    dst.fill(0, 0, n);
    return o;
  }
  const mask = bits === 32 ? -1 : (1 << bits) - 1;
  let used = 0;
  let cur = inp[o]!;
  for (let i = 0; i < n; i++) {
    let v = cur >>> used;
    used += bits;
    if (used >= 32) {
      used -= 32;
      o++;
      cur = o < inp.length ? inp[o]! : 0;
      if (used > 0) v |= cur << (bits - used);
    }
    dst[i] = v & mask;
  }
  return used > 0 ? o + 1 : o;
}

/**
 * {@link unpack} of doc-id gaps fused with their prefix sum: writes `prev + 1 + gap` cumulatively (the
 * doc ids of a posting block) in one pass. Returns the next word index.
 */
export function unpackGaps(inp: Uint32Array, o: number, n: number, bits: number, dst: Int32Array, prev: number): number {
  if (bits === 0) {
    for (let i = 0; i < n; i++) dst[i] = ++prev;
    return o;
  }
  const mask = bits === 32 ? -1 : (1 << bits) - 1;
  let used = 0;
  let cur = inp[o]!;
  for (let i = 0; i < n; i++) {
    let v = cur >>> used;
    used += bits;
    if (used >= 32) {
      used -= 32;
      o++;
      cur = o < inp.length ? inp[o]! : 0;
      if (used > 0) v |= cur << (bits - used);
    }
    prev = prev + (v & mask) + 1;
    dst[i] = prev;
  }
  return used > 0 ? o + 1 : o;
}

/** A growable byte buffer used by writers (VByte positions, string blobs). */
export class ByteSink {
  buf: Uint8Array;
  length = 0;
  constructor(capacity = 1 << 16) {
    this.buf = new Uint8Array(capacity);
  }
  ensure(extra: number): void {
    if (this.length + extra <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.length + extra) cap *= 2;
    const b = new Uint8Array(cap);
    b.set(this.buf.subarray(0, this.length));
    this.buf = b;
  }
  /** Appends `v` (0 <= v < 2^32) as VByte (7 bits per byte, high bit = more bytes follow). */
  vbyte(v: number): void {
    this.ensure(5);
    const b = this.buf;
    let l = this.length;
    while (v >= 128) {
      b[l++] = (v & 127) | 128;
      v >>>= 7;
    }
    b[l++] = v;
    this.length = l;
  }
  bytes(src: Uint8Array): void {
    this.ensure(src.length);
    this.buf.set(src, this.length);
    this.length += src.length;
  }
  result(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/** A growable Uint32 buffer. */
export class WordSink {
  buf: Uint32Array;
  length = 0;
  constructor(capacity = 1 << 16) {
    this.buf = new Uint32Array(capacity);
  }
  ensure(extra: number): void {
    if (this.length + extra <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.length + extra) cap *= 2;
    const b = new Uint32Array(cap);
    b.set(this.buf.subarray(0, this.length));
    this.buf = b;
  }
  push(v: number): void {
    if (this.length === this.buf.length) this.ensure(1);
    this.buf[this.length++] = v;
  }
  result(): Uint32Array {
    return this.buf.slice(0, this.length);
  }
}

/** Growable typed arrays of other element types. */
export class NumSink<T extends Uint16Array | Uint32Array | Float64Array | Uint8Array | Int32Array | Float32Array> {
  buf: T;
  length = 0;
  readonly #make: (n: number) => T;
  constructor(make: (n: number) => T, capacity = 1024) {
    this.#make = make;
    this.buf = make(capacity);
  }
  push(v: number): void {
    if (this.length === this.buf.length) {
      const b = this.#make(this.buf.length * 2);
      b.set(this.buf as never);
      this.buf = b;
    }
    this.buf[this.length++] = v;
  }
  result(): T {
    return this.buf.slice(0, this.length) as T;
  }
}

/** Number of set bits of a 32-bit word. */
export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}
