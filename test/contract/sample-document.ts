// A complete, valid DocumentRecord for store tests; every field can be overridden.
import type { DocumentRecord } from '../../src/domain/document.js';

export function sampleDocument(id: string, overrides: Partial<DocumentRecord> = {}): DocumentRecord {
  return {
    id,
    index: 'documents',
    uris: [`doi://10.1234/${id.toLowerCase()}`],
    title: `Title of ${id}`,
    abstract: `Abstract of ${id}.`,
    fullText: null,
    authors: [{ name: 'Ada Lovelace', orcid: null }],
    type: 'journal-article',
    language: 'en',
    issuedAt: 1_600_000_000,
    publisher: 'Example Press',
    issns: ['1234-5678'],
    venue: 'Journal of Examples',
    references: ['doi://10.1234/cited'],
    isRetracted: false,
    notices: [],
    license: 'cc-by',
    attribution: null,
    originals: [],
    source: 'lectern',
    extra: { cited_by_count: 3, keywords: ['alpha', 'beta'], nested: { deep: [1, 2.5, null, true] } },
    ...overrides,
  };
}
