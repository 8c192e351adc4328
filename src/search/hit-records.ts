// Loading what a page of hits shows (issue 14, ADR 0135): the display records (every field but the
// full text and the cited works; hot ones from the cache), with the body text only for the hits whose
// snippet passages lie in the body (read with the record in one lookup). Hits with title and abstract
// snippets read no full text at all.
import type { DisplayDocumentWithText } from '../domain/display-document.js';
import type { EngineHit } from '../engine/index.js';
import type { DocumentStore } from '../ports/document-store.js';
import type { SnippetSource } from './search-service.js';

export interface HitRecords {
  /** Display records of the hits still live, by id. */
  docs: Map<string, DisplayDocumentWithText>;
  /** What each loaded hit's snippets are cut from (with the body text where its passages need it). */
  sources: Map<string, SnippetSource>;
}

/** @param snippetsPerHit how many of each hit's passages become snippets (only those need text). */
export async function loadHitRecords(store: DocumentStore, hits: readonly EngineHit[], snippetsPerHit: number): Promise<HitRecords> {
  const withText = hits.filter((h) => h.passages.slice(0, snippetsPerHit).some((p) => p.field === 'body')).map((h) => h.id);
  const docs = await store.getDisplayMany(hits.map((h) => h.id), withText);
  const sources = new Map<string, SnippetSource>();
  for (const [id, doc] of docs) sources.set(id, doc);
  return { docs, sources };
}
