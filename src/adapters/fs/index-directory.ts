// IndexDirectory on a local file system: every write goes to a temporary file, is fsynced, renamed over
// the target and the directory is fsynced, so a file is either wholly present or absent after a crash.
// The writer lock is a `LOCK` file holding the owner's pid; a lock left by a dead process is taken over.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DirectoryLock, IndexDirectory } from '../../engine/index.js';

const LOCK = 'LOCK';

/** fsync of a file or a directory; a platform that cannot fsync a directory is passed over (a rename is still atomic). */
export function fsyncPath(path: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(path, 'r');
    fsyncSync(fd);
  } catch {
    // some platforms cannot fsync a directory; the rename is still atomic
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A directory of index files on disk (created if missing). */
export class FsIndexDirectory implements IndexDirectory {
  readonly path: string;
  #tmpCounter = 0;

  constructor(path: string) {
    this.path = path;
    mkdirSync(path, { recursive: true });
  }

  list(): string[] {
    return readdirSync(this.path).filter((n) => n !== LOCK && !n.endsWith('.tmp'));
  }

  read(name: string): Uint8Array | null {
    try {
      const b = readFileSync(join(this.path, name));
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  write(name: string, bytes: Uint8Array): void {
    const tmp = join(this.path, `${name}.${process.pid}.${this.#tmpCounter++}.tmp`);
    const fd = openSync(tmp, 'w');
    try {
      let off = 0;
      while (off < bytes.byteLength) off += writeSync(fd, bytes, off, Math.min(bytes.byteLength - off, 1 << 30));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, join(this.path, name));
    fsyncPath(this.path);
  }

  /** The file was written by another writer of this directory (ADR 0180): nothing to hold. */
  adopt(): void {}

  delete(name: string): void {
    rmSync(join(this.path, name), { force: true });
  }

  lock(): DirectoryLock {
    const p = join(this.path, LOCK);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(p, 'wx');
        writeSync(fd, String(process.pid));
        fsyncSync(fd);
        closeSync(fd);
        // stale temporary files of dead writers
        for (const n of readdirSync(this.path)) if (n.endsWith('.tmp')) rmSync(join(this.path, n), { force: true });
        let released = false;
        return {
          release: () => {
            if (released) return;
            released = true;
            rmSync(p, { force: true });
          },
        };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const pid = Number(existsSync(p) ? readFileSync(p, 'utf8').trim() : NaN);
        if (Number.isFinite(pid) && pid > 0 && alive(pid)) throw new Error(`index directory ${this.path} is locked by process ${pid}`);
        rmSync(p, { force: true });
      }
    }
    throw new Error(`could not lock index directory ${this.path}`);
  }
}
