// Where feature values come from: probe searches of the engine restricted to the candidates (the
// per-field BM25, phrase and proximity features, backfilled branch scores), the stored records, the
// in-corpus citation counts and the activity counters. The pipeline (pipeline.ts) asks only for the
// groups a stage needs, and only for the candidates missing them.
import type { IndexName, StoredDocument } from '../domain/document.js';
import type { DisplayDocumentWithText } from '../domain/display-document.js';
import type { DocumentScoreParts, EngineQuery, SearchIndex } from '../engine/index.js';

/** What the document features read of a record: its display form (or the whole stored record). */
export type FeatureDocument = StoredDocument | DisplayDocumentWithText;
import type { ActivityCounts } from '../ports/activity-store.js';
import type { Branch } from './features.js';

/** A lexical probe: the query scored under one variant of the lexical channel. */
export type LexicalVariant = 'title' | 'abstract' | 'body' | 'plain' | 'phrase' | 'proximity';

export interface FeatureSources {
  /** The lexical parts of the scores of the candidates `ids` of one index (absent: not in the index). */
  lexicalParts(index: IndexName, ids: readonly string[]): Map<string, DocumentScoreParts> | Promise<Map<string, DocumentScoreParts>>;
  /** Scores of `ids` in a branch's channel (backfill): absent when the channel does not score them. */
  branch(index: IndexName, branch: Branch, ids: readonly string[]): Map<string, number> | Promise<Map<string, number>>;
  /** Whether the query quotes a phrase / has several unquoted words (else phrase_bonus / proximity are 0). */
  queryShape(index: IndexName): { phrases: boolean; words: number; empty: boolean };
  /** Display records (no full text) of `ids`; those in `withText` carry their full text. */
  documents(ids: readonly string[], withText?: readonly string[]): Promise<Map<string, FeatureDocument>>;
  /**
   * Records of `index` citing each document (by its canonical URIs), in the order of `docs`: one call per
   * index and feature pass, so a cluster asks each shard once for all of them (ADR 0265).
   */
  citedBy(index: IndexName, docs: readonly Pick<FeatureDocument, 'uris'>[]): number[] | Promise<number[]>;
  /** Activity counters of documents (null: no activity source). */
  engagement: ((ids: readonly string[]) => Promise<Map<string, ActivityCounts>>) | null;
  /** Now, Unix seconds. */
  now: number;
}

/** The engine query of a lexical probe over `ids`: the request's lexical query with one variant applied. */
export function probeQuery(base: EngineQuery, ids: readonly string[], variant: LexicalVariant): EngineQuery {
  const q: EngineQuery = {
    text: base.text,
    possibleLanguages: base.possibleLanguages ?? null,
    rankingMode: 'documents',
    limit: Math.max(1, Math.min(500, ids.length)),
    offset: 0,
    passagesPerHit: 0,
    phraseBoost: 0,
    proximityWeight: 0,
    lexicalWeight: 1,
    filters: { ...(base.filters ?? {}), ids: [...ids] },
  };
  switch (variant) {
    case 'title':
      return { ...q, fieldWeights: { title: 1, abstract: 0, body: 0 } };
    case 'abstract':
      return { ...q, fieldWeights: { title: 0, abstract: 1, body: 0 } };
    case 'body':
      return { ...q, fieldWeights: { title: 0, abstract: 0, body: 1 } };
    case 'plain':
      return q;
    case 'phrase':
      return { ...q, phraseBoost: base.phraseBoost ?? 1 };
    case 'proximity':
      return { ...q, proximityWeight: 1 };
  }
}

/** Scores of `ids` under a probe (chunks of 500: the engine's page limit). */
export function probeScores(index: SearchIndex, base: EngineQuery, ids: readonly string[], variant: LexicalVariant): Map<string, number> {
  const out = new Map<string, number>();
  for (let at = 0; at < ids.length; at += 500) {
    const chunk = ids.slice(at, at + 500);
    for (const h of index.search(probeQuery(base, chunk, variant)).hits) out.set(h.id, h.score);
  }
  return out;
}

/** Records of the index citing `doc`: its canonical URIs looked up in the citation keywords. */
export function citedByCount(index: SearchIndex, doc: Pick<FeatureDocument, 'uris'>): number {
  const uris = doc.uris ?? [];
  if (uris.length === 0) return 0;
  const r = index.search({ text: '', limit: 1, passagesPerHit: 0, exactTotal: true, filters: { citing: uris } });
  return r.totalHits;
}
