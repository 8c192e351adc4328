// Child process of crash-recovery.test.ts: indexes batches into an fs directory, committing after each
// batch and reporting "committed <n>" on stdout, until killed.
import { FsIndexDirectory } from '../../src/adapters/fs/index-directory.js';
import { SearchIndex } from '../../src/engine/index.js';

const dir = process.argv[2]!;
const batch = Number(process.argv[3] ?? 200);
const idx = SearchIndex.open(new FsIndexDirectory(dir), { flushOccurrences: 20_000 });
let n = Number(idx.checkpoint ?? 0);
for (;;) {
  for (let i = 0; i < batch; i++) {
    const k = n * batch + i;
    idx.add({ id: `doc-${k}`, title: `document number ${k} alpha`, abstract: `batch ${n} item ${i} shared words for every document beta gamma`.repeat(3) });
  }
  n++;
  idx.commit(String(n));
  process.stdout.write(`committed ${n}\n`);
  if (n % 3 === 0) idx.mergeStep(5_000);
}
