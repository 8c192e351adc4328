// The wire form of a document (the `document` object of hits, document responses and trending
// entries; its inner structure is Lectern's decision, documented in docs/api.md).
import { hasFullText, referencesCount, type DisplayDocument } from '../../domain/display-document.js';
import { issuedDate, type StoredDocument } from '../../domain/document.js';
import type { WireDocument } from '../schemas/documents.js';

/** Escapes a document id for use in a download path segment. */
const pathSegment = (s: string) => encodeURIComponent(s);

export function toWireDocument(doc: StoredDocument | DisplayDocument, baseUrl: string): WireDocument {
  return {
    id: doc.id,
    index: doc.index,
    uris: doc.uris,
    work_id: doc.workKey,
    title: doc.title,
    abstract: doc.abstract,
    authors: doc.authors.map((a) => ({ name: a.name, orcid: a.orcid ?? null })),
    type: doc.type,
    language: doc.language,
    issued_at: doc.issuedAt,
    issued_date: issuedDate(doc.issuedAt),
    publisher: doc.publisher,
    venue: doc.venue,
    issns: doc.issns,
    is_retracted: doc.isRetracted,
    notices: doc.notices.map((n) => ({ kind: n.kind, uri: n.uri, document_id: n.documentId ?? null })),
    notice_kind: doc.noticeKind ?? null,
    notice_of: (doc.noticeOf ?? []).map((t) => ({ kind: t.kind, uri: t.uri, document_id: t.documentId })),
    versions: (doc.versions ?? []).map((v) => ({ id: v.id, uris: v.uris, type: v.type, issued_date: issuedDate(v.issuedAt), title: v.title })),
    ...(doc.uriMatch ? { uri_match: { requested: doc.uriMatch.requested, held: doc.uriMatch.held, exact: doc.uriMatch.exact } } : {}),
    license: doc.license,
    attribution: doc.attribution
      ? { author: doc.attribution.author, author_url: doc.attribution.authorUrl, url: doc.attribution.url, site: doc.attribution.site, license: doc.attribution.license }
      : null,
    references_count: referencesCount(doc),
    originals: doc.originals.map((o) => ({
      format: o.format,
      media_type: o.mediaType,
      bytes: o.bytes,
      sha256: o.sha256,
      license: o.license,
      url: `${baseUrl}/v2/downloads/${pathSegment(doc.id)}.${o.format}`,
    })),
    has_full_text: hasFullText(doc),
    source: doc.source,
    extra: doc.extra,
  };
}
