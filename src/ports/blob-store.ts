// Byte storage for originals and uploads (filesystem by default).
import type { Readable } from 'node:stream';

export interface BlobInfo {
  bytes: number;
  /** Unix milliseconds of the last write. */
  modifiedMs: number;
}

export interface BlobStore {
  /** Stores the bytes under `key` atomically (readers see the old or the new content, never a mix). */
  put(key: string, data: Uint8Array | AsyncIterable<Uint8Array>): Promise<BlobInfo & { sha256: string }>;
  stat(key: string): Promise<BlobInfo | null>;
  /** Streams bytes `start..end` inclusive (whole blob when omitted). */
  read(key: string, range?: { start: number; end: number }): Readable;
  delete(key: string): Promise<void>;
  /** Moves a blob to another key (replacing what is there), atomically where the store can. */
  move(from: string, to: string): Promise<void>;
  /** The blobs whose keys start with `prefix` (a folder, ending in `/`), with their sizes and times. */
  list(prefix: string): Promise<(BlobInfo & { key: string })[]>;
  /**
   * Removes what interrupted writes left behind (a process killed during `put`), older than `olderThanMs`
   * (Unix ms); returns how many were removed. Called at start-up.
   */
  sweepInterrupted(olderThanMs: number): Promise<number>;
}
