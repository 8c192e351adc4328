// Snapshots of a shard (issue 24, docs/scale.md "Bootstrap of a new replica", ADR 0255): a search node
// publishes the files of its committed indexes and the log sequence they cover into the cluster's object
// store; a new replica of the shard installs the latest one and follows the log from just after it, so
// it is ready in time bounded by the snapshot's size and the log's tail, not the shard's whole history.
//
// Object keys: `shard-<n>/<id>/<index>/<file>` for the files, `shard-<n>/<id>/snapshot.json` (the
// descriptor, ports/shard-snapshots.ts) written last: a snapshot without its descriptor does not exist
// for readers. The latest `keep` snapshots of a shard are kept; older ones, and files of uploads that
// never finished (older than ORPHAN_GRACE_MS), are deleted by the next publish.
import { createHash } from 'node:crypto';
import { ANALYSIS_VERSION } from '../engine/index.js';
import { parseCheckpointLabel } from '../search/index-set.js';
import type { IndexName } from '../domain/document.js';
import type { LocalIndexFiles, ShardSnapshot, SnapshotFile, SnapshotObjects } from '../ports/shard-snapshots.js';

const DESCRIPTOR = 'snapshot.json';
/** Files of a snapshot id with no descriptor are an upload in progress for this long, then leftovers. */
export const ORPHAN_GRACE_MS = 3_600_000;

const prefixOf = (shard: number) => `shard-${shard}/`;
const keyOf = (shard: number, id: string, path: string) => `shard-${shard}/${id}/${path}`;

/** Hashes `data` as it passes through (the SHA-256 and size recorded in the descriptor). */
function hashing(data: AsyncIterable<Uint8Array>, into: { bytes: number; sha256: string }): AsyncIterable<Uint8Array> {
  return (async function* () {
    const h = createHash('sha256');
    for await (const chunk of data) {
      h.update(chunk);
      into.bytes += chunk.byteLength;
      yield chunk;
    }
    into.sha256 = h.digest('hex');
  })();
}

async function readAll(data: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let n = 0;
  for await (const c of data) {
    parts.push(c);
    n += c.byteLength;
  }
  const out = new Uint8Array(n);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.byteLength;
  }
  return out;
}

/** Why a descriptor cannot be installed here, or null when it can (before any file is fetched). */
export function descriptorProblem(d: unknown, shard: number, shards: number): string | null {
  const s = d as Partial<ShardSnapshot> | null;
  if (!s || typeof s !== 'object' || s.format !== 1) return 'its descriptor is not a format 1 snapshot';
  if (s.shard !== shard) return `it is of shard ${String(s.shard)}, not ${shard}`;
  if (s.shards !== shards) return `it was taken with ${String(s.shards)} shards; the cluster has ${shards}`;
  if (s.analysis !== ANALYSIS_VERSION) return `its indexes use text analysis ${String(s.analysis)}; this version uses ${ANALYSIS_VERSION}`;
  if (!Number.isSafeInteger(s.seq) || !Number.isSafeInteger(s.logSeq) || !Array.isArray(s.files) || s.files.length === 0) return 'its descriptor lacks its sequences or files';
  for (const f of s.files) if (typeof f?.path !== 'string' || !Number.isSafeInteger(f.bytes) || typeof f.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(f.sha256)) return 'its descriptor lists a malformed file';
  return null;
}

export interface PublishOptions {
  objects: SnapshotObjects;
  local: LocalIndexFiles;
  shard: number;
  shards: number;
  /** The member publishing (`search-<shard>-<replica>`). */
  node: string;
  /**
   * The log sequence up to which the replica's changes are durable in its indexes, read before the
   * files are pinned (so the pinned commit covers at least that much of the log).
   */
  logPosition: () => Promise<number>;
  /** Snapshots of the shard to keep (the newest). */
  keep: number;
  nowMs: () => number;
}

export interface PublishResult {
  snapshot: ShardSnapshot;
  ms: number;
  /** Snapshot ids deleted (older than the kept ones, or unfinished uploads). */
  deleted: string[];
}

/**
 * Publishes a snapshot of the replica's committed indexes: the log position first, then the files
 * pinned, streamed one by one into the object store (hashed on the way), the descriptor last, then
 * the shard's snapshots beyond the newest `keep` deleted. Null when the indexes have never committed.
 */
export async function publishSnapshot(o: PublishOptions): Promise<PublishResult | null> {
  const t0 = o.nowMs();
  const logSeq = await o.logPosition();
  const pinned = o.local.pin();
  try {
    let seq = Infinity;
    for (const [name, i] of Object.entries(pinned.indexes)) {
      const label = i.checkpoint === null ? null : parseCheckpointLabel(i.checkpoint);
      if (label === null) return null; // never committed (or a label this code did not write): nothing worth installing
      if (label.analysis !== ANALYSIS_VERSION) throw new Error(`the ${name} index uses text analysis ${label.analysis}, not ${ANALYSIS_VERSION}`);
      seq = Math.min(seq, label.seq);
    }
    if (!Number.isFinite(seq) || seq === 0) return null;
    const createdMs = o.nowMs();
    const id = `${String(createdMs).padStart(13, '0')}-${o.node}`;
    const files: SnapshotFile[] = [];
    for (const f of pinned.files) {
      const into = { bytes: 0, sha256: '' };
      await o.objects.put(keyOf(o.shard, id, f.path), hashing(pinned.read(f.path), into));
      if (into.bytes !== f.bytes) throw new Error(`${f.path} streamed ${into.bytes} bytes, pinned with ${f.bytes}`);
      files.push({ path: f.path, bytes: into.bytes, sha256: into.sha256 });
    }
    const snapshot: ShardSnapshot = {
      format: 1,
      id,
      shard: o.shard,
      shards: o.shards,
      analysis: ANALYSIS_VERSION,
      seq,
      logSeq,
      createdAt: new Date(createdMs).toISOString(),
      node: o.node,
      indexes: pinned.indexes,
      files,
      totalBytes: files.reduce((n, f) => n + f.bytes, 0),
    };
    const body = new TextEncoder().encode(JSON.stringify(snapshot));
    await o.objects.put(keyOf(o.shard, id, DESCRIPTOR), (async function* () { yield body; })());
    const deleted = await pruneSnapshots(o.objects, o.shard, o.keep, o.nowMs());
    return { snapshot, ms: o.nowMs() - t0, deleted };
  } finally {
    pinned.release();
  }
}

/** The shard's snapshots that have a descriptor, newest first (descriptors that do not parse are left out). */
export async function listSnapshots(objects: SnapshotObjects, shard: number): Promise<ShardSnapshot[]> {
  const out: ShardSnapshot[] = [];
  for (const o of await objects.list(prefixOf(shard))) {
    if (!o.key.endsWith(`/${DESCRIPTOR}`)) continue;
    const data = await objects.get(o.key);
    if (data === null) continue;
    try {
      out.push(JSON.parse(new TextDecoder().decode(await readAll(data))) as ShardSnapshot);
    } catch {
      // a damaged descriptor: the snapshot is passed over (pruning removes it in time)
      out.push({ id: o.key.split('/')[1]!, shard, format: 0 } as unknown as ShardSnapshot);
    }
  }
  return out.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/**
 * Deletes the shard's snapshots beyond the newest `keep` that have a descriptor, and the files of ids
 * without one whose newest object is older than ORPHAN_GRACE_MS (an upload that died). Returns the ids.
 */
export async function pruneSnapshots(objects: SnapshotObjects, shard: number, keep: number, nowMs: number): Promise<string[]> {
  const all = await objects.list(prefixOf(shard));
  const byId = new Map<string, { keys: string[]; described: boolean; newest: number }>();
  for (const o of all) {
    const id = o.key.split('/')[1]!;
    const e = byId.get(id) ?? { keys: [], described: false, newest: 0 };
    e.keys.push(o.key);
    if (o.key.endsWith(`/${DESCRIPTOR}`)) e.described = true;
    e.newest = Math.max(e.newest, o.mtimeMs);
    byId.set(id, e);
  }
  const described = [...byId].filter(([, e]) => e.described).map(([id]) => id).sort().reverse();
  const drop = new Set(described.slice(Math.max(1, keep)));
  for (const [id, e] of byId) if (!e.described && nowMs - e.newest > ORPHAN_GRACE_MS) drop.add(id);
  for (const id of drop) {
    const e = byId.get(id)!;
    // the descriptor first: a reader never sees a snapshot whose files are going
    const keys = [...e.keys].sort((a, b) => Number(b.endsWith(DESCRIPTOR)) - Number(a.endsWith(DESCRIPTOR)));
    for (const k of keys) await objects.delete(k);
  }
  return [...drop];
}

/** What installing a snapshot came to. */
export type InstallOutcome =
  | { installed: true; snapshot: ShardSnapshot; ms: number }
  | { installed: false; reason: string; /** true: the log's retention, not a damaged snapshot */ logTooShort?: boolean };

export interface InstallOptions {
  objects: SnapshotObjects;
  local: LocalIndexFiles;
  shard: number;
  shards: number;
  /** Whether the log still holds every message after a log sequence (and where it starts now). */
  logHoldsAfter: (logSeq: number) => Promise<{ holds: boolean; firstSeq: number }>;
  /** Swaps the replica's indexes for the staged ones (IndexSet.replace); the installed checkpoint. */
  replace: (install: (name: IndexName) => void) => Promise<number>;
  nowMs: () => number;
  /** Progress, for readiness (`installing snapshot ...`). */
  onState?: (state: string) => void;
}

/**
 * Installs the shard's newest snapshot: refused before any download when none exists, when it does not
 * fit this node (shards, analysis) or when the log no longer holds the changes after it; then every file
 * is downloaded into staging and checked against the descriptor's size and SHA-256, every staged index
 * checked against its manifest, and only then are the indexes swapped for the staged ones. Any failure
 * leaves nothing installed and says why.
 */
export async function installLatestSnapshot(o: InstallOptions): Promise<InstallOutcome> {
  const t0 = o.nowMs();
  const list = await listSnapshots(o.objects, o.shard);
  if (list.length === 0) return { installed: false, reason: `no snapshot of shard ${o.shard} has been published` };
  const s = list[0]!;
  const problem = descriptorProblem(s, o.shard, o.shards);
  if (problem) return { installed: false, reason: `snapshot ${s.id} of shard ${o.shard} is refused: ${problem}` };
  const log = await o.logHoldsAfter(s.logSeq);
  if (!log.holds) {
    return {
      installed: false,
      logTooShort: true,
      reason: `snapshot ${s.id} of shard ${o.shard} covers the log up to sequence ${s.logSeq}, but the log now starts at ${log.firstSeq}: the changes in between were removed by its retention (cluster.log_max_age_hours); installing it would serve incomplete data`,
    };
  }
  const staging = o.local.stage();
  try {
    let done = 0;
    for (const f of s.files) {
      o.onState?.(`installing snapshot ${s.id} (store sequence ${s.seq}, log sequence ${s.logSeq}): ${done} of ${s.totalBytes} bytes`);
      const data = await o.objects.get(keyOf(o.shard, s.id, f.path));
      if (data === null) return { installed: false, reason: `snapshot ${s.id} is refused: its file ${f.path} is missing from the store` };
      let got: { bytes: number; sha256: string };
      try {
        got = await staging.write(f.path, data);
      } catch (e) {
        return { installed: false, reason: `snapshot ${s.id} is refused: ${f.path} could not be read (${(e as Error).message.split('\n')[0]})` };
      }
      if (got.bytes !== f.bytes || got.sha256 !== f.sha256) {
        return { installed: false, reason: `snapshot ${s.id} is refused: ${f.path} is damaged (${got.bytes} bytes, SHA-256 ${got.sha256}; its descriptor says ${f.bytes} bytes, ${f.sha256})` };
      }
      done += got.bytes;
    }
    try {
      staging.verify();
    } catch (e) {
      return { installed: false, reason: `snapshot ${s.id} is refused: ${(e as Error).message}` };
    }
    let checkpoint: number;
    try {
      checkpoint = await o.replace((name) => staging.installInto(name));
    } catch (e) {
      return { installed: false, reason: `snapshot ${s.id} could not be opened: ${(e as Error).message}` };
    }
    if (checkpoint !== s.seq) return { installed: false, reason: `snapshot ${s.id} installed at store sequence ${checkpoint}, its descriptor says ${s.seq}` };
    return { installed: true, snapshot: s, ms: o.nowMs() - t0 };
  } finally {
    staging.discard();
  }
}

export interface SnapshotterOptions {
  /** Publishes one snapshot now (publishSnapshot with the node's parts). */
  publish: () => Promise<PublishResult | null>;
  /** The newest snapshot of the shard in the store, by anyone (null: none). */
  latest: () => Promise<ShardSnapshot | null>;
  /** The store sequence the replica's indexes have committed. */
  checkpoint: () => number;
  /** How often to consider a snapshot, ms (0: only on request). */
  intervalMs: number;
  nowMs: () => number;
  report?: (err: unknown, context: string) => void;
  onPublished?: (r: PublishResult) => void;
}

/**
 * A search node's snapshots: on request (`snapshotNow`) and every `intervalMs` when the replica's
 * committed checkpoint is past the shard's newest snapshot and that snapshot is older than half an
 * interval (so the replicas of a shard do not all publish the same state). One publish at a time.
 */
export class Snapshotter {
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<PublishResult | null> = Promise.resolve(null);
  #stopped = false;

  constructor(private readonly o: SnapshotterOptions) {}

  /** Publishes a snapshot now (after one in progress), whatever the interval. */
  snapshotNow(): Promise<PublishResult | null> {
    const run = this.#running.catch(() => null).then(async () => {
      const r = await this.o.publish();
      if (r) this.o.onPublished?.(r);
      return r;
    });
    this.#running = run.catch(() => null);
    return run;
  }

  /** One periodic turn: publishes when due; the result, or null when not due. */
  async tick(): Promise<PublishResult | null> {
    const cp = this.o.checkpoint();
    if (cp === 0) return null;
    const latest = await this.o.latest();
    if (latest && (latest.seq >= cp || this.o.nowMs() - Date.parse(latest.createdAt) < this.o.intervalMs / 2)) return null;
    return this.snapshotNow();
  }

  start(): void {
    if (this.o.intervalMs <= 0 || this.#timer) return;
    this.#timer = setInterval(() => {
      if (this.#stopped) return;
      this.tick().catch((err: unknown) => this.o.report?.(err, 'shard snapshot failed; trying again next interval'));
    }, this.o.intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running.catch(() => undefined);
  }
}
