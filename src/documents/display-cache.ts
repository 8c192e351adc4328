// A bounded LRU cache of what search hits show (issue 14, ADR 0135): the hits of popular queries are
// the same few thousand records, so a page of hits is mostly served from memory. It holds display
// records with their work links filled in (versions, notices), and the body texts that snippets were
// cut from. Notice records (whose links name other works' records) are never cached.
//
// Bounded by records and by memory (ADR 0370): each entry's bytes are estimated as it is admitted (its
// record, links, body text, the wire bytes kept for it), and the least recently used entries leave
// while the sum is over the budget, so a cache of long records holds fewer of them.
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

/** The byte budget when none is given: the configuration's default (display_cache_bytes). */
export const DEFAULT_CACHE_BYTES = 32 * 2 ** 20;
/** A body longer than this share of the byte budget is never cached (one long book would evict everything). */
const BODY_MAX_SHARE = 16;

/**
 * One cached record: the record (with its work links), its body text when a hit needed it, the record
 * with its body (made once from both, so a record read with its text is the same object every time, like
 * one read without: the search threads keep its wire bytes by object, ADR 0195, and no copy is made per
 * read), and what all that holds in memory, estimated as it was admitted ({@link recordBytes}).
 */
interface Entry {
  doc: DisplayDocument;
  body: string | undefined;
  withText: DisplayDocumentWithText | undefined;
  bytes: number;
  /** The record's JSON length (UTF-8), estimated: what the wire bytes kept for an object handed out take. */
  json: number;
  /** Which objects were handed out (and their wire bytes counted): 1 the record, 2 the record with its body. */
  out: number;
}

export class DisplayRecordCache {
  /** Least recently used first. */
  readonly #entries = new Map<string, Entry>();
  /** What the entries hold, estimated (see {@link recordBytes}). */
  #bytes = 0;
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

  /**
   * @param capacity most records held (0: the cache is off).
   * @param maxBytes most memory the held records may take, by the estimate of each as it is admitted
   *   (record fields, links, body text, the wire bytes a search thread keeps for it, the cache's own
   *   indexes: ADR 0370); the least recently used go first when an admission would pass it. A body text
   *   over 1/16 of it is never kept. 0: the cache is off.
   */
  constructor(
    readonly capacity: number,
    readonly maxBytes: number = DEFAULT_CACHE_BYTES,
  ) {
    if (!Number.isSafeInteger(capacity) || capacity < 0) throw new RangeError(`capacity must be a non-negative integer, got ${capacity}`);
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new RangeError(`maxBytes must be a non-negative integer, got ${maxBytes}`);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The estimated memory the held records take, bytes (at most `maxBytes`). */
  get bytes(): number {
    return this.#bytes;
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
    if (this.capacity === 0 || this.maxBytes === 0) {
      const all = [...new Set(ids)];
      return load(all, all.filter((id) => withText.has(id)));
    }
    const out = new Map<string, DisplayDocumentWithText>();
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const e = this.#entries.get(id);
      const needsText = e !== undefined && withText.has(id) && e.doc.hasFullText;
      if (e && (!needsText || e.body !== undefined)) {
        this.#entries.delete(id);
        this.#entries.set(id, e);
        if (needsText && e.withText === undefined) {
          e.withText = Object.freeze({ ...e.doc, fullText: e.body });
          this.#grow(id, e, copyBytes(e.doc));
        }
        out.set(id, needsText ? e.withText! : e.doc);
        this.#handedOut(id, e, needsText ? 2 : 1);
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
        if (cache) this.#handedOut(id, this.#put(id, frozen, undefined, undefined), 1);
        continue;
      }
      if (!cache) {
        out.set(id, doc);
        continue;
      }
      const { fullText, ...display } = doc;
      // its body kept: the loaded record is the entry-with-body the next hits return (one object from the first read)
      const size = bodyBytes(fullText);
      if (size <= this.maxBytes / BODY_MAX_SHARE) this.#handedOut(id, this.#put(id, Object.freeze(display), fullText, Object.freeze(doc), size), 2);
      else this.#put(id, Object.freeze(display), undefined, undefined);
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

  /** Drops what these changes can make stale (see the header). */
  invalidateChanges(changes: readonly ChangedRecord[]): void {
    this.#epoch++;
    if (this.#entries.size === 0) return;
    for (const c of changes) {
      if (c.doc?.relations && c.doc.relations.length > 0) {
        this.clear();
        return;
      }
    }
    for (const c of changes) {
      this.#drop(c.id);
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
    this.#bytes = 0;
    this.#byWork.clear();
    this.#byLinked.clear();
  }

  /** `bodySize`: {@link bodyBytes} of `body`, when the caller measured it already. */
  #put(id: string, doc: DisplayDocument, body: string | undefined, withText: DisplayDocumentWithText | undefined, bodySize = body === undefined ? 0 : bodyBytes(body)): Entry {
    this.#drop(id);
    const size = measured(doc);
    const e: Entry = { doc, body, withText, bytes: 0, json: size.json, out: 0 };
    this.#entries.set(id, e);
    add(this.#byWork, doc.workKey, id);
    const links = linkedIds(doc);
    for (const linked of links) add(this.#byLinked, linked, id);
    this.#grow(id, e, size.heap + ENTRY_BYTES + LINK_BYTES * links.length + bodySize + (withText === undefined ? 0 : copyBytes(doc)));
    while (this.#entries.size > this.capacity) this.#drop(this.#entries.keys().next().value as string);
    return e;
  }

  /** Counts the wire bytes a search thread keeps for the object `which` of entry `e` the first time it is handed out. */
  #handedOut(id: string, e: Entry, which: 1 | 2): void {
    if ((e.out & which) !== 0 || this.#entries.get(id) !== e) return;
    e.out |= which;
    this.#grow(id, e, wireBytes(e.json));
  }

  /** Counts `bytes` more for entry `e` (which stays), dropping the least recently used others while over the budget. */
  #grow(id: string, e: Entry, bytes: number): void {
    e.bytes += bytes;
    this.#bytes += bytes;
    for (const other of this.#entries.keys()) {
      if (this.#bytes <= this.maxBytes) break;
      if (other !== id) this.#drop(other);
    }
    // alone over the budget (an entry larger than all of it): not kept
    if (this.#bytes > this.maxBytes) this.#drop(id);
  }

  #drop(id: string): void {
    const e = this.#entries.get(id);
    if (!e) return;
    this.#entries.delete(id);
    this.#bytes -= e.bytes;
    remove(this.#byWork, e.doc.workKey, id);
    for (const linked of linkedIds(e.doc)) remove(this.#byLinked, linked, id);
  }
}

// What an entry holds in memory, estimated when it is admitted (ADR 0370), for V8 on 64 bits as Node
// builds it (8-byte pointers): a string is a 16-byte header and one byte a character when all its
// characters are Latin-1 (estimated here: ASCII), two otherwise; an object a 24-byte header and a slot a
// property; an array a 32-byte object and a 16-byte store of 8 bytes an element; a non-integer number a
// 16-byte box. To the record's own objects are added the wire bytes a search thread keeps for each
// object it hands out (its JSON in UTF-8, ADR 0195, with the typed array and weak-map entry around it),
// and the cache's own indexes (the entry, its map slots, its work's and links' sets). Checked against
// the heap of a filled cache (bench/http/display-cache-memory.bench.ts): see ADR 0370.

/** An entry's own overhead: its object, its slots in the cache's maps, its work key's set (fitted with the others to the measured heap, ADR 0370). */
const ENTRY_BYTES = 560;
/** Each record id an entry's links name: a slot in a set of the links index (often a set of its own). */
const LINK_BYTES = 160;
/** Wire bytes kept for an object handed out: the typed array, its buffer and the weak-map entry, beyond the JSON. */
const WIRE_OBJECT_BYTES = 300;
/** The wire JSON's size against the record's own JSON (snake-case names, derived fields, download URLs). */
const WIRE_SHARE = 1.15;

/** A record admitted without its text and handed out: its objects, its entry and links, the wire bytes kept for it. */
export function recordBytes(doc: DisplayDocument): number {
  const size = measured(doc);
  return size.heap + ENTRY_BYTES + LINK_BYTES * linkedIds(doc).length + wireBytes(size.json);
}

/** The record with its body: a shallow copy with one more property (its wire bytes are counted when it is handed out). */
function copyBytes(doc: DisplayDocument): number {
  return 24 + 8 * (Object.keys(doc).length + 1);
}

function measured(doc: DisplayDocument): { heap: number; json: number } {
  const size = { heap: 0, json: 0 };
  measure(doc, size);
  return size;
}

/** A body text's string. */
export function bodyBytes(text: string): number {
  return stringBytes(text);
}

function wireBytes(json: number): number {
  return WIRE_OBJECT_BYTES + Math.ceil(json * WIRE_SHARE);
}

function stringBytes(s: string): number {
  // ASCII (as UTF-8 as long as it is): one byte a character; other texts may be two (UTF-16)
  const chars = Buffer.byteLength(s, 'utf8') === s.length ? s.length : 2 * s.length;
  return 16 + ((chars + 7) & ~7);
}

/** Adds a value's heap bytes and its JSON's length (UTF-8) to `size`. */
function measure(v: unknown, size: { heap: number; json: number }): void {
  switch (typeof v) {
    case 'string':
      size.heap += stringBytes(v);
      size.json += Buffer.byteLength(v, 'utf8') + 2;
      return;
    case 'number':
      if (!Number.isInteger(v)) size.heap += 16;
      size.json += 8;
      return;
    case 'object':
      if (v === null) {
        size.json += 4;
        return;
      }
      if (Array.isArray(v)) {
        size.heap += 48 + 8 * v.length;
        size.json += 2 + v.length;
        for (const x of v) measure(x, size);
        return;
      }
      for (const k in v) {
        size.heap += 8;
        size.json += k.length + 4;
        measure((v as Record<string, unknown>)[k], size);
      }
      size.heap += 24;
      size.json += 2;
      return;
    default:
      // booleans, undefined
      size.json += 5;
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
