// Writes the development set's PDFs and ground truth into a directory:
//   node dist/bench/recognition/devset/build.js [DIR]   (default bench/recognition/devset/work, git-ignored)
// Each document gives DIR/<name>.pdf, DIR/<name>.md (the exact ground truth) and DIR/<name>.checks.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildPdf } from '../../../test/recognition/helpers/pdf-builder.js';
import { repoRoot } from '../../../test/helpers/paths.js';
import { devDocuments } from './documents.js';

/** Builds every document into `dir`; returns the PDF paths. */
export function buildDevset(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  return devDocuments().map((d) => {
    const pdf = join(dir, `${d.name}.pdf`);
    writeFileSync(pdf, buildPdf(d.pages, { Producer: 'lectern devset builder' }));
    writeFileSync(join(dir, `${d.name}.md`), d.truth);
    writeFileSync(join(dir, `${d.name}.checks.json`), `${JSON.stringify(d.checks, null, 2)}\n`);
    return pdf;
  });
}

if (process.argv[1]?.endsWith('build.js')) {
  const dir = process.argv[2] ?? join(repoRoot, 'bench', 'recognition', 'devset', 'work');
  for (const p of buildDevset(dir)) console.log(p);
}
