// The storage port of the engine: a flat directory of named files. The engine never touches a file
// system; the host passes an implementation (src/adapters/fs/index-directory.ts for disks, or
// MemoryIndexDirectory below for tests and ephemeral indexes). All calls are synchronous.

/** A lock on a directory, held by one index writer at a time. */
export interface DirectoryLock {
  release(): void;
}

/** Files of one index. Names are plain (no '/'), ASCII, and chosen by the engine. */
export interface IndexDirectory {
  /** Names of the files present (any order). */
  list(): string[];
  /** The bytes of `name`, or null when it does not exist. */
  read(name: string): Uint8Array | null;
  /**
   * Creates or replaces `name` with `bytes` atomically and durably: after return the whole new content
   * survives a crash or power loss, and a crash during the call leaves either the old file or none
   * (never a partial one). File systems: write a temporary file, fsync it, rename, fsync the directory.
   */
  write(name: string, bytes: Uint8Array): void;
  /**
   * Records that `name` now holds `bytes`, written (atomically and durably, as by `write`) by another
   * writer of the same directory: a builder or merge thread of this process that the index reserved the
   * name for (ADR 0180). Directories that read from storage have nothing to do; directories that hold
   * files in memory keep `bytes` as the file. Optional: without it the index reads the file back.
   */
  adopt?(name: string, bytes: Uint8Array): void;
  /** Removes `name` if present. */
  delete(name: string): void;
  /** Takes the writer lock; throws if another live writer holds it. Optional. */
  lock?(): DirectoryLock;
}

/** An in-memory directory (not durable): for tests and throw-away indexes. */
export class MemoryIndexDirectory implements IndexDirectory {
  readonly files = new Map<string, Uint8Array>();
  list(): string[] {
    return [...this.files.keys()];
  }
  read(name: string): Uint8Array | null {
    return this.files.get(name) ?? null;
  }
  write(name: string, bytes: Uint8Array): void {
    this.files.set(name, bytes.slice());
  }
  adopt(name: string, bytes: Uint8Array): void {
    this.files.set(name, bytes);
  }
  delete(name: string): void {
    this.files.delete(name);
  }
}
