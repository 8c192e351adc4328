// Entry point of the segment builder thread (ADRs 0111, 0180): indexes batches of documents the
// server's catch-up sends into segments and runs the writer's merge tasks (src/search/segment-builder.ts).
// Like main.ts, an entry point: nothing imports it (it is loaded by URL). It first lowers its own
// scheduling priority (workerData.nice, config `backgroundThreadNice`) so searches preempt it, and, given
// the index directories' root (workerData.indexRoot), writes and fsyncs the segments it builds under the
// names the writer reserved. No store.
import { parentPort, workerData } from 'node:worker_threads';
import { join } from 'node:path';
import { serveSegmentBuilds, type SegmentFileWriter } from './search/segment-builder.js';
import { FsIndexDirectory } from './adapters/fs/index-directory.js';
import { lowerThreadPriority } from './adapters/os/thread-priority.js';
import { useZlibStoredCodec } from './adapters/zlib/stored-codec.js';

// segments' stored fields in native DEFLATE on this thread (ADR 0280)
useZlibStoredCodec();

const data = (workerData ?? {}) as { nice?: number; indexRoot?: string };
if (data.nice !== undefined) lowerThreadPriority(data.nice);
let write: SegmentFileWriter | null = null;
if (data.indexRoot !== undefined) {
  const root = data.indexRoot;
  const dirs = new Map<string, FsIndexDirectory>();
  write = (index, name, bytes) => {
    let d = dirs.get(index);
    if (!d) dirs.set(index, (d = new FsIndexDirectory(join(root, index))));
    d.write(name, bytes);
  };
}
if (parentPort) serveSegmentBuilds(parentPort, write);
