// Wire translation for search: SearchRequestV2 -> SearchRequest, SearchResult -> V2SearchResponse.
import type { SnippetWindow } from '../../engine/index.js';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import { inHitEncoderRoom, type HitEncoder, type SearchHit, type SearchRequest, type SearchResult } from '../../search/search-types.js';
import { V2Hit, type SearchRequestV2, type V2SearchResponse } from '../schemas/search.js';
import { ALL_SCHEMAS } from '../schemas/index.js';
import { ref } from '../schemas/common.js';
import { toWireDocument } from './document.js';
import { wireHitsUtf8 } from './wire-hits-json.js';
import type { CandidateRankingValue, SnippetEvidenceValue } from '../../ranking/info.js';
import { finite } from '../../ranking/features.js';
import { PACED_CHUNK_BYTES, PacedBody } from '../paced-body.js';

/** CandidateRankingInfo on the wire. */
export function toWireCandidateRanking(c: CandidateRankingValue): NonNullable<V2SearchResponse['candidate_ranking']> {
  const k = c.contract;
  return {
    method: c.method,
    contract: {
      name: k.name,
      features: k.features,
      score_policy: k.scorePolicy,
      rrf_policy: k.rrfPolicy,
      backfill: k.backfill,
      candidate_depth: k.candidateDepth,
      phrase_policy: k.phrasePolicy,
      tokenizer_policy: k.tokenizerPolicy,
      document_reduction: k.documentReduction,
      teacher_input: k.teacherInput,
      vector_combiner: { name: k.vectorCombiner.name, temperature: k.vectorCombiner.temperature, top_k: k.vectorCombiner.topK, decay: k.vectorCombiner.decay },
      sparse_query: { max_query_dims: k.sparseQuery.maxQueryDims, weight_threshold: k.sparseQuery.weightThreshold, heap_factor: k.sparseQuery.heapFactor, pruning: k.sparseQuery.pruning },
    },
    l2: c.l2
      ? {
          method: c.l2.method,
          artifact_sha256: c.l2.artifactSha256,
          model_sha256: c.l2.modelSha256,
          feature_version: c.l2.featureVersion,
          corpus_models: c.l2.corpusModels.map((m) => ({ corpus: m.corpus, model_sha256: m.modelSha256, scoring: { target: m.scoring.target, correction_weight: m.scoring.correctionWeight }, input_documents: m.inputDocuments, input_rows: m.inputRows })),
          input_documents: c.l2.inputDocuments,
          input_rows: c.l2.inputRows,
          output_documents: c.l2.outputDocuments,
          elapsed_us: c.l2.elapsedUs,
          engagement: {
            enabled: c.l2.engagement.enabled,
            as_of_at: c.l2.engagement.asOfAt,
            computed_at: c.l2.engagement.computedAt,
            observed_documents: c.l2.engagement.observedDocuments,
            requested_documents: c.l2.engagement.requestedDocuments,
            elapsed_us: c.l2.engagement.elapsedUs,
          },
        }
      : null,
    model_sha256: c.modelSha256,
  };
}

export function toSearchRequest(b: SearchRequestV2): SearchRequest {
  return {
    query: b.query,
    mode: b.mode ?? 'hybrid',
    rankingMode: b.ranking_mode ?? 'auto',
    indexNames: b.index_names,
    limit: b.limit,
    offset: b.offset,
    returnDocuments: b.return_documents,
    deduplicate: b.deduplicate,
    filters: {
      issns: b.filter_issns ?? null,
      languages: b.filter_languages ?? null,
      types: b.filter_types ?? null,
      uriPrefixes: b.filter_uri_prefixes ?? null,
      publisher: b.filter_publisher ?? null,
      issuedAfter: b.filter_issued_after ?? null,
      issuedBefore: b.filter_issued_before ?? null,
    },
    referencedBy: b.referenced_by_uri ?? null,
    possibleLanguages: b.possible_languages ?? null,
    crossRerank: b.cross_rerank,
    candidateRanking: b.candidate_ranking ?? null,
    l2Rerank: b.l2_rerank ?? null,
    l1Formula: b.l1?.formula ?? null,
    l1Backfill: b.l1?.backfill ?? false,
    l1MissingValues: b.l1?.missing_values ?? null,
    crossRerankCandidates: b.cross_rerank_candidates,
    includeCandidateScores: b.include_candidate_scores ?? false,
    fulltextWeight: b.fulltext_weight ?? null,
    phraseBoost: b.fulltext_phrase_boost ?? null,
    rrfK: b.rrf_k ?? null,
    sparseNomination: b.sparse_nomination ?? null,
    binaryPool: b.binary_pool,
    documentDiscovery: b.document_discovery ?? null,
    includeRrfScores: b.include_rrf_scores ?? false,
    tracing: b.tracing ?? false,
    maxQueryDims: b.max_query_dims,
    weightThreshold: b.weight_threshold,
    pruning: b.pruning ?? null,
    heapFactor: b.heap_factor ?? null,
    combiner: b.combiner,
    combinerDecay: b.combiner_decay,
    combinerTemperature: b.combiner_temperature,
    combinerTopK: b.combiner_top_k,
  };
}

export function toWireSnippet(s: SnippetWindow, evidence: SnippetEvidenceValue | null = null) {
  return {
    field: s.field,
    text: s.text,
    chunk_id: s.chunkId,
    score: s.score,
    evidence: evidence ? { text: evidence.text, start_char: evidence.startChar, score: finite(evidence.score) } : null,
    source: { start_char: s.source.startChar, end_char: s.source.endChar, field_length: s.source.fieldLength },
    highlights: s.highlights.map((h): [number, number] => [h.start, h.end]),
  };
}

/** One hit on the wire (V2Hit). */
export function toWireHit(h: SearchHit, baseUrl: string): V2SearchResponse['hits'][number] {
  return {
    id: h.id,
    score: h.score,
    snippets: h.snippets.map((s, i) => toWireSnippet(s, h.evidence?.[i] ?? null)),
    document: h.doc ? toWireDocument(h.doc, baseUrl) : null,
    candidate_scores: h.candidateScores
      ? {
          document: h.candidateScores.document,
          passages: h.candidateScores.passages.map((p) => ({ ordinal: p.ordinal, scores: p.scores, l1_score: p.l1Score })),
          scored_passages: h.candidateScores.scoredPassages,
        }
      : null,
    rrf: h.rrf ? { score: h.rrf.score, contributions: h.rrf.contributions.map((c) => ({ ...c })) } : null,
  };
}

/**
 * The hits of a V2SearchResponse as UTF-8 JSON (the `hits` array): the text the route's response
 * serializer writes for them (ADR 0150), made by the serializer specialized for the hit shape
 * (ADR 0195, {@link wireHitsJson}). Built once per search thread; the buffer is the thread's own
 * (transferable).
 */
export function wireHitEncoder(baseUrl: string): HitEncoder {
  // A record's wire JSON (UTF-8), kept while the record object lives: hits of hot queries come from the
  // display cache (ADR 0135) as the same immutable objects, so their documents are written once.
  const documents = new WeakMap<object, Uint8Array>();
  const utf8 = new TextEncoder();
  return (hits) =>
    wireHitsUtf8(hits, (doc) => {
      let bytes = documents.get(doc);
      if (bytes === undefined) {
        bytes = utf8.encode(JSON.stringify(toWireDocument(doc, baseUrl)));
        documents.set(doc, bytes);
      }
      return bytes;
    });
}

/**
 * The hits' serializer compiled from the shared schemas by the compiler Fastify uses (what the route's
 * response serializer does for `hits`): the reference {@link wireHitsJson} is checked against.
 */
export function compiledHitsSerializer(): (hits: unknown) => string {
  const externalSchemas = Object.fromEntries(ALL_SCHEMAS.map((s) => [(s as { $id: string }).$id, s]));
  return SerializerSelector()(externalSchemas, {})({ schema: { type: 'array', items: ref(V2Hit) }, method: 'POST', url: '/v2/search/', httpStatus: '200' }) as (hits: unknown) => string;
}

/**
 * The response body with hits encoded by {@link wireHitEncoder}: `envelope` is the route's serialization
 * of the response with an empty hits array; the encoded array takes its place.
 */
export function spliceEncodedHits(envelope: string, hits: Uint8Array): Buffer {
  const at = envelope.indexOf('"hits":[]');
  if (at < 0) throw new Error('search response without an empty hits array to fill');
  // in the room the hit encoder left around the hits in their own buffer (ADR 0375): no copy of them. Only
  // a buffer laid out exactly as the encoder makes it is written (never a shared pool's or a caller's).
  const before = envelope.slice(0, at + 7);
  const after = envelope.slice(at + 9);
  const head = Buffer.byteLength(before, 'utf8');
  const start = hits.byteOffset - head;
  const end = hits.byteOffset + hits.byteLength + Buffer.byteLength(after, 'utf8');
  if (inHitEncoderRoom(hits) && start >= 0 && end <= hits.buffer.byteLength) {
    const out = Buffer.from(hits.buffer, start, end - start);
    out.write(before, 0, 'utf8');
    out.write(after, head + hits.byteLength, 'utf8');
    return out;
  }
  return Buffer.concat(encodedHitsParts(envelope, hits));
}

/**
 * Frees the memory of hits encoded in their own buffer once the response holding them has been written
 * (ADR 0378): the buffer is detached, so its backing store goes now instead of at the main isolate's next
 * mark-compact. Those buffers (transferred from a search thread, ~20-24 KB a search) often outlive two
 * scavenges; V8 then counts their external memory against the old generation's limit until a mark-compact,
 * which is what started most of the main isolate's mark-compacts under load. Only a buffer laid out as the
 * hit encoder makes it is detached (never a pool's, a shared or a caller's buffer); call it only after the
 * bytes are written (the response's 'finish'): nothing may read them afterwards.
 */
export function releaseHitBuffer(hits: Uint8Array): void {
  if (!inHitEncoderRoom(hits)) return;
  const own = hits.buffer as ArrayBuffer;
  // Node 20 has no ArrayBuffer.prototype.transfer: a transferring clone detaches the buffer; the clone,
  // unreferenced, is freed by the next scavenge
  structuredClone(own, { transfer: [own] });
}

/** The response's parts around the encoded hits: the envelope up to `"hits":`, the hits, the rest. */
function encodedHitsParts(envelope: string, hits: Uint8Array): [Buffer, Uint8Array, Buffer] {
  // `"hits":[]` follows ranking_mode (an enum), so its first occurrence is the property itself
  const at = envelope.indexOf('"hits":[]');
  if (at < 0) throw new Error('search response without an empty hits array to fill');
  return [Buffer.from(envelope.slice(0, at + 7), 'utf8'), hits, Buffer.from(envelope.slice(at + 9), 'utf8')];
}

/**
 * The body of {@link spliceEncodedHits}, as the route sends it: one buffer when it fits one chunk; a
 * larger one as a {@link PacedBody} over the same parts (no copy of the hits; written a chunk per
 * turn of the event loop, ADR 0305), whose `byteLength` the route sends as Content-Length.
 */
export function encodedHitsBody(envelope: string, hits: Uint8Array, chunkBytes = PACED_CHUNK_BYTES): Buffer | PacedBody {
  const parts = encodedHitsParts(envelope, hits);
  const total = parts[0].byteLength + hits.byteLength + parts[2].byteLength;
  return total <= chunkBytes ? Buffer.concat(parts, total) : new PacedBody(parts, chunkBytes);
}

export function toSearchResponse(r: SearchResult, baseUrl: string): V2SearchResponse {
  const out: V2SearchResponse = {
    ranking_mode: r.rankingMode,
    hits: r.hits.map((h) => toWireHit(h, baseUrl)),
    total_hits: r.totalHits,
    has_next: r.hasNext,
    corrected_query: r.correctedQuery,
    embed_ms: r.embedMs,
    timings: { search_us: r.timings.searchUs, load_us: r.timings.loadUs, total_us: r.timings.totalUs },
    trajectory: r.trajectory ? { id: r.trajectory.id, feedback_token: r.trajectory.feedbackToken } : null,
    candidate_ranking: r.candidateRanking ? toWireCandidateRanking(r.candidateRanking) : null,
  };
  if (r.traces) {
    const explained = r.hits.filter((h) => h.explanation).map((h) => ({ id: h.id, explanation: h.explanation }));
    out.retrieval_traces = [...r.traces, ...(explained.length ? [{ branch: 'explain', hits: explained }] : [])];
  }
  if (r.partial) out.partial_results = { shards: r.partial.shards, missing: r.partial.missing };
  return out;
}
