// A search node's side of the log (issue 24, docs/scale.md "The log", ADR 0206): the change source of a
// shard's index, fed from the node's durable subscription to its shard's subject.
//
// The index (search/index-set.ts) pulls changes from a source with `maxSeq()` and `changesSince()`, and
// commits the store sequence it reached as its checkpoint. This follower buffers delivered batches and
// serves them as such a source; a change at or below the sequence already applied is skipped (a
// republish, a redelivery after a restart). A batch is acknowledged only once the index has committed
// every change of it and of the batches before it (acknowledge-all), so after a crash the subscription
// resumes with the first batch not yet durable, and what it redelivers is skipped.
//
// A replica without an index (new, or its files lost) first installs the shard's latest snapshot (a
// peer's committed segments, ADR 0255) and follows the log from just after the log sequence it covers;
// without a usable snapshot it bootstraps from the document store: every record of its shard up to the
// store's sequence at that time (`shardOfStore`), then follows the log from a little before that time
// (docs/scale.md "Faults").
import { shardOfWork } from '../domain/shard-routing.js';
import type { StoredDocument } from '../domain/document.js';
import type { DocumentChange } from '../ports/document-store.js';
import type { ChangeSource, DeliveredBatch, ShardLogSubscription } from '../ports/shard-log.js';
import type { InstallOutcome } from './shard-snapshots.js';

export type { ChangeSource };

/** The part of the index the follower drives. */
export interface FollowedIndex {
  /** The store sequence committed durably. */
  checkpoint(): number;
  /** Applies every change the source offers, commits, and resolves then. */
  catchUp(options: { commit: 'always' }): Promise<unknown>;
}

/** The store's changes of one shard only (bootstrap of a replica). Deletions all pass: unknown ids are no-ops. */
export function shardOfStore(store: ChangeSource, shard: number, shards: number): ChangeSource {
  return {
    maxSeq: () => store.maxSeq(),
    async changesSince(afterSeq: number, limit: number): Promise<DocumentChange[]> {
      // the index stops at an empty page: read on until a change of this shard or the end
      let seq = afterSeq;
      for (;;) {
        const page = await store.changesSince(seq, limit);
        const mine = page.filter((c) => c.deleted || shardOfWork(c.doc.workKey, shards) === shard);
        if (mine.length > 0 || page.length < limit) return mine;
        seq = page[page.length - 1]!.seq;
      }
    },
  };
}

export interface FollowerOptions {
  /** Reads records sent by reference (too large for one message). */
  loadDocuments: (ids: readonly string[]) => Promise<Map<string, StoredDocument>>;
  /** Batches fetched per pull. */
  batchesPerPull?: number;
  /** Longest wait for a batch, ms. */
  waitMs?: number;
  report?: (err: unknown, context: string) => void;
}

export class ShardFollower implements ChangeSource {
  /** Changes delivered and not yet applied, in sequence order. */
  #buffer: DocumentChange[] = [];
  /** Highest sequence delivered into the buffer or already durable. */
  #high: number;
  /** Delivered batches not yet acknowledged, with the highest sequence the index must reach first. */
  #unacked: { batch: DeliveredBatch; needs: number }[] = [];
  #stopped = false;
  #loop: Promise<void> | null = null;
  /** Changes applied from the log (for status). */
  applied = 0;
  /** The log sequence of the first message delivered to this follower (null: none yet). */
  firstLogSeq: number | null = null;

  constructor(
    private readonly subscription: ShardLogSubscription,
    private readonly index: FollowedIndex,
    private readonly options: FollowerOptions,
  ) {
    this.#high = index.checkpoint();
  }

  async maxSeq(): Promise<number> {
    return this.#buffer.length > 0 ? this.#buffer[this.#buffer.length - 1]!.seq : this.#high;
  }

  async changesSince(afterSeq: number, limit: number): Promise<DocumentChange[]> {
    // nothing is dropped here: a page the index read but failed to apply is asked for again; changes
    // leave the buffer once committed (acknowledge)
    let lo = 0;
    let hi = this.#buffer.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#buffer[mid]!.seq <= afterSeq) lo = mid + 1;
      else hi = mid;
    }
    return this.#buffer.slice(lo, lo + limit);
  }

  /** Fetches the next batches into the buffer; the number of new changes. */
  async pull(): Promise<number> {
    const batches = await this.subscription.fetch(this.options.batchesPerPull ?? 64, this.options.waitMs ?? 1_000);
    if (this.#buffer.length === 0) this.#high = Math.max(this.#high, this.index.checkpoint());
    let added = 0;
    for (const batch of batches) {
      this.firstLogSeq ??= batch.logSeq;
      const fresh = batch.changes.filter((c) => c.seq > this.#high);
      const refs = fresh.filter((c): c is { deleted: false; seq: number; id: string; ref: true } => !c.deleted && 'ref' in c);
      const loaded = refs.length > 0 ? await this.options.loadDocuments(refs.map((r) => r.id)) : new Map<string, StoredDocument>();
      for (const c of fresh) {
        if (!c.deleted && 'ref' in c) {
          // the record as the store holds it now (a later change of it follows in the log)
          const doc = loaded.get(c.id);
          this.#buffer.push(doc ? { deleted: false, seq: c.seq, doc } : { deleted: true, seq: c.seq, id: c.id });
        } else this.#buffer.push(c as DocumentChange);
        this.#high = c.seq;
        added++;
      }
      this.#unacked.push({ batch, needs: this.#high });
    }
    return added;
  }

  /** Acknowledges the batches whose changes the index has all committed. */
  async acknowledge(): Promise<void> {
    const durable = this.index.checkpoint();
    let drop = 0;
    while (drop < this.#buffer.length && this.#buffer[drop]!.seq <= durable) drop++;
    if (drop > 0) this.#buffer = this.#buffer.slice(drop);
    let last = -1;
    for (let i = 0; i < this.#unacked.length; i++) if (this.#unacked[i]!.needs <= durable) last = i;
    if (last < 0) return;
    await this.#unacked[last]!.batch.ack(); // acknowledge-all: the earlier ones with it
    this.#unacked = this.#unacked.slice(last + 1);
  }

  /** One step: pull, apply and commit, acknowledge. Returns the changes applied. */
  async step(): Promise<number> {
    const n = await this.pull();
    if (this.#unacked.length === 0) return 0;
    if (this.#buffer.length > 0) await this.index.catchUp({ commit: 'always' });
    await this.acknowledge();
    this.applied += n;
    return n;
  }

  start(): void {
    if (this.#loop) return;
    this.#loop = (async () => {
      while (!this.#stopped) {
        try {
          await this.step();
        } catch (err) {
          if (this.#stopped) break;
          this.options.report?.(err, 'shard follower: applying the log failed; retrying');
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop;
    await this.subscription.close();
  }
}

/** A change source whose target can be switched (bootstrap from the store, then the log). */
export class SwitchableSource implements ChangeSource {
  constructor(public target: ChangeSource) {}
  maxSeq(): Promise<number> {
    return this.target.maxSeq();
  }
  changesSince(afterSeq: number, limit: number): Promise<DocumentChange[]> {
    return this.target.changesSince(afterSeq, limit);
  }
}

/** How far before a bootstrap's start the log is read from (clock differences between nodes), ms. */
export const BOOTSTRAP_MARGIN_MS = 60_000;

/** How a replica without a usable index was brought up (openReplica's `onBootstrap`). */
export interface BootstrapInfo {
  /** `snapshot`: a peer's snapshot, then the log after it; `store`: every record of the shard from the store. */
  source: 'snapshot' | 'store';
  /** The store sequence the index holds once bootstrapped (the log's tail follows). */
  seq: number;
  ms: number;
  /** Source snapshot: its id and the log sequence the consumer starts after. */
  snapshot?: { id: string; logSeq: number; bytes: number };
  /** Source store after a refused or missing snapshot: why the snapshot was not used. */
  snapshotRefused?: string;
}

export interface ReplicaParts {
  /** The shard's index, opened over `source`. */
  index: FollowedIndex & { rebuild(): Promise<unknown> };
  source: SwitchableSource;
  /** The document store (bootstrap, records sent by reference). */
  store: ChangeSource & { getMany(ids: readonly string[]): Promise<Map<string, StoredDocument>> };
  shard: number;
  shards: number;
  /** Whether the replica's durable subscription exists. */
  subscribed(): Promise<boolean>;
  /**
   * Whether the log may have dropped (max age) messages the subscription never acknowledged: the
   * replica was down longer than the log keeps changes, and must rebuild.
   */
  behindRetention?(): Promise<boolean>;
  /**
   * Opens the replica's durable subscription, creating it when absent: from `start` (a time, ms, or
   * just after a log sequence) or the log's beginning.
   */
  subscribe(start?: number | { afterLogSeq: number }): Promise<ShardLogSubscription>;
  /** Deletes the replica's durable subscription. */
  unsubscribe(): Promise<void>;
  /**
   * Installs the shard's latest snapshot into `index` (cluster/shard-snapshots.ts, ADR 0255); absent: a
   * replica without an index bootstraps from the store.
   */
  installSnapshot?(): Promise<InstallOutcome>;
  nowMs(): number;
  report?: (err: unknown, context: string) => void;
  onBootstrap?: (info: BootstrapInfo) => void;
  /** What the replica is doing while it is brought up (readiness), null once it follows the log. */
  onState?: (state: string | null) => void;
}

/**
 * Brings a shard replica up: an index with a checkpoint and its subscription resumes from the log. One
 * without (new, or its files lost) or whose subscription is gone installs the shard's latest snapshot
 * and follows the log from just after the snapshot's log sequence; when there is no snapshot, it is
 * refused (damaged, another layout) or the log no longer holds the changes after it, the replica
 * bootstraps from the store, then follows the log from a little before the bootstrap began. Returns
 * the follower, not yet started.
 */
export async function openReplica(parts: ReplicaParts): Promise<ShardFollower> {
  const { index, source } = parts;
  let sub: ShardLogSubscription | null = null;
  if (index.checkpoint() > 0 && (await parts.subscribed()) && !(await parts.behindRetention?.())) {
    sub = await parts.subscribe();
  } else {
    const t0 = parts.nowMs();
    await parts.unsubscribe();
    let refused: string | undefined;
    if (parts.installSnapshot) {
      parts.onState?.('looking for a snapshot of the shard');
      const r = await parts.installSnapshot().catch((e: unknown): InstallOutcome => ({ installed: false, reason: `installing a snapshot failed: ${(e as Error).message}` }));
      if (r.installed) {
        sub = await parts.subscribe({ afterLogSeq: r.snapshot.logSeq });
        // the log may have dropped the tail between the check and the consumer's creation
        if (await parts.behindRetention?.()) {
          refused = `the log dropped the changes after snapshot ${r.snapshot.id} (log sequence ${r.snapshot.logSeq}) while it was installed`;
          await sub.close();
          sub = null;
          await parts.unsubscribe();
        } else {
          parts.onBootstrap?.({ source: 'snapshot', seq: index.checkpoint(), ms: parts.nowMs() - t0, snapshot: { id: r.snapshot.id, logSeq: r.snapshot.logSeq, bytes: r.snapshot.totalBytes } });
        }
      } else refused = r.reason;
      if (refused !== undefined) {
        parts.report?.(new Error(refused), 'shard replica: snapshot not used; bootstrapping from the store');
        parts.onState?.(`bootstrapping from the store: ${refused}`);
      }
    }
    if (sub === null) {
      source.target = shardOfStore(parts.store, parts.shard, parts.shards);
      if (index.checkpoint() > 0) await index.rebuild();
      else await index.catchUp({ commit: 'always' });
      sub = await parts.subscribe(t0 - BOOTSTRAP_MARGIN_MS);
      parts.onBootstrap?.({ source: 'store', seq: index.checkpoint(), ms: parts.nowMs() - t0, ...(refused !== undefined ? { snapshotRefused: refused } : {}) });
    }
  }
  const follower = new ShardFollower(sub, index, { loadDocuments: (ids) => parts.store.getMany(ids), ...(parts.report ? { report: parts.report } : {}) });
  source.target = follower;
  parts.onState?.(null);
  return follower;
}
