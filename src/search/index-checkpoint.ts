// The store change sequence the indexes in a data directory have committed, read from their manifests
// without opening them: what `lectern ingest --wait` polls while a running server is their writer
// (docs/ingest.md "Waiting until searchable", ADR 0244). The server commits and publishes to its search
// threads in one step, so a committed sequence is one its searches see.
import { SearchIndex } from '../engine/index.js';
import { INDEX_NAMES } from '../domain/document.js';
import type { IndexDirectories } from '../ports/index-directories.js';
import { parseCheckpointLabel } from './index-set.js';

/** The lowest committed store sequence over the indexes (0 when one never committed). */
export function committedCheckpoint(dirs: IndexDirectories): number {
  let min = Infinity;
  for (const name of INDEX_NAMES) {
    const label = SearchIndex.readCheckpoint(dirs.open(name));
    min = Math.min(min, label === null ? 0 : (parseCheckpointLabel(label)?.seq ?? 0));
  }
  return Number.isFinite(min) ? min : 0;
}
