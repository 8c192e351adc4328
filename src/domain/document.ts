// The document model shared by ingest, storage, search and the document endpoints.
// One record per source record; records of one work (same DOI, or an arXiv preprint and its
// published version) share a `workKey` assigned by the document store.

/** Logical indexes (interface, "What the service does" 1). */
export const INDEX_NAMES = ['documents', 'social'] as const;
export type IndexName = (typeof INDEX_NAMES)[number];

/**
 * Normalised document types (Crossref-style). `filter_types` matches these values.
 * Social posts are `question` or `answer`.
 */
export const DOCUMENT_TYPES = [
  'journal-article',
  'proceedings-article',
  'preprint',
  'posted-content',
  'book-chapter',
  'book',
  'monograph',
  'dissertation',
  'report',
  'standard',
  'dataset',
  'review',
  'editorial',
  'letter',
  'erratum',
  'retraction',
  'paratext',
  'patent',
  'other',
  'question',
  'answer',
] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** Paper-like types (interface: trending `scholarly`). */
export const SCHOLARLY_TYPES: ReadonlySet<string> = new Set([
  'journal-article',
  'proceedings-article',
  'preprint',
  'posted-content',
  'book-chapter',
  'monograph',
  'book',
  'dissertation',
  'report',
  'standard',
]);

export interface Author {
  name: string;
  orcid?: string | null;
}

export type OriginalFormat = 'pdf' | 'epub' | 'djvu';

export const ORIGINAL_MEDIA_TYPES: Readonly<Record<OriginalFormat, string>> = {
  pdf: 'application/pdf',
  epub: 'application/epub+zip',
  djvu: 'image/vnd.djvu',
};

/** An original file (PDF, EPUB, DJVU) kept in the blob store. */
export interface OriginalFile {
  format: OriginalFormat;
  mediaType: string;
  /** Blob store key. */
  blobKey: string;
  bytes: number;
  /** Hex SHA-256 of the bytes; also the download ETag. */
  sha256: string;
  license: string | null;
  /** Unix seconds when the file was stored (download Last-Modified). */
  storedAt: number;
}

/** Who wrote a social post and under which licence it may be shown (CC BY-SA needs both). */
export interface Attribution {
  author: string | null;
  authorUrl: string | null;
  url: string | null;
  site: string | null;
  license: string | null;
}

export const NOTICE_KINDS = ['retraction', 'erratum', 'expression_of_concern'] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/** An editorial notice attached to a work: retraction, erratum (correction), expression of concern. */
export interface Notice {
  kind: NoticeKind;
  /** Canonical URI of the notice itself, when known. */
  uri: string | null;
  /** The notice's own record in this store, when it holds one (filled when read, domain/work.ts). */
  documentId?: string | null;
}

/**
 * A link from this record to another work, from the source record (Crossref `relation` and
 * `update-to`, Lectern JSONL `relations`): `version` (the same work in another version: preprint,
 * published article, another arXiv version) or a notice kind (this record is that notice about `uri`).
 */
export interface Relation {
  kind: 'version' | NoticeKind;
  /** Canonical URI of the other work. */
  uri: string;
}

/** Another record of the same work, as a document lists it (`versions`). */
export interface VersionRef {
  id: string;
  uris: string[];
  type: string | null;
  issuedAt: number | null;
  title: string;
}

/** A work an editorial notice concerns, as the notice lists it (`notice_of`). */
export interface NoticeTarget {
  kind: NoticeKind;
  /** Canonical URI of the work; null when the source names no identifier. */
  uri: string | null;
  /** The work's record in this store, when it holds one. */
  documentId: string | null;
}

export interface DocumentRecord {
  /** Stable string id (OpenAlex W-id, BEIR `_id`, `stackexchange:<site>:<post>`, ...). */
  id: string;
  index: IndexName;
  /** Canonical URIs of this record (first is the primary one). */
  uris: string[];
  title: string;
  abstract: string | null;
  /** Full text (Markdown) when available. */
  fullText: string | null;
  authors: Author[];
  type: string | null;
  /** ISO 639-1 code. */
  language: string | null;
  /** Unix seconds of the issue (publication) date. */
  issuedAt: number | null;
  publisher: string | null;
  issns: string[];
  venue: string | null;
  /** Canonical URIs of cited works. */
  references: string[];
  isRetracted: boolean;
  notices: Notice[];
  /**
   * Set when this record is itself an editorial notice (a retraction notice, an erratum, an expression
   * of concern); a notice is never marked retracted itself. Absent on other records.
   */
  noticeKind?: NoticeKind;
  /** Links to other works (versions, the work a notice concerns); absent when there are none. */
  relations?: Relation[];
  license: string | null;
  attribution: Attribution | null;
  originals: OriginalFile[];
  /** Where the record came from (`openalex`, `beir`, `stackexchange`, `lectern`, `recognition`). */
  source: string;
  /** Source-specific extras shown with the document (cited_by_count, tags, score, keywords, ...). */
  extra: Record<string, unknown>;
}

/** A stored document: the record plus what the store maintains. */
export interface StoredDocument extends DocumentRecord {
  /** Store-wide change sequence; increases on every insert, update or delete. */
  seq: number;
  /** Records sharing a workKey are one work (deduplication). */
  workKey: string;
  /** Unix seconds. */
  createdAt: number;
  updatedAt: number;
  /** The other records of this work (filled when read through the work links, domain/work.ts). */
  versions?: VersionRef[];
  /** For a notice record: the works it concerns, resolved to records held here (filled when read). */
  noticeOf?: NoticeTarget[];
  /** Found by canonical URI: which URI was asked for and which version this record holds (by-uri reads). */
  uriMatch?: { requested: string; held: string | null; exact: boolean };
}

/**
 * The readable text of a document, as returned by the document endpoints and cut by
 * `max_tokens`/`max_chars`: a Markdown title line, the abstract, then the full text.
 */
export function documentContent(doc: Pick<DocumentRecord, 'title' | 'abstract' | 'fullText'>): string {
  const parts = [`# ${doc.title}`];
  if (doc.abstract) parts.push(doc.abstract);
  if (doc.fullText) parts.push(doc.fullText);
  return parts.join('\n\n');
}

/** The calendar date (YYYY-MM-DD, UTC) of `issuedAt`, as `issued_date` shows it; null when unknown. */
export const issuedDate = (issuedAt: number | null): string | null => (issuedAt === null ? null : new Date(issuedAt * 1000).toISOString().slice(0, 10));
