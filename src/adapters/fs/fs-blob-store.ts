// Blob store on the local filesystem. Keys are relative paths (`originals/<sha256>.pdf`); a write goes
// to a temporary file that is fsynced and renamed into place, so readers never see a partial blob.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, normalize, sep } from 'node:path';
import type { Readable } from 'node:stream';
import type { BlobInfo, BlobStore } from '../../ports/blob-store.js';

export class FsBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  #path(key: string): string {
    const p = normalize(join(this.root, key));
    if (!p.startsWith(normalize(this.root) + sep) || key.includes('\0')) throw new Error(`invalid blob key ${JSON.stringify(key)}`);
    return p;
  }

  async put(key: string, data: Uint8Array | AsyncIterable<Uint8Array>): Promise<BlobInfo & { sha256: string }> {
    const target = this.#path(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    const hash = createHash('sha256');
    let bytes = 0;
    const fh = await open(tmp, 'w');
    try {
      const chunks: AsyncIterable<Uint8Array> | Uint8Array[] = data instanceof Uint8Array ? [data] : data;
      for await (const chunk of chunks) {
        hash.update(chunk);
        bytes += chunk.byteLength;
        await fh.write(chunk);
      }
      await fh.sync();
    } catch (e) {
      await fh.close();
      await rm(tmp, { force: true });
      throw e;
    }
    await fh.close();
    await rename(tmp, target);
    const s = await stat(target);
    return { bytes, modifiedMs: s.mtimeMs, sha256: hash.digest('hex') };
  }

  async stat(key: string): Promise<BlobInfo | null> {
    try {
      const s = await stat(this.#path(key));
      return { bytes: s.size, modifiedMs: s.mtimeMs };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    return createReadStream(this.#path(key), range ? { start: range.start, end: range.end } : {});
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true });
  }

  async move(from: string, to: string): Promise<void> {
    const target = this.#path(to);
    await mkdir(dirname(target), { recursive: true });
    await rename(this.#path(from), target);
  }

  async list(prefix: string): Promise<(BlobInfo & { key: string })[]> {
    const dir = this.#path(prefix.endsWith('/') ? `${prefix}.` : prefix);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const out: (BlobInfo & { key: string })[] = [];
    for (const name of names) {
      if (name.endsWith('.tmp')) continue;
      const s = await stat(join(dir, name)).catch(() => null);
      if (s?.isFile()) out.push({ key: `${prefix.replace(/\/?$/, '/')}${name}`, bytes: s.size, modifiedMs: s.mtimeMs });
    }
    return out;
  }

  async sweepInterrupted(olderThanMs: number): Promise<number> {
    let removed = 0;
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const p = join(dir, e.name);
        if (e.isDirectory()) await walk(p);
        else if (e.name.endsWith('.tmp')) {
          const s = await stat(p).catch(() => null);
          if (s && s.mtimeMs < olderThanMs) {
            await rm(p, { force: true });
            removed++;
          }
        }
      }
    };
    await walk(this.root);
    return removed;
  }
}
