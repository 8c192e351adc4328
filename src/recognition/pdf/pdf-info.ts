// Parses the document-level facts mutool prints: page boxes (`mutool pages`), the Info dictionary and
// encryption (`mutool info -M`), and the outline (`mutool show ... outline`). Pure text parsing.

/** One page's box in points, after /Rotate is applied (width and height swapped for 90 and 270). */
export interface PdfPageBox {
  readonly page: number;
  readonly width: number;
  readonly height: number;
  readonly rotate: number;
}

/** Document facts from the Info dictionary and trailer. */
export interface PdfDocumentInfo {
  readonly version: string | null;
  /** `Pages: N` as printed by mutool info; null when absent. */
  readonly pageCount: number | null;
  readonly encrypted: boolean;
  readonly metadata: Readonly<Record<string, string>>;
}

/** One outline (bookmark) entry. */
export interface PdfOutlineEntry {
  /** 1-based depth. */
  readonly depth: number;
  readonly title: string;
  /** Target page (1-based) when the entry points into the document. */
  readonly page: number | null;
}

/** A box element of `mutool pages` output: l, b, r, t. Built once, not once per page and tag. */
const boxRe = (tag: string): RegExp => new RegExp(`<${tag} l="([-\\d.e]+)" b="([-\\d.e]+)" r="([-\\d.e]+)" t="([-\\d.e]+)"`);
const CROP_BOX_RE = boxRe('CropBox');
const MEDIA_BOX_RE = boxRe('MediaBox');

/** Parses `mutool pages FILE` output (one `<page pagenum>` element with MediaBox/CropBox/Rotate each). */
export function parsePagesXml(text: string): PdfPageBox[] {
  const out: PdfPageBox[] = [];
  const pageRe = /<page pagenum="(\d+)">([\s\S]*?)<\/page>/g;
  for (const m of text.matchAll(pageRe)) {
    const body = m[2]!;
    // mutool prints "Failed to gather information" for pages it cannot load (and for page 0 of an empty tree).
    if (/Failed to gather/.test(body) || Number(m[1]) < 1) continue;
    const box = (re: RegExp): number[] | null => {
      const b = re.exec(body);
      return b ? b.slice(1, 5).map(Number) : null;
    };
    const [l, b, r, t] = box(CROP_BOX_RE) ?? box(MEDIA_BOX_RE) ?? [0, 0, 612, 792];
    const rot = /<Rotate v="(-?\d+)"/.exec(body);
    const rotate = (((rot ? Number(rot[1]) : 0) % 360) + 360) % 360;
    let width = Math.abs(r! - l!);
    let height = Math.abs(t! - b!);
    if (rotate === 90 || rotate === 270) [width, height] = [height, width];
    out.push({ page: Number(m[1]), width, height, rotate });
  }
  return out;
}

/** The `mutool show` paths {@link parseShowOutput} reads, in order (one process for all document facts). */
export const SHOW_PATHS = ['trailer/Info', 'trailer/Encrypt', 'trailer/Root/Pages/Count', 'outline'] as const;

/**
 * The `mutool show` paths {@link parseShowWithBoxes} reads: the document facts, then each page's own
 * MediaBox, CropBox and Rotate (`pages/*` walks the page tree in order), then the outline. One process
 * instead of `mutool show` plus `mutool pages`: like `mutool pages`, `pages/*` reads the page dictionary
 * itself (no inherited entries), so both give the same boxes.
 */
export const SHOW_PATHS_WITH_BOXES = ['trailer/Info', 'trailer/Encrypt', 'trailer/Root/Pages/Count', 'pages/*/MediaBox', 'pages/*/CropBox', 'pages/*/Rotate', 'outline'] as const;

/** Reads the values `mutool show` prints one after another (`null`, a number, `[ ... ]`, `<< ... >>`, `N 0 obj ... endobj`). */
class ShowReader {
  i = 0;
  constructor(readonly text: string) {}
  skipWs(): void {
    const t = this.text;
    while (this.i < t.length && /\s/.test(t[this.i]!)) this.i++;
  }
  /** Consumes one printed value; returns its source text. */
  value(): string {
    const text = this.text;
    this.skipWs();
    const start = this.i;
    const obj = /^\d+ \d+ obj\b/.exec(text.slice(this.i, this.i + 40));
    if (obj) {
      const end = text.indexOf('endobj', this.i);
      this.i = end < 0 ? text.length : end + 'endobj'.length;
      return text.slice(start, this.i);
    }
    if (text.startsWith('<<', this.i)) {
      let i = this.i;
      let depth = 0;
      while (i < text.length) {
        if (text.startsWith('<<', i)) {
          depth++;
          i += 2;
        } else if (text.startsWith('>>', i)) {
          depth--;
          i += 2;
          if (depth === 0) break;
        } else if (text[i] === '<') {
          // Skip a hex string: in compact output its closing '>' may touch the dictionary's '>>'.
          const end = text.indexOf('>', i + 1);
          i = end < 0 ? text.length : end + 1;
        } else if (text[i] === '(') {
          // Skip a literal string (parentheses inside it may be unbalanced only when escaped).
          let d = 0;
          for (; i < text.length; i++) {
            if (text[i] === '\\') {
              i++;
              continue;
            }
            if (text[i] === '(') d++;
            else if (text[i] === ')' && --d === 0) break;
          }
          i++;
        } else i++;
      }
      this.i = i;
      return text.slice(start, i);
    }
    while (this.i < text.length && text[this.i] !== '\n') this.i++;
    return text.slice(start, this.i).trim();
  }
  rest(): string {
    return this.text.slice(this.i);
  }
}

function documentInfo(info: string, encrypt: string, count: string, rest: string): PdfDocumentInfo & { readonly outline: PdfOutlineEntry[] } {
  const metadata: Record<string, string> = {};
  const dictStart = info.indexOf('<<');
  if (dictStart >= 0) for (const [k, v] of Object.entries(parseDictStrings(info, dictStart))) if (v.trim()) metadata[k] = v.trim();
  return {
    version: null,
    pageCount: /^\d+$/.test(count) ? Number(count) : null,
    encrypted: encrypt.includes('<<'),
    metadata,
    outline: parseOutline(rest),
  };
}

/**
 * Parses `mutool show FILE trailer/Info trailer/Encrypt trailer/Root/Pages/Count outline`: each object is
 * printed in turn (`null` when absent, `N 0 obj ... endobj` for an indirect one), then the outline lines.
 */
export function parseShowOutput(text: string): PdfDocumentInfo & { readonly outline: PdfOutlineEntry[] } {
  const r = new ShowReader(text);
  const info = r.value();
  const encrypt = r.value();
  const count = r.value();
  return documentInfo(info, encrypt, count, r.rest());
}

/** A printed box value: `[ l b r t ]`, possibly as an indirect object; null when absent, undefined when unreadable. */
function boxValue(v: string): number[] | null | undefined {
  const body = v.replace(/^\d+ \d+ obj\b/, '').replace(/endobj$/, '').trim();
  if (body === 'null') return null;
  const m = /^\[\s*([-+\d.e]+)\s+([-+\d.e]+)\s+([-+\d.e]+)\s+([-+\d.e]+)\s*\]$/.exec(body);
  if (!m) return undefined;
  const n = m.slice(1, 5).map(Number);
  return n.every(Number.isFinite) ? n : undefined;
}

/**
 * Parses the output of `mutool show FILE` with {@link SHOW_PATHS_WITH_BOXES}: the document facts as
 * {@link parseShowOutput} and the page boxes as {@link parsePagesXml} would give them. Returns null when
 * the output is not exactly one MediaBox, CropBox and Rotate value per counted page (a damaged page
 * tree, an unusual value): the caller then asks `mutool pages`.
 */
export function parseShowWithBoxes(text: string): (PdfDocumentInfo & { readonly outline: PdfOutlineEntry[]; readonly boxes: PdfPageBox[] }) | null {
  const r = new ShowReader(text);
  const info = r.value();
  const encrypt = r.value();
  const count = r.value();
  if (!/^\d+$/.test(count)) return null;
  const n = Number(count);
  if (n < 1 || n > 1_000_000) return null;
  const media: (number[] | null)[] = [];
  const crop: (number[] | null)[] = [];
  const rotation: number[] = [];
  for (const list of [media, crop]) {
    for (let k = 0; k < n; k++) {
      const b = boxValue(r.value());
      if (b === undefined) return null;
      list.push(b);
    }
  }
  for (let k = 0; k < n; k++) {
    const v = r.value().replace(/^\d+ \d+ obj\b/, '').replace(/endobj$/, '').trim();
    if (v === 'null') rotation.push(0);
    else if (/^-?\d+$/.test(v)) rotation.push(Number(v));
    else return null;
  }
  // The outline follows: its lines start with a depth marker, never with a value.
  const rest = r.rest();
  if (/^\s*(?:null|-?[\d[<])/.test(rest) && !/^\s*[|+-]\t/.test(rest)) return null;
  const boxes: PdfPageBox[] = [];
  for (let k = 0; k < n; k++) {
    const [l, b, rr, t] = crop[k] ?? media[k] ?? [0, 0, 612, 792];
    const rotate = ((rotation[k]! % 360) + 360) % 360;
    let width = Math.abs(rr! - l!);
    let height = Math.abs(t! - b!);
    if (rotate === 90 || rotate === 270) [width, height] = [height, width];
    boxes.push({ page: k + 1, width, height, rotate });
  }
  return { ...documentInfo(info, encrypt, count, rest), boxes };
}

/**
 * Reads `/Key (literal)` and `/Key <hex>` string entries of a PDF dictionary starting at `start`
 * (ISO 32000-1 7.3.4: literal strings with escapes and balanced parentheses, hex strings; text strings
 * are PDFDocEncoding or UTF-16BE with a byte-order mark, 7.9.2.2).
 */
export function parseDictStrings(text: string, start: number): Record<string, string> {
  const out: Record<string, string> = {};
  let i = start + 2;
  let depth = 1;
  while (i < text.length && depth > 0) {
    const c = text[i]!;
    if (c === '<' && text[i + 1] === '<') {
      depth++;
      i += 2;
    } else if (c === '>' && text[i + 1] === '>') {
      depth--;
      i += 2;
    } else if (c === '/' && depth === 1) {
      const km = /^\/([^\s/<>()[\]{}%]+)\s*/.exec(text.slice(i, i + 200));
      if (!km) {
        i++;
        continue;
      }
      const key = km[1]!;
      i += km[0].length;
      if (text[i] === '(') {
        const [bytes, next] = readLiteral(text, i);
        out[key] = decodeTextString(bytes);
        i = next;
      } else if (text[i] === '<' && text[i + 1] !== '<') {
        const end = text.indexOf('>', i);
        if (end < 0) break;
        const hex = text.slice(i + 1, end).replace(/\s/g, '');
        const bytes: number[] = [];
        for (let k = 0; k < hex.length; k += 2) bytes.push(parseInt(hex.slice(k, k + 2).padEnd(2, '0'), 16));
        out[key] = decodeTextString(bytes);
        i = end + 1;
      }
    } else i++;
  }
  return out;
}

function readLiteral(text: string, start: number): [number[], number] {
  const bytes: number[] = [];
  let i = start + 1;
  let depth = 1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\') {
      const n = text[i + 1] ?? '';
      const map: Record<string, number> = { n: 10, r: 13, t: 9, b: 8, f: 12, '(': 40, ')': 41, '\\': 92 };
      if (n in map) {
        bytes.push(map[n]!);
        i += 2;
      } else if (/[0-7]/.test(n)) {
        const oct = /^[0-7]{1,3}/.exec(text.slice(i + 1, i + 4))![0];
        bytes.push(parseInt(oct, 8) & 0xff);
        i += 1 + oct.length;
      } else if (n === '\n') i += 2;
      else {
        i += 1;
      }
      continue;
    }
    if (c === '(') depth++;
    if (c === ')') {
      depth--;
      if (depth === 0) return [bytes, i + 1];
    }
    const code = c.charCodeAt(0);
    // mutool prints non-ASCII bytes of literal strings as they are; keep code points below 256 as bytes.
    if (code < 256) bytes.push(code);
    else for (const b of Buffer.from(c, 'utf8')) bytes.push(b);
    i++;
  }
  return [bytes, i];
}

function decodeTextString(bytes: number[]): string {
  if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    let s = '';
    for (let i = 2; i + 1 < bytes.length; i += 2) s += String.fromCharCode((bytes[i]! << 8) | bytes[i + 1]!);
    return s.replace(/\u0000/g, '');
  }
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return Buffer.from(bytes.slice(3)).toString('utf8');
  // PDFDocEncoding matches Latin-1 for the printable range that matters for titles.
  return String.fromCharCode(...bytes).replace(/\u0000/g, '');
}

/**
 * Parses `mutool show FILE outline`: one line per entry, a marker (`|` a leaf, `+`/`-` an entry with
 * children, closed or open), one tab per depth level, the quoted title (C escapes), a tab and the target.
 * A run of markers (`||`) is also read as the depth.
 */
export function parseOutline(text: string): PdfOutlineEntry[] {
  const out: PdfOutlineEntry[] = [];
  for (const raw of text.split('\n')) {
    const m = /^([|+-]*)([\t ]*)"((?:[^"\\]|\\.)*)"\t?(.*)$/.exec(raw.replace(/\r$/, ''));
    if (!m) continue;
    const markers = m[1]!.length;
    const tabs = (m[2]!.match(/\t/g) ?? []).length;
    const depth = Math.max(1, markers > 1 ? markers : tabs);
    const title = m[3]!
      .replace(/\\(.)/g, (_, c: string) => (c === 'n' || c === 'r' || c === 't' ? ' ' : c))
      .replace(/\s+/g, ' ')
      .trim();
    const pm = /#page=(\d+)/.exec(m[4] ?? '');
    if (title) out.push({ depth, title, page: pm ? Number(pm[1]) : null });
  }
  return out;
}
