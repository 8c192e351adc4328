// SourceFiles on the local filesystem, with transparent gzip for `.gz`.
import { createReadStream } from 'node:fs';
import { access, readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { SourceFiles, SourceLine } from '../../ports/source-files.js';

export class FsSourceFiles implements SourceFiles {
  async size(path: string): Promise<number> {
    return (await stat(path)).size;
  }

  async *lines(path: string): AsyncIterable<SourceLine> {
    const raw = createReadStream(path, { highWaterMark: 1 << 20 });
    const input = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
    const rl = createInterface({ input, crlfDelay: Infinity });
    let number = 0;
    for await (const text of rl) {
      number++;
      yield { number, text, bytesRead: raw.bytesRead };
    }
  }

  async read(path: string): Promise<Uint8Array> {
    return readFile(path);
  }

  resolveBeside(file: string, relative: string): string {
    return resolve(dirname(file), relative);
  }

  async exists(path: string): Promise<boolean> {
    try {
      await access(path);
      return true;
    } catch {
      return false;
    }
  }
}
