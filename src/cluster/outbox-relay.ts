// The outbox relay (issue 24, docs/scale.md "The log", ADR 0206): moves committed document changes from
// the store's transactional outbox to the per-shard log, in store-sequence order, and deletes outbox
// entries only once the log has acknowledged them. One relay is active in the cluster at a time (a lock
// in the store); any api or worker process may hold it, and another takes over when it dies.
//
// Guarantees, with the search nodes' rule "apply a change only when its sequence is above what you have
// made durable" (shard-follower.ts):
// - nothing lost: an entry leaves the outbox only after its batch's publish acknowledgement, so a crash
//   between the commit and the publish leaves it there for the next relay;
// - nothing applied twice: a republished batch (same message id, derived from the store sequences)
//   inside the log's duplicate window is dropped by JetStream, and one outside it is skipped by the
//   search node (its changes are at or below its durable sequence);
// - order: a shard's batches are published one after the other, each after the previous one's
//   acknowledgement, so a failed publish can never let a later batch overtake it.
import { shardOfWork } from '../domain/shard-routing.js';
import type { Outbox, OutboxEntry, RelayLease, ShardLogBatch, ShardLogChange, ShardLogPublisher } from '../ports/shard-log.js';

export interface RelayOptions {
  shards: number;
  /** Outbox entries read per round. */
  rowsPerRound?: number;
  /** Pause when the outbox is empty, ms. */
  idleMs?: number;
  /** Pause after a failure, ms. */
  retryMs?: number;
  /** How often a process that is not the relay tries to become it, ms. */
  electionMs?: number;
  report?: (err: unknown, context: string) => void;
  onPublished?: (entries: number, lastSeq: number) => void;
}

/** Bytes left for the envelope of a message (`{"v":1,"shard":n,"changes":[...]}`) and headers. */
const ENVELOPE = 4096;
const utf8Length = (s: string) => Buffer.byteLength(s, 'utf8');

/** Splits one round of outbox entries into per-shard lists of changes, in sequence order. */
export function routeEntries(entries: readonly OutboxEntry[], shards: number): Map<number, ShardLogChange[]> {
  const out = new Map<number, ShardLogChange[]>();
  const push = (shard: number, c: ShardLogChange) => {
    let list = out.get(shard);
    if (!list) out.set(shard, (list = []));
    list.push(c);
  };
  for (const e of entries) {
    const shard = shardOfWork(e.workKey, shards);
    // a record whose work key moved it to another shard is deleted from the one it left
    if (e.oldWorkKey !== null) {
      const old = shardOfWork(e.oldWorkKey, shards);
      if (old !== shard) push(old, { deleted: true, seq: e.seq, id: e.id });
    }
    // a superseded entry's state travels with the later entry of the same record
    if (e.change) push(shard, e.change);
  }
  return out;
}

/**
 * Cuts a shard's changes into messages of at most `maxBytes`; a change too large for a message on its
 * own travels as a reference (the subscriber reads the record from the store).
 */
export function cutBatches(shard: number, changes: readonly ShardLogChange[], maxBytes: number): { batch: ShardLogBatch; msgId: string }[] {
  const limit = Math.max(1024, maxBytes - ENVELOPE);
  const out: { batch: ShardLogBatch; msgId: string }[] = [];
  let cur: ShardLogChange[] = [];
  let size = 0;
  const flush = () => {
    if (cur.length === 0) return;
    out.push({ batch: { shard, changes: cur }, msgId: `${shard}:${cur[0]!.seq}-${cur[cur.length - 1]!.seq}` });
    cur = [];
    size = 0;
  };
  for (let c of changes) {
    let n = utf8Length(JSON.stringify(c)) + 1;
    if (n > limit && !c.deleted) {
      c = { deleted: false, seq: c.seq, id: 'doc' in c ? c.doc.id : c.id, ref: true };
      n = utf8Length(JSON.stringify(c)) + 1;
    }
    if (size + n > limit) flush();
    cur.push(c);
    size += n;
  }
  flush();
  return out;
}

export class OutboxRelay {
  readonly #rows: number;
  #stopped = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #lease: RelayLease | null = null;

  constructor(
    private readonly outbox: Outbox,
    private readonly publisher: ShardLogPublisher,
    private readonly options: RelayOptions,
  ) {
    this.#rows = options.rowsPerRound ?? 5_000;
  }

  /** Whether this process is the cluster's relay now. */
  get leading(): boolean {
    return this.#lease?.alive() ?? false;
  }

  /**
   * Publishes the oldest pending outbox entries (one round) and deletes them from the outbox once every
   * batch is acknowledged. Returns the entries published (0: the outbox was empty). Throws when a publish
   * fails: nothing of the round is deleted, and the next round publishes it again.
   */
  async publishRound(): Promise<number> {
    const entries = await this.outbox.pending(this.#rows);
    if (entries.length === 0) return 0;
    const routed = routeEntries(entries, this.options.shards);
    const results = await Promise.allSettled(
      [...routed].map(async ([shard, changes]) => {
        for (const { batch, msgId } of cutBatches(shard, changes, this.publisher.maxMessageBytes)) await this.publisher.publish(batch, msgId);
      }),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const last = entries[entries.length - 1]!.seq;
    await this.outbox.markPublished(last);
    this.options.onPublished?.(entries.length, last);
    return entries.length;
  }

  /** Starts the loop: elect, then relay while leading. */
  start(): void {
    if (this.#loop) return;
    this.#loop = this.#run();
  }

  /** Ends the next pause early (a local write was committed). */
  nudge(): void {
    this.#wake?.();
  }

  async #pause(ms: number): Promise<void> {
    if (this.#stopped) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.#wake = done;
    });
    this.#wake = null;
  }

  async #run(): Promise<void> {
    const report = this.options.report ?? (() => undefined);
    while (!this.#stopped) {
      if (!this.leading) {
        try {
          await this.#lease?.release();
          this.#lease = await this.outbox.tryLead();
        } catch (err) {
          report(err, 'outbox relay: election failed');
          this.#lease = null;
        }
        if (!this.leading) {
          await this.#pause(this.options.electionMs ?? 2_000);
          continue;
        }
      }
      try {
        const n = await this.publishRound();
        if (n === 0) await this.#pause(this.options.idleMs ?? 100);
      } catch (err) {
        report(err, 'outbox relay: publishing failed; retrying');
        await this.#pause(this.options.retryMs ?? 500);
      }
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#loop;
    await this.#lease?.release();
    this.#lease = null;
  }
}
