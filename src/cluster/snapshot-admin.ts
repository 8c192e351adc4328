// The operator's view of shard snapshots (`lectern cluster snapshot create|list|prune`; ADR 0295, on
// ADR 0255): ask live search replicas to publish a snapshot of their shard now, list what the cluster's
// object store holds, and delete all but the newest N of each shard. The replicas are found in the
// membership bucket (each announces its shard, replica, URL and the store sequence it committed); the
// snapshots are read and pruned in the object store directly, with the same code a publishing replica
// runs (listSnapshots, pruneSnapshots), so a prune from the CLI and one after a publish agree.
import type { Member } from '../ports/shard-log.js';
import type { ShardSnapshot, SnapshotObjects } from '../ports/shard-snapshots.js';
import { listSnapshots, pruneSnapshots } from './shard-snapshots.js';

/** What a search node answers to `POST /internal/v1/shards/{shard}/snapshot` (http/shard-server.ts). */
export interface SnapshotRequestAnswer {
  shard: number;
  snapshot: { id: string; seq: number; log_seq: number; bytes: number; files: number };
  ms: number;
  deleted: string[];
}

export interface SnapshotAdminOptions {
  /** The cluster's shard count (cluster.shards). */
  shards: number;
  /** The live members of the cluster now (membership bucket). */
  liveMembers: () => Promise<Member[]>;
  /** Asks the search node at `url` to publish a snapshot of `shard` now (its internal endpoint). */
  requestSnapshot: (url: string, shard: number) => Promise<SnapshotRequestAnswer>;
  objects: SnapshotObjects;
  nowMs: () => number;
}

/** Which replicas `create` asks. */
export interface SnapshotSelection {
  /** Only this shard (default: every shard). */
  shard?: number;
  /** Only this replica of `shard` (requires `shard`). */
  replica?: number;
  /** Every live replica selected, not one per shard. */
  every?: boolean;
}

export interface PublishedSnapshot {
  shard: number;
  replica: number | null;
  node: string;
  id: string;
  seq: number;
  log_seq: number;
  bytes: number;
  files: number;
  ms: number;
  deleted: string[];
}

export interface CreateReport {
  published: PublishedSnapshot[];
  /** Replicas that were asked and failed (a replica that has not committed yet answers 503). */
  failed: { shard: number; replica: number | null; node: string; error: string }[];
  /** Selected shards (or shard/replica) with no live replica to ask. */
  missing: { shard: number; replica: number | null; reason: string }[];
}

/** One stored snapshot as listed. */
export interface ListedSnapshot {
  shard: number;
  /** The replica that published it (from the node name `search-<shard>-<replica>`); null when unknown. */
  replica: number | null;
  node: string | null;
  id: string;
  /** Store sequence covered. */
  seq: number | null;
  /** Log sequence covered: a replica installing it follows the log from log_seq + 1. */
  log_seq: number | null;
  bytes: number | null;
  files: number | null;
  created_at: string | null;
  /** Seconds since it was created (null when its descriptor does not parse). */
  age_s: number | null;
  /** False for a descriptor that does not parse (never installed; a prune removes it in time). */
  valid: boolean;
}

const replicaOf = (node: string | undefined): number | null => {
  const m = node ? /^search-\d+-(\d+)$/.exec(node) : null;
  return m ? Number(m[1]) : null;
};

export class SnapshotAdmin {
  constructor(private readonly o: SnapshotAdminOptions) {}

  #shards(shard: number | undefined): number[] {
    if (shard === undefined) return Array.from({ length: this.o.shards }, (_, i) => i);
    if (!Number.isSafeInteger(shard) || shard < 0 || shard >= this.o.shards) throw new RangeError(`shard ${shard} is not one of the cluster's shards 0..${this.o.shards - 1}`);
    return [shard];
  }

  /**
   * Asks live replicas to publish a snapshot now: by default one replica per shard (the one that
   * announced the highest committed store sequence, so the snapshot is the freshest available), all of
   * them with `every`, one named replica with `replica`. Shards are asked in parallel; a replica's
   * failure is reported, not thrown.
   */
  async create(sel: SnapshotSelection = {}): Promise<CreateReport> {
    if (sel.replica !== undefined && sel.shard === undefined) throw new RangeError('a replica is chosen within a shard: give the shard too');
    const shards = this.#shards(sel.shard);
    const live = (await this.o.liveMembers()).filter((m) => m.role === 'search' && m.shard !== undefined && m.url);
    const report: CreateReport = { published: [], failed: [], missing: [] };
    const targets: Member[] = [];
    for (const shard of shards) {
      let ms = live.filter((m) => m.shard === shard && (sel.replica === undefined || m.replica === sel.replica));
      if (ms.length === 0) {
        report.missing.push({ shard, replica: sel.replica ?? null, reason: sel.replica === undefined ? `no live replica of shard ${shard}` : `replica ${sel.replica} of shard ${shard} is not live` });
        continue;
      }
      ms = [...ms].sort((a, b) => (b.seq ?? 0) - (a.seq ?? 0) || (a.replica ?? 0) - (b.replica ?? 0));
      targets.push(...(sel.every ? ms : ms.slice(0, 1)));
    }
    // replicas of one shard one after another (each publish prunes the shard's older snapshots), shards in parallel
    const byShard = new Map<number, Member[]>();
    for (const m of targets) byShard.set(m.shard!, [...(byShard.get(m.shard!) ?? []), m]);
    await Promise.all(
      [...byShard].map(async ([shard, ms]) => {
        for (const m of ms) {
          try {
            const a = await this.o.requestSnapshot(m.url!, shard);
            report.published.push({ shard, replica: m.replica ?? null, node: m.id, id: a.snapshot.id, seq: a.snapshot.seq, log_seq: a.snapshot.log_seq, bytes: a.snapshot.bytes, files: a.snapshot.files, ms: a.ms, deleted: a.deleted });
          } catch (e) {
            report.failed.push({ shard, replica: m.replica ?? null, node: m.id, error: (e as Error).message });
          }
        }
      }),
    );
    report.published.sort((a, b) => a.shard - b.shard || (a.replica ?? 0) - (b.replica ?? 0));
    report.failed.sort((a, b) => a.shard - b.shard || (a.replica ?? 0) - (b.replica ?? 0));
    return report;
  }

  /** The stored snapshots (with a descriptor) of every shard or one, newest first within a shard. */
  async list(shard?: number): Promise<ListedSnapshot[]> {
    const now = this.o.nowMs();
    const out: ListedSnapshot[] = [];
    for (const s of this.#shards(shard)) {
      for (const d of await listSnapshots(this.o.objects, s)) out.push(listed(d, s, now));
    }
    return out;
  }

  /**
   * Deletes every shard's (or one shard's) snapshots beyond the newest `keep` (and files of uploads
   * that died, as a publish does). `keep` >= 1: a new replica needs one to bootstrap from.
   */
  async prune(keep: number, shard?: number): Promise<{ shard: number; deleted: string[]; kept: string[] }[]> {
    if (!Number.isSafeInteger(keep) || keep < 1) throw new RangeError('keep must be an integer of at least 1 (a new replica bootstraps from the newest snapshot)');
    const out = [];
    for (const s of this.#shards(shard)) {
      const deleted = await pruneSnapshots(this.o.objects, s, keep, this.o.nowMs());
      const kept = (await listSnapshots(this.o.objects, s)).map((d) => d.id);
      out.push({ shard: s, deleted: deleted.sort(), kept });
    }
    return out;
  }
}

function listed(d: ShardSnapshot, shard: number, nowMs: number): ListedSnapshot {
  const valid = d.format === 1;
  const created = valid ? Date.parse(d.createdAt) : NaN;
  return {
    shard,
    replica: valid ? replicaOf(d.node) : null,
    node: valid ? d.node : null,
    id: d.id,
    seq: valid ? d.seq : null,
    log_seq: valid ? d.logSeq : null,
    bytes: valid ? d.totalBytes : null,
    files: valid ? d.files.length : null,
    created_at: valid ? d.createdAt : null,
    age_s: Number.isFinite(created) ? Math.max(0, Math.round((nowMs - created) / 1000)) : null,
    valid,
  };
}
