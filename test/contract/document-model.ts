// A reference model of the DocumentStore rules, written as plainly as possible (every record in one
// map, every rule a loop), for the contract's model-based property: any sequence of batches and
// deletes must leave a store with exactly the model's sequence numbers, work keys and URI lookups.
import { workIdentityKeys } from '../../src/domain/work.js';
import type { DocumentRecord } from '../../src/domain/document.js';
import type { UpsertResult } from '../../src/ports/document-store.js';
import { contentHash, serializeRecord } from '../../src/adapters/sql/document-row.js';

interface ModelRow {
  id: string;
  live: boolean;
  hash: string;
  workKey: string;
  seq: number;
  uris: string[];
  keys: string[];
}

/** `ORDER BY id` of the stores: UTF-8 bytes. */
const byId = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

export class DocumentModel {
  readonly rows = new Map<string, ModelRow>();
  constructor(public seq = 0) {}

  upsertMany(docs: readonly DocumentRecord[]): UpsertResult {
    const result: UpsertResult = { inserted: 0, updated: 0, unchanged: 0 };
    for (const doc of docs) {
      const hash = contentHash(serializeRecord(doc));
      const prev = this.rows.get(doc.id);
      const live = prev?.live ? prev : undefined;
      if (live && live.hash === hash) {
        result.unchanged++;
        continue;
      }
      const keys = workIdentityKeys(doc);
      // Every work this record shares an identity key with, its own id, and its current work.
      const candidates = new Set<string>([doc.id]);
      if (live) candidates.add(live.workKey);
      for (const r of this.rows.values()) if (r.live && r.keys.some((k) => keys.includes(k))) candidates.add(r.workKey);
      const sorted = [...candidates].sort();
      const workKey = sorted[0]!;
      // The other works merge into it: their records are relabelled and re-sequenced, in key then id order.
      for (const other of sorted.slice(1)) {
        const members = [...this.rows.values()].filter((r) => r.live && r.workKey === other && r.id !== doc.id).sort((a, b) => byId(a.id, b.id));
        for (const r of members) {
          r.workKey = workKey;
          r.seq = ++this.seq;
        }
      }
      this.rows.set(doc.id, { id: doc.id, live: true, hash, workKey, seq: ++this.seq, uris: [...doc.uris], keys });
      if (live) result.updated++;
      else result.inserted++;
    }
    return result;
  }

  delete(id: string): boolean {
    const r = this.rows.get(id);
    if (!r?.live) return false;
    Object.assign(r, { live: false, seq: ++this.seq, uris: [], keys: [], hash: '' });
    return true;
  }

  /** `changesSince(afterSeq)` reduced to what the model knows. */
  changesSince(afterSeq: number): { id: string; seq: number; deleted: boolean; workKey: string | null }[] {
    return [...this.rows.values()]
      .filter((r) => r.seq > afterSeq)
      .sort((a, b) => a.seq - b.seq)
      .map((r) => ({ id: r.id, seq: r.seq, deleted: !r.live, workKey: r.live ? r.workKey : null }));
  }

  /** The id `getByUri` must return. */
  idByUri(uri: string): string | null {
    return [...this.rows.values()].filter((r) => r.live && r.uris.includes(uri)).sort((a, b) => byId(a.id, b.id))[0]?.id ?? null;
  }
}
