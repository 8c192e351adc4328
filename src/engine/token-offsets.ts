// Token offsets stored with each segment (format 2), so snippets place windows and highlights from the
// index instead of re-analysing the stored text.
//
// Per document and field, one entry per position slot (token order: position p is the p-th token of the
// field, stopwords included, joined forms of compounds excluded): its start and end in code points,
// relative to the field text, and whether the joined form of a compound was indexed at that position
// (then a posting there may belong to the joined form rather than the token itself).
//
// Encoding, per token, with prevEnd the previous token's end (0 before the first):
//   one byte  0LLLLGGJ  when 1 <= len <= 15 and gap = start - prevEnd is 1 (GG=0), 0 (1) or 2 (2)
//   otherwise 1000000J, then VByte(gap), VByte(len)
// Typical scientific text takes about one byte per token.

/** Appends the tokens [0, n) given by `start`/`end` (code points) and `anchor` flags to `out` (a growable sink). */
export function encodeTokens(out: { buf: Uint8Array; length: number; ensure(extra: number): void }, start: Int32Array, end: Int32Array, anchor: Uint8Array, n: number): void {
  out.ensure(n * 11);
  const b = out.buf;
  let l = out.length;
  let prev = 0;
  for (let p = 0; p < n; p++) {
    const s = start[p]!;
    const e = end[p]!;
    const gap = s - prev;
    const len = e - s;
    const j = anchor[p]! & 1;
    prev = e;
    if (len >= 1 && len <= 15 && gap >= 0 && gap <= 2) {
      b[l++] = (len << 3) | ((gap === 1 ? 0 : gap === 0 ? 1 : 2) << 1) | j;
      continue;
    }
    b[l++] = 128 | j;
    let v = gap;
    while (v >= 128) {
      b[l++] = (v & 127) | 128;
      v >>>= 7;
    }
    b[l++] = v;
    v = len;
    while (v >= 128) {
      b[l++] = (v & 127) | 128;
      v >>>= 7;
    }
    b[l++] = v;
  }
  out.length = l;
}

/** Decoded tokens of one field: parallel arrays indexed by position. */
export interface FieldTokens {
  start: Int32Array;
  end: Int32Array;
  anchor: Uint8Array;
  /** Positions decoded (tokens [0, count)). */
  count: number;
}

const GAP = [1, 0, 2, 0];

/**
 * Decodes the tokens of `bytes[from, to)` until one starts at or after `stopChar` (that one is not
 * kept); reuses `into` when it is large enough.
 */
export function decodeTokens(bytes: Uint8Array, from: number, to: number, stopChar: number, into: FieldTokens | null): FieldTokens {
  // at most one token per byte
  const cap = to - from;
  const out = into !== null && into.start.length >= cap ? into : { start: new Int32Array(cap), end: new Int32Array(cap), anchor: new Uint8Array(cap), count: 0 };
  const { start, end, anchor } = out;
  let i = from;
  let prev = 0;
  let n = 0;
  while (i < to) {
    const b = bytes[i++]!;
    let gap: number;
    let len: number;
    if (b < 128) {
      len = b >>> 3;
      gap = GAP[(b >>> 1) & 3]!;
    } else {
      gap = 0;
      let shift = 0;
      let c: number;
      do {
        c = bytes[i++]!;
        gap |= (c & 127) << shift;
        shift += 7;
      } while (c & 128);
      len = 0;
      shift = 0;
      do {
        c = bytes[i++]!;
        len |= (c & 127) << shift;
        shift += 7;
      } while (c & 128);
    }
    const s = prev + gap;
    if (s >= stopChar) break;
    start[n] = s;
    end[n] = s + len;
    anchor[n] = b & 1;
    prev = s + len;
    n++;
  }
  out.count = n;
  return out;
}
