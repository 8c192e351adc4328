// Builds small EPUB 3 archives in memory for tests (OCF: `mimetype` stored first, container.xml, OPF; or
// in another entry order, as real books come).
import { strToU8, zipSync, type Zippable } from 'fflate';

/** One chapter: its file name and XHTML body. */
export interface ChapterSpec {
  readonly file: string;
  readonly body: string;
}

/** Options of {@link buildEpub}. */
export interface EpubSpec {
  readonly title?: string;
  readonly creators?: readonly string[];
  readonly language?: string;
  readonly chapters: readonly ChapterSpec[];
  /** Spine entries pointing to manifest items whose files are not in the archive. */
  readonly missingInSpine?: readonly string[];
  /** Extra archive entries (e.g. META-INF/encryption.xml, images). */
  readonly extra?: Readonly<Record<string, string | Uint8Array>>;
  /**
   * ZIP entry order: `mimetype` first (the OCF rule), `sorted` (by name, as `zip -r` and many build tools
   * write it: `META-INF/` first, `mimetype` last), or `reversed` (every entry in reverse order).
   */
  readonly order?: 'ocf' | 'sorted' | 'reversed';
  /** List each chapter this many times in manifest and spine, as `file.xhtml#partN` ids (default 1). */
  readonly fragmentsPerChapter?: number;
}

const xhtml = (body: string): string =>
  `<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>x</title><style>p{}</style></head><body>${body}</body></html>`;

/** Serialises an EPUB. */
export function buildEpub(spec: EpubSpec): Uint8Array {
  const parts = Array.from({ length: spec.fragmentsPerChapter ?? 1 }, (_, k) => k);
  const id = (i: number, k: number) => (k === 0 ? `c${i}` : `c${i}p${k}`);
  const items = spec.chapters.flatMap((c, i) => parts.map((k) => `<item id="${id(i, k)}" href="text/${c.file}${k === 0 ? '' : `#part${k}`}" media-type="application/xhtml+xml"/>`));
  const missing = (spec.missingInSpine ?? []).map((f, i) => `<item id="m${i}" href="text/${f}" media-type="application/xhtml+xml"/>`);
  const spine = [...spec.chapters.flatMap((_, i) => parts.map((k) => `<itemref idref="${id(i, k)}"/>`)), ...(spec.missingInSpine ?? []).map((_, i) => `<itemref idref="m${i}"/>`)];
  const opf = `<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">urn:isbn:9780000000002</dc:identifier>
    <dc:title>${spec.title ?? 'A Test Book'}</dc:title>
    ${(spec.creators ?? ['Ada Author']).map((c) => `<dc:creator>${c}</dc:creator>`).join('\n    ')}
    <dc:language>${spec.language ?? 'en-GB'}</dc:language>
    <dc:publisher>Test Press</dc:publisher>
  </metadata>
  <manifest>${[...items, ...missing].join('')}<item id="img" href="images/fig.png" media-type="image/png"/></manifest>
  <spine>${spine.join('')}</spine>
</package>`;
  const files: Zippable = {
    mimetype: [strToU8('application/epub+zip'), { level: 0 }],
    'META-INF/container.xml': strToU8(
      '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>',
    ),
    'OEBPS/content.opf': strToU8(opf),
  };
  for (const c of spec.chapters) files[`OEBPS/text/${c.file}`] = strToU8(xhtml(c.body));
  for (const [k, v] of Object.entries(spec.extra ?? {})) files[k] = typeof v === 'string' ? strToU8(v) : v;
  const names = Object.keys(files);
  const order = spec.order ?? 'ocf';
  if (order === 'ocf') return zipSync(files);
  const ordered = order === 'sorted' ? [...names].sort() : [...names].reverse();
  return zipSync(Object.fromEntries(ordered.map((n) => [n, files[n]!])));
}

/** encryption.xml listing resources with an algorithm (AES for DRM, the IDPF URI for font obfuscation). */
export function encryptionXml(entries: readonly { uri: string; algorithm: string }[]): string {
  return `<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">${entries
    .map((e) => `<enc:EncryptedData><enc:EncryptionMethod Algorithm="${e.algorithm}"/><enc:CipherData><enc:CipherReference URI="${e.uri}"/></enc:CipherData></enc:EncryptedData>`)
    .join('')}</encryption>`;
}
