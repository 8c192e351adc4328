// Child process of background-threads.test.ts: indexes batches into an fs directory, committing after
// each ("committed <n>"), while merges run on a merge thread that writes the merged segment itself
// ("merge started" / "merge adopted"), until killed.
import { join } from 'node:path';
import { FsIndexDirectory } from '../../src/adapters/fs/index-directory.js';
import { SearchIndex } from '../../src/engine/index.js';
import { ThreadedSegmentBuilder } from '../../src/search/segment-builder.js';

const root = process.argv[2]!;
const batch = Number(process.argv[3] ?? 200);
const merger = new ThreadedSegmentBuilder(new URL('../../src/segment-builder-worker.js', import.meta.url), { nice: 19, indexRoot: root });
const idx = SearchIndex.open(new FsIndexDirectory(join(root, 'documents')), { flushOccurrences: 20_000, mergePolicy: { mergeFactor: 3, floorDocs: 100 } });
let n = Number(idx.checkpoint ?? 0);
let merging = false;
const turn = () => new Promise((r) => setImmediate(r));
for (;;) {
  for (let i = 0; i < batch; i++) {
    const k = n * batch + i;
    idx.add({ id: `doc-${k}`, title: `document number ${k} alpha`, abstract: `batch ${n} item ${i} shared words for every document beta gamma`.repeat(3) });
  }
  // rewrite and delete-and-restore documents of earlier batches, so merges carry deletions
  if (n > 0) {
    const k = (n * 7919) % (n * batch);
    idx.add({ id: `doc-${k}`, title: `document number ${k} alpha`, abstract: `rewritten in batch ${n}` });
  }
  n++;
  idx.commit(String(n));
  process.stdout.write(`committed ${n}\n`);
  if (!merging) {
    const task = idx.beginMerge();
    if (task) {
      merging = true;
      process.stdout.write('merge started\n');
      merger.merge('documents', task).then(
        (r) => {
          idx.finishMerge(task, r.out, r.written);
          merging = false;
          process.stdout.write('merge adopted\n');
        },
        (e: unknown) => {
          process.stderr.write(String(e));
          process.exit(1);
        },
      );
    }
  }
  await turn();
}
