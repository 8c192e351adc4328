// Reading input files for ingest (JSONL, optionally gzip-compressed) and the originals they name.

export interface SourceLine {
  /** 1-based line number. */
  number: number;
  text: string;
  /** Bytes of the (compressed) file consumed so far, for progress. */
  bytesRead: number;
}

export interface SourceFiles {
  /** Size in bytes (of the file as stored, compressed or not). */
  size(path: string): Promise<number>;
  /** Lines of a text file; `.gz` files are decompressed. */
  lines(path: string): AsyncIterable<SourceLine>;
  /** The bytes of a file. */
  read(path: string): Promise<Uint8Array>;
  /** `relative` resolved against the directory of `file`. */
  resolveBeside(file: string, relative: string): string;
  exists(path: string): Promise<boolean>;
  /** What is at `path`: a file, a directory, or nothing. */
  kind(path: string): Promise<'file' | 'directory' | 'missing'>;
  /** The first bytes of a file (`.gz` decompressed), at most `n`: to recognise what a file is. */
  head(path: string, n: number): Promise<Uint8Array>;
  /** The text of a UTF-8 file in chunks (`.gz` decompressed), for streaming parsers (XML dumps). */
  textChunks(path: string): AsyncIterable<{ text: string; bytesRead: number }>;
}
