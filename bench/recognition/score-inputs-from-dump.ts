// Recomputes the score inputs read from the Markdown alone (markdown-faults.ts) of a realset.bench.ts result
// from the Markdown it dumped (--dump DIR): they are pure functions of the Markdown, so this reproduces what
// the converter of this build would report, without converting again (ADRs 0366, 0376). Other inputs are kept.
//   node dist/bench/recognition/score-inputs-from-dump.js RESULT.json DUMP_DIR OUT.json
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { markdownFaults } from '../../src/recognition/report/markdown-faults.js';

const [input, dump, out] = process.argv.slice(2);
if (!input || !dump || !out) {
  console.error('usage: score-inputs-from-dump RESULT.json DUMP_DIR OUT.json');
  process.exit(2);
}
const result = JSON.parse(readFileSync(input, 'utf8')) as { perDocument: { path: string; scoreInputs: { structure: Record<string, unknown> } | null }[]; scoreInputsFromDump?: object };
let n = 0;
for (const d of result.perDocument) {
  // The file name realset.bench.ts gives Lectern's Markdown under --dump.
  const f = join(dump, `${d.path.replace(/[^\w.-]+/g, '_')}.lectern.md`);
  if (!d.scoreInputs || !existsSync(f)) continue;
  Object.assign(d.scoreInputs.structure, markdownFaults(readFileSync(f, 'utf8')));
  n++;
}
result.scoreInputsFromDump = { recomputed: n, of: result.perDocument.length, note: 'structure inputs read from the Markdown recomputed from the run\'s --dump by this build (score-inputs-from-dump.ts)' };
writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
console.error(`recomputed ${n} of ${result.perDocument.length}`);
