// IndexDirectory on a local file system whose file contents live in SharedArrayBuffers (ADR 0110): the
// writer (the main thread) and every search thread view the same bytes, so the index is in memory once,
// however many threads search it. Segment files are immutable once written (new names for new data), so
// a shared view never changes under a reader. Writes go to disk exactly as FsIndexDirectory's (atomic,
// durable) and the written bytes are kept as a shared copy; reads of files not yet held load them once.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DirectoryLock, IndexDirectory } from '../../engine/index.js';
import type { IndexName } from '../../domain/document.js';
import type { IndexDirectories } from '../../ports/index-directories.js';
import { FsIndexDirectory } from './index-directory.js';

/** `bytes` in shared memory: as is when they already are, else a copy. */
function shared(bytes: Uint8Array): Uint8Array {
  if (bytes.buffer instanceof SharedArrayBuffer) return bytes;
  const out = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  out.set(bytes);
  return out;
}

/** Reads a whole file straight into shared memory (no intermediate copy); null when absent. */
function readShared(path: string): Uint8Array | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const size = fstatSync(fd).size;
    const out = new Uint8Array(new SharedArrayBuffer(size));
    let off = 0;
    while (off < size) {
      const n = readSync(fd, out, off, size - off, off);
      if (n === 0) throw new Error(`${path} shrank while being read`);
      off += n;
    }
    return out;
  } finally {
    closeSync(fd);
  }
}

export class SharedFsIndexDirectory implements IndexDirectory {
  readonly #fs: FsIndexDirectory;
  readonly #held = new Map<string, Uint8Array>();

  constructor(path: string) {
    this.#fs = new FsIndexDirectory(path);
  }

  get path(): string {
    return this.#fs.path;
  }

  list(): string[] {
    return this.#fs.list();
  }

  read(name: string): Uint8Array | null {
    const held = this.#held.get(name);
    if (held) return held;
    const bytes = readShared(join(this.#fs.path, name));
    if (bytes !== null) this.#held.set(name, bytes);
    return bytes;
  }

  write(name: string, bytes: Uint8Array): void {
    this.#fs.write(name, bytes);
    this.adopt(name, bytes);
  }

  /** The file was written by another writer of this directory (a background thread, ADR 0180): holds its bytes. */
  adopt(name: string, bytes: Uint8Array): void {
    this.#held.set(name, shared(bytes));
  }

  delete(name: string): void {
    this.#fs.delete(name);
    this.#held.delete(name);
  }

  lock(): DirectoryLock {
    return this.#fs.lock();
  }

  /** The files held in shared memory (name -> bytes): what a search thread needs to open the index. */
  files(): Map<string, Uint8Array> {
    return new Map(this.#held);
  }

  /** Forgets every held file (the directory was emptied). */
  clear(): void {
    this.#held.clear();
  }
}

/** Index directories whose files are shared with the search threads (one directory object per index). */
export interface SharedIndexDirectories extends IndexDirectories {
  /** The shared files of an index as last written or read. */
  files(name: IndexName): Map<string, Uint8Array>;
}

export function sharedFsIndexDirectories(root: string): SharedIndexDirectories {
  const open = new Map<IndexName, SharedFsIndexDirectory>();
  const dir = (name: IndexName) => {
    let d = open.get(name);
    if (!d) open.set(name, (d = new SharedFsIndexDirectory(join(root, name))));
    return d;
  };
  return {
    open: dir,
    reset: (name: IndexName) => {
      open.get(name)?.clear();
      open.delete(name);
      rmSync(join(root, name), { recursive: true, force: true });
    },
    files: (name: IndexName) => open.get(name)?.files() ?? new Map(),
  };
}
