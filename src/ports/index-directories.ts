// Where the search indexes keep their files (one engine IndexDirectory per logical index).
import type { IndexName } from '../domain/document.js';
import type { IndexDirectory } from '../engine/index.js';

export interface IndexDirectories {
  open(name: IndexName): IndexDirectory;
  /** Empties the directory (index rebuild). */
  reset(name: IndexName): void;
}

/** Where the corpus-trained models of each index live ({data_dir}/models/<name>; docs/models.md). */
export interface ModelDirectories {
  open(name: IndexName): IndexDirectory;
}
