// A bounded LRU cache of what search hits show (issue 14, ADR 0135): the hits of popular queries are
// the same few thousand records, so a page of hits is mostly served from memory. It holds display
// records with their work links filled in (versions, notices), and the body texts that snippets were
// cut from. Notice records (whose links name other works' records) are never cached.
//
// What leaves the cache when a record X is written, relabelled or deleted (told by this process's
// own writes and by the change feed the search indexes follow, which also carries other processes'
// writes; so a hit never shows a record older than the index that found it):
// - X itself, and every entry whose links name X (X among its versions or notices);
// - every entry of X's (new) work: X's arrival or departure changes their versions;
// - everything, when X carries relations (a notice or version link can attach to any work: rare).
import type { DisplayDocument, DisplayDocumentWithText } from '../domain/display-document.js';

/** A changed record as the cache needs to know it (from the change feed or a write). */
export interface ChangedRecord {
  id: string;
  /** Absent for a deletion. */
  doc?: { workKey?: string; relations?: readonly unknown[] };
}

/** Most characters of body text held (about 16 MB of UTF-16), whatever the record capacity. */
const BODY_CHARS = 8_000_000;
/** A body longer than this share of the budget is never cached (one long book would evict everything). */
const BODY_MAX_SHARE = 16;

export class DisplayRecordCache {
  readonly #entries = new Map<string, DisplayDocument>();
  readonly #bodies = new Map<string, string>();
  /**
   * An entry with its body, made once from both and dropped with either: a record read with its text is
   * then the same object every time, like one read without (the search threads keep its wire bytes by
   * object: ADR 0195), and no copy is made per read.
   */
  readonly #withText = new Map<string, DisplayDocumentWithText>();
  #bodyChars = 0;
  /** Entry ids by work key, and by the record ids their links name. */
  readonly #byWork = new Map<string, Set<string>>();
  readonly #byLinked = new Map<string, Set<string>>();
  /** Bumped by every invalidation: a read that started before one does not fill the cache. */
  #epoch = 0;
  /**
   * Ids loaded by reads with `admitRepeats`, least recently loaded first, at most `capacity`: a record is
   * kept from its second load on, so hits that do not repeat never enter (and churn) the cache (ADR 0359).
   * Kept through invalidations and `clear` (ids only): a search thread empties its cache at every snapshot,
   * and a hit loaded before one is kept at its first load after it.
   */
  readonly #seenOnce = new Set<string>();
  hits = 0;
  misses = 0;

  /** @param capacity most records held, and most body texts held within 8M characters (0: the cache is off). */
  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 0) throw new RangeError(`capacity must be a non-negative integer, got ${capacity}`);
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * The records of `ids`, with their full text for the ids in `withText` (those that have one): cached
   * ones from memory (refreshed as most recently used), the others through `load` (which gets the
   * missing ids and which of them need their text), whose answers fill the cache unless an
   * invalidation happened meanwhile. `admitRepeats`: a loaded record is kept only when it was loaded
   * before (within the last `capacity` such loads): search hits (ADR 0359), where keeping every record of
   * queries that never repeat costs more (copies, old-generation garbage) than the cache saves.
   */
  async getMany(
    ids: readonly string[],
    withText: ReadonlySet<string>,
    load: (missing: string[], missingText: string[]) => Promise<Map<string, DisplayDocumentWithText>>,
    opts: { admitRepeats?: boolean } = {},
  ): Promise<Map<string, DisplayDocumentWithText>> {
    if (this.capacity === 0) {
      const all = [...new Set(ids)];
      return load(all, all.filter((id) => withText.has(id)));
    }
    const out = new Map<string, DisplayDocumentWithText>();
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const doc = this.#entries.get(id);
      const needsText = doc !== undefined && withText.has(id) && doc.hasFullText;
      const body = needsText ? this.#bodies.get(id) : undefined;
      if (doc && (!needsText || body !== undefined)) {
        this.#entries.delete(id);
        this.#entries.set(id, doc);
        if (body !== undefined) {
          this.#bodies.delete(id);
          this.#bodies.set(id, body);
        }
        let withText: DisplayDocumentWithText | undefined;
        if (body !== undefined && (withText = this.#withText.get(id)) === undefined) this.#withText.set(id, (withText = Object.freeze({ ...doc, fullText: body })));
        out.set(id, withText ?? doc);
        this.hits++;
      } else {
        missing.push(id);
        this.misses++;
      }
    }
    if (missing.length === 0) return out;
    const epoch = this.#epoch;
    const loaded = await load(missing, missing.filter((id) => withText.has(id)));
    const fresh = epoch === this.#epoch;
    for (const [id, doc] of loaded) {
      const cache = fresh && doc.noticeKind === undefined && (opts.admitRepeats !== true || this.#loadedBefore(id));
      if (doc.fullText === undefined) {
        const frozen = Object.freeze(doc);
        out.set(id, frozen);
        if (cache) this.#put(id, frozen);
        continue;
      }
      if (!cache) {
        out.set(id, doc);
        continue;
      }
      const { fullText, ...display } = doc;
      this.#put(id, Object.freeze(display));
      this.#putBody(id, fullText);
      // its body kept: the loaded record is the entry-with-body the next hits return (one object from the first read)
      if (this.#bodies.get(id) === fullText && this.#entries.has(id)) this.#withText.set(id, Object.freeze(doc));
      out.set(id, doc);
    }
    return out;
  }

  /** Whether `id` was loaded before (then it is admitted); either way remembered as loaded now. */
  #loadedBefore(id: string): boolean {
    const before = this.#seenOnce.delete(id);
    this.#seenOnce.add(id);
    if (this.#seenOnce.size > this.capacity) this.#seenOnce.delete(this.#seenOnce.values().next().value as string);
    return before;
  }

  #putBody(id: string, body: string): void {
    if (body.length > BODY_CHARS / BODY_MAX_SHARE) return;
    this.#dropBody(id);
    this.#bodies.set(id, body);
    this.#bodyChars += body.length;
    while (this.#bodies.size > this.capacity || this.#bodyChars > BODY_CHARS) this.#dropBody(this.#bodies.keys().next().value as string);
  }

  /** Drops what these changes can make stale (see the header). */
  invalidateChanges(changes: readonly ChangedRecord[]): void {
    this.#epoch++;
    if (this.#entries.size === 0 && this.#bodies.size === 0) return;
    for (const c of changes) {
      if (c.doc?.relations && c.doc.relations.length > 0) {
        this.clear();
        return;
      }
    }
    for (const c of changes) {
      this.#drop(c.id);
      this.#dropBody(c.id);
      for (const id of [...(this.#byLinked.get(c.id) ?? [])]) this.#drop(id);
      if (c.doc?.workKey !== undefined) for (const id of [...(this.#byWork.get(c.doc.workKey) ?? [])]) this.#drop(id);
    }
  }

  /** Drops these records (written or deleted; nothing else known of them): as invalidateChanges with deletions. */
  invalidate(ids: Iterable<string>): void {
    this.invalidateChanges([...ids].map((id) => ({ id })));
  }

  clear(): void {
    this.#epoch++;
    this.#entries.clear();
    this.#bodies.clear();
    this.#withText.clear();
    this.#bodyChars = 0;
    this.#byWork.clear();
    this.#byLinked.clear();
  }

  #put(id: string, doc: DisplayDocument): void {
    this.#drop(id);
    this.#entries.set(id, doc);
    add(this.#byWork, doc.workKey, id);
    for (const linked of linkedIds(doc)) add(this.#byLinked, linked, id);
    if (this.#entries.size > this.capacity) this.#drop(this.#entries.keys().next().value as string);
  }

  #dropBody(id: string): void {
    const body = this.#bodies.get(id);
    if (body === undefined) return;
    this.#bodies.delete(id);
    this.#withText.delete(id);
    this.#bodyChars -= body.length;
  }

  #drop(id: string): void {
    const doc = this.#entries.get(id);
    if (!doc) return;
    this.#entries.delete(id);
    this.#withText.delete(id);
    remove(this.#byWork, doc.workKey, id);
    for (const linked of linkedIds(doc)) remove(this.#byLinked, linked, id);
  }
}

/** The record ids an entry's links name (its versions and notices). */
function linkedIds(doc: DisplayDocument): string[] {
  const out: string[] = [];
  for (const v of doc.versions ?? []) out.push(v.id);
  for (const n of doc.notices) if (n.documentId) out.push(n.documentId);
  return out;
}

function add(index: Map<string, Set<string>>, key: string, id: string): void {
  let set = index.get(key);
  if (!set) index.set(key, (set = new Set()));
  set.add(id);
}

function remove(index: Map<string, Set<string>>, key: string, id: string): void {
  const set = index.get(key);
  if (!set) return;
  set.delete(id);
  if (set.size === 0) index.delete(key);
}
