// Plans a document batch in memory so a client/server store can write it in a few set-based statements
// instead of several round trips per record (PostgreSQL: about 10 statements per batch instead of 5
// per record). The plan reproduces, record by record, what the SQLite store does with one query at a
// time: the same unchanged checks, the same work keys (work-key.ts), the same relabelling order and
// the same sequence numbers; test/contract/storage.contract.ts checks both stores against one model.
//
// It needs to know only part of the store, loaded before planning (see `workKeysToLoad`):
//   - the stored rows of the batch's ids (live or tombstone, with their content hashes),
//   - the live records carrying any identity key of the batch (what the batch can link to),
//   - the live records of every work key that can take part in a merge.
// That is enough because a merge only ever involves work keys that are already among those rows or are
// ids of the batch: relabelling never invents a key.
import type { DocumentRecord } from '../../domain/document.js';
import { workIdentityKeys } from '../../domain/work.js';
import type { UpsertResult } from '../../ports/document-store.js';
import { contentHash, serializeRecord } from './document-row.js';
import { assignWorkKey } from './work-key.js';

/** A stored row as the plan needs it. */
export interface StoredRowState {
  id: string;
  workKey: string;
  live: boolean;
}

/** A record of the batch with what the store derives from it (computed once per record). */
export interface PreparedDoc {
  doc: DocumentRecord;
  /** serializeRecord(doc). */
  json: string;
  /** contentHash(json). */
  hash: string;
  /** workIdentityKeys(doc): its URIs' identity keys and its version relations'. */
  keys: string[];
}

/** Serialises, hashes and derives identity keys of each record. */
export const prepareDocs = (docs: readonly DocumentRecord[]): PreparedDoc[] =>
  docs.map((doc) => {
    const json = serializeRecord(doc);
    return { doc, json, hash: contentHash(json), keys: workIdentityKeys(doc) };
  });

/** The final state of a record the batch writes. */
export interface PlannedWrite extends PreparedDoc {
  workKey: string;
  seq: number;
}

/** A record the batch does not write but moves into another work (new work key, new seq). */
export interface PlannedRelabel {
  id: string;
  workKey: string;
  seq: number;
}

export interface UpsertPlan {
  result: UpsertResult;
  /** One per written id (its last version in the batch), in first-write order. */
  writes: PlannedWrite[];
  relabels: PlannedRelabel[];
}

/** What the planner loaded about the store, before the batch. */
export interface PlanContext {
  /** Stored rows of the batch's ids, with content hash (tombstones included). */
  existing: readonly (StoredRowState & { hash: string })[];
  /** Live records carrying an identity key of the batch: one entry per (key, record). */
  linked: readonly { key: string; id: string; workKey: string }[];
  /** Live records of the work keys returned by workKeysToLoad. */
  workMembers: readonly { id: string; workKey: string }[];
}

/** UTF-8 byte order, the order of SQLite BINARY and PostgreSQL COLLATE "C" (`ORDER BY id`). */
export const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The batch's ids, deduplicated. */
export const batchIds = (docs: readonly PreparedDoc[]): string[] => [...new Set(docs.map((d) => d.doc.id))];

/**
 * The records that differ from what is stored (new, tombstoned or changed). Only they can link, merge
 * or be written, so a batch of unchanged records needs nothing more loaded.
 */
export const changedDocs = (docs: readonly PreparedDoc[], existing: PlanContext['existing']): PreparedDoc[] => {
  const stored = new Map(existing.filter((r) => r.live).map((r) => [r.id, r.hash]));
  return docs.filter((d) => stored.get(d.doc.id) !== d.hash);
};

/** Every identity key of these records (what `PlanContext.linked` must be loaded for). */
export const batchIdentityKeys = (docs: readonly PreparedDoc[]): string[] => [...new Set(docs.flatMap((d) => d.keys))];

/** The work keys whose live members must be loaded: every key a merge among these records could involve. */
export function workKeysToLoad(docs: readonly PreparedDoc[], existing: PlanContext['existing'], linked: PlanContext['linked']): string[] {
  const keys = new Set<string>(batchIds(docs));
  for (const r of existing) if (r.live) keys.add(r.workKey);
  for (const r of linked) keys.add(r.workKey);
  return [...keys];
}

const addTo = <K, V>(m: Map<K, Set<V>>, k: K, v: V) => {
  const s = m.get(k);
  if (s) s.add(v);
  else m.set(k, new Set([v]));
};

/**
 * Plans the batch (in order) against the loaded context; `nextSeq` hands out sequence numbers in the
 * order the sequential algorithm would use them.
 */
export function planUpsert(docs: readonly PreparedDoc[], ctx: PlanContext, nextSeq: () => number): UpsertPlan {
  // Live records' work keys; content hashes of the batch's stored rows.
  const workKeyOf = new Map<string, string>();
  const live = new Set<string>();
  const hashOf = new Map<string, string>();
  const members = new Map<string, Set<string>>();
  for (const r of ctx.existing) {
    hashOf.set(r.id, r.hash);
    if (r.live) {
      live.add(r.id);
      workKeyOf.set(r.id, r.workKey);
    }
  }
  for (const r of [...ctx.linked, ...ctx.workMembers]) {
    live.add(r.id);
    workKeyOf.set(r.id, r.workKey);
  }
  for (const id of live) addTo(members, workKeyOf.get(id)!, id);
  // Which live records carry which of the batch's identity keys.
  const carriers = new Map<string, Set<string>>();
  const keysOf = new Map<string, Set<string>>();
  for (const r of ctx.linked) {
    addTo(carriers, r.key, r.id);
    addTo(keysOf, r.id, r.key);
  }

  const result: UpsertResult = { inserted: 0, updated: 0, unchanged: 0 };
  const writes = new Map<string, PlannedWrite>();
  const relabels = new Map<string, PlannedRelabel>();

  for (const prepared of docs) {
    const { doc, hash, keys } = prepared;
    const wasLive = live.has(doc.id);
    if (wasLive && hashOf.get(doc.id) === hash) {
      result.unchanged++;
      continue;
    }
    const linkedKeys = new Set<string>();
    for (const k of keys) for (const id of carriers.get(k) ?? []) linkedKeys.add(workKeyOf.get(id)!);
    const { workKey, absorbed } = assignWorkKey(doc.id, linkedKeys, wasLive ? workKeyOf.get(doc.id)! : null);

    for (const other of absorbed) {
      const ids = [...(members.get(other) ?? [])].filter((id) => id !== doc.id).sort(byteOrder);
      for (const id of ids) {
        members.get(other)!.delete(id);
        addTo(members, workKey, id);
        workKeyOf.set(id, workKey);
        const seq = nextSeq();
        const w = writes.get(id);
        if (w) {
          w.workKey = workKey;
          w.seq = seq;
        } else relabels.set(id, { id, workKey, seq });
      }
    }

    if (wasLive) {
      members.get(workKeyOf.get(doc.id)!)?.delete(doc.id);
      for (const k of keysOf.get(doc.id) ?? []) carriers.get(k)?.delete(doc.id);
    }
    keysOf.set(doc.id, new Set(keys));
    for (const k of keys) addTo(carriers, k, doc.id);
    live.add(doc.id);
    workKeyOf.set(doc.id, workKey);
    hashOf.set(doc.id, hash);
    addTo(members, workKey, doc.id);
    relabels.delete(doc.id);
    const seq = nextSeq();
    // Map insertion order is kept on overwrite: writes stay in first-write order.
    writes.set(doc.id, { ...prepared, workKey, seq });
    if (wasLive) result.updated++;
    else result.inserted++;
  }
  return { result, writes: [...writes.values()], relabels: [...relabels.values()] };
}
