// Format detection from content only (never the file name): the guide's rules, see docs/recognition.md.
//   PDF:  `%PDF-` within the first 1 KiB (ISO 32000-1 7.5.2 allows leading garbage, readers scan for it);
//   EPUB: a ZIP local file header whose first entry is `mimetype` containing `application/epub+zip`
//         (EPUB OCF 3.3, section 4.3: stored first, uncompressed);
//   DJVU: `AT&T` then an IFF `FORM` chunk of type `DJVU` (single page) or `DJVM` (bundled multi-page).

/** Formats the converter reads. */
export type DocumentFormat = 'pdf' | 'epub' | 'djvu';

const ascii = (bytes: Uint8Array, start: number, end: number): string => {
  let s = '';
  for (let i = start; i < Math.min(end, bytes.length); i++) s += String.fromCharCode(bytes[i]!);
  return s;
};

/** Detects the format from the first bytes; null when it is none of PDF, EPUB or DJVU. */
export function detectFormat(bytes: Uint8Array): DocumentFormat | null {
  if (ascii(bytes, 0, 1024).includes('%PDF-')) return 'pdf';
  if (isEpub(bytes)) return 'epub';
  const head = ascii(bytes, 0, 16);
  if (head.startsWith('AT&TFORM') && (head.slice(12, 16) === 'DJVU' || head.slice(12, 16) === 'DJVM')) return 'djvu';
  return null;
}

function isEpub(bytes: Uint8Array): boolean {
  // Local file header: signature PK\3\4, name length at 26, extra length at 28, name at 30 (APPNOTE 4.3.7).
  if (bytes.length < 30 || ascii(bytes, 0, 4) !== 'PK\u0003\u0004') return false;
  const nameLen = bytes[26]! | (bytes[27]! << 8);
  const extraLen = bytes[28]! | (bytes[29]! << 8);
  if (ascii(bytes, 30, 30 + nameLen) !== 'mimetype') return false;
  const dataStart = 30 + nameLen + extraLen;
  // Some producers compress or pad the entry; accept the type anywhere in the first bytes of its data.
  return ascii(bytes, dataStart, dataStart + 64).includes('application/epub+zip');
}
