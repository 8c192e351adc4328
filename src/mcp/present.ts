// How documents look to agents: the structured form (snake_case, the same field names as the HTTP
// API's document object, docs/api.md, so an agent that knows one knows the other) with its output
// schema, and a short Markdown rendering for the text content of a tool result. Retracted works and
// editorial notices are flagged in both, first thing, so an agent never cites a retracted work unawares.
import { hasFullText, referencesCount, type DisplayDocument } from '../domain/display-document.js';
import { Type, type Static } from 'typebox';
import { issuedDate, type StoredDocument } from '../domain/document.js';
import type { FetchedDocument } from '../documents/document-service.js';

const Str = Type.String();
const NullableStr = Type.Union([Type.String(), Type.Null()]);
const NullableInt = Type.Union([Type.Integer(), Type.Null()]);

const Notice = Type.Object({
  kind: Type.String({ description: 'retraction, erratum or expression_of_concern' }),
  uri: NullableStr,
  document_id: Type.Union([Type.String({ description: "The notice's own document id (fetch_document), when Lectern holds it." }), Type.Null()]),
});
const NoticeTarget = Type.Object({
  kind: Type.String({ description: 'retraction, erratum or expression_of_concern' }),
  uri: Type.Union([Type.String({ description: 'The work this notice concerns.' }), Type.Null()]),
  document_id: Type.Union([Type.String({ description: "That work's document id, when Lectern holds it." }), Type.Null()]),
});
const Version = Type.Object(
  { id: Str, uris: Type.Array(Str), type: NullableStr, issued_date: NullableStr, title: Str },
  { description: 'Another record of the same work (preprint, published version, another arXiv version).' },
);
const workLinkFields = {
  notice_kind: Type.Union([Type.String({ description: 'Set when this document is itself a notice (retraction, erratum, expression_of_concern).' }), Type.Null()]),
  notice_of: Type.Array(NoticeTarget, { description: 'For a notice: the works it concerns.' }),
  versions: Type.Array(Version, { description: 'The other records of this work.' }),
};
const Attribution = Type.Union([
  Type.Object(
    { author: NullableStr, author_url: NullableStr, url: NullableStr, site: NullableStr, license: NullableStr },
    { description: 'Social posts: author, site and licence, to be shown with any quotation (CC BY-SA).' },
  ),
  Type.Null(),
]);

/** A work as listed in results (no text). */
export const WorkSummary = Type.Object({
  id: Type.String({ description: 'Lectern document id (use with fetch_document).' }),
  index: Type.String({ description: 'documents or social' }),
  uris: Type.Array(Str, { description: 'Canonical URIs, primary first (doi://, arxiv://, pubmed://, pmc://, isbn://, https://).' }),
  title: Str,
  authors: Type.Array(Type.Object({ name: Str, orcid: NullableStr })),
  type: NullableStr,
  language: NullableStr,
  issued_date: Type.Union([Type.String({ description: 'YYYY-MM-DD' }), Type.Null()]),
  venue: NullableStr,
  publisher: NullableStr,
  is_retracted: Type.Boolean({ description: 'True when the work is retracted: do not cite it as support.' }),
  notices: Type.Array(Notice, { description: 'Retractions, errata and expressions of concern attached to the work.' }),
  ...workLinkFields,
  references_count: Type.Integer({ description: 'Cited works known to Lectern (see works_cited).' }),
  has_full_text: Type.Boolean(),
  abstract: Type.Union([Type.String({ description: 'The abstract, cut to 600 characters in listings.' }), Type.Null()]),
  attribution: Attribution,
});
export type WorkSummary = Static<typeof WorkSummary>;

/** A fetched document: everything of the HTTP API's document object plus the (possibly cut) text. */
export const FetchedDocumentOutput = Type.Object({
  id: Str,
  uris: Type.Array(Str),
  document: Type.Object({
    id: Str,
    index: Str,
    uris: Type.Array(Str),
    work_id: Str,
    title: Str,
    abstract: NullableStr,
    authors: Type.Array(Type.Object({ name: Str, orcid: NullableStr })),
    type: NullableStr,
    language: NullableStr,
    issued_at: NullableInt,
    issued_date: NullableStr,
    publisher: NullableStr,
    venue: NullableStr,
    issns: Type.Array(Str),
    is_retracted: Type.Boolean(),
    notices: Type.Array(Notice),
    ...workLinkFields,
    uri_match: Type.Optional(
      Type.Object(
        { requested: Str, held: NullableStr, exact: Type.Boolean() },
        { description: 'Fetched by URI: the URI asked for and the version this record holds (exact false: another version of the same work).' },
      ),
    ),
    license: NullableStr,
    attribution: Attribution,
    references_count: Type.Integer(),
    originals: Type.Array(Type.Object({ format: Str, media_type: Str, bytes: Type.Integer(), sha256: Str, license: NullableStr, url: Str })),
    has_full_text: Type.Boolean(),
    source: Str,
    extra: Type.Record(Type.String(), Type.Unknown()),
    content: Type.String({ description: 'Markdown: a title line, the abstract, then the full text when Lectern has it; cut by max_tokens/max_chars.' }),
    content_length: Type.Integer({ description: 'Length of the whole content in Unicode code points.' }),
    content_tokens: Type.Integer({ description: 'Content tokens returned.' }),
    truncated: Type.Boolean(),
  }),
  credits_charged: Type.Integer(),
});
export type FetchedDocumentOutput = Static<typeof FetchedDocumentOutput>;

const ABSTRACT_IN_LISTINGS = 600;

export function workSummary(doc: StoredDocument | DisplayDocument): WorkSummary {
  const abstract = doc.abstract === null ? null : [...doc.abstract].length > ABSTRACT_IN_LISTINGS ? [...doc.abstract].slice(0, ABSTRACT_IN_LISTINGS - 1).join('') + '…' : doc.abstract;
  return {
    id: doc.id,
    index: doc.index,
    uris: doc.uris,
    title: doc.title,
    authors: doc.authors.map((a) => ({ name: a.name, orcid: a.orcid ?? null })),
    type: doc.type,
    language: doc.language,
    issued_date: issuedDate(doc.issuedAt),
    venue: doc.venue,
    publisher: doc.publisher,
    is_retracted: doc.isRetracted,
    notices: noticesOf(doc),
    ...workLinksOf(doc),
    references_count: referencesCount(doc),
    has_full_text: hasFullText(doc),
    abstract,
    attribution: attributionOf(doc),
  };
}

const noticesOf = (d: StoredDocument | DisplayDocument) => d.notices.map((n) => ({ kind: n.kind, uri: n.uri, document_id: n.documentId ?? null }));

/** The work links of a document in the wire form (the same fields as the HTTP API's document object). */
function workLinksOf(d: StoredDocument | DisplayDocument) {
  return {
    notice_kind: d.noticeKind ?? null,
    notice_of: (d.noticeOf ?? []).map((t) => ({ kind: t.kind, uri: t.uri, document_id: t.documentId })),
    versions: (d.versions ?? []).map((v) => ({ id: v.id, uris: v.uris, type: v.type, issued_date: issuedDate(v.issuedAt), title: v.title })),
  };
}

function attributionOf(d: StoredDocument | DisplayDocument) {
  const a = d.attribution;
  return a ? { author: a.author, author_url: a.authorUrl, url: a.url, site: a.site, license: a.license } : null;
}

/** "Posted by X on site (url), licence L: ..." for social posts; '' otherwise. */
export function attributionLine(d: Pick<StoredDocument, 'attribution'>): string {
  const a = d.attribution;
  if (!a) return '';
  return `Posted by ${a.author ?? 'unknown'}${a.site ? ` on ${a.site}` : ''}${a.url ? ` (${a.url})` : ''}${a.license ? `, licence ${a.license}: show this attribution with any quotation` : ''}.`;
}

export function fetchedDocument(f: FetchedDocument, baseUrl: string): FetchedDocumentOutput {
  const d = f.doc;
  return {
    id: d.id,
    uris: d.uris,
    document: {
      id: d.id,
      index: d.index,
      uris: d.uris,
      work_id: d.workKey,
      title: d.title,
      abstract: d.abstract,
      authors: d.authors.map((a) => ({ name: a.name, orcid: a.orcid ?? null })),
      type: d.type,
      language: d.language,
      issued_at: d.issuedAt,
      issued_date: issuedDate(d.issuedAt),
      publisher: d.publisher,
      venue: d.venue,
      issns: d.issns,
      is_retracted: d.isRetracted,
      notices: noticesOf(d),
      ...workLinksOf(d),
      ...(d.uriMatch ? { uri_match: { ...d.uriMatch } } : {}),
      license: d.license,
      attribution: attributionOf(d),
      references_count: d.references.length,
      originals: d.originals.map((o) => ({
        format: o.format,
        media_type: o.mediaType,
        bytes: o.bytes,
        sha256: o.sha256,
        license: o.license,
        url: `${baseUrl}/v2/downloads/${encodeURIComponent(d.id)}.${o.format}`,
      })),
      has_full_text: d.fullText !== null && d.fullText.length > 0,
      source: d.source,
      extra: d.extra,
      content: f.content,
      content_length: f.contentLength,
      content_tokens: f.contentTokens,
      truncated: f.truncated,
    },
    credits_charged: f.cost,
  };
}

/** The warning line for a retracted or annotated work, or what a notice concerns ('' when there is nothing to flag). */
export function noticeLine(doc: Pick<StoredDocument, 'isRetracted' | 'notices' | 'noticeKind' | 'noticeOf'>): string {
  const parts: string[] = [];
  if (doc.noticeKind !== undefined) {
    const targets = (doc.noticeOf ?? []).filter((t) => t.uri !== null || t.documentId !== null);
    const what = targets.length > 0 ? targets.map((t) => `${t.uri ?? ''}${t.documentId ? ` (id ${t.documentId})` : ''}`.trim()).join(', ') : 'a work not identified by the source';
    parts.push(`This is ${doc.noticeKind === 'erratum' ? 'an erratum' : doc.noticeKind === 'retraction' ? 'a retraction notice' : 'an expression of concern'} concerning ${what}.`);
  }
  if (doc.isRetracted) parts.push('RETRACTED: this work has been retracted; do not cite it as support.');
  const others = doc.notices.filter((n) => !(doc.isRetracted && n.kind === 'retraction'));
  if (others.length > 0) parts.push(`Notices: ${others.map((n) => `${n.kind.replace(/_/g, ' ')}${n.uri ? ` (${n.uri})` : ''}`).join('; ')}.`);
  return parts.length > 0 ? `⚠ ${parts.join(' ')}` : '';
}

const authorsLine = (authors: readonly { name: string }[]): string =>
  authors.length === 0 ? '' : authors.length <= 6 ? authors.map((a) => a.name).join(', ') : `${authors.slice(0, 5).map((a) => a.name).join(', ')} and ${authors.length - 5} more`;

/** One line of bibliographic facts: authors · type · date · venue. */
export function factsLine(doc: StoredDocument | DisplayDocument): string {
  return [authorsLine(doc.authors), doc.type, issuedDate(doc.issuedAt), doc.venue].filter((x) => x !== null && x !== '').join(' · ');
}

/** A listing entry in Markdown: title, facts, id and URIs, notices. */
export function workMarkdown(doc: StoredDocument | DisplayDocument, n?: number): string {
  const lines = [`${n !== undefined ? `${n}. ` : ''}**${doc.title}**`];
  const facts = factsLine(doc);
  if (facts) lines.push(`   ${facts}`);
  lines.push(`   id: ${doc.id}${doc.uris.length > 0 ? ` · ${doc.uris.join(' · ')}` : ''}`);
  const notice = noticeLine(doc);
  if (notice) lines.push(`   ${notice}`);
  const versions = versionsLine(doc);
  if (versions) lines.push(`   ${versions}`);
  const attribution = attributionLine(doc);
  if (attribution) lines.push(`   ${attribution}`);
  return lines.join('\n');
}

/** "Other versions: preprint arxiv://… (id W1); …" ('' when the work has one record). */
export function versionsLine(doc: Pick<StoredDocument, 'versions'>): string {
  const v = doc.versions ?? [];
  return v.length === 0 ? '' : `Other versions: ${v.map((x) => `${x.type ?? 'record'} ${x.uris[0] ?? ''} (id ${x.id})`.replace('  ', ' ')).join('; ')}.`;
}

/** The text content of a fetched document: notices first, facts, the content, then what it cost. */
export function fetchedMarkdown(f: FetchedDocument): string {
  const d = f.doc;
  const asked = d.uriMatch && !d.uriMatch.exact ? `You asked for ${d.uriMatch.requested}; this record of the same work holds ${d.uriMatch.held ?? 'another version'}.` : '';
  const head = [noticeLine(d), asked, factsLine(d), `id: ${d.id}${d.uris.length > 0 ? ` · ${d.uris.join(' · ')}` : ''}`, versionsLine(d)];
  if (d.attribution) head.push(attributionLine(d));
  else if (d.license) head.push(`Licence: ${d.license}.`);
  const length = [...f.content].length;
  const tail = `[${f.truncated ? `cut: ${length} of ${f.contentLength} characters, ${f.contentTokens} tokens` : `whole document: ${f.contentLength} characters`}; ${f.cost} credits charged]`;
  return `${head.filter(Boolean).join('\n')}\n\n${f.content}\n\n${tail}`;
}
