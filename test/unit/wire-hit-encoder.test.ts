// ADR 0150: a search thread serializes the hits of the HTTP response (wireHitEncoder) and the route
// splices them into the envelope it serializes itself (spliceEncodedHits). The result must be the bytes
// the route's own response serializer writes for the whole response: same shared schemas, same
// compiler, same escaping (quotes, control characters, lone surrogates, non-ASCII), same dropping of
// properties the schema does not name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { installValidation } from '../../src/http/validation.js';
import { ALL_SCHEMAS } from '../../src/http/schemas/index.js';
import { ref } from '../../src/http/schemas/common.js';
import { V2SearchResponse } from '../../src/http/schemas/search.js';
import { spliceEncodedHits, toSearchResponse, wireHitEncoder } from '../../src/http/presenters/search.js';
import type { SearchHit, SearchResult } from '../../src/search/search-types.js';
import { doc } from '../helpers/documents.js';

const BASE = 'https://lectern.example';

function hit(i: number, title: string, abstract: string | null): SearchHit {
  const stored = { ...doc(`d${i}`, { title, abstract, authors: [{ name: 'Zoë "Q" Ångström', orcid: null, affiliations: ['Lab\\East'] }] as never }), seq: i, workKey: `w${i}`, createdAt: 1, updatedAt: 2 };
  return {
    id: `d${i}`,
    index: 'documents',
    score: 1 / (i + 3),
    snippets: [
      { field: 'title', text: title, chunkId: null, score: 0.5, source: { startChar: 0, endChar: title.length, fieldLength: title.length }, highlights: [{ start: 0, end: 2 }], sourceHighlights: [{ start: 0, end: 2 }] },
      { field: 'abstract', text: abstract ?? '', chunkId: 3, score: 1.25e-7, source: { startChar: 4, endChar: 9, fieldLength: 40 }, highlights: [], sourceHighlights: [] },
    ],
    doc: stored,
    rrf: i % 2 ? { score: 0.0163, contributions: [{ channel: 'fulltext', rank: i + 1, weight: 1, contribution: 0.0163 }] } : null,
  };
}

const result = (hits: SearchHit[], encoded: Uint8Array | null): SearchResult => ({
  rankingMode: 'documents',
  hits: encoded ? [] : hits,
  encodedHits: encoded ? { bytes: encoded, ids: hits.map((h) => h.id) } : null,
  totalHits: 1234,
  hasNext: true,
  correctedQuery: 'hydrogen "storage"',
  embedMs: null,
  timings: { searchUs: 10, loadUs: 20, totalUs: 40 },
  trajectory: { id: 't-1', feedbackToken: 'tok.en' },
  traces: null,
  cost: 20,
  candidateRanking: null,
});

test('hits encoded apart and spliced into the envelope are the bytes of the whole response serialized at once', async () => {
  const hits = [
    hit(0, 'Hydrogen storage in "salt" caverns', 'Tab\there, newline\nhere, backslash \\ and \u0001 control.'),
    hit(1, 'Ünïcödé — 水素 🚀 and a lone \ud800 surrogate', null),
    hit(2, '</script><b>&amp;', 'x'.repeat(5000)),
  ];
  const app = Fastify();
  installValidation(app, ALL_SCHEMAS);
  const encode = wireHitEncoder(BASE);
  const schema = { response: { 200: ref(V2SearchResponse) } };
  app.get('/whole', { schema }, async () => toSearchResponse(result(hits, null), BASE));
  app.get('/spliced', { schema }, async (_request, reply) => {
    const r = result(hits, encode(hits));
    const body = spliceEncodedHits(reply.serialize(toSearchResponse(r, BASE)) as string, r.encodedHits!.bytes);
    return reply.type('application/json; charset=utf-8').send(body);
  });
  await app.ready();
  const whole = await app.inject({ url: '/whole' });
  const spliced = await app.inject({ url: '/spliced' });
  assert.equal(whole.statusCode, 200);
  assert.equal(spliced.statusCode, 200);
  assert.equal(spliced.body, whole.body);
  assert.deepEqual(spliced.rawPayload, whole.rawPayload);
  assert.equal(spliced.headers['content-type'], whole.headers['content-type']);
  assert.equal(spliced.headers['content-length'], whole.headers['content-length']);
  assert.equal((spliced.json() as { hits: unknown[] }).hits.length, 3);
  // no hits at all
  const none = encode([]);
  assert.equal(new TextDecoder().decode(none), '[]');
  await app.close();
});

test('the encoder returns a buffer of its own (transferable without copying a shared pool)', () => {
  const bytes = wireHitEncoder(BASE)([hit(0, 'a', 'b')]);
  assert.equal(bytes.byteOffset, 0);
  assert.equal(bytes.byteLength, bytes.buffer.byteLength);
});

test('splicing refuses an envelope without an empty hits array', () => {
  assert.throws(() => spliceEncodedHits('{"ranking_mode":"documents","hits":[{"id":"x"}]}', new Uint8Array()), /empty hits array/);
});
