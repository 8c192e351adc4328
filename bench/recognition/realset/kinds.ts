// Builds the real development set's second manifest, bench/recognition/realset/kinds.json (issue 28, ADR 0338):
// the kinds of document devset.json lacks, where conversion fails. Checks always come from the sources,
// never from a converter's output. Run after fetch.sh and fetch-kinds.sh:
//   node dist/bench/recognition/realset/kinds.js --root WORK/root --work WORK/kinds [--scans 40]
// Kinds:
//   scan-pdf   a real document of 2-5 pages from devset.json, rendered with pdftoppm and degraded with
//              ImageMagick (dpi, skew, blur, noise, JPEG quality: one of four levels, by the path's hash),
//              assembled into an image-only PDF with img2pdf; its checks are its source document's checks
//              (every page is scanned, so every check's text is on the pages);
//   scan-djvu  the same, as DJVU (c44 for grey pages, cjb2 for bilevel ones, djvm -c to bundle);
//   scan-djvu-tool  the same documents and degraded pages as scan-djvu, encoded as the tools do by default
//              (ADR 0373's amendment): bilevel pages by `cjb2` (lossless, its default), grey pages as compound
//              pages by `csepdjvu` (the page's bitmap as a JB2 mask at the scan's resolution over the page as
//              an IW44 background at a third of it, default quality); only the input's dpi is passed;
//   slides     beamer PDFs in the TeX Live documentation that devset.json does not list (checks from the
//              LaTeX source, build.ts's rule);
//   epub       the real EPUB books in Debian's packages (checks from their XHTML: headings h1-h3, word
//              runs of <p> text in spine order);
//   office-pdf PDFs made by a non-TeX producer: ReportLab's own Odyssey examples (python-reportlab-doc,
//              run with python3-reportlab as /usr/bin/python3), checks from the text file they typeset;
//   wordproc   ODT and DOCX documents in Debian's packages (manuals, user guides, samples), converted to PDF
//              by LibreOffice headless; checks from their own XML (wordproc.ts, ADR 0360).
// --only KINDS rebuilds those kinds (scan, scan-tool, slides, epub, office, wordproc) and keeps the manifest's other
// entries as they are (a rebuild on other tools would rewrite their hashes).
// Split: a derived file takes its source document's split (a document and its scan never fall on two
// sides); the others take build.ts's rule (first byte of sha256(path) even: tune).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { repoRoot } from '../../../test/helpers/paths.js';
import { checksFromTex, packageIndex, wordBag, type RealCheck, type RealDocument } from './build.js';
import { docxSource, odtSource, wordprocChecks } from './wordproc.js';

export type KindName = 'scan-pdf' | 'scan-djvu' | 'scan-djvu-tool' | 'slides' | 'epub' | 'office-pdf' | 'wordproc';

/** One document of kinds.json. `file` is where the bench reads it: under the realset root or the kinds work folder. */
export interface KindDocument {
  readonly kind: KindName;
  /** `root`: the installed path under WORK/root; `kinds`: a file this script made under WORK/kinds. */
  readonly base: 'root' | 'kinds';
  readonly file: string;
  /** The Debian package (and version) the document or its source comes from. */
  readonly package: string;
  readonly version: string;
  /** The installed document it is made from (derived files) or the document itself. */
  readonly from: string;
  readonly source: string;
  /** How a derived file was made (scans): dpi, skew, blur, noise, JPEG quality, encoder. */
  readonly made?: Readonly<Record<string, string | number>>;
  readonly sha256: string;
  readonly bytes: number;
  readonly pages: number;
  readonly split: 'tune' | 'report';
  readonly checks: readonly RealCheck[];
}

const here = join(repoRoot, 'bench', 'recognition', 'realset');
const sha = (b: Uint8Array | string): Buffer => createHash('sha256').update(b).digest();
const splitOf = (path: string): 'tune' | 'report' => (sha(path)[0]! % 2 === 0 ? 'tune' : 'report');

/** The four degradation levels of a scan (0: a good 300 dpi scan; 3: a poor 100 dpi one). */
export const SCAN_LEVELS = [
  { dpi: 300, skew: 0.4, blur: 0, noise: 0, quality: 90 },
  { dpi: 200, skew: -1.2, blur: 0.6, noise: 0.3, quality: 70 },
  { dpi: 150, skew: 2, blur: 0.9, noise: 0.6, quality: 45 },
  { dpi: 100, skew: -3, blur: 1.1, noise: 1, quality: 30 },
] as const;

const run = (cmd: string, args: readonly string[], cwd?: string): Buffer =>
  execFileSync(cmd, args as string[], { cwd, maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * csepdjvu(1)'s "Bitonal RLE format" (R4) of a raw PBM (P4): per row, alternating white and black run lengths
 * starting with white, 0-191 in one byte, 192-16383 in two (0xc0 | high six bits, low eight bits).
 */
export function pbmToR4(pbm: Uint8Array): Buffer {
  let pos = 0;
  const fields: number[] = [];
  const magic = String.fromCharCode(pbm[0]!, pbm[1]!);
  if (magic !== 'P4') throw new Error(`not a raw PBM: ${magic}`);
  pos = 2;
  while (fields.length < 2) {
    while (pbm[pos] === 0x23 || /\s/.test(String.fromCharCode(pbm[pos]!))) {
      if (pbm[pos] === 0x23) while (pbm[pos] !== 0x0a) pos++;
      pos++;
    }
    let n = 0;
    while (pbm[pos]! >= 0x30 && pbm[pos]! <= 0x39) n = n * 10 + pbm[pos++]! - 0x30;
    fields.push(n);
  }
  pos++; // the one whitespace after the height
  const [w, h] = fields as [number, number];
  const stride = Math.ceil(w / 8);
  const out: number[] = [...Buffer.from(`R4\n${w} ${h}\n`)];
  const put = (len: number) => {
    for (; len > 16383; len -= 16383) out.push(0xff, 0xff, 0); // a longer run, split by an empty black one
    if (len < 192) out.push(len);
    else out.push(0xc0 | (len >> 8), len & 0xff);
  };
  for (let y = 0; y < h; y++) {
    const row = pos + y * stride;
    let black = false;
    let run = 0;
    for (let x = 0; x < w; x++) {
      const bit = (pbm[row + (x >> 3)]! >> (7 - (x & 7))) & 1; // PBM: 1 is black
      if ((bit === 1) !== black) {
        put(run);
        black = !black;
        run = 0;
      }
      run++;
    }
    put(run);
  }
  return Buffer.from(out);
}

/** Renders, degrades and assembles one scan; returns the file's name under `outDir`. */
function makeScan(pdf: string, outDir: string, name: string, level: number, djvu: boolean, bilevel: boolean, tool = false): Record<string, string | number> {
  const L = SCAN_LEVELS[level]!;
  const tmp = join(outDir, `.tmp-${name}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  run('pdftoppm', ['-r', String(L.dpi), '-gray', pdf, join(tmp, 'p')]);
  const pages = readdirSync(tmp).filter((n) => n.endsWith('.pgm')).sort();
  const outs: string[] = [];
  for (const p of pages) {
    const stem = join(tmp, p.slice(0, -4));
    const ops = ['-seed', '7', join(tmp, p), '-background', 'white', '-rotate', String(L.skew)];
    if (L.blur) ops.push('-blur', `0x${L.blur}`);
    if (L.noise) ops.push('-attenuate', String(L.noise), '+noise', 'Gaussian');
    ops.push('-colorspace', 'Gray', '-quality', String(L.quality), `${stem}.jpg`);
    run('convert', ops);
    if (!djvu) outs.push(`${stem}.jpg`);
    else if (tool && bilevel) {
      // The same bitmap as scan-djvu's, encoded lossless (cjb2's default).
      run('convert', [`${stem}.jpg`, '-threshold', '55%', `${stem}.pbm`]);
      run('cjb2', ['-dpi', String(L.dpi), `${stem}.pbm`, `${stem}.djvu`]);
      outs.push(`${stem}.djvu`);
    } else if (tool) {
      // A compound page: that bitmap as the mask, the page reduced by 3 as the background (csepdjvu's format).
      run('convert', [`${stem}.jpg`, '-threshold', '55%', `${stem}.pbm`]);
      const [w, h] = run('identify', ['-format', '%w %h', `${stem}.jpg`]).toString('utf8').trim().split(' ').map(Number) as [number, number];
      run('convert', [`${stem}.jpg`, '-resize', `${Math.ceil(w / 3)}x${Math.ceil(h / 3)}!`, `${stem}.bg.ppm`]);
      writeFileSync(`${stem}.sep`, Buffer.concat([pbmToR4(readFileSync(`${stem}.pbm`)), readFileSync(`${stem}.bg.ppm`)]));
      outs.push(`${stem}.sep`);
    } else if (bilevel) {
      run('convert', [`${stem}.jpg`, '-threshold', '55%', `${stem}.pbm`]);
      run('cjb2', ['-dpi', String(L.dpi), '-lossy', `${stem}.pbm`, `${stem}.djvu`]);
      outs.push(`${stem}.djvu`);
    } else {
      run('convert', [`${stem}.jpg`, `${stem}.pgm`]);
      run('c44', ['-dpi', String(L.dpi), '-slice', level >= 2 ? '60+10+5' : '74+13+10', `${stem}.pgm`, `${stem}.djvu`]);
      outs.push(`${stem}.djvu`);
    }
  }
  const file = join(outDir, name);
  if (tool && !bilevel) run('csepdjvu', ['-d', String(L.dpi), ...outs, file]);
  else if (djvu) run('djvm', ['-c', file, ...outs]);
  else run('img2pdf', ['--pagesize', 'A4', '-o', file, ...outs]);
  rmSync(tmp, { recursive: true, force: true });
  return scanSettings(level, djvu, bilevel, tool);
}

/** How a scan is made, as kinds.json records it. */
export function scanSettings(level: number, djvu: boolean, bilevel: boolean, tool = false): Record<string, string | number> {
  const L = SCAN_LEVELS[level]!;
  const encoder = !djvu
    ? 'img2pdf (JPEG)'
    : tool
      ? bilevel
        ? 'cjb2 (lossless, its default), 55% threshold'
        : 'csepdjvu (defaults: -q 72,83,93,103): 55% threshold as JB2 mask at the dpi, the page at 1/3 as IW44 background'
      : bilevel
        ? 'cjb2 -lossy'
        : 'c44';
  return { level, dpi: L.dpi, skew: L.skew, blur: L.blur, noise: L.noise, jpegQuality: L.quality, encoder };
}

/** Decodes the few HTML entities the books use. */
const decode = (s: string): string =>
  s
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&nbsp;/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const stripTags = (s: string): string => decode(s.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').trim();

/** Runs of 6..12 words of letters in plain text, cut at every character that is neither a letter nor a space. */
export function plainWordRuns(text: string): string[] {
  const out: string[] = [];
  for (const piece of text.split(/[^\p{L}\s]+/u)) {
    const words = piece.split(/\s+/).filter(Boolean);
    if (words.length >= 6) out.push(words.slice(0, 12).join(' '));
  }
  return out;
}

const PLAIN_TITLE = /^[\p{L}][\p{L}\p{N} ,.:'()-]{2,80}$/u;

/** Checks from plain paragraphs and headings in reading order (EPUB XHTML, a typeset text file). */
export function checksFromParagraphs(paragraphs: readonly string[], headings: readonly string[], bag: ReadonlySet<string> | null, nPresent = 12): RealCheck[] {
  const checks: RealCheck[] = [];
  const inBag = (r: string) => !bag || r.split(' ').every((w) => bag.has(w.toLowerCase()));
  for (const h of headings.filter((t) => PLAIN_TITLE.test(t)).slice(0, 8)) checks.push({ kind: 'heading', text: h });
  const runs: string[] = [];
  for (const p of paragraphs) for (const r of plainWordRuns(p)) if (inBag(r) && !runs.includes(r)) runs.push(r);
  const present = runs.length <= nPresent ? runs : Array.from({ length: nPresent }, (_, i) => runs[Math.floor((i * runs.length) / nPresent)]!);
  for (const r of present) checks.push({ kind: 'present', text: r });
  for (let i = 1; i < present.length && i <= 8; i++) checks.push({ kind: 'order', before: present[i - 1]!, after: present[i]! });
  return checks;
}

/** An EPUB's XHTML in spine order (each file once, whatever #fragments the manifest adds). */
export function epubChecks(epub: string): { checks: RealCheck[]; units: number } {
  return epubChecksFrom((name: string): string => run('unzip', ['-p', epub, name]).toString('utf8'));
}

/** The same from a reader of the EPUB's entries by name (throws for a missing one). */
export function epubChecksFrom(entry: (name: string) => string): { checks: RealCheck[]; units: number } {
  const container = entry('META-INF/container.xml');
  const opfPath = /full-path="([^"]+)"/.exec(container)![1]!;
  const opf = entry(opfPath);
  const base = opfPath.includes('/') ? opfPath.slice(0, opfPath.lastIndexOf('/') + 1) : '';
  const manifest = new Map<string, string>();
  for (const m of opf.matchAll(/<item\b[^>]*>/g)) {
    const id = /\bid="([^"]+)"/.exec(m[0])?.[1];
    const href = /\bhref="([^"]+)"/.exec(m[0])?.[1];
    if (id && href) manifest.set(id, decodeURIComponent(href.split('#')[0]!));
  }
  const files: string[] = [];
  for (const m of opf.matchAll(/<itemref\b[^>]*idref="([^"]+)"/g)) {
    const f = manifest.get(m[1]!);
    if (f && !files.includes(f)) files.push(f);
  }
  const paragraphs: string[] = [];
  const headings: string[] = [];
  for (const f of files) {
    let x: string;
    try {
      x = entry(base + f);
    } catch {
      continue;
    }
    const body = x.replace(/<(script|style|pre|code|table)\b[\s\S]*?<\/\1>/gi, ' ');
    for (const m of body.matchAll(/<h([1-3])\b[^>]*>([\s\S]*?)<\/h\1>/gi)) {
      // Numbered titles ("1.2. Terms") keep only their words: the heading check strips the PDF's number too.
      const t = stripTags(m[2]!).replace(/^(?:\d+(?:\.\d+)*\.?|[A-Z]\.)\s+/, '');
      if (t && !headings.includes(t)) headings.push(t);
    }
    for (const m of body.matchAll(/<p\b[^>]*>([\s\S]*?)<\/p>/gi)) paragraphs.push(stripTags(m[1]!));
  }
  // Headings spread over the book (the first eight would all be front matter).
  const spread = headings.length <= 8 ? headings : Array.from({ length: 8 }, (_, i) => headings[Math.floor((i * headings.length) / 8)]!);
  return { checks: checksFromParagraphs(paragraphs, spread, null, 16), units: files.length };
}

function pageCount(file: string): number {
  try {
    if (file.endsWith('.djvu')) return Number(run('djvused', ['-e', 'n', file]).toString('utf8').trim());
    return Number(/^Pages:\s+(\d+)/m.exec(run('pdfinfo', [file]).toString('utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function* walk(dir: string, ext: string): Generator<string> {
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    const s = statSync(p, { throwIfNoEntry: false });
    if (!s) continue;
    if (s.isDirectory()) yield* walk(p, ext);
    else if (n.endsWith(ext)) yield p;
  }
}

/** The manifest, one document per line (a rebuild diffs line by line). */
export function serializeKinds(built: string, docs: readonly KindDocument[]): string {
  const head = JSON.stringify({ built, rule: 'kinds devset.json lacks (kinds.ts): checks from the sources; derived files keep their source document\'s split, others split by sha256(path)' }).slice(0, -1);
  return `${head},"documents":[\n${docs.map((d) => JSON.stringify(d)).join(',\n')}\n]}\n`;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const args = process.argv.slice(2);
  const opt = (n: string, d: string) => (args.includes(`--${n}`) ? args[args.indexOf(`--${n}`) + 1]! : d);
  const root = opt('root', join(here, 'work', 'root'));
  const work = opt('work', join(here, 'work', 'kinds'));
  const nScans = Number(opt('scans', '40'));
  const only = opt('only', 'scan,slides,epub,office,wordproc').split(',');
  /** The kinds each --only name rebuilds. */
  const rebuilds: Record<string, readonly KindName[]> = { scan: ['scan-pdf', 'scan-djvu'], 'scan-tool': ['scan-djvu-tool'], slides: ['slides'], epub: ['epub'], office: ['office-pdf'], wordproc: ['wordproc'] };
  const rebuilt = new Set(only.flatMap((o) => rebuilds[o] ?? []));
  const set = JSON.parse(readFileSync(join(here, 'devset.json'), 'utf8')) as { documents: RealDocument[] };
  const out: KindDocument[] = [];
  const made = join(work, 'made');
  mkdirSync(made, { recursive: true });
  const hashed = (f: string) => {
    const b = readFileSync(f);
    return { sha256: sha(b).toString('hex'), bytes: b.length };
  };

  // Scans (PDF and DJVU) of whole short documents, in hash order so the pick is stable as the list grows.
  if (only.includes('scan') || only.includes('scan-tool')) {
    const cands = set.documents
      .filter((d) => d.pages >= 2 && d.pages <= 5 && d.checks.filter((c) => c.kind === 'present').length >= 4)
      .sort((a, b) => sha(`scan:${a.path}`).compare(sha(`scan:${b.path}`)))
      .slice(0, nScans);
    for (const [i, d] of cands.entries()) {
      const pdf = join(root, d.path);
      if (!existsSync(pdf) || sha(readFileSync(pdf)).toString('hex') !== d.sha256) continue;
      const h = sha(`scan:${d.path}`);
      const level = h[1]! % 4;
      const djvu = i % 3 === 2;
      const bilevel = djvu && h[2]! % 2 === 0;
      const name = `${d.path.replace(/^\/usr\/share\/doc\//, '').replace(/[^\w.-]+/g, '_').replace(/\.pdf$/, '')}.scan${level}.${djvu ? 'djvu' : 'pdf'}`;
      const file = join(made, name);
      // A scan made by an earlier run is kept (the same settings make the same file with the same tools).
      if (only.includes('scan')) {
        const how = existsSync(file) ? scanSettings(level, djvu, bilevel) : makeScan(pdf, made, name, level, djvu, bilevel);
        out.push({ kind: djvu ? 'scan-djvu' : 'scan-pdf', base: 'kinds', file: `made/${name}`, package: d.package, version: d.version, from: d.path, source: d.source, made: how, ...hashed(file), pages: pageCount(file), split: d.split, checks: d.checks });
        console.error(`scan ${i + 1}/${cands.length} ${name}`);
      }
      // The same DJVU documents and pages, encoded as the tools do by default.
      if (djvu && only.includes('scan-tool')) {
        const toolName = name.replace(/\.djvu$/, '.tool.djvu');
        const toolFile = join(made, toolName);
        const how = existsSync(toolFile) ? scanSettings(level, true, bilevel, true) : makeScan(pdf, made, toolName, level, true, bilevel, true);
        out.push({ kind: 'scan-djvu-tool', base: 'kinds', file: `made/${toolName}`, package: d.package, version: d.version, from: d.path, source: d.source, made: how, ...hashed(toolFile), pages: pageCount(toolFile), split: d.split, checks: d.checks });
        console.error(`scan (tool) ${i + 1}/${cands.length} ${toolName}`);
      }
    }
  }

  // Beamer slides devset.json does not list.
  if (only.includes('slides')) {
    const listed = new Set(set.documents.map((d) => d.path));
    const index = packageIndex(join(dirname(root), 'debs'));
    for (const pdf of [...walk(root, '.pdf')].sort()) {
      const path = `/${relative(root, pdf)}`;
      if (listed.has(path)) continue;
      const b = pdf.slice(0, -4);
      const texPath = existsSync(`${b}.tex`) ? `${b}.tex` : existsSync(`${b}.tex.gz`) ? `${b}.tex.gz` : null;
      if (!texPath) continue;
      const raw = readFileSync(texPath);
      const tex = (texPath.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
      if (!/\\documentclass(?:\[[^\]]*\])?\{beamer\}/.test(tex)) continue;
      const pages = pageCount(pdf);
      const pkg = index.get(path);
      if (!pkg || pages === 0 || pages > 70) continue;
      let text = '';
      try {
        text = run('pdftotext', ['-q', pdf, '-']).toString('utf8');
      } catch {
        /* unreadable */
      }
      const checks = checksFromTex(tex, wordBag(text));
      if (checks.filter((c) => c.kind === 'present').length < 3) continue;
      out.push({ kind: 'slides', base: 'root', file: path, package: pkg.package, version: pkg.version, from: path, source: `/${relative(root, texPath)}`, ...hashed(pdf), pages, split: splitOf(path), checks });
    }
  }

  // Real EPUB books from Debian packages (fetch-kinds.sh unpacks them under WORK/kinds/root).
  const kroot = join(work, 'root');
  const kindex = existsSync(join(work, 'debs')) ? kindsPackageIndex(join(work, 'debs')) : new Map<string, { package: string; version: string }>();
  if (only.includes('epub') && existsSync(kroot)) {
    for (const f of [...walk(kroot, '.epub')].sort()) {
      const path = `/${relative(kroot, f)}`;
      const { checks, units } = epubChecks(f);
      if (checks.filter((c) => c.kind === 'present').length < 3) continue;
      const pkg = kindex.get(path) ?? { package: 'unknown', version: 'unknown' };
      out.push({ kind: 'epub', base: 'kinds', file: `root${path}`, package: pkg.package, version: pkg.version, from: path, source: `${path} (XHTML in spine order)`, ...hashed(f), pages: units, split: splitOf(path), checks });
    }
  }

  // Non-TeX PDFs: ReportLab's Odyssey examples, typeset by python3-reportlab from the text file beside them.
  if (only.includes('office') && existsSync(kroot)) {
    const dir = join(kroot, 'usr/share/doc/python-reportlab-doc/examples/odyssey');
    const txt = join(dir, 'odyssey.txt');
    if (existsSync(txt)) {
      const text = readFileSync(txt, 'utf8');
      const paragraphs = text.split(/\n\s*\n/).map((p) => decode(p.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').trim());
      const tmp = join(made, 'odyssey');
      mkdirSync(tmp, { recursive: true });
      copyFileSync(txt, join(tmp, 'odyssey.txt'));
      for (const script of ['odyssey.py', 'dodyssey.py', 'fodyssey.py']) {
        copyFileSync(join(dir, script), join(tmp, script));
        run('/usr/bin/python3', [script], tmp);
        const name = `odyssey/${script.replace(/\.py$/, '.pdf')}`;
        const file = join(made, name);
        let bagText = '';
        try {
          bagText = run('pdftotext', ['-q', file, '-']).toString('utf8');
        } catch {
          /* unreadable */
        }
        const checks = checksFromParagraphs(paragraphs, [], wordBag(bagText));
        const from = `/usr/share/doc/python-reportlab-doc/examples/odyssey/${script}`;
        const pkg = kindex.get(from) ?? { package: 'python-reportlab-doc', version: 'unknown' };
        out.push({ kind: 'office-pdf', base: 'kinds', file: `made/${name}`, package: pkg.package, version: pkg.version, from, source: '/usr/share/doc/python-reportlab-doc/examples/odyssey/odyssey.txt', made: { producer: 'ReportLab (python3-reportlab)', script }, ...hashed(file), pages: pageCount(file), split: splitOf(from), checks });
      }
    }
  }

  // Word-processor documents: ODT and DOCX in Debian's packages, converted by LibreOffice headless.
  if (only.includes('wordproc') && existsSync(kroot)) {
    const dir = join(made, 'wordproc');
    const srcDir = join(made, '.wordproc-src');
    mkdirSync(dir, { recursive: true });
    let producer = 'LibreOffice';
    try {
      producer = run('soffice', ['--version']).toString('utf8').trim().split(' ').slice(0, 2).join(' ');
    } catch {
      /* not installed: only PDFs made earlier are read */
    }
    const files = [...walk(kroot, '.odt'), ...walk(kroot, '.docx')].sort();
    // One language of a translated document (live-manual.en.odt, PreviSat_en.docx): the English one.
    const english = (f: string): string => f.replace(/([._])[a-z]{2}(?:_[A-Z]{2})?(\.(?:odt|docx))$/, '$1en$2');
    for (const f of files) {
      if (english(f) !== f && files.includes(english(f))) continue;
      const path = `/${relative(kroot, f)}`;
      const ext = f.endsWith('.odt') ? 'odt' : 'docx';
      const stem = path.replace(/^\/usr\/share\/doc\//, '').replace(/[^\w.-]+/g, '_').replace(/\.(odt|docx)$/, '');
      const file = join(dir, `${stem}.pdf`);
      if (!existsSync(file)) {
        // A PDF made by an earlier run is kept (as the scans are).
        mkdirSync(srcDir, { recursive: true });
        copyFileSync(f, join(srcDir, `${stem}.${ext}`));
        try {
          run('soffice', [`-env:UserInstallation=file://${join(work, '.lo-profile')}`, '--headless', '--convert-to', 'pdf', '--outdir', dir, join(srcDir, `${stem}.${ext}`)]);
        } catch (e) {
          console.error(`wordproc: ${path} not converted: ${(e as Error).message.slice(0, 120)}`);
        }
        if (!existsSync(file)) continue;
      }
      const entry = (n: string): string => {
        try {
          return run('unzip', ['-p', f, n]).toString('utf8');
        } catch {
          return '';
        }
      };
      const src = ext === 'odt' ? odtSource(entry('content.xml')) : docxSource(entry('word/document.xml'), entry('word/styles.xml'));
      let text = '';
      try {
        text = run('pdftotext', ['-q', file, '-']).toString('utf8');
      } catch {
        /* unreadable */
      }
      const checks = wordprocChecks(src, wordBag(text));
      const pages = pageCount(file);
      if (checks.filter((c) => c.kind === 'present').length < 3 || pages === 0) continue;
      const pkg = kindex.get(path) ?? { package: 'unknown', version: 'unknown' };
      const cells = checks.filter((c) => c.kind === 'cell').length;
      out.push({ kind: 'wordproc', base: 'kinds', file: `made/wordproc/${stem}.pdf`, package: pkg.package, version: pkg.version, from: path, source: `${path} (${ext === 'odt' ? 'content.xml' : 'word/document.xml'})`, made: { producer, filter: 'writer_pdf_Export', tables: src.tables.length }, ...hashed(file), pages, split: splitOf(path), checks });
      console.error(`wordproc ${path}: ${pages} pages, ${checks.length} checks (${cells} cells)`);
    }
    rmSync(srcDir, { recursive: true, force: true });
  }

  const target = join(here, 'kinds.json');
  // Entries of the kinds not rebuilt stay as the manifest has them (same lines, same order, first).
  if (args.includes('--only') && existsSync(target)) {
    const kept = (JSON.parse(readFileSync(target, 'utf8')) as { documents: KindDocument[] }).documents.filter((d) => !rebuilt.has(d.kind));
    out.unshift(...kept);
  }
  writeFileSync(target, serializeKinds(new Date().toISOString().slice(0, 10), out));
  const by = (k: string, s: string) => out.filter((d) => d.kind === k && d.split === s).length;
  const kinds = [...new Set(out.map((d) => d.kind))];
  console.log(`${out.length} documents -> ${target}: ${kinds.map((k) => `${k} ${by(k, 'tune')} tune / ${by(k, 'report')} report`).join(', ')}`);
}

/** Which package a file of the kinds' extra packages belongs to (any extension). */
function kindsPackageIndex(debs: string): Map<string, { package: string; version: string }> {
  const out = new Map<string, { package: string; version: string }>();
  for (const f of readdirSync(debs).filter((n) => n.endsWith('.deb'))) {
    const deb = join(debs, f);
    const [pkg, ver] = run('dpkg-deb', ['-f', deb, 'Package', 'Version']).toString('utf8').trim().split('\n').map((l) => l.split(': ')[1]!);
    for (const line of run('dpkg-deb', ['-c', deb]).toString('utf8').split('\n')) {
      const path = line.split(/\s+/).slice(5).join(' ').replace(/^\./, '').replace(/ -> .*$/, '');
      if (path) out.set(path, { package: pkg!, version: ver! });
    }
  }
  return out;
}
