// The search indexes' directories under {data_dir}/index/<name>.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { IndexName } from '../../domain/document.js';
import type { IndexDirectories, ModelDirectories } from '../../ports/index-directories.js';
import { FsIndexDirectory } from './index-directory.js';

export function fsIndexDirectories(root: string): IndexDirectories {
  return {
    open: (name: IndexName) => new FsIndexDirectory(join(root, name)),
    reset: (name: IndexName) => rmSync(join(root, name), { recursive: true, force: true }),
  };
}

/** The corpus-trained models' directories under {data_dir}/models/<name> (docs/models.md). */
export function fsModelDirectories(root: string): ModelDirectories {
  return { open: (name: IndexName) => new FsIndexDirectory(join(root, name)) };
}
