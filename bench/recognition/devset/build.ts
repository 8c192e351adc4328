// Writes the development set's PDFs and ground truth into a directory:
//   node dist/bench/recognition/devset/build.js [DIR]   (default bench/recognition/devset/work, git-ignored)
// Each document gives DIR/<name>.pdf, DIR/<name>.md (the exact ground truth) and DIR/<name>.checks.json,
// and a scanned variant DIR/<name>.scan.pdf: each page rendered by `pdftoppm` at 100 dpi in gray, with
// deterministic noise (speckles and grain) added, as an image-only PDF with the same ground truth.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildPdf, type PageSpec } from '../../../test/recognition/helpers/pdf-builder.js';
import { parsePgm } from '../../../src/recognition/ocr/pgm.js';
import { repoRoot } from '../../../test/helpers/paths.js';
import { devDocuments } from './documents.js';

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
}
