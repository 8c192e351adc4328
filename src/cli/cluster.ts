// `lectern cluster up|status|down` (issue 24, docs/scale.md "Running a local cluster"): argument parsing
// and output; the processes are started and stopped by the local-cluster adapter, handed in by main.ts.
import { parseArgs } from 'node:util';
import type { Config } from '../config/index.js';

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
}

export const CLUSTER_USAGE = `  cluster up --dir DIR --shards S --replicas R --api A [--workers W]
                                          start a local cluster on loopback (NATS x3, search, api, workers)
  cluster status --dir DIR                the cluster's processes and their health (JSON)
  cluster down --dir DIR                  stop the cluster`;

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
Ingest into the cluster: lectern ingest --cluster DIR FILE...`;

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

export async function clusterCommand(args: readonly string[], config: () => Config, commands: ClusterCommands | undefined, print: (v: unknown) => void): Promise<number> {
  const [sub, ...rest] = args;
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
      throw new ClusterUsageError('cluster up|status|down');
  }
}
