// OpenAlex Work records (https://docs.openalex.org/api-entities/works/work-object). Abstracts come as
// `abstract_inverted_index` (word -> positions) and are rebuilt in position order. References are
// OpenAlex work URLs, kept as `https://openalex.org/W…` URIs; every work also carries its own OpenAlex
// URL, so "documents citing X" resolves through the store (see search/citations).
import { arxivFromDoi } from '../../domain/canonical-uri.js';
import { cleanMarkup, cleanNullable } from './clean-text.js';
import { applyWorkRelations, asString, asStringArray, blankRecord, canonicalList, checkId, isoToUnix, normalizeType, RecordError, type ParsedRecord } from './common.js';

/** Rebuilds the abstract text from OpenAlex's inverted index. */
export function invertedIndexToText(index: unknown): string | null {
  if (typeof index !== 'object' || index === null) return null;
  const words: string[] = [];
  for (const [word, positions] of Object.entries(index as Record<string, unknown>)) {
    if (!Array.isArray(positions)) continue;
    for (const p of positions) if (Number.isInteger(p) && p >= 0 && p < 100_000) words[p as number] = word;
  }
  const text = words.filter((w) => w !== undefined).join(' ').trim();
  return text === '' ? null : text;
}

const openAlexUrl = (v: unknown): string | null => {
  const s = asString(v);
  if (!s) return null;
  const m = /^(?:https?:\/\/openalex\.org\/)?(W\d+)$/i.exec(s.trim());
  return m ? `https://openalex.org/${m[1]!.toUpperCase()}` : null;
};

export function parseOpenAlex(raw: Record<string, unknown>): ParsedRecord {
  const url = openAlexUrl(raw.id);
  if (!url) throw new RecordError('OpenAlex record without an `id` like https://openalex.org/W123');
  const id = checkId(url.slice('https://openalex.org/'.length));
  const title = asString(raw.title) ?? asString(raw.display_name);
  if (!title) throw new RecordError(`OpenAlex record ${id} has no title`);

  const ids = (raw.ids ?? {}) as Record<string, unknown>;
  const locations = Array.isArray(raw.locations) ? (raw.locations as Record<string, unknown>[]) : [];
  const primary = (raw.primary_location ?? {}) as Record<string, unknown>;
  const source = (primary.source ?? null) as Record<string, unknown> | null;
  const landing = [primary, ...locations].map((l) => asString(l?.landing_page_url)).filter((u): u is string => u !== null && /arxiv\.org\/abs\//i.test(u));

  const uris = canonicalList([asString(raw.doi), asString(ids.doi), asString(ids.pmid), asString(ids.pmcid), ...landing]);
  for (const u of [...uris]) {
    const ax = arxivFromDoi(u);
    if (ax && !uris.includes(ax)) uris.push(ax);
  }
  uris.push(url);

  const rec = blankRecord(id, 'documents', 'openalex');
  rec.uris = uris;
  rec.title = cleanMarkup(title) || title;
  rec.abstract = cleanNullable(invertedIndexToText(raw.abstract_inverted_index) ?? asString(raw.abstract), { paragraphs: true });
  rec.authors = (Array.isArray(raw.authorships) ? (raw.authorships as Record<string, unknown>[]) : [])
    .map((a) => (a?.author ?? {}) as Record<string, unknown>)
    .map((a) => ({ name: asString(a.display_name) ?? '', orcid: asString(a.orcid) }))
    .filter((a) => a.name !== '');
  rec.type = normalizeType(asString(raw.type), asString(raw.type_crossref));
  rec.language = asString(raw.language)?.toLowerCase() ?? null;
  rec.issuedAt = isoToUnix(raw.publication_date) ?? isoToUnix(raw.publication_year === undefined ? null : String(raw.publication_year));
  rec.publisher = source ? asString(source.host_organization_name) : null;
  rec.issns = source ? [...new Set([...asStringArray(source.issn), ...asStringArray(source.issn_l ? [source.issn_l] : [])])] : [];
  rec.venue = source ? asString(source.display_name) : null;
  rec.references = asStringArray(raw.referenced_works).map(openAlexUrl).filter((u): u is string => u !== null);
  rec.isRetracted = raw.is_retracted === true;
  rec.notices = rec.isRetracted ? [{ kind: 'retraction', uri: null }] : [];
  applyWorkRelations(rec, raw);
  const oa = (raw.open_access ?? {}) as Record<string, unknown>;
  rec.license = asString(primary.license);
  rec.extra = Object.fromEntries(
    Object.entries({
      openalex_id: url,
      cited_by_count: typeof raw.cited_by_count === 'number' ? raw.cited_by_count : undefined,
      keywords: asStringArray(raw.keywords).length ? asStringArray(raw.keywords) : undefined,
      primary_topic: asString(raw.primary_topic) ?? undefined,
      is_oa: typeof oa.is_oa === 'boolean' ? oa.is_oa : undefined,
      oa_status: asString(oa.oa_status) ?? undefined,
      oa_url: asString(oa.oa_url) ?? undefined,
      landing_page_url: asString(primary.landing_page_url) ?? undefined,
      biblio: raw.biblio ?? undefined,
    }).filter(([, v]) => v !== undefined),
  );
  return { record: rec, originals: [] };
}

/** True when a parsed JSON line looks like an OpenAlex Work. */
export const looksLikeOpenAlex = (raw: Record<string, unknown>): boolean =>
  'abstract_inverted_index' in raw || (typeof raw.id === 'string' && /^https?:\/\/openalex\.org\/W\d+$/i.test(raw.id));
