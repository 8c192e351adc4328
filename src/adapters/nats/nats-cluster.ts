// The cluster's NATS JetStream side (issue 24, ADR 0205): one connection to the NATS cluster, the
// per-shard log (stream `<NAME>_SHARDS`, subject `<name>.shard.<n>`), search nodes' durable
// consumers, and membership and the shard map in JetStream key-value buckets.
//
// Debian's nats-server is 2.9: only features it has are used (no per-message TTL: membership entries
// carry their own timestamp and the bucket's max age removes what stops beating).
import { connect, nanos, headers, type NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, DiscardPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType, type JetStreamClient, type JetStreamManager, type ConsumerConfig } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { Objm, setSha256Backend, type ObjectStore } from '@nats-io/obj';
import type { SnapshotObjectInfo, SnapshotObjects } from '../../ports/shard-snapshots.js';
import type { DeliveredBatch, Member, MembershipStore, ShardLogBatch, ShardLogPublisher, ShardLogSubscription } from '../../ports/shard-log.js';

export interface NatsClusterOptions {
  /** NATS server URLs (any of the cluster's). */
  servers: readonly string[];
  /** Prefix of subjects, stream and bucket names (`lectern`). */
  name: string;
  /** Replicas of the stream and buckets (3 on a three-node NATS cluster; 1 on a single server). */
  replicas: number;
  /** How long the log keeps a message, ms (a replica down longer rebuilds from the store). */
  logMaxAgeMs: number;
  /** Membership entries older than this are removed by the bucket, ms. */
  membershipMaxAgeMs: number;
  /** Shown in the server's connection list. */
  connectionName?: string;
  /** Ceiling on the first connection, ms (default 10 s). */
  connectTimeoutMs?: number;
}

/** A shard map as the cluster records it once (the first process to start writes it). */
export interface ShardMap {
  shards: number;
  replicas: number;
}

const DUPLICATE_WINDOW_MS = 120_000;
/** Acknowledgement wait of a consumer: a batch not acknowledged in this time is delivered again. */
const ACK_WAIT_MS = 120_000;
const PUBLISH_TIMEOUT_MS = 10_000;

export class NatsCluster {
  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    private readonly options: NatsClusterOptions,
  ) {}

  static async connect(options: NatsClusterOptions): Promise<NatsCluster> {
    const nc = await connect({
      servers: [...options.servers],
      name: options.connectionName ?? 'lectern',
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      timeout: options.connectTimeoutMs ?? 10_000,
      ...(options.connectTimeoutMs !== undefined ? { maxReconnectAttempts: 0 } : {}),
    });
    try {
      const jsm = await jetstreamManager(nc, { timeout: PUBLISH_TIMEOUT_MS });
      return new NatsCluster(nc, jetstream(nc, { timeout: PUBLISH_TIMEOUT_MS }), jsm, options);
    } catch (e) {
      await nc.close();
      throw e;
    }
  }

  get streamName(): string {
    return `${this.options.name.toUpperCase().replace(/[^A-Z0-9_-]/g, '_')}_SHARDS`;
  }

  subject(shard: number): string {
    return `${this.options.name}.shard.${shard}`;
  }

  /** Creates the shard log's stream when absent (idempotent; concurrent creators agree). */
  async ensureStream(): Promise<void> {
    const config = {
      name: this.streamName,
      subjects: [`${this.options.name}.shard.*`],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      num_replicas: this.options.replicas,
      duplicate_window: nanos(Math.min(DUPLICATE_WINDOW_MS, this.options.logMaxAgeMs)),
      max_age: nanos(this.options.logMaxAgeMs),
      discard: DiscardPolicy.Old,
    };
    try {
      await this.jsm.streams.info(this.streamName);
      return;
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    try {
      await this.jsm.streams.add(config);
    } catch (e) {
      // another process created it in between
      await this.jsm.streams.info(this.streamName).catch(() => {
        throw e;
      });
    }
  }

  publisher(): ShardLogPublisher {
    const maxPayload = this.nc.info?.max_payload ?? 1024 * 1024;
    return {
      maxMessageBytes: maxPayload,
      publish: async (batch: ShardLogBatch, msgId: string) => {
        const h = headers();
        h.set('Lectern-Seq-Last', String(batch.changes[batch.changes.length - 1]?.seq ?? 0));
        await this.js.publish(this.subject(batch.shard), encodeBatch(batch), { msgID: msgId, headers: h, timeout: PUBLISH_TIMEOUT_MS });
      },
    };
  }

  /**
   * The durable subscription `durable` to `shard`'s subject. A consumer created now starts at
   * `start`: a time (a replica that bootstrapped from the store up to some sequence at that time), just
   * after a log sequence (`{afterLogSeq}`: a replica that installed a snapshot covering the log up to
   * it, ADR 0255), or at the log's beginning; an existing one resumes after its last acknowledged batch.
   */
  async subscribe(shard: number, durable: string, start?: number | { afterLogSeq: number }): Promise<ShardLogSubscription> {
    const stream = this.streamName;
    const config: Partial<ConsumerConfig> = {
      durable_name: durable,
      filter_subject: this.subject(shard),
      ack_policy: AckPolicy.All,
      ack_wait: nanos(ACK_WAIT_MS),
      max_ack_pending: 100_000,
      ...(start === undefined
        ? { deliver_policy: DeliverPolicy.All }
        : typeof start === 'number'
          ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(start).toISOString() }
          : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: start.afterLogSeq + 1 }),
    };
    let exists = true;
    try {
      await this.jsm.consumers.info(stream, durable);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      exists = false;
    }
    if (!exists) await this.jsm.consumers.add(stream, config);
    const consumer = await this.js.consumers.get(stream, durable);
    return {
      fetch: async (max: number, waitMs: number): Promise<DeliveredBatch[]> => {
        const out: DeliveredBatch[] = [];
        const iter = await consumer.fetch({ max_messages: max, expires: Math.max(1_000, waitMs) });
        for await (const m of iter) {
          const batch = decodeBatch(m.data);
          out.push({ ...batch, logSeq: m.seq, ack: async () => void (await m.ackAck({ timeout: PUBLISH_TIMEOUT_MS })) });
          if (out.length >= max) break;
        }
        return out;
      },
      reset: async () => {
        await this.jsm.consumers.delete(stream, durable).catch((e: unknown) => {
          if (!isNotFound(e)) throw e;
        });
      },
      close: async () => undefined,
    };
  }

  /** Whether the durable consumer `durable` exists. */
  async consumerExists(durable: string): Promise<boolean> {
    try {
      await this.jsm.consumers.info(this.streamName, durable);
      return true;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  }

  /**
   * Whether the stream no longer holds messages just after `durable`'s acknowledgement floor (they aged
   * out): the consumer may have missed changes of its shard. Conservative: the gap may hold only other
   * shards' messages, and then the replica rebuilds without need.
   */
  async behindRetention(durable: string): Promise<boolean> {
    const [consumer, stream] = await Promise.all([this.jsm.consumers.info(this.streamName, durable), this.jsm.streams.info(this.streamName)]);
    const floor = consumer.ack_floor.stream_seq;
    if (floor > 0) return stream.state.first_seq > floor + 1;
    // nothing acknowledged yet: a consumer that starts at a sequence (after a snapshot) lost something
    // if the log no longer begins at or before it; one that starts at a time, if messages younger than
    // that time could have aged out; one that starts at the beginning, if any aged out
    if (consumer.config.opt_start_seq) return stream.state.first_seq > consumer.config.opt_start_seq;
    const start = consumer.config.opt_start_time;
    if (start) return Date.now() - this.options.logMaxAgeMs > Date.parse(start);
    return stream.state.first_seq > 1;
  }

  /**
   * The log sequence up to which `durable` has made its shard's messages durable, read before a
   * snapshot is pinned (ADR 0255): its acknowledgement floor, or, when nothing of its subject is pending
   * or unacknowledged, the stream's last sequence as read first (an idle shard's position still moves).
   */
  async logPosition(durable: string): Promise<number> {
    const stream = await this.jsm.streams.info(this.streamName);
    const consumer = await this.jsm.consumers.info(this.streamName, durable);
    const floor = consumer.ack_floor.stream_seq;
    return consumer.num_pending === 0 && consumer.num_ack_pending === 0 ? Math.max(floor, stream.state.last_seq) : floor;
  }

  /**
   * Whether the log still holds every message after log sequence `afterLogSeq` (none aged out or was
   * removed): what a replica installing a snapshot covering the log up to it needs. Conservative, as
   * behindRetention: the messages gone may all have been other shards'.
   */
  async logHoldsAfter(afterLogSeq: number): Promise<{ holds: boolean; firstSeq: number; lastSeq: number }> {
    const stream = await this.jsm.streams.info(this.streamName);
    const { first_seq: firstSeq, last_seq: lastSeq } = stream.state;
    // an empty stream reports first = last + 1; a stream that never reached afterLogSeq was recreated
    return { holds: firstSeq <= afterLogSeq + 1 && lastSeq >= afterLogSeq, firstSeq, lastSeq };
  }

  /**
   * The cluster's snapshot bucket (`<name>-snapshots`, JetStream object store, created when absent with
   * the log's replicas): shard snapshots published by search nodes (ADR 0255).
   */
  async snapshotObjects(): Promise<SnapshotObjects> {
    // the object store checks every object's SHA-256; node:crypto's is several times the pure-JS default's speed
    setSha256Backend('native');
    const objm = new Objm(this.js);
    const os: ObjectStore = await objm.create(`${this.options.name}-snapshots`, { replicas: this.options.replicas, storage: StorageType.File });
    return natsSnapshotObjects(os);
  }

  /** Deletes the durable consumer `durable` (absent: nothing to do). */
  async deleteConsumer(durable: string): Promise<void> {
    await this.jsm.consumers.delete(this.streamName, durable).catch((e: unknown) => {
      if (!isNotFound(e)) throw e;
    });
  }

  /** The stream's state (messages, first and last sequence), or null when it does not exist. */
  async streamState(): Promise<{ messages: number; firstSeq: number; lastSeq: number; replicas: number; leader: string | null } | null> {
    try {
      const info = await this.jsm.streams.info(this.streamName);
      return { messages: info.state.messages, firstSeq: info.state.first_seq, lastSeq: info.state.last_seq, replicas: info.config.num_replicas, leader: info.cluster?.leader ?? null };
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  async #bucket(suffix: string, ttlMs: number, openOnly = false): Promise<KV> {
    const kvm = new Kvm(this.nc);
    const name = `${this.options.name}-${suffix}`;
    if (openOnly) return kvm.open(name);
    // create is idempotent for the same configuration (open alone does not check that the bucket exists)
    try {
      return await kvm.create(name, { history: 1, replicas: this.options.replicas, ...(ttlMs > 0 ? { ttl: ttlMs } : {}) });
    } catch (e) {
      const kv = await kvm.open(name);
      await kv.status().catch(() => {
        throw e;
      });
      return kv;
    }
  }

  /** Records `map` as the cluster's shard map unless one is recorded; returns the recorded one. */
  async claimShardMap(map: ShardMap): Promise<ShardMap> {
    const kv = await this.#bucket('cluster', 0);
    try {
      await kv.create('shardmap', JSON.stringify(map));
      return map;
    } catch {
      const e = await kv.get('shardmap');
      if (!e) throw new Error('the shard map could neither be created nor read');
      return e.json<ShardMap>();
    }
  }

  /** The membership bucket (created when absent, unless `open`: a reader such as `cluster status`). */
  async membership(options: { open?: boolean } = {}): Promise<MembershipStore> {
    const kv = await this.#bucket('members', this.options.membershipMaxAgeMs, options.open ?? false);
    const read = (data: Uint8Array): Member | null => {
      try {
        return JSON.parse(new TextDecoder().decode(data)) as Member;
      } catch {
        return null;
      }
    };
    return {
      announce: async (member) => void (await kv.put(member.id, JSON.stringify(member))),
      withdraw: async (id) => void (await kv.delete(id)),
      live: async (nowMs, maxAgeMs) => {
        const out: Member[] = [];
        const keys: string[] = [];
        for await (const k of await kv.keys()) keys.push(k);
        for (const k of keys) {
          const e = await kv.get(k);
          if (!e || e.operation !== 'PUT') continue;
          const m = read(e.value);
          if (m && nowMs - m.at <= maxAgeMs) out.push(m);
        }
        return out.sort((a, b) => a.id.localeCompare(b.id));
      },
      watch: async (onChange) => {
        const w = await kv.watch();
        void (async () => {
          for await (const e of w) {
            if (e.operation === 'PUT') {
              const m = read(e.value);
              if (m) onChange(m);
            } else onChange({ id: e.key, withdrawn: true });
          }
        })().catch(() => undefined);
        return () => w.stop();
      },
    };
  }

  async close(): Promise<void> {
    await this.nc.drain().catch(() => this.nc.close());
  }
}

/** Chunk size of snapshot objects (capped by the server's max_payload): fewer round trips than the 128 KiB default. */
const SNAPSHOT_CHUNK_BYTES = 1 << 20;

function natsSnapshotObjects(os: ObjectStore): SnapshotObjects {
  return {
    put: async (key, data) => {
      // the object store reads a web stream chunk by chunk: the file is never whole in memory
      await os.put({ name: key, options: { max_chunk_size: SNAPSHOT_CHUNK_BYTES } }, ReadableStream.from(data));
    },
    get: async (key) => {
      const r = await os.get(key);
      if (r === null) return null;
      // the stream errors when the store's own SHA-256 of the chunks does not match
      return r.data as unknown as AsyncIterable<Uint8Array>;
    },
    list: async (prefix) => {
      const out: SnapshotObjectInfo[] = [];
      for (const info of await os.list()) {
        if (info.deleted || !info.name.startsWith(prefix)) continue;
        out.push({ key: info.name, bytes: info.size, mtimeMs: Date.parse(info.mtime) });
      }
      return out;
    },
    delete: async (key) => {
      await os.delete(key);
    },
  };
}

function isNotFound(e: unknown): boolean {
  const err = e as { code?: unknown; api_error?: { err_code?: number }; message?: string };
  const code = err.api_error?.err_code;
  return code === 10059 || code === 10014 || (typeof err.message === 'string' && /not found/i.test(err.message));
}

const utf8 = new TextEncoder();

export function encodeBatch(batch: ShardLogBatch): Uint8Array {
  return utf8.encode(JSON.stringify({ v: 1, shard: batch.shard, changes: batch.changes }));
}

export function decodeBatch(data: Uint8Array): ShardLogBatch {
  const o = JSON.parse(new TextDecoder().decode(data)) as { v: number; shard: number; changes: ShardLogBatch['changes'] };
  if (o.v !== 1) throw new Error(`shard log message version ${o.v} is not understood`);
  return { shard: o.shard, changes: o.changes };
}
