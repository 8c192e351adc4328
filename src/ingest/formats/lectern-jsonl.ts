// Lectern's own JSONL (docs/ingest.md): one work per line with identifiers, metadata, optional full
// text and originals named by a path relative to the JSONL file.
import { arxivFromDoi } from '../../domain/canonical-uri.js';
import type { DocumentRecord } from '../../domain/document.js';
import { cleanMarkup, cleanNullable } from './clean-text.js';
import { applyWorkRelations, asString, asStringArray, blankRecord, canonicalList, checkId, isoToUnix, normalizeType, RecordError, type OriginalRef, type ParsedRecord } from './common.js';

export function parseLectern(raw: Record<string, unknown>): ParsedRecord {
  const id = checkId(asString(raw.id) ?? '');
  const title = asString(raw.title);
  if (!title) throw new RecordError(`record ${id} has no title`);
  const index = raw.index === 'social' ? 'social' : 'documents';
  const rec = blankRecord(id, index, asString(raw.source) ?? 'lectern');
  const uris = canonicalList([
    ...asStringArray(raw.uris),
    asString(raw.uri),
    asString(raw.doi) ? `doi://${asString(raw.doi)}` : null,
    asString(raw.arxiv_id) ? `arxiv://${asString(raw.arxiv_id)}` : null,
    asString(raw.pmid) ? `pubmed://${asString(raw.pmid)}` : null,
    asString(raw.pmcid) ? `pmc://${asString(raw.pmcid)}` : null,
    asString(raw.isbn) ? `isbn://${asString(raw.isbn)}` : null,
  ]);
  for (const u of [...uris]) {
    const ax = arxivFromDoi(u);
    if (ax && !uris.includes(ax)) uris.push(ax);
  }
  rec.uris = uris;
  rec.title = cleanMarkup(title) || title;
  rec.abstract = cleanNullable(asString(raw.abstract), { paragraphs: true });
  rec.fullText = asString(raw.full_text) ?? asString(raw.body);
  rec.authors = (Array.isArray(raw.authors) ? raw.authors : [])
    .map((a) => (typeof a === 'string' ? { name: a, orcid: null } : { name: asString((a as Record<string, unknown>)?.name) ?? '', orcid: asString((a as Record<string, unknown>)?.orcid) }))
    .filter((a) => a.name !== '');
  rec.type = normalizeType(asString(raw.type), asString(raw.type_crossref));
  rec.language = asString(raw.language)?.toLowerCase() ?? null;
  rec.issuedAt = typeof raw.issued_at === 'number' ? raw.issued_at : isoToUnix(raw.publication_date);
  rec.publisher = asString(raw.publisher);
  rec.issns = [...new Set([...asStringArray(raw.issn), ...asStringArray(raw.issns), ...(asString(raw.issn_l) ? [asString(raw.issn_l)!] : [])])];
  rec.venue = asString(raw.venue);
  rec.references = canonicalList([...asStringArray(raw.references), ...asStringArray(raw.referenced_works)]);
  rec.isRetracted = raw.is_retracted === true;
  rec.notices = rec.isRetracted ? [{ kind: 'retraction', uri: asString(raw.retraction_uri) }] : [];
  applyWorkRelations(rec, raw);
  rec.license = asString(raw.license);
  const extra: DocumentRecord['extra'] = {};
  for (const k of ['cited_by_count', 'keywords', 'landing_page_url', 'oa_status', 'is_oa', 'biblio'] as const) {
    if (raw[k] !== undefined && raw[k] !== null) extra[k] = raw[k];
  }
  rec.extra = extra;
  const originals: OriginalRef[] = (Array.isArray(raw.originals) ? (raw.originals as Record<string, unknown>[]) : []).map((o) => {
    const path = asString(o?.path);
    if (!path) throw new RecordError(`record ${id}: every original needs a path`);
    return { path, mediaType: asString(o.media_type), sha256: asString(o.sha256)?.toLowerCase() ?? null, license: asString(o.license) };
  });
  return { record: rec, originals };
}
