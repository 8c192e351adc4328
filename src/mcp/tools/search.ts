// search_documents, search_social and works_citing: the MCP twins of POST /v2/search/ (same service,
// same billing, same `search` rate limit), with the parameters an agent needs and dates as calendar
// strings instead of Unix seconds. works_citing is a search with `referenced_by_uri` (forward citation
// snowballing).
import { Type, type TSchema } from 'typebox';
import type { DocumentService } from '../../documents/document-service.js';
import type { PriceTable } from '../../domain/prices.js';
import type { SearchService } from '../../search/search-service.js';
import { defaultSearchRequest, type SearchRequest, type SearchResult } from '../../search/search-types.js';
import { WorkSummary, workMarkdown, workSummary } from '../present.js';
import { ToolInputError, readOnly, type ToolDefinition, type ToolOutput } from './tool.js';

/** Hits per call: the HTTP API allows 500, agents read far fewer; page with offset. */
export const MCP_SEARCH_MAX_LIMIT = 50;

const DATE = '^\\d{4}(-\\d{2}(-\\d{2})?)?$';
const StringList = (description: string) => Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { minItems: 1, maxItems: 64, description }));

const queryField = (what: string) =>
  Type.String({
    maxLength: 16_384,
    description: `${what} Unquoted words guide relevance (any may match); a span in double quotes is a required exact phrase, e.g. "hydrogen storage" salt caverns. At most 16 KiB.`,
  });

const common = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MCP_SEARCH_MAX_LIMIT, default: 10, description: `Hits to return, 1 to ${MCP_SEARCH_MAX_LIMIT} (default 10). Each returned hit costs credits.` })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 499, default: 0, description: 'Hits to skip for paging; offset + limit must not exceed 500.' })),
  filter_languages: StringList('ISO 639-1 language codes, e.g. ["en", "de"].'),
  published_after: Type.Optional(Type.String({ pattern: DATE, description: 'Only works issued on or after this date: YYYY, YYYY-MM or YYYY-MM-DD.' })),
  published_before: Type.Optional(Type.String({ pattern: DATE, description: 'Only works issued on or before this date (the whole year or month when given as YYYY or YYYY-MM).' })),
};

const documentFilters = {
  filter_types: StringList(
    'Document types: journal-article, proceedings-article, preprint, posted-content, book-chapter, book, monograph, dissertation, report, standard, dataset, review, editorial, letter, erratum, retraction, patent, other.',
  ),
  filter_publisher: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Exact publisher name (case-insensitive).' })),
  filter_issns: StringList('Journal ISSNs, e.g. ["0016-2361"].'),
  filter_uri_prefixes: StringList('Canonical URI prefixes, e.g. ["arxiv://"] for preprints on arXiv or ["doi://10.1016/"] for one DOI prefix.'),
  deduplicate: Type.Optional(Type.Boolean({ default: true, description: 'Collapse records of one work (a preprint and its published version) into the best one (default true).' })),
};

/** The first or last Unix second of a YYYY, YYYY-MM or YYYY-MM-DD period (UTC). */
export function dateBound(s: string, end: boolean): number {
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(s);
  if (!m) throw new ToolInputError(`${JSON.stringify(s)} is not a date: use YYYY, YYYY-MM or YYYY-MM-DD.`);
  const [y, mo, d] = [Number(m[1]), m[2] ? Number(m[2]) : null, m[3] ? Number(m[3]) : null];
  if ((mo !== null && (mo < 1 || mo > 12)) || (d !== null && (d < 1 || d > 31))) throw new ToolInputError(`${JSON.stringify(s)} is not a valid date.`);
  if (!end) return Date.UTC(y, (mo ?? 1) - 1, d ?? 1) / 1000;
  const next = d !== null ? Date.UTC(y, mo! - 1, d + 1) : mo !== null ? Date.UTC(y, mo, 1) : Date.UTC(y + 1, 0, 1);
  return next / 1000 - 1;
}

const list = (v: unknown): string[] | null => (Array.isArray(v) ? (v as string[]) : null);

/** A SearchRequest with the HTTP API's defaults (SearchRequestV2) and the agent's choices. */
export function searchRequest(input: Record<string, unknown>, indexNames: string[], referencedBy: string | string[] | null = null): SearchRequest {
  return defaultSearchRequest({
    query: typeof input.query === 'string' ? input.query : '',
    mode: (input.mode as SearchRequest['mode'] | undefined) ?? 'hybrid',
    rankingMode: (input.ranking_mode as SearchRequest['rankingMode'] | undefined) ?? 'auto',
    indexNames,
    limit: (input.limit as number | undefined) ?? 10,
    offset: (input.offset as number | undefined) ?? 0,
    deduplicate: (input.deduplicate as boolean | undefined) ?? true,
    filters: {
      issns: list(input.filter_issns),
      languages: list(input.filter_languages),
      types: list(input.filter_types),
      uriPrefixes: list(input.filter_uri_prefixes),
      publisher: typeof input.filter_publisher === 'string' ? input.filter_publisher : null,
      issuedAfter: typeof input.published_after === 'string' ? dateBound(input.published_after, false) : null,
      issuedBefore: typeof input.published_before === 'string' ? dateBound(input.published_before, true) : null,
    },
    referencedBy,
  });
}

/** Search results for agents: the ranking with snippets and work records, plus paging and cost. */
export const SearchOutput = Type.Object({
  ranking_mode: Type.String({ description: 'documents or passages (what was ranked).' }),
  total_hits: Type.Integer({ description: 'Matching documents (a lower bound for broad queries).' }),
  has_next: Type.Boolean(),
  next_offset: Type.Union([Type.Integer(), Type.Null()]),
  corrected_query: Type.Union([Type.String(), Type.Null()]),
  hits: Type.Array(
    Type.Object({
      rank: Type.Integer(),
      id: Type.String(),
      score: Type.Number(),
      snippets: Type.Array(Type.Object({ field: Type.String({ description: 'title, abstract or full_text' }), text: Type.String() })),
      document: Type.Union([WorkSummary, Type.Null()]),
    }),
  ),
  trajectory: Type.Union([Type.Object({ id: Type.String(), feedback_token: Type.String() }), Type.Null()], { description: 'Identifies this retrieval (for feedback on its results).' }),
  credits_charged: Type.Integer(),
  partial_results: Type.Optional(
    Type.Object(
      { shards: Type.Integer(), missing: Type.Array(Type.Object({ index: Type.String(), shard: Type.Integer() })) },
      { description: 'Present only when the result is partial: on a cluster, these shards had no live replica, so hits and total_hits cover the other shards only (docs/scale.md).' },
    ),
  ),
  ranking: Type.Optional(
    Type.Union([Type.Object({ method: Type.String({ description: 'rrf or formula, then +catboost / +cross_encoder for the stages that ran.' }), stages: Type.Array(Type.Object({ stage: Type.String(), us: Type.Integer({ description: 'Microseconds.' }) })) }), Type.Null()], {
      description: 'The ranking stages that ran after retrieval (docs/ranking.md), with their timings; null when none ran.',
    }),
  ),
});

export function presentSearch(r: SearchResult, offset: number, heading: string): ToolOutput {
  const lines = [`${heading}: ${r.totalHits} matching, showing ${r.hits.length === 0 ? 'none' : `${offset + 1}-${offset + r.hits.length}`}.`];
  if (r.partial) lines.push(`Partial results: ${r.partial.missing.map((m) => `shard ${m.shard} of ${m.index}`).join(', ')} did not answer (of ${r.partial.shards} shards); the hits and the count cover the other shards only.`);
  if (r.correctedQuery) lines.push(`Did you mean: ${r.correctedQuery}`);
  r.hits.forEach((h, i) => {
    lines.push('');
    lines.push(h.doc ? workMarkdown(h.doc, offset + i + 1) : `${offset + i + 1}. id ${h.id}`);
    for (const s of h.snippets) lines.push(`   > ${s.text.replace(/\s+/g, ' ').trim()}`);
  });
  if (r.hasNext) lines.push('', `More results: call again with offset ${offset + r.hits.length}.`);
  const stages = r.rankingStages ?? [];
  if (r.candidateRanking && stages.length > 0) lines.push('', `Ranked by ${r.candidateRanking.method}: ${stages.map((x) => `${x.stage} ${(x.us / 1000).toFixed(1)} ms`).join(', ')}.`);
  lines.push('', `[${r.cost} credits charged]`);
  return {
    text: lines.join('\n'),
    structured: {
      ranking_mode: r.rankingMode,
      total_hits: r.totalHits,
      has_next: r.hasNext,
      next_offset: r.hasNext ? offset + r.hits.length : null,
      corrected_query: r.correctedQuery,
      hits: r.hits.map((h, i) => ({
        rank: offset + i + 1,
        id: h.id,
        score: h.score,
        snippets: h.snippets.map((s) => ({ field: s.field, text: s.text })),
        document: h.doc ? workSummary(h.doc) : null,
      })),
      trajectory: r.trajectory ? { id: r.trajectory.id, feedback_token: r.trajectory.feedbackToken } : null,
      credits_charged: r.cost,
      ranking: r.candidateRanking && (r.rankingStages ?? []).length > 0 ? { method: r.candidateRanking.method, stages: r.rankingStages ?? [] } : null,
      ...(r.partial ? { partial_results: { shards: r.partial.shards, missing: r.partial.missing } } : {}),
    },
  };
}

const costLine = (p: PriceTable) =>
  `Cost: ${p.search} credits per call plus ${p.searchPerHit} per returned hit (a 10-hit page costs ${p.search + 10 * p.searchPerHit}); nothing is charged when the call fails.`;

interface SearchToolDeps {
  search: SearchService;
  documents: DocumentService;
  prices: PriceTable;
}

export function searchDocumentsTool(deps: SearchToolDeps): ToolDefinition {
  return {
    name: 'search_documents',
    title: 'Search scholarly documents',
    annotations: readOnly('Search scholarly documents'),
    rateScope: 'search',
    description: [
      'Searches Lectern\'s scholarly corpus (journal and conference papers, preprints, books, patents, encyclopedias) and returns ranked works with matching snippets.',
      'Each hit has the work\'s id (for fetch_document, search_in_document, works_cited, works_citing), canonical URIs, title, authors, date, venue, an abstract cut to 600 characters, `is_retracted`/`notices` (each notice with its own document_id), `versions` (the other records of the same work: preprint, published version) and, for a retraction notice or erratum itself, `notice_kind`/`notice_of` (the work it concerns).',
      `Filters: filter_types, filter_languages, published_after/published_before (YYYY[-MM[-DD]]), filter_publisher, filter_issns, filter_uri_prefixes. An empty query with filters lists matching works, newest first. Page with limit (1-${MCP_SEARCH_MAX_LIMIT}) and offset (offset + limit <= 500).`,
      costLine(deps.prices),
      'Retracted works are flagged (is_retracted, a warning line in the text): never cite them as support.',
    ].join('\n'),
    inputSchema: Type.Object(
      {
        query: Type.Optional(queryField('What to look for.')),
        ...common,
        ...documentFilters,
        ranking_mode: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('documents'), Type.Literal('passages')], { default: 'auto', description: 'documents ranks whole works; passages ranks by best passage (good for specific facts). Default auto.' })),
        mode: Type.Optional(
          Type.Union([Type.Literal('hybrid'), Type.Literal('fulltext'), Type.Literal('sparse'), Type.Literal('short_document'), Type.Literal('binary')], {
            default: 'hybrid',
            description:
              'Retrieval: hybrid (default; fuses every configured channel), fulltext (exact words, BM25), sparse (words plus related terms learned from the corpus), short_document (meaning: dense vectors of title and abstract), binary (the same, faster and coarser). Modes other than fulltext and hybrid need trained corpus models; without them the call fails saying so.',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    outputSchema: SearchOutput,
    async run(input, ctx) {
      const req = searchRequest(input, ['documents']);
      const r = await deps.search.search(ctx.principal, req, ctx.requestId);
      return presentSearch(r, req.offset, `Documents for ${JSON.stringify(req.query)}`);
    },
  };
}

export function searchSocialTool(deps: SearchToolDeps): ToolDefinition {
  return {
    name: 'search_social',
    title: 'Search public discussion',
    annotations: readOnly('Search public discussion'),
    rateScope: 'search',
    description: [
      'Searches public discussion (Stack Exchange questions and answers) and returns ranked posts with matching snippets; useful for practical know-how, debates and where papers are discussed.',
      'Each hit carries `attribution` (author, site, URL, licence CC BY-SA): show it with any quotation.',
      `Filters: filter_languages, published_after/published_before (YYYY[-MM[-DD]]), filter_types (question or answer). Page with limit (1-${MCP_SEARCH_MAX_LIMIT}) and offset.`,
      costLine(deps.prices),
    ].join('\n'),
    inputSchema: Type.Object(
      {
        query: Type.Optional(queryField('What to look for.')),
        ...common,
        filter_types: StringList('question and/or answer.'),
      },
      { additionalProperties: false },
    ),
    outputSchema: SearchOutput,
    async run(input, ctx) {
      const req = searchRequest(input, ['social']);
      const r = await deps.search.search(ctx.principal, req, ctx.requestId);
      return presentSearch(r, req.offset, `Posts for ${JSON.stringify(req.query)}`);
    },
  };
}

export function worksCitingTool(deps: SearchToolDeps): ToolDefinition {
  const uriDescription =
    'The cited work: a doi:// or arxiv:// URI (e.g. doi://10.1016/j.fuel.2022.125636), or an array of up to 16 identifiers of the same work (any canonical scheme).';
  return {
    name: 'works_citing',
    title: 'Works citing a work',
    annotations: readOnly('Works citing a work'),
    rateScope: 'search',
    description: [
      'Finds documents and discussions that cite a work (forward citation snowballing): a search restricted to works whose reference lists contain it.',
      "Give the cited work as `uri` (a doi:// or arxiv:// URI, or an array of up to 16 identifiers of the same work) or as `document_id`. Lectern also matches the work's other identifiers (its DOI, arXiv id and OpenAlex id).",
      'An optional `query` ranks and narrows the citing works (without one they come newest first). Same filters and paging as search_documents; `include_social` adds Stack Exchange posts that link the work.',
      costLine(deps.prices),
      'Citing works that are retracted are flagged (is_retracted): do not count them as support.',
    ].join('\n'),
    inputSchema: Type.Object(
      {
        uri: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 2048 }), Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { minItems: 1, maxItems: 16 })], { description: uriDescription })),
        document_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'The cited work by Lectern id instead of uri.' })),
        query: Type.Optional(queryField('Optional words to rank and narrow the citing works.')),
        include_social: Type.Optional(Type.Boolean({ default: false, description: 'Also return discussion posts that cite the work.' })),
        ...common,
        ...documentFilters,
      },
      { additionalProperties: false },
    ) as TSchema,
    outputSchema: SearchOutput,
    async run(input, ctx) {
      if ((input.uri === undefined) === (input.document_id === undefined)) throw new ToolInputError('Give exactly one of uri or document_id.');
      let cited: string | string[];
      if (typeof input.document_id === 'string') {
        const doc = await deps.documents.get(input.document_id);
        if (doc.uris.length === 0) throw new ToolInputError(`Document ${doc.id} has no canonical URI, so no other work can cite it by one.`);
        cited = doc.uris.slice(0, 16);
      } else cited = input.uri as string | string[];
      const req = searchRequest(input, input.include_social === true ? ['documents', 'social'] : ['documents'], cited);
      const r = await deps.search.search(ctx.principal, req, ctx.requestId);
      return presentSearch(r, req.offset, `Works citing ${Array.isArray(cited) ? cited[0] : cited}`);
    },
  };
}

export function similarDocumentsTool(deps: SearchToolDeps): ToolDefinition {
  return {
    name: 'similar_documents',
    title: 'Documents similar to a document',
    annotations: readOnly('Documents similar to a document'),
    rateScope: 'search',
    description: [
      "Finds works similar in content to one work (by its title and abstract, in a vector space Lectern learned from its own corpus), best first; the work itself and other records of it are left out.",
      'Give `document_id` (from search_documents or another tool). Optional filter_languages and filter_types; limit 1-100 (default 10).',
      costLine(deps.prices),
      'Fails with a clear message when the server has no trained corpus models (an operator runs `lectern models train`).',
      'Retracted works are flagged (is_retracted): never cite them as support.',
    ].join('\n'),
    inputSchema: Type.Object(
      {
        document_id: Type.String({ minLength: 1, maxLength: 512, description: 'The work to start from (Lectern id).' }),
        filter_languages: common.filter_languages,
        filter_types: documentFilters.filter_types,
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Works to return, 1 to 100 (default 10). Each returned work costs credits.' })),
      },
      { additionalProperties: false },
    ),
    outputSchema: SearchOutput,
    async run(input, ctx) {
      const id = input.document_id as string;
      const r = await deps.search.similar(ctx.principal, { documentId: id, languages: list(input.filter_languages), types: list(input.filter_types), limit: (input.limit as number | undefined) ?? 10 }, ctx.requestId);
      return presentSearch(r, 0, `Works similar to ${id}`);
    },
  };
}
