// works_cited: the works a document cites, resolved to Lectern documents where Lectern holds them
// (backward citation snowballing). MCP-only: the interface has no HTTP route for it (ADR 0051).
import { Type } from 'typebox';
import { REFERENCE_LIMITS, type ReferenceService } from '../../citations/reference-service.js';
import type { PriceTable } from '../../domain/prices.js';
import { WorkSummary, workMarkdown, workSummary } from '../present.js';
import { DocumentRefInput } from './fetch-document.js';
import { documentRef, readOnly, type ToolDefinition } from './tool.js';

export function worksCitedTool(deps: { references: ReferenceService; prices: PriceTable }): ToolDefinition {
  const p = deps.prices;
  return {
    name: 'works_cited',
    title: 'Works a document cites',
    annotations: readOnly('Works a document cites'),
    rateScope: 'search',
    description: [
      "Lists the works a document cites (its reference list), in the reference list's order, for backward citation snowballing.",
      'Identify the citing document by exactly one of `document_id` or `uri` (canonical URI, e.g. doi://10.…).',
      `Page with \`limit\` (1 to ${REFERENCE_LIMITS.maxLimit}, default ${REFERENCE_LIMITS.defaultLimit}) and \`offset\` (0 to ${REFERENCE_LIMITS.maxOffset}); \`total_references\` is the length of the whole list.`,
      'Each entry has the cited URI and, when Lectern holds that work, its record (`document`: id, title, authors, date, venue, abstract cut to 600 characters, retraction flag); `document` is null otherwise. Fetch a cited work with fetch_document.',
      `Cost: like a search: ${p.search} credits plus ${p.searchPerHit} per cited work found in Lectern on the page; references Lectern does not hold are free. Nothing is charged when the call fails.`,
      'Cited works that are retracted have `is_retracted` true and `notices`; do not rely on them.',
    ].join('\n'),
    inputSchema: Type.Object(
      {
        ...DocumentRefInput,
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: REFERENCE_LIMITS.maxLimit, default: REFERENCE_LIMITS.defaultLimit, description: 'References per page.' })),
        offset: Type.Optional(Type.Integer({ minimum: 0, maximum: REFERENCE_LIMITS.maxOffset, default: 0, description: 'References to skip.' })),
      },
      { additionalProperties: false },
    ),
    outputSchema: Type.Object({
      document: Type.Object({ id: Type.String(), title: Type.String(), uris: Type.Array(Type.String()) }, { description: 'The citing document.' }),
      total_references: Type.Integer(),
      offset: Type.Integer(),
      has_more: Type.Boolean(),
      references: Type.Array(Type.Object({ uri: Type.String(), document: Type.Union([WorkSummary, Type.Null()]) })),
      credits_charged: Type.Integer(),
    }),
    async run(input, ctx) {
      const page = await deps.references.referencesOf(ctx.principal, documentRef(input), { limit: input.limit as number | undefined, offset: input.offset as number | undefined }, ctx.requestId);
      const hasMore = page.offset + page.entries.length < page.total;
      const lines = [
        `Works cited by **${page.source.title}** (id ${page.source.id}): ${page.total} references${page.entries.length > 0 ? `, showing ${page.offset + 1}-${page.offset + page.entries.length}` : ''}.`,
        '',
        ...page.entries.map((e, i) => (e.doc ? workMarkdown(e.doc, page.offset + i + 1) : `${page.offset + i + 1}. ${e.uri} (not in Lectern)`)),
      ];
      if (hasMore) lines.push('', `More references: call again with offset ${page.offset + page.entries.length}.`);
      lines.push('', `[${page.cost} credits charged]`);
      return {
        text: lines.join('\n'),
        structured: {
          document: { id: page.source.id, title: page.source.title, uris: page.source.uris },
          total_references: page.total,
          offset: page.offset,
          has_more: hasMore,
          references: page.entries.map((e) => ({ uri: e.uri, document: e.doc ? workSummary(e.doc) : null })),
          credits_charged: page.cost,
        },
      };
    },
  };
}
