// A search replica's index files as a snapshot's source and an install's target (issue 24, ADR 0255).
//
// Pinning: each index's committed manifest is read and every file it names is opened, all in one
// synchronous step, so no commit of this process's index (commits and garbage collection run on the
// thread that calls pin) comes in between; an open descriptor keeps a file's bytes readable after the
// index deletes it (a merge committed meanwhile), so the upload streams exactly the pinned commit.
//
// Staging: a download goes to `<index root>.snapshot-staging/<index>/`, beside the index root on the
// same file system, every file fsynced and hashed as it is written; once everything is verified an
// index is installed by renaming its staged directory into place.
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, existsSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { LocalIndexFiles, PinnedIndexFiles, SnapshotStaging } from '../../ports/shard-snapshots.js';
import { fsyncPath } from './index-directory.js';

const MANIFEST = 'manifest.json';
/** A file path inside a snapshot: `<index>/<plain file name>`. */
const PATH_RE = /^([a-z][a-z0-9_-]*)\/([A-Za-z0-9][A-Za-z0-9._-]*)$/;

interface ManifestShape {
  generation: number;
  checkpoint: string | null;
  segments: { name: string; bytes: number; delGen: number; vectors?: string; impacts?: string }[];
}

/** The files a committed manifest names (segments with their byte counts, deletions, vectors, impacts). */
function namedFiles(m: ManifestShape): { name: string; bytes?: number }[] {
  const out: { name: string; bytes?: number }[] = [];
  for (const s of m.segments) {
    out.push({ name: s.name, bytes: s.bytes });
    if (s.delGen > 0) out.push({ name: `${s.name}.del-${s.delGen}` });
    if (s.vectors !== undefined) out.push({ name: s.vectors });
    if (s.impacts !== undefined) out.push({ name: s.impacts });
  }
  return out;
}

export class FsLocalIndexFiles implements LocalIndexFiles {
  constructor(
    /** The index root (`<data_dir>/index`): one directory per index. */
    private readonly root: string,
    private readonly names: readonly string[],
  ) {}

  get stagingRoot(): string {
    return `${this.root}.snapshot-staging`;
  }

  pin(): PinnedIndexFiles {
    const fds = new Map<string, number>();
    const manifests = new Map<string, Uint8Array>();
    const files: { path: string; bytes: number }[] = [];
    const indexes: Record<string, { checkpoint: string | null; generation: number; segments: number }> = {};
    try {
      for (const name of this.names) {
        const dir = join(this.root, name);
        let raw: Buffer;
        try {
          raw = readFileSync(join(dir, MANIFEST));
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
            indexes[name] = { checkpoint: null, generation: 0, segments: 0 };
            continue;
          }
          throw e;
        }
        const m = JSON.parse(raw.toString('utf8')) as ManifestShape;
        indexes[name] = { checkpoint: m.checkpoint, generation: m.generation, segments: m.segments.length };
        for (const f of namedFiles(m)) {
          const fd = openSync(join(dir, f.name), 'r');
          fds.set(`${name}/${f.name}`, fd);
          const size = fstatSync(fd).size;
          if (f.bytes !== undefined && size !== f.bytes) throw new Error(`index file ${name}/${f.name} has ${size} bytes, its manifest says ${f.bytes}`);
          files.push({ path: `${name}/${f.name}`, bytes: size });
        }
        manifests.set(`${name}/${MANIFEST}`, new Uint8Array(raw));
        files.push({ path: `${name}/${MANIFEST}`, bytes: raw.byteLength });
      }
    } catch (e) {
      for (const fd of fds.values()) closeSync(fd);
      throw e;
    }
    let released = false;
    return {
      files,
      indexes,
      read(path: string): AsyncIterable<Uint8Array> {
        const m = manifests.get(path);
        if (m) return (async function* () { yield m; })();
        const fd = fds.get(path);
        if (fd === undefined) throw new Error(`${path} is not a pinned file`);
        // streamed from the pinned descriptor, 1 MiB at a time, from its start
        return createReadStream('', { fd, autoClose: false, start: 0, highWaterMark: 1 << 20 }) as AsyncIterable<Uint8Array>;
      },
      release(): void {
        if (released) return;
        released = true;
        for (const fd of fds.values()) closeSync(fd);
      },
    };
  }

  stage(): SnapshotStaging {
    const base = this.stagingRoot;
    rmSync(base, { recursive: true, force: true });
    mkdirSync(base, { recursive: true });
    const names = new Set(this.names);
    const target = (path: string): string => {
      const m = PATH_RE.exec(path);
      if (!m || !names.has(m[1]!)) throw new Error(`snapshot file path '${path}' is not <index>/<file> of this node's indexes`);
      return join(base, m[1]!, m[2]!);
    };
    return {
      write: async (path, data) => {
        const t = target(path);
        mkdirSync(dirname(t), { recursive: true });
        const h = createHash('sha256');
        const fh = await open(t, 'w');
        let bytes = 0;
        try {
          for await (const chunk of data) {
            h.update(chunk);
            let off = 0;
            while (off < chunk.byteLength) off += (await fh.write(chunk, off, chunk.byteLength - off)).bytesWritten;
            bytes += chunk.byteLength;
          }
          await fh.sync();
        } finally {
          await fh.close();
        }
        return { bytes, sha256: h.digest('hex') };
      },
      verify: () => {
        for (const name of this.names) {
          const dir = join(base, name);
          const p = join(dir, MANIFEST);
          if (!existsSync(p)) throw new Error(`the snapshot has no manifest for the ${name} index`);
          let m: ManifestShape;
          try {
            m = JSON.parse(readFileSync(p, 'utf8')) as ManifestShape;
          } catch (e) {
            throw new Error(`the snapshot's ${name} manifest does not parse (${(e as Error).message})`);
          }
          for (const f of namedFiles(m)) {
            let size: number;
            try {
              size = statSync(join(dir, f.name)).size;
            } catch {
              throw new Error(`the snapshot's ${name} manifest names ${f.name}, which is not in the snapshot`);
            }
            if (f.bytes !== undefined && size !== f.bytes) throw new Error(`${name}/${f.name} has ${size} bytes, its manifest says ${f.bytes}`);
          }
          fsyncPath(dir); // the files were fsynced as written
        }
      },
      installInto: (name) => {
        if (!names.has(name)) throw new Error(`no index ${name}`);
        const from = join(base, name);
        const to = join(this.root, name);
        if (existsSync(to)) rmSync(to, { recursive: true, force: true });
        mkdirSync(this.root, { recursive: true });
        renameSync(from, to);
        fsyncPath(this.root);
      },
      discard: () => rmSync(base, { recursive: true, force: true }),
    };
  }
}
