// Documents and originals (interface: Document responses; SimilarRequestV2 lives with search: schemas/search.ts).
// The inner structure of `document` is Lectern's decision ("not shown"): see docs/api.md.
import { Type, type Static } from 'typebox';
import { Int32, Int64, Nullable, ref } from './common.js';
import { Snippet, V2SearchResponse } from './search.js';

export const Author = Type.Object({ name: Type.String(), orcid: Type.Optional(Nullable(Type.String())) }, { $id: 'Author' });

export const OriginalLink = Type.Object(
  {
    format: Type.Union([Type.Literal('pdf'), Type.Literal('epub'), Type.Literal('djvu')]),
    media_type: Type.String(),
    bytes: Type.Integer({ minimum: 0 }),
    sha256: Type.String(),
    license: Nullable(Type.String()),
    url: Type.String({ description: 'Download address ({base_url}/v2/downloads/{id}.{format}); eligible accounts only.' }),
  },
  { $id: 'OriginalLink' },
);

const NoticeKind = Type.Union([Type.Literal('retraction'), Type.Literal('erratum'), Type.Literal('expression_of_concern')]);

export const Notice = Type.Object(
  {
    kind: NoticeKind,
    uri: Nullable(Type.String({ description: 'Canonical URI of the notice itself, when known.' })),
    document_id: Nullable(Type.String({ description: "The notice's own document in Lectern, when it holds one." })),
  },
  { $id: 'Notice', description: 'An editorial notice concerning the work (docs/works.md).' },
);

export const NoticeTarget = Type.Object(
  {
    kind: NoticeKind,
    uri: Nullable(Type.String({ description: 'Canonical URI of the work the notice concerns; null when the source names none.' })),
    document_id: Nullable(Type.String({ description: "The work's document in Lectern, when it holds one." })),
  },
  { $id: 'NoticeTarget', description: 'A work that this notice (retraction, erratum, expression of concern) concerns.' },
);

export const Version = Type.Object(
  {
    id: Type.String(),
    uris: Type.Array(Type.String()),
    type: Nullable(Type.String({ description: 'preprint, journal-article, ... (the record\'s type).' })),
    issued_date: Nullable(Type.String({ description: 'YYYY-MM-DD' })),
    title: Type.String(),
  },
  { $id: 'Version', description: 'Another record of the same work: a preprint, the published article, another arXiv version (docs/works.md).' },
);

export const UriMatch = Type.Object(
  {
    requested: Type.String({ description: 'The URI asked for, in canonical form.' }),
    held: Nullable(Type.String({ description: "This record's own URI for that work identity: the version it holds (null when only a version relation links them)." })),
    exact: Type.Boolean({ description: 'True when the record carries the requested URI itself.' }),
  },
  { $id: 'UriMatch', description: 'By-URI reads: which version of the work answered for the requested URI.' },
);

export const Attribution = Type.Object(
  {
    author: Nullable(Type.String()),
    author_url: Nullable(Type.String()),
    url: Nullable(Type.String()),
    site: Nullable(Type.String()),
    license: Nullable(Type.String()),
  },
  { $id: 'Attribution', description: 'Who wrote a social post and its licence: show both with the post (CC BY-SA).' },
);

/** Lectern's document object: what `document` holds in hits, document responses and trending entries. */
export const Document = Type.Object(
  {
    id: Type.String(),
    index: Type.Union([Type.Literal('documents'), Type.Literal('social')]),
    uris: Type.Array(Type.String()),
    work_id: Type.String({ description: 'Records of one work (same DOI, preprint and published version) share it.' }),
    title: Type.String(),
    abstract: Nullable(Type.String()),
    authors: Type.Array(ref(Author)),
    type: Nullable(Type.String()),
    language: Nullable(Type.String()),
    issued_at: Nullable(Int64({ description: 'Unix seconds.' })),
    issued_date: Nullable(Type.String({ description: 'ISO 8601 date (YYYY-MM-DD) of issued_at.' })),
    publisher: Nullable(Type.String()),
    venue: Nullable(Type.String()),
    issns: Type.Array(Type.String()),
    is_retracted: Type.Boolean({ description: 'True when the work has been retracted: do not cite it as evidence.' }),
    notices: Type.Array(ref(Notice), { description: 'Retractions, errata and expressions of concern concerning the work (its own flags and the notice records pointing at any of its versions).' }),
    notice_kind: Nullable(NoticeKind, { description: 'Set when this document is itself an editorial notice; a notice is never marked retracted itself.' }),
    notice_of: Type.Array(ref(NoticeTarget), { description: 'For a notice: the works it concerns (empty for other documents).' }),
    versions: Type.Array(ref(Version), { description: 'The other records of this work (preprint, published version, other arXiv versions), in id order.' }),
    uri_match: Type.Optional(ref(UriMatch)),
    license: Nullable(Type.String()),
    attribution: Nullable(ref(Attribution)),
    references_count: Type.Integer({ minimum: 0, description: 'Number of cited works known to Lectern (see the references tools).' }),
    originals: Type.Array(ref(OriginalLink)),
    has_full_text: Type.Boolean(),
    source: Type.String(),
    extra: Type.Record(Type.String(), Type.Unknown(), { description: 'Source-specific fields (cited_by_count, tags, score, keywords, ...).' }),
    content: Type.Optional(Type.String({ description: 'Document fetches only: the text (Markdown), possibly cut.' })),
    content_length: Type.Optional(Type.Integer({ minimum: 0, description: 'Full length of the content in Unicode scalar values.' })),
    content_tokens: Type.Optional(Type.Integer({ minimum: 0, description: 'Content tokens returned in `content` (the billed unit of a cut).' })),
    truncated: Type.Optional(Type.Boolean({ description: 'True when `content` was cut by max_tokens or max_chars.' })),
  },
  { $id: 'Document' },
);
export type WireDocument = Static<typeof Document>;

export const V2DocumentResponse = Type.Object(
  {
    id: Type.String(),
    uris: Type.Array(Type.String()),
    document: ref(Document),
  },
  { $id: 'V2DocumentResponse' },
);
export type V2DocumentResponse = Static<typeof V2DocumentResponse>;

export const ByUriResponse = Type.Union([ref(V2SearchResponse), ref(V2DocumentResponse)], {
  $id: 'ByUriResponse',
  description: 'A V2SearchResponse when `text_filter` is given, otherwise a V2DocumentResponse.',
});

export const SearchDocument = Type.Object(
  {
    source: Type.String(),
    document: Type.Unknown(),
    score: Type.Optional(Type.Number()),
    snippets: Type.Optional(Type.Array(ref(Snippet))),
  },
  { $id: 'SearchDocument' },
);

/** Query parameters of GET /v2/documents/{document_id} and /v2/documents/by-uri/{uri}. */
export const DocumentQuery = Type.Object(
  {
    max_tokens: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Return exactly the first N content tokens (docs/api.md, "Content tokens").' })),
    max_chars: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Return at most the first N characters (Unicode scalar values).' })),
    text_filter: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'by-uri only: up to five passages matching it (double-quoted spans verbatim).' })),
  },
  { additionalProperties: false },
);

export const DOCUMENT_SCHEMAS = [Author, OriginalLink, Notice, NoticeTarget, Version, UriMatch, Attribution, Document, V2DocumentResponse, ByUriResponse, SearchDocument];
