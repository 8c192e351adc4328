// Writes the development set's PDFs and ground truth into a directory:
//   node dist/bench/recognition/devset/build.js [DIR]   (default bench/recognition/devset/work, git-ignored)
// Each document gives DIR/<name>.pdf, DIR/<name>.md (the exact ground truth) and DIR/<name>.checks.json,
// and a scanned variant DIR/<name>.scan.pdf: each page rendered by `pdftoppm` at 100 dpi in gray, with
// deterministic noise (speckles and grain) added, as an image-only PDF with the same ground truth.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildPdf, type PageSpec } from '../../../test/recognition/helpers/pdf-builder.js';
import { parsePgm } from '../../../src/recognition/ocr/pgm.js';
import { repoRoot } from '../../../test/helpers/paths.js';
import { devDocuments } from './documents.js';
import { producedDocuments, type ProducedDocument } from './sources.js';
import { generatedDocuments, type ScanSettings } from './generated.js';
import { mulberry32 } from '../../../test/helpers/random.js';

/** Whether a program answers `--version` (the producers are optional: Debian packages, not dependencies). */
function installed(tool: string): boolean {
  try {
    execFileSync(tool, ['--version'], { stdio: 'ignore', timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}

/** Compiles one produced document into `dir/<name>.pdf`; false when its producer is not installed. */
function produce(d: ProducedDocument, dir: string): boolean {
  // Absolute: LibreOffice takes its profile as a file:// URL.
  const work = resolve(dir, `${d.name}.build`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  if (d.producer === 'latex') {
    writeFileSync(join(work, `${d.name}.tex`), d.source);
    // Twice, as LaTeX documents are built (references, page styles settle on the second run).
    for (let i = 0; i < 2; i++) execFileSync('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', `${d.name}.tex`], { cwd: work, stdio: 'ignore', timeout: 120_000 });
  } else {
    writeFileSync(join(work, `${d.name}.fodt`), d.source);
    // A private profile, so concurrent runs (and a user's own LibreOffice) do not share one.
    execFileSync('soffice', [`-env:UserInstallation=file://${join(work, 'profile')}`, '--headless', '--convert-to', 'pdf', '--outdir', work, join(work, `${d.name}.fodt`)], { stdio: 'ignore', timeout: 300_000 });
  }
  const pdf = join(work, `${d.name}.pdf`);
  if (!existsSync(pdf)) throw new Error(`${d.producer} made no PDF for ${d.name}`);
  renameSync(pdf, join(dir, `${d.name}.pdf`));
  rmSync(work, { recursive: true, force: true });
  return true;
}

const random = mulberry32;

const DEFAULT_SCAN: ScanSettings = { dpi: 100, grain: 40, speckle: 0.003, skew: 0, blur: false };

/** Rotates a gray image by `degrees` about its centre (bilinear, white outside), as a page fed askew. */
function rotate(src: Uint8Array, w: number, h: number, degrees: number): Uint8Array {
  const a = (degrees * Math.PI) / 180;
  const c = Math.cos(a);
  const s = Math.sin(a);
  const out = new Uint8Array(w * h);
  const cx = w / 2;
  const cy = h / 2;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const sx = c * (x - cx) + s * (y - cy) + cx;
      const sy = -s * (x - cx) + c * (y - cy) + cy;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      if (x0 < 0 || y0 < 0 || x0 + 1 >= w || y0 + 1 >= h) {
        out[y * w + x] = 255;
        continue;
      }
      const fx = sx - x0;
      const fy = sy - y0;
      const i = y0 * w + x0;
      const top = src[i]! * (1 - fx) + src[i + 1]! * fx;
      const bottom = src[i + w]! * (1 - fx) + src[i + w + 1]! * fx;
      out[y * w + x] = Math.round(top * (1 - fy) + bottom * fy);
    }
  }
  return out;
}

/** A 3x3 box blur (edges kept). */
function blur(src: Uint8Array, w: number, h: number): Uint8Array {
  const out = Uint8Array.from(src);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      let sum = 0;
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) sum += src[(y + dy) * w + x + dx]!;
      out[y * w + x] = Math.round(sum / 9);
    }
  }
  return out;
}

/**
 * Renders `pdf` page by page (gray, at `settings.dpi`, 100 by default), turns it by `skew` degrees, blurs it
 * when asked, adds grain and speckles (0.3% by default), and writes an image-only PDF.
 */
export function scanPdf(pdf: string, out: string, pages: number, seed: number, settings: ScanSettings = DEFAULT_SCAN): void {
  const rnd = random(seed);
  const specs: PageSpec[] = [];
  for (let p = 1; p <= pages; p++) {
    const prefix = `${out}.p${p}`;
    execFileSync('pdftoppm', ['-r', String(settings.dpi), '-gray', '-f', String(p), '-l', String(p), '-singlefile', pdf, prefix]);
    const img = parsePgm(new Uint8Array(readFileSync(`${prefix}.pgm`)));
    rmSync(`${prefix}.pgm`);
    if (!img) throw new Error(`pdftoppm gave no image for ${pdf} page ${p}`);
    let src = img.data;
    if (settings.skew !== 0) src = rotate(src, img.width, img.height, settings.skew);
    if (settings.blur) src = blur(src, img.width, img.height);
    const px = new Uint8Array(src.length);
    for (let i = 0; i < px.length; i++) {
      const grain = (rnd() - 0.5) * settings.grain;
      const speck = rnd() < settings.speckle ? (rnd() < 0.5 ? -255 : 255) : 0;
      px[i] = Math.max(0, Math.min(255, Math.round(src[i]! + grain + speck)));
    }
    specs.push({ image: { w: img.width, h: img.height, pixels: px } });
  }
  writeFileSync(out, buildPdf(specs, { Producer: 'lectern devset scanner' }));
}

/** Page count of a PDF (pdfinfo). */
const pageCount = (pdf: string): number => Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))?.[1] ?? 1);

/**
 * Builds the generated calibration documents (generated.ts) into `dir` when both producers are installed:
 * each document and its scanned variant with the document's own scan settings. Returns the PDFs with their
 * set (`fit` or `heldout`) and whether the producers were missing.
 */
export function buildGenerated(dir: string): { pdfs: { pdf: string; set: 'fit' | 'heldout' }[]; missing: boolean } {
  if (!installed('pdflatex') || !installed('soffice')) return { pdfs: [], missing: true };
  mkdirSync(dir, { recursive: true });
  const pdfs: { pdf: string; set: 'fit' | 'heldout' }[] = [];
  generatedDocuments().forEach((d, i) => {
    const pdf = join(dir, `${d.name}.pdf`);
    const scan = join(dir, `${d.name}.scan.pdf`);
    // Compiling is slow (LibreOffice starts per document): a document already built from the same source is kept.
    const stamp = join(dir, `${d.name}.source`);
    const scanKey = JSON.stringify(d.scan);
    if (!(existsSync(pdf) && existsSync(scan) && existsSync(stamp) && readFileSync(stamp, 'utf8') === d.source + scanKey)) {
      produce(d, dir);
      scanPdf(pdf, scan, pageCount(pdf), 1000 + i, d.scan);
      writeFileSync(stamp, d.source + scanKey);
    }
    for (const name of [d.name, `${d.name}.scan`]) {
      writeFileSync(join(dir, `${name}.md`), d.truth);
      writeFileSync(join(dir, `${name}.checks.json`), `${JSON.stringify(d.checks, null, 2)}\n`);
    }
    pdfs.push({ pdf, set: d.set }, { pdf: scan, set: d.set });
  });
  return { pdfs, missing: false };
}

/**
 * Builds the documents made by LaTeX and LibreOffice into `dir` (those whose producer is installed), each
 * with a scanned variant; returns the PDF paths and the names of the documents left out.
 */
export function buildProduced(dir: string): { pdfs: string[]; missing: string[] } {
  mkdirSync(dir, { recursive: true });
  const have = { latex: installed('pdflatex'), libreoffice: installed('soffice') };
  const pdfs: string[] = [];
  const missing: string[] = [];
  for (const d of producedDocuments()) {
    if (!have[d.producer]) {
      missing.push(d.name);
      continue;
    }
    produce(d, dir);
    const pdf = join(dir, `${d.name}.pdf`);
    // And a scanned variant of each, as for the generated documents.
    scanPdf(pdf, join(dir, `${d.name}.scan.pdf`), pageCount(pdf), 101 + pdfs.length);
    for (const name of [d.name, `${d.name}.scan`]) {
      writeFileSync(join(dir, `${name}.md`), d.truth);
      writeFileSync(join(dir, `${name}.checks.json`), `${JSON.stringify(d.checks, null, 2)}\n`);
    }
    pdfs.push(pdf, join(dir, `${d.name}.scan.pdf`));
  }
  return { pdfs, missing };
}

/** Builds every document (and its scanned variant when `scans`) into `dir`; returns the PDF paths. */
export function buildDevset(dir: string, scans = true): string[] {
  mkdirSync(dir, { recursive: true });
  return devDocuments().flatMap((d, i) => {
    const pdf = join(dir, `${d.name}.pdf`);
    writeFileSync(pdf, buildPdf(d.pages, { Producer: 'lectern devset builder' }));
    for (const name of scans ? [d.name, `${d.name}.scan`] : [d.name]) {
      writeFileSync(join(dir, `${name}.md`), d.truth);
      writeFileSync(join(dir, `${name}.checks.json`), `${JSON.stringify(d.checks, null, 2)}\n`);
    }
    if (!scans) return [pdf];
    const scan = join(dir, `${d.name}.scan.pdf`);
    scanPdf(pdf, scan, d.pages.length, 17 + i);
    return [pdf, scan];
  });
}

if (process.argv[1]?.endsWith('build.js')) {
  const dir = process.argv[2] ?? join(repoRoot, 'bench', 'recognition', 'devset', 'work');
  for (const p of buildDevset(dir)) console.log(p);
  const produced = buildProduced(join(dir, 'produced'));
  for (const p of produced.pdfs) console.log(p);
  if (produced.missing.length) console.log(`not built (producer not installed): ${produced.missing.join(', ')}`);
  const generated = buildGenerated(join(dir, 'generated'));
  for (const p of generated.pdfs) console.log(`${p.set} ${p.pdf}`);
  if (generated.missing) console.log('generated calibration documents not built (pdflatex and soffice are both needed)');
}
