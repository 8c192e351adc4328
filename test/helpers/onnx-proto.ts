// A minimal protobuf writer for ONNX ModelProto bytes (only the wire format: varints, fixed32 floats and
// length-delimited fields, following onnx.proto3 field numbers), shared by the tests' tiny models
// (test/helpers/tiny-onnx.ts) and the real-size encoder generator (bench/models/build-bert-onnx.ts), so
// no model is downloaded. Large byte fields (weights) are kept as chunks, not copied, until done().

export class Pb {
  readonly chunks: Uint8Array[] = [];
  #small: number[] = [];
  size = 0;
  #flush(): void {
    if (this.#small.length > 0) {
      this.chunks.push(Uint8Array.from(this.#small));
      this.#small = [];
    }
  }
  varint(v: number | bigint): this {
    let x = BigInt(v);
    if (x < 0n) x += 1n << 64n;
    do {
      let byte = Number(x & 0x7fn);
      x >>= 7n;
      if (x > 0n) byte |= 0x80;
      this.#small.push(byte);
      this.size++;
    } while (x > 0n);
    return this;
  }
  tag(field: number, wire: number): this {
    return this.varint((field << 3) | wire);
  }
  int(field: number, v: number | bigint): this {
    return this.tag(field, 0).varint(v);
  }
  float(field: number, v: number): this {
    this.tag(field, 5);
    const b = new Uint8Array(new Float32Array([v]).buffer);
    for (const x of b) this.#small.push(x);
    this.size += 4;
    return this;
  }
  bytes(field: number, b: Uint8Array): this {
    this.tag(field, 2).varint(b.length);
    this.#flush();
    this.chunks.push(b);
    this.size += b.length;
    return this;
  }
  str(field: number, s: string): this {
    return this.bytes(field, new TextEncoder().encode(s));
  }
  msg(field: number, m: Pb): this {
    m.#flush();
    this.tag(field, 2).varint(m.size);
    this.#flush();
    for (const c of m.chunks) this.chunks.push(c);
    this.size += m.size;
    return this;
  }
  done(): Uint8Array {
    this.#flush();
    const out = new Uint8Array(this.size);
    let o = 0;
    for (const c of this.chunks) {
      out.set(c, o);
      o += c.length;
    }
    return out;
  }
}

/** TensorProto.DataType values. */
export const FLOAT = 1;
export const INT32 = 6;
export const INT64 = 7;

/** ValueInfoProto of a tensor with symbolic (string) or fixed (number) dimensions. */
export function valueInfo(name: string, elemType: number, dims: (string | number)[]): Pb {
  const shape = new Pb();
  for (const d of dims) shape.msg(1, typeof d === 'number' ? new Pb().int(1, d) : new Pb().str(2, d));
  return new Pb().str(1, name).msg(2, new Pb().msg(1, new Pb().int(1, elemType).msg(2, shape)));
}
