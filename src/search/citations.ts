// Resolves `referenced_by_uri` (interface: "Return documents citing this work: one doi:// or arxiv://
// URI, or up to 16 identifiers of the same work") to the set of URIs a citing record may list in its
// references: the given identifiers, their version-less arXiv forms, and every URI of the records that
// carry them (so an OpenAlex record citing `https://openalex.org/W…` counts as citing the DOI).
import { parseCanonicalUri, withoutArxivVersion } from '../domain/canonical-uri.js';
import { AppError } from '../domain/errors.js';
import type { DocumentStore } from '../ports/document-store.js';

export async function citedWorkUris(store: DocumentStore, given: string | readonly string[]): Promise<string[]> {
  const list = typeof given === 'string' ? [given] : [...given];
  if (list.length === 0 || list.length > 16) throw new AppError('validation_failed', 'referenced_by_uri takes one URI or 1 to 16 identifiers of the same work.');
  const out = new Set<string>();
  for (const raw of list) {
    const parsed = parseCanonicalUri(raw);
    if (!parsed) throw new AppError('validation_failed', `referenced_by_uri: ${JSON.stringify(raw.slice(0, 200))} is not a canonical URI (doi://, arxiv://, pubmed://, pmc://, isbn:// or https://).`);
    if (typeof given === 'string' && parsed.scheme !== 'doi' && parsed.scheme !== 'arxiv') {
      throw new AppError('validation_failed', 'referenced_by_uri as a single string must be a doi:// or arxiv:// URI; give an array for other identifiers of the work.');
    }
    out.add(parsed.uri);
    out.add(withoutArxivVersion(parsed.uri));
    const doc = await store.getByUri(parsed.uri) ?? (parsed.scheme === 'arxiv' ? await store.getByUri(withoutArxivVersion(parsed.uri)) : null);
    if (doc) for (const u of doc.uris) {
      out.add(u);
      out.add(withoutArxivVersion(u));
    }
  }
  return [...out];
}
