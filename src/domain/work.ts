// Works as researchers think of them (issue 13; docs/works.md, ADR 0085): one work, many records.
//
// - Versions. Records sharing an identity key are one work (canonical-uri.ts `identityKeys`, ADR 0011):
//   the same DOI, an arXiv id in any version, the arXiv DOI of a preprint. A source record may also say
//   outright that it is another version of a work (Crossref `relation` is-preprint-of / has-preprint /
//   is-version-of, Lectern JSONL `relations`): the URIs it names count as its identity keys too, so
//   the preprint and the published article share a work key whichever arrives first.
// - Notices. A retraction notice, an erratum or an expression of concern is a record of its own. It
//   names the work it concerns through `relations` (Crossref `update-to`, `relation`), and the work
//   lists it under `notices` when read. A notice is never itself marked retracted (OpenAlex flags some
//   retraction notices `is_retracted`; the flag belongs to the work they retract).
import { identityKeys } from './canonical-uri.js';
import type { DocumentRecord, Notice, NoticeKind, NoticeTarget, StoredDocument, VersionRef } from './document.js';

/** The identity keys of a record: those of its URIs and of the works it names as its other versions. */
export function workIdentityKeys(doc: Pick<DocumentRecord, 'uris' | 'relations'>): string[] {
  const versionUris = (doc.relations ?? []).filter((r) => r.kind === 'version').map((r) => r.uri);
  return identityKeys(versionUris.length === 0 ? doc.uris : [...doc.uris, ...versionUris]);
}

/**
 * The URIs a relation to `uri` is stored under: the URI itself and its identity keys, so a notice
 * naming `arxiv://X` finds the record stored as `arxiv://Xv2` and the other way round (the reader asks
 * with its URIs and their identity keys, `withIdentityKeys`).
 */
export const linkTargets = (uri: string): string[] => [...new Set([uri, ...identityKeys([uri])])];

/** URIs with their identity keys added (deduplicated, order kept). */
export const withIdentityKeys = (uris: Iterable<string>): string[] => {
  const out = new Set<string>();
  for (const u of uris) for (const t of linkTargets(u)) out.add(t);
  return [...out];
};

/** A live record of a work, as the store lists a work's members. */
export interface WorkMember extends VersionRef {
  workKey: string;
}

/** A relation of a live record pointing at a URI (the reverse direction of `relations`). */
export interface IncomingRelation {
  /** The URI pointed at. */
  target: string;
  kind: 'version' | NoticeKind;
  /** The record holding the relation (for notices: the notice). */
  documentId: string;
  /** That record's URIs (primary first). */
  documentUris: string[];
}

// Titles of notices, as publishers write them: "Retraction: …", "Retraction Note: …", "Notice of
// Retraction", "Erratum to: …", "Corrigendum to “…”", "Correction to: …", "Author Correction: …",
// "Expression of Concern: …". "RETRACTED: …" and "RETRACTED ARTICLE: …" title the retracted work itself,
// not its notice, and "Correction of seismic data …" or "Retraction of the ice sheet …" are ordinary
// articles: without "Note"/"Notice", the word needs the punctuation (":", a quote) that introduces the
// concerned work's title.
const RETRACTION_TITLE = /^(?:notice\s+of\s+retraction\b|retraction\s+(?:note|notice|statement)\b|retraction\s*(?:(?:to|for|of)\s*)?[:.–—“"‘[])/i;
const ERRATUM_TITLE = /^(?:(?:author|publisher)(?:['’]s)?\s+)?(?:erratum|errata|corrigendum|corrigenda|correction)\s*(?:(?:to|for|of)\s*)?[:.–—“"‘[]/i;
const CONCERN_TITLE = /^(?:editorial\s+)?expressions?\s+of\s+concern\b/i;

/**
 * The notice kind of a record from its (clean) title and normalised type, or null when it is not a
 * notice. The type wins (OpenAlex `retraction`, `erratum`); else the title's opening words decide.
 */
export function noticeKindOf(title: string, type: string | null): NoticeKind | null {
  if (type === 'retraction') return 'retraction';
  if (type === 'erratum') return 'erratum';
  const t = title.trim();
  if (CONCERN_TITLE.test(t)) return 'expression_of_concern';
  if (RETRACTION_TITLE.test(t)) return 'retraction';
  if (ERRATUM_TITLE.test(t)) return 'erratum';
  return null;
}

/** What the work links read and fill in: a stored document or its display form (ADR 0135). */
export type LinkableDocument = Pick<StoredDocument, 'id' | 'uris' | 'notices' | 'isRetracted' | 'noticeKind' | 'relations' | 'versions' | 'noticeOf'>;

/** Most versions a document lists (a work with more lists the first ones by id). */
export const MAX_VERSIONS = 50;

/**
 * A stored document with its work's links filled in: `versions` (the other live records of its work),
 * `notices` (its own plus every notice record pointing at any URI of the work, each with the notice's
 * record id), `isRetracted` (its own flag or a retraction notice pointing at the work) and, for a
 * notice record, `noticeOf` (the works it concerns, with their record ids where held here).
 *
 * @param members the live records of `doc.workKey` (doc itself may be among them; empty when doc is the work's only record)
 * @param incoming relations of live records pointing at any URI (or identity key) of the work's members
 * @param heldByUri record ids of the URIs that `doc.relations` name, where this store holds them
 */
export function withWorkLinks<D extends LinkableDocument>(
  doc: D,
  members: readonly WorkMember[],
  incoming: readonly IncomingRelation[],
  heldByUri: ReadonlyMap<string, string>,
): D {
  const versions: VersionRef[] = members
    .filter((m) => m.id !== doc.id)
    .slice(0, MAX_VERSIONS)
    .map(({ id, uris, type, issuedAt, title }) => ({ id, uris, type, issuedAt, title }));
  const workUris = new Set<string>(withIdentityKeys([doc.uris, ...members.map((m) => m.uris)].flat()));

  const notices: Notice[] = doc.notices.map((n) => ({ kind: n.kind, uri: n.uri, documentId: n.documentId ?? null }));
  for (const r of incoming) {
    if (r.kind === 'version' || r.documentId === doc.id || !workUris.has(r.target)) continue;
    if (notices.some((n) => n.documentId === r.documentId && n.kind === r.kind)) continue;
    const uri = r.documentUris[0] ?? null;
    // A flag without a notice record (OpenAlex is_retracted) is replaced by the notice that explains it.
    const bare = notices.findIndex((n) => n.kind === r.kind && n.documentId === null && (n.uri === null || n.uri === uri || r.documentUris.includes(n.uri)));
    const notice: Notice = { kind: r.kind, uri, documentId: r.documentId };
    if (bare >= 0) notices[bare] = notice;
    else notices.push(notice);
  }

  const out: D = {
    ...doc,
    notices,
    isRetracted: doc.noticeKind === undefined && (doc.isRetracted || notices.some((n) => n.kind === 'retraction')),
    versions,
  };
  if (doc.noticeKind !== undefined) {
    const targets: NoticeTarget[] = (doc.relations ?? [])
      .filter((r): r is { kind: NoticeKind; uri: string } => r.kind !== 'version')
      .map((r) => ({ kind: r.kind, uri: r.uri, documentId: heldByUri.get(r.uri) ?? null }));
    out.noticeOf = targets.length > 0 ? targets : [{ kind: doc.noticeKind, uri: null, documentId: null }];
  }
  return out;
}
