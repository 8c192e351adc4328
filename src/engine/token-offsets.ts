// Token offsets stored with each segment (format 2), so snippets place windows and highlights from the
// index instead of re-analysing the stored text.
//
// Per document and field, one entry per position slot (token order: position p is the p-th token of the
// field, stopwords included, joined forms of compounds excluded): its start and end in code points,
// relative to the field text, and whether the joined form of a compound was indexed at that position
// (then a posting there may belong to the joined form rather than the token itself).
//
// Encoding, with prevEnd the previous token's end (0 before the first) and gap = start - prevEnd:
//   11AAABBB  two tokens, each with gap 1, no flag and length 1..8 (AAA + 1, BBB + 1)
//   0LLLLGGJ  one token with 1 <= len <= 15 and gap 1 (GG=0), 0 (1) or 2 (2); J the flag
//   1000000J  one token, then VByte(gap), VByte(len)
// Typical scientific text takes about 0.7 bytes per token (most words are short and one space apart).

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
    if (gap === 1 && len <= 8 && len >= 1 && j === 0 && p + 1 < n) {
      const s2 = start[p + 1]!;
      const len2 = end[p + 1]! - s2;
      if (s2 === e + 1 && len2 <= 8 && len2 >= 1 && anchor[p + 1] === 0) {
        b[l++] = 0xc0 | ((len - 1) << 3) | (len2 - 1);
        prev = s2 + len2;
        p++;
        continue;
      }
    }
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
  // at most two tokens per byte
  const cap = 2 * (to - from);
  const out = into !== null && into.start.length >= cap ? into : { start: new Int32Array(cap), end: new Int32Array(cap), anchor: new Uint8Array(cap), count: 0 };
  const { start, end, anchor } = out;
  let i = from;
  let prev = 0;
  let n = 0;
  while (i < to) {
    const b = bytes[i++]!;
    let gap: number;
    let len: number;
    if (b >= 0xc0) {
      // a pair of short tokens, one space apart
      const s1 = prev + 1;
      if (s1 >= stopChar) break;
      const e1 = s1 + ((b >>> 3) & 7) + 1;
      start[n] = s1;
      end[n] = e1;
      anchor[n] = 0;
      n++;
      const s2 = e1 + 1;
      prev = e1;
      if (s2 >= stopChar) break;
      prev = s2 + (b & 7) + 1;
      start[n] = s2;
      end[n] = prev;
      anchor[n] = 0;
      n++;
      continue;
    }
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
