// search_in_document: up to five passages of one document matching a text filter; the MCP twin of
// GET /v2/documents/by-uri/{uri}?text_filter=... (same service, billed prices.documentPassages, same
// `documents` rate limit, recorded as an agent read).
import { Type } from 'typebox';
import type { DocumentService } from '../../documents/document-service.js';
import type { PriceTable } from '../../domain/prices.js';
import { MAX_PASSAGES, type PassageSearch } from '../../search/passage-search.js';
import { WorkSummary, noticeLine, workSummary } from '../present.js';
import { DocumentRefInput } from './fetch-document.js';
import { ToolInputError, documentRef, readOnly, type ToolDefinition } from './tool.js';

export function searchInDocumentTool(deps: { passages: PassageSearch; documents: DocumentService; prices: PriceTable }): ToolDefinition {
  return {
    name: 'search_in_document',
    title: 'Search inside a document',
    annotations: readOnly('Search inside a document'),
    rateScope: 'documents',
    description: [
      `Finds up to ${MAX_PASSAGES} passages of one document that match a text filter, best first, without fetching the whole text: use it to check a claim, find a number or locate a method in a long paper.`,
      'Identify the document by exactly one of `document_id` or `uri` (canonical URI). In `text_filter`, unquoted words guide relevance and a span in double quotes must occur verbatim in the passage.',
      'Each passage gives its field (title, abstract or full_text), text, score and character offsets into that field.',
      `Cost: ${deps.prices.documentPassages} credits per call, whether or not passages match; nothing is charged when the call fails (unknown document, invalid filter such as an unbalanced quote).`,
      'A retracted document is flagged (is_retracted, a warning line in the text): do not cite it as support.',
    ].join('\n'),
    inputSchema: Type.Object(
      {
        ...DocumentRefInput,
        text_filter: Type.String({ minLength: 1, maxLength: 16_384, description: 'What to find, e.g. "storage capacity" salt or a quoted sentence fragment.' }),
      },
      { additionalProperties: false },
    ),
    outputSchema: Type.Object({
      document: WorkSummary,
      passages: Type.Array(
        Type.Object({
          field: Type.String(),
          text: Type.String(),
          score: Type.Number(),
          start_char: Type.Integer({ description: 'Offset of the passage in its field, Unicode code points.' }),
          end_char: Type.Integer({ description: 'End offset (exclusive).' }),
        }),
      ),
      credits_charged: Type.Integer(),
    }),
    async run(input, ctx) {
      const ref = documentRef(input);
      let uri: string;
      if (ref.documentId !== undefined) {
        const doc = await deps.documents.get(ref.documentId);
        if (doc.uris.length === 0) throw new ToolInputError(`Document ${doc.id} has no canonical URI; in-document search addresses documents by URI. Use fetch_document with max_tokens instead.`);
        uri = doc.uris[0]!;
      } else uri = ref.uri;
      const r = await deps.passages.passages(ctx.principal, uri, input.text_filter as string, ctx.requestId);
      const doc = r.hits[0]?.doc ?? (await deps.documents.resolveUri(uri));
      const passages = r.hits.flatMap((h) => h.snippets.map((s) => ({ field: s.field, text: s.text, score: h.score, start_char: s.source.startChar, end_char: s.source.endChar })));
      const lines = [`Passages of **${doc.title}** (id ${doc.id}) matching ${JSON.stringify(input.text_filter)}: ${passages.length === 0 ? 'none' : passages.length}.`];
      const notice = noticeLine(doc);
      if (notice) lines.push(notice);
      passages.forEach((p, i) => lines.push('', `${i + 1}. [${p.field}, characters ${p.start_char}-${p.end_char}]`, `> ${p.text.replace(/\s+/g, ' ').trim()}`));
      lines.push('', `[${r.cost} credits charged]`);
      return { text: lines.join('\n'), structured: { document: workSummary(doc), passages, credits_charged: r.cost } };
    },
  };
}
