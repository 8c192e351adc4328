// Membership heartbeats (issue 24, docs/scale.md "Roles and configuration", ADR 0205): each process
// announces itself in the cluster's key-value bucket every `heartbeatMs` with a timestamp; readers count
// a member live while its last announcement is younger than three heartbeats, and the bucket's max age
// removes entries of processes that stopped (NATS 2.9 has no per-key TTL).
import type { Clock } from '../ports/clock.js';
import type { Member, MembershipStore } from '../ports/shard-log.js';

export const liveWindowMs = (heartbeatMs: number): number => heartbeatMs * 3;

export class Heartbeat {
  #timer: NodeJS.Timeout | null = null;
  constructor(
    private readonly store: MembershipStore,
    private readonly clock: Clock,
    private readonly describe: () => Omit<Member, 'at'>,
    private readonly heartbeatMs: number,
    private readonly report: (err: unknown, context: string) => void = () => undefined,
  ) {}

  async beat(): Promise<void> {
    await this.store.announce({ ...this.describe(), at: this.clock.nowMs() });
  }

  async start(): Promise<void> {
    // a bucket just created may have no leader yet: the next beat tries again
    await this.beat().catch((err: unknown) => this.report(err, 'membership heartbeat failed'));
    this.#timer = setInterval(() => void this.beat().catch((err: unknown) => this.report(err, 'membership heartbeat failed')), this.heartbeatMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.store.withdraw(this.describe().id).catch(() => undefined);
  }
}

/** Live search replicas per shard (the API nodes' view of the cluster). */
export function replicasByShard(members: readonly Member[], shards: number): Map<number, Member[]> {
  const out = new Map<number, Member[]>();
  for (let s = 0; s < shards; s++) out.set(s, []);
  for (const m of members) if (m.role === 'search' && m.shard !== undefined && out.has(m.shard)) out.get(m.shard)!.push(m);
  return out;
}

/**
 * Runs `fn` until it succeeds or `ceilingMs` passes (then rethrows its last error): a stream or bucket
 * just created on a NATS cluster answers "no responders" until its replicas elect a leader.
 */
export async function retrying<T>(fn: () => Promise<T>, ceilingMs: number, pauseMs = 250): Promise<T> {
  const end = Date.now() + ceilingMs;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (Date.now() >= end) throw e;
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  }
}
