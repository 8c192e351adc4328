// Reading the EPUB container (EPUB 3.3 OCF): the ZIP directory with size and entry limits (a zip bomb
// cannot exhaust memory), `META-INF/container.xml` to find the package document, and
// `META-INF/encryption.xml` / `rights.xml` to tell DRM from font obfuscation.
import { unzipSync } from 'fflate';
import { RecognitionError } from '../errors.js';

/** Font obfuscation algorithms (IDPF, EPUB OCF 3.3 section 4.5; Adobe): they hide fonts, not text. */
const FONT_OBFUSCATION = new Set(['http://www.idpf.org/2008/embedding', 'http://ns.adobe.com/pdf/enc#RC']);

/** An opened archive: entry names and lazy extraction. */
export class EpubArchive {
  readonly names: ReadonlySet<string>;
  readonly #bytes: Uint8Array;
  readonly #maxEntry: number;
  readonly #maxTotal: number;
  /** Bytes extracted so far (all reads together). */
  #extracted = 0;

  private constructor(bytes: Uint8Array, names: Set<string>, maxEntry: number, maxTotal: number) {
    this.#bytes = bytes;
    this.names = names;
    this.#maxEntry = maxEntry;
    this.#maxTotal = maxTotal;
  }

  /**
   * Lists the archive, enforcing `maxEntries`, `maxUncompressed` (bytes in all) and `maxEntry` (bytes per
   * entry), as the archive declares them; reads check the extracted sizes again (fflate extracts into a
   * buffer of the declared size, so a lying entry cannot grow past it, and repeated reads are counted).
   */
  static open(bytes: Uint8Array, maxEntries: number, maxUncompressed: number, maxEntry = maxUncompressed): EpubArchive {
    const names = new Set<string>();
    let total = 0;
    try {
      unzipSync(bytes, {
        filter(f) {
          names.add(f.name);
          total += f.originalSize;
          if (names.size > maxEntries) throw new RecognitionError('document_too_large', `the EPUB archive has more than ${maxEntries} entries`);
          if (f.originalSize > maxEntry) throw new RecognitionError('document_too_large', `the EPUB entry ${f.name.slice(0, 100)} expands to ${f.originalSize} bytes; the limit per entry is ${maxEntry}`);
          if (total > maxUncompressed) throw new RecognitionError('document_too_large', `the EPUB archive expands to more than ${maxUncompressed} bytes`);
          return false;
        },
      });
    } catch (e) {
      if (e instanceof RecognitionError) throw e;
      throw new RecognitionError('damaged_document', 'the EPUB archive is damaged (its ZIP directory cannot be read)');
    }
    return new EpubArchive(bytes, names, maxEntry, maxUncompressed);
  }

  /** Extracts some entries; missing or undecodable ones are absent from the result. */
  read(wanted: readonly string[]): Map<string, Uint8Array> {
    const want = new Set(wanted.filter((w) => this.names.has(w)));
    const out = new Map<string, Uint8Array>();
    if (!want.size) return out;
    const filter = (f: { name: string; originalSize: number; compression: number }) => {
      if (!want.has(f.name)) return false;
      if (f.originalSize > this.#maxEntry) throw new RecognitionError('document_too_large', `the EPUB entry ${f.name.slice(0, 100)} is larger than ${this.#maxEntry} bytes`);
      return f.compression === 0 || f.compression === 8;
    };
    try {
      const files = unzipSync(this.#bytes, { filter });
      for (const [k, v] of Object.entries(files)) out.set(k, this.#count(k, v));
    } catch (e) {
      if (e instanceof RecognitionError) throw e;
      // Extract one by one so a single corrupt entry does not hide the others.
      for (const name of want) {
        try {
          const one = unzipSync(this.#bytes, { filter: (f) => filter(f) && f.name === name });
          const v = one[name];
          if (v) out.set(name, this.#count(name, v));
        } catch (e2) {
          if (e2 instanceof RecognitionError) throw e2;
          /* left out: reported by the caller as missing */
        }
      }
    }
    return out;
  }

  /** Counts extracted bytes against the limits (an entry read many times counts each time). */
  #count(name: string, v: Uint8Array): Uint8Array {
    if (v.byteLength > this.#maxEntry) throw new RecognitionError('document_too_large', `the EPUB entry ${name.slice(0, 100)} is larger than ${this.#maxEntry} bytes`);
    this.#extracted += v.byteLength;
    if (this.#extracted > this.#maxTotal) throw new RecognitionError('document_too_large', `the EPUB content extracted so far exceeds ${this.#maxTotal} bytes`);
    return v;
  }

  /** Reads one entry as UTF-8 text (null when absent). */
  text(name: string): string | null {
    const b = this.read([name]).get(name);
    return b ? new TextDecoder('utf-8').decode(b) : null;
  }
}

/** What encryption.xml and rights.xml say. */
export interface EpubProtection {
  /** Resources encrypted with a real cipher (DRM): archive paths. */
  readonly encrypted: string[];
  /** Resources under font obfuscation only. */
  readonly obfuscatedFonts: string[];
  /** A rights.xml (Adobe ADEPT and similar DRM) is present. */
  readonly rightsFile: boolean;
}

/** Reads `META-INF/encryption.xml` (XML Encryption EncryptedData entries) and checks for `rights.xml`. */
export function readProtection(archive: EpubArchive): EpubProtection {
  const xml = archive.text('META-INF/encryption.xml') ?? '';
  const encrypted: string[] = [];
  const obfuscatedFonts: string[] = [];
  for (const m of xml.matchAll(/<(?:\w+:)?EncryptedData\b[\s\S]*?<\/(?:\w+:)?EncryptedData>/g)) {
    const alg = /<(?:\w+:)?EncryptionMethod[^>]*Algorithm="([^"]+)"/.exec(m[0])?.[1] ?? '';
    const uri = /<(?:\w+:)?CipherReference[^>]*URI="([^"]+)"/.exec(m[0])?.[1] ?? '';
    if (!uri) continue;
    const path = decodeURIComponent(uri);
    (FONT_OBFUSCATION.has(alg) ? obfuscatedFonts : encrypted).push(path);
  }
  return { encrypted, obfuscatedFonts, rightsFile: archive.names.has('META-INF/rights.xml') };
}

/** The package document path from `META-INF/container.xml`. */
export function packagePath(archive: EpubArchive): string {
  const xml = archive.text('META-INF/container.xml');
  const path = xml ? /<(?:\w+:)?rootfile\b[^>]*full-path="([^"]+)"/.exec(xml)?.[1] : undefined;
  if (path && archive.names.has(path)) return path;
  // Non-conforming books without a container: fall back to the only .opf file, if there is one.
  const opfs = [...archive.names].filter((n) => n.toLowerCase().endsWith('.opf'));
  if (opfs.length === 1) return opfs[0]!;
  throw new RecognitionError('damaged_document', 'the EPUB has no readable package document (META-INF/container.xml)');
}
