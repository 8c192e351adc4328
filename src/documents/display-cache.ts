// A bounded LRU cache of display records (issue 14, ADR 0135): the hits of popular queries are the
// same few thousand records, so a page of hits is mostly served from memory. Entries are the store's
// display forms as read (before the work links, which are read fresh each time: a new version or
// notice elsewhere changes them). A record leaves the cache when it is written or deleted: through
// this process's store (WorkLinkedDocumentStore.upsertMany/delete) and through the change feed the
// search indexes follow (IndexSet change listener), which also carries other processes' writes; so
// a hit never shows a record older than the index that found it.
import type { DisplayDocument } from '../domain/display-document.js';

export class DisplayRecordCache {
  readonly #entries = new Map<string, DisplayDocument>();
  /** Bumped by every invalidation: a read that started before one does not fill the cache. */
  #epoch = 0;
  hits = 0;
  misses = 0;

  /** @param capacity most records held (0: the cache is off). */
  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 0) throw new RangeError(`capacity must be a non-negative integer, got ${capacity}`);
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * The records of `ids`: cached ones from memory (refreshed as most recently used), the others through
   * `load`, whose answers fill the cache unless an invalidation happened meanwhile.
   */
  async getMany(ids: readonly string[], load: (missing: string[]) => Promise<Map<string, DisplayDocument>>): Promise<Map<string, DisplayDocument>> {
    if (this.capacity === 0) return load([...new Set(ids)]);
    const out = new Map<string, DisplayDocument>();
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const doc = this.#entries.get(id);
      if (doc) {
        this.#entries.delete(id);
        this.#entries.set(id, doc);
        out.set(id, doc);
        this.hits++;
      } else {
        missing.push(id);
        this.misses++;
      }
    }
    if (missing.length === 0) return out;
    const epoch = this.#epoch;
    const loaded = await load(missing);
    const fresh = epoch === this.#epoch;
    for (const [id, doc] of loaded) {
      const frozen = Object.freeze(doc);
      out.set(id, frozen);
      if (fresh) this.#put(id, frozen);
    }
    return out;
  }

  /** Drops these records (written, relabelled or deleted). */
  invalidate(ids: Iterable<string>): void {
    this.#epoch++;
    for (const id of ids) this.#entries.delete(id);
  }

  clear(): void {
    this.#epoch++;
    this.#entries.clear();
  }

  #put(id: string, doc: DisplayDocument): void {
    this.#entries.delete(id);
    this.#entries.set(id, doc);
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }
}
