// `lectern cluster up|status|down` (issue 24, docs/scale.md "Running a local cluster"): a whole cluster on
// loopback, in one directory. A three-node NATS JetStream cluster (nats-server processes with configs
// generated here; the log and buckets kept on all three), then S x R search processes, A api processes and
// W workers of this same program against DATABASE_URL (and REDIS_URL). Every process is detached with its
// log in DIR/logs; DIR/cluster.json records what was started (pids, URLs, the environment the processes
// share), so `status`, `down` and `ingest --cluster DIR` find them.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NatsCluster } from '../nats/nats-cluster.js';

export interface ClusterUpOptions {
  dir: string;
  shards: number;
  replicas: number;
  api: number;
  workers: number;
  databaseUrl: string;
  redisUrl?: string;
  /** nats-server executable (default: found on PATH). */
  natsServer?: string;
  /** Ceiling on waiting for every process to answer, ms. */
  readyTimeoutMs?: number;
  /** Cluster name (subjects, stream and bucket names). */
  name?: string;
  /** The environment the started processes inherit (PATH, ...), before their own variables. */
  baseEnv: Record<string, string>;
}

export interface ClusterProcess {
  pid: number;
  url?: string;
  shard?: number;
  replica?: number;
  /** status only: whether the process is alive and answers. */
  healthy?: boolean;
}

export interface ClusterState {
  api: { url: string; pid: number; healthy?: boolean }[];
  search: { shard: number; replica: number; pid: number; url: string; healthy?: boolean; seq?: number; docs?: number }[];
  nats: { url: string; pid: number; healthy?: boolean }[];
  workers: { pid: number; healthy?: boolean }[];
}

/** What cluster.json holds: the printed state plus what restarts and status need. */
interface ClusterFile extends ClusterState {
  env: Record<string, string>;
  natsMonitor: string[];
  /** How each lectern process was started (to restart one: tests, docs/scale.md "Faults"). */
  commands: Record<string, { env: Record<string, string>; log: string }>;
}

const here = dirname(fileURLToPath(import.meta.url));
/** The `lectern` launcher of this checkout (dist/src/adapters/cluster -> bin/lectern.mjs). */
const LECTERN_BIN = resolve(here, '..', '..', '..', '..', 'bin', 'lectern.mjs');

/** The low end of the kernel's ephemeral port range (Linux), from which outgoing connections take their ports. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 0) return low;
  } catch {
    // not Linux: the IANA range's start
  }
  return 49152;
}

/** Whether 127.0.0.1:`port` can be listened on now (port 0: any; resolves the port bound, or 0 when taken). */
function tryListen(port: number): Promise<number> {
  return new Promise((resolvePort) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolvePort(0));
    srv.listen(port, '127.0.0.1', () => {
      const bound = (srv.address() as { port: number }).port;
      srv.close(() => resolvePort(bound));
    });
  });
}

/**
 * A TCP port free on 127.0.0.1 at the time of asking, for a process started next to listen on. Picked at
 * random below the ephemeral range: a port the kernel hands out for port 0 comes from that range, where an
 * outgoing connection can take it before the new process listens (EADDRINUSE under a busy test run).
 */
export async function freePort(): Promise<number> {
  const low = Math.min(ephemeralLow(), 65536);
  if (low > 12_000) {
    for (let i = 0; i < 64; i++) {
      const port = await tryListen(10_000 + Math.floor(Math.random() * (low - 10_000)));
      if (port) return port;
    }
  }
  const port = await tryListen(0);
  if (!port) throw new Error('no free TCP port on 127.0.0.1');
  return port;
}

export function findNatsServer(explicit?: string): string | null {
  const candidates = explicit ? [explicit] : ['nats-server', '/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];
  for (const c of candidates) {
    const r = spawnSync(c, ['--version'], { encoding: 'utf8' });
    if (r.status === 0) return c;
  }
  return null;
}

function natsConfig(i: number, dir: string, port: number, monitor: number, routePorts: number[], clusterName: string): string {
  return [
    `server_name: n${i}`,
    `listen: 127.0.0.1:${port}`,
    `http: 127.0.0.1:${monitor}`,
    `max_payload: 8MB`,
    `jetstream {`,
    `  store_dir: ${JSON.stringify(join(dir, 'js'))}`,
    `  max_memory_store: 268435456`,
    `  max_file_store: 17179869184`,
    `}`,
    `cluster {`,
    `  name: ${clusterName}`,
    `  listen: 127.0.0.1:${routePorts[i]}`,
    `  routes: [${routePorts.filter((_, j) => j !== i).map((p) => `nats-route://127.0.0.1:${p}`).join(', ')}]`,
    `}`,
    '',
  ].join('\n');
}

function spawnDetached(cmd: string, args: string[], env: Record<string, string>, log: string): number {
  const fd = openSync(log, 'a');
  try {
    const child = spawn(cmd, args, { env, detached: true, stdio: ['ignore', fd, fd] });
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${cmd}`);
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function answers(url: string, timeoutMs = 2_000): Promise<boolean> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await r.arrayBuffer();
    return r.ok;
  } catch {
    return false;
  }
}

async function waitFor(what: string, check: () => Promise<boolean>, ceilingMs: number): Promise<void> {
  const end = Date.now() + ceilingMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out after ${ceilingMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const stateFile = (dir: string) => join(dir, 'cluster.json');

function readFile(dir: string): ClusterFile {
  const path = stateFile(dir);
  if (!existsSync(path)) throw new Error(`${dir} holds no cluster (no cluster.json); start one with lectern cluster up --dir ${dir}`);
  return JSON.parse(readFileSync(path, 'utf8')) as ClusterFile;
}

const printable = (f: ClusterFile): ClusterState => ({ api: f.api, search: f.search, nats: f.nats, workers: f.workers });

/** Starts the cluster and returns what was started once every process answers. */
export async function clusterUp(o: ClusterUpOptions): Promise<ClusterState> {
  const dir = resolve(o.dir);
  if (existsSync(stateFile(dir))) {
    const f = readFile(dir);
    const running = [...f.nats, ...f.api, ...f.search, ...f.workers].some((p) => alive(p.pid));
    if (running) throw new Error(`a cluster is already running in ${dir}; lectern cluster down --dir ${dir} first`);
  }
  const nats = findNatsServer(o.natsServer);
  if (!nats) throw new Error('nats-server not found: install it (Debian: apt-get install nats-server; scripts/system-packages.txt)');
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const name = o.name ?? 'lectern';
  const file: ClusterFile = { api: [], search: [], nats: [], workers: [], env: {}, natsMonitor: [], commands: {} };
  const started: number[] = [];
  const save = () => writeFileSync(stateFile(dir), JSON.stringify(file, null, 2));
  try {
    // 1. NATS: three servers routed to each other
    const ports = await Promise.all([0, 1, 2].map(() => freePort()));
    const monitors = await Promise.all([0, 1, 2].map(() => freePort()));
    const routes = await Promise.all([0, 1, 2].map(() => freePort()));
    for (let i = 0; i < 3; i++) {
      const ndir = join(dir, 'nats', `n${i}`);
      mkdirSync(ndir, { recursive: true });
      const conf = join(ndir, 'nats.conf');
      writeFileSync(conf, natsConfig(i, ndir, ports[i]!, monitors[i]!, routes, `${name}_nats`));
      const pid = spawnDetached(nats, ['-c', conf], o.baseEnv, join(dir, 'logs', `nats-${i}.log`));
      started.push(pid);
      file.nats.push({ url: `nats://127.0.0.1:${ports[i]}`, pid });
      file.natsMonitor.push(`http://127.0.0.1:${monitors[i]}`);
    }
    save();
    const ceiling = o.readyTimeoutMs ?? 120_000;
    await waitFor('the NATS cluster (JetStream meta leader)', async () => {
      for (const m of file.natsMonitor) {
        try {
          const r = await fetch(`${m}/jsz`, { signal: AbortSignal.timeout(2_000) });
          const j = (await r.json()) as { meta_cluster?: { leader?: string } };
          if (!j.meta_cluster?.leader) return false;
        } catch {
          return false;
        }
      }
      return true;
    }, ceiling);

    // 2. the lectern processes, sharing one environment
    file.env = {
      DATABASE_URL: o.databaseUrl,
      ...(o.redisUrl ? { REDIS_URL: o.redisUrl } : {}),
      LECTERN_CLUSTER_NATS_URL: file.nats.map((n) => n.url).join(','),
      LECTERN_CLUSTER_NAME: name,
      LECTERN_CLUSTER_SHARDS: String(o.shards),
      LECTERN_CLUSTER_REPLICAS: String(o.replicas),
      LECTERN_CLUSTER_LOG_REPLICAS: '3',
      LECTERN_LOAD_DEMO_CORPUS: 'false',
      LECTERN_SECRET: randomBytes(32).toString('hex'),
      HOST: '127.0.0.1',
    };
    const start = async (key: string, role: string, extra: Record<string, string>): Promise<{ pid: number; url: string }> => {
      const port = await freePort();
      const env = { ...file.env, LECTERN_CLUSTER_ROLE: role, LECTERN_DATA_DIR: join(dir, key), PORT: String(port), ...extra };
      const log = join(dir, 'logs', `${key}.log`);
      file.commands[key] = { env, log };
      const pid = spawnDetached(process.execPath, [LECTERN_BIN, 'serve'], { ...o.baseEnv, ...env }, log);
      started.push(pid);
      return { pid, url: `http://127.0.0.1:${port}` };
    };
    for (let s = 0; s < o.shards; s++) {
      for (let r = 0; r < o.replicas; r++) {
        const p = await start(`search-${s}-${r}`, 'search', { LECTERN_CLUSTER_SHARD: String(s), LECTERN_CLUSTER_REPLICA: String(r) });
        file.search.push({ shard: s, replica: r, pid: p.pid, url: p.url });
      }
    }
    for (let i = 0; i < o.api; i++) file.api.push(await start(`api-${i}`, 'api', {}));
    for (let i = 0; i < o.workers; i++) {
      const p = await start(`worker-${i}`, 'worker', {});
      file.workers.push({ pid: p.pid });
    }
    save();
    const lectern = [...file.search.map((x) => ({ ...x, key: `search-${x.shard}-${x.replica}` })), ...file.api.map((x, i) => ({ ...x, key: `api-${i}` }))];
    for (const p of lectern) {
      await waitFor(`${p.key} (${p.url}; log ${file.commands[p.key]!.log})`, async () => {
        if (!alive(p.pid)) throw new Error(`${p.key} exited; see ${file.commands[p.key]!.log}${logTail(file.commands[p.key]!.log)}`);
        return answers(`${p.url}/readyz`);
      }, ceiling);
    }
    return printable(file);
  } catch (e) {
    for (const pid of started.reverse()) stop(pid);
    throw e;
  }
}

/** Restarts one lectern process of the cluster with its recorded environment (tests; after a kill -9). */
export function restartProcess(dir: string, key: string, baseEnv: Record<string, string>): number {
  const f = readFile(dir);
  const cmd = f.commands[key];
  if (!cmd) throw new Error(`no process ${key} in ${dir}`);
  const pid = spawnDetached(process.execPath, [LECTERN_BIN, 'serve'], { ...baseEnv, ...cmd.env }, cmd.log);
  const m = /^search-(\d+)-(\d+)$/.exec(key);
  if (m) f.search = f.search.map((s) => (s.shard === Number(m[1]) && s.replica === Number(m[2]) ? { ...s, pid } : s));
  const a = /^api-(\d+)$/.exec(key);
  if (a) f.api[Number(a[1])]!.pid = pid;
  writeFileSync(stateFile(dir), JSON.stringify(f, null, 2));
  return pid;
}

/** The environment the cluster's processes share (DATABASE_URL, cluster.*): `lectern ingest --cluster DIR`. */
export function clusterEnv(dir: string): Record<string, string> {
  return readFile(resolve(dir)).env;
}

/** The recorded processes with their health (alive, and answering /readyz or the NATS monitor's /healthz). */
export async function clusterStatus(dir: string): Promise<ClusterState> {
  const f = readFile(resolve(dir));
  const http = async (pid: number, url: string) => alive(pid) && (await answers(url));
  // what each search replica announces: the store sequence it made durable and its live documents
  const announced = new Map<string, { seq?: number; docs?: number }>();
  try {
    const nats = await NatsCluster.connect({
      servers: f.env.LECTERN_CLUSTER_NATS_URL!.split(','),
      name: f.env.LECTERN_CLUSTER_NAME ?? 'lectern',
      replicas: 3,
      logMaxAgeMs: 0,
      membershipMaxAgeMs: 0,
      connectionName: 'lectern cluster status',
      connectTimeoutMs: 3_000,
    });
    try {
      const members = await (await nats.membership({ open: true })).live(Date.now(), 30_000);
      for (const m of members) if (m.role === 'search') announced.set(`${m.shard}-${m.replica}`, { ...(m.seq !== undefined ? { seq: m.seq } : {}), ...(m.docs !== undefined ? { docs: m.docs } : {}) });
    } finally {
      await nats.close();
    }
  } catch {
    // NATS down: the health fields say so
  }
  return {
    api: await Promise.all(f.api.map(async (p) => ({ ...p, healthy: await http(p.pid, `${p.url}/readyz`) }))),
    search: await Promise.all(f.search.map(async (p) => ({ ...p, healthy: await http(p.pid, `${p.url}/readyz`), ...announced.get(`${p.shard}-${p.replica}`) }))),
    nats: await Promise.all(f.nats.map(async (p, i) => ({ ...p, healthy: await http(p.pid, `${f.natsMonitor[i]}/healthz`) }))),
    workers: f.workers.map((p) => ({ ...p, healthy: alive(p.pid) })),
  };
}

function stop(pid: number, signal: NodeJS.Signals = 'SIGTERM'): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** Stops every process (lectern first, then NATS): SIGTERM, then SIGKILL after `graceMs`. */
export async function clusterDown(dir: string, graceMs = 20_000): Promise<ClusterState> {
  const f = readFile(resolve(dir));
  const lectern = [...f.api, ...f.workers, ...f.search].map((p) => p.pid);
  const natsPids = f.nats.map((p) => p.pid);
  for (const group of [lectern, natsPids]) {
    for (const pid of group) stop(pid);
    const end = Date.now() + graceMs;
    while (group.some(alive) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    for (const pid of group) if (alive(pid)) stop(pid, 'SIGKILL');
  }
  return clusterStatus(dir);
}

/** The last lines of a process's log, for an error that says it exited (its data directory may be gone when the error is read). */
function logTail(path: string, bytes = 2048): string {
  try {
    const text = readFileSync(path, 'utf8');
    const tail = text.slice(-bytes).trim();
    return tail ? `; its log ends:\n${tail}` : '; its log is empty';
  } catch {
    return '';
  }
}
