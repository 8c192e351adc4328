// `lectern backup DIR` and `lectern restore DIR` (docs/operations.md "Backup and restore", ADR 0215):
// an online, consistent copy of a running server's data directory, and its restore into an empty one.
//
// Order of the copy, so the restored server is consistent: the search indexes first (each by its
// committed manifest), then the corpus models, then the database (SQLite's online backup API, one step,
// so one read transaction), then the blobs and the secret. The indexes are never newer than the
// database: the restored server catches them up from the store (the source of truth) at start, as after
// any crash. Blobs are written before the rows that name them, so every blob the database copy names was
// already on disk when the blobs were copied. The writer's LOCK file, temporary files and SQLite's
// -wal/-shm files are never copied, so a restored directory starts beside the original.
//
// Atomic finish: everything is written into DIR.partial-<pid> beside DIR, every file fsynced, the
// manifest (backup.json: every file with its size and SHA-256) written last, then the directory renamed
// to DIR. A backup killed on the way leaves only a .partial directory, which restore refuses (no
// backup.json); restore also checks every file against the manifest before it writes anything.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { closeSync, copyFileSync, existsSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fsyncPath } from './index-directory.js';

export const BACKUP_MANIFEST = 'backup.json';
export const BACKUP_FORMAT = 1;
const INDEX_MANIFEST = 'manifest.json';
const DB_FILE = 'lectern.db';
const SECRET_FILE = 'secret';

export interface BackupFileEntry {
  /** Path inside the backup, '/'-separated: index/documents/seg-000001.lsg, blobs/originals/..., lectern.db. */
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
}

export interface BackupManifest {
  readonly format: number;
  readonly lectern_version: string;
  readonly created_at: string;
  /** sqlite: lectern.db is in the backup; postgresql: the database is not (pg_dump it: docs/operations.md). */
  readonly store: 'sqlite' | 'postgresql';
  readonly database: string;
  readonly indexes: Record<string, { generation: number; checkpoint: string | null; segments: number }>;
  readonly secret: 'included' | 'configured (LECTERN_SECRET): not included';
  readonly files: readonly BackupFileEntry[];
  readonly total_bytes: number;
}

export interface DataLocations {
  readonly dataDir: string;
  readonly blobDir: string;
  /** PostgreSQL in use (DATABASE_URL): the database is not part of the backup. */
  readonly postgres: boolean;
  /** The secret comes from configuration, not {data_dir}/secret. */
  readonly secretConfigured: boolean;
  readonly indexNames: readonly string[];
  readonly version: string;
}

export class BackupError extends Error {
  override readonly name = 'BackupError';
}

function sha256File(path: string): { bytes: number; sha256: string } {
  const h = createHash('sha256');
  const fd = openSync(path, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  let bytes = 0;
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      h.update(buf.subarray(0, n));
      bytes += n;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, sha256: h.digest('hex') };
}

const isMissing = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT';

/** Writes into a backup being made: every file copied is fsynced and recorded with its checksum. */
class BackupWriter {
  readonly files: BackupFileEntry[] = [];
  constructor(readonly root: string) {}

  #target(path: string): string {
    const t = join(this.root, ...path.split('/'));
    mkdirSync(dirname(t), { recursive: true });
    return t;
  }

  copy(from: string, path: string): BackupFileEntry {
    const t = this.#target(path);
    copyFileSync(from, t);
    return this.#record(t, path);
  }

  write(path: string, bytes: Uint8Array): BackupFileEntry {
    const t = this.#target(path);
    writeFileSync(t, bytes);
    return this.#record(t, path);
  }

  /** A file already placed at `path` (the SQLite backup). */
  adopt(path: string): BackupFileEntry {
    return this.#record(join(this.root, ...path.split('/')), path);
  }

  forget(prefix: string): void {
    for (let i = this.files.length - 1; i >= 0; i--) if (this.files[i]!.path.startsWith(prefix)) this.files.splice(i, 1);
    rmSync(join(this.root, ...prefix.split('/')), { recursive: true, force: true });
  }

  #record(target: string, path: string): BackupFileEntry {
    fsyncPath(target);
    const e = { path, ...sha256File(target) };
    this.files.push(e);
    return e;
  }
}

interface IndexManifestShape {
  generation: number;
  checkpoint: string | null;
  segments: { name: string; bytes: number; delGen: number; vectors?: string; impacts?: string }[];
}

/** How many times a copy starts over when the server committed (and deleted files) under it. */
const MAX_ATTEMPTS = 50;

/**
 * One index directory by its committed manifest: the manifest's bytes are read once and the files it
 * names copied; the writer deletes files only after a newer manifest no longer names them, so a file
 * gone missing (or a segment of the wrong size) means the server committed meanwhile: start over with
 * the new manifest. Files never change under a name (segments, deletions and vectors have fresh names),
 * so the copy is the state of that one commit. The LOCK file is never copied.
 */
function copyIndex(w: BackupWriter, src: string, prefix: string): { generation: number; checkpoint: string | null; segments: number } {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    let raw: Buffer;
    try {
      raw = readFileSync(join(src, INDEX_MANIFEST));
    } catch (e) {
      if (isMissing(e)) return { generation: 0, checkpoint: null, segments: 0 }; // never committed: the restored server builds it
      throw e;
    }
    const m = JSON.parse(raw.toString('utf8')) as IndexManifestShape;
    const names: { name: string; bytes?: number }[] = [];
    for (const s of m.segments) {
      names.push({ name: s.name, bytes: s.bytes });
      if (s.delGen > 0) names.push({ name: `${s.name}.del-${s.delGen}` });
      if (s.vectors !== undefined) names.push({ name: s.vectors });
      if (s.impacts !== undefined) names.push({ name: s.impacts });
    }
    let complete = true;
    for (const n of names) {
      try {
        const e = w.copy(join(src, n.name), `${prefix}/${n.name}`);
        if (n.bytes !== undefined && e.bytes !== n.bytes) throw new BackupError(`index file ${n.name} has ${e.bytes} bytes, its manifest says ${n.bytes}`);
      } catch (e) {
        if (!isMissing(e)) throw e;
        complete = false;
        break;
      }
    }
    if (!complete) {
      w.forget(`${prefix}/`);
      continue;
    }
    w.write(`${prefix}/${INDEX_MANIFEST}`, raw);
    return { generation: m.generation, checkpoint: m.checkpoint, segments: m.segments.length };
  }
  throw new BackupError(`the index in ${src} changed under every one of ${MAX_ATTEMPTS} copies; try again when it is less busy`);
}

interface ModelManifestShape {
  dense?: { file: string; sha256: string };
  sparse?: { file: string; sha256: string };
}

/**
 * One corpus-model directory: the model files its manifest names (checked against the SHA-256 there:
 * a retrain meanwhile starts the copy over), and the other files (training state, ranking models)
 * as they are. Temporary files, LOCK and model files no manifest names are left out.
 */
function copyModels(w: BackupWriter, src: string, prefix: string): void {
  let entries: string[];
  try {
    entries = readdirSync(src);
  } catch (e) {
    if (isMissing(e)) return;
    throw e;
  }
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    let raw: Buffer | null = null;
    try {
      raw = readFileSync(join(src, INDEX_MANIFEST));
    } catch (e) {
      if (!isMissing(e)) throw e;
    }
    const m = raw === null ? {} : (JSON.parse(raw.toString('utf8')) as ModelManifestShape);
    const named = new Map<string, string>();
    for (const f of [m.dense, m.sparse]) if (f) named.set(f.file, f.sha256);
    let ok = true;
    try {
      for (const [file, sum] of named) {
        if (w.copy(join(src, file), `${prefix}/${file}`).sha256 !== sum) {
          ok = false;
          break;
        }
      }
      if (ok) {
        for (const f of entries) {
          if (f === 'LOCK' || f.endsWith('.tmp') || f.endsWith('.lcm') || f === INDEX_MANIFEST) continue;
          try {
            if (!statSync(join(src, f)).isFile()) continue;
            w.copy(join(src, f), `${prefix}/${f}`);
          } catch (e) {
            if (!isMissing(e)) throw e;
          }
        }
      }
    } catch (e) {
      if (!isMissing(e)) throw e;
      ok = false;
    }
    if (!ok) {
      w.forget(`${prefix}/`);
      entries = readdirSync(src);
      continue;
    }
    if (raw !== null) w.write(`${prefix}/${INDEX_MANIFEST}`, raw);
    return;
  }
  throw new BackupError(`the models in ${src} changed under every one of ${MAX_ATTEMPTS} copies; try again after training`);
}

/** Every blob file (temporary files of writes in progress left out), as '/'-separated relative paths. */
function listBlobs(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (e) {
      if (isMissing(e)) return;
      throw e;
    }
    for (const n of names) {
      const p = join(dir, n);
      let st;
      try {
        st = lstatSync(p);
      } catch (e) {
        if (isMissing(e)) continue;
        throw e;
      }
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && !n.endsWith('.tmp')) out.push(relative(root, p).split(sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}

/** Removes partial backups of DIR left by backups that were killed (their process is gone). */
function removeStalePartials(target: string): void {
  const parent = dirname(target);
  const base = basename(target);
  for (const n of readdirSync(parent)) {
    const m = n.startsWith(`${base}.partial-`) ? /^(\d+)$/.exec(n.slice(base.length + 9)) : null;
    if (!m) continue;
    const pid = Number(m[1]);
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch (e) {
      alive = (e as NodeJS.ErrnoException).code === 'EPERM';
    }
    if (!alive) rmSync(join(parent, n), { recursive: true, force: true });
  }
}

/** Makes the backup; resolves to its manifest. DIR must not exist yet. */
export async function backupDataDir(loc: DataLocations, dir: string): Promise<BackupManifest> {
  const target = resolve(dir);
  if (existsSync(target)) throw new BackupError(`${target} exists; give a new directory (a backup never overwrites one)`);
  const dataDir = resolve(loc.dataDir);
  for (const inside of [dataDir, resolve(loc.blobDir)]) {
    if (target === inside || target.startsWith(inside + sep)) throw new BackupError(`the backup directory must be outside ${inside} (it would copy itself)`);
  }
  if (!existsSync(dirname(target))) throw new BackupError(`${dirname(target)} does not exist`);
  const dbPath = join(dataDir, DB_FILE);
  if (!loc.postgres && !existsSync(dbPath)) throw new BackupError(`no database at ${dbPath}: is LECTERN_DATA_DIR the server's data directory?`);
  removeStalePartials(target);
  const tmp = `${target}.partial-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { mode: 0o700 });
  try {
    const w = new BackupWriter(tmp);
    // 1. the indexes, each by its committed manifest (never newer than the database copied after them)
    const indexes: BackupManifest['indexes'] = {};
    for (const name of loc.indexNames) indexes[name] = copyIndex(w, join(dataDir, 'index', name), `index/${name}`);
    // 2. the corpus models and ranking models
    for (const name of loc.indexNames) copyModels(w, join(dataDir, 'models', name), `models/${name}`);
    // 3. the database: SQLite's online backup API in one step (one read transaction: a consistent
    //    snapshot while the server writes; WAL mode never blocks the server's writers)
    if (!loc.postgres) {
      const src = new Database(dbPath, { fileMustExist: true });
      try {
        src.pragma('busy_timeout = 10000');
        await src.backup(join(tmp, DB_FILE), { progress: () => 0x7fffffff });
      } finally {
        src.close();
      }
      const copy = new Database(join(tmp, DB_FILE));
      try {
        // a standalone file: no -wal beside it, and a check that what was written reads back whole
        copy.pragma('journal_mode = DELETE');
        const check = copy.pragma('quick_check', { simple: true });
        if (check !== 'ok') throw new BackupError(`the database copy failed its check: ${String(check)}`);
      } finally {
        copy.close();
      }
      w.adopt(DB_FILE);
    }
    // 4. blobs (originals, uploads): written before the rows that name them, so copied after the database
    for (const key of listBlobs(loc.blobDir)) {
      try {
        w.copy(join(loc.blobDir, ...key.split('/')), `blobs/${key}`);
      } catch (e) {
        if (!isMissing(e)) throw e; // deleted since listed (a staged upload moved into place): not needed
      }
    }
    // 5. the secret (sessions, OAuth signing keys and feedback tokens depend on it)
    if (!loc.secretConfigured && existsSync(join(dataDir, SECRET_FILE))) w.copy(join(dataDir, SECRET_FILE), SECRET_FILE);
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      lectern_version: loc.version,
      created_at: new Date().toISOString(),
      store: loc.postgres ? 'postgresql' : 'sqlite',
      database: loc.postgres ? 'not included: PostgreSQL (DATABASE_URL) is backed up with pg_dump (docs/operations.md)' : DB_FILE,
      indexes,
      secret: loc.secretConfigured ? 'configured (LECTERN_SECRET): not included' : 'included',
      files: [...w.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
      total_bytes: w.files.reduce((s, f) => s + f.bytes, 0),
    };
    // the manifest last: a directory without it is not a backup
    writeFileSync(join(tmp, BACKUP_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    fsyncPath(join(tmp, BACKUP_MANIFEST));
    const dirs = new Set<string>([tmp]);
    for (const f of manifest.files) for (let d = dirname(join(tmp, f.path)); d.startsWith(tmp); d = dirname(d)) dirs.add(d);
    for (const d of dirs) fsyncPath(d);
    renameSync(tmp, target);
    fsyncPath(dirname(target));
    return manifest;
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

/** Reads and checks a backup: its manifest, and every file's size and SHA-256. */
export function verifyBackup(dir: string): BackupManifest {
  const root = resolve(dir);
  if (!existsSync(root)) throw new BackupError(`${root} does not exist`);
  let m: BackupManifest;
  try {
    m = JSON.parse(readFileSync(join(root, BACKUP_MANIFEST), 'utf8')) as BackupManifest;
  } catch (e) {
    if (isMissing(e)) throw new BackupError(`${root} is not a finished backup (no ${BACKUP_MANIFEST}; a backup that was interrupted leaves none)`);
    throw new BackupError(`${join(root, BACKUP_MANIFEST)} cannot be read: ${(e as Error).message}`);
  }
  if (m.format !== BACKUP_FORMAT || !Array.isArray(m.files)) throw new BackupError(`${root}: unsupported backup format ${String(m.format)}`);
  for (const f of m.files) {
    if (typeof f.path !== 'string' || f.path.split('/').some((p: string) => p === '' || p === '.' || p === '..')) throw new BackupError(`${root}: bad path ${JSON.stringify(f.path)} in ${BACKUP_MANIFEST}`);
    let got;
    try {
      got = sha256File(join(root, ...f.path.split('/')));
    } catch (e) {
      if (isMissing(e)) throw new BackupError(`${root}: ${f.path} is missing`);
      throw e;
    }
    if (got.bytes !== f.bytes || got.sha256 !== f.sha256) throw new BackupError(`${root}: ${f.path} does not match its checksum in ${BACKUP_MANIFEST} (damaged backup)`);
  }
  return m;
}

function isEmptyOrMissing(dir: string): boolean {
  try {
    return readdirSync(dir).length === 0;
  } catch (e) {
    if (isMissing(e)) return true;
    throw e;
  }
}

/**
 * Restores a checked backup into the configured data directory (and blob directory), which must be
 * empty or missing. Resolves to the manifest and the number of files written.
 */
export function restoreDataDir(loc: DataLocations, dir: string): { manifest: BackupManifest; files: number } {
  const dataDir = resolve(loc.dataDir);
  const blobDir = resolve(loc.blobDir);
  const blobsInside = blobDir === join(dataDir, 'blobs');
  if (!isEmptyOrMissing(dataDir)) throw new BackupError(`the data directory ${dataDir} is not empty; restore writes only into an empty (or new) directory`);
  if (!blobsInside && !isEmptyOrMissing(blobDir)) throw new BackupError(`the blob directory ${blobDir} is not empty; restore writes only into an empty (or new) directory`);
  const m = verifyBackup(dir);
  if (m.store === 'sqlite' && loc.postgres) {
    throw new BackupError('this backup holds a SQLite database, but DATABASE_URL is set: unset it to restore into the embedded store (a SQLite backup does not move into PostgreSQL)');
  }
  if (m.store === 'postgresql' && !loc.postgres) {
    throw new BackupError('this backup was made with PostgreSQL and holds no database: set DATABASE_URL to the database restored with pg_restore (docs/operations.md), then restore');
  }
  if (m.secret !== 'included' && !loc.secretConfigured) {
    throw new BackupError('this backup was made with LECTERN_SECRET set and holds no secret: set the same LECTERN_SECRET, then restore');
  }
  const root = resolve(dir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const written = new Set<string>();
  // the database last: a restore interrupted before it leaves no store that looks whole
  const ordered = [...m.files.filter((f) => f.path !== DB_FILE), ...m.files.filter((f) => f.path === DB_FILE)];
  for (const f of ordered) {
    const parts = f.path.split('/');
    const target = parts[0] === 'blobs' ? join(blobDir, ...parts.slice(1)) : join(dataDir, ...parts);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(root, ...parts), target);
    fsyncPath(target);
    written.add(dirname(target));
  }
  for (const d of written) fsyncPath(d);
  fsyncPath(dataDir);
  return { manifest: m, files: ordered.length };
}
