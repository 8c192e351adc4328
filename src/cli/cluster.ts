// `lectern cluster up|status|down` (issue 24, docs/scale.md "Running a local cluster"): argument parsing
// and output; the processes are started and stopped by the local-cluster adapter, handed in by main.ts.
import { parseArgs } from 'node:util';
import type { Config } from '../config/index.js';
import type { CreateReport, ListedSnapshot, SnapshotSelection } from '../cluster/snapshot-admin.js';

/** What `cluster snapshot` uses (cluster/snapshot-admin.ts over NATS and the search nodes; app.ts). */
export interface SnapshotAdminView {
  create(sel: SnapshotSelection): Promise<CreateReport>;
  list(shard?: number): Promise<ListedSnapshot[]>;
  prune(keep: number, shard?: number): Promise<{ shard: number; deleted: string[]; kept: string[] }[]>;
  close(): Promise<void>;
}

export interface ClusterStateView {
  api: { url: string; pid: number; healthy?: boolean }[];
  search: { shard: number; replica: number; pid: number; url: string; healthy?: boolean }[];
  nats: { url: string; pid: number; healthy?: boolean }[];
  workers: { pid: number; healthy?: boolean }[];
}

/** The local-cluster operations (src/adapters/cluster/local-cluster.ts). */
export interface ClusterCommands {
  up(o: { dir: string; shards: number; replicas: number; api: number; workers: number; databaseUrl: string; redisUrl?: string }): Promise<ClusterStateView>;
  status(dir: string): Promise<ClusterStateView>;
  down(dir: string): Promise<ClusterStateView>;
  /** The environment the cluster's processes share (ingest --cluster DIR). */
  env(dir: string): Record<string, string> | Promise<Record<string, string>>;
  /** The shard snapshots of the cluster `config` describes (cluster snapshot; ADR 0295). */
  snapshots?(config: Config): Promise<SnapshotAdminView>;
}

export const CLUSTER_USAGE = `  cluster up --dir DIR --shards S --replicas R --api A [--workers W]
                                          start a local cluster on loopback (NATS x3, search, api, workers)
  cluster status --dir DIR                the cluster's processes and their health (JSON)
  cluster down --dir DIR                  stop the cluster
  cluster snapshot create|list|prune [--dir DIR] [--shard N] [--replica R] [--every] [--keep N]
                                          publish shard snapshots now, list them, delete all but the newest N`;

export const CLUSTER_HELP = `Usage: lectern cluster up --dir DIR --shards S --replicas R --api A [--workers W]
       lectern cluster status --dir DIR
       lectern cluster down --dir DIR

Runs a whole Lectern cluster on this machine's loopback (docs/scale.md "Running a local cluster"): a
three-node NATS JetStream cluster (nats-server; the log kept on all three), S x R search processes (each
holds one shard replica, fed from the log), A api processes and W workers (default 0; recognition jobs
run only on workers, so converting documents needs --workers 1 or more), against DATABASE_URL (and
REDIS_URL when set). Everything lives in DIR: nats configs and data, each process's data directory, logs
in DIR/logs, and DIR/cluster.json. Prints one JSON object:
  {"api": [{"url","pid"}...], "search": [{"shard","replica","pid","url"}...], "nats": [{"url","pid"}...], "workers": [{"pid"}...]}
status prints the same with "healthy" on each process; down stops every process (data kept).
Ingest into the cluster: lectern ingest --cluster DIR FILE...

Shard snapshots (docs/scale.md "Bootstrap of a new replica"; a new replica installs its shard's newest
one and follows the log from there). The cluster is the local one in --dir DIR, or without --dir the one
the cluster variables describe (LECTERN_CLUSTER_NATS_URL, _NAME, _SHARDS, LECTERN_SECRET or
LECTERN_CLUSTER_SECRET, as in its processes). JSON on stdout.
  lectern cluster snapshot create [--dir DIR] [--shard N [--replica R]] [--every]
      ask live search replicas to publish a snapshot of their shard now: one replica per shard (the one
      furthest along), of shard N only with --shard, replica R of it with --replica, every live replica
      with --every. Prints {"published": [{shard, replica, node, id, seq, log_seq, bytes, files, ms,
      deleted}], "failed": [...], "missing": [...]}; exit 1 when a selected shard had no live replica or
      a replica failed (one that has not committed its index yet answers 503: ask again shortly).
  lectern cluster snapshot list [--dir DIR] [--shard N]
      the stored snapshots, newest first per shard: {"snapshots": [{shard, replica, node, id, seq,
      log_seq, bytes, files, created_at, age_s, valid}]}
  lectern cluster snapshot prune --keep N [--dir DIR] [--shard N]
      delete every shard's snapshots but the newest N (N >= 1: a new replica needs one), and files of
      uploads that died over an hour ago; a publish does the same with cluster.snapshot_keep.
Example: lectern cluster snapshot create --dir /tmp/lc && lectern cluster snapshot list --dir /tmp/lc`;

class ClusterUsageError extends Error {}
/** A cluster operation that could not be done (no cluster in DIR, nats-server missing, a process that did not start). */
class ClusterFailure extends Error {}
export { ClusterUsageError, ClusterFailure };

async function failing<T>(op: Promise<T>): Promise<T> {
  try {
    return await op;
  } catch (e) {
    throw new ClusterFailure((e as Error).message);
  }
}

const count = (v: string | undefined, name: string, min: number, dflt?: number): number => {
  if (v === undefined) {
    if (dflt !== undefined) return dflt;
    throw new ClusterUsageError(`--${name} is required`);
  }
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < min || n > 64) throw new ClusterUsageError(`--${name} must be an integer in ${min}..64, got ${JSON.stringify(v)}`);
  return n;
};

export async function clusterCommand(args: readonly string[], config: (extraEnv?: Record<string, string>) => Config, commands: ClusterCommands | undefined, print: (v: unknown) => void): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'snapshot') return snapshotCommand(rest, config, commands, print);
  const { values } = parseArgs({
    args: [...rest],
    options: { dir: { type: 'string' }, shards: { type: 'string' }, replicas: { type: 'string' }, api: { type: 'string' }, workers: { type: 'string' } },
  });
  if (!commands) throw new ClusterUsageError('cluster commands are not available in this build');
  if (values.dir === undefined) throw new ClusterUsageError('--dir is required');
  switch (sub) {
    case 'up': {
      const c = config();
      if (!c.databaseUrl) throw new ClusterUsageError('a cluster needs PostgreSQL: set DATABASE_URL');
      print(
        await failing(commands.up({
          dir: values.dir,
          shards: count(values.shards, 'shards', 1),
          replicas: count(values.replicas, 'replicas', 1),
          api: count(values.api, 'api', 1),
          workers: count(values.workers, 'workers', 0, 0),
          databaseUrl: c.databaseUrl,
          ...(c.redisUrl ? { redisUrl: c.redisUrl } : {}),
        })),
      );
      return 0;
    }
    case 'status': {
      const s = await failing(commands.status(values.dir));
      print(s);
      return [...s.api, ...s.search, ...s.nats, ...s.workers].every((p) => p.healthy) ? 0 : 1;
    }
    case 'down':
      print(await failing(commands.down(values.dir)));
      return 0;
    default:
      throw new ClusterUsageError('cluster up|status|down|snapshot');
  }
}

/** `cluster snapshot create|list|prune` (ADR 0295). */
async function snapshotCommand(args: readonly string[], config: (extraEnv?: Record<string, string>) => Config, commands: ClusterCommands | undefined, print: (v: unknown) => void): Promise<number> {
  const [op, ...rest] = args;
  if (op !== 'create' && op !== 'list' && op !== 'prune') throw new ClusterUsageError('cluster snapshot create|list|prune');
  const { values } = parseArgs({
    args: [...rest],
    options: { dir: { type: 'string' }, shard: { type: 'string' }, replica: { type: 'string' }, every: { type: 'boolean', default: false }, keep: { type: 'string' } },
  });
  if (!commands?.snapshots) throw new ClusterUsageError('cluster snapshot is not available in this build');
  const index = (v: string | undefined, name: string): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < 0) throw new ClusterUsageError(`--${name} must be an integer of at least 0, got ${JSON.stringify(v)}`);
    return n;
  };
  const shard = index(values.shard, 'shard');
  const replica = index(values.replica, 'replica');
  if (op !== 'create' && (replica !== undefined || values.every)) throw new ClusterUsageError(`--replica and --every are options of cluster snapshot create, not ${op}`);
  if (replica !== undefined && shard === undefined) throw new ClusterUsageError('--replica needs --shard (a replica is chosen within a shard)');
  if (replica !== undefined && values.every) throw new ClusterUsageError('--replica and --every exclude each other');
  if (op === 'prune' && values.keep === undefined) throw new ClusterUsageError('cluster snapshot prune needs --keep N (N >= 1)');
  if (op !== 'prune' && values.keep !== undefined) throw new ClusterUsageError('--keep is an option of cluster snapshot prune');
  const keep = values.keep === undefined ? undefined : index(values.keep, 'keep');
  if (keep !== undefined && keep < 1) throw new ClusterUsageError('--keep must be at least 1: a new replica bootstraps from its shard\'s newest snapshot');
  let env: Record<string, string> | undefined;
  if (values.dir !== undefined) {
    try {
      env = await commands.env(values.dir);
    } catch (e) {
      throw new ClusterUsageError(`--dir: ${(e as Error).message}`);
    }
  }
  const c = config(env);
  if (c.cluster.natsUrl === '') throw new ClusterUsageError('no cluster is configured: give --dir DIR of a local cluster, or set the cluster variables (LECTERN_CLUSTER_NATS_URL, ...) as in its processes');
  if (shard !== undefined && shard >= c.cluster.shards) throw new ClusterUsageError(`--shard ${shard} is not one of the cluster's shards 0..${c.cluster.shards - 1}`);
  const admin = await failing(commands.snapshots(c));
  try {
    switch (op) {
      case 'create': {
        const r = await failing(admin.create({ ...(shard !== undefined ? { shard } : {}), ...(replica !== undefined ? { replica } : {}), every: values.every }));
        print(r);
        return r.failed.length === 0 && r.missing.length === 0 && r.published.length > 0 ? 0 : 1;
      }
      case 'list':
        print({ snapshots: await failing(admin.list(shard)) });
        return 0;
      case 'prune':
        print({ keep, shards: await failing(admin.prune(keep!, shard)) });
        return 0;
    }
  } finally {
    await admin.close().catch(() => undefined);
  }
}
