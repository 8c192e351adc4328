// Writes the development set's PDFs and ground truth into a directory:
//   node dist/bench/recognition/devset/build.js [DIR]   (default bench/recognition/devset/work, git-ignored)
// Each document gives DIR/<name>.pdf, DIR/<name>.md (the exact ground truth) and DIR/<name>.checks.json,
// and a scanned variant DIR/<name>.scan.pdf: each page rendered by `pdftoppm` at 100 dpi in gray, with
// deterministic noise (speckles and grain) added, as an image-only PDF with the same ground truth.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildPdf, type PageSpec } from '../../../test/recognition/helpers/pdf-builder.js';
import { parsePgm } from '../../../src/recognition/ocr/pgm.js';
import { repoRoot } from '../../../test/helpers/paths.js';
import { devDocuments } from './documents.js';
import { producedDocuments, type ProducedDocument } from './sources.js';

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
  const work = join(dir, `${d.name}.build`);
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

/** A small deterministic generator (mulberry32), so every build makes the same noise. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Renders `pdf` page by page (100 dpi, gray), adds grain and 0.3% speckles, and writes an image-only PDF. */
export function scanPdf(pdf: string, out: string, pages: number, seed: number): void {
  const rnd = random(seed);
  const specs: PageSpec[] = [];
  for (let p = 1; p <= pages; p++) {
    const prefix = `${out}.p${p}`;
    execFileSync('pdftoppm', ['-r', '100', '-gray', '-f', String(p), '-l', String(p), '-singlefile', pdf, prefix]);
    const img = parsePgm(new Uint8Array(readFileSync(`${prefix}.pgm`)));
    rmSync(`${prefix}.pgm`);
    if (!img) throw new Error(`pdftoppm gave no image for ${pdf} page ${p}`);
    const px = new Uint8Array(img.data.length);
    for (let i = 0; i < px.length; i++) {
      const grain = (rnd() - 0.5) * 40;
      const speck = rnd() < 0.003 ? (rnd() < 0.5 ? -255 : 255) : 0;
      px[i] = Math.max(0, Math.min(255, Math.round(img.data[i]! + grain + speck)));
    }
    specs.push({ image: { w: img.width, h: img.height, pixels: px } });
  }
  writeFileSync(out, buildPdf(specs, { Producer: 'lectern devset scanner' }));
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
    const pages = Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))?.[1] ?? 1);
    scanPdf(pdf, join(dir, `${d.name}.scan.pdf`), pages, 101 + pdfs.length);
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
}
