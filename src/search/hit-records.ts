// Loading what a page of hits shows (issue 14, ADR 0135; issue 29, ADR 0280): the display records
// (every field but the full text and the cited works) and, only for the hits whose snippet passages lie
// in the body, the body text. Hits with title and abstract snippets read no full text at all.
//
// With stored fields (ADR 0280) the display records of hits with title and abstract snippets come from
// the index that found them: the segments keep each document's display record, read from their bytes
// with no database call. Hits whose snippets lie in the body need the body text from the store anyway,
// and their record comes with it in the same lookup (as before). The work links (versions, notices:
// they depend on other records) are filled in from the store for all, in one batch. A hit whose index
// holds no stored record for it (an index written without them) is loaded from the store as before.
//
// Body passages by their slices (ADR 0335; SearchServiceDeps.bodySlices, off in the composition root:
// measured dearer than the whole row while the body is inside the record's JSON): when the snippets are
// placed from the index's token offsets (a hit this process's index returned, and the caller gave the
// parsed queries), a body-snippet hit's record comes from the index like the others and the store
// returns only the passages' slices of the body and its length (getTextWindows), not the whole row and
// text. A hit the index cannot place from a slice (its record changed since it was indexed, or other
// languages) reads its whole text as before.
import type { DisplayDocument, DisplayDocumentWithText } from '../domain/display-document.js';
import type { IndexName } from '../domain/document.js';
import type { LinkableDocument } from '../domain/work.js';
import { hitHasTokenOffsets, hitSnippetFromWindow, passageRange, type EngineHit, type FieldWindow, type ParsedQuery } from '../engine/index.js';
import type { DocumentStore, TextWindowRequest } from '../ports/document-store.js';
import type { SnippetSource } from './search-service.js';
import { decodeStoredDisplay } from './stored-display.js';

/** The StoredRecords of indexes in this process (SearchIndex.stored); `cache`: see {@link StoredRecords.cache}. */
export function localStoredRecords(
  index: (name: IndexName) => { stored(ids: readonly string[]): Map<string, Uint8Array> },
  link: StoredRecords['link'],
  plain: StoredRecords['plain'],
  cache: HitRecordCache | null = null,
): StoredRecords {
  return {
    plain,
    ...(cache ? { cache } : {}),
    records: async (name, ids) => {
      const out = new Map<string, DisplayDocument>();
      for (const [id, bytes] of index(name).stored(ids)) out.set(id, decodeStoredDisplay(bytes));
      return out;
    },
    link,
  };
}

export interface HitRecords {
  /** Display records of the hits still live, by id. */
  docs: Map<string, DisplayDocumentWithText>;
  /** What each loaded hit's snippets are cut from (with the body text where its passages need it). */
  sources: Map<string, SnippetSource>;
}

/** A hit and the index that found it. */
export interface IndexedHit {
  hit: EngineHit;
  index: IndexName;
}

/**
 * The serving process's display cache (documents/display-cache.ts, ADR 0135) as the hits use it (ADR
 * 0359): the records of `ids` with their work links, and with their body text for those in `withText`,
 * from memory; what it misses comes from `load` (then kept unless an invalidation came meanwhile).
 */
export interface HitRecordCache {
  getMany(
    ids: readonly string[],
    withText: ReadonlySet<string>,
    load: (missing: string[], missingText: string[]) => Promise<Map<string, DisplayDocumentWithText>>,
    opts?: { admitRepeats?: boolean },
  ): Promise<Map<string, DisplayDocumentWithText>>;
}

/** Where display records come from when the indexes store them (ADR 0280). */
export interface StoredRecords {
  /**
   * The stored display records of these ids in the named index (absent: none there), each a new
   * object: this process's index, or on a cluster's api node the shards' (the fetch phase).
   */
  records(index: IndexName, ids: readonly string[]): Promise<Map<string, DisplayDocument>>;
  /** Fills in the work links of display records (documents/work-links.ts: what getDisplayMany adds). */
  link<D extends LinkableDocument & { workKey: string }>(docs: readonly D[]): Promise<D[]>;
  /** The store without work links: the records of body-snippet hits (with their text) and of hits no index stored, and body slices. */
  plain: Pick<DocumentStore, 'getDisplayMany' | 'getTextWindows'>;
  /**
   * The process's display cache in front of the records and texts above (ADR 0359): a page whose hits
   * are all in it reads nothing (no stored record decoded, no row, no link query), and its records are
   * the same objects as last time (the hit encoder keeps their wire bytes by object, ADR 0195). A miss
   * loads as without it. Absent: every page loads.
   */
  cache?: HitRecordCache;
}

/**
 * @param snippetsPerHit how many of each hit's passages become snippets (only those need text).
 * @param fromIndex the indexes' stored records; null: every record from the store.
 * @param parsed the query each index's snippets are cut for: with it and `fromIndex`, body snippets
 *   placed from the index read only their passages' slices of the body (ADR 0335).
 */
export async function loadHitRecords(
  store: DocumentStore,
  hits: readonly IndexedHit[],
  snippetsPerHit: number,
  fromIndex: StoredRecords | null = null,
  parsed: ((index: IndexName) => ParsedQuery) | null = null,
): Promise<HitRecords> {
  const bodyPassages = (h: IndexedHit) => h.hit.passages.slice(0, snippetsPerHit).filter((p) => p.field === 'body');
  const withText: string[] = [];
  const sliced: IndexedHit[] = [];
  for (const h of hits) {
    if (bodyPassages(h).length === 0) continue;
    // a hit of this process's index (snippets placed from its offsets) needs only its passages' slices
    if (fromIndex && parsed && hitHasTokenOffsets(h.hit)) sliced.push(h);
    else withText.push(h.hit.id);
  }
  const windows = sliced.length > 0 ? fromIndex!.plain.getTextWindows(sliced.map((h) => ({ id: h.hit.id, ranges: bodyPassages(h).map(passageRange) }) satisfies TextWindowRequest)) : null;
  const docs = fromIndex
    ? fromIndex.cache && sliced.length === 0
      ? await cachedStoredFields(hits, withText, fromIndex, fromIndex.cache)
      : await fromStoredFields(hits, withText, fromIndex)
    : await store.getDisplayMany(hits.map((h) => h.hit.id), withText);
  const sources = new Map<string, SnippetSource>();
  for (const [id, doc] of docs) sources.set(id, doc);
  if (windows) {
    const slices = await windows;
    const whole: string[] = [];
    for (const h of sliced) {
      const id = h.hit.id;
      const doc = docs.get(id);
      if (!doc) continue;
      const w = slices.get(id);
      // deleted since it was indexed: skipped, as a whole-row read would find nothing
      if (!w) {
        docs.delete(id);
        sources.delete(id);
        continue;
      }
      if (w.length > 0 && !hitSnippetFromWindow(h.hit, 'body', w.length, parsed!(h.index), doc.language)) {
        whole.push(id);
        continue;
      }
      const passages = bodyPassages(h);
      const body: FieldWindow[] = passages.map((p, k) => ({ start: passageRange(p)[0], text: w.texts[k]!, length: w.length }));
      sources.set(id, { title: doc.title, abstract: doc.abstract, language: doc.language, body });
    }
    if (whole.length > 0) {
      // the record changed since it was indexed (or other languages): its row with the whole text, as before
      const rows = await fromIndex!.link([...(await fromIndex!.plain.getDisplayMany(whole, whole)).values()]);
      const byId = new Map(rows.map((d) => [d.id, d]));
      for (const id of whole) {
        const d = byId.get(id);
        if (d) {
          docs.set(id, d);
          sources.set(id, d);
        } else {
          docs.delete(id);
          sources.delete(id);
        }
      }
    }
  }
  return { docs, sources };
}

/**
 * {@link fromStoredFields} behind the display cache (ADR 0359): cached records (with their links, and
 * their body text where a hit's snippets need it) from memory, the others loaded as without the cache,
 * and kept when loaded for the second time.
 */
async function cachedStoredFields(hits: readonly IndexedHit[], withText: readonly string[], fromIndex: StoredRecords, cache: HitRecordCache): Promise<Map<string, DisplayDocumentWithText>> {
  return cache.getMany(
    hits.map((h) => h.hit.id),
    new Set(withText),
    (missing, missingText) => {
      const wanted = new Set(missing);
      return fromStoredFields(
        hits.filter((h) => wanted.has(h.hit.id)),
        missingText,
        fromIndex,
      );
    },
    // a hit's record is kept from its second load on: hits that do not repeat never churn the cache
    { admitRepeats: true },
  );
}

async function fromStoredFields(hits: readonly IndexedHit[], withText: readonly string[], fromIndex: StoredRecords): Promise<Map<string, DisplayDocumentWithText>> {
  // Hits whose snippets are cut from the body need the body text from the store anyway: their record
  // comes with it in the same lookup (as before); the others' records come from the index.
  const text = new Set(withText);
  const byIndex = new Map<IndexName, string[]>();
  for (const { hit, index } of hits) {
    if (text.has(hit.id)) continue;
    const l = byIndex.get(index);
    if (l) l.push(hit.id);
    else byIndex.set(index, [hit.id]);
  }
  const found: DisplayDocumentWithText[] = [];
  const seen = new Set<string>();
  for (const records of await Promise.all([...byIndex].map(([index, ids]) => fromIndex.records(index, ids)))) {
    for (const [id, doc] of records) {
      if (seen.has(id)) continue;
      seen.add(id);
      found.push(doc);
    }
  }
  const fromStore = [...new Set(hits.map((h) => h.hit.id))].filter((id) => !seen.has(id));
  if (fromStore.length > 0) for (const d of (await fromIndex.plain.getDisplayMany(fromStore, withText)).values()) found.push(d);
  const out = new Map<string, DisplayDocumentWithText>();
  for (const d of await fromIndex.link(found)) out.set(d.id, d);
  return out;
}
