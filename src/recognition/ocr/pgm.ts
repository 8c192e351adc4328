// Minimal binary PGM (P5, 8-bit) reading, rotation and writing, so a rendered page can be turned by
// 90/180/270 degrees in memory instead of being rendered again (netpbm pgm(5) format).

/** An 8-bit grayscale raster. */
export interface GrayImage {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

/** Parses a binary P5 PGM with maxval <= 255; null when the bytes are not one. */
export function parsePgm(bytes: Uint8Array): GrayImage | null {
  let pos = 0;
  const token = (): string | null => {
    for (;;) {
      while (pos < bytes.length && /\s/.test(String.fromCharCode(bytes[pos]!))) pos++;
      if (bytes[pos] === 0x23) {
        while (pos < bytes.length && bytes[pos] !== 0x0a) pos++;
        continue;
      }
      break;
    }
    let s = '';
    while (pos < bytes.length && !/\s/.test(String.fromCharCode(bytes[pos]!))) s += String.fromCharCode(bytes[pos++]!);
    return s || null;
  };
  if (token() !== 'P5') return null;
  const width = Number(token());
  const height = Number(token());
  const max = Number(token());
  pos++; // the single whitespace after maxval
  if (!(width > 0 && height > 0 && max > 0 && max < 256)) return null;
  if (bytes.length - pos < width * height) return null;
  return { width, height, data: bytes.subarray(pos, pos + width * height) };
}

/** Rotates clockwise by 90, 180 or 270 degrees (0 returns the image itself). */
export function rotateGray(img: GrayImage, degrees: number): GrayImage {
  const d = ((degrees % 360) + 360) % 360;
  if (d === 0) return img;
  const { width: w, height: h, data } = img;
  const out = new Uint8Array(w * h);
  if (d === 180) {
    for (let i = 0, n = w * h; i < n; i++) out[n - 1 - i] = data[i]!;
    return { width: w, height: h, data: out };
  }
  // 90 clockwise: source (x, y) goes to (h - 1 - y, x) in a w-high, h-wide image; 270 is the mirror case.
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      const v = data[row + x]!;
      if (d === 90) out[x * h + (h - 1 - y)] = v;
      else out[(w - 1 - x) * h + y] = v;
    }
  }
  return { width: h, height: w, data: out };
}

/** Encodes a P5 PGM. */
export function encodePgm(img: GrayImage): Uint8Array {
  const header = new TextEncoder().encode(`P5\n${img.width} ${img.height}\n255\n`);
  const out = new Uint8Array(header.length + img.data.length);
  out.set(header, 0);
  out.set(img.data, header.length);
  return out;
}

/** Halves width and height by averaging 2x2 blocks. */
export function halveGray(img: GrayImage): GrayImage {
  const w = Math.max(1, img.width >> 1);
  const h = Math.max(1, img.height >> 1);
  const out = new Uint8Array(w * h);
  const src = img.data;
  const sw = img.width;
  for (let y = 0; y < h; y++) {
    const r0 = 2 * y * sw;
    const r1 = Math.min(2 * y + 1, img.height - 1) * sw;
    for (let x = 0; x < w; x++) {
      const c = 2 * x;
      const c1 = Math.min(c + 1, sw - 1);
      out[y * w + x] = (src[r0 + c]! + src[r0 + c1]! + src[r1 + c]! + src[r1 + c1]! + 2) >> 2;
    }
  }
  return { width: w, height: h, data: out };
}
