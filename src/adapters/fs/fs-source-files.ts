// SourceFiles on the local filesystem, with transparent gzip for `.gz`.
import { createReadStream } from 'node:fs';
import { access, readFile, stat } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
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

  async kind(path: string): Promise<'file' | 'directory' | 'missing'> {
    try {
      const s = await stat(path);
      return s.isDirectory() ? 'directory' : 'file';
    } catch {
      return 'missing';
    }
  }

  async head(path: string, n: number): Promise<Uint8Array> {
    const raw = createReadStream(path, { start: 0, end: path.endsWith('.gz') ? Math.max(n * 4, 65_536) : Math.max(0, n - 1) });
    const input = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
    const parts: Buffer[] = [];
    let got = 0;
    try {
      for await (const chunk of input) {
        parts.push(chunk as Buffer);
        got += (chunk as Buffer).length;
        if (got >= n) break;
      }
    } catch {
      // a truncated gzip head: what was decompressed so far is enough to recognise the file
    } finally {
      raw.destroy();
    }
    return Buffer.concat(parts).subarray(0, n);
  }

  async *textChunks(path: string): AsyncIterable<{ text: string; bytesRead: number }> {
    const raw = createReadStream(path, { highWaterMark: 1 << 20 });
    const input = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
    const decoder = new StringDecoder('utf8');
    for await (const chunk of input) yield { text: decoder.write(chunk as Buffer), bytesRead: raw.bytesRead };
    const rest = decoder.end();
    if (rest) yield { text: rest, bytesRead: raw.bytesRead };
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
