// Index directories in memory, nothing on disk: the `api` role of a cluster without the `search` role
// (issue 24, ADR 0249). Its indexes stay empty (no change source feeds them): they only analyse query
// text and carry the corpus models; every corpus read goes to the shards through the coordinator.
import type { IndexName } from '../../domain/document.js';
import { MemoryIndexDirectory } from '../../engine/index.js';
import type { SharedIndexDirectories } from '../fs/shared-index-directory.js';

export function memoryIndexDirectories(): SharedIndexDirectories {
  const open = new Map<IndexName, MemoryIndexDirectory>();
  const dir = (name: IndexName): MemoryIndexDirectory => {
    let d = open.get(name);
    if (!d) open.set(name, (d = new MemoryIndexDirectory()));
    return d;
  };
  return {
    open: dir,
    reset: (name) => void open.set(name, new MemoryIndexDirectory()),
    files: (name) => dir(name).files,
  };
}
