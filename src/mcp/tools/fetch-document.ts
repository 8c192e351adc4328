// fetch_document: the text of one document by id or canonical URI, optionally cut; the MCP twin of
// GET /v2/documents/{document_id} and GET /v2/documents/by-uri/{uri} (same service, same billing,
// same `documents` rate limit).
import { Type } from 'typebox';
import type { DocumentService } from '../../documents/document-service.js';
import type { PriceTable } from '../../domain/prices.js';
import { FetchedDocumentOutput, fetchedDocument, fetchedMarkdown } from '../present.js';
import { documentRef, readOnly, type ToolDefinition } from './tool.js';

/** Upper bounds that keep numbers finite; far above any document. */
const MAX_CUT = 100_000_000;

export const DocumentRefInput = {
  document_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Lectern document id, e.g. "W2741809807" (from search results or works_cited).' })),
  uri: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'Canonical URI of the work instead of an id: doi://10.…, arxiv://2101.00001, pubmed://…, pmc://PMC…, isbn://…, or an https URL. Common spellings (https://doi.org/…, doi:…, arXiv:…) are accepted.',
    }),
  ),
};

export function fetchDocumentTool(deps: { documents: DocumentService; prices: PriceTable; baseUrl: string }): ToolDefinition {
  const p = deps.prices;
  return {
    name: 'fetch_document',
    title: 'Fetch a document',
    annotations: readOnly('Fetch a document'),
    rateScope: 'documents',
    description: [
      'Returns the text of one document (paper, book, patent, encyclopedia entry or discussion post) with its bibliographic record.',
      'Identify it by exactly one of `document_id` (from search results) or `uri` (a canonical URI such as doi://10.1016/j.fuel.2022.125636). Any version of a work finds it (arxiv://…v1, the arXiv DOI, the published DOI); `document.uri_match` says which version the record holds, `document.versions` lists the others.',
      'The text is Markdown: a title line, the abstract, then the full text when Lectern has it.',
      'Limit the size with `max_tokens` (exactly the first N content tokens) and/or `max_chars` (at most N characters); `document.content_length` gives the full length, `truncated` says whether anything was cut. Start with max_tokens around 2000 to skim, then fetch more if needed.',
      `Cost: ${p.documentFetch} credits for the whole document, charged again on every fetch; with max_tokens or max_chars only the returned tokens count: ceil(tokens / ${p.documentTokensPerCredit}) credits, at most ${p.documentFetch}. Nothing is charged when the call fails (unknown document, invalid URI, insufficient credits).`,
      'Retracted works have `document.is_retracted` true and `notices`; the text starts with a warning line. Do not cite a retracted work as support.',
      'Social posts carry `attribution` (author, site, licence) that must be shown with any quotation.',
    ].join('\n'),
    inputSchema: Type.Object(
      {
        ...DocumentRefInput,
        max_tokens: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CUT, description: 'Return exactly the first N content tokens (a token is a run of letters/digits or one other symbol).' })),
        max_chars: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CUT, description: 'Return at most the first N characters (Unicode code points).' })),
      },
      { additionalProperties: false },
    ),
    outputSchema: FetchedDocumentOutput,
    async run(input, ctx) {
      const cut = { maxTokens: input.max_tokens as number | undefined, maxChars: input.max_chars as number | undefined };
      const f = await deps.documents.fetch(ctx.principal, documentRef(input), cut, ctx.requestId);
      return { text: fetchedMarkdown(f), structured: fetchedDocument(f, deps.baseUrl) };
    },
  };
}
