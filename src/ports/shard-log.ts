// The cluster's replicated log of document changes (issue 24, docs/scale.md "The log", ADRs 0205-0207):
// the transactional outbox in the document store, the per-shard log it is relayed to (NATS JetStream,
// one subject per shard), a search node's durable subscription to its shard, and cluster membership.
import type { DocumentChange, DocumentStore } from './document-store.js';

/** What a search index reads its changes from: the document store itself, or a shard's log (cluster/shard-follower.ts). */
export type ChangeSource = Pick<DocumentStore, 'changesSince' | 'maxSeq'>;

/** One change waiting in the outbox, in store sequence order. */
export interface OutboxEntry {
  /** The store sequence number the change was given. */
  seq: number;
  id: string;
  /** The record's work key before this change (null: the record is new). */
  oldWorkKey: string | null;
  workKey: string;
  /**
   * The record as of this change (a deletion as `{deleted: true}`), or null when a later change to the
   * same record has superseded it (that later entry carries the record's state).
   */
  change: DocumentChange | null;
}

/** The transactional outbox: written by the store in the transaction of each change. */
export interface Outbox {
  /**
   * Turns the outbox on (idempotent): from then on every committed change has an entry. Waits for
   * writers in flight, so a change committed after this resolves is never missed.
   */
  enable(): Promise<void>;
  /** The oldest unpublished entries, at most `limit`, in sequence order. */
  pending(limit: number): Promise<OutboxEntry[]>;
  /** Removes the entries with seq <= `seq` (called only once the log has acknowledged them). */
  markPublished(seq: number): Promise<void>;
  /**
   * Tries to become the one relay of the cluster (a lock held while the lease lives); null when another
   * process holds it.
   */
  tryLead(): Promise<RelayLease | null>;
}

export interface RelayLease {
  /** False once the lock is lost (its connection broke). */
  alive(): boolean;
  release(): Promise<void>;
}

/** One message of a shard's log: consecutive changes of one shard, in sequence order. */
export interface ShardLogBatch {
  shard: number;
  /**
   * The changes. A change too large for one message comes as `{deleted: false, ref: true}` without
   * its document: the subscriber reads the record from the document store.
   */
  changes: readonly ShardLogChange[];
}

export type ShardLogChange = DocumentChange | { deleted: false; seq: number; id: string; ref: true };

/** Publishing side of the per-shard log. */
export interface ShardLogPublisher {
  /**
   * Publishes one batch to its shard's subject and resolves once the log has stored it durably (the
   * publish acknowledgement). `msgId` is derived from the store sequences, so a republish inside the
   * log's duplicate window is dropped. Rejects on a timeout or a refusal.
   */
  publish(batch: ShardLogBatch, msgId: string): Promise<void>;
  /** Largest message body the log accepts, bytes. */
  readonly maxMessageBytes: number;
}

/** A delivered batch and its place in the subscriber's durable position. */
export interface DeliveredBatch extends ShardLogBatch {
  /** The log's own sequence of this message (for diagnostics). */
  logSeq: number;
  /** Marks this batch and every earlier one of the subscription as done (acknowledge-all). */
  ack(): Promise<void>;
}

/** A search node's durable subscription to its shard (resumes after its last acknowledged batch). */
export interface ShardLogSubscription {
  /** The next batches, waiting up to `waitMs` for the first; [] when none came. */
  fetch(max: number, waitMs: number): Promise<DeliveredBatch[]>;
  /** Deletes the durable position (a replica that lost its index starts over). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** A process of the cluster as it announces itself. */
export interface Member {
  /** Unique and stable for the process's life, e.g. `search-0-1`, `api-0`. */
  id: string;
  role: 'api' | 'search' | 'worker';
  url?: string;
  shard?: number;
  replica?: number;
  pid: number;
  /** Highest store sequence the member has made durable (search). */
  seq?: number;
  /** Live documents in the replica's committed indexes, documents and social together (search). */
  docs?: number;
  /** When this announcement was made, ms since the epoch. */
  at: number;
}

/** Membership in a replicated key-value store (heartbeats; stale entries expire). */
export interface MembershipStore {
  announce(member: Member): Promise<void>;
  withdraw(id: string): Promise<void>;
  /** Every member whose last announcement is younger than `maxAgeMs` at `nowMs`. */
  live(nowMs: number, maxAgeMs: number): Promise<Member[]>;
  /** Calls `onChange` whenever a member announces or withdraws; returns a stop function. */
  watch(onChange: (member: Member | { id: string; withdrawn: true }) => void): Promise<() => void>;
}
