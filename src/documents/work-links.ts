// Documents as works (docs/works.md, ADR 0085): a DocumentStore that fills in, on every read, what
// a record alone cannot say: the work's other versions, the notices that point at the work, and for a
// notice, the records of the works it concerns (domain/work.ts `withWorkLinks`). The composition root
// hands this store to every service that shows documents (search hits, document fetches, trending,
// conversations, MCP tools), so they all show the same links; writes and the change feed pass through.
import { identityKeys } from '../domain/canonical-uri.js';
import type { DocumentRecord, IndexName, StoredDocument } from '../domain/document.js';
import { MAX_VERSIONS, withIdentityKeys, withWorkLinks, type IncomingRelation, type LinkableDocument, type WorkMember } from '../domain/work.js';
import type { DocumentChange, DocumentStore, TextWindowRequest, TextWindows, UpsertResult } from '../ports/document-store.js';
import type { DisplayDocumentWithText } from '../domain/display-document.js';
import type { DisplayRecordCache } from './display-cache.js';

/** How a URI asked for found the record that answers (by-uri; `uri_match` on the wire). */
export interface UriMatch {
  /** The requested URI in its canonical form. */
  requested: string;
  /** The record's own URI for the same work identity (the version it holds), or null when only a version relation links them. */
  held: string | null;
  /** True when the record carries the requested URI itself. */
  exact: boolean;
}

/** Most records looked at when a URI is found only through identity keys. */
const IDENTITY_CANDIDATES = 20;

export class WorkLinkedDocumentStore implements DocumentStore {
  /** @param displayCache hot display records (ADR 0135); the composition root also feeds it the change feed. */
  constructor(
    private readonly inner: DocumentStore,
    private readonly displayCache: DisplayRecordCache | null = null,
  ) {}

  async upsertMany(docs: readonly DocumentRecord[], at: number): Promise<UpsertResult> {
    try {
      return await this.inner.upsertMany(docs, at);
    } finally {
      // the records' work keys are not known here: their works' entries leave with the change feed
      this.displayCache?.invalidateChanges(docs.map((d) => ({ id: d.id, doc: { relations: d.relations ?? [] } })));
    }
  }
  async delete(id: string, at: number): Promise<boolean> {
    try {
      return await this.inner.delete(id, at);
    } finally {
      this.displayCache?.invalidate([id]);
    }
  }
  /** The change feed carries records as stored (the indexer needs nothing more). */
  changesSince(afterSeq: number, limit: number): Promise<DocumentChange[]> {
    return this.inner.changesSince(afterSeq, limit);
  }
  maxSeq(): Promise<number> {
    return this.inner.maxSeq();
  }
  count(index?: IndexName): Promise<number> {
    return this.inner.count(index);
  }
  workMembers(workKeys: readonly string[], perWork: number): Promise<Map<string, WorkMember[]>> {
    return this.inner.workMembers(workKeys, perWork);
  }
  relationsTo(uris: readonly string[]): Promise<IncomingRelation[]> {
    return this.inner.relationsTo(uris);
  }

  async get(id: string): Promise<StoredDocument | null> {
    const doc = await this.inner.get(id);
    return doc ? (await this.link([doc]))[0]! : null;
  }
  async getMany(ids: readonly string[]): Promise<Map<string, StoredDocument>> {
    const found = await this.inner.getMany(ids);
    const linked = await this.link([...found.values()]);
    return new Map(linked.map((d) => [d.id, d]));
  }
  /** Display forms (hits: no full text read but for `withText`), with the same links as getMany; hot ones from the cache. */
  async getDisplayMany(ids: readonly string[], withText: readonly string[] = []): Promise<Map<string, DisplayDocumentWithText>> {
    const load = async (wanted: readonly string[], text: readonly string[]) =>
      new Map((await this.link([...(await this.inner.getDisplayMany(wanted, text)).values()])).map((d) => [d.id, d]));
    return this.displayCache ? this.displayCache.getMany(ids, new Set(withText), load) : load(ids, withText);
  }
  /** Slices of full texts (no links: they are no part of a text). */
  getTextWindows(wants: readonly TextWindowRequest[]): Promise<Map<string, TextWindows>> {
    return this.inner.getTextWindows(wants);
  }
  async getByUri(uri: string): Promise<StoredDocument | null> {
    const doc = await this.inner.getByUri(uri);
    return doc ? (await this.link([doc]))[0]! : null;
  }
  async getManyByUri(uris: readonly string[]): Promise<Map<string, StoredDocument>> {
    const found = await this.inner.getManyByUri(uris);
    const linked = new Map((await this.link([...new Map([...found.values()].map((d) => [d.id, d])).values()])).map((d) => [d.id, d]));
    return new Map([...found].map(([uri, d]) => [uri, linked.get(d.id)!]));
  }
  async getByIdentityKeys(keys: readonly string[], limit: number): Promise<StoredDocument[]> {
    return this.link(await this.inner.getByIdentityKeys(keys, limit));
  }

  /**
   * The record answering for `uri` (canonical form): the one carrying it (lowest id), else a record of
   * the same work identity: another arXiv version, the arXiv id behind an arXiv DOI or the reverse,
   * or a record naming it as its other version. Records whose own URIs share the identity come first.
   */
  async resolveVersion(uri: string): Promise<{ doc: StoredDocument; match: UriMatch } | null> {
    const exact = await this.getByUri(uri);
    if (exact) return { doc: exact, match: { requested: uri, held: uri, exact: true } };
    const keys = identityKeys([uri]);
    if (keys.length === 0) return null;
    const candidates = await this.inner.getByIdentityKeys(keys, IDENTITY_CANDIDATES);
    const heldUri = (d: StoredDocument) => d.uris.find((u) => identityKeys([u]).some((k) => keys.includes(k))) ?? null;
    const chosen = candidates.find((d) => heldUri(d) !== null) ?? candidates[0];
    if (!chosen) return null;
    const [doc] = await this.link([chosen]);
    return { doc: doc!, match: { requested: uri, held: heldUri(chosen), exact: false } };
  }

  /** Fills in versions, notices and notice targets (three store reads for any number of documents). */
  async link<D extends LinkableDocument & { workKey: string }>(docs: readonly D[]): Promise<D[]> {
    if (docs.length === 0) return [];
    const members = await this.inner.workMembers([...new Set(docs.map((d) => d.workKey))], MAX_VERSIONS + 1);
    const workUris = new Set<string>();
    for (const d of docs) {
      for (const u of d.uris) workUris.add(u);
      for (const m of members.get(d.workKey) ?? []) for (const u of m.uris) workUris.add(u);
    }
    const incoming = (await this.inner.relationsTo(withIdentityKeys(workUris))).filter((r) => r.kind !== 'version');
    const targets = docs.flatMap((d) => (d.noticeKind !== undefined ? (d.relations ?? []).filter((r) => r.kind !== 'version').map((r) => r.uri) : []));
    const held = new Map<string, string>();
    if (targets.length > 0) for (const [u, d] of await this.inner.getManyByUri(targets)) held.set(u, d.id);
    // A notice naming another version of a work (arxiv://Xv1 for the record stored as arxiv://X).
    for (const t of targets) {
      if (held.has(t)) continue;
      const [d] = await this.inner.getByIdentityKeys(identityKeys([t]), 1);
      if (d) held.set(t, d.id);
    }
    return docs.map((d) => withWorkLinks(d, members.get(d.workKey) ?? [], incoming, held));
  }
}
