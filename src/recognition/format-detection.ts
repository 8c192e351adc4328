// Format detection from content only (never the file name): the guide's rules, see docs/recognition.md.
//   PDF:  `%PDF-` within the first 1 KiB (ISO 32000-1 7.5.2 allows leading garbage, readers scan for it);
//   EPUB: a ZIP archive that is an OCF container as reading systems open it (ADR 0235): the fast path is
//         the first entry `mimetype` holding `application/epub+zip` (EPUB OCF 3.3, section 4.3), but the
//         entry order is not required by readers, so a ZIP whose central directory lists `mimetype` (with
//         that type, where it can be read) or `META-INF/container.xml` is an EPUB too, whatever the order;
//   DJVU: `AT&T` then an IFF `FORM` chunk of type `DJVU` (single page) or `DJVM` (bundled multi-page).

/** Formats the converter reads. */
export type DocumentFormat = 'pdf' | 'epub' | 'djvu';

const ascii = (bytes: Uint8Array, start: number, end: number): string => {
  let s = '';
  for (let i = start; i < Math.min(end, bytes.length); i++) s += String.fromCharCode(bytes[i]!);
  return s;
};
const u16 = (b: Uint8Array, i: number): number => b[i]! | (b[i + 1]! << 8);
const u32 = (b: Uint8Array, i: number): number => (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16)) + b[i + 3]! * 0x1000000;
const EPUB_TYPE = 'application/epub+zip';

/** Detects the format from the whole file; null when it is none of PDF, EPUB or DJVU. */
export function detectFormat(bytes: Uint8Array): DocumentFormat | null {
  if (ascii(bytes, 0, 1024).includes('%PDF-')) return 'pdf';
  if (isZip(bytes) && (firstEntryIsEpubMimetype(bytes) || epubByWholeArchive(bytes))) return 'epub';
  const head = ascii(bytes, 0, 16);
  if (head.startsWith('AT&TFORM') && (head.slice(12, 16) === 'DJVU' || head.slice(12, 16) === 'DJVM')) return 'djvu';
  return null;
}

/** A ZIP local file header at the start (PK\3\4). */
export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 30 && ascii(bytes, 0, 4) === 'PK\u0003\u0004';
}

/** The fast path: the first entry is `mimetype` and its data holds the EPUB media type. */
function firstEntryIsEpubMimetype(bytes: Uint8Array): boolean {
  // Local file header: name length at 26, extra length at 28, name at 30 (APPNOTE 4.3.7).
  const nameLen = u16(bytes, 26);
  const extraLen = u16(bytes, 28);
  if (ascii(bytes, 30, 30 + nameLen) !== 'mimetype') return false;
  const dataStart = 30 + nameLen + extraLen;
  // Some producers compress or pad the entry; accept the type anywhere in the first bytes of its data.
  return ascii(bytes, dataStart, dataStart + 64).includes(EPUB_TYPE);
}

/** Where the central directory lies, from the end of central directory record (APPNOTE 4.3.16). */
export interface ZipDirectory {
  readonly offset: number;
  readonly size: number;
}

/** Bytes at the end of a ZIP that always hold its end record (22 bytes plus the longest comment). */
export const ZIP_TAIL_BYTES = 22 + 0xffff;

/**
 * Finds the central directory from the archive's last bytes (`tail`, the last `tail.length` bytes of a
 * file of `fileSize` bytes). Null when there is no end record, the directory is past the file, or the
 * archive is ZIP64 (an EPUB under the upload limits never needs it).
 */
export function locateZipDirectory(tail: Uint8Array, fileSize: number): ZipDirectory | null {
  for (let i = tail.length - 22; i >= Math.max(0, tail.length - ZIP_TAIL_BYTES); i--) {
    if (tail[i] !== 0x50 || tail[i + 1] !== 0x4b || tail[i + 2] !== 0x05 || tail[i + 3] !== 0x06) continue;
    // The comment must end at the end of the file.
    if (i + 22 + u16(tail, i + 20) !== tail.length) continue;
    const size = u32(tail, i + 12);
    const offset = u32(tail, i + 16);
    if (offset === 0xffffffff || size === 0xffffffff) return null;
    const endAt = fileSize - (tail.length - i);
    if (offset + size > endAt) return null;
    return { offset, size };
  }
  return null;
}

/** One central directory entry: name, compression method and local header offset. */
export interface ZipEntryInfo {
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly localOffset: number;
}

/** Lists the central directory (stops at the first malformed record). */
export function zipDirectoryEntries(cd: Uint8Array): ZipEntryInfo[] {
  const out: ZipEntryInfo[] = [];
  let i = 0;
  while (i + 46 <= cd.length && u32(cd, i) === 0x02014b50) {
    const nameLen = u16(cd, i + 28);
    const next = i + 46 + nameLen + u16(cd, i + 30) + u16(cd, i + 32);
    if (next > cd.length) break;
    out.push({ name: new TextDecoder().decode(cd.subarray(i + 46, i + 46 + nameLen)), method: u16(cd, i + 10), compressedSize: u32(cd, i + 20), localOffset: u32(cd, i + 42) });
    i = next;
  }
  return out;
}

/**
 * Whether a central directory is an EPUB's: it lists `mimetype` or `META-INF/container.xml` (what a reading
 * system opens). `mimetypeData`, when given, reads a stored `mimetype` entry's data; a readable one that
 * names another type (an OpenDocument file, say) is not an EPUB.
 */
export function epubByDirectory(entries: readonly ZipEntryInfo[], mimetypeData?: (entry: ZipEntryInfo) => string | null): boolean {
  const mimetype = entries.find((e) => e.name === 'mimetype');
  if (mimetype && mimetypeData && mimetype.method === 0) {
    const data = mimetypeData(mimetype);
    if (data !== null) return data.includes(EPUB_TYPE);
  }
  return !!mimetype || entries.some((e) => e.name === 'META-INF/container.xml');
}

/** The whole archive in memory: its central directory, and a stored `mimetype` read in place. */
function epubByWholeArchive(bytes: Uint8Array): boolean {
  const dir = locateZipDirectory(bytes.subarray(Math.max(0, bytes.length - ZIP_TAIL_BYTES)), bytes.length);
  if (!dir) return false;
  const entries = zipDirectoryEntries(bytes.subarray(dir.offset, dir.offset + dir.size));
  return epubByDirectory(entries, (e) => {
    const at = e.localOffset;
    if (at + 30 > bytes.length || u32(bytes, at) !== 0x04034b50) return null;
    const start = at + 30 + u16(bytes, at + 26) + u16(bytes, at + 28);
    return ascii(bytes, start, start + Math.min(e.compressedSize, 64));
  });
}
