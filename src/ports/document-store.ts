// Durable store of documents (the source of truth; search indexes are rebuilt from it).
import type { DocumentRecord, IndexName, StoredDocument } from '../domain/document.js';
import type { IncomingRelation, WorkMember } from '../domain/work.js';
import type { DisplayDocumentWithText } from '../domain/display-document.js';

export interface UpsertResult {
  inserted: number;
  updated: number;
  /** Documents whose content did not change (nothing written). */
  unchanged: number;
}

export interface DocumentStore {
  /**
   * Inserts or replaces documents by id, in one transaction: after a crash each document is either
   * fully in or absent. Assigns change sequence numbers and work keys (records sharing an identity
   * key, see identityKeys(), get one workKey; records whose key changes are re-sequenced).
   */
  upsertMany(docs: readonly DocumentRecord[], at: number): Promise<UpsertResult>;
  get(id: string): Promise<StoredDocument | null>;
  getMany(ids: readonly string[]): Promise<Map<string, StoredDocument>>;
  /**
   * What hits show of these live records (every field but the full text and the cited works; ADR
   * 0135), read from the display layout written with each record. Unknown and deleted ids are absent.
   * Equals `toDisplayDocument(get(id))` for every live id; for the ids in `withText` (hits whose
   * snippets lie in the body) it also carries `fullText` when the record has a non-empty one, read
   * with the record in one lookup. No other id's full text is read.
   */
  getDisplayMany(ids: readonly string[], withText?: readonly string[]): Promise<Map<string, DisplayDocumentWithText>>;
  /**
   * Slices of live records' full texts (ADR 0335: hits whose snippets lie in the body and are placed
   * from the index's token offsets need only their passages' text). For each id asked for: the full
   * text's length in Unicode scalar values (0 when it has none) and, for each range [start, end) in
   * scalar values, that slice of the text (clamped to it; '' past its end), in the order asked. Unknown
   * and deleted ids are absent. The rest of the text and of the record is not read into the process.
   */
  getTextWindows(wants: readonly TextWindowRequest[]): Promise<Map<string, TextWindows>>;
  /** The document carrying this canonical URI (lowest id when several records carry it). */
  getByUri(uri: string): Promise<StoredDocument | null>;
  /** getByUri for many URIs at once: each URI held maps to its document (lowest id); others are absent. */
  getManyByUri(uris: readonly string[]): Promise<Map<string, StoredDocument>>;
  /**
   * Live records carrying any of these identity keys (domain/work.ts `workIdentityKeys`), in id order,
   * at most `limit`: how a version of a work that no record names exactly is found (arXiv v1 for a record
   * stored as the unversioned id, an arXiv DOI for a record stored as arxiv://).
   */
  getByIdentityKeys(keys: readonly string[], limit: number): Promise<StoredDocument[]>;
  /**
   * The live records of these works, each list in id order and at most `perWork` long. Only works with
   * two or more live records are present (a single record has no other versions).
   */
  workMembers(workKeys: readonly string[], perWork: number): Promise<Map<string, WorkMember[]>>;
  /** The relations (record `relations`) of live records that point at any of these URIs, in target then id order. */
  relationsTo(uris: readonly string[]): Promise<IncomingRelation[]>;
  /** Deletes by id (a tombstone keeps the change visible to changesSince). */
  delete(id: string, at: number): Promise<boolean>;
  /** Changes with seq > `afterSeq`, in seq order; deleted documents come as `{id, seq, deleted: true}`. */
  changesSince(afterSeq: number, limit: number): Promise<DocumentChange[]>;
  /** Highest assigned sequence number (0 when empty). */
  maxSeq(): Promise<number>;
  count(index?: IndexName): Promise<number>;
}

/** What {@link DocumentStore.getTextWindows} is asked for: ranges of one record's full text. */
export interface TextWindowRequest {
  id: string;
  /** [start, end) pairs in Unicode scalar values, start <= end. */
  ranges: readonly (readonly [number, number])[];
}

/** Slices of one record's full text (see {@link DocumentStore.getTextWindows}). */
export interface TextWindows {
  /** The whole text's length in Unicode scalar values (0: no full text). */
  length: number;
  /** The asked ranges' text, in the order asked. */
  texts: string[];
}

export type DocumentChange = { deleted: false; seq: number; doc: StoredDocument } | { deleted: true; seq: number; id: string };
