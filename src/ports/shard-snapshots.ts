// Snapshots of a shard replica's index (issue 24, docs/scale.md "Bootstrap of a new replica", ADR 0255):
// the segment files a committed manifest names, published by a search node into an object store every
// node reaches (the NATS JetStream object store), and installed by a new replica of the same shard,
// which then follows the log from the snapshot's log sequence + 1.
//
// Files travel as streams (AsyncIterable chunks), never whole in memory.

/** One file of a snapshot: `<index>/<file name>` (e.g. `documents/seg-000004.lsg`), its size and SHA-256 (hex). */
export interface SnapshotFile {
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
}

/** What a snapshot covers, as its descriptor (`snapshot.json`, written after every file) records it. */
export interface ShardSnapshot {
  readonly format: 1;
  /** `<created ms, 13 digits>-<node>`: sorts by age. */
  readonly id: string;
  readonly shard: number;
  /** The cluster's shard count when it was taken (a snapshot of another layout is never installed). */
  readonly shards: number;
  /** The engine's text analysis version of every index in it (another version is never installed). */
  readonly analysis: number;
  /** The store sequence every index of the snapshot has committed (the lowest of their checkpoints). */
  readonly seq: number;
  /**
   * The log sequence the snapshot covers: every message of the shard's subject up to it is in the
   * files. A replica installing it follows the log from `logSeq + 1`.
   */
  readonly logSeq: number;
  readonly createdAt: string;
  /** The member that published it (`search-<shard>-<replica>`). */
  readonly node: string;
  /** Per index: its committed checkpoint label, manifest generation and segment count. */
  readonly indexes: Readonly<Record<string, { checkpoint: string | null; generation: number; segments: number }>>;
  readonly files: readonly SnapshotFile[];
  readonly totalBytes: number;
}

/** A pinned committed state of a replica's index files (what a snapshot is published from). */
export interface PinnedIndexFiles {
  /** Every file of every index (manifests included), with its size. */
  readonly files: readonly { path: string; bytes: number }[];
  /** Each index's committed checkpoint label, generation and segment count, from its manifest. */
  readonly indexes: Readonly<Record<string, { checkpoint: string | null; generation: number; segments: number }>>;
  /** The bytes of `path`, streamed (the file as pinned, even if the index has since deleted it). */
  read(path: string): AsyncIterable<Uint8Array>;
  /** Lets the pinned files go (closes them). */
  release(): void;
}

/** Files being downloaded for an install, beside the live index (same file system: installed by renames). */
export interface SnapshotStaging {
  /** Writes `path` from `data` (durably); its size and SHA-256 as written. Rejects a path outside the staging area. */
  write(path: string, data: AsyncIterable<Uint8Array>): Promise<{ bytes: number; sha256: string }>;
  /** Checks every staged index: its manifest parses and names only files present with the sizes it records. Throws why not. */
  verify(): void;
  /** Moves the staged index `name` into place (the live index `name` must be closed and removed first). */
  installInto(name: string): void;
  /** Removes whatever is staged. */
  discard(): void;
}

/** A replica's index files on its own disk. */
export interface LocalIndexFiles {
  /** Pins the committed state of every index now (synchronously: no commit can come between two indexes). */
  pin(): PinnedIndexFiles;
  /** A fresh, empty staging area (an older one left by a crash is removed). */
  stage(): SnapshotStaging;
}

/** One object of the snapshot store. */
export interface SnapshotObjectInfo {
  readonly key: string;
  readonly bytes: number;
  readonly mtimeMs: number;
}

/** An object store every node of the cluster reaches (keys are '/'-separated). */
export interface SnapshotObjects {
  put(key: string, data: AsyncIterable<Uint8Array>): Promise<void>;
  /** The object's bytes, streamed; null when absent. The stream errors if the store finds it damaged. */
  get(key: string): Promise<AsyncIterable<Uint8Array> | null>;
  /** Objects whose key starts with `prefix`. */
  list(prefix: string): Promise<SnapshotObjectInfo[]>;
  delete(key: string): Promise<void>;
}
