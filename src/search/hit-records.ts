// Loading what a page of hits shows (issue 14, ADR 0135): the display records (every field but the
// full text and the cited works; hot ones from the cache), and, only for hits whose snippet passages
// lie in the body, that body text (`getFullTexts`: the text alone, not the record). Title and
// abstract snippets, the common case, read no full text at all.
import type { DisplayDocument } from '../domain/display-document.js';
import type { EngineHit } from '../engine/index.js';
import type { DocumentStore } from '../ports/document-store.js';
import type { SnippetSource } from './search-service.js';

export interface HitRecords {
  /** Display records of the hits still live, by id. */
  docs: Map<string, DisplayDocument>;
  /** What each loaded hit's snippets are cut from (with the body text where its passages need it). */
  sources: Map<string, SnippetSource>;
}

/** @param snippetsPerHit how many of each hit's passages become snippets (only those need text). */
export async function loadHitRecords(store: DocumentStore, hits: readonly EngineHit[], snippetsPerHit: number): Promise<HitRecords> {
  const docs = await store.getDisplayMany(hits.map((h) => h.id));
  const needBody = hits.filter((h) => h.passages.slice(0, snippetsPerHit).some((p) => p.field === 'body') && docs.get(h.id)?.hasFullText === true).map((h) => h.id);
  const bodies = needBody.length > 0 ? await store.getFullTexts(needBody) : new Map<string, string>();
  const sources = new Map<string, SnippetSource>();
  for (const [id, doc] of docs) {
    const body = bodies.get(id);
    sources.set(id, body === undefined ? doc : { title: doc.title, abstract: doc.abstract, language: doc.language, fullText: body });
  }
  return { docs, sources };
}
