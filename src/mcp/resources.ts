// Document resources: `lectern://documents/{document_id}` and `lectern://documents/by-uri/{uri}` (the
// canonical URI percent-encoded). Reading one is a whole-document fetch through the document service,
// billed like GET /v2/documents/{document_id} (prices.documentFetch) and limited by the `documents`
// bucket. There is no resource list: the corpus is reached through search, ids and URIs.
import type { DocumentRef, DocumentService } from '../documents/document-service.js';
import type { PriceTable } from '../domain/prices.js';
import { fetchedMarkdown } from './present.js';
import type { ToolContext } from './tools/tool.js';

const BY_ID = 'lectern://documents/';
const BY_URI = 'lectern://documents/by-uri/';

export function resourceTemplates(prices: PriceTable) {
  const cost = `Reading it fetches the whole document and costs ${prices.documentFetch} credits each time (use the fetch_document tool with max_tokens to read less).`;
  return [
    {
      uriTemplate: `${BY_ID}{document_id}`,
      name: 'document',
      title: 'Lectern document by id',
      description: `The text of a Lectern document (Markdown: retraction warning if any, bibliographic facts, title, abstract, full text). ${cost}`,
      mimeType: 'text/markdown',
    },
    {
      uriTemplate: `${BY_URI}{uri}`,
      name: 'document-by-uri',
      title: 'Lectern document by canonical URI',
      description: `The same, addressed by a percent-encoded canonical URI, e.g. lectern://documents/by-uri/doi%3A%2F%2F10.1016%2Fj.fuel.2022.125636. ${cost}`,
      mimeType: 'text/markdown',
    },
  ];
}

/** The document a resource URI names, or null when the URI is not one of ours. */
export function parseDocumentResource(uri: string): DocumentRef | null {
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return null;
    }
  };
  if (uri.startsWith(BY_URI)) {
    const u = decode(uri.slice(BY_URI.length));
    return u ? { uri: u } : null;
  }
  if (uri.startsWith(BY_ID)) {
    const id = decode(uri.slice(BY_ID.length));
    return id && !id.includes('/') ? { documentId: id } : null;
  }
  return null;
}

export async function readDocumentResource(documents: DocumentService, uri: string, ctx: ToolContext): Promise<{ contents: { uri: string; mimeType: string; text: string }[] } | null> {
  const ref = parseDocumentResource(uri);
  if (!ref) return null;
  const f = await documents.fetch(ctx.principal, ref, {}, ctx.requestId);
  return { contents: [{ uri, mimeType: 'text/markdown', text: fetchedMarkdown(f) }] };
}

/** The resource URI of a document (for links in tool results). */
export const documentResourceUri = (documentId: string): string => `${BY_ID}${encodeURIComponent(documentId)}`;
